"""A page's YAML front matter: split it from the body, read it, and edit one key surgically.

ruamel.yaml is imported here and in yamlio.py only, lazily, with a fresh `YAML(typ="rt")` per call
(ruamel keeps state on the instance). Timestamps load as the exact text written (OKF: keep the
offset), so values are plain str/int/float/bool/None/list/dict.

An edit replaces only the lines of the one top-level key it changes (the key line and its indented
or `- ` continuation lines), or appends the key at the end of the block: comments, key order,
quoting, flow or block style of every other key and the body stay byte for byte. Each edit is
re-parsed and compared with what was meant before it is returned.

Every problem is a SchemaError whose message is one line, `file:line: problem (fix)`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from openwiki_git.errors import SchemaError
from openwiki_git.pages.frontmatter_core import BOM, Split, boundary  # noqa: F401 (BOM, Split: re-exported)

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap  # what the round-trip loader builds for a mapping

REMOVE = object()  # a value for `edit()`: remove the key
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.,:/()+@~ -]*")
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
_DATE_LIKE = re.compile(r"\d{4}-\d\d?-\d\d?")


def fail(filename: str, line: int, problem: str, fix: str) -> SchemaError:
    """The one error shape of this module: `file:line: problem (fix)`, on one line."""
    return SchemaError(f"{filename}:{line}: {problem} ({fix})")


def split(text: str, *, filename: str) -> Split:
    """Find the front matter (the one rule: frontmatter_core.boundary); raises SchemaError when a
    first line `---` is never closed."""
    sp = boundary(text)
    if sp is None:
        raise fail(filename, 1, "front matter opened with --- is never closed", "add a line --- after the last key")
    return sp


def _yaml() -> Any:
    from openwiki_git.formats.yamlio import text_timestamps

    return text_timestamps("rt")  # a fresh instance whose timestamps stay text


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A parsed front matter: the plain values, and the ruamel tree for line numbers."""

    split: Split
    data: dict[str, Any]
    tree: Any  # CommentedMap, or None when the block is empty
    filename: str

    def line(self, *path: str | int) -> int:
        """The page line (1-based) of the value at `path` (`("verified", 1, "at")`), or of the
        nearest enclosing node that has a position."""
        node, line = self.tree, 0
        for part in path:
            try:
                if isinstance(part, int) and isinstance(node, list) and hasattr(node, "lc"):
                    line = node.lc.item(part)[0]
                elif isinstance(node, dict) and hasattr(node, "lc") and part in node:
                    line = node.lc.key(part)[0]
                else:
                    break
                node = node[part]
            except (KeyError, IndexError, TypeError, AttributeError):
                break
        return self.split.first_line + line


def parse(text: str, *, filename: str) -> FrontMatter | None:
    """The page's front matter, or None when it has none. Raises SchemaError on a malformed one."""
    sp = split(text, filename=filename)
    if not sp.present:
        return None
    return parse_split(sp, filename=filename)


def parse_split(sp: Split, *, filename: str) -> FrontMatter:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    for n, row in enumerate(sp.yaml.splitlines(), sp.first_line):
        indent = row[: len(row) - len(row.lstrip(" \t"))]
        if "\t" in indent and row.strip():
            raise fail(filename, n, "a tab in the indentation", "YAML indents with spaces; replace the tab")
    from openwiki_git.formats.yamlio import ALIAS_BOMB, hostile, too_big

    refused = hostile(sp.yaml)
    if refused is not None:
        at, problem, fix = refused
        raise fail(filename, sp.first_line + at, f"front matter: {problem}", fix)
    try:
        tree = _yaml().load(sp.yaml)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = sp.first_line + (mark.line if mark else 0)
        problem = (e.problem or e.context or "invalid YAML").strip()
        if "duplicate key" in problem:
            key = re.search(r'key "([^"]*)"', problem)
            name = key.group(1) if key else "?"
            raise fail(filename, line, f"duplicate key {name!r}", "keep one of the two, YAML keys are unique") from None
        raise fail(filename, line, f"invalid YAML: {problem}", "fix the YAML syntax of the front matter") from None
    except YAMLError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise fail(filename, sp.first_line, f"invalid YAML: {first}", "fix the YAML syntax of the front matter") from None
    except RecursionError:
        raise fail(filename, sp.first_line, "front matter nested too deeply", "flatten it") from None
    if tree is None:
        return FrontMatter(sp, {}, None, filename)
    if not isinstance(tree, dict):
        kind = "a list" if isinstance(tree, list) else f"a single value ({str(tree)[:40]!r})"
        raise fail(filename, sp.first_line, f"front matter is {kind}, not a mapping", "write `key: value` lines")
    for key in tree:
        if not isinstance(key, str):
            raise fail(
                filename, sp.first_line + cast("CommentedMap", tree).lc.key(key)[0], f"key {key!r} is not a string", "quote the key"
            )
    if too_big(tree):
        raise fail(filename, sp.first_line, f"front matter: {ALIAS_BOMB}", "write the values out instead of aliasing them")
    try:
        return FrontMatter(sp, plain(tree), tree, filename)
    except RecursionError:
        raise fail(filename, sp.first_line, "front matter nested too deeply", "flatten it") from None


def plain(value: Any) -> Any:
    """ruamel's round-trip values as plain Python values (str subclasses become str)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return str(value)  # tagged scalars and the like: their text


# -- editing ---------------------------------------------------------------------------------


def edit(text: str, changes: Mapping[str, Any], *, filename: str, parsed: FrontMatter | None = None) -> str:
    """The page with each top-level key in `changes` set (or removed, for REMOVE), surgically.

    The page must have front matter (see `split`). Keys not in `changes`, comments, the body and
    the line endings are kept byte for byte. Changes equal to the current value write nothing.
    `parsed`: the caller's `parse(text)`, so a page is not parsed twice on the write path.
    """
    fm = parsed if parsed is not None else parse(text, filename=filename)
    if fm is None:
        raise fail(filename, 1, "the page has no front matter", "start it with --- lines around `type: ...`")
    for key, value in changes.items():
        if value is REMOVE and key not in fm.data:
            continue
        if value is not REMOVE and key in fm.data and _same(fm.data[key], value):
            continue
        fm = _edit_one(fm, key, value)
    return fm.split.join()


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types (so 1 and true, or "1" and 1, differ)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _edit_one(fm: FrontMatter, key: str, value: Any) -> FrontMatter:
    sp = fm.split
    lines = sp.yaml.splitlines(keepends=True)
    new_lines = [] if value is REMOVE else [ln + sp.newline for ln in emit(key, value)]
    if key in fm.data:
        start, end = key_region(fm, key)
        kept = _list_edit(fm, key, value, lines, start, end) if isinstance(value, list) and value else None
        lines[start:end] = new_lines if kept is None else kept
    else:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += sp.newline
        lines.extend(new_lines)
    new_yaml = "".join(lines)
    try:
        result = parse_split(Split(sp.head, new_yaml, sp.close, sp.body, sp.newline, sp.first_line), filename=fm.filename)
    except SchemaError:
        result = None
    if result is None:
        raise fail(
            fm.filename,
            fm.line(key),
            f"cannot rewrite {key!r} alone: other keys refer to it (a YAML anchor)",
            "edit the front matter by hand",
        )
    expected = dict(fm.data)
    if value is REMOVE:
        expected.pop(key, None)
    else:
        expected[key] = value
    if not _same(result.data, expected) or list(result.data) != list(expected):
        raise fail(fm.filename, fm.line(key), f"cannot rewrite {key!r} without changing other keys", "report this bug")
    return result


def _list_edit(fm: FrontMatter, key: str, new: list[Any], lines: list[str], start: int, end: int) -> list[str] | None:
    """The key's lines for a block list that keeps the bytes of every item it keeps (a kept
    `human:` event keeps its quoting and comments); None when the list is not a block list."""
    seq, old = fm.tree[key], fm.data[key]
    if not isinstance(old, list) or not old or seq.fa.flow_style():
        return None
    starts = [seq.lc.item(i)[0] for i in range(len(old))]
    if starts[0] <= start or any(b <= a for a, b in zip(starts, starts[1:])):
        return None  # items on the key's line, or several on one line
    first = lines[starts[0]]
    dash = len(first) - len(first.lstrip(" "))
    if not all(lines[s][dash : dash + 2] in ("- ", "-\n", "-\r") for s in starts):
        return None
    nl = fm.split.newline
    ends = []
    for i, s in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else end
        last = s + 1
        for j in range(s + 1, stop):
            if lines[j].strip() and not lines[j].lstrip().startswith("#"):
                last = j + 1
        ends.append(last)
    regions = [lines[(ends[i - 1] if i else s) : ends[i]] for i, s in enumerate(starts)]
    out = lines[start : starts[0]]
    j = 0
    for item in new:
        m = next((m for m in range(j, len(old)) if _same(old[m], item)), None)
        if m is None:
            out.extend(line + nl for line in _item(item, dash))
        else:
            out.extend(regions[m])
            j = m + 1
    return out


def key_region(fm: FrontMatter, key: str) -> tuple[int, int]:
    """0-based [start, end) of the YAML lines holding `key` and its value: its line and the
    continuation lines after it, up to the next top-level key; blank lines and column-0 comments
    after the value stay outside (they belong to no key)."""
    lines = fm.split.yaml.splitlines(keepends=True)
    start = fm.tree.lc.key(key)[0]
    later = [fm.tree.lc.key(k)[0] for k in fm.tree if fm.tree.lc.key(k)[0] > start]
    stop = min(later) if later else len(lines)
    end = start + 1
    for j in range(start + 1, stop):
        if lines[j].strip() and not lines[j].startswith("#"):
            end = j + 1
    return start, end


def emit(key: str, value: Any, indent: int = 0) -> list[str]:
    """Block-style YAML lines (no line endings) for `key: value`. Strings are plain when that
    reads back as the same string, else double-quoted; timestamps are always quoted."""
    pad = " " * indent
    k = key if _KEY.fullmatch(key) else _quote(key)
    if isinstance(value, Mapping):
        if not value:
            return [f"{pad}{k}: {{}}"]
        out = [f"{pad}{k}:"]
        for kk, vv in value.items():
            out.extend(emit(str(kk), vv, indent + 2))
        return out
    if isinstance(value, list):
        if not value or all(_is_scalar(v) and not isinstance(v, str) for v in value):
            return [f"{pad}{k}: [{', '.join(scalar(v) for v in value)}]"]
        out = [f"{pad}{k}:"]
        for item in value:
            out.extend(_item(item, indent + 2))
        return out
    return [f"{pad}{k}: {scalar(value)}"]


def _item(item: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(item, Mapping) and item:
        pairs = list(item.items())
        first = emit(str(pairs[0][0]), pairs[0][1], indent + 2)
        first[0] = pad + "- " + first[0][indent + 2 :]
        rest = [line for kk, vv in pairs[1:] for line in emit(str(kk), vv, indent + 2)]
        return first + rest
    if isinstance(item, (Mapping, list)):
        return [f"{pad}- {json.dumps(item, ensure_ascii=True)}"]  # JSON is YAML flow
    return [f"{pad}- {scalar(item)}"]


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if (
        _PLAIN.fullmatch(text)
        and not text.endswith((" ", ":"))
        and ": " not in text
        and " #" not in text
        and text.lower() not in _RESERVED
        and not _DATE_LIKE.match(text)
    ):
        return text
    return _quote(text)


def _quote(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    # JSON leaves line and paragraph separators raw; YAML would read them as breaks.
    return "".join(
        f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Zl", "Zp", "Cc") and c not in "\t" else c for c in out
    )
