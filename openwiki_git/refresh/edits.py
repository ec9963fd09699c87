"""A checked verdict (`Plan`) and what it does to the sidecar and to the page's prose. Pure: the
page arrives as text, times and actors as arguments.

- `apply_plan`: the plan as a new sidecar plus an edit of the page's prose (the sentence carrying
  the claim's marker rewritten or removed).
- `paragraph_of`, `sentence_span`: where the claim's marker is in the prose, the paragraph and the
  sentence it ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from openwiki_git.claims import fix as fixer
from openwiki_git.model import ClaimResult, Evidence, Sidecar
from openwiki_git.pages import citations, examples, sentences
from openwiki_git.pages.frontmatter_core import body_start
from openwiki_git.pages.markers import ANY


class VerdictError(ValueError):
    """An answer that cannot be applied; str(e) says why, in words the model can act on."""


@dataclass(frozen=True, slots=True)
class Plan:
    """A verdict that passed every check, ready to apply."""

    claim_id: str
    verdict: str
    statement: str  # the statement after the decision (unchanged for confirm and retract)
    evidence: tuple[Evidence, ...] | None  # revise: the new evidence, resolved at literal lines
    cited: tuple[str, ...] = ()
    rationale: str = ""
    notes: tuple[str, ...] = field(default=())  # for the reviewer: quotes of comments, instruction-like text
    quotes: tuple[tuple[str, str], ...] = ()  # (resource, quote) as the model cited them, checked


def paragraph_of(page_text: str | None, claim_id: str) -> str | None:
    """The paragraph of the prose that carries the claim's marker (None when absent); for a code
    example's claim, the whole example with its marker line (pages/examples.py)."""
    if page_text is None:
        return None
    found = _find_marker(page_text, claim_id)
    if found is None:
        return None
    at = found[0]
    example = examples.closed_by(page_text, at) if page_text.startswith("<!--", at) else None
    if example is not None:  # from its opening fence to the end of its marker line
        first = len("".join(page_text.splitlines(keepends=True)[: example.line - 1]))
        eol = page_text.find("\n", at)
        return page_text[first : len(page_text) if eol < 0 else eol]
    lo = page_text.rfind("\n\n", 0, at)
    lo = body_start(page_text) if lo < 0 else lo + 2
    hi = page_text.find("\n\n", at)
    hi = len(page_text) if hi < 0 else hi
    return page_text[max(lo, body_start(page_text)) : hi].strip("\n")


def apply_plan(
    sidecar: Sidecar, plan: Plan, *, result: ClaimResult | None, by: str, now: str
) -> tuple[Sidecar, Callable[[str], str]]:
    """The sidecar after the decision and the edit of the page's prose."""
    claim = sidecar.claim(plan.claim_id)
    if claim is None:
        raise VerdictError(f"{plan.claim_id} is no longer on {sidecar.page}")
    if plan.verdict == "retract":
        return sidecar.retracting(claim, by=by, at=now), lambda text: retract_sentence(text, claim.id, claim.statement)
    if plan.verdict == "confirm":
        if result is None:
            raise VerdictError("no check result to confirm against")
        verified = fixer.verify_claim(claim, result, by=by, now=now)
        if verified is None:
            raise VerdictError(f"{claim.id}: some evidence is unresolved; it cannot be confirmed")
        verified = verified.replace(verified_by=by)
        return sidecar.with_claim(verified), lambda text: text
    assert plan.evidence is not None
    revised = claim.replace(statement=plan.statement, evidence=plan.evidence, mark=None, verified_at=now, verified_by=by)
    if plan.statement == claim.statement:
        return sidecar.with_claim(revised), lambda text: text
    return sidecar.with_claim(revised), lambda text: rewrite_sentence(text, claim.id, claim.statement, plan.statement)


def _prose_end(text: str) -> int:
    at = text.find("<!-- openwiki-git:citations:begin")
    return len(text) if at < 0 else at


def _find_marker(text: str, claim_id: str) -> tuple[int, int] | None:
    m = citations.own_marker(claim_id).search(text, body_start(text), _prose_end(text))
    return (m.start(), m.end()) if m else None


def sentence_span(text: str, claim_id: str, statement: str) -> tuple[int, int, int] | None:
    """(sentence start, marker start, marker end) of the first marker of the claim in the prose;
    on a page without the marker, the statement's own span if it occurs exactly once. In
    reStructuredText the marker line follows the paragraph: the statement's sentence in it."""
    rst = citations.rst_sentence(text, claim_id, statement)
    if rst is not None:
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
    at, end = found
    if stmt and text[max(0, at - len(stmt)) : at] == stmt:
        return at - len(stmt), at, end
    span = sentences.before(text, at, body_start(text))  # the one splitter's sentence before the marker
    if span is None or span.stop < at and ANY.search(text, span.stop, at):
        return None  # another claim's marker follows the sentence too: it is theirs as well, never edited for one
    return span.start, at, end


def rewrite_sentence(text: str, claim_id: str, old_statement: str, new_statement: str) -> str:
    """The sentence carrying the claim's marker replaced by `new_statement` (marker kept)."""
    span = sentence_span(text, claim_id, old_statement)
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


def retract_sentence(text: str, claim_id: str, statement: str) -> str:
    """The sentence carrying the claim's marker removed, with the marker (everywhere in the prose)."""
    span = sentence_span(text, claim_id, statement)
    if span is not None:
        start, at, end = span
        if not text[start:at].rstrip().endswith((".", "!", "?")) and text[end : end + 1] in (".", "!", "?"):
            end += 1
        while end < len(text) and text[end] in " \t":
            end += 1
        while start > 0 and text[start - 1] in " \t" and (end >= len(text) or text[end] in "\r\n"):
            start -= 1
        text = text[:start] + text[end:]
        text = _drop_empty_line(text, start)
    # Other uses of the marker in the prose (a second sentence citing it) lose the marker only.
    body, prose_end = body_start(text), _prose_end(text)
    prose = citations.remove_marker(text[body:prose_end], claim_id)
    return text[:body] + prose + text[prose_end:]


_EMPTY_ITEM = re.compile(r"^[ \t]*(?:[-*+](?:[ \t]+\[[ xX]\])?|\d+[.)]|#{1,6}|>)?[ \t]*$")


def _drop_empty_line(text: str, at: int) -> str:
    """Remove the line around `at` if nothing but a list bullet, a quote mark or blanks is left,
    then collapse the blank lines that leaves behind."""
    ls = text.rfind("\n", 0, at) + 1
    le = text.find("\n", at)
    le = len(text) if le < 0 else le
    if not _EMPTY_ITEM.match(text[ls:le]):
        return text
    text = text[:ls] + text[le + 1 :]
    # At most one blank line where the paragraph was.
    lo = max(0, ls - 2)
    head, tail = text[:lo], text[lo:]
    tail = re.sub(r"^\n{3,}", "\n\n", tail)
    text = head + tail
    if ls >= len(text.rstrip("\n")):
        text = text.rstrip("\n") + "\n"
    return text
