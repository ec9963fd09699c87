"""How `ground` reads a page of each format, and where a claim's marker goes in it: the one place
a page format plugs in. Markdown is read by ground/refs.py's own block scanner (pages/sentences.py);
a reStructuredText page (`.rst`) through pages/rst.py's blocks, its markers a comment line after
the sentence's paragraph (pages/rst_markers.py)."""

from __future__ import annotations

from collections.abc import Iterable

from openwiki_git.errors import StoreError
from openwiki_git.formats import pagenames
from openwiki_git.ground import refs as ground_refs
from openwiki_git.ground.refs import PageRefs, Sentence
from openwiki_git.pages import citations, rst_markers


def page_blocks(page: str) -> ground_refs.Blocks | None:
    """How a page is read when it is not Markdown: a reStructuredText page through docutils."""
    if pagenames.is_rst(page):
        from openwiki_git.pages import rst

        return rst.blocks
    return None


def refs_of(page: str, text: str) -> PageRefs:
    """The page's references (ground/refs.py), read as its format reads."""
    return ground_refs.page_refs(text, page_blocks(page))


def sentences_of(page: str, text: str) -> list[Sentence]:
    """The page's prose sentences, read as its format reads."""
    return ground_refs.all_sentences(text, page_blocks(page))


def insert_markers(text: str, items: Iterable[tuple[Sentence, str]], page: str) -> str:
    """`text` with each claim's marker after its sentence (found again by its statement, the
    occurrence nearest the line it was read on); nothing else changes. In reStructuredText the
    marker is a comment line after the sentence's paragraph."""
    rst = pagenames.is_rst(page)
    blocks = page_blocks(page)
    ends: dict[int, list[str]] = {}
    sentences = ground_refs.all_sentences(text, blocks)
    for sentence, claim_id in items:
        same = [s for s in sentences if s.text == sentence.text]
        if not same:
            raise StoreError(f"{sentence.text[:60]!r}: the sentence is no longer in the page", "run ground again")
        at = min(same, key=lambda s: abs(s.line - sentence.line)).end
        ends.setdefault(at, []).append(citations.label(claim_id) if rst else citations.marker(claim_id))
    starts = {end: start for _, start, end in blocks(text)} if blocks is not None else {}
    for at in sorted(ends, reverse=True):
        if rst:
            text = rst_markers.insert(text, at, ends[at], rst_markers.indent_of(text, starts.get(at, at)))
        else:
            text = text[:at] + "".join(ends[at]) + text[at:]
    return text
