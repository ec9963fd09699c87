"""cosmetic.compare on token streams, and the hook, check and check --base agreeing on a real repo."""

from __future__ import annotations

import json

import pytest

from openwiki_git.diff.cosmetic import annotation_types, compare


def L(text: str) -> list[str]:
    return text.splitlines(keepends=True)


OLD = "def f(a, b):\n    x = g(a, b)  # the sum\n    return x\n"


@pytest.mark.parametrize(
    ("new", "reason"),
    [
        ("def f(a, b):\n    x = g(a, b)  # a sum\n    return x\n", "cosmetic: comments"),
        ("def f(a, b):\n    x = g(a, b)\n    return x\n", "cosmetic: comments"),
        ("def f(a,  b):\n\n    x = g(a, b)  # the sum\n    return x\n", "cosmetic: whitespace"),
        ("def f(a, b):\n    x = g(\n        a,\n        b,\n    )  # the sum\n    return x\n", "cosmetic: line wrapping"),
        ("def f(a, b):\n    x = g(a, b)  # the sum\n    return x  # done\n", "cosmetic: comments"),
    ],
)
def test_python_cosmetic_edits(new: str, reason: str) -> None:
    assert compare("m.py", L(OLD), L(new)) == reason


@pytest.mark.parametrize(
    "new",
    [
        "def f(a, b):\n    x = g(a, c)  # the sum\n    return x\n",  # a name
        "def f(a, b):\n    x = g(a, b)  # the sum\n    return -x\n",  # an operator
        "def f(a, b):\n    x = g(a, b)  # the sum\n\n    return x\n    pass\n",  # a statement
        "def f(a: int, b: int) -> int:\n    x = g(a, b)  # the sum\n    return x\n",  # annotations: off by default
        "    def f(a, b):\n        x = g(a, b)  # the sum\n        return x\n",  # re-indented as a whole
    ],
)
def test_python_real_edits(new: str) -> None:
    assert compare("m.py", L(OLD), L(new)) is None


def test_annotations_when_enabled() -> None:
    new = "def f(a: int, b: int = 2) -> int:\n    x: int = g(a, b)  # the sum\n    return x\n"
    old = "def f(a, b=2):\n    x = g(a, b)  # the sum\n    return x\n"
    assert compare("m.py", L(old), L(new), annotations=True) == "cosmetic: annotations (added int)"
    assert compare("m.py", L(old), L(new)) is None


@pytest.mark.parametrize(
    ("old", "new", "types"),
    [
        pytest.param("def f(cb: typing.Callable[P, typing.Any]) -> typing.Any:", "def f(cb: Callable[P, Any]) -> Any:", set(),
                     id="qualified-to-bare"),
        pytest.param("def f(x: Optional[List[int]]):", "def f(x: list[int] | None):", set(), id="typing-aliases"),
        pytest.param("def f(x: 'typing.List[Cart]'):", "def f(x: list[Cart]):", set(), id="forward-reference-unquoted"),
        pytest.param("def f(x: int):", "def f(x: str):", {"int", "str"}, id="int-to-str"),
        pytest.param("def f(x: float):", "def f(x: float | None):", {"None"}, id="optional-now"),
        pytest.param("def f(a: int, b: str):", "def f(a: str, b: int):", {"int", "str"}, id="swapped-between-parameters"),
        pytest.param("def f(x):", "def f(x: 'Cart') -> \"Cart\":", {"Cart"}, id="forward-references-added"),
    ],
)
def test_annotation_edits_name_the_types_they_add_or_remove(old: str, new: str, types: set[str]) -> None:
    """Per annotation site: a type named on one side and not the other, by its last dotted part,
    typing's aliases as what they alias (what claims/relevance.py weighs against a sentence)."""
    reason = compare("m.py", L(old + "\n    pass\n"), L(new + "\n    pass\n"), annotations=True)
    assert reason is not None and reason.startswith("cosmetic: annotations")
    assert annotation_types(reason) == types
    assert annotation_types("cosmetic: comments") is None and annotation_types("unchanged") is None


def test_python_literals() -> None:
    assert compare("m.py", L("x = 'a'\n"), L('x = "a"\n')) == "cosmetic: whitespace"
    assert compare("m.py", L("x = 'a'\n"), L('x = "b"\n')) is None
    assert compare("m.py", L("x = (a)\n"), L("x = (a,)\n")) is None  # a tuple now
    assert compare("m.py", L("x = [a]\n"), L("x = [a,]\n")) == "cosmetic: line wrapping"
    assert compare("m.py", L("if x:\n    y()\n"), L("if x:\n    y()\n")) is None  # not an edit


def test_python_span_inside_a_file() -> None:
    """The file is tokenized whole, so a range inside a docstring's neighbourhood lexes right."""
    old = L('"""doc\nstring"""\nx = 1\ny = 2\n')
    new = L('"""doc\nstring"""\nx = 1  # one\ny = 2\n')
    assert compare("m.py", old, new, old_span=(3, 4), new_span=(3, 4)) == "cosmetic: comments"
    assert compare("m.py", old, L('"""doc\nstring"""\nx = 1\ny = 3\n'), old_span=(3, 4), new_span=(3, 4)) is None
    assert compare("m.py", L("x = (\n"), L("x = ( \n")) is None  # does not tokenize: never cosmetic


def test_other_languages_through_pygments() -> None:
    assert compare("a.js", L("var x = 1; // one\n"), L("var x  =  1; // uno\n")) == "cosmetic: comments"
    assert compare("a.js", L("var x = 1;\n"), L("var x = 2;\n")) is None
    assert compare("a.c", L("int x = 1; /* a */\n"), L("int x = 1;\n")) == "cosmetic: comments"
    assert compare("a.yaml", L("a:\n  b: 1\n"), L("a:\nb: 1\n")) is None  # indentation is syntax
    assert compare("a.unknown-ext", L("a\n"), L("a \n")) is None  # no lexer: never cosmetic


SRC = "".join(f"x{i} = compute({i})\n" for i in range(1, 31))


def _hook_repo(repo, settings: str = ""):  # type: ignore[no-untyped-def]
    repo.write("src/mod.py", SRC)
    repo.git("add", "-A")
    repo.commit_all("src")
    assert repo.run("init") == 0
    if settings:
        cfg = repo.read(".openwiki/config.yml")
        repo.write(".openwiki/config.yml", cfg + settings)
    repo.write(".openwiki/guide.md", "---\ntype: Reference\n---\n\n# Guide\n\nTen computes ten.\n")
    assert (
        repo.run("claim", "add", "--page", "guide.md", "--statement", "Ten computes ten.", "--evidence", "repo://src/mod.py#L10-L12") == 0
    )
    repo.commit_all("wiki")
    return repo


def _edit_src(repo, lines_now: dict[int, str]) -> None:  # type: ignore[no-untyped-def]
    """src/mod.py with these 1-based lines replaced."""
    lines = SRC.splitlines(keepends=True)
    for n, text in lines_now.items():
        lines[n - 1] = text
    repo.write("src/mod.py", "".join(lines))


def _report(repo, capsys, *argv: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    capsys.readouterr()
    repo.run("check", "--format", "json", *argv)
    return json.loads(capsys.readouterr().out)


def test_hook_keeps_a_commented_range_fresh_and_check_agrees(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _hook_repo(repo)
    _edit_src(repo, {11: "x11 = compute(11)  # eleven, as before\n", 12: "x12 = compute(\n    12,\n)\n"})
    # check on the working tree, before any hook: the verified text is read from its blob
    worktree = _report(repo, capsys)
    assert [c["status"] for c in worktree["claims"]] == ["fresh"]
    assert worktree["claims"][0]["evidence"][0]["reason"] == "cosmetic: comments, line wrapping"
    assert _report(repo, capsys) == worktree  # the same verdict from the check cache
    repo.git("add", "src/mod.py")
    capsys.readouterr()
    repo.run("hook")
    out = capsys.readouterr()
    assert "claim_" not in out.out  # nothing stale
    assert "kept fresh: src/mod.py#L10-L14 cosmetic: comments, line wrapping" in out.err
    side = json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]
    assert "mark" not in side
    assert side["evidence"][0]["resource"] == "repo://src/mod.py#L10-L14"  # re-anchored to the new text
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "comment and wrap")
    assert [c["status"] for c in _report(repo, capsys)["claims"]] == ["fresh"]
    assert [c["status"] for c in _report(repo, capsys, "--base", "HEAD^")["claims"]] == ["fresh"]


def test_cosmetic_edits_stale_setting_and_real_edits_stay_stale(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _hook_repo(repo, "cosmetic_edits: stale\n")
    _edit_src(repo, {11: "x11 = compute(11)  # eleven\n"})
    assert [c["status"] for c in _report(repo, capsys)["claims"]] == ["stale"]
    repo.git("add", "src/mod.py")
    repo.run("hook")
    assert json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]["mark"]["status"] == "stale"


def test_real_edit_is_stale_with_cosmetic_on(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _hook_repo(repo)
    _edit_src(repo, {11: "x11 = compute(111)  # eleven\n"})
    assert [c["status"] for c in _report(repo, capsys)["claims"]] == ["stale"]
    repo.git("add", "src/mod.py")
    repo.run("hook")
    assert json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]["mark"]["status"] == "stale"


def test_mark_setting_marks_with_the_reason_and_the_refresher_confirms_without_a_model(repo, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _hook_repo(repo, "cosmetic_edits: mark\n")
    _edit_src(repo, {11: "x11 = compute(11)  # eleven\n"})
    report = _report(repo, capsys)
    assert [c["status"] for c in report["claims"]] == ["stale"]
    assert report["claims"][0]["evidence"][0]["reason"] == "cosmetic: comments"
    repo.git("add", "src/mod.py")
    repo.run("hook")
    mark = json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]["mark"]
    assert mark["status"] == "stale" and mark["causes"][0]["reason"] == "cosmetic: comments"
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "a comment")
    capsys.readouterr()
    assert repo.run("refresh") == 0  # no key needed: nothing goes to a model
    assert "1 confirmed (1 without a model)" in capsys.readouterr().out
    assert [c["status"] for c in _report(repo, capsys)["claims"]] == ["fresh"]
