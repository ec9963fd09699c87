"""A checked verdict (`Plan`) and what it does to the sidecar and to the page's prose (the
sentence carrying the claim's markers rewritten or removed: verdicts/prose.py). Pure: the page
arrives as text, times and actors as arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from openwiki_git.claims import fix as fixer
from openwiki_git.model import Claim, ClaimResult, Evidence, Sidecar
from openwiki_git.pages import citations, sentences
from openwiki_git.pages.frontmatter_core import body_start
from openwiki_git.verdicts import prose


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
    group: tuple[str, ...] = ()  # the other claims of the sentence, decided with it
    neighbour: tuple[str, str] | None = None  # retract: (the neighbouring sentence as the page has it, its rewrite)


class ProseEdit:
    """The edit of the page's prose a decision makes, called on the page as it is when it is
    written; a retraction keeps what it did to the sentence's paragraph (`said`, `warnings`)."""

    def __init__(self, plan: Plan, claim: Claim, group: tuple[str, ...], folded: tuple[str, ...] = ()) -> None:
        self.plan, self.claim, self.group, self.folded = plan, claim, group, folded
        self.said: str | None = None
        self.warnings: tuple[str, ...] = ()

    def __call__(self, text: str) -> str:
        plan, claim = self.plan, self.claim
        if plan.verdict == "retract":
            done = prose.retract(text, claim.id, claim.statement, self.group)
            self.said, self.warnings, text = done.said, done.warnings, done.text
            if plan.neighbour is not None:
                text = _rewrite_neighbour(text, *plan.neighbour)
                self.said += "; the neighbouring sentence rewritten"
                self.warnings = ()
            return text
        if plan.statement != claim.statement:
            text = prose.rewrite_sentence(text, claim.id, claim.statement, plan.statement, self.group)
        for cid in self.folded:  # one claim for the sentence now: the others' markers go
            text = _without_marker(text, cid)
        return text


def _without_marker(text: str, claim_id: str) -> str:
    body = body_start(text)
    return text[:body] + citations.remove_marker(text[body:], claim_id)


def _rewrite_neighbour(text: str, sentence: str, revised: str) -> str:
    """The neighbouring sentence, found as the page has it (white space aside), replaced."""
    body = body_start(text)
    for s in sentences.prose(text, body):
        if " ".join(text[s.start : s.stop].split()) == " ".join(sentence.split()):
            return text[: s.start] + revised.strip() + text[s.stop :]
    raise VerdictError(f"the neighbouring sentence {sentence[:120]!r} is not on the page any more")


def apply_plan(
    sidecar: Sidecar, plan: Plan, *, results: Mapping[str, ClaimResult], by: str, now: str
) -> tuple[Sidecar, ProseEdit]:
    """The sidecar after the decision and the edit of the page's prose. `results`: each claim of
    the decision (the claim and its group) as checked now. A confirm verifies each claim of the
    sentence on its own evidence; a revise gives the claim the new statement and evidence and
    folds the sentence's other claims into it (one claim per sentence); a retract removes them
    all, and the sentence."""
    claim = sidecar.claim(plan.claim_id)
    if claim is None:
        raise VerdictError(f"{plan.claim_id} is no longer on {sidecar.page}")
    group = tuple(c for c in plan.group if c != claim.id)
    missing = [c for c in group if sidecar.claim(c) is None]
    if missing:
        raise VerdictError(f"{missing[0]} is no longer on {sidecar.page}")
    if plan.verdict == "retract":  # a tombstone each: ground leaves the retracted sentence alone
        for cid in (claim.id, *group):
            gone = sidecar.claim(cid)
            assert gone is not None
            sidecar = sidecar.retracting(gone, by=by, at=now)
        return sidecar, ProseEdit(plan, claim, group)
    if plan.verdict == "confirm":
        for cid in (claim.id, *group):
            current = sidecar.claim(cid)
            result = results.get(cid)
            if current is None or result is None:
                raise VerdictError(f"{cid}: no check result to confirm against")
            verified = fixer.verify_claim(current, result, by=by, now=now)
            if verified is None:
                raise VerdictError(f"{cid}: some evidence is unresolved; it cannot be confirmed")
            sidecar = sidecar.with_claim(verified.replace(verified_by=by))
        return sidecar, ProseEdit(plan, claim, group)
    assert plan.evidence is not None
    revised = claim.replace(statement=plan.statement, evidence=plan.evidence, mark=None, verified_at=now, verified_by=by)
    sidecar = sidecar.with_claim(revised)
    for cid in group:
        sidecar = sidecar.without_claim(cid)
    return sidecar, ProseEdit(plan, claim, group, folded=group)
