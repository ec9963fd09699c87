"""The hook's engine: one diff evaluated against the wiki's claims, and its outcomes written.

`staged_or_range` finds the diff to follow (the staged diff, or a ref range), `evaluate` judges
the claims it touches (`claims.staleness` decides each one), `candidates` names the files
`apply` may write, `apply` writes the re-anchored and marked claims and re-renders the pages
whose generated parts are out of step. Used by the commit loop (`hook/commit.py`) and by the CI
report (`services/check_chain.ci_report`), which evaluates the commits of a pull request.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from openwiki_git.caches import cites
from openwiki_git.claims.outcomes import ClaimOutcome
from openwiki_git.claims.staleness import Engine, Options
from openwiki_git.errors import SchemaError, StoreError
from openwiki_git.formats import pagenames
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.git import diff as gitdiff
from openwiki_git.git.repo import blob_id
from openwiki_git.model import Claim, FileText, Sidecar
from openwiki_git.store import editing
from openwiki_git.store.workspace import Workspace, now_iso

NULL_REF = "0" * 40
WORKTREE = "worktree"


@dataclass
class Evaluation:
    """What one diff did to the wiki's claims."""

    diff: gitdiff.Diff
    outcomes: list[ClaimOutcome] = field(default_factory=list)  # affected claims, page then claim order
    sidecars: dict[str, Sidecar] = field(default_factory=dict)  # the current sidecars that were read
    everything: bool = False  # no diff: every claim was checked against the new side
    render: set[str] = field(default_factory=set)  # pages whose page or sidecar the diff changes
    retracted: list[tuple[str, Claim]] = field(default_factory=list)  # (page, claim): its sentence deleted with its marker

    def stale(self) -> list[ClaimOutcome]:
        return [o for o in self.outcomes if o.status != "fresh"]


def page_of(sidecar_rel: str) -> str:
    return pagenames.page_of_sidecar(sidecar_rel)


def _parse_blob(ws: Workspace, commit: str | None, page: str, data: bytes) -> Sidecar | None:
    path = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
    try:
        text = data.decode("utf-8")
        return sidecar_codec.loads(text, filename=f"{path}@{(commit or '')[:12]}", page=page, wiki_dir=ws.config.wiki_dir)
    except (UnicodeDecodeError, SchemaError):
        return None


def _blob(ws: Workspace, commit: str | None, page: str) -> tuple[str, bytes] | None:
    path = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
    return gitdiff.blob_at(ws.repo, commit, path)


def load_current(ws: Workspace, current: str, page: str) -> tuple[str | None, Sidecar | None]:
    """(blob id, sidecar) of a page's sidecar as it is now: on disk, or in commit `current`."""
    if current != WORKTREE:
        got = _blob(ws, current, page)
        if got is None:
            return None, None
        sidecar = _parse_blob(ws, current, page, got[1])
        if sidecar is None:  # a broken sidecar in the commit under review: say so, as `check` does
            path = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
            try:
                text = got[1].decode("utf-8")
            except UnicodeDecodeError as e:
                raise StoreError(f"{path}: cannot read: {e}", "save the sidecar as UTF-8") from None
            sidecar_codec.loads(text, filename=path, page=page, wiki_dir=ws.config.wiki_dir)
        return got[0], sidecar
    data, sidecar = ws.wiki.load_bytes(page)  # one read: the sidecar and the blob id of what was judged
    if data is None or sidecar is None:
        return None, None
    return blob_id(data), sidecar


def sidecars_at(ws: Workspace, commit: str, sides: set[str]) -> dict[str, Sidecar]:
    """The sidecars `sides` (relative to the claims folder) at `commit`, by page, each refused
    with the file's error when it does not parse, and refused together when two carry one claim
    id (the other pages are not compared)."""
    out = {}
    for side in sorted(sides):
        sidecar = load_current(ws, commit, page_of(side))[1]
        if sidecar is not None:
            out[page_of(side)] = sidecar
    ws.wiki.require_unique_ids(out)
    return out


def _engine(ws: Workspace, diff: gitdiff.Diff) -> Engine:
    """The staleness engine over `diff`, with the config's rules."""
    options = Options(
        now=now_iso(),
        adjacent_insert=ws.config.adjacent_insert,
        max_growth=ws.config.max_growth,
        commit=diff.old,
        wiki_dir=ws.config.wiki_dir,
        cosmetic_edits=ws.config.cosmetic_edits,
        cosmetic_annotations=ws.config.cosmetic_annotations,
        cosmetic_parameters_added=ws.config.cosmetic_parameters_added,
        growth_factor=ws.config.range_growth_factor,
        growth_lines=ws.config.range_growth_lines,
    )
    return Engine(
        diff.changes,
        lambda p: gitdiff.read(ws.repo, diff.old, p),
        lambda p: gitdiff.read(ws.repo, diff.new, p),
        options,
    )


def claims_dir(ws: Workspace) -> str:
    """The sidecars' folder, relative to the repository (the cited-path index's `claims_dir`)."""
    return pagenames.claims_folder(ws.config.wiki_dir)


def _every_page(ws: Workspace, current: str) -> set[str]:
    """Every page with a sidecar: on disk, or in commit `current`."""
    if current == WORKTREE:
        return set(ws.wiki.sidecar_pages())
    return {page_of(side) for side in cites.CiteIndex(ws.repo, claims_dir(ws)).sidecars(current)}


# The changes that can add a file to a set of files or take one out of it (a typechange: a file
# that became a link, or a link a file).
MEMBERSHIP = frozenset({"added", "deleted", "renamed", "copied", "typechange"})


def _touched_pages(ws: Workspace, diff: gitdiff.Diff, index: cites.CiteIndex) -> tuple[set[str], set[str]]:
    """(the pages to judge, the pages whose page or sidecar the diff changes): those citing a
    file the diff changes, found through the cached reverse index (the wiki's other sidecars
    are not read), and those whose sidecar or page it changes."""
    wiki_prefix = ws.config.wiki_dir + "/"
    touched: set[str] = set()
    # Both sides' paths: a set's glob also moves when a file is added to it. A set of files moves
    # only when a member comes or goes (edits inside one leave it as it was).
    sources = {p for c in diff.changes for p in (c.old_path, c.new_path) if p and not p.startswith(wiki_prefix)}
    membership = {p for c in diff.changes if c.status in MEMBERSHIP for p in (c.old_path, c.new_path) if p in sources}
    pages = {page_of(s) for s in index.sidecars_citing(diff.old, sources, membership)}
    for c in diff.changes:
        for p in (c.old_path, c.new_path):
            page = pagenames.page_of_path(ws.config.wiki_dir, p) if p else None  # a sidecar's
            if page is not None:
                touched.add(page)
            elif p and p.startswith(wiki_prefix) and p.endswith((".md", ".rst")):
                touched.add(p[len(wiki_prefix) :])
    return pages | touched, touched


def _previous(ws: Workspace, diff: gitdiff.Diff, page: str, blob: str | None, current: Sidecar) -> Sidecar | None:
    """The page's sidecar on the diff's old side (None when it had none, or it does not parse)."""
    old_id = gitdiff.blob_id_at(ws.repo, diff.old, pagenames.sidecar_path(ws.config.wiki_dir, page))
    if old_id is None:
        return None
    if old_id == blob:
        return current
    got = _blob(ws, diff.old, page)
    return _parse_blob(ws, diff.old, page, got[1]) if got is not None else None


def evaluate(
    ws: Workspace, diff: gitdiff.Diff, *, current: str = WORKTREE, everything: bool = False, index: cites.CiteIndex | None = None
) -> Evaluation:
    """Judge the claims `diff` touches: those citing a file it changes and those in sidecars it
    changes (_touched_pages). `current` says where the sidecars are read now: the working tree
    (what the hook writes) or a commit id. `everything`: judge every claim against the new side
    (no diff to follow). `index`: the cited-path index to ask (default: the cached one); a
    one-shot run (CI) passes one that scans the sidecars for the changed paths instead
    (services/check_chain.ci_report)."""
    engine = _engine(ws, diff)
    # One index for both questions: a one-shot scan notes the sidecars' ids as it reads them for
    # the paths, so that the duplicate-id guard reads no sidecar a second time.
    if index is None:
        index = cites.CiteIndex(ws.repo, claims_dir(ws))
    if everything:
        pages = render = _every_page(ws, current)
    else:
        pages, render = _touched_pages(ws, diff, index)
    result = Evaluation(diff, everything=everything, render=render)
    previous: dict[str, Sidecar | None] = {}
    for page in sorted(pages):
        blob, cur = load_current(ws, current, page)
        if cur is None:
            continue
        result.sidecars[page] = cur
        prev = previous[page] = None if everything else _previous(ws, diff, page, blob, cur)
        earlier = {c.id: c for c in prev.claims} if prev is not None else {}
        for claim in cur.claims:
            before = earlier.get(claim.id)
            if engine.unaffected(before, claim):
                continue  # judge would find it unaffected: nothing to report or write
            outcome = engine.claim_outcome(page, before, claim)
            if outcome.affected:
                result.outcomes.append(outcome)
    _require_unique_ids(ws, diff, current, result.sidecars, index)  # before anything is written or reported
    if not everything:
        _sentences(ws, diff, result, previous, engine.options)
    _broken_examples(ws, diff, result)
    return result


def _sentences(ws: Workspace, diff: gitdiff.Diff, result: Evaluation, previous: dict[str, Sidecar | None], options: Options) -> None:
    """The doc side (claims/sentence.py): on each page the change edits, a claim whose sentence
    it rewrote is restated and marked; one whose sentence it deleted with the marker, retracted."""
    from openwiki_git.claims import sentence

    at = {o.before.id: k for k, o in enumerate(result.outcomes)}
    for page in sorted(result.render):
        cur, prev = result.sidecars.get(page), previous.get(page)
        if cur is None or prev is None:
            continue
        path = ws.wiki.repo_path(page)
        old_text, new_text = gitdiff.read(ws.repo, diff.old, path).text, gitdiff.read(ws.repo, diff.new, path).text
        if old_text is None or new_text is None or old_text == new_text:
            continue
        before = {c.id: c for c in prev.claims}
        for claim in cur.claims:
            was = before.get(claim.id)
            ours = sentence.restated_here(claim, was, options.commit)
            got = sentence.fate(old_text, new_text, was, claim.replace(statement=was.statement) if ours and was else claim)
            if got is None or was is None:
                continue
            if got[0] == "deleted":
                result.retracted.append((page, claim))
                continue
            k = at.get(claim.id)
            base = result.outcomes[k].after if k is not None else claim
            mark = base.mark if base.mark is not None else claim.mark if ours else None  # the earlier run's, its `since` kept
            after = sentence.marked(
                base.replace(statement=was.statement, mark=mark), got[1], page_path=path, now=options.now, commit=options.commit
            )
            if k is not None:
                o = result.outcomes[k]
                result.outcomes[k] = dataclasses.replace(o, after=after, status="unresolved" if o.status == "unresolved" else "stale")
            else:
                result.outcomes.append(ClaimOutcome(page, claim, after, "stale", (), True))


def _broken_examples(ws: Workspace, diff: gitdiff.Diff, result: Evaluation) -> None:
    """A claim the change flags that guards a code example: the calls of the example the change
    broke (claims/examples.py's rule, the one `check` applies), read at the diff's new side."""
    todo = [k for k, o in enumerate(result.outcomes) if o.status != "fresh"]
    if not todo:
        return
    from openwiki_git.claims import examples as claim_examples
    def read(path: str) -> FileText:
        return gitdiff.read(ws.repo, diff.new, path)

    pages: dict[str, Any] = {}  # page -> (its text, its examples read once when it may carry an example's marker)
    for k in todo:
        o = result.outcomes[k]
        if o.page not in pages:
            text = read(ws.wiki.repo_path(o.page)).text
            pages[o.page] = (text, claim_examples.read_page(text) if text is not None and claim_examples.may_guard(text) else None)
        text, page = pages[o.page]
        broken = claim_examples.broken_calls(text, o.after, read, page) if page is not None else ()
        if broken:
            result.outcomes[k] = dataclasses.replace(o, broken=broken)


def policy_problems(ws: Workspace, evaluation: Evaluation) -> list[dict[str, Any]]:
    """The claims of the pages the change touches whose recorded verifier the config's
    verify_policy forbids (a `verifiedBy` set by hand on a people-only page): the hook stops
    for them and the CI report lists them (`policy_problems`, claims/policy.py)."""
    if not ws.config.verify_policy:
        return []
    from openwiki_git.claims import policy

    return [
        found
        for page in sorted(evaluation.sidecars)
        for found in policy.problems(ws.config.verify_policy, page, evaluation.sidecars[page].claims)
    ]


def _require_unique_ids(
    ws: Workspace, diff: gitdiff.Diff, current: str, loaded: dict[str, Sidecar], index: cites.CiteIndex
) -> None:
    """Refuse (exit 2) when a claim id of the pages judged is also on another page, as
    `validate` and `check` do, even when the commit touches only one of the two: the other
    pages carrying those ids are found through the cited-path index's id table (the wiki's
    other sidecars are not read), then read as they are now to confirm."""
    ids = {c.id for sc in loaded.values() for c in sc.claims}
    at = diff.old if current == WORKTREE else current
    carrying = index.sidecars_carrying(at, ids) if ids else {}
    others: dict[str, Sidecar] = {}
    for page in sorted({page_of(side) for sides in carrying.values() for side in sides} - set(loaded)):
        sidecar = load_current(ws, current, page)[1]
        if sidecar is not None:
            others[page] = sidecar
    ws.wiki.require_unique_ids({**loaded, **others})


def _rewrites(evaluation: Evaluation) -> dict[str, dict[str, ClaimOutcome]]:
    by_page: dict[str, dict[str, ClaimOutcome]] = {}
    for o in evaluation.outcomes:
        if o.changed:
            by_page.setdefault(o.page, {})[o.before.id] = o
    return by_page


def candidates(ws: Workspace, evaluation: Evaluation) -> list[str]:
    """The repo paths `apply` may write (each page and its sidecar), before it writes them."""
    pages = set(_rewrites(evaluation)) | evaluation.render | {page for page, _ in evaluation.retracted}
    out = []
    for page in sorted(pages):
        out.append(ws.wiki.repo_path(page))
        out.append(ws.wiki.sidecar_path(page).relative_to(ws.wiki.root).as_posix())
    return out


def apply(ws: Workspace, evaluation: Evaluation) -> list[str]:
    """Write the re-anchored and marked claims (caller holds the wiki lock); the paths written."""
    by_page = _rewrites(evaluation)
    gone: dict[str, list[Claim]] = {}
    for page, claim in evaluation.retracted:
        gone.setdefault(page, []).append(claim)
    written: list[str] = []
    for page in sorted(set(by_page) | set(gone)):
        changed = by_page.get(page, {})
        sidecar = evaluation.sidecars[page]
        sidecar = sidecar.replace(claims=tuple(changed[c.id].after if c.id in changed else c for c in sidecar.claims))
        for claim in gone.get(page, ()):  # its sentence deleted with its marker: retracted, as `claim retract` records it
            sidecar = sidecar.retracting(claim, by="tool:openwiki-git-hook", at=now_iso())
        written.extend(editing.save_page(ws.wiki, sidecar))
    for page in sorted(evaluation.render - set(by_page) - set(gone)):
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
    wiki = ws.config.wiki_dir + "/"  # its pages and sidecars are never cited: their changes' hunks are not read
    if from_ref or to_ref:
        new = _ref(ws, to_ref or "HEAD")
        assert new is not None
        old = _ref(ws, from_ref)
        base = gitdiff.merge_base(ws.repo, old, new) if old is not None else None
        return gitdiff.between(ws.repo, base, new, rename_threshold=threshold, hunkless=wiki), new
    return gitdiff.staged(ws.repo, rename_threshold=threshold, hunkless=wiki), gitdiff.INDEX
