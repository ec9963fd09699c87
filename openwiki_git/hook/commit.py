"""The commit loop `openwiki-git hook` runs: the diff to follow evaluated under the wiki's lock,
the outcomes written, the hook's own rewrites staged, and whether the commit stops; and the
hook's summary of many marks (`digest`: the claims grouped by cause, the few to read first).

`check` only evaluates (`hook --check`); `run` writes. The command renders what they return.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from openwiki_git.claims import causes
from openwiki_git.claims.outcomes import ClaimOutcome
from openwiki_git.git import diff as gitdiff
from openwiki_git.hook import staging
from openwiki_git.hook.engine import WORKTREE, Evaluation, apply, candidates, evaluate, staged_or_range
from openwiki_git.store.workspace import Workspace

STOP_RECORD = "hook-stop-v1.txt"
FIRST = 5  # claims the summary of many marks names, one per cause in turn (worst cause first)


@dataclass(frozen=True)
class HookOptions:
    """The diff to follow: a ref range (pre-push, `--from-ref`/`--to-ref`), else the staged diff."""

    from_ref: str | None = None
    to_ref: str | None = None


@dataclass
class HookRun:
    """What one run of the commit loop did."""

    evaluation: Evaluation
    staged_diff: bool  # the staged diff (a ref range stages nothing)
    written: list[str] = field(default_factory=list)  # files the hook rewrote
    staged: list[str] = field(default_factory=list)  # those of them it staged
    stop: bool = False  # it newly flagged claims and `hook.on_stale` is `stop`
    held: bool = False  # `git commit <paths>`: stopped once without writing anything

    def flagged(self) -> list[ClaimOutcome]:
        return [o for o in self.evaluation.outcomes if o.newly_flagged]


def follows_nothing(followed: tuple[gitdiff.Diff, str]) -> bool:
    """Nothing staged and no ref range (pre-commit's `run --all-files` on a clean tree, a manual
    stage): no diff to follow, so every claim is judged."""
    diff, new_side = followed
    return not diff.changes and new_side == gitdiff.INDEX


def judged_as_check(ws: Workspace, followed: tuple[gitdiff.Diff, str]) -> bool:
    """Whether judging every claim against the index is `check`'s judging of the working tree:
    nothing to follow, and no tracked file differs from the index (`hook --check` then takes
    check's answer, through its cache)."""
    return follows_nothing(followed) and ws.repo.worktree_matches_index()


def check(ws: Workspace, options: HookOptions, followed: tuple[gitdiff.Diff, str] | None = None) -> Evaluation:
    """`hook --check`: the claims the change touches, judged; nothing is written. `followed`:
    staged_or_range's answer, when the caller has it."""
    diff, new_side = followed or staged_or_range(ws, options.from_ref, options.to_ref)
    everything = follows_nothing((diff, new_side))
    current = new_side if new_side != gitdiff.INDEX else WORKTREE
    return evaluate(ws, diff, current=current, everything=everything)


def run(ws: Workspace, options: HookOptions) -> HookRun:
    """Evaluate the change, write its outcomes and stage the rewrites that may be staged."""
    diff, new_side = staged_or_range(ws, options.from_ref, options.to_ref)
    everything = not diff.changes and new_side == gitdiff.INDEX
    with ws.wiki.lock():
        evaluation = evaluate(ws, diff, everything=everything)
        out = HookRun(evaluation, staged_diff=new_side == gitdiff.INDEX)
        flagged = out.flagged()
        out.stop = bool(flagged) and ws.config.hook_on_stale == "stop"
        if out.stop and out.staged_diff and staging.partial_commit(ws.repo):
            # `git commit <paths>` throws both of its indexes away when the hook fails, and a
            # second run would find the marks as unstaged edits: stop once without writing, and
            # let the same commit, run again, write and stage the very same marks.
            if staging.first_stop(ws.repo.git_dir, ws.cache_path(STOP_RECORD), _stop_key(diff, flagged)):
                out.held = True
                return out
            out.stop = False
        clean = staging.clean(ws.repo, candidates(ws, evaluation)) if out.staged_diff else set()
        out.written = apply(ws, evaluation)
        out.staged = [p for p in out.written if p in clean]
        staging.stage(ws.repo, out.staged)
    return out


def _stop_key(diff: gitdiff.Diff, flagged: list[ClaimOutcome]) -> str:
    """What a stop was for: the base and every newly flagged claim's mark (its time left out)."""
    parts = [diff.old or ""]
    for o in flagged:
        mark = o.after.mark
        assert mark is not None
        parts.append(repr((o.page, o.before.id, mark.status, mark.causes)))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class Marked:
    """One claim that is not fresh, as the hook's message names it: read from the hook's outcome
    (`of_outcome`) or from check's record of it (`of_record`, `hook --check` answered as check)."""

    page: str  # the page's path in the repository
    claim_id: str
    statement: str
    status: str
    details: tuple[tuple[str, str, str | None], ...]  # per evidence item not fresh: (where now, reason, hunks)
    cause: causes.Cause


def of_outcome(page_path: str, o: ClaimOutcome) -> Marked:
    bad = [e for e in o.evidence if e.status != "fresh"]
    details = tuple(((e.current_resource or e.before.resource).removeprefix("repo://"), e.reason, e.hunk) for e in bad)
    if not details and o.before.mark is not None:
        details = (("", "marked earlier; the cited text is back to its verified version", None),)
    details += tuple(("", f"breaks `{call}`: {why}", None) for call, why in o.broken)  # a guarded example's calls
    page = o.new_page_causes()  # claims/sentence.py: its sentence changed
    details += tuple(("", c.reason, None) for c in page)
    items = [(e.status, e.reason, e.current_resource or e.before.resource) for e in o.evidence]
    items += [("stale", c.reason, c.resource) for c in page]
    return Marked(page_path, o.before.id, o.after.statement, o.status, details, causes.cause_of(items))


def of_record(c: dict[str, Any]) -> Marked:
    """check's record of a claim (claims/records.py's `claim_data`); its cause is its mark's (what
    the change that marked it was), else its evidence's reasons now."""
    bad = [e for e in c["evidence"] if e["status"] != "fresh"]
    details = tuple(((e["current_resource"] or e["resource"]).removeprefix("repo://"), e["reason"], e.get("hunk")) for e in bad)
    return Marked(c["page_path"], c["id"], c["statement"], c["status"], details, causes.of_record(c))


@dataclass(frozen=True)
class Digest:
    """Many marks at once, as a person at `git commit` reads them: the claims grouped by cause
    (this change's kind: "annotations changed in 40 definitions: 133 claims"), worst first, the
    pages they are on, and the few claims to read first (one per cause in turn)."""

    groups: list[causes.Group[Marked]]
    first: list[Marked]
    pages: int
    total: int


def digest(marked: list[Marked], first: int = FIRST) -> Digest:
    groups = causes.group(marked, lambda m: m.cause)
    queues = [_by_place(g.members) for g in groups]  # a cause's claims, one per cited place in turn
    picked: list[Marked] = []
    for depth in range(max((len(q) for q in queues), default=0)):
        picked += [q[depth] for q in queues if depth < len(q)][: first - len(picked)]
        if len(picked) >= first:
            break
    return Digest(groups, picked, len({m.page for m in marked}), len(marked))


def _by_place(members: list[Marked]) -> list[Marked]:
    """The claims of one cause, the first of each cited place first, then the second of each..."""
    places: dict[tuple[str, ...], list[Marked]] = {}
    for m in members:
        places.setdefault(m.cause.places, []).append(m)
    rounds = max((len(p) for p in places.values()), default=0)
    return [p[n] for n in range(rounds) for p in places.values() if n < len(p)]
