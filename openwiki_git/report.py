"""Reporters: results are data, these render them. The JSON shape is a contract
(schemas/check-report.schema.json): fields may be added, never renamed."""

from __future__ import annotations

import json
from typing import Any

from openwiki_git import PRODUCER
from openwiki_git.checker import summarize
from openwiki_git.model import Cause, ClaimResult, Mark

REPORT_SCHEMA_ID = "https://openwiki-git.dev/schemas/check-report.schema.json"


def claim_data(r: ClaimResult, wiki_dir: str) -> dict[str, Any]:
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
        "marker": f"[^c-{r.claim.id.removeprefix('claim_')[:8]}]",
        "marker_present": r.marker_present,
        "due": r.due,
        "verified_at": r.claim.verified_at,
        "notes": list(r.notes),
    }
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
        **({"blob": c.blob} if c.blob else {}),
    }


def build(results: list[ClaimResult], *, wiki_dir: str, source: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    report: dict[str, Any] = {
        "$schema": REPORT_SCHEMA_ID,
        "tool": PRODUCER,
        "wiki_dir": wiki_dir,
        "source": source,
        "claims": [claim_data(r, wiki_dir) for r in results],
        "summary": summarize(results),
    }
    report.update(extra or {})
    return report


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def claim_line(c: dict[str, Any]) -> str:
    """`page: claim-id: status: statement (why)`, the one line a person reads."""
    details = []
    for e in c["evidence"]:
        if e["status"] == "fresh":
            continue
        where = e["current_resource"] or e["resource"]
        details.append(f"{where.removeprefix('repo://')} {e['reason']}" + (f" by {e['hunk']}" if e.get("hunk") else ""))
    details.extend(c["notes"])
    tail = f" ({'; '.join(details)})" if details else ""
    return f"{c['page_path']}: {c['id']}: {c['status']}: {c['statement']}{tail}"


def to_text(report: dict[str, Any], *, verbose: bool = False) -> str:
    lines = []
    for c in report["claims"]:
        if c["status"] != "fresh" or verbose:
            lines.append(claim_line(c))
        if not c["marker_present"]:
            lines.append(f"{c['page_path']}: {c['id']}: marker {c['marker']} is missing from the page's prose")
        if c["due"] and c["status"] == "fresh":
            lines.append(f"{c['page_path']}: {c['id']}: due for re-verification (last verified {c['verified_at']})")
    for b in report.get("broken_references", []):
        lines.append(f"{b['page_path']}:{b['line']}: broken reference `{b['reference']}`: {b['reason']}")
    s = report["summary"]
    lines.append(
        f"{s['total']} claims: {s['fresh']} fresh, {s['stale']} stale, {s['unresolved']} unresolved"
        + (f", {s['missing_markers']} without a marker" if s["missing_markers"] else "")
        + (f", {s['due']} due" if s["due"] else "")
    )
    return "\n".join(lines) + "\n"
