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


# The comment form, `<!-- c-1a2b3c4d -->`: the same label, found by every reader the footnote is.
COMMENTED = "Line ten says ten. <!-- c-1a2b3c4d --> Then <!--c-0123456789abcdef--> a <!-- note --> remark.\n"


def test_the_comment_form_is_a_marker_everywhere() -> None:
    from openwiki_git.markdown import keys as mdkeys
    from openwiki_git.pages import markers

    assert markers.markers_in(COMMENTED) == {"c-1a2b3c4d", "c-0123456789abcdef"}
    assert markers.ANY.findall(COMMENTED) == ["c-1a2b3c4d", "c-0123456789abcdef"]
    assert markers.comment("c-1a2b3c4d") == "<!-- c-1a2b3c4d -->" and markers.footnote("c-1a2b3c4d") == "[^c-1a2b3c4d]"
    stripped = "Line ten says ten. Then a <!-- note --> remark."
    assert citations._norm(COMMENTED) == stripped
    assert ground_refs.statement_of(COMMENTED) == stripped
    assert " ".join(okf.prose(COMMENTED).split()) == stripped
    assert mdrefs.markers_in(COMMENTED) == ("c-1a2b3c4d", "c-0123456789abcdef")
    assert citations.markers_in(COMMENTED) == {"c-1a2b3c4d", "c-0123456789abcdef"}
    # paragraph keys ignore it as they ignore a footnote marker
    assert mdkeys.key_text(COMMENTED) == mdkeys.key_text(COMMENTED.replace("<!-- c-1a2b3c4d -->", "[^c-1a2b3c4d]"))
    assert mdkeys.paragraph_hashes([COMMENTED]) == mdkeys.paragraph_hashes([markers.strip(COMMENTED)])


def test_forms_never_mix_and_the_label_is_bounded() -> None:
    from openwiki_git.pages import markers

    assert markers.ANY.findall("[^c-1a2b3c4d --> <!-- c-1a2b3c4d] <!-- c-1234567 --> <!-- c-" + "a" * 33 + " -->") == []
    assert markers.ANY.findall("[^c-1a2b3c4d]: def <!-- C-1A2B3C4D -->") == []
    assert markers.markers_in(f"A.\n\n{citations.BEGIN}\n<!-- c-1a2b3c4d -->\n{citations.END}\n") == set()


def test_sentences_end_before_a_comment_marker_which_belongs_to_them() -> None:
    from openwiki_git.pages import sentences

    text = "The pool holds twenty connections. <!-- c-1a2b3c4d --> Another sentence follows here.\n"
    spans = sentences.split(text)
    assert [text[s.start : s.stop] for s in spans] == ["The pool holds twenty connections.", "Another sentence follows here."]
    assert text[spans[0].stop : spans[0].end] == " <!-- c-1a2b3c4d -->"
    got = [(s.text, s.markers) for s, _, _ in ground_refs._sentences(text, 0, len(text), claimable=True)]
    assert got == [("The pool holds twenty connections.", ("c-1a2b3c4d",)), ("Another sentence follows here.", ())]


def test_a_commented_claim_is_found_stated_and_removed() -> None:
    cid = "claim_1a2b3c4d" + "0" * 24
    page = (
        "---\ntype: Reference\n---\n\n# P\n\nThe pool holds twenty connections. <!-- c-1a2b3c4d -->\n\n"
        "```python\nx = 1\n```\n<!-- c-1a2b3c4d -->\n\nAfter.\n"
    )
    assert citations.has_marker(page, cid)
    assert citations.states(page, cid, "The pool holds twenty connections.") is True
    assert citations.prose_before(page, cid) == "The pool holds twenty connections."
    assert citations.sentence_line(page, cid) == 7
    assert citations.marker_lines(page, [cid]) == {cid: 7}
    assert citations.insert_marker(page, "After.", cid) is None  # the claim has its marker already
    # retracting removes both forms; a comment alone on its line goes with the line
    assert citations.remove_marker(page, cid) == page.replace(" <!-- c-1a2b3c4d -->", "").replace("```\n<!-- c-1a2b3c4d -->\n", "```\n")


def test_the_citations_block_gives_a_comment_marker_no_footnote() -> None:
    from openwiki_git.pages.markers import comment_only

    page = "A. <!-- c-1a2b3c4d -->\n\nB.[^c-99999999] C. <!-- c-99999999 -->\n\nD.\n"
    assert comment_only(page) == {"c-1a2b3c4d"}  # c-99999999 has a footnote too; the missing one keeps its definition
