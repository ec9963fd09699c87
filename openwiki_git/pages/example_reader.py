"""A page's code examples whichever its syntax: Markdown's fenced blocks (pages/examples.py) or
reStructuredText's code blocks (pages/rst_examples.py), and the example a claim's marker closes.
Pure.

A page is read as reStructuredText when the caller says so (`ground` knows the page's name), or,
when it does not, when the page carries a reST marker line (`.. c-1a2b3c4d`): the check side has
only the text, and a Markdown page never holds such a line.
"""

from __future__ import annotations

from openwiki_git.pages import examples as markdown_examples
from openwiki_git.pages import rst_examples, rst_markers
from openwiki_git.pages.examples import Example


def is_rst_text(text: str) -> bool:
    """Whether a page read without its name is reStructuredText: it carries a reST marker line."""
    return ".. c-" in text and rst_markers.LINE.search(text) is not None


def read(text: str, rst: bool | None = None) -> list[Example]:
    """The page's code examples, in order; `rst`: the page's syntax (None: `is_rst_text`)."""
    if rst if rst is not None else is_rst_text(text):
        return rst_examples.examples(text)
    return markdown_examples.examples(text)


def closed_by(text: str, at: int, found: list[Example] | None = None) -> Example | None:
    """The example whose marker holds offset `at` (a marker's start: a comment after a fence, or
    a reST marker line after a code block), or None. `found`: the page's examples already read."""
    if text.startswith("<!--", at):
        return markdown_examples.closed_by(text, at, found)
    if text[at : at + 80].lstrip(" \t").startswith(".. c-"):  # a reST marker line, from its indentation
        return rst_examples.closed_by(text, at, found)
    return None
