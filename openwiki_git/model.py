"""Plain records for claims and their evidence. Pure: no I/O.

A sidecar is OpenWiki's format (`schemaVersion: 1`); the fields marked "openwiki-git" are our
optional additions. All of them may be omitted, so a sidecar we write can always be reduced to one
OpenWiki's strict reader accepts (`Sidecar.for_openwiki()`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["fresh", "stale", "unresolved"]
STATUSES: tuple[Status, ...] = ("fresh", "stale", "unresolved")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One cited resource and the token recorded when it was last established."""

    resource: str  # canonical repo:// URI; its #Lx-Ly follows the text (no hint drift)
    version: str  # repo-file-v1:… or repo-lines-v1:… of the text as last verified
    blob: str | None = None  # openwiki-git: git blob id of the cited file when verified


@dataclass(frozen=True, slots=True)
class Cause:
    """Why a claim was marked: one changed evidence item and the hunk that changed it."""

    resource: str  # the evidence resource as it was cited before the change
    reason: str  # "changed", "deleted", "renamed and changed", "binary", ...
    hunk: str | None = None  # "@@ -10,2 +10,3 @@" of the staged or PR diff
    old_lines: tuple[int, int] | None = None  # 1-based inclusive, old side
    new_lines: tuple[int, int] | None = None  # 1-based inclusive, new side
    path: str | None = None  # the file now, when renamed
    blob: str | None = None  # the git blob whose old_lines hold the verified text (`git cat-file -p`)


@dataclass(frozen=True, slots=True)
class Mark:
    """openwiki-git: a claim found stale by the hook or the CI check, until something verifies it."""

    status: Literal["stale", "unresolved"]
    since: str  # ISO 8601 with offset
    causes: tuple[Cause, ...] = ()
    commit: str | None = None  # the commit the change was measured against, when known


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    statement: str
    evidence: tuple[Evidence, ...]
    verified_at: str | None = None  # openwiki-git: last verification (ISO 8601 with offset)
    verified_by: str | None = None  # openwiki-git: actor, e.g. "human:alice", "openwiki-git/0.1.0"
    mark: Mark | None = None  # openwiki-git: present while the claim is known stale

    def replace(self, **changes: object) -> Claim:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Verification:
    by: str
    at: str


@dataclass(frozen=True, slots=True)
class Retracted:
    """openwiki-git: a claim retracted from the page (its tombstone): `ground` does not ground its
    sentence again unless asked (`--reground-retracted`)."""

    statement: str
    claim: str  # the retracted claim's id
    at: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Sidecar:
    """One page's claims. `page` is the page path relative to the wiki directory (`guides/a.md`)."""

    page: str
    page_version: str
    claims: tuple[Claim, ...] = ()
    verification: Verification | None = None
    # openwiki-git: (old id, the id it resolves to now): claims of one sentence merged into one
    aliases: tuple[tuple[str, str], ...] = ()
    retracted: tuple[Retracted, ...] = ()  # openwiki-git: tombstones of retracted claims

    def replace(self, **changes: object) -> Sidecar:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def claim(self, claim_id: str) -> Claim | None:
        return next((c for c in self.claims if c.id == claim_id), None)

    def with_claim(self, claim: Claim) -> Sidecar:
        """Replace the claim with the same id, keeping order."""
        return self.replace(claims=tuple(claim if c.id == claim.id else c for c in self.claims))

    def without_claim(self, claim_id: str) -> Sidecar:
        return self.replace(claims=tuple(c for c in self.claims if c.id != claim_id))

    def retracting(self, claim: Claim, *, by: str | None, at: str) -> Sidecar:
        """The sidecar without `claim`, its tombstone recorded (the statement `ground` leaves
        alone from now on) and the aliases that resolved to it dropped."""
        tomb = Retracted(claim.statement, claim.id, at, by)
        kept = tuple(t for t in self.retracted if t.statement != claim.statement)
        return self.without_claim(claim.id).replace(
            retracted=(*kept, tomb), aliases=tuple(a for a in self.aliases if a[1] != claim.id)
        )

    def alias_target(self, claim_id: str) -> str | None:
        """The id an old (merged) claim id resolves to on this page, or None."""
        return next((new for old, new in self.aliases if old == claim_id), None)

    def for_openwiki(self) -> Sidecar:
        """The same sidecar with every openwiki-git addition dropped (for OpenWiki's strict reader)."""
        claims = tuple(
            Claim(c.id, c.statement, tuple(Evidence(e.resource, e.version) for e in c.evidence))
            for c in self.claims
        )
        return self.replace(claims=claims, verification=self.verification if claims else None, aliases=(), retracted=())


@dataclass(frozen=True, slots=True)
class FileText:
    """A file's text as git stores it, or why there is none (`problem`)."""

    path: str
    text: str | None
    blob: str | None = None
    problem: str | None = None  # "missing", "not tracked by git", "symlink (refused)", "binary file", ...


@dataclass(frozen=True, slots=True)
class EvidenceResult:
    """What the check found for one evidence item."""

    resource: str  # as stored
    status: Status
    current_resource: str | None  # where the cited text is now (None when unresolved)
    reason: str
    current_version: str | None = None  # the token of the text now (refreshed anchors)
    blob: str | None = None  # blob id of the file read, when known
    hunk: str | None = None  # the hunk that changed it, when a diff is known


@dataclass(frozen=True, slots=True)
class ClaimResult:
    page: str
    claim: Claim
    status: Status
    evidence: tuple[EvidenceResult, ...]
    marker_present: bool = True
    due: bool = False
    notes: tuple[str, ...] = field(default=())
    line: int | None = None  # the page line of the marker's sentence, for a claim needing attention


def worst(statuses: list[Status] | tuple[Status, ...]) -> Status:
    """unresolved takes precedence over stale, stale over fresh (OpenWiki §5)."""
    if "unresolved" in statuses:
        return "unresolved"
    if "stale" in statuses:
        return "stale"
    return "fresh"
