"""What the staleness engine says of a claim and of each evidence item: as stored, as it should
be stored now, and why. Pure records; the hook marks and CI reports from them.
"""

from __future__ import annotations

from dataclasses import dataclass

from openwiki_git.diff.hunks import Hunk
from openwiki_git.evidence.resource import REPO_PREFIX
from openwiki_git.model import Cause, Claim, Evidence, EvidenceResult, Status

__all__ = ["ClaimOutcome", "EvidenceOutcome"]


@dataclass(frozen=True, slots=True)
class EvidenceOutcome:
    """One evidence item: as stored (`before`), as it should be stored now (`after`), and why."""

    before: Evidence
    after: Evidence
    status: Status
    reason: str
    current_resource: str | None  # where the cited text is on the new side (None: unresolved)
    hunks: tuple[Hunk, ...] = ()
    old_lines: tuple[int, int] | None = None
    new_lines: tuple[int, int] | None = None
    path: str | None = None  # the file on the new side, when it is not the cited one
    current_version: str | None = None  # the token of the text now (refreshed anchors)
    blob: str | None = None  # the new side's blob, when read
    verified_blob: str | None = None  # the blob whose `old_lines` hold the verified text, when known
    cited: str | None = None  # the resource as the old side cites it, when `before` is stored otherwise

    @property
    def hunk(self) -> str | None:
        return ", ".join(h.header for h in self.hunks) or None

    def result(self) -> EvidenceResult:
        return EvidenceResult(
            self.before.resource,
            self.status,
            self.current_resource,
            self.reason,
            self.current_version,
            self.blob,
            self.hunk,
        )

    def cause(self) -> Cause:
        return Cause(
            self.cited or self.before.resource, self.reason, self.hunk, self.old_lines, self.new_lines, self.path, self.verified_blob
        )

    def describe(self) -> str:
        """`path#Lx-Ly changed by @@ -a,b +c,d @@`: where the text is now, what happened, which hunk."""
        where = (self.current_resource or self.before.resource).removeprefix(REPO_PREFIX)
        return f"{where} {self.reason}" + (f" by {self.hunk}" if self.hunk else "")


@dataclass(frozen=True, slots=True)
class ClaimOutcome:
    page: str
    before: Claim
    after: Claim
    status: Status
    evidence: tuple[EvidenceOutcome, ...]
    affected: bool  # the diff touched a cited file, or the claim is new or changed since the old side
    broken: tuple[tuple[str, str], ...] = ()  # a guarded example's broken calls: (the call, why) (claims/examples.py)

    @property
    def changed(self) -> bool:
        return self.after != self.before

    @property
    def newly_flagged(self) -> bool:
        """This judgement marks the claim, or makes its mark worse (stale -> unresolved): what a
        commit stops for. A mark already written (by an earlier run, or committed) is not new."""
        new, old = self.after.mark, self.before.mark
        return new is not None and (old is None or (new.status == "unresolved" and old.status != "unresolved"))

    def describe(self) -> str:
        """The stale or unresolved evidence, for the hook's one line per claim."""
        parts = [o.describe() for o in self.evidence if o.status != "fresh"] + self.page_causes()
        if not parts and self.before.mark is not None:
            parts = ["marked earlier; the cited text is back to its verified version"]
        parts += [f"breaks `{call}`: {why}" for call, why in self.broken]
        return "; ".join(parts)

    def page_causes(self) -> list[str]:
        """The causes this judgement found in the page itself (claims/sentence.py: its sentence
        changed), which no evidence item carries, as `path: reason`."""
        return [f"{c.resource.removeprefix(REPO_PREFIX)}: {c.reason}" for c in self.new_page_causes()]

    def new_page_causes(self) -> list[Cause]:
        had = self.before.mark.causes if self.before.mark is not None else ()
        now = self.after.mark.causes if self.after.mark is not None else ()
        return [c for c in now if c not in had and not self._cited(c)]

    def _cited(self, cause: Cause) -> bool:
        return any(o.cause() == cause for o in self.evidence)

    def notes(self) -> list[str]:
        """check's notes on the claim: its mark's causes, then the example calls the change broke."""
        causes = self.before.mark.causes if self.before.mark is not None else ()
        notes = [f"{c.resource}: {c.reason}" + (f" by {c.hunk}" if c.hunk else "") for c in causes]
        return notes + self.page_causes() + [f"breaks `{call}`: {why}" for call, why in self.broken]
