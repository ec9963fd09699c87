"""`openwiki-git review`: clear the marks one claim at a time, as `git add -p` stages hunks.

It walks the claims needing attention (stale, unresolved, due for re-verification) in page
order and shows each one: the page and line of its sentence, the statement, the cause, and per
cited item the diff of the cited part (a definition's head, a range) from its text as verified
to its text now, a few lines around each change, numbered as the file is; "now at" gives the
part's own lines. A suggested new range is shown where the cited text grew or moved, or the
suggested evidence where a cited definition went (another file's definition of the same body).
Claims that share a change (the same cited place, marked by the same change) come together:
the first shows the change once with every statement it touches, and `a` confirms them all
after reading it. A screen taller than the terminal goes through $PAGER (`less -FRX` when it
is unset, as git does; PAGER=cat shows it as it is). Answer with one key and Enter:

  c  confirm: the statement still holds (with the suggested range or evidence, when one is shown)
  a  confirm all: every claim of this change not yet decided (offered when several share it)
  e  restate: write the statement anew ($EDITOR, else $VISUAL, else here); it is confirmed
  r  re-point the evidence: type repo://path#Lx-Ly, or Lx-Ly for the same file
  x  retract the claim (its sentence leaves the page; when that leaves the next sentence
     unfinished, "Instead, ...", you may rewrite that one in the same decision)
  s  skip it for now
  u  undo the previous decision (the page and sidecar as they were; a group's confirm as one)
  q  quit (every decision so far is saved)
  ?  this help

Each decision is saved as it is made (under the wiki's lock, atomically): quitting or a killed
review loses nothing decided. The verifier recorded is `human:NAME <EMAIL>` from git's
user.name and user.email unless --by names it. Scripts use `claim confirm/edit/retract ID`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import OpenwikiError, UsageError
from openwiki_git.evidence.resource import REPO_PREFIX
from openwiki_git.pages import citations
from openwiki_git.services import review
from openwiki_git.store.workspace import SOURCES_HELP, Workspace

KEYS = "c,e,r,x,s,u,q,?"
GROUP_KEYS = "c,a,e,r,x,s,u,q,?"  # several claims share this change: `a` confirms them all
HELP = __doc__.split("Answer with one key and Enter:\n\n", 1)[1].split("\n\n", 1)[0]
_COLOURS = {"bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36", "dim": "2"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "review", help="clear marks interactively: confirm, restate, re-point or retract each claim",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pages", nargs="*", metavar="PAGE", help="only claims on these pages (e.g. guides/setup.md)")
    p.add_argument("--claim", action="append", metavar="ID", help="only this claim (repeatable; c-xxxxxxxx or its id)")
    p.add_argument("--by", metavar="ACTOR", help="the verifier recorded (default: human:NAME <EMAIL> from git config)")
    p.add_argument("--no-color", action="store_true", help="no colour (also when NO_COLOR is set or stdout is not a terminal)")
    p.add_argument("--source", default="worktree", help=SOURCES_HELP)
    p.set_defaults(run=run)


class Terminal:
    """The dialogue's two ends: lines shown (coloured when allowed; a screen taller than the
    terminal through the pager) and answers read."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour
        size = shutil.get_terminal_size((0, 0)) if sys.stdout.isatty() else os.terminal_size((0, 0))
        self.rows, self.columns = size.lines, size.columns

    def paint(self, text: str, style: str) -> str:
        return f"\x1b[{_COLOURS[style]}m{text}\x1b[0m" if self.colour else text

    def say(self, text: str = "") -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def page(self, lines: list[str]) -> None:
        """A screen: through the pager when it is taller than the terminal (the prompt must stay
        in sight), else as it is."""
        command = _pager()
        if command is None or not self.rows or len(lines) < self.rows:
            for line in lines:
                self.say(line)
            return
        import subprocess

        env = dict(os.environ)
        env.setdefault("LESS", "FRX")  # as git: quit if one screen, keep colours, leave the text on the screen
        env.setdefault("LV", "-c")
        try:
            done = subprocess.run(command, shell=True, input="\n".join(lines) + "\n", text=True, env=env, check=False)
        except OSError:
            done = None
        if done is None or done.returncode == 127:  # no such pager: shown as it is
            for line in lines:
                self.say(line)

    def ask(self, prompt: str) -> str | None:
        """One line typed (None at end of input)."""
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        return None if line == "" else line.rstrip("\r\n")


def _pager() -> str | None:
    """$PAGER, `less` when it is unset; None (no pager) when it is empty or `cat`."""
    command = os.environ.get("PAGER")
    if command is None:
        return "less"
    return None if command.strip() in ("", "cat") else command


def run(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty():
        raise UsageError(
            "review asks about each claim and needs a terminal on stdin",
            "run `openwiki-git review` in a terminal; scripts use `openwiki-git claim confirm|edit|retract ID`",
        )
    if args.by is not None and not args.by.strip():
        raise UsageError("--by is empty", "name who checked it, e.g. --by 'human:Ada <ada@example.org>'")
    ws = open_workspace(args)
    actor = args.by.strip() if args.by else review.default_actor(ws)
    entries = review.queue(ws, tuple(args.pages), tuple(args.claim or ()), args.source)
    colour = not args.no_color and not os.environ.get("NO_COLOR") and sys.stdout.isatty()
    term = Terminal(colour)
    if not entries:
        term.say("nothing to review: no claim is stale, unresolved or due")
        return 0
    decisions: list[review.Done] = []
    try:
        walk(ws, term, entries, actor, args.source, decisions)
    except KeyboardInterrupt:  # Ctrl-C quits like q: every decision so far is saved
        term.say()
    term.say(review.summary(decisions))
    return 0


def walk(ws: Workspace, term: Terminal, entries: list[review.Entry], actor: str, source: str, done: list[review.Done]) -> None:
    """The dialogue: one claim after another until the last or `q`; `done` holds the decisions
    made (kept by the caller, so an interrupted walk still reports them). A change several claims
    share is shown whole once, at its first claim; the others refer to it."""
    i = 0
    decided: set[str] = set()
    shown: set[tuple[str, ...]] = set()  # changes whose claims were offered together
    while i < len(entries):
        entry = entries[i]
        if entry.claim_id in decided:
            i += 1
            continue
        group = review.group_at(entries, i, decided)
        v = review.view(ws, entry, source)
        offered = group if len(group) > 1 and entry.change not in shown else None
        seen = entry.change is not None and entry.change in shown
        term.page(screen(ws, term, v, i + 1, len(entries), offered, seen, len(group)))
        if offered and entry.change is not None:
            shown.add(entry.change)
        step = decide(ws, term, v, actor, source, done, f"({i + 1}/{len(entries)}) {citations.label(v.entry.claim_id)}",
                      group if len(group) > 1 else [])
        if step is None:
            break
        if isinstance(step, str):  # "undo": back to the claim of the decision undone
            undone = done.pop()
            decided.difference_update(e.claim_id for e in undone.entries)
            i = entries.index(undone.entry)
            shown.intersection_update(e.change for e in entries[:i] if e.change is not None)  # from here on, shown anew
            continue
        done.append(step)
        decided.update(e.claim_id for e in step.entries)
        i += 1


def decide(  # noqa: PLR0911 (one return per key)
    ws: Workspace, term: Terminal, v: review.View, actor: str, source: str, done: list[review.Done], where: str,
    group: list[review.Entry] | None = None,
) -> review.Done | str | None:
    """Ask until one decision is made: the decision applied, "undo" (the previous one undone),
    or None to quit. `group`: the undecided claims that share this one's change (`a` confirms
    them all)."""
    keys = GROUP_KEYS if group else KEYS
    while True:
        key = term.ask(term.paint(f"{where} [{keys}]? ", "bold"))
        if key is None or key.strip() == "q":
            return None
        key = key.strip()
        if key == "?":
            term.say(HELP)
        elif key == "u":
            if not done:
                term.say("nothing to undo")
                continue
            review.undo(ws, done[-1])
            term.say(f"undone: {done[-1].action} of {', '.join(citations.label(e.claim_id) for e in done[-1].entries)}")
            return "undo"
        elif key == "s":
            return review.Done(v.entry, "skip", ())
        elif key == "a" and group:
            applied = _confirm_all(ws, term, group, actor, source)
            if applied is not None:
                return applied
        elif key in ("c", "e", "r", "x"):
            applied = _apply(ws, term, v, key, actor, source)
            if applied is not None:
                return applied
        else:
            term.say(f"unknown answer {key!r}: one of {keys}, then Enter (? explains them)")


def _confirm_all(ws: Workspace, term: Terminal, group: list[review.Entry], actor: str, source: str) -> review.Done | None:
    """Every claim of the change confirmed, as one decision; those refused stay, each said why."""
    done, refused = review.confirm_group(ws, group, by=actor, source=source)
    for entry, why in refused:
        term.say(term.paint(f"not confirmed: {citations.label(entry.claim_id)}: {why}", "red"))
    if done is not None:
        n = len(done.entries)
        term.say(f"confirm: {n} claim{'s' if n != 1 else ''} of this change saved" + (
            f"; {len(refused)} left to decide one by one" if refused else ""))
    return done


def _apply(ws: Workspace, term: Terminal, v: review.View, key: str, actor: str, source: str) -> review.Done | None:
    """The decision of `key` saved (None: cancelled, or refused with the reason shown)."""
    statement = evidence = None
    if key == "e":
        statement = _restatement(term, v.shown.prose or v.shown.claim.statement)  # what the page says now, if it differs
        if statement is None:
            return None
    if key == "r":
        evidence = _new_evidence(term, v)
        if evidence is None:
            return None
    if key == "x":
        rewritten = _rewrite_left(ws, term, v, actor)
        if rewritten is not None:
            return rewritten
    action = {"c": "confirm", "e": "restate", "r": "repoint", "x": "retract"}[key]
    try:
        done = review.apply(ws, v, action, by=actor, statement=statement, evidence=evidence, source=source)
    except OpenwikiError as e:
        term.say(term.paint(f"error: {e.message}", "red") + f"\n  {_hint(v, key, e)}")
        return None
    term.say(f"{done.action}: {citations.label(v.entry.claim_id)} saved")
    return done


def _rewrite_left(ws: Workspace, term: Terminal, v: review.View, actor: str) -> review.Done | None:
    """Retract and rewrite the paragraph, one decision: when retracting the claim's sentence
    leaves a sentence unfinished, that sentence is offered for rewriting (the verdicts package's
    plan and writer, as the refresher and verify_claim retract). None: nothing left unfinished, or
    the person keeps it as it is (then x retracts alone)."""
    try:
        offered = review.retraction(ws, v.entry)
    except OpenwikiError:
        return None
    if offered.neighbour is None:
        return None
    term.say(f"retracting leaves this sentence unfinished: {offered.neighbour}")
    answer = term.ask("rewrite it as (empty: retract alone, keeping it): ")
    if answer is None or not answer.strip():
        return None
    try:
        done, what = review.retract_and_rewrite(ws, v, by=actor, revised=answer.strip())
    except OpenwikiError as e:
        term.say(term.paint(f"error: {e.message}", "red") + f"\n  {e.hint or '? lists the keys'}")
        return None
    term.say(f"retract: {citations.label(v.entry.claim_id)} saved; {what.said}")
    return done


def _hint(v: review.View, key: str, e: OpenwikiError) -> str:
    """What to do here, in review's keys (the service's hint names `claim` flags)."""
    if key == "c" and v.shown.states is False:
        return "e restates the claim (the page's sentence is offered), or edit the page's sentence back"
    if key == "c" and any(item["current_resource"] is None for item in v.shown.items):
        return "r re-points the evidence to where the text is now, x retracts the claim"
    return e.hint or "? lists the keys"


def _restatement(term: Terminal, old: str) -> str | None:
    """The new statement, checked as the refresher checks a model's (None: cancelled or refused)."""
    from openwiki_git.verdicts.statement import check_statement

    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL")
    text = _edit_in(editor, old) if editor else term.ask("new statement (empty: cancel): ")
    if text is None or not text.strip():
        term.say("restate cancelled: the statement is unchanged")
        return None
    problem = check_statement(text.strip())
    if problem is not None:
        term.say(term.paint(f"error: the statement {problem}", "red"))
        return None
    return " ".join(text.split())


def _edit_in(editor: str, old: str) -> str | None:
    """The statement as the person left it in `editor` (lines starting with # dropped)."""
    import subprocess  # only when restating: review's first prompt comes sooner without them
    import tempfile

    fd, name = tempfile.mkstemp(prefix="openwiki-git-statement-", suffix=".txt")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"{old}\n# Write the claim's statement as one sentence. Lines starting with # are ignored.\n")
        done = subprocess.run(["sh", "-c", f'{editor} "$@"', editor, name], check=False)
        if done.returncode != 0:
            return None
        lines = path.read_text("utf-8").splitlines()
    finally:
        path.unlink(missing_ok=True)
    return " ".join(line for line in lines if not line.lstrip().startswith("#"))


def _new_evidence(term: Terminal, v: review.View) -> list[str] | None:
    """The resources typed for the claim's evidence, one per item (empty: cancel)."""
    out = []
    for ev, item in zip(v.shown.claim.evidence, v.shown.items, strict=True):
        now = item["current_resource"] or ev.resource
        typed = term.ask(f"new range for {now.removeprefix(REPO_PREFIX)} (repo://...#Lx-Ly or Lx-Ly; empty: cancel): ")
        if not typed or not typed.strip():
            term.say("re-point cancelled")
            return None
        try:
            out.append(review.repoint_target(now, typed))
        except UsageError as e:
            term.say(term.paint(f"error: {e.message}", "red") + f"\n  {e.hint}")
            return None
    return out


HUNKS_SHOWN = 3  # hunks a cause line names; the rest are counted


def screen(ws: Workspace, term: Terminal, v: review.View, n: int, total: int, offered: list[review.Entry] | None = None,
           seen: bool = False, left: int = 1) -> list[str]:
    """One claim as a person judges it, statement first: the cause, then per cited item the
    cited part's diff. `offered`: the claims sharing its change, shown once with the change;
    `seen`: the change was shown with an earlier claim of it (`left` of them undecided)."""
    e, shown = v.entry, v.shown
    where = ws.wiki.repo_path(e.page) + (f":{e.line}" if e.line else "")
    status = shown.result.status if shown.result.status != "fresh" else e.status  # judged now; "due" when fresh
    out = ["", term.paint(f"{where} {citations.label(e.claim_id)} {status}", "bold") + term.paint(f"  ({n}/{total})", "dim"),
           f"  {shown.claim.statement}"]
    if shown.states is False:
        out.append(term.paint(f"  the page's sentence now says: {shown.prose!r}", "yellow"))
    if seen:
        more = f"; a confirms the {left} left" if left > 1 else ""
        out.append(term.paint(f"  the same change as the claims above: its diff is shown there{more}", "cyan"))
        return out
    if offered:
        out.append(term.paint(f"  same change for {len(offered)} claims: decide them one by one, or confirm all "
                              f"{len(offered)} after reading this diff (a):", "cyan"))
        width = max(40, (term.columns or 200) - 6)
        for other in offered:
            text = f"{ws.wiki.repo_path(other.page)}{f':{other.line}' if other.line else ''} {citations.label(other.claim_id)}: " \
                   f"{other.statement}"
            out.append("    " + (text if len(text) <= width else text[: width - 1] + "…"))
    mark = shown.claim.mark
    for c in mark.causes if mark else ():
        at = f" in {mark.commit[:12]}" if mark and mark.commit else ""
        out.append(f"  cause: {c.resource.removeprefix(REPO_PREFIX)} {c.reason}" + (f" by {_hunks(c.hunk)}" if c.hunk else "") + at)
    for item, suggested in zip(shown.items, v.suggested, strict=True):
        out += _item_lines(term, item)
        if suggested is not None:
            what = "range" if "#L" in suggested else "evidence"  # lines that grew, or where a definition went
            out.append(term.paint(f"  suggested {what}: {suggested.removeprefix(REPO_PREFIX)} (c confirms with it)", "cyan"))
    return out


def _hunks(hunk: str) -> str:
    parts = hunk.split(", @@")
    return ", @@".join(parts[:HUNKS_SHOWN]) + (f" and {len(parts) - HUNKS_SHOWN} more hunks" if len(parts) > HUNKS_SHOWN else "")


def _item_lines(term: Terminal, item: dict[str, object]) -> list[str]:
    """`cited -> now at <the part's lines> (reason)`, then the part's diff (claims/part.py: a few
    lines around each change, numbered as the file is), else its text now."""
    now = str(item.get("now_at") or item["current_resource"] or "(not found)").removeprefix(REPO_PREFIX)
    at = "now at " if item.get("now_at") else "now "
    out = [f"  {str(item['resource']).removeprefix(REPO_PREFIX)} -> {at}{now} ({item['reason']})"]
    diff = item.get("part_diff") or item["diff"]
    if diff:
        for line in str(diff).splitlines():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else None
            out.append("    " + (term.paint(line, style) if style else line))
    elif item["current_text"] is not None:
        lines = item["current_lines"]
        start = lines[0] if isinstance(lines, list) else 1
        out += [f"    {k:>5} | {line}" for k, line in enumerate(str(item["current_text"]).splitlines(), start)]
    return out
