"""The content check: every claim's evidence re-resolved against the text it cites. Pure.

Cost follows the number of cited files: each file is read once and its line index is shared by
every claim that cites it, and each (resource, version) pair is resolved once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from openwiki_git import citations, compat
from openwiki_git.model import Claim, ClaimResult, EvidenceResult, FileText, Sidecar, Status, worst

Reader = Callable[[str], FileText]


class EvidenceResolver:
    """Resolves evidence against one source (working tree, index or revision), memoised."""

    def __init__(self, read: Reader, *, max_growth: int = 200) -> None:
        self._read = read
        self._files: dict[str, tuple[FileText, compat.LineIndex | None]] = {}
        self._memo: dict[tuple[str, str], EvidenceResult] = {}
        self.max_growth = max_growth

    def file(self, path: str) -> tuple[FileText, compat.LineIndex | None]:
        got = self._files.get(path)
        if got is None:
            ft = self._read(path)
            got = self._files[path] = (ft, compat.LineIndex(ft.text) if ft.text is not None else None)
        return got

    def resolve(self, resource: str, version: str) -> EvidenceResult:
        key = (resource, version)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._resolve(resource, version)
        return hit

    def _resolve(self, resource: str, version: str) -> EvidenceResult:
        try:
            res = compat.parse_resource(resource, wiki_dir="\0")
        except compat.ResourceError as e:
            return EvidenceResult(resource, "unresolved", None, str(e))
        ft, index = self.file(res.path)
        if ft.text is None or index is None:
            return EvidenceResult(resource, "unresolved", None, f"{res.path}: {ft.problem}", blob=ft.blob)
        r = compat.relocate(res, ft.text, version, lines=index, max_growth=self.max_growth)
        current = r.resource.canonical if r.resource is not None else None
        status: Status = r.status  # type: ignore[assignment]
        return EvidenceResult(resource, status, current, r.reason, r.version, ft.blob)


def check_claim(
    page: str, claim: Claim, resolver: EvidenceResolver, *, page_text: str | None, due: bool = False
) -> ClaimResult:
    results = tuple(resolver.resolve(ev.resource, ev.version) for ev in claim.evidence)
    status = worst([r.status for r in results])
    notes: list[str] = []
    if claim.mark is not None and status == "fresh":
        # A mark is cleared by verification or by `check --fix` on a revert, never silently.
        status = "stale"
        notes.append("marked stale earlier; the cited text is back to its verified version (`check --fix` clears it)")
    elif claim.mark is not None:
        notes.extend(f"{c.resource}: {c.reason}" + (f" by {c.hunk}" if c.hunk else "") for c in claim.mark.causes)
    marker = page_text is not None and citations.has_marker(page_text, claim.id)
    if page_text is None:
        notes.append("the page does not exist")
    return ClaimResult(page, claim, status, results, marker, due, tuple(notes))


def is_due(claim: Claim, now: datetime, reverify_after_seconds: int | None) -> bool:
    """Whether a claim's last verification is older than `reverify_after` (never when unknown)."""
    if reverify_after_seconds is None or not claim.verified_at:
        return False
    try:
        verified = datetime.fromisoformat(claim.verified_at.replace("Z", "+00:00"))
    except ValueError:
        return True
    if verified.tzinfo is None:
        return True
    return (now - verified).total_seconds() >= reverify_after_seconds


def check_all(
    sidecars: dict[str, Sidecar],
    resolver: EvidenceResolver,
    page_texts: Callable[[str], str | None],
    *,
    now: datetime | None = None,
    reverify_after_seconds: int | None = None,
) -> list[ClaimResult]:
    """Every claim of every sidecar, in page then claim order."""
    out = []
    for page in sorted(sidecars):
        text = page_texts(page)
        for claim in sidecars[page].claims:
            due = now is not None and is_due(claim, now, reverify_after_seconds)
            out.append(check_claim(page, claim, resolver, page_text=text, due=due))
    return out


def summarize(results: list[ClaimResult]) -> dict[str, int]:
    summary = {"total": len(results), "fresh": 0, "stale": 0, "unresolved": 0}
    for r in results:
        summary[r.status] += 1
    summary["missing_markers"] = sum(1 for r in results if not r.marker_present)
    summary["due"] = sum(1 for r in results if r.due)
    return summary
