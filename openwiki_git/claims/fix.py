"""`check --fix`: bring sidecars in step with what the check found. Pure: records in, records out.

- Fresh evidence follows its text: the resource's #Lx-Ly is rewritten and the token re-issued
  with refreshed anchors (OpenWiki's hint drift and anchor aging, fixed).
- Stale evidence keeps its verified token (the claim stays stale until something verifies it)
  but its line numbers follow the text, so links point at the right lines.
- A claim whose evidence changed is marked with the cause; a marked claim whose every cited text
  is back to exactly what was verified (a revert) loses its mark.
"""

from __future__ import annotations

from openwiki_git.evidence.kinds import looks_like_kind
from openwiki_git.evidence.resource import parse_resource
from openwiki_git.model import Cause, Claim, ClaimResult, Evidence, EvidenceResult, Mark, Sidecar


def fix_claim(claim: Claim, result: ClaimResult, now: str) -> Claim:
    evidence = tuple(_fix_evidence(ev, r) for ev, r in zip(claim.evidence, result.evidence, strict=True))
    statuses = [r.status for r in result.evidence]
    mark = claim.mark
    if all(s == "fresh" for s in statuses):
        mark = None
    elif mark is None:
        causes = tuple(_cause(r) for r in result.evidence if r.status != "fresh")
        mark = Mark("unresolved" if "unresolved" in statuses else "stale", now, causes)
    elif "unresolved" in statuses and mark.status != "unresolved":
        mark = Mark("unresolved", mark.since, mark.causes, mark.commit)
    return claim.replace(evidence=evidence, mark=mark)


def _fix_evidence(ev: Evidence, r: EvidenceResult) -> Evidence:
    if r.current_resource is None:
        return ev
    if r.status == "fresh" and r.current_version:
        return Evidence(r.current_resource, r.current_version, r.blob or ev.blob)
    if r.status == "stale":
        return Evidence(r.current_resource, ev.version, ev.blob)
    return ev


def _cause(r: EvidenceResult) -> Cause:
    if looks_like_kind(r.resource):  # a definition or a set: no lines to record
        return Cause(r.resource, r.reason, r.hunk)
    new_lines = None
    if r.current_resource:
        res = parse_resource(r.current_resource, wiki_dir="\0")
        if res.is_range and res.start is not None and res.end is not None:
            new_lines = (res.start, res.end)
    old = parse_resource(r.resource, wiki_dir="\0")
    old_lines = (old.start, old.end) if old.start is not None and old.end is not None else None
    return Cause(r.resource, r.reason, r.hunk, old_lines, new_lines)


def fix_sidecar(sidecar: Sidecar, results: list[ClaimResult], now: str) -> Sidecar:
    by_id = {r.claim.id: r for r in results if r.page == sidecar.page}
    claims = tuple(fix_claim(c, by_id[c.id], now) if c.id in by_id else c for c in sidecar.claims)
    return sidecar.replace(claims=claims)


def verify_claim(claim: Claim, result: ClaimResult, *, by: str | None, now: str) -> Claim | None:
    """A claim re-read and found true: every evidence item is re-established at the text where it
    is now (new token, refreshed anchors), the mark is cleared and the verification recorded.

    Returns None when some evidence is unresolved: there is no current text to verify against.
    Shared by `claim confirm` and the refresher's `confirm` verdict.
    """
    if any(r.current_resource is None or r.current_version is None for r in result.evidence):
        return None
    evidence = tuple(
        Evidence(r.current_resource, r.current_version, r.blob)  # type: ignore[arg-type]
        for r in result.evidence
    )
    return claim.replace(evidence=evidence, mark=None, verified_at=now, verified_by=by or claim.verified_by)
