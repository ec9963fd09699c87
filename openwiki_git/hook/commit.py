"""The commit loop `openwiki-git hook` runs: the diff to follow evaluated under the wiki's lock,
the outcomes written, the hook's own rewrites staged, and whether the commit stops.

`check` only evaluates (`hook --check`); `run` writes. The command renders what they return.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from openwiki_git.claims.outcomes import ClaimOutcome
from openwiki_git.git import diff as gitdiff
from openwiki_git.hook import staging
from openwiki_git.hook.engine import WORKTREE, Evaluation, apply, candidates, evaluate, staged_or_range
from openwiki_git.store.workspace import Workspace

STOP_RECORD = "hook-stop-v1.txt"


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
