"""`openwiki-git hook`: the pre-commit entry point. Marks the claims that the staged change made
stale, and re-anchors the ones whose text merely moved.

It reads the staged diff (HEAD -> the index git is committing; `GIT_INDEX_FILE` is honoured, so
`git commit <paths>` works), never the working tree. With `PRE_COMMIT_FROM_REF` and
`PRE_COMMIT_TO_REF` set (pre-push, `pre-commit run --from-ref X --to-ref Y`), or with
`--from-ref`/`--to-ref`, it reads the diff from their merge base to the second ref instead. With
nothing staged (`pre-commit run --all-files` on a clean tree) every claim is checked against the
index; `--check` then, when no tracked file has unstaged edits, answers as `openwiki-git check`
does (the same claims, through check's cache), with check's exit code.

Prints one line per stale claim, `page: claim-id: statement (path#Lx-Ly changed by @@ ... @@)`,
while they fit: the message is at most 20 lines, none wider than the terminal (or 200 characters).
Past that it counts the claims per cause ("annotations changed in 40 definitions: 133 claims"),
names the first few and says how to see every one: `-v` prints every claim's line, and
`openwiki-git check` reports the whole wiki. On the staged diff it stages the `.openwiki/` files
it rewrote (those without unstaged edits), so pre-commit does not count them as modified. Exit 0 when it only re-anchored claims
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
from typing import TextIO

from openwiki_git.cli.args import open_workspace
from openwiki_git.formats import pagenames
from openwiki_git.hook import commit
from openwiki_git.hook.engine import Evaluation, policy_problems, staged_or_range
from openwiki_git.pages import citations
from openwiki_git.services import check_chain
from openwiki_git.store.workspace import Workspace


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help="pre-commit hook: mark claims the staged change made stale", description=__doc__)
    p.add_argument("--check", action="store_true", help="modify nothing; exit 1 when any touched claim is stale")
    p.add_argument("--from-ref", metavar="REV", help="diff from the merge base of REV and --to-ref (default: PRE_COMMIT_FROM_REF)")
    p.add_argument("--to-ref", metavar="REV", help="... to REV (default: PRE_COMMIT_TO_REF)")
    p.set_defaults(run=run)


LIMIT = 20  # lines of the hook's message at most, whatever the number of marks
MAX_WIDTH = 200  # characters of a line at most: the terminal's width when it is known and narrower
FILES_LISTED = 3  # files the verdict names one by one; past that it counts them


def terminal_width() -> int:
    """The width the message must fit: $COLUMNS, else the terminal on stdout or stderr, else
    (under pre-commit, which captures both and shows them at the terminal it runs in) the
    controlling terminal's; never more than MAX_WIDTH."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    for fd in (1, 2) if columns <= 0 else ():
        try:
            columns = os.get_terminal_size(fd).columns
            break
        except OSError:
            continue
    if columns <= 0 and os.environ.get("PRE_COMMIT") == "1":
        try:
            tty = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
            try:
                columns = os.get_terminal_size(tty).columns
            finally:
                os.close(tty)
        except OSError:
            pass
    return min(columns, MAX_WIDTH) if columns >= 40 else MAX_WIDTH


def _wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` characters, the continuations indented."""
    import textwrap

    return textwrap.wrap(text, width=width, subsequent_indent="    ", break_on_hyphens=False, break_long_words=True) or [""]


def fit(text: str, width: int | None) -> str:
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def _detail(where: str, reason: str, hunk: str | None, brief: bool) -> str:
    if hunk and brief and hunk.count("@@") > 2:  # several hunks: the first, and how many more
        parts = hunk.split(", @@")
        hunk = f"{parts[0]} and {len(parts) - 1} more hunk{'s' if len(parts) > 2 else ''}"
    return f"{where} {reason}".strip() + (f" by {hunk}" if hunk else "")


def claim_line(m: commit.Marked, width: int | None, *, short: bool = False) -> str:
    """`page: claim-id: statement (where reason by hunk)`; fitted to `width` by shortening the
    hunks, then the statement, then the line (None: as it is)."""
    ident = citations.label(m.claim_id) if short else m.claim_id
    head = f"{m.page}: {ident}: "
    whole = f"{head}{m.statement} ({'; '.join(_detail(*d, False) for d in m.details)})"
    if width is None or len(whole) <= width:
        return whole
    detail = "; ".join(_detail(*d, True) for d in m.details)
    room = width - len(head) - len(detail) - 3
    if room >= 24:
        statement = m.statement if len(m.statement) <= room else m.statement[: room - 1].rstrip() + "…"
        return f"{head}{statement} ({detail})"
    return fit(f"{head}{m.statement} ({detail})", width)


def marks_message(marked: list[commit.Marked], *, width: int, room: int, every: bool) -> list[str]:
    """One line per claim while they fit in `room` lines (all of them with `every`, unfitted);
    else the claims counted per cause, worst first, the first few named, and the commands that
    show the rest."""
    if every:
        return [claim_line(m, None) for m in marked]
    wrapped = [part for m in marked for part in _wrap(claim_line(m, None), width)]
    if len(wrapped) <= room:
        return wrapped
    if len(marked) <= room:
        return [claim_line(m, width) for m in marked]
    d = commit.digest(marked)
    what = "stale or unresolved" if any(m.status == "unresolved" for m in marked) else "stale"
    out = [f"openwiki-git: {d.total} claims {what} on {d.pages} page{'s' if d.pages != 1 else ''}, by cause:"]
    causes_shown = max(1, min(len(d.groups), room - len(d.first) - 3))
    out += [fit(f"  {g.describe()}", width) for g in d.groups[:causes_shown]]
    if len(d.groups) > causes_shown:
        rest = d.groups[causes_shown:]
        out.append(fit(f"  and {len(rest)} more causes: {sum(len(g.members) for g in rest)} claims", width))
    out.append("read first:")
    out += ["  " + claim_line(m, width - 2, short=True) for m in d.first[: max(0, room - len(out) - 1)]]
    out.append(fit(f"every one: `openwiki-git hook -v` ({d.total} lines), or `openwiki-git check` for the whole wiki", width))
    return out


def _say_all(lines: list[str], stream: TextIO | None = None) -> None:
    for text in lines:
        print(text, file=stream)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    options = commit.HookOptions(
        from_ref=args.from_ref or os.environ.get("PRE_COMMIT_FROM_REF") or None,
        to_ref=args.to_ref or os.environ.get("PRE_COMMIT_TO_REF") or None,
    )
    every, width = bool(getattr(args, "verbose", False)), terminal_width()
    if args.check:
        followed = staged_or_range(ws, options.from_ref, options.to_ref)
        if commit.judged_as_check(ws, followed):
            return _check_like_check(args, every, width)
        evaluation = commit.check(ws, options, followed)
        marked = [commit.of_outcome(ws.wiki.repo_path(o.page), o) for o in evaluation.stale()]
        _say_all(marks_message(marked, width=width, room=LIMIT, every=every))
        forbidden = _policy_problems(ws, evaluation)
        return 1 if evaluation.stale() or forbidden else 0
    done = commit.run(ws, options)
    if _policy_problems(ws, done.evaluation):
        _say_all(_verdict(ws, done, width, every)[0], sys.stderr)
        return 1
    marked = [commit.of_outcome(ws.wiki.repo_path(o.page), o) for o in done.evaluation.stale()]
    if done.held:
        held = [fit(
            f"openwiki-git: {len(done.flagged())} claim(s) newly stale (nothing written: `git commit <paths>`);"
            " review them, then run the same `git commit` again: it stages the marks and passes", width,
        )]
        _say_all(marks_message(marked, width=width, room=LIMIT - len(held), every=every))
        _say_all(held, sys.stderr)
        return 1
    kept = [
        f"openwiki-git: {ws.wiki.repo_path(o.page)}: {o.before.id}: kept fresh: {e.describe()}"
        for o in done.evaluation.outcomes for e in o.evidence  # re-anchored over a cosmetic edit: say why it is still fresh
        if e.status == "fresh" and e.reason.startswith("cosmetic:")
    ]
    if len(kept) > FILES_LISTED and not every:
        kept = [f"openwiki-git: kept {len(kept)} claims fresh over cosmetic edits (`openwiki-git hook -v` names them)"]
    kept += [  # claims/sentence.py: the person deleted the sentence with its marker
        f"openwiki-git: {ws.wiki.repo_path(page)}: {claim.id}: retracted, its sentence was deleted with its marker: {claim.statement}"
        for page, claim in done.evaluation.retracted
    ]
    verdict, code = _verdict(ws, done, width, every)
    _say_all(marks_message(marked, width=width, room=LIMIT - len(verdict) - len(kept), every=every))
    _say_all([fit(k, None if every else width) for k in kept] + verdict, sys.stderr)
    return code


def _policy_problems(ws: Workspace, evaluation: Evaluation) -> bool:
    """Say which claims carry a verifier the verify policy forbids; whether there are any."""
    found = policy_problems(ws, evaluation)
    for p in found:
        print(f"openwiki-git: {ws.wiki.repo_path(p['page'])}: {p['claim_id']}: verified by {p['verified_by']}, "
              f"which the verify policy forbids: {p['rule']}", file=sys.stderr)
    if found:
        print("openwiki-git: have a permitted verifier confirm them (`openwiki-git claim confirm ID --by human:NAME`)", file=sys.stderr)
    return bool(found)


def _check_like_check(args: argparse.Namespace, every: bool, width: int) -> int:
    """`hook --check` with nothing to follow: every claim judged is `check`'s question, so it is
    `check`'s answer (the working tree, through check's cache: a warm answer costs what a warm
    `check` does, whatever the wiki's size), with its exit code. One line per claim that is not
    fresh, as on the staged diff (counted per cause past the message's bound); check's other
    findings (missing markers, due claims, broken references, replaced documents) are counted on stderr."""
    checked = check_chain.run(check_chain.CheckOptions(
        directory=getattr(args, "directory", None), wiki_dir=getattr(args, "wiki_dir", None), every=False,
    ))
    marked = [commit.of_record(c) for c in checked.report.claims if isinstance(c, dict) and c["status"] != "fresh"]
    _say_all(marks_message(marked, width=width, room=LIMIT - 1, every=every))
    if not checked.ok and not marked:
        print("openwiki-git: `openwiki-git check` reports problems other than stale claims: run it to see them", file=sys.stderr)
    return 0 if checked.ok else 1


def _verdict(ws: Workspace, done: commit.HookRun, width: int, every: bool) -> tuple[list[str], int]:
    """What was written and staged, and whether the commit stops (see the module docstring): the
    lines to say, wrapped to `width`, and the exit code."""
    out: list[str] = []

    def say(text: str) -> None:
        out.extend(_wrap(f"openwiki-git: {text}", width))

    def files(verb: str, paths: list[str]) -> None:
        if every or len(paths) <= FILES_LISTED:
            for path in paths:
                say(f"{verb} {path}")
        else:
            sidecars = sum(1 for p in paths if pagenames.inside_a_claims_folder(p) is not None)
            say(f"{verb} {len(paths)} files ({len(paths) - sidecars} pages, {sidecars} sidecars)")

    written, staged = done.written, done.staged
    if not done.staged_diff:
        files("updated", written)
        if written:
            say("review and stage these files (`git add`), then commit again")
        return out, 1 if written else 0
    flagged = done.flagged()
    unstaged = [p for p in written if p not in staged]
    files("updated and staged", staged)
    if unstaged:
        for path in unstaged:
            say(f"updated {path}, not staged: it has unstaged edits")
        say("stage these files (`git add`) or stash your edits to them, then commit again")
        return out, 1
    if flagged and done.stop:
        n = len(flagged)
        say(
            f"marked {n} claim{'s' if n != 1 else ''} stale; the marks are staged with this commit. Review"
            " them with `openwiki-git review` (or `openwiki-git claim show ID`), then run the same `git commit`"
            " again: it passes"
        )
        return out, 1
    if done.evaluation.retracted:  # said once: a passing hook's output is not shown by pre-commit
        n = len(done.evaluation.retracted)
        say(f"retracted {n} claim{'s' if n != 1 else ''} whose sentence was deleted with its marker (the sidecar is staged);"
            " run the same `git commit` again: it passes")
        return out, 1
    if written and ws.config.hook_on_moved == "stop":
        say(f"re-anchored claims whose text moved; the files are staged (hook.on_moved: {ws.config.hook_on_moved}): commit again")
        return out, 1
    return out, 0
