"""`review` at two hundred marks (issue 36 item 2), in a real pseudo-terminal with a real pager:
claims that share a change come together (the change shown once with every statement it
touches, `a` confirms them all as one decision, `u` undoes it as one), a screen taller than the
terminal goes through $PAGER (`less -FRX`, as git runs it) with the statement at its top, and the
lines to read are a screen per change, not per claim."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.support import many_marks
from tests.support.pty_session import PtySession, openwiki_git

GROUP_PROMPT = "[c,a,e,r,x,s,u,q,?]? "
LESS_PROMPT = ":\x1b[K"  # less waiting for a key at its bottom line
ROWS, COLUMNS = 16, 100
_ESCAPES = re.compile(r"\x1b(\[[?0-9;]*[A-Za-z]|[=>])")  # less's own: keypad mode, clear to the end of the line


def _lines(text: str) -> list[str]:
    return [ln for ln in _ESCAPES.sub("", text).replace("\r", "").splitlines() if ln.strip()]


def _marked(repo) -> None:  # type: ignore[no-untyped-def]
    many_marks.annotate(repo)
    repo.git("add", "-A")
    assert subprocess.run(openwiki_git("-C", str(repo.root), "hook"), capture_output=True).returncode == 1  # 200 marks


def _marks(repo) -> int:  # type: ignore[no-untyped-def]
    return sum(1 for c in json.loads(repo.read(".openwiki/.claims/api.json"))["claims"] if c.get("mark"))


def test_a_change_shared_by_ten_claims_is_read_once_through_the_pager(many_marks_repo) -> None:  # type: ignore[no-untyped-def]
    repo = many_marks_repo
    _marked(repo)
    s = PtySession(openwiki_git("-C", str(repo.root), "review", "--no-color"), cwd=repo.root,
                   env={"PAGER": "less -FRX", "TERM": "xterm"}, size=(ROWS, COLUMNS))
    paged = s.read_until(LESS_PROMPT)  # taller than the terminal: the pager holds it, the prompt waits
    top = _lines(paged)
    assert re.search(r"\.openwiki/api\.md:\d+ c-[0-9a-f]{8} stale", top[0]) and top[1].strip() == "`f0()` takes `p0`."
    assert "same change for 10 claims: decide them one by one, or confirm all 10 after reading this diff (a):" in paged
    assert GROUP_PROMPT not in paged
    s.send(" ")  # a page further: the rest, the change once
    rest = s.read_until("(END)")
    whole = " ".join(" ".join(_lines(paged + rest)).split())
    assert "cause: src/api.py#f0:head definition f0:head changed: annotations only (L5-L6 now)" in whole
    assert "+ 5 | def f0(p0: int | None = None" in whole  # the change, once for the ten claims
    s.send("q")
    s.read_until(GROUP_PROMPT)
    s.send("a\n")
    assert "confirm: 10 claims of this change saved" in s.read_until(LESS_PROMPT)
    assert _marks(repo) == 190
    s.send("q")
    s.read_until(GROUP_PROMPT)
    s.send("u\n")  # the group's confirm undone as one decision
    undone = s.read_until(LESS_PROMPT)
    assert "undone: confirm of c-" in undone and undone.count(", c-") >= 9 and _marks(repo) == 200
    s.send("q")
    s.read_until(GROUP_PROMPT)
    s.send("a\n")
    s.read_until(LESS_PROMPT)
    s.send("q")
    s.read_until(GROUP_PROMPT)
    s.send("c\n")  # one by one: the next claim of the change refers to the diff above, a short screen
    short = s.read_until(GROUP_PROMPT)
    assert "the same change as the claims above: its diff is shown there; a confirms the 9 left" in short
    assert LESS_PROMPT not in short and "takes `p1`." in short
    s.send("a\n")
    for _ in range(18):
        s.read_until(LESS_PROMPT)
        s.send("q")
        s.read_until(GROUP_PROMPT)
        s.send("a\n")
    assert s.wait() == 0
    assert s.screen.strip().splitlines()[-1] == "200 confirmed"
    assert _marks(repo) == 0
    assert subprocess.run([sys.executable, "-m", "openwiki_git", "-C", str(repo.root), "check"], capture_output=True).returncode == 0


def test_the_lines_to_read_follow_the_changes_not_the_claims(many_marks_repo) -> None:  # type: ignore[no-untyped-def]
    """PAGER=cat: every line is on the screen, counted screen by screen."""
    repo = many_marks_repo
    _marked(repo)
    s = PtySession(openwiki_git("-C", str(repo.root), "review", "--no-color"), cwd=repo.root, env={"PAGER": "cat"},
                   size=(ROWS, COLUMNS))
    heights = []
    for _ in range(20):
        screen = s.read_until(GROUP_PROMPT)
        heights.append(len(screen.splitlines()) - 1)
        assert "same change for 10 claims" in screen
        s.send("a\n")
    assert s.wait() == 0 and s.screen.strip().splitlines()[-1] == "200 confirmed"
    assert max(heights) <= 30 and sum(heights) <= 20 * 30  # 200 claims in 20 screens
