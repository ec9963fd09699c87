"""The check report as data: each claim's record, the whole report, the findings added to it.
The JSON shape is a contract (schemas/check-report.schema.json): fields may be added, never
renamed. Pure; `cli/check_output.py` renders it (text, and the JSON text written as it streams)."""

from __future__ import annotations

from openwiki_git import PRODUCER
from openwiki_git.pages.labels import marker_text

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:  # check's warm path imports neither the model nor the checker
    from typing import Any

    from openwiki_git.model import Cause, Claim, ClaimResult, Mark

REPORT_SCHEMA_ID = "https://openwiki-git.dev/schemas/check-report.schema.json"
# One claim of a streamed report: its record (claim_data), or for a plainly fresh claim, whose
# record follows from the claim alone (fresh_record_data), the FreshRecord fields of its sidecar.
FreshRecord = tuple[str, str, str, str, tuple[str, ...], str | None]  # page, page_path, id, statement, resources, verified_at
if TYPE_CHECKING:
    Item = dict[str, Any] | FreshRecord


def fresh_record(page: str, page_path: str, claim: Claim) -> FreshRecord:
    return (page, page_path, claim.id, claim.statement, tuple(e.resource for e in claim.evidence), claim.verified_at)


def claim_data(r: ClaimResult, wiki_dir: str, site: bool = False) -> dict[str, Any]:
    """A claim's record. `marker` is the marker as its page carries it (pages/markers.marker_text:
    `site`, the workspace is in site mode)."""
    out: dict[str, Any] = {
        "id": r.claim.id,
        "page": r.page,
        "page_path": f"{wiki_dir}/{r.page}",
        "statement": r.claim.statement,
        "status": r.status,
        "evidence": [
            {
                "resource": e.resource,
                "status": e.status,
                "current_resource": e.current_resource,
                "reason": e.reason,
                **({"hunk": e.hunk} if e.hunk else {}),
            }
            for e in r.evidence
        ],
        "marker": marker_text(r.claim.id, r.page, site),
        "marker_present": r.marker_present,
        "due": r.due,
        "verified_at": r.claim.verified_at,
        "notes": list(r.notes),
    }
    if r.line is not None:
        out["line"] = r.line
    if r.claim.mark is not None:
        out["mark"] = mark_data(r.claim.mark)
    return out


def mark_data(m: Mark) -> dict[str, Any]:
    return {"status": m.status, "since": m.since, "commit": m.commit, "causes": [cause_data(c) for c in m.causes]}


def cause_data(c: Cause) -> dict[str, Any]:
    return {
        "resource": c.resource,
        "reason": c.reason,
        "hunk": c.hunk,
        "old_lines": list(c.old_lines) if c.old_lines else None,
        "new_lines": list(c.new_lines) if c.new_lines else None,
        "path": c.path,
    }


def is_plainly_fresh(r: ClaimResult) -> bool:
    """Whether the claim's record is fresh_record_data's: fresh, its marker present, not due, no
    note, no mark, and every evidence fresh where it was, unchanged."""
    return r.marker_present and _plainly_fresh_but_for_the_marker(r)


def is_plainly_fresh_unmarked(r: ClaimResult) -> bool:
    """Whether the claim's record is fresh_record_data's but for its missing marker: the check
    cache keeps such claims as ids (a wiki without markers has one per claim), not as records."""
    return not r.marker_present and _plainly_fresh_but_for_the_marker(r)


def _plainly_fresh_but_for_the_marker(r: ClaimResult) -> bool:
    if r.status != "fresh" or r.due or r.notes or r.claim.mark is not None:
        return False
    return all(
        e.status == "fresh" and e.current_resource == e.resource and e.reason == "unchanged" and not e.hunk
        for e in r.evidence
    )


def only_marker_missing(c: dict[str, Any]) -> bool:
    """A record whose only text line is its missing marker's (cli/check_output.claim_text, not --all):
    past UNMARKED_LISTED of them, the text summarises them in one line instead."""
    return c["status"] == "fresh" and not c["marker_present"] and not c["due"]


UNMARKED_LISTED = 50  # text lists at most this many "marker ... is missing" lines, then summarises


def is_problem(c: dict[str, Any]) -> bool:
    """What `--only-problems` lists: a claim that is not fresh, lacks its marker or is due."""
    return c["status"] != "fresh" or not c["marker_present"] or bool(c["due"])


def fresh_record_data(page: str, page_path: str, claim_id: str, statement: str, resources: tuple[str, ...],
                     verified_at: str | None, marker_present: bool = True, site: bool = False) -> dict[str, Any]:
    """claim_data(r, wiki_dir, site) of a plainly fresh claim (is_plainly_fresh; is_plainly_fresh_unmarked with
    `marker_present` False): it follows from the claim alone."""
    return {
        "id": claim_id, "page": page, "page_path": page_path, "statement": statement, "status": "fresh",
        "evidence": [
            {"resource": resource, "status": "fresh", "current_resource": resource, "reason": "unchanged"}
            for resource in resources
        ],
        "marker": marker_text(claim_id, page, site), "marker_present": marker_present,
        "due": False, "verified_at": verified_at, "notes": [],
    }


def build(
    results: list[ClaimResult], *, wiki_dir: str, source: str, extra: dict[str, Any] | None = None, site: bool = False
) -> dict[str, Any]:
    from openwiki_git.claims.freshness import summarize

    report: dict[str, Any] = {
        "$schema": REPORT_SCHEMA_ID,
        "tool": PRODUCER,
        "wiki_dir": wiki_dir,
        "source": source,
        "claims": [claim_data(r, wiki_dir, site) for r in results],
        "summary": summarize(results),
    }
    report.update(extra or {})
    return report


def add_cited_documents(report: dict[str, Any], notices: dict[str, list[dict[str, Any]]], pages: dict[str, str]) -> None:
    """Flag the claims whose cited document is superseded or was amended since (citestale):
    each listed claim gets `cited_documents`, and the report `superseded_sources`, one entry
    per notice ({id, page_path, source, kind, by, note}); `pages` gives each claim's page path."""
    if not notices:
        return
    for c in report["claims"]:
        if c["id"] in notices:
            c["cited_documents"] = notices[c["id"]]
    listed = [
        {"id": cid, "page_path": pages.get(cid, ""), **n}
        for cid in sorted(notices, key=lambda i: (pages.get(i, ""), i))
        for n in notices[cid]
    ]
    report["superseded_sources"] = listed
    report["summary"]["superseded_sources"] = len(listed)
