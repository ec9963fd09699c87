"""check's text, scannable (issue 22 item 4): per claim needing attention one line
`PAGE:LINE c-xxxxxxxx STATUS statement`, cut to the terminal (200 characters at most), and at
most two indented lines of reason, none said twice; `-v` keeps the long form; JSON adds `line`."""

from __future__ import annotations

import json

from openwiki_git.cli import check_output
from tests.support.pty_session import PtySession, openwiki_git

LONG = "The tenth line says ten, " + "and this statement goes on and on about it, " * 8 + "to the end."


def _stale(repo, capsys, statement: str = "Line ten says ten.") -> str:  # type: ignore[no-untyped-def]
    page = repo.read(".openwiki/guide.md").replace("Line ten says ten.", statement)
    repo.write(".openwiki/guide.md", "Intro line.\n\n" + page if not page.startswith("---") else page)
    capsys.readouterr()
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", statement, "--evidence", "repo://src/app.py#L10-L12") == 0
    cid = capsys.readouterr().out.split()[0]
    repo.commit_all("claim")
    repo.write("src/app.py", repo.read("src/app.py").replace("line 11\n", "line eleven\n"))
    repo.git("add", "src/app.py")
    assert repo.run("hook") == 1  # marked by the real hook
    return cid


def _sentence_line(repo, words: str) -> int:  # type: ignore[no-untyped-def]
    return next(n for n, text in enumerate(repo.read(".openwiki/guide.md").splitlines(), 1) if words in text)


def test_one_line_per_claim_and_two_reasons_at_most(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _stale(wiki_repo, capsys)
    capsys.readouterr()
    assert wiki_repo.run("check") == 1
    out = capsys.readouterr().out.splitlines()
    line = _sentence_line(wiki_repo, "Line ten says ten.")
    assert out[0] == f".openwiki/guide.md:{line} c-{cid[6:14]} stale Line ten says ten."
    reasons = [x for x in out[1:] if x.startswith("    ")]
    assert len(reasons) == 2
    assert reasons[0] == "    now at src/app.py#L10-L12: text changed between unchanged context"
    assert reasons[1].startswith("    cause: src/app.py#L10-L12 changed by @@ -11 +11 @@ in ")
    assert sum(x.count("@@ -11 +11 @@") for x in out) == 1  # the cause once
    assert out[-1].startswith("clear them: openwiki-git review")
    capsys.readouterr()
    assert wiki_repo.run("check", "-v") == 1  # the long form, as before
    assert f".openwiki/guide.md: {cid}: stale: Line ten says ten. (" in capsys.readouterr().out
    assert wiki_repo.run("check", "--format", "json") == 1
    [c] = json.loads(capsys.readouterr().out)["claims"]
    assert c["line"] == line


def test_lines_are_cut_to_200_characters_off_a_terminal(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _stale(wiki_repo, capsys, LONG)
    capsys.readouterr()
    assert wiki_repo.run("check") == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out[0]) == 200 and out[0].endswith("…")
    assert all(len(x) <= 200 for x in out)


def test_lines_are_cut_to_the_terminal_width(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _stale(wiki_repo, capsys, LONG)
    s = PtySession(openwiki_git("-C", str(wiki_repo.root), "check"), cwd=wiki_repo.root, env={"COLUMNS": "72"})
    assert s.wait() == 1
    shown = [x for x in s.screen.splitlines() if x]
    assert shown[0].startswith(".openwiki/guide.md:") and shown[0].endswith("…")
    assert all(len(x) <= 72 for x in shown if not x.startswith("clear them"))


def test_a_reason_is_never_said_twice() -> None:
    hunk = "@@ -11 +11 @@"
    record = {
        "id": "claim_" + "a" * 32, "page_path": ".openwiki/g.md", "statement": "S.", "status": "stale", "line": 3,
        "evidence": [{"resource": "repo://a.py#L1-L3", "status": "stale", "current_resource": "repo://a.py#L1-L3",
                      "reason": "changed", "hunk": hunk}],
        "notes": [f"repo://a.py#L1-L3: changed by {hunk}"], "marker": "[^c-aaaaaaaa]", "marker_present": True,
        "due": False, "verified_at": None,
        "mark": {"status": "stale", "since": "x", "commit": None,
                 "causes": [{"resource": "repo://a.py#L1-L3", "reason": "changed", "hunk": hunk}]},
    }
    lines = check_output.claim_text(record)
    assert lines == [".openwiki/g.md:3 c-aaaaaaaa stale S.", "    now at a.py#L1-L3: changed", f"    cause: a.py#L1-L3 by {hunk}"]
    ci = {**record, "notes": []}
    del ci["mark"]  # check --base: the hunk is on the evidence, there is no mark
    assert check_output.claim_text(ci) == [".openwiki/g.md:3 c-aaaaaaaa stale S.", f"    now at a.py#L1-L3: changed by {hunk}"]


def test_a_wiki_without_claims_is_nothing_checked_and_fails(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """Never a silent green: `check` on a wiki that holds no claim (a fresh `init`), or on a
    `--page` without one, says there was nothing to check and what grounds it, and exits 1; the
    report is written as ever (0 claims)."""
    capsys.readouterr()
    assert wiki_repo.run("check") == 1
    said = capsys.readouterr()
    assert said.out.startswith("0 claims: 0 fresh, 0 stale, 0 unresolved")
    assert said.err.startswith("nothing to check: .openwiki/ holds no claim; `openwiki-git ground --all --plan` lists")
    assert wiki_repo.run("check", "--format", "json") == 1
    said = capsys.readouterr()
    assert json.loads(said.out)["summary"]["total"] == 0 and "nothing to check" in said.err
    _stale(wiki_repo, capsys)  # one claim on guide.md
    capsys.readouterr()
    wiki_repo.write(".openwiki/other.md", "---\ntype: Note\n---\n\n# Other\n\nNo claim here.\n")
    assert wiki_repo.run("check", "--page", "other.md") == 1
    assert capsys.readouterr().err.startswith("nothing to check: other.md holds no claim")
