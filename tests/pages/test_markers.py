"""One claim-marker rule (markers.MARKER) for citations, OKF's prose, ground's sentences and
the document splitter: `[^c-…]` is a marker, `[^c-…]:` (a footnote definition) is not. Before,
citations' and ground's copies also stripped the label of a definition."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from openwiki_git.ground import refs as ground_refs
from openwiki_git.markdown import refs as mdrefs
from openwiki_git.pages import citations, okf
from openwiki_git.pages.markers import BLOCK, MARKER, without_blocks

TEXT = "Line ten says ten.[^c-1a2b3c4d] See [^c-0123456789abcdef]: a definition."


def test_a_marker_but_not_a_definition() -> None:
    assert MARKER.findall(TEXT) == ["c-1a2b3c4d"]
    assert MARKER.findall("[^c-1234567] [^c-" + "a" * 33 + "] [^C-1A2B3C4D] [^c-1a2b3c4g]") == []


def test_every_reader_agrees() -> None:
    stripped = "Line ten says ten. See [^c-0123456789abcdef]: a definition."
    assert citations._norm(TEXT) == stripped
    assert ground_refs.statement_of(TEXT) == stripped
    assert okf.prose(TEXT) == stripped
    assert mdrefs.markers_in(TEXT) == ("c-1a2b3c4d",)
    assert citations.markers_in(TEXT) == {"c-1a2b3c4d"}


def test_ground_sentences_keep_their_marker_labels() -> None:
    text = "The pool holds twenty connections.[^c-1a2b3c4d] Another sentence follows here.\n"
    got = [(s.text, s.markers) for s, _, _ in ground_refs._sentences(text, 0, len(text), claimable=True)]
    assert got == [("The pool holds twenty connections.", ("c-1a2b3c4d",)), ("Another sentence follows here.", ())]


PIECES = ["\n", "x", "[^c-1a2b3c4d]", "-->", "<!-- openwiki-git:citations:begin", " (generated) -->",
          "<!-- openwiki-git:citations:end -->", "[^c-1a2b3c4d]: def", "\n\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24))
def test_the_block_found_by_str_find_is_the_regular_expressions(pieces) -> None:
    """without_blocks (str.find, for speed) removes exactly what BLOCK.sub removes."""
    text = "".join(pieces)
    assert without_blocks(text) == BLOCK.sub("", text)


def test_markers_in_a_rendered_page_leave_out_the_block() -> None:
    claim = "claim_1a2b3c4d" + "0" * 24
    page = f"# P\n\nA sentence.[^c-1a2b3c4d]\n\n{citations.BEGIN}\n[^c-1a2b3c4d]: x [^c-ffffffff]\n{citations.END}\nAfter.[^c-eeeeeeee]\n"
    assert citations.markers_in(page) == {"c-1a2b3c4d", "c-eeeeeeee"} and citations.label(claim) == "c-1a2b3c4d"
