"""The doc side of a claim (issue 32, item 6): a change that rewrites the sentence carrying a
claim, or deletes it with its marker. Pure: the page's text on the diff's two sides and the claim
in, what became of its sentence out. The hook and `check --base` ask it through hook/engine.py's
`evaluate`, so they agree by construction; `check` then reads the mark the hook wrote.

- The sentence **changed**: the old side's page stated the claim (pages/citations.states), the
  new side's carries its marker after other words, and the sidecar still holds the old statement
  (a claim the change restated with its page, as `claim edit`, the refresher and `review` do, is
  the tool's own rewrite, not a person's). The claim is stale with the cause "its sentence changed"
  (re-check it against the code), and its statement follows the new sentence.
- The sentence was **deleted** with its marker (the page is still there): the claim is retracted,
  its tombstone recorded as `claim retract` records it.

White space, line wrapping and markers never count (states compares normalised text).
"""

from __future__ import annotations

import difflib
from typing import Literal

from openwiki_git.model import Cause, Claim, Mark
from openwiki_git.pages import citations

SENTENCE_CHANGED = "its sentence changed"

Fate = tuple[Literal["changed", "deleted"], str]  # what became of the sentence, and the new one ("" when deleted)


def fate(old_text: str | None, new_text: str | None, before: Claim | None, claim: Claim) -> Fate | None:
    """What the change did to the claim's sentence; None when nothing it is this rule's to say."""
    if old_text is None or new_text is None or old_text == new_text or before is None or before.statement != claim.statement:
        return None
    if citations.states(old_text, claim.id, claim.statement) is not True:
        return None  # the old side did not state it (a marker being placed, an OpenWiki page): nothing to compare
    now = citations.states(new_text, claim.id, claim.statement)
    if now is True:
        return None
    if now is None:
        return "deleted", ""
    return "changed", sentence_now(new_text, claim)


def sentence_now(text: str, claim: Claim) -> str:
    """The sentence that carries the claim's marker now: the one before it; in reStructuredText
    (its marker follows the paragraph) the paragraph's sentence nearest the old statement."""
    said = citations.prose_before(text, claim.id) or ""
    if not citations.is_rst_marked(text, claim.id):
        return said
    sentences = citations.paragraph_sentences(text, claim.id)
    if not sentences:
        return said
    return max(sentences, key=lambda s: difflib.SequenceMatcher(None, s, claim.statement).ratio())


def restated_here(claim: Claim, before: Claim | None, commit: str | None) -> bool:
    """Whether an earlier run on this base (the hook stopped, then the same commit again) already
    restated the claim and marked it for its sentence: then it is judged as the old side stated it,
    and the mark it wrote is kept as it is (the hook converges in one run)."""
    if before is None or claim.mark is None or claim.mark.commit != commit or claim.statement == before.statement:
        return False
    return any(c.reason == _reason(before.statement) for c in claim.mark.causes)


def _reason(statement: str) -> str:
    return f"{SENTENCE_CHANGED}: it said {statement!r}"


def marked(claim: Claim, new_statement: str, *, page_path: str, now: str, commit: str | None) -> Claim:
    """The claim restated as its page now says it and marked stale with the cause "its sentence
    changed" (joining a mark it has: the code side may have marked it in the same change)."""
    cause = Cause(f"repo://{page_path}", _reason(claim.statement))
    mark = claim.mark
    if mark is None:
        mark = Mark("stale", now, (cause,), commit)
    elif cause not in mark.causes:
        mark = Mark(mark.status, mark.since, (*mark.causes, cause), mark.commit)
    return claim.replace(statement=new_statement, mark=mark)
