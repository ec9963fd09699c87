"""The sentence a claim's marker follows, edited for a verdict. Pure: text in, text out.

- `sentence_key`, `sentence_span`, `paragraph_of`: where the claim's sentence and paragraph are
  (claims whose markers follow one sentence, `[^c-a][^c-b]`, share it; a sentence another
  claim's marker follows too is edited only for a group holding every such claim);
- `rewrite_sentence`: the sentence replaced, its markers kept;
- `retract`: the sentence removed with its markers, saying what happened to its paragraph (the
  sentence removed and how many of its sentences are kept, or the paragraph or list item gone
  with it) and warning where what is left may no longer read right: a next sentence that points
  back ("Instead, …", "It also …"), or a retracted sentence that completed the one before it
  ("X, by contrast, …"); `neighbour` is that sentence, for "retract and rewrite the paragraph".
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from openwiki_git.pages import citations, examples, rst_markers, sentences
from openwiki_git.pages.frontmatter_core import body_start
from openwiki_git.pages.markers import ANY

__all__ = [
    "Retracted", "neighbour", "paragraph_of", "retract", "retract_sentence", "rewrite_sentence", "sentence_key", "sentence_span",
]

# A sentence that opens with these points back at the one before it.
_BACK = re.compile(
    r"^\W*(instead|also|however|but|otherwise|likewise|similarly|conversely|then|this|that|these|those|it|they|so|"
    r"therefore|thus|hence|moreover|furthermore|still|yet|besides|in contrast|by contrast|in addition|as a result|"
    r"even so|on the other hand|unlike)\b",
    re.I,
)
# A sentence holding these completes the one before it (the second half of a comparison).
_COMPLETES = re.compile(r"\b(by contrast|in contrast|instead|unlike|whereas|as well|too|also|however|on the other hand)\b", re.I)
_EMPTY_ITEM = re.compile(r"^[ \t]*(?:[-*+](?:[ \t]+\[[ xX]\])?|\d+[.)]|#{1,6}|>)?[ \t]*$")


def _prose_end(text: str) -> int:
    at = text.find("<!-- openwiki-git:citations:begin")
    return len(text) if at < 0 else at


def _find_marker(text: str, claim_id: str) -> tuple[int, int] | None:
    m = citations.own_marker(claim_id).search(text, body_start(text), _prose_end(text))
    return (m.start(), m.end()) if m else None


_GAP = re.compile(r"[ \t]*")


def _run(text: str, at: int, end: int, body: int) -> tuple[int, int]:
    """The run of markers (`[^c-a][^c-b]`, `<!-- c-a --> <!-- c-b -->`) holding the marker at
    `at`..`end`: its start and end."""
    while True:
        prev = [m for m in ANY.finditer(text, max(body, at - 80), at) if not text[m.end() : at].strip(" \t")]
        if not prev:
            break
        at = prev[-1].start()
    while True:
        gap = _GAP.match(text, end)
        nxt = ANY.match(text, gap.end()) if gap is not None else None
        if nxt is None:
            return at, end
        end = nxt.end()


def paragraph_of(page_text: str | None, claim_id: str) -> str | None:
    """The paragraph of the prose that carries the claim's marker (None when absent); for a code
    example's claim, the whole example with its marker line (pages/examples.py)."""
    if page_text is None:
        return None
    rst = _rst_paragraph(page_text, claim_id)
    if rst is not None:
        return rst
    found = _find_marker(page_text, claim_id)
    if found is None:
        return None
    at = found[0]
    example = examples.closed_by(page_text, at) if page_text.startswith("<!--", at) else None
    if example is not None:  # from its opening fence to the end of its marker line
        first = len("".join(page_text.splitlines(keepends=True)[: example.line - 1]))
        eol = page_text.find("\n", at)
        return page_text[first : len(page_text) if eol < 0 else eol]
    lo, hi = _paragraph(page_text, found[0])
    return page_text[lo:hi].strip("\n")


def _rst_paragraph(text: str, claim_id: str) -> str | None:
    """In reStructuredText: the paragraph the claim's marker line follows, with its marker lines;
    for a code example's claim, the example from its directive (or introducing paragraph)."""
    para = citations.rst_paragraph(text, claim_id)
    if para is None:
        return None
    ex = citations.rst_example(text, claim_id)
    start = len("".join(text.splitlines(keepends=True)[: ex.line - 1])) if ex is not None else text.rfind("\n", 0, para[0]) + 1
    stop, _ = rst_markers.following(text, para[1])
    return text[start:stop].strip("\n")


def _paragraph(text: str, at: int) -> tuple[int, int]:
    lo = text.rfind("\n\n", 0, at)
    lo = body_start(text) if lo < 0 else lo + 2
    hi = text.find("\n\n", at)
    return max(lo, body_start(text)), (len(text) if hi < 0 else hi)


def _others(text: str, start: int, end: int) -> list[sentences.Span]:
    """The other sentences of the prose block (paragraph or list item) holding `start`..`end`."""
    for kind, lo, hi in sentences.blocks(text, body_start(text)):
        if kind == "prose" and lo <= start < hi:
            return [s for s in sentences.split(text, lo, hi) if not (s.start < end and start < s.stop)]
    return []


def sentence_key(text: str, claim_id: str) -> int | None:
    """Where the run of markers after the claim's sentence starts: claims whose markers stand
    together after one sentence (`[^c-a][^c-b]`, as `ground` writes them) share it; None without
    the marker. (Markers apart are apart sentences, whatever the splitter makes of the text
    between them.)"""
    found = _find_marker(text, claim_id)
    return None if found is None else _run(text, *found, body_start(text))[0]


def sentence_span(text: str, claim_id: str, statement: str, group: Collection[str] = ()) -> tuple[int, int, int] | None:
    """(sentence start, its markers' start, its markers' end) of the claim's sentence; on a page
    without the marker, the statement's own span if it occurs exactly once. A sentence another
    claim's marker follows too is no one claim's (None), unless that claim is of `group` (the
    claims decided together)."""
    rst = citations.rst_sentence(text, claim_id, statement)
    if rst is not None:  # reStructuredText: the marker line follows the paragraph; the statement's sentence in it
        return rst[0], rst[1], rst[1]
    found = _find_marker(text, claim_id)
    stmt = statement.strip()
    if found is None:
        # A page without markers (an OpenWiki wiki): the statement itself, if it occurs once.
        body, prose_end = body_start(text), _prose_end(text)
        first = text.find(stmt, body, prose_end) if stmt else -1
        if first < 0 or text.find(stmt, first + 1, prose_end) >= 0:
            return None
        return first, first + len(stmt), first + len(stmt)
    body = body_start(text)
    at, end = _run(text, *found, body)
    span = sentences.before(text, at, body)  # the one splitter's sentence before the markers
    if span is None:
        if stmt and text[max(0, at - len(stmt)) : at] == stmt:
            return at - len(stmt), at, end
        return None
    labels = {citations.label(c) for c in (claim_id, *group)}
    if any(m.group(1)[:10] not in labels for m in ANY.finditer(text, span.start, end)):
        return None  # another claim's marker is in or after the sentence too: it is theirs as well, never edited for one
    return span.start, at, end


def rewrite_sentence(text: str, claim_id: str, old_statement: str, new_statement: str, group: Collection[str] = ()) -> str:
    """The sentence carrying the claim's marker replaced by `new_statement` (markers kept)."""
    span = sentence_span(text, claim_id, old_statement, group)
    if span is None:
        return text
    start, at, end = span
    old = text[start:at]
    core = old.rstrip()
    trailing = old[len(core) :]
    new = new_statement.strip()
    after = text[end : end + 1]
    if after in (".", "!", "?") and new[-1:] in (".", "!", "?"):
        new = new[:-1].rstrip()  # the page puts the full stop after the marker
    elif core[-1:] in (".", "!", "?") and new[-1:] not in (".", "!", "?"):
        new += core[-1]
    return text[:start] + new + trailing + text[at:]


@dataclass(frozen=True, slots=True)
class Retracted:
    """A retraction's page text, what happened to the sentence's paragraph, and what a person
    should look at in what is left."""

    text: str
    said: str
    warnings: tuple[str, ...] = ()


def retract_sentence(text: str, claim_id: str, statement: str, group: Collection[str] = ()) -> str:
    return retract(text, claim_id, statement, group).text


def retract(text: str, claim_id: str, statement: str, group: Collection[str] = ()) -> Retracted:
    """The sentence carrying the claim's marker removed with its markers (and the claim's
    marker everywhere else in the prose); see the module's docstring."""
    span = sentence_span(text, claim_id, statement, group)
    said = "its marker removed; the page's sentence was left as it is (no sentence of its own)"
    warnings: tuple[str, ...] = ()
    if span is not None:
        start, at, end = span
        removed = " ".join(text[start:at].split())
        kept = _others(text, start, end)
        after = next((text[s.start : s.stop] for s in kept if s.start >= end), None)
        before = next((text[s.start : s.stop] for s in reversed(kept) if s.stop <= start), None)
        warnings = _dangling(removed, before, after)
        if not text[start:at].rstrip().endswith((".", "!", "?")) and text[end : end + 1] in (".", "!", "?"):
            end += 1
        while end < len(text) and text[end] in " \t":
            end += 1
        while start > 0 and text[start - 1] in " \t" and (end >= len(text) or text[end] in "\r\n"):
            start -= 1
        line = text[text.rfind("\n", 0, start) + 1 : start].strip()
        text = text[:start] + text[end:]
        dropped = _drop_empty_line(text, start)
        if dropped != text:
            item = "list item" if line and (line[0] in "-*+" or line[0].isdigit()) else "paragraph"
            said = f"the sentence removed, and with it its {item} (nothing else was left in it)"
        else:
            said = f"the sentence removed; the {len(kept)} other sentence{'s' if len(kept) != 1 else ''} of its paragraph kept"
        text = dropped
    body, prose_end = body_start(text), _prose_end(text)
    prose = text[body:prose_end]
    for cid in (claim_id, *group):
        prose = citations.remove_marker(prose, cid)
    return Retracted(text[:body] + prose + text[prose_end:], said, warnings)


def _dangling(removed: str, before: str | None, after: str | None) -> tuple[str, ...]:
    out = []
    if after is not None and _BACK.match(after):
        out.append(f"the next sentence points back at the retracted one: {_short(after)!r}; rewrite it or the paragraph")
    if before is not None and _COMPLETES.search(removed):
        out.append(f"the retracted sentence completed the one before it: {_short(before)!r} may now read unfinished")
    return tuple(out)


def _short(sentence: str) -> str:
    plain = " ".join(ANY.sub("", sentence).split())
    return plain if len(plain) <= 120 else plain[:117] + "..."


def neighbour(text: str, claim_id: str, statement: str, group: Collection[str] = ()) -> str | None:
    """The sentence a retraction leaves dangling (the next one pointing back, else the one the
    retracted sentence completed), as the page has it; None when none does."""
    span = sentence_span(text, claim_id, statement, group)
    if span is None:
        return None
    start, _, end = span
    kept = _others(text, start, end)
    after = next((s for s in kept if s.start >= end), None)
    if after is not None and _BACK.match(text[after.start : after.stop]):
        return text[after.start : after.stop]
    before = next((s for s in reversed(kept) if s.stop <= start), None)
    if before is not None and _COMPLETES.search(text[start:end]):
        return text[before.start : before.stop]
    return None


def _drop_empty_line(text: str, at: int) -> str:
    """Remove the line around `at` if nothing but a list bullet, a quote mark or blanks is left,
    then collapse the blank lines that leaves behind."""
    ls = text.rfind("\n", 0, at) + 1
    le = text.find("\n", at)
    le = len(text) if le < 0 else le
    if not _EMPTY_ITEM.match(text[ls:le]):
        return text
    text = text[:ls] + text[le + 1 :]
    lo = max(0, ls - 2)  # at most one blank line where the paragraph was
    head, tail = text[:lo], text[lo:]
    tail = re.sub(r"^\n{3,}", "\n\n", tail)
    text = head + tail
    if ls >= len(text.rstrip("\n")):
        text = text.rstrip("\n") + "\n"
    return text
