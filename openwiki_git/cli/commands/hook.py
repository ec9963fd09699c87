"""`openwiki-git hook`: the pre-commit entry point. Marks the claims that the staged change made
stale, and re-anchors the ones whose text merely moved.

It reads the staged diff (HEAD -> the index git is committing; `GIT_INDEX_FILE` is honoured, so
`git commit <paths>` works), never the working tree. With `PRE_COMMIT_FROM_REF` and
`PRE_COMMIT_TO_REF` set (pre-push, `pre-commit run --from-ref X --to-ref Y`), or with
`--from-ref`/`--to-ref`, it reads the diff from their merge base to the second ref instead. With
nothing staged (`pre-commit run --all-files` on a clean tree) every claim is checked against the
index.

Prints one line per stale claim, `page: claim-id: statement (path#Lx-Ly changed by @@ ... @@)`.
On the staged diff it stages the `.openwiki/` files it rewrote (those without unstaged edits),
so pre-commit does not count them as modified. Exit 0 when it only re-anchored claims
(`hook.on_moved: stage`, the default); exit 1 once when it newly marked a claim stale or
unresolved (`hook.on_stale: stop`, the default; the marks are staged, so the same `git commit`
passes next time), or when a file it rewrote has unstaged edits (then it is not staged). Run
again on its own staged output it writes nothing and exits 0. On a ref range (pre-push) nothing
is staged: exit 1 when it modified files.
`--check` modifies nothing and exits 1 when any claim the change touches is stale.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field

from openwiki_git.caches import cites
from openwiki_git.claims.outcomes import ClaimOutcome
from openwiki_git.claims.staleness import Engine, Options
from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import SchemaError
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.git import diff as gitdiff
from openwiki_git.git.repo import blob_id
from openwiki_git.hook import staging
from openwiki_git.model import Sidecar
from openwiki_git.store import editing
from openwiki_git.store.workspace import Workspace, now_iso

NULL_REF = "0" * 40
WORKTREE = "worktree"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help="pre-commit hook: mark claims the staged change made stale", description=__doc__)
    p.add_argument("--check", action="store_true", help="modify nothing; exit 1 when any touched claim is stale")
    p.add_argument("--from-ref", metavar="REV", help="diff from the merge base of REV and --to-ref (default: PRE_COMMIT_FROM_REF)")
    p.add_argument("--to-ref", metavar="REV", help="... to REV (default: PRE_COMMIT_TO_REF)")
    p.set_defaults(run=run)


@dataclass
class Evaluation:
    """What one diff did to the wiki's claims."""

    diff: gitdiff.Diff
    outcomes: list[ClaimOutcome] = field(default_factory=list)  # affected claims, page then claim order
    sidecars: dict[str, Sidecar] = field(default_factory=dict)  # the current sidecars that were read
    everything: bool = False  # no diff: every claim was checked against the new side
    render: set[str] = field(default_factory=set)  # pages whose page or sidecar the diff changes

    def stale(self) -> list[ClaimOutcome]:
        return [o for o in self.outcomes if o.status != "fresh"]


def _page_of(sidecar_rel: str) -> str:
    return sidecar_rel[: -len(".json")] + ".md"


def _parse_blob(ws: Workspace, commit: str | None, page: str, data: bytes) -> Sidecar | None:
    path = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
    try:
        text = data.decode("utf-8")
        return sidecar_codec.loads(text, filename=f"{path}@{(commit or '')[:12]}", page=page, wiki_dir=ws.config.wiki_dir)
    except (UnicodeDecodeError, SchemaError):
        return None


def _load_blob(ws: Workspace, commit: str | None, page: str) -> tuple[str, Sidecar | None] | None:
    """(blob id, sidecar or None when it does not parse) of a page's sidecar in a commit."""
    got = _blob(ws, commit, page)
    return None if got is None else (got[0], _parse_blob(ws, commit, page, got[1]))


def _blob(ws: Workspace, commit: str | None, page: str) -> tuple[str, bytes] | None:
    path = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
    return gitdiff.blob_at(ws.repo, commit, path)


def _load_current(ws: Workspace, current: str, page: str) -> tuple[str | None, Sidecar | None]:
    """(blob id, sidecar) of a page's sidecar as it is now: on disk, or in commit `current`."""
    if current != WORKTREE:
        got = _load_blob(ws, current, page)
        if got is None:
            return None, None
        if got[1] is None:  # a broken sidecar in the commit under review: say so, as `check` does
            path = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
            data = gitdiff.blob_at(ws.repo, current, path)
            assert data is not None
            sidecar_codec.loads(data[1].decode("utf-8", "replace"), filename=path, page=page, wiki_dir=ws.config.wiki_dir)
        return got
    sidecar = ws.wiki.load(page)
    if sidecar is None:
        return None, None
    try:
        blob = blob_id(ws.wiki.sidecar_path(page).read_bytes())
    except OSError:
        blob = None
    return blob, sidecar


def evaluate(ws: Workspace, diff: gitdiff.Diff, *, current: str = WORKTREE, everything: bool = False) -> Evaluation:
    """Judge the claims `diff` touches: those citing a file it changes (found through the cached
    reverse index, so the wiki's other sidecars are not read) and those in sidecars it changes.
    `current` says where the sidecars are read now: the working tree (what the hook writes) or a
    commit id. `everything`: judge every claim against the new side (no diff to follow)."""
    wiki_prefix = ws.config.wiki_dir + "/"
    claims_dir = f"{ws.config.wiki_dir}/.claims"
    options = Options(
        now=now_iso(),
        adjacent_insert=ws.config.adjacent_insert,
        max_growth=ws.config.max_growth,
        commit=diff.old,
        wiki_dir=ws.config.wiki_dir,
        cosmetic_edits=ws.config.cosmetic_edits,
        cosmetic_annotations=ws.config.cosmetic_annotations,
        growth_factor=ws.config.range_growth_factor,
        growth_lines=ws.config.range_growth_lines,
    )
    engine = Engine(
        diff.changes,
        lambda p: gitdiff.read(ws.repo, diff.old, p),
        lambda p: gitdiff.read(ws.repo, diff.new, p),
        options,
    )
    if everything:
        if current == WORKTREE:
            pages = set(ws.wiki.sidecar_pages())
        else:
            pages = {_page_of(side) for side in cites.CiteIndex(ws.repo, claims_dir).sidecars(current)}
    else:
        touched: set[str] = set()
        sources = {c.old_path for c in diff.changes if c.old_path and not c.old_path.startswith(wiki_prefix)}
        pages = {_page_of(s) for s in cites.CiteIndex(ws.repo, claims_dir).sidecars_citing(diff.old, sources)}
        for c in diff.changes:
            for p in (c.old_path, c.new_path):
                if p and p.startswith(claims_dir + "/") and p.endswith(".json"):
                    pages.add(_page_of(p[len(claims_dir) + 1 :]))
                    touched.add(_page_of(p[len(claims_dir) + 1 :]))
                elif p and p.startswith(wiki_prefix) and p.endswith(".md"):
                    touched.add(p[len(wiki_prefix) :])
        pages |= touched
    result = Evaluation(diff, everything=everything, render=pages if everything else touched)
    for page in sorted(pages):
        blob, cur = _load_current(ws, current, page)
        if cur is None:
            continue
        result.sidecars[page] = cur
        prev: Sidecar | None = None
        if not everything:
            old_id = gitdiff.blob_id_at(ws.repo, diff.old, f"{claims_dir}/{page[: -len('.md')]}.json")
            if old_id is not None and old_id == blob:
                prev = cur
            elif old_id is not None:
                got = _blob(ws, diff.old, page)
                prev = _parse_blob(ws, diff.old, page, got[1]) if got is not None else None
        for claim in cur.claims:
            before = prev.claim(claim.id) if prev is not None else None
            outcome = engine.judge(page, before, claim)
            if outcome.affected:
                result.outcomes.append(outcome)
    ws.wiki.require_unique_ids(result.sidecars)  # before anything is written or reported
    return result


def _rewrites(evaluation: Evaluation) -> dict[str, dict[str, ClaimOutcome]]:
    by_page: dict[str, dict[str, ClaimOutcome]] = {}
    for o in evaluation.outcomes:
        if o.changed:
            by_page.setdefault(o.page, {})[o.before.id] = o
    return by_page


def candidates(ws: Workspace, evaluation: Evaluation) -> list[str]:
    """The repo paths `apply` may write (each page and its sidecar), before it writes them."""
    pages = set(_rewrites(evaluation)) | evaluation.render
    out = []
    for page in sorted(pages):
        out.append(ws.wiki.repo_path(page))
        out.append(ws.wiki.sidecar_path(page).relative_to(ws.wiki.root).as_posix())
    return out


def apply(ws: Workspace, evaluation: Evaluation) -> list[str]:
    """Write the re-anchored and marked claims (caller holds the wiki lock); the paths written."""
    by_page = _rewrites(evaluation)
    written: list[str] = []
    for page, changed in sorted(by_page.items()):
        sidecar = evaluation.sidecars[page]
        claims = tuple(changed[c.id].after if c.id in changed else c for c in sidecar.claims)
        written.extend(editing.save_page(ws.wiki, sidecar.replace(claims=claims)))
    for page in sorted(evaluation.render - set(by_page)):
        # A page whose generated parts are out of step with its sidecar (after a merge, or a
        # hand edit of the citations block): re-render it. Its prose is never touched.
        current = evaluation.sidecars.get(page)
        if current is not None:
            before, after = editing.render_page(ws.wiki, current)
            if before is not None and before != after:
                written.extend(editing.save_page(ws.wiki, current))
    return written


def _ref(ws: Workspace, rev: str | None) -> str | None:
    if not rev or rev == NULL_REF:
        return None
    return ws.repo.commit_id(rev)


def staged_or_range(ws: Workspace, from_ref: str | None, to_ref: str | None) -> tuple[gitdiff.Diff, str]:
    """The diff to follow and where the sidecars are read: the staged diff, or a ref range."""
    threshold = ws.config.rename_threshold
    if from_ref or to_ref:
        new = _ref(ws, to_ref or "HEAD")
        assert new is not None
        old = _ref(ws, from_ref)
        base = gitdiff.merge_base(ws.repo, old, new) if old is not None else None
        return gitdiff.between(ws.repo, base, new, rename_threshold=threshold), new
    return gitdiff.staged(ws.repo, rename_threshold=threshold), gitdiff.INDEX


def line(ws: Workspace, o: ClaimOutcome) -> str:
    return f"{ws.wiki.repo_path(o.page)}: {o.before.id}: {o.before.statement} ({o.describe()})"


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    from_ref = args.from_ref or os.environ.get("PRE_COMMIT_FROM_REF") or None
    to_ref = args.to_ref or os.environ.get("PRE_COMMIT_TO_REF") or None
    diff, new_side = staged_or_range(ws, from_ref, to_ref)
    everything = not diff.changes and new_side == gitdiff.INDEX
    if args.check:
        current = new_side if new_side != gitdiff.INDEX else WORKTREE
        evaluation = evaluate(ws, diff, current=current, everything=everything)
        for o in evaluation.stale():
            print(line(ws, o))
        return 1 if evaluation.stale() else 0
    with ws.wiki.lock():
        evaluation = evaluate(ws, diff, everything=everything)
        staged_diff = new_side == gitdiff.INDEX
        flagged = [o for o in evaluation.outcomes if o.newly_flagged]
        stop = bool(flagged) and ws.config.hook_on_stale == "stop"
        if stop and staged_diff and staging.partial_commit(ws.repo):
            # `git commit <paths>` throws both of its indexes away when the hook fails, and a
            # second run would find the marks as unstaged edits: stop once without writing, and
            # let the same commit, run again, write and stage the very same marks.
            key = _stop_key(diff, flagged)
            if staging.first_stop(ws.repo.git_dir, ws.cache_path(STOP_RECORD), key):
                for o in evaluation.stale():
                    print(line(ws, o))
                print(
                    f"openwiki-git: {len(flagged)} claim(s) newly stale (nothing written: `git commit <paths>`);"
                    " review them, then run the same `git commit` again: it stages the marks and passes",
                    file=sys.stderr,
                )
                return 1
            stop = False
        clean = staging.clean(ws.repo, candidates(ws, evaluation)) if staged_diff else set()
        written = apply(ws, evaluation)
        to_stage = [p for p in written if p in clean]
        staging.stage(ws.repo, to_stage)
    for o in evaluation.stale():
        print(line(ws, o))
    for o in evaluation.outcomes:  # re-anchored over a cosmetic edit: say why it is still fresh
        for e in o.evidence:
            if e.status == "fresh" and e.reason.startswith("cosmetic:"):
                print(f"openwiki-git: {ws.wiki.repo_path(o.page)}: {o.before.id}: kept fresh: {e.describe()}", file=sys.stderr)
    return _verdict(ws, evaluation, written, to_stage, staged_diff, stop)


STOP_RECORD = "hook-stop-v1.txt"


def _stop_key(diff: gitdiff.Diff, flagged: list[ClaimOutcome]) -> str:
    """What a stop was for: the base and every newly flagged claim's mark (its time left out)."""
    import hashlib

    parts = [diff.old or ""]
    for o in flagged:
        mark = o.after.mark
        assert mark is not None
        parts.append(repr((o.page, o.before.id, mark.status, mark.causes)))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _verdict(
    ws: Workspace, evaluation: Evaluation, written: list[str], staged: list[str], staged_diff: bool, stop: bool
) -> int:
    """Say what was written and staged, and whether the commit stops (see the module docstring)."""
    def say(text: str) -> None:
        print(f"openwiki-git: {text}", file=sys.stderr)

    if not staged_diff:
        for path in written:
            say(f"updated {path}")
        if written:
            say("review and stage these files (`git add`), then commit again")
        return 1 if written else 0
    flagged = [o for o in evaluation.outcomes if o.newly_flagged]
    unstaged = [p for p in written if p not in staged]
    for path in staged:
        say(f"updated and staged {path}")
    for path in unstaged:
        say(f"updated {path}, not staged: it has unstaged edits")
    if unstaged:
        say("stage these files (`git add`) or stash your edits to them, then commit again")
        return 1
    if flagged and stop:
        n = len(flagged)
        say(
            f"marked {n} claim{'s' if n != 1 else ''} stale; the marks are staged with this commit. Review the"
            " statement (`openwiki-git claim show ID`), then run the same `git commit` again: it passes"
        )
        return 1
    if written and ws.config.hook_on_moved == "stop":
        say("re-anchored claims whose text moved; the files are staged (hook.on_moved: stop): commit again")
        return 1
    return 0
