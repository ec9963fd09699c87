"""evidence/kinds.py: the grammar of the new kinds, their canonical form and tokens, the query
guard, and that OpenWiki's own resources keep OpenWiki's reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openwiki_git.evidence import definitions, treesitter
from openwiki_git.evidence.kinds import (
    FileSet,
    GrepSet,
    Symbol,
    decode_members,
    glob_matches,
    looks_like_kind,
    parse_kind,
    set_version,
)
from openwiki_git.evidence.resource import ResourceError, parse_resource

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "openwiki-compat-vectors.json").read_text("utf-8"))


@pytest.mark.parametrize("v", VECTORS["resource_grammar"], ids=lambda v: v["input"])
def test_openwiki_resources_keep_openwikis_reading(v: dict) -> None:  # type: ignore[type-arg]
    """Every resource OpenWiki accepts is read by OpenWiki's grammar, never as one of ours; of
    those it refuses, only a named fragment (`#symbol`) becomes ours."""
    if v["canonical"] is not None:
        assert not looks_like_kind(v["input"])
        assert parse_resource(v["input"]).canonical == v["canonical"]
    elif looks_like_kind(v["input"]):
        if v["input"].endswith("#symbol"):
            assert parse_kind(v["input"]) == Symbol("src/config.ts", "symbol")
        else:
            with pytest.raises(ResourceError):
                parse_kind(v["input"])


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("repo://src/cart.py#Cart.add", Symbol("src/cart.py", "Cart.add")),
        ("repo://src/cart.py#Loader.load", Symbol("src/cart.py", "Loader.load")),  # a name starting with L
        ("repo://src/cart.py#Cart:head", Symbol("src/cart.py", "Cart", head=True)),
        ("repo://src/stores/*.py", FileSet("src/stores/*.py")),
        ("repo://src/./stores/[!_]*.py", FileSet("src/stores/[!_]*.py")),
        ("repo://src/**/*.py?grep=raise%20OverflowError", GrepSet("src/**/*.py", "raise OverflowError")),
        ("repo://src/a.py?grep=x%7Cy", GrepSet("src/a.py", "x|y")),
    ],
)
def test_parse_and_canonical(text: str, kind: object) -> None:
    got = parse_kind(text)
    assert got == kind
    assert parse_kind(got.canonical) == got  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text", ["repo://src/a.py#l8", "repo://src/a.py#10-20", "repo://src/a.py#a..b", "repo://src/*.py#Cart", "repo://../x/*.py",
             "repo://.git/*", "repo://src/*.py?grep=", "repo://src/*.py?grep=" + "a" * 201, "repo://src/*.py?grep=(a*)*"]
)
def test_malformed_ones_are_refused(text: str) -> None:
    with pytest.raises(ResourceError):
        parse_kind(text)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("src/*.py", "src/a.py", True), ("src/*.py", "src/x/a.py", False), ("src/**/*.py", "src/x/y/a.py", True),
        ("src/**/*.py", "src/a.py", True), ("src/?.py", "src/ab.py", False), ("src/[!_]*.py", "src/_a.py", False),
        ("src/[ab].py", "src/b.py", True), ("src/a.py", "src/a.py", True),
    ],
)
def test_globs(pattern: str, path: str, matches: bool) -> None:
    assert glob_matches(pattern, path) is matches


def test_a_set_token_lists_its_members_and_refuses_a_forged_list() -> None:
    token = set_version(["b.py", "a.py"])
    assert decode_members(token) == ["a.py", "b.py"]
    forged = token.rsplit(":", 1)[0] + ":" + set_version(["c.py"]).rsplit(":", 1)[1]
    assert decode_members(forged) is None


PY = '''import functools


@functools.cache
def make(size: int) -> "Widget":
    """Make one."""
    return Widget(size)


class Widget:
    """A widget."""

    size = 1

    def __init__(self, size: int,
                 colour: str = "red") -> None:
        self.size = size
'''


def test_python_extents_include_decorators_and_heads() -> None:
    found = {d.name: d for d in definitions.definitions("w.py", PY)}
    assert (found["make"].start, found["make"].end, found["make"].head) == (4, 7, ((4, 6),))
    widget = found["Widget"]
    assert (widget.start, widget.end) == (10, 17)
    assert widget.head == ((10, 11), (15, 16))  # class line and docstring; __init__'s signature
    assert found["Widget.__init__"].kind == "method"


def test_a_missing_grammar_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(treesitter, "_parser", lambda ext: None)  # the extra not installed
    assert "pip install 'openwiki-git[ground]'" in (definitions.unsupported("web/a.ts") or "")
    assert definitions.unsupported("a.py") is None


LONG_DOC = '''def attrib(default=None, *, limit=10):
    r"""
    Create a new ``attribute``
    on a class.

    :param limit: How many; past it, :class:`OverflowError`.
    """
    return default
'''


def test_a_head_is_the_signature_and_the_docstring_summary_the_first_head_the_whole_docstring() -> None:
    (ext,) = definitions.definitions("a.py", LONG_DOC)
    lines = LONG_DOC.splitlines(keepends=True)
    assert (ext.head, ext.summary, ext.head_v1) == (((1, 4),), (2, 4), ((1, 7),))
    assert ext.head_summary(lines) == "Create a new attribute on a class."
    assert ext.head_code(lines) == "def attrib(default=None, *, limit=10):\n"
    assert ":param limit" in ext.text(lines, head=True, v1=True) and ":param limit" not in ext.text(lines, head=True)
    assert ":param limit" in ext.body_text(lines)


@pytest.mark.parametrize(
    "summary",
    ['"""Create a new *attribute* on a class."""', '"""\n    Create a new :term:`attribute` on\n    a class.\n    """'],
)
def test_a_summarys_markup_and_wrapping_are_not_part_of_its_token_text(summary: str) -> None:
    before = definitions.definitions("a.py", LONG_DOC)[0].head_token_text(LONG_DOC.splitlines(keepends=True))
    text = f"def attrib(default=None, *, limit=10):\n    {summary}\n    return default\n"
    (ext,) = definitions.definitions("a.py", text)
    assert ext.head_token_text(text.splitlines(keepends=True)) == before
