"""The claim marker, one rule: `[^c-1a2b3c4d]` (8 to 32 hex of the claim's id) in a page's
prose is a Markdown footnote reference to the claim's citation; `[^c-1a2b3c4d]:` (the footnote's
definition, in the citations block) is not a marker; nor is one inside the generated citations
block. Pure, and `re` alone (check's lean path reads markers without the page machinery)."""

from __future__ import annotations

import re

from openwiki_git.pages import rst_markers

PATTERN = r"\[\^(c-[0-9a-f]{8,32})\](?!:)"  # group 1: the footnote label, `c-1a2b3c4d`
MARKER = re.compile(PATTERN)
# The generated citations block (citations.py writes it between its BEGIN and END lines).
BLOCK = re.compile(r"\n*<!-- openwiki-git:citations:begin[^\n]*-->\n.*?<!-- openwiki-git:citations:end -->\n?", re.S)
_BEGIN = "<!-- openwiki-git:citations:begin"
_END = "<!-- openwiki-git:citations:end -->"


def without_blocks(text: str) -> str:
    """`BLOCK.sub("", text)`, found with str.find: the regular expression's lazy scan through a
    block of a hundred citations costs more than the rest of a check of the page (tests compare
    the two on random input). A block is a line starting with _BEGIN and ending with `-->`, the
    first _END after it (and a newline after that), and the newlines right before it."""
    at = text.find(_BEGIN)
    if at < 0:
        return text
    parts, last = [], 0
    while at >= 0:
        eol = text.find("\n", at)
        if eol < 0:
            break
        if not text.endswith("-->", at + len(_BEGIN), eol):
            at = text.find(_BEGIN, at + 1)  # not a block's first line: a later one may be
            continue
        end = text.find(_END, eol + 1)
        if end < 0:
            break  # no block ends after this line, nor after any later one
        start = at
        while start > last and text[start - 1] == "\n":
            start -= 1
        parts.append(text[last:start])
        last = end + len(_END) + (text.startswith("\n", end + len(_END)))
        at = text.find(_BEGIN, last)
    parts.append(text[last:])
    return "".join(parts)


def markers_in(text: str) -> set[str]:
    """Labels used as markers in the prose (definitions and the generated block excluded)."""
    found = set(MARKER.findall(without_blocks(text)))
    if ".. c-" in text:  # a reStructuredText page's markers: comment lines (rst_markers.py)
        found |= rst_markers.labels_in(text)
    return found
