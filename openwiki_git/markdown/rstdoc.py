"""A reStructuredText page split the way blocks.py splits Markdown, for the evidence graph: section
titles by their adornment (an underline, or an over- and underline, of one punctuation character;
levels in the order the styles first appear, as docutils reads them), paragraphs between blank
lines, and code: the indented block after a `::` paragraph or a code directive (pages/rst_markers
names them). A run of marker lines (`.. c-1a2b3c4d`) is a paragraph of its own, which the graph
gives to the paragraph before it. Pure: text in, a Builder out; no docutils (`ground` reads pages
through it: pages/rst.py).
"""

from __future__ import annotations

import re

from openwiki_git.markdown.builder import Builder
from openwiki_git.pages.rst_markers import CODE_DIRECTIVES

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^\s*\.\.[ \t]+([A-Za-z][\w.:+-]*)::")


def is_adornment(line: str) -> bool:
    """Whether `line` is a section title's adornment (an under- or overline of one punctuation character)."""
    return _ADORNMENT.match(line) is not None


def read(text: str, *, allow_title: bool = True) -> Builder:
    b = Builder(allow_title)
    lines = text.split("\n")
    styles: list[tuple[str, bool]] = []
    code_under = -1  # an indentation deeper than this is code: after `::` or a code directive
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        title = _title(lines, i)
        if title is not None:
            text_line, style, used = title
            if style not in styles:
                styles.append(style)
            level = styles.index(style) + 1
            b.heading(level, lines[text_line].strip(), text_line + 1)
            i += used
            code_under = -1
            continue
        start = i
        while i < len(lines) and lines[i].strip():
            i += 1
        run = lines[start:i]
        indent = len(run[0]) - len(run[0].lstrip())
        code = code_under >= 0 and indent > code_under
        if not code:
            directive = _DIRECTIVE.match(run[0])
            if directive is not None and directive.group(1).split(":")[-1] in CODE_DIRECTIVES:
                code_under = indent
            elif run[-1].rstrip().endswith("::"):
                code_under = indent
            else:
                code_under = -1
        b.paragraph("\n".join(run), start + 1, i, code=code)
    return b


def _title(lines: list[str], i: int) -> tuple[int, tuple[str, bool], int] | None:
    """(the title's line, its style, the lines it takes) when a title starts at line i."""
    over = _ADORNMENT.match(lines[i])
    if over and i + 2 < len(lines) and lines[i + 1].strip() and _ADORNMENT.match(lines[i + 2]):
        return i + 1, (over.group(1), True), 3
    if i + 1 < len(lines) and not over and lines[i].strip() and not lines[i].startswith((" ", "\t")):
        under = _ADORNMENT.match(lines[i + 1])
        if under and len(lines[i + 1].strip()) >= len(lines[i].strip()):
            return i, (under.group(1), False), 2
    return None
