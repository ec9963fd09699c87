"""The hook's message at two hundred marks (issue 36 item 1), in process: at most 20 lines none
wider than 200 characters (or $COLUMNS), the claims counted per cause worst first, the first
few named one per definition, `-v` for every line; a few long lines wrapped, not cut."""

from __future__ import annotations

import pytest

from openwiki_git.cli.commands import hook as hook_cmd
from tests.support import many_marks
from tests.support.kinds_repo import unwrapped


def _hook(repo, capsys, *args: str) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    rc = repo.run("hook", *args)
    captured = capsys.readouterr()
    return rc, (captured.out + captured.err).splitlines()


def _bounded(lines: list[str], width: int = 200) -> None:
    assert len(lines) <= hook_cmd.LIMIT == 20, "\n".join(lines)
    assert max(len(line) for line in lines) <= width, "\n".join(lines)


def test_two_causes_counted_worst_first(many_marks_repo, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("COLUMNS", raising=False)
    repo = many_marks_repo
    many_marks.annotate(repo, changed=(3, 7))  # two bodies changed too: a head does not cite the body
    repo.git("add", "-A")
    rc, lines = _hook(repo, capsys)
    assert rc == 1
    _bounded(lines)
    causes = [line.strip() for line in lines if line.startswith("  ") and " in " in line and line.rstrip().endswith("claims")]
    assert causes == ["annotations changed in 20 definitions: 200 claims"]  # a body is not in a head: the heads' change is the annotations
    assert lines[0] == "openwiki-git: 200 claims stale on 1 page, by cause:"
    assert any("marked 200 claims stale" in line for line in lines)
    rc, every = _hook(repo, capsys, "-v")  # the marks are written: judged again, every claim listed
    assert len([line for line in every if line.startswith(".openwiki/api.md: claim_")]) == 200


def test_definitions_and_kinds_make_the_groups(many_marks_repo, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Whole definitions whose code changed, beside heads whose annotations changed: two causes,
    the code change first (an annotation change rarely makes a statement false)."""
    monkeypatch.delenv("COLUMNS", raising=False)
    repo = many_marks_repo
    page = repo.read(".openwiki/api.md")
    repo.write(".openwiki/api.md", page + "".join(f"`f{i}()` returns a dict.\n\n" for i in (3, 7)))
    for i in (3, 7):
        assert repo.run("claim", "add", "--page", "api.md", "--statement", f"`f{i}()` returns a dict.",
                        "--evidence", f"repo://src/api.py#f{i}", "--by", "human:ann") == 0
    repo.commit_all("two claims on whole definitions")
    many_marks.annotate(repo, changed=(3, 7))
    repo.git("add", "-A")
    rc, lines = _hook(repo, capsys)
    assert rc == 1
    _bounded(lines)
    assert lines[1:3] == ["  code changed in 2 definitions: 2 claims", "  annotations changed in 20 definitions: 200 claims"]
    first = [line for line in lines if line.startswith("  .openwiki/api.md: c-")]
    assert "returns a dict" in first[0] and len(first) == 5  # the worst cause's claim first


def test_check_mode_and_the_check_answer_are_bounded_too(many_marks_repo, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "100")
    repo = many_marks_repo
    many_marks.annotate(repo)
    repo.git("add", "-A")
    rc, lines = _hook(repo, capsys, "--check")
    assert rc == 1
    _bounded(lines, 100)
    assert "  annotations changed in 20 definitions: 200 claims" in lines
    assert repo.run("hook") == 1
    repo.git("commit", "-q", "-am", "annotations, marked")
    rc, lines = _hook(repo, capsys, "--check")  # nothing staged, the tree clean: check's answer
    assert rc == 1
    _bounded(lines, 100)
    assert "  annotations changed in 20 definitions: 200 claims" in lines


def test_a_few_long_lines_are_wrapped_whole(wiki_repo, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """While every claim fits in the bound, each keeps its whole line, wrapped at the width."""
    monkeypatch.setenv("COLUMNS", "60")
    statement = "Line ten says ten, " + "and a good deal more besides, " * 4 + "in one sentence."
    wiki_repo.write(".openwiki/guide.md", wiki_repo.read(".openwiki/guide.md") + f"\n{statement}\n")
    assert wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", statement, "--evidence", "repo://src/app.py#L10-L10") == 0
    wiki_repo.commit_all("a long claim")
    wiki_repo.write("src/app.py", wiki_repo.read("src/app.py").replace("line 10\n", "line ten\n"))
    wiki_repo.git("add", "-A")
    rc, lines = _hook(wiki_repo, capsys)
    assert rc == 1 and max(len(line) for line in lines) <= 60 and len(lines) <= 20
    assert f"{statement} (src/app.py#L10-L10 changed by @@ -10 +10 @@)" in unwrapped("\n".join(lines))


@pytest.mark.parametrize(("env", "width"), [({"COLUMNS": "120"}, 120), ({"COLUMNS": "500"}, 200), ({"COLUMNS": "x"}, 200),
                                            ({}, 200), ({"COLUMNS": "10"}, 200)])
def test_the_width_is_the_terminals_or_200(monkeypatch, env: dict[str, str], width: int) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert hook_cmd.terminal_width() == width
