"""`cosmetic_parameters_added` (issue 23, typer's Rich parameters; issue 32's relevance rules): a
head whose only change is parameters added with defaults, or defaults changed, stays fresh,
re-anchored, in `check`, `check --base` and the hook on a staged diff, unless its sentence names
one of them (unset, the default) or the setting is false; anything else about its signature
still marks it. Through the real CLI."""

from __future__ import annotations

import pytest

from tests.claims.test_kinds import CART, _check, _claim, _hook, _setup
from tests.support.repo import GitRepo

SIG = "def __init__(self, limit: int) -> None:"
ON = "cosmetic_parameters_added: true\n"
OFF = "cosmetic_parameters_added: false\n"  # any signature change is code
HEAD = "repo://src/shop/cart.py#Cart:head"
SENTENCE = "A `Cart` takes a limit."


def _configured(repo: GitRepo, capsys: pytest.CaptureFixture[str], setting: str, resource: str = HEAD) -> None:
    _setup(repo, capsys, SENTENCE, resource)
    repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + setting)
    repo.commit_all("config")


def _judged_alike(repo: GitRepo, capsys: pytest.CaptureFixture[str], rc: int, name: str) -> None:
    """check and the hook exit `rc` on the parameter `rich` added: 0 saying it is cosmetic, 1
    saying the head of `name` changed."""
    got, data = _check(repo, capsys)
    reason = data["claims"][0]["evidence"][0]["reason"]
    assert got == rc, reason
    assert reason == "cosmetic: parameters added (rich)" if rc == 0 else reason.startswith(f"definition {name}:head changed")
    got, out = _hook(repo, capsys)
    assert got == rc, out
    assert ("cosmetic: parameters added (rich)" in out) == (rc == 0), out


@pytest.mark.parametrize(("setting", "rc"), [("", 0), (ON, 0), (OFF, 1)])
def test_a_keyword_added_with_a_default_is_cosmetic_only_with_the_setting(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], setting: str, rc: int
) -> None:
    _configured(repo, capsys, setting)
    before = _claim(repo)["evidence"][0]["version"]
    repo.write("src/shop/cart.py", CART.replace(SIG, "def __init__(self, limit: int, *, rich: bool = False) -> None:"))
    _judged_alike(repo, capsys, rc, "Cart")
    if rc == 0:
        assert _claim(repo)["evidence"][0]["version"] != before  # re-anchored
        assert "mark" not in _claim(repo)
        repo.commit_all("rich")
        assert _check(repo, capsys)[1]["claims"][0]["evidence"][0]["reason"] == "unchanged"


@pytest.mark.parametrize(
    ("signature", "what"),
    [
        ("def __init__(self) -> None:", "removed"),
        ("def __init__(self, size: int) -> None:", "renamed"),
        ("def __init__(self, limit: int = 3) -> None:", "a default changed"),
        ("def __init__(self, limit: int, rich: bool) -> None:", "added without a default"),
        ("def __init__(self, rich: bool = False, limit: int = 0) -> None:", "inserted before"),
    ],
)
def test_any_other_signature_change_still_marks_the_head(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], signature: str, what: str
) -> None:
    _configured(repo, capsys, ON)
    repo.write("src/shop/cart.py", CART.replace(SIG, signature))
    rc, data = _check(repo, capsys)
    assert rc == 1, what
    assert data["claims"][0]["evidence"][0]["reason"].startswith("definition Cart:head changed"), what
    rc, out = _hook(repo, capsys)
    assert rc == 1 and "definition Cart:head changed" in out, what


def test_a_summary_change_with_a_parameter_added_still_marks_the_head(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _configured(repo, capsys, ON)
    new = CART.replace(SIG, "def __init__(self, limit: int, rich: bool = False) -> None:").replace("A shopping cart.", "A basket.")
    repo.write("src/shop/cart.py", new)
    assert _check(repo, capsys)[0] == 1


def test_with_annotations_and_through_check_base(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _configured(repo, capsys, ON + "cosmetic_annotations: true\n", "repo://src/shop/cart.py#Cart.add:head")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write("src/shop/cart.py", CART.replace("def add(self, item):", "def add(self, item: object, *args, quiet=False, **kw):"))
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "add")  # without the hook: CI catches it
    rc, data = _check(repo, capsys, "--base", base)
    assert rc == 0 and data["claims"][0]["evidence"][0]["reason"] == "cosmetic: parameters added (args, quiet, kw)"


@pytest.mark.parametrize(
    ("body", "rc"),
    [
        ("", 0),  # the body the same: nothing it does changed
        ("        self.items.append(item)\n        self.log(item, quiet=quiet)\n", 1),  # a new call: code
        ("        self.items.append(item)\n        if quiet:\n            return\n", 1),  # the parameter used: code
    ],
)
def test_a_whole_definition_is_covered_only_when_its_body_is_the_same(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], body: str, rc: int
) -> None:
    """A whole definition cited: its signature gaining `quiet=False` is cosmetic only when its
    body does nothing new (at most hands the new parameter on by keyword: see same_body)."""
    _configured(repo, capsys, ON, "repo://src/shop/cart.py#Cart.add")
    new = CART.replace("def add(self, item):", "def add(self, item, quiet=False):")
    repo.write("src/shop/cart.py", new.replace("        self.items.append(item)\n", body) if body else new)
    got, data = _check(repo, capsys)
    assert got == rc, data
    assert (data["claims"][0]["evidence"][0]["reason"] == "cosmetic: parameters added (quiet)") == (rc == 0), data
    got, out = _hook(repo, capsys)
    assert got == rc, out


def test_a_docstring_added_with_the_parameters_keeps_a_whole_definition_fresh(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """typer's reference-docs commit gave `Typer.command` a docstring and its parameters
    `Doc("...")` annotations, its body the same: prose added to a definition that does what it
    did. A docstring rewritten, or added with the body changed, still marks it."""
    _configured(repo, capsys, ON, "repo://src/shop/cart.py#Cart.add")
    documented = CART.replace("def add(self, item):\n", 'def add(self, item, quiet=False):\n        """Add an item."""\n')
    repo.write("src/shop/cart.py", documented)
    got, data = _check(repo, capsys)
    assert got == 0 and data["claims"][0]["evidence"][0]["reason"] == "cosmetic: parameters added (quiet), docstring added", data
    got, out = _hook(repo, capsys)
    assert got == 0, out
    repo.write("src/shop/cart.py", documented.replace("raise OverflowError", "raise ValueError"))
    assert _check(repo, capsys)[0] == 1


def test_a_docstring_extended_with_the_parameters_keeps_a_whole_definition_fresh(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """attrs' `field` gained `type=None`, handed it on to `attrib`, and noted `.. versionadded::`
    for it in its docstring: 15 claims citing the whole function were marked for prose added. A
    docstring that only gained words is prose (one that lost words is weighed as rewritten), and a
    body that does anything new still marks."""
    documented = CART.replace("def add(self, item):\n", 'def add(self, item):\n        """Add an item."""\n')
    _configured(repo, capsys, ON, "repo://src/shop/cart.py#Cart.add")
    repo.write("src/shop/cart.py", documented)
    repo.commit_all("documented")
    capsys.readouterr()
    assert repo.run("claim", "confirm", _claim(repo)["id"], "--by", "human:lead") == 0
    repo.commit_all("confirmed")
    extended = documented.replace("def add(self, item):", "def add(self, item, quiet=False):").replace(
        '"""Add an item."""', '"""Add an item.\n\n        .. versionadded:: 2.0 *quiet*\n        """'
    )
    repo.write("src/shop/cart.py", extended)
    got, data = _check(repo, capsys)
    assert got == 0 and data["claims"][0]["evidence"][0]["reason"] == "cosmetic: parameters added (quiet), docstring extended", data
    got, out = _hook(repo, capsys)
    assert got == 0, out
    rewritten = extended.replace("Add an item.", "Add one.").replace("self.items.append(item)", "self.items.insert(0, item)")
    repo.write("src/shop/cart.py", rewritten)
    assert _check(repo, capsys)[0] == 1  # the body changed too: code


def test_a_parameter_handed_on_by_keyword_is_all_a_body_may_gain() -> None:
    """uvicorn's `run` gaining an option it passes to `Config` under its own name: the same body."""
    from openwiki_git.diff.signatures import same_body  # noqa: PLC0415 - the function under test

    old = "def run(app, port=8000):\n    \"Run.\"\n    config = Config(app, port=port)\n    return serve(config)\n"
    new = old.replace("port=8000)", "port=8000, limit=None)").replace("port=port)", "port=port, limit=limit)")
    assert same_body("m.py", old, new, "run", ("limit",))
    assert not same_body("m.py", old, new.replace("limit=limit)", "limit=limit or 1)"), "run", ("limit",))
    assert not same_body("m.py", old, new, "run", ())  # not one of the parameters added: code
    assert not same_body("m.py", old, new.replace('"Run."', '"Serve."'), "run", ("limit",))  # the docstring counts
    bare = old.replace('    "Run."\n', "")
    assert same_body("m.py", bare, new, "run", ("limit",))  # ... but one added is prose, no code
    assert same_body("m.py", old, new.replace('"Run."', '"Run. New in 2.0: limit."'), "run", ("limit",))  # ... or only extended


MAKE = '''from typing import Any, overload


def make(default: Any, *, strict: bool = False) -> Any:
    """Build a widget."""
    return default
'''
DECLARED = '''@overload
def make(default: int, *, strict: bool = False) -> int: ...


@overload
def make(default: str, *, strict: bool = False) -> str: ...


'''


@pytest.mark.parametrize(("setting", "rc"), [(ON, 0), ("", 0), (OFF, 1)])
def test_overload_declarations_added_before_the_implementation_leave_its_parameters_judged(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], setting: str, rc: int
) -> None:
    """typer 0.8.0: `Argument` gained `@overload` declarations and parameters with defaults. The
    head is the implementation's (the one Python binds); its only change is a parameter added, so
    with the setting it stays fresh, in `check` and in the hook; without, it is marked."""
    _setup(repo, capsys, "`make()` builds a widget.", "repo://src/shop/make.py#make:head", {"src/shop/make.py": MAKE})
    repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + setting)
    repo.commit_all("config")
    new = MAKE.replace("strict: bool = False) -> Any:", "strict: bool = False, rich: bool = False) -> Any:")
    repo.write("src/shop/make.py", new.replace("\n\ndef make(", "\n\n" + DECLARED + "def make(", 1))
    _judged_alike(repo, capsys, rc, "make")


@pytest.mark.parametrize(
    ("sentence", "signature", "reason", "rc"),
    [
        ("A `Cart` takes `rich` to print in colour.", "limit: int, *, rich: bool = False", "parameters added (rich)", 1),
        ("A `Cart` takes a limit.", "limit: int, *, rich: bool = False", "parameters added (rich)", 0),
        ("A `Cart` takes a limit.", "limit: int = 5", "", 1),  # a default where there was none: the signature changed
        ("A `Cart` holds five items by default.", "limit: int = 5", "", 1),
    ],
)
def test_unset_the_sentence_decides(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, signature: str, reason: str, rc: int
) -> None:
    """Unset (the default): a parameter added marks the sentence that names it, not the others."""
    _setup(repo, capsys, sentence, HEAD)
    repo.write("src/shop/cart.py", CART.replace(SIG, f"def __init__(self, {signature}) -> None:"))
    got, data = _check(repo, capsys)
    item = data["claims"][0]["evidence"][0]
    assert got == rc and (reason in item["reason"] if reason else item["reason"].startswith("definition Cart:head changed")), item
    got, out = _hook(repo, capsys)
    assert got == rc, out


@pytest.mark.parametrize(
    ("sentence", "rc"),
    [("A `Cart` is where items go.", 0), ("A `Cart` holds `limit` items.", 1), ("A `Cart` has a default size.", 1)],
)
def test_unset_a_default_changed_marks_a_sentence_about_it_or_about_defaults(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, rc: int
) -> None:
    """typer's `pretty_exceptions_show_locals` default flipped: the sentences naming `Typer` for
    what it is stay fresh; the one naming the parameter, or speaking of defaults, is marked."""
    code = CART.replace(SIG, "def __init__(self, limit: int = 5) -> None:")
    _setup(repo, capsys, sentence, HEAD, {"src/shop/cart.py": code})
    repo.write("src/shop/cart.py", code.replace("limit: int = 5", "limit: int = 9"))
    got, data = _check(repo, capsys)
    assert got == rc and data["claims"][0]["evidence"][0]["reason"] == "cosmetic: defaults changed (limit)", data
    got, out = _hook(repo, capsys)
    assert got == rc, out


@pytest.mark.parametrize(("sentence", "rc"), [("`make` is called as shown.", 0), ("`make` takes `rich` for colour.", 1)])
def test_an_overload_cited_by_its_lines_is_judged_as_a_head(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, rc: int
) -> None:
    """tenacity's `retry` gained `enabled: bool = ...` in its `@overload` declaration, which an
    example's claim cites by its lines (an overload has no name of its own): a parameter added
    with a default is the same cosmetic change as in a head, weighed against the sentence, in
    `check` and in the hook (unset, the default)."""
    declared = DECLARED + MAKE.split("\n\n\n", 1)[1]
    code = MAKE.split("\n\n\n", 1)[0] + "\n\n\n" + declared
    _setup(repo, capsys, sentence, "repo://src/shop/make.py#L4-L5", {"src/shop/make.py": code})
    repo.write("src/shop/make.py", code.replace("def make(default: int, *, strict: bool = False) -> int: ...",
                                                "def make(default: int, *, strict: bool = False, rich: bool = ...) -> int: ..."))
    got, data = _check(repo, capsys)
    assert got == rc and data["claims"][0]["evidence"][0]["reason"] == "cosmetic: parameters added (rich)", data
    got, out = _hook(repo, capsys)
    assert got == rc, out


@pytest.mark.parametrize(
    ("sentence", "rc"),
    [
        (SENTENCE, 0),  # names neither the new parameter nor a type the annotations added
        ("A `Cart` takes a limit, a number or a string.", 1),  # names `str`, which the annotations added
        ("A `Cart` can be rich.", 1),  # names the parameter added
    ],
)
def test_annotations_changed_beside_a_parameter_added_are_weighed_by_both_rules(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, rc: int
) -> None:
    """uvicorn's `run` (c322a066cd): a dozen annotations widened and two defaults changed in one
    commit; neither rule alone read it, so every sentence citing `run` was marked."""
    _setup(repo, capsys, sentence, HEAD)
    repo.write("src/shop/cart.py", CART.replace(SIG, "def __init__(self, limit: int | str, *, rich: bool = False) -> None:"))
    got, data = _check(repo, capsys)
    reason = data["claims"][0]["evidence"][0]["reason"]
    assert got == rc, reason
    if rc == 0:
        assert reason == "cosmetic: annotations (added str), parameters added (rich)"
    got, out = _hook(repo, capsys)
    assert got == rc, out
    assert "cosmetic: annotations (added str), parameters added (rich)" in out, out


def test_a_return_annotation_changed_beside_a_parameter_added_marks_a_sentence_naming_its_type(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each rule alone leaves "A `Cart` takes a limit." true (an annotation-only edit names no type
    it says; a keyword added with a default it does not name): together they do too."""
    _configured(repo, capsys, ON)
    repo.write("src/shop/cart.py", CART.replace(SIG, "def __init__(self, limit: int, rich: bool = False) -> bool:"))
    rc, data = _check(repo, capsys)
    reason = data["claims"][0]["evidence"][0]["reason"]
    assert rc == 0 and reason == "cosmetic: annotations (removed None; added bool), parameters added (rich)"
