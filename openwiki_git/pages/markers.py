"""The claim marker, one rule, two forms, each carrying a label (`c-` and 8 to 32 hex of the
claim's id):

- the footnote, `[^c-1a2b3c4d]` in a page's prose: a Markdown footnote reference to the claim's
  citation, rendered from the generated citations block. `[^c-1a2b3c4d]:` (the footnote's
  definition, in that block) is not a marker; nor is one inside the generated block;
- the comment, `<!-- c-1a2b3c4d -->`: an HTML comment, invisible when the page is rendered, with
  nothing to render (the citations block gives it no footnote). A code example's claim carries
  one on the line after the closing fence (a footnote there would be read as code), and a docs
  site may carry one after each sentence.

A claim marked either way has its marker. `markers_in` is the one reader of every marker label
in a text; `ANY` matches either form (group 1: the label). Pure, and `re` alone (check's lean
path reads markers without the page machinery)."""

from __future__ import annotations

import re

from openwiki_git.pages import rst_markers
from openwiki_git.pages.labels import comment, footnote, label, marker_text  # noqa: F401 - the forms' text (labels.py), here too

_LABEL = r"c-[0-9a-f]{8,32}"
PATTERN = r"\[\^(" + _LABEL + r")\](?!:)"  # the footnote form; group 1: the label, `c-1a2b3c4d`
MARKER = re.compile(PATTERN)
COMMENT_PATTERN = r"<!--[ \t]*(" + _LABEL + r")[ \t]*-->"  # the comment form; group 1: the label
COMMENT = re.compile(COMMENT_PATTERN)
# Either form, one group: each opening is taken only where its own closing follows the label.
ANY_PATTERN = (
    r"(?:\[\^(?=" + _LABEL + r"\](?!:))|<!--[ \t]*(?=" + _LABEL + r"[ \t]*-->))(" + _LABEL + r")(?:\]|[ \t]*-->)"
)
ANY = re.compile(ANY_PATTERN)
# Substrings every marker of a form holds: a text holding neither holds no marker (fast paths test them first).
FOOTNOTE_OPENING = "[^c-"
COMMENT_OPENING = "<!--"
RST_OPENING = ".. c-"  # the reStructuredText form, a comment line of its own (rst_markers.py)
# The generated citations block (citations.py writes it between its BEGIN and END lines).
BLOCK = re.compile(r"\n*<!-- openwiki-git:citations:begin[^\n]*-->\n.*?<!-- openwiki-git:citations:end -->\n?", re.S)
_BEGIN = "<!-- openwiki-git:citations:begin"
_END = "<!-- openwiki-git:citations:end -->"


def may_hold(text: str) -> bool:
    """Whether `text` may hold a marker of either form (a substring test: False means none)."""
    return FOOTNOTE_OPENING in text or COMMENT_OPENING in text


def strip(text: str) -> str:
    """`text` without its markers of either form (nothing else changes)."""
    return ANY.sub("", text) if may_hold(text) else text


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
    """Labels used as markers in the prose, in either form (definitions and the generated block
    excluded): THE function that finds every marker label in a text."""
    prose = without_blocks(text)
    found = set(MARKER.findall(prose)) if FOOTNOTE_OPENING in prose else set()
    if COMMENT_OPENING in prose:
        found.update(COMMENT.findall(prose))
    if RST_OPENING in prose:  # a reStructuredText page's markers: comment lines (rst_markers.py)
        found |= rst_markers.labels_in(prose)
    return found


def as_comments(text: str) -> str:
    """`text` with every footnote marker of its prose in the comment form, after a space (a docs
    site's pages carry only invisible markers: store/site.py). Definitions are left alone."""
    if FOOTNOTE_OPENING not in text:
        return text
    return MARKER.sub(lambda m: " " + comment(m.group(1)), text)


def comment_only(text: str) -> set[str]:
    """Labels the prose carries as comment markers and never as footnotes: the claims the
    citations block gives no footnote."""
    prose = without_blocks(text)
    if COMMENT_OPENING not in prose:
        return set()
    return set(COMMENT.findall(prose)) - set(MARKER.findall(prose))
