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

from openwiki_git.claims.outcomes import ClaimOutcome
from openwiki_git.cli.args import open_workspace
from openwiki_git.hook import commit
from openwiki_git.store.workspace import Workspace


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help="pre-commit hook: mark claims the staged change made stale", description=__doc__)
    p.add_argument("--check", action="store_true", help="modify nothing; exit 1 when any touched claim is stale")
    p.add_argument("--from-ref", metavar="REV", help="diff from the merge base of REV and --to-ref (default: PRE_COMMIT_FROM_REF)")
    p.add_argument("--to-ref", metavar="REV", help="... to REV (default: PRE_COMMIT_TO_REF)")
    p.set_defaults(run=run)


def line(ws: Workspace, o: ClaimOutcome) -> str:
    return f"{ws.wiki.repo_path(o.page)}: {o.before.id}: {o.before.statement} ({o.describe()})"


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    options = commit.HookOptions(
        from_ref=args.from_ref or os.environ.get("PRE_COMMIT_FROM_REF") or None,
        to_ref=args.to_ref or os.environ.get("PRE_COMMIT_TO_REF") or None,
    )
    if args.check:
        evaluation = commit.check(ws, options)
        for o in evaluation.stale():
            print(line(ws, o))
        return 1 if evaluation.stale() else 0
    done = commit.run(ws, options)
    for o in done.evaluation.stale():
        print(line(ws, o))
    if done.held:
        print(
            f"openwiki-git: {len(done.flagged())} claim(s) newly stale (nothing written: `git commit <paths>`);"
            " review them, then run the same `git commit` again: it stages the marks and passes",
            file=sys.stderr,
        )
        return 1
    for o in done.evaluation.outcomes:  # re-anchored over a cosmetic edit: say why it is still fresh
        for e in o.evidence:
            if e.status == "fresh" and e.reason.startswith("cosmetic:"):
                print(f"openwiki-git: {ws.wiki.repo_path(o.page)}: {o.before.id}: kept fresh: {e.describe()}", file=sys.stderr)
    return _verdict(ws, done)


def _verdict(ws: Workspace, done: commit.HookRun) -> int:
    """Say what was written and staged, and whether the commit stops (see the module docstring)."""
    def say(text: str) -> None:
        print(f"openwiki-git: {text}", file=sys.stderr)

    written, staged = done.written, done.staged
    if not done.staged_diff:
        for path in written:
            say(f"updated {path}")
        if written:
            say("review and stage these files (`git add`), then commit again")
        return 1 if written else 0
    flagged = done.flagged()
    unstaged = [p for p in written if p not in staged]
    for path in staged:
        say(f"updated and staged {path}")
    for path in unstaged:
        say(f"updated {path}, not staged: it has unstaged edits")
    if unstaged:
        say("stage these files (`git add`) or stash your edits to them, then commit again")
        return 1
    if flagged and done.stop:
        n = len(flagged)
        say(
            f"marked {n} claim{'s' if n != 1 else ''} stale; the marks are staged with this commit. Review the"
            " statement (`openwiki-git claim show ID`), then run the same `git commit` again: it passes"
        )
        return 1
    if written and ws.config.hook_on_moved == "stop":
        say(f"re-anchored claims whose text moved; the files are staged (hook.on_moved: {ws.config.hook_on_moved}): commit again")
        return 1
    return 0
