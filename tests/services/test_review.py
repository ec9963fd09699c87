"""`openwiki-git review` (issue 22 item 1) in a real pseudo-terminal, against a real repository
whose claims the real hook marked: the page and sidecar bytes after each key, undo, restating
through an $EDITOR script, re-pointing, quitting midway and kill -9 midway."""

from __future__ import annotations

import json
import re
import subprocess

from openwiki_git.pages import citations
from tests.support.pty_session import PtySession, openwiki_git

PAGE = ".openwiki/guide.md"
SIDECAR = ".openwiki/.claims/guide.json"
PROMPT = "[c,e,r,x,s,u,q,?]? "


def _marked(repo, capsys, n: int = 2) -> list[str]:  # type: ignore[no-untyped-def]
    """`n` claims on guide.md, committed, then each one's cited lines changed and marked by the hook."""
    text = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n"
    text += "".join(f"Block {k} holds its lines.\n\n" for k in range(n))
    repo.write(PAGE, text)
    ids = []
    for k in range(n):
        capsys.readouterr()
        start = 10 * k + 2
        assert repo.run("claim", "add", "--page", "guide.md", "--statement", f"Block {k} holds its lines.",
                        "--evidence", f"repo://src/app.py#L{start}-L{start + 2}") == 0
        ids.append(capsys.readouterr().out.split()[0])
    repo.git("config", "user.name", "Ann Review")
    repo.git("config", "user.email", "ann@example.invalid")
    repo.commit_all("claims")
    lines = repo.read("src/app.py").splitlines(keepends=True)
    for k in range(n):
        lines[10 * k + 2] = f"line {10 * k + 3}, rewritten\n"
    repo.write("src/app.py", "".join(lines))
    repo.git("add", "src/app.py")
    assert repo.run("hook") == 1  # the real hook marks them and stops the commit once
    assert all(c.get("mark") for c in _sidecar(repo)["claims"])
    return ids


def _sidecar(repo) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return json.loads(repo.read(SIDECAR))


def _bytes(repo) -> tuple[bytes, bytes]:  # type: ignore[no-untyped-def]
    return (repo.root / PAGE).read_bytes(), (repo.root / SIDECAR).read_bytes()


def _review(repo, *args: str, env: dict[str, str] | None = None) -> PtySession:  # type: ignore[no-untyped-def]
    return PtySession(openwiki_git("-C", str(repo.root), "review", *args), cwd=repo.root, env=env)


_WHEN = re.compile(rb'("verifiedAt": ")[^"]*(")')


def _but_when(files: tuple[bytes, bytes]) -> tuple[bytes, ...]:
    """The page and sidecar bytes with each verification's time blanked: two confirms of one claim
    a second apart write the same bytes but that time."""
    return tuple(_WHEN.sub(rb"\1\2", data) for data in files)


def test_confirm_skip_undo_and_summary(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    ids = _marked(wiki_repo, capsys)
    before = _bytes(wiki_repo)
    s = _review(wiki_repo, "--no-color")
    first = s.read_until(PROMPT)
    line = wiki_repo.read(PAGE).splitlines().index(f"Block 0 holds its lines.{citations.marker(ids[0])}") + 1
    assert f".openwiki/guide.md:{line} {citations.label(ids[0])} stale" in first
    assert "Block 0 holds its lines." in first
    assert "-     3 | line 3\n" in first and "+     3 | line 3, rewritten" in first  # the cited part, numbered as the file is
    assert "cause: src/app.py#L2-L4 changed by @@" in first
    assert "\x1b[" not in s.raw
    s.send("c\n")
    second = s.read_until(PROMPT)
    assert f"{citations.label(ids[1])} stale" in second
    after_confirm = _bytes(wiki_repo)
    c0, c1 = _sidecar(wiki_repo)["claims"]
    assert "mark" not in c0 and c0["verifiedBy"] == "human:Ann Review <ann@example.invalid>"
    assert "mark" in c1
    s.send("u\n")  # back to the first claim, its bytes as they were
    assert f"undone: confirm of {citations.label(ids[0])}" in s.read_until(PROMPT)
    assert _bytes(wiki_repo) == before
    s.send("?\n")
    assert "re-point the evidence" in s.read_until(PROMPT)
    s.send("c\n")
    s.read_until(PROMPT)
    assert _but_when(_bytes(wiki_repo)) == _but_when(after_confirm)
    s.send("s\n")
    assert s.wait() == 0
    assert "1 confirmed, 1 skipped" in s.screen
    assert "mark" in _sidecar(wiki_repo)["claims"][1]


def test_restate_through_editor_and_retract(wiki_repo, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ids = _marked(wiki_repo, capsys)
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nprintf 'Block 0 holds rewritten lines.\\n# a comment\\n' > \"$1\"\n")
    editor.chmod(0o755)
    s = _review(wiki_repo, "--by", "human:bob", env={"EDITOR": str(editor), "NO_COLOR": "1"})
    s.read_until(PROMPT)
    s.send("e\n")
    s.read_until(PROMPT)
    c0 = _sidecar(wiki_repo)["claims"][0]
    assert c0["statement"] == "Block 0 holds rewritten lines." and "mark" not in c0 and c0["verifiedBy"] == "human:bob"
    assert f"Block 0 holds rewritten lines.{citations.marker(ids[0])}" in wiki_repo.read(PAGE)
    s.send("x\n")
    assert s.wait() == 0
    assert "1 restated, 1 retracted" in s.screen
    assert [c["id"] for c in _sidecar(wiki_repo)["claims"]] == [ids[0]]
    assert citations.marker(ids[1]) not in wiki_repo.read(PAGE)


def test_retract_obeys_the_verify_policy_and_writes_nothing_when_refused(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    ids = _marked(wiki_repo, capsys, n=1)
    config = wiki_repo.read(".openwiki/config.yml")
    wiki_repo.write(".openwiki/config.yml", config + 'verify_policy:\n  - pages: "guide.md"\n    allow: [human]\n')
    before = _bytes(wiki_repo)
    s = _review(wiki_repo, "--by", "agent:claude", env={"NO_COLOR": "1"})
    s.read_until(PROMPT)
    s.send("x\n")
    s.read_until(PROMPT)
    assert "the verify policy forbids 'agent:claude'" in s.screen and "$.verify_policy[0]" in s.screen
    assert _bytes(wiki_repo) == before  # refused: not a byte written
    s.send("q\n")
    assert s.wait() == 0
    s = _review(wiki_repo, "--by", "human:bob", env={"NO_COLOR": "1"})
    s.read_until(PROMPT)
    s.send("x\n")
    assert s.wait() == 0 and "1 retracted" in s.screen
    assert _sidecar(wiki_repo)["claims"] == [] and citations.marker(ids[0]) not in wiki_repo.read(PAGE)


def test_restatement_is_checked_before_anything_is_written(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _marked(wiki_repo, capsys, n=1)
    before = _bytes(wiki_repo)
    s = _review(wiki_repo, "--no-color", env={"EDITOR": "", "VISUAL": ""})
    s.read_until(PROMPT)
    s.send("e\n")
    s.read_until("new statement (empty: cancel): ")
    s.send("# A heading [^c-00000000]\n")
    assert "error: the statement must be one plain sentence" in s.read_until(PROMPT)
    assert _bytes(wiki_repo) == before
    s.send("q\n")
    assert s.wait() == 0
    assert "nothing decided" in s.screen


def test_repoint_with_a_range_of_the_same_file(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _marked(wiki_repo, capsys, n=1)
    s = _review(wiki_repo, "--no-color")
    s.read_until(PROMPT)
    s.send("r\n")
    s.read_until("empty: cancel): ")
    s.send("L5-L6\n")
    assert s.wait() == 0
    c0 = _sidecar(wiki_repo)["claims"][0]
    assert c0["evidence"][0]["resource"] == "repo://src/app.py#L5-L6" and "mark" not in c0
    assert "1 re-pointed" in s.screen


def test_quit_and_kill_midway_keep_what_was_decided(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _marked(wiki_repo, capsys, n=3)
    s = _review(wiki_repo, "--no-color")
    s.read_until(PROMPT)
    s.send("c\n")
    s.read_until(PROMPT)
    decided = _bytes(wiki_repo)
    s.kill()
    assert _bytes(wiki_repo) == decided
    assert ["mark" in c for c in _sidecar(wiki_repo)["claims"]] == [False, True, True]
    s = _review(wiki_repo, "--no-color")  # the next review starts at what is left
    assert "(1/2)" in s.read_until(PROMPT)
    s.send("q\n")
    assert s.wait() == 0
    assert _bytes(wiki_repo) == decided


def test_a_suggested_range_is_the_enclosing_definition(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    repo.write("src/calc.py", "def add(a, b):\n    total = a + b\n    return total\n\n\nX = 1\n")
    assert repo.run("init") == 0
    repo.write(PAGE, "# Guide\n\nAdd sums its arguments.\n")
    repo.commit_all("code")
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Add sums its arguments.",
                    "--evidence", "repo://src/calc.py#L1-L3") == 0
    repo.commit_all("claim")
    body = "".join(f"    step{k} = {k}\n" for k in range(12))
    repo.write("src/calc.py", f"def add(a, b):\n{body}    total = a + b\n    return total\n\n\nX = 1\n")
    repo.git("add", "src/calc.py")
    repo.run("hook")
    page = repo.read(PAGE)
    repo.write(PAGE, page.replace("Add sums its arguments.", "Add sums two numbers."))
    s = _review(repo, "--no-color", "--by", "human:ann")
    assert "suggested range: src/calc.py#L1-L15 (c confirms with it)" in s.read_until(PROMPT)
    s.send("c\n")  # the page says something else now: confirming the old statement is refused, as claim confirm does
    assert "e restates the claim" in s.read_until(PROMPT)
    s.send("q\n")
    assert s.wait() == 0
    assert "mark" in json.loads(repo.read(SIDECAR))["claims"][0]
    repo.write(PAGE, page)
    s = _review(repo, "--no-color", "--by", "human:ann")
    s.read_until(PROMPT)
    s.send("c\n")
    assert s.wait() == 0
    c0 = json.loads(repo.read(SIDECAR))["claims"][0]
    assert c0["evidence"][0]["resource"] == "repo://src/calc.py#L1-L15" and "mark" not in c0


def test_without_a_terminal_it_refuses(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _marked(wiki_repo, capsys, n=1)
    before = _bytes(wiki_repo)
    proc = subprocess.run(openwiki_git("-C", str(wiki_repo.root), "review"), input="c\n", capture_output=True, text=True)
    assert proc.returncode == 2
    assert "error: review asks about each claim and needs a terminal on stdin" in proc.stderr
    assert "claim confirm" in proc.stderr and "Traceback" not in proc.stderr
    assert _bytes(wiki_repo) == before


def test_a_page_that_says_something_else_is_restated_with_its_own_words(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    ids = _marked(wiki_repo, capsys, n=1)
    page = wiki_repo.read(PAGE).replace("Block 0 holds its lines.", "Block 0 holds three lines.")
    wiki_repo.write(PAGE, page)
    before = _bytes(wiki_repo)
    s = _review(wiki_repo, "--no-color", env={"EDITOR": "true"})  # the editor leaves the offered sentence as it is
    assert "the page's sentence now says: 'Block 0 holds three lines.'" in s.read_until(PROMPT)
    s.send("c\n")
    assert "e restates the claim (the page's sentence is offered)" in s.read_until(PROMPT)
    assert _bytes(wiki_repo) == before  # a refused decision writes nothing
    s.send("e\n")
    assert s.wait() == 0
    c0 = _sidecar(wiki_repo)["claims"][0]
    assert c0["statement"] == "Block 0 holds three lines." and "mark" not in c0
    assert f"Block 0 holds three lines.{citations.marker(ids[0])}" in wiki_repo.read(PAGE)
    assert "1 restated" in s.screen


def test_interrupted_it_reports_what_was_decided(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal

    _marked(wiki_repo, capsys, n=2)
    s = _review(wiki_repo, "--no-color")
    s.read_until(PROMPT)
    s.send("c\n")
    s.read_until(PROMPT)
    os.killpg(s.proc.pid, signal.SIGINT)  # Ctrl-C at the prompt
    assert s.wait() == 0
    assert s.screen.rstrip().endswith("1 confirmed") and "Traceback" not in s.screen
    assert ["mark" in c for c in _sidecar(wiki_repo)["claims"]] == [False, True]


def test_colour_only_on_a_terminal_without_no_color(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _marked(wiki_repo, capsys, n=1)
    s = _review(wiki_repo, env={"NO_COLOR": ""})
    s.read_until(PROMPT)
    assert "\x1b[32m+     3 | line 3, rewritten\x1b[0m" in s.raw and "\x1b[31m-     3 | line 3\x1b[0m" in s.raw
    s.send("q\n")
    assert s.wait() == 0
    s = _review(wiki_repo, env={"NO_COLOR": "1"})
    s.read_until(PROMPT)
    assert "\x1b[" not in s.raw
    s.send("q\n")
    assert s.wait() == 0


def test_the_suggestion_follows_text_that_moved_after_it_was_marked(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """The mark's cause holds the lines of the commit that marked it; later commits move them:
    the suggested range is where the grown definition is now."""
    head = "import os\n\n\n"
    repo.write("src/calc.py", head + "def add(a, b):\n    total = a + b\n    return total\n")
    assert repo.run("init") == 0
    repo.write(PAGE, "# Guide\n\nAdd sums its arguments.\n")
    repo.commit_all("code")
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Add sums its arguments.",
                    "--evidence", "repo://src/calc.py#L4-L6") == 0
    repo.commit_all("claim")
    body = "".join(f"    step{k} = {k}\n" for k in range(12))
    grown = f"def add(a, b):\n{body}    total = a + b\n    return total\n"
    repo.write("src/calc.py", head + grown)
    repo.git("add", "src/calc.py")
    assert repo.run("hook") == 1  # marked: the cause's new lines are L4-L18
    repo.commit_all("grown")
    repo.write("src/calc.py", "".join(f"X{k} = {k}\n" for k in range(10)) + head + grown)
    repo.git("add", "src/calc.py")
    repo.run("hook")
    repo.commit_all("moved down")
    s = _review(repo, "--no-color", "--by", "human:ann")
    assert "suggested range: src/calc.py#L14-L28 (c confirms with it)" in s.read_until(PROMPT)
    s.send("q\n")
    assert s.wait() == 0


SHOP = 'def total(cart):\n    """The number of items in the cart."""\n    return len(cart)\n'


def test_a_sites_rst_and_markdown_claims_are_named_by_their_sentences_line(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """On a Sphinx site, a reST claim's marker line follows its paragraph and a Markdown claim's
    comment marker follows its sentence: check (its text, JSON and --base) and review both name
    the line where the claim's sentence starts, never its paragraph's first line."""
    repo.write("shop.py", SHOP)
    repo.write("doc/conf.py", 'project = "Shop"\nextensions = ["myst_parser"]\n')
    para = "Carts are small.\nThe function :func:`shop.total` counts\nthe items in a cart.\n"
    repo.write("doc/index.rst", "Shop\n====\n\n" + para)
    repo.write("doc/guide.md", "# Guide\n\nCarts are small.\nThe function `shop.total` counts\nthe items in a cart.\n")
    repo.commit_all("a Sphinx site")
    assert repo.run("init", "--wiki-dir", "doc") == 0
    assert repo.run("ground", "--all") == 0
    assert ".. c-" in repo.read("doc/index.rst") and "<!-- c-" in repo.read("doc/guide.md")
    repo.commit_all("grounded")
    repo.write("shop.py", SHOP.replace("The number of items in the cart.", "The count of units."))  # "items", "cart" taken out
    repo.git("add", "shop.py")
    assert repo.run("hook") == 1
    repo.commit_all("the docstring changed")
    capsys.readouterr()
    assert repo.run("check") == 1
    text = capsys.readouterr().out
    assert "doc/index.rst:5 c-" in text and "doc/guide.md:4 c-" in text  # the sentence starts on the paragraph's second line
    for argv in (("check",), ("check", "--base", "HEAD~1")):
        assert repo.run(*argv, "--format", "json") == 1
        lines = {c["page"]: c["line"] for c in json.loads(capsys.readouterr().out)["claims"] if c["status"] == "stale"}
        assert lines == {"index.rst": 5, "guide.md": 4}, argv
    s = PtySession(openwiki_git("-C", str(repo.root), "review", "--no-color", "--by", "human:ann"), cwd=repo.root)
    shown = s.read_until("[c,a,e,r,x,s,u,q,?]? ")  # the two claims share the change: one screen names both
    assert "doc/guide.md:4 c-" in shown and "doc/index.rst:5 c-" in shown
    s.send("q\n")
    assert s.wait() == 0


def test_x_offers_to_rewrite_the_sentence_a_retraction_leaves_unfinished(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Retract and rewrite the paragraph, one decision, from review's keys: `x` on a sentence
    that the next one points back at ("Instead, ...") offers that one for rewriting, and the page
    then reads as the person wrote it (undone as one: tests/verdicts/test_prose.py)."""
    from tests.support.agent_session import build_dangling_repo

    repo, cid = build_dangling_repo(tmp_path / "repo")
    s = _review(repo, "--no-color", "--by", "human:ann")
    s.read_until(PROMPT)
    s.send("x\n")
    assert "retracting leaves this sentence unfinished: Instead, it waits one second." in s.read_until("keeping it): ")
    s.send("The client waits one second.\n")
    assert f"retract: {citations.label(cid)} saved;" in s.read_until("neighbouring sentence rewritten")
    assert s.wait() == 0
    assert repo.read(".openwiki/net.md").endswith("# Net\n\nThe client waits one second.\n")
    assert json.loads(repo.read(".openwiki/.claims/net.json"))["claims"] == []
