"""`openwiki-git hook`: the pre-commit entry point. Marks the claims that the staged change made
stale, and re-anchors the ones whose text merely moved.

It reads the staged diff (HEAD -> the index git is committing; `GIT_INDEX_FILE` is honoured, so
`git commit <paths>` works), never the working tree. With `PRE_COMMIT_FROM_REF` and
`PRE_COMMIT_TO_REF` set (pre-push, `pre-commit run --from-ref X --to-ref Y`), or with
`--from-ref`/`--to-ref`, it reads the diff from their merge base to the second ref instead. With
nothing staged (`pre-commit run --all-files` on a clean tree) every claim is checked against the
index; `--check` then, when no tracked file has unstaged edits, answers as `openwiki-git check`
does (the same claims, through check's cache), with check's exit code.

Prints one line per stale claim, `page: claim-id: statement (path#Lx-Ly changed by @@ ... @@)`.
On the staged diff it stages the `.openwiki/` files it rewrote (those without unstaged edits),
so pre-commit does not count them as modified. Exit 0 when it only re-anchored claims
(`hook.on_moved: stage`, the default); exit 1 once when it newly marked a claim stale or
unresolved (`hook.on_stale: stop`, the default; the marks are staged, so the same `git commit`
passes next time), or when a file it rewrote has unstaged edits (then it is not staged). Run
again on its own staged output it writes nothing and exits 0. On a ref range (pre-push) nothing
is staged: exit 1 when it modified files.
`--check` modifies nothing and exits 1 when any claim the change touches is stale.

Either way, a claim of a page the change touches whose recorded `verifiedBy` the config's
`verify_policy` forbids (set by hand on a people-only page) stops the commit (exit 1), the rule
named, until a permitted verifier confirms it.
"""

from __future__ import annotations

import argparse
import os
import sys

from openwiki_git.claims.outcomes import ClaimOutcome
from openwiki_git.cli.args import open_workspace
from openwiki_git.hook import commit
from openwiki_git.hook.engine import Evaluation, policy_problems, staged_or_range
from openwiki_git.services import check
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
        followed = staged_or_range(ws, options.from_ref, options.to_ref)
        if commit.judged_as_check(ws, followed):
            return _check_like_check(args)
        evaluation = commit.check(ws, options, followed)
        for o in evaluation.stale():
            print(line(ws, o))
        forbidden = _policy_problems(ws, evaluation)
        return 1 if evaluation.stale() or forbidden else 0
    done = commit.run(ws, options)
    if _policy_problems(ws, done.evaluation):
        _verdict(ws, done)
        return 1
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


def _policy_problems(ws: Workspace, evaluation: Evaluation) -> bool:
    """Say which claims carry a verifier the verify policy forbids; whether there are any."""
    found = policy_problems(ws, evaluation)
    for p in found:
        print(f"openwiki-git: {ws.wiki.repo_path(p['page'])}: {p['claim_id']}: verified by {p['verified_by']}, "
              f"which the verify policy forbids: {p['rule']}", file=sys.stderr)
    if found:
        print("openwiki-git: have a permitted verifier confirm them (`openwiki-git claim confirm ID --by human:NAME`)", file=sys.stderr)
    return bool(found)


def _check_like_check(args: argparse.Namespace) -> int:
    """`hook --check` with nothing to follow: every claim judged is `check`'s question, so it is
    `check`'s answer (the working tree, through check's cache: a warm answer costs what a warm
    `check` does, whatever the wiki's size), with its exit code. One line per claim that is not
    fresh, as on the staged diff; check's other findings (missing markers, due claims, broken
    references, replaced documents) are counted on stderr."""
    checked = check.run(check.CheckOptions(
        directory=getattr(args, "directory", None), wiki_dir=getattr(args, "wiki_dir", None), every=False,
    ))
    stream = checked.stream
    claims = stream.claims if stream is not None else (checked.data or {}).get("claims", [])
    shown = 0
    for c in claims:
        if isinstance(c, dict) and c["status"] != "fresh":
            parts = [
                f"{(e['current_resource'] or e['resource']).removeprefix('repo://')} {e['reason']}"
                + (f" by {e['hunk']}" if e.get("hunk") else "")
                for e in c["evidence"] if e["status"] != "fresh"
            ]
            print(f"{c['page_path']}: {c['id']}: {c['statement']} ({'; '.join(parts)})")
            shown += 1
    if not checked.ok and not shown:
        print("openwiki-git: `openwiki-git check` reports problems other than stale claims: run it to see them", file=sys.stderr)
    return 0 if checked.ok else 1


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
            f"marked {n} claim{'s' if n != 1 else ''} stale; the marks are staged with this commit. Review"
            " them with `openwiki-git review` (or `openwiki-git claim show ID`), then run the same `git commit`"
            " again: it passes"
        )
        return 1
    if written and ws.config.hook_on_moved == "stop":
        say(f"re-anchored claims whose text moved; the files are staged (hook.on_moved: {ws.config.hook_on_moved}): commit again")
        return 1
    return 0
