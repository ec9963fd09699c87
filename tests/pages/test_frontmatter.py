"""frontmatter.py: loading and saving changes no byte; editing one key changes only its lines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.errors import SchemaError
from openwiki_git.pages import frontmatter as fm

FIXTURES = Path(__file__).parents[1] / "fixtures" / "okf"
PAGES = sorted(FIXTURES.glob("*.md"))
WITH_FM = [p for p in PAGES if p.name != "no-front-matter.md"]
# a top-level key line, found without YAML: what a person sees as "the key's first line"
_KEY_LINE = re.compile(r'^(?:"[^"]*"|\'[^\']*\'|[^\s#\-"\'][^:]*):(?:[ \t]|\r?\n|$)')


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def regions(text: str) -> tuple[list[str], int, int, dict[str, tuple[int, int]]]:
    """Lines, the front matter's first and closing line, and each key's line range, computed
    independently of frontmatter.py: from a key line to the next key line or the closing fence,
    minus trailing blank and column-0 comment lines."""
    lines = text.splitlines(keepends=True)
    close = next(i for i in range(1, len(lines)) if lines[i].rstrip("\r\n").rstrip() == "---")
    starts = [i for i in range(1, close) if _KEY_LINE.match(lines[i])]
    out = {}
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else close
        end = stop
        while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
            end -= 1
        key = lines[start].split(":", 1)[0].strip().strip("\"'")
        out[key] = (start, end)
    return lines, 1, close, out


def anchored(text: str) -> set[str]:
    return {k for k, (s, e) in regions(text)[3].items() if any("&" in line for line in regions(text)[0][s:e])}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_load_and_save_changes_no_byte(path: Path) -> None:
    text = read(path)
    sp = fm.split(text, filename=path.name)
    assert sp.join() == text
    parsed = fm.parse(text, filename=path.name)
    if parsed is None:
        assert not sp.present
        return
    # saving every key with the value it has writes nothing
    assert fm.edit(text, dict(parsed.data), filename=path.name) == text
    assert fm.edit(text, {}, filename=path.name) == text


@pytest.mark.parametrize("path", WITH_FM, ids=lambda p: p.name)
@pytest.mark.parametrize(
    "value",
    [
        pytest.param("changed: a value", id="string"),
        pytest.param([{"by": "human:zoe", "at": "2026-12-24T18:00:00+01:00"}], id="list-of-mappings"),
        pytest.param({"by": "openwiki-git/0.1.0", "at": "2026-11-30T10:00:00Z"}, id="mapping"),
        pytest.param(fm.REMOVE, id="removed"),
    ],
)
def test_editing_each_key_keeps_every_other_byte(path: Path, value: Any) -> None:
    text = read(path)
    data = fm.parse(text, filename=path.name).data  # type: ignore[union-attr]
    lines, _, _, where = regions(text)
    assert list(where) == list(data), "the independent key finder agrees with ruamel"
    for key in data:
        if key in anchored(text):
            continue  # see test_anchored_key_is_refused
        new = fm.edit(text, {key: value}, filename=path.name)
        start, end = where[key]
        new_lines = new.splitlines(keepends=True)
        assert new_lines[:start] == lines[:start], key
        assert new_lines[len(new_lines) - (len(lines) - end) :] == lines[end:], key
        changed = new_lines[start : len(new_lines) - (len(lines) - end)]
        newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
        assert all(line.endswith(newline) for line in changed)
        expected = {k: v for k, v in data.items() if not (k == key and value is fm.REMOVE)}
        if value is not fm.REMOVE:
            expected[key] = value
        reparsed = fm.parse(new, filename=path.name)
        assert reparsed is not None and reparsed.data == expected and list(reparsed.data) == list(expected)


@pytest.mark.parametrize("path", WITH_FM, ids=lambda p: p.name)
def test_adding_a_key_appends_it_and_keeps_every_byte(path: Path) -> None:
    text = read(path)
    lines, _, close, _ = regions(text)
    new = fm.edit(text, {"x-added": ["one", "two"]}, filename=path.name)
    new_lines = new.splitlines(keepends=True)
    nl = "\r\n" if lines[0].endswith("\r\n") else "\n"
    assert new_lines == lines[:close] + [f"x-added:{nl}", f"  - one{nl}", f"  - two{nl}"] + lines[close:]


def test_a_kept_list_item_keeps_its_bytes() -> None:
    text = read(FIXTURES / "retry-policy.md")
    new = fm.edit(text, {"verified": [{"by": "human:alice", "at": "2026-12-01T14:02:00Z"}]}, filename="p.md")
    assert '  - {by: "human:alice", at: "2026-12-01T14:02:00Z"}\n' in new
    assert "openwiki-git/0.1.0, at: \"2026-11-30T09:16:12+01:00\"" not in new
    again = fm.edit(
        new,
        {"verified": [{"by": "human:alice", "at": "2026-12-01T14:02:00Z"}, {"by": "openwiki-git/0.1.0", "at": "2026-12-02T00:00:00Z"}]},
        filename="p.md",
    )
    assert '  - {by: "human:alice", at: "2026-12-01T14:02:00Z"}\n  - by: openwiki-git/0.1.0\n    at: "2026-12-02T00:00:00Z"\n' in again


def test_anchored_key_is_refused_clearly() -> None:
    text = read(FIXTURES / "anchors.md")
    with pytest.raises(SchemaError, match=r"^anchors\.md:3: cannot rewrite 'defaults' alone"):
        fm.edit(text, {"defaults": {"retries": 1}}, filename="anchors.md")
    assert fm.edit(text, {"title": "Renamed"}, filename="anchors.md").count("production: *defaults\n") == 1


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("openwiki-git/0.1.0", "openwiki-git/0.1.0"),
        ("human:alice", "human:alice"),
        ("2026-11-30T10:00:00Z", '"2026-11-30T10:00:00Z"'),
        ("2026-11-30", '"2026-11-30"'),
        ("yes", '"yes"'),
        ("null", '"null"'),
        ("", '""'),
        ("a: b", '"a: b"'),
        ("x #y", '"x #y"'),
        ("- item", '"- item"'),
        ("123", '"123"'),
        ("repo://src/x.py", "repo://src/x.py"),
        ("repo://src/x.py#L1-L2", '"repo://src/x.py#L1-L2"'),
        ("line\u2028sep", '"line\\u2028sep"'),
        ("tab\there", '"tab\\there"'),
        ("naïve", '"naïve"'),
    ],
)
def test_scalars_read_back_as_written(value: str, written: str) -> None:
    assert fm.scalar(value) == written
    text = fm.edit("---\ntype: T\n---\n", {"k": value}, filename="p.md")
    assert fm.parse(text, filename="p.md").data["k"] == value  # type: ignore[union-attr]


def test_timestamps_load_as_the_text_written() -> None:
    text = "---\ntype: T\nat: 2026-06-30T16:00:00+02:00\nday: 2026-06-30\n---\n"
    data = fm.parse(text, filename="p.md").data  # type: ignore[union-attr]
    assert data["at"] == "2026-06-30T16:00:00+02:00" and data["day"] == "2026-06-30"


def test_line_numbers_point_into_the_page() -> None:
    text = read(FIXTURES / "retry-policy.md")
    parsed = fm.parse(text, filename="p.md")
    assert parsed is not None
    lines = text.splitlines()
    assert lines[parsed.line("verified", 1) - 1].startswith('  - {by: "human:alice"')
    assert lines[parsed.line("status") - 1] == "status: stable"
    assert parsed.line() == 2


def test_no_front_matter_is_not_an_error() -> None:
    assert fm.parse("# Title\n\n---\n", filename="p.md") is None
    assert fm.parse("", filename="p.md") is None
    with pytest.raises(SchemaError, match="has no front matter"):
        fm.edit("# Title\n", {"type": "T"}, filename="p.md")
