"""reStructuredText pages (issue 35): blocks read with docutils, the marker comment line placed
after the sentence's paragraph, found, read back and removed, and docutils' own reading of the
result (no warning, the comment invisible in the HTML it writes)."""

from __future__ import annotations

import io
import re

import pytest

from openwiki_git.pages import citations, rst, rst_markers
from openwiki_git.pages.markers import markers_in

PAGE = """\
Shop
====

The shop sells *fruit*. :class:`shop.Cart` holds the lines of one order.

- A list item that says
  something long.
- Another item.

.. note::

   The notes are prose too.

To install it, run::

    pip install shop

.. code-block:: python
   :caption: example

   cart = Cart()

.. testcode::

   print(total(cart))

>>> total(Cart())
0

.. toctree::
   :maxdepth: 2

   guide
   api

.. versionadded:: 2.0
   The function :func:`shop.total` counts the items.

+-------+--------+
| cell  | words  |
+-------+--------+

Term
   A definition in prose.
"""


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(kind, text[start:end]) for kind, start, end in rst.blocks(text)]


def test_blocks_are_prose_code_or_other() -> None:
    assert _kinds(PAGE) == [
        ("other", "Shop"),
        ("prose", "The shop sells *fruit*. :class:`shop.Cart` holds the lines of one order."),
        ("prose", "A list item that says\n  something long."),
        ("prose", "Another item."),
        ("prose", "The notes are prose too."),
        ("other", "To install it, run::"),  # a marker after it would take the literal block's place
        ("code", "pip install shop"),
        ("code", "cart = Cart()"),
        ("code", "print(total(cart))"),
        ("code", ">>> total(Cart())\n0"),
        ("prose", "The function :func:`shop.total` counts the items."),
        ("other", "cell"),
        ("other", "words"),
        ("other", "Term"),
        ("prose", "A definition in prose."),
    ]


def test_roles_and_unknown_markup_do_not_stop_the_reading() -> None:
    text = "Intro :unknownrole:`x` and :py:meth:`~a.B.c` here.\n\n.. madeup:: arg\n\n   Body text.\n\nLast `broken link.\n"
    assert [k for k, _ in _kinds(text)] == ["prose", "prose", "prose"]
    assert rst.roles(text) == [("unknownrole", "x", 6), ("py:meth", "~a.B.c", 27)]


def _docutils(text: str) -> tuple[str, str]:
    from docutils.core import publish_string

    warnings = io.StringIO()
    html = publish_string(text, writer="html", settings_overrides={"warning_stream": warnings, "report_level": 1})
    return warnings.getvalue(), html.decode("utf-8")


def test_marker_lines_follow_the_paragraph_and_stay_invisible() -> None:
    text = "Title\n=====\n\nOne sentence here. Two here.\nNext para.\n\n- item one\n  goes on.\n- item two\n"
    para_end = text.index("Next para.") + len("Next para.")
    text = rst_markers.insert(text, para_end, ["c-11111111"], "")
    text = rst_markers.insert(text, para_end, ["c-22222222"], "")
    item = text.index("item one")
    end = text.index("goes on.") + len("goes on.")
    text = rst_markers.insert(text, end, ["c-33333333"], rst_markers.indent_of(text, item))
    assert text == (
        "Title\n=====\n\nOne sentence here. Two here.\nNext para.\n\n.. c-11111111\n.. c-22222222\n\n"
        "- item one\n  goes on.\n\n  .. c-33333333\n\n- item two\n"
    )
    assert markers_in(text) == {"c-11111111", "c-22222222", "c-33333333"}
    warnings, html = _docutils(text)
    shown = re.sub(r"<!--.*?-->", "", html, flags=re.S)  # docutils writes a comment as an HTML comment; Sphinx drops it
    assert warnings == "" and "c-1111" not in shown and "c-3333" not in shown and html.count("<li>") == 2
    assert rst_markers.following(text, para_end) == (text.index("\n\n- item"), ["c-11111111", "c-22222222"])
    para = rst_markers.paragraph_before(text, rst_markers.marker_at(text, "c-22222222"))
    assert para is not None and text[para[0] : para[1]] == "One sentence here. Two here.\nNext para."
    text = rst_markers.remove(text, "c-11111111")
    assert "c-11111111" not in text and ".. c-22222222" in text
    text = rst_markers.remove(text, "c-22222222")
    assert text.startswith("Title\n=====\n\nOne sentence here. Two here.\nNext para.\n\n- item one")


CLAIM = "claim_" + "ab" * 16


def test_citations_read_and_write_the_rst_marker() -> None:
    text = "Intro.\n\nThe cart holds\nthe lines. It is small.\n\n.. note::\n\n   Nested prose is here.\n"
    placed = citations.insert_marker(text, "The cart holds the lines.", CLAIM, rst=True)
    assert placed == "Intro.\n\nThe cart holds\nthe lines. It is small.\n\n.. c-abababab\n\n.. note::\n\n   Nested prose is here.\n"
    assert citations.insert_marker(placed, "The cart holds the lines.", CLAIM, rst=True) is None  # there already
    assert citations.has_marker(placed, CLAIM)
    assert citations.states(placed, CLAIM, "The cart holds the lines.") is True
    assert citations.states(placed, CLAIM, "It is large.") is False
    assert citations.prose_before(placed, CLAIM) == "The cart holds the lines. It is small."
    assert citations.sentence_line(placed, CLAIM, "The cart holds the lines.") == 3
    assert citations.marker_lines(placed, [CLAIM], statements={CLAIM: "The cart holds the lines."}) == {CLAIM: 3}
    assert citations.rst_sentence(placed, CLAIM, "The cart holds the lines.") == (8, 33)
    assert citations.remove_marker(placed, CLAIM) == text
    nested = citations.insert_marker(text, "Nested prose is here.", CLAIM, rst=True)
    assert nested is not None and nested.endswith("   Nested prose is here.\n\n   .. c-abababab\n")
    assert _docutils(nested)[0] == ""
    assert citations.insert_marker(text, "Not in the page.", CLAIM, rst=True) is None


@pytest.mark.parametrize(
    "literal", ["Example::\n\n    The cart holds the lines.\n", ".. code-block:: text\n\n   The cart holds the lines.\n"]
)
def test_a_literal_or_directive_line_is_no_place_for_a_marker(literal: str) -> None:
    assert citations.insert_marker(literal, "The cart holds the lines.", CLAIM, rst=True) is None


def test_a_claims_line_is_its_sentences_in_rst_as_in_markdown() -> None:
    """check and review name the line where the claim's sentence starts: in reST too, where the
    marker line follows the paragraph (not the paragraph's first line)."""
    other = "claim_" + "cd" * 16
    text = "Title\n=====\n\nThe cart holds the lines. It\nis small. It never\ngrows past ten.\n"
    for cid, statement in ((CLAIM, "It is small."), (other, "It never grows past ten.")):
        placed = citations.insert_marker(text, statement, cid, rst=True)
        assert placed is not None
        text = placed
    said = {CLAIM: "It is small.", other: "It never grows past ten."}
    assert [citations.sentence_line(text, cid, said[cid]) for cid in (CLAIM, other)] == [4, 5]
    assert citations.marker_lines(text, [CLAIM, other], statements=said) == {CLAIM: 4, other: 5}
    # the page says something else now, or no statement is given: the paragraph's first line
    assert citations.sentence_line(text, CLAIM, "It is large.") == citations.sentence_line(text, CLAIM) == 4
    assert citations.marker_lines(text, [CLAIM]) == {CLAIM: 4}
    # Markdown, a site's comment markers: the line where the sentence before the marker starts
    md = "# Title\n\nThe cart holds the lines. It\nis small. <!-- c-abababab --> It never\ngrows past ten. <!-- c-cdcdcdcd -->\n"
    assert [citations.sentence_line(md, cid, said[cid]) for cid in (CLAIM, other)] == [3, 4]
    assert citations.marker_lines(md, [CLAIM, other], statements=said) == {CLAIM: 3, other: 4}
