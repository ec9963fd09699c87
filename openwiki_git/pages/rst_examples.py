"""A reStructuredText page's code examples, in pages/examples.py's shape: the code blocks docutils
finds (pages/rst.py) that are Python, a Python session or a console, each with the directive or
paragraph that introduces it. Pure: text in, records out.

What a block is, as Sphinx highlights and tests it:
- `.. code-block:: LANG` (`sourcecode`, `code`): LANG as in Markdown (`python`, `pycon`, `console`…);
- `.. testcode::`, `.. testsetup::`, `.. testcleanup::` (sphinx.ext.doctest): Python, run by the
  doctest builder; `.. doctest::` and a doctest block (a paragraph of `>>>` lines): a session;
  `testoutput` is output, no example;
- a literal block after `::`, and a code directive without a language: Sphinx's default
  highlighting (Python) when it reads as Python, a session when it opens with `>>>`, a console
  when with `$ `.

A claim guards an example through a reST marker line (`.. c-1a2b3c4d`) after the block, past a
blank line, at the indentation of the directive (or the paragraph) that introduces it: deeper,
it would be read as more code. The marker lines after a block are found as after a paragraph
(pages/rst_markers.following).
"""

from __future__ import annotations

import functools
import re

from openwiki_git.pages import rst_markers
from openwiki_git.pages.examples import CONSOLE, LANGUAGES, PYCON, PYTHON, Example

_HEADER = re.compile(r"^([ \t]*)\.\.[ \t]+(?:[A-Za-z]+:)?([A-Za-z][\w-]*)::[ \t]*(\S*)")
_OPTION = re.compile(r"^[ \t]*:[\w-]+:")  # a directive's option line (`:linenos:`)
# Directives whose content sphinx.ext.doctest runs as Python, or as a session.
_DOCTEST_PYTHON = frozenset({"testcode", "testsetup", "testcleanup"})
_CODE_BLOCK = frozenset({"code-block", "sourcecode", "code"})
_NOT_EXAMPLES = frozenset({"testoutput", "parsed-literal", "literalinclude", "prompt"})


def examples(text: str) -> list[Example]:
    """The page's code examples, in order (cached: the check side asks for each claim of a page)."""
    return list(_examples(text))


@functools.lru_cache(maxsize=8)
def _examples(text: str) -> tuple[Example, ...]:
    from openwiki_git.pages import rst

    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out = []
    for block in rst.read(text):
        if block.kind != "code":
            continue
        first = text.count("\n", 0, block.start)  # 0-based line of the code's first line
        last = text.count("\n", 0, block.end)
        head = _header(lines, first)
        if head is None:
            continue
        kind, lang, head_line, indent = head
        indent_n = len(lines[first]) - len(lines[first].lstrip())
        code = "".join(ln[indent_n:] + "\n" if ln.strip() else "\n" for ln in lines[first : last + 1])
        kind = kind or _sniffed(code)
        if kind is None:
            continue
        end = starts[last] + len(lines[last])
        _, labels = rst_markers.following(text, end)
        out.append(Example(kind, lang, code, head_line, first + 1, end, indent, tuple(labels)))
    return tuple(out)


def _header(lines: list[str], first: int) -> tuple[str | None, str, int, str] | None:
    """(kind, language, 1-based line, indentation) of what introduces the block whose code starts
    at 0-based line `first`: its directive, the paragraph ending in `::`, or the block itself (a
    doctest block); kind None: decided by the code. None: not an example (`testoutput`)."""
    code_indent = len(lines[first]) - len(lines[first].lstrip())
    k = first - 1
    while k >= 0 and (not lines[k].strip() or (_OPTION.match(lines[k]) and _indent(lines[k]) >= code_indent)):
        k -= 1
    if k < 0 or _indent(lines[k]) >= code_indent:  # nothing introduces it: a doctest block, or a block at the top
        return (PYCON if lines[first].lstrip().startswith(">>>") else None), "", first + 1, lines[first][:code_indent]
    m = _HEADER.match(lines[k])
    if m is not None:
        name, lang = m.group(2), m.group(3)
        if name in _NOT_EXAMPLES:
            return None
        if name in _DOCTEST_PYTHON:
            return PYTHON, name, k + 1, m.group(1)
        if name == "doctest":
            return PYCON, name, k + 1, m.group(1)
        if name in _CODE_BLOCK:
            known = LANGUAGES.get(lang.lower())
            if lang and known is None:
                return None  # another language's code (`yaml`, `ini`)
            return known, lang, k + 1, m.group(1)
        return None
    if lines[k].rstrip().endswith("::"):  # a literal block: its paragraph introduces it
        para = k
        while para > 0 and lines[para - 1].strip() and _indent(lines[para - 1]) == _indent(lines[k]):
            para -= 1
        return None, "", para + 1, lines[k][: _indent(lines[k])]
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _sniffed(code: str) -> str | None:
    """A block without a language: a session, a console, or Python when it parses as Python."""
    import ast

    lead = code.lstrip()
    if lead.startswith(">>>"):
        return PYCON
    if lead.startswith("$ "):
        return CONSOLE
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return PYTHON


def closed_by(text: str, at: int, found: list[Example] | None = None) -> Example | None:
    """The example whose marker lines hold offset `at` (a marker line's start), or None."""
    for ex in examples(text) if found is None else found:
        if ex.markers and ex.end < at:
            stop, _ = rst_markers.following(text, ex.end)
            if at < stop:
                return ex
    return None
