"""Check-report records for the health report's tests (claims/health.py, github/health_*.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from openwiki_git.claims import health, trend

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def record(i: int, page: str, status: str = "fresh", *, due: bool = False, since: str | None = None) -> dict:
    c = {"id": f"claim_{i:032x}", "page": page, "page_path": f".openwiki/{page}", "statement": f"Claim {i} | <b>{i}</b>",
         "status": status, "due": due, "verified_at": "2026-05-01T00:00:00Z", "marker_present": True, "notes": [],
         "evidence": [{"resource": f"repo://src/f{i % 7}.py#L1-L2", "status": status, "current_resource": None, "reason": "x"}]}
    if since:
        c["mark"] = {"status": status, "since": since, "commit": None, "causes": []}
    return c


def check_report(claims: list[dict], **summary_extra: int) -> dict:
    summary = {"total": len(claims), **{s: sum(c["status"] == s for c in claims) for s in trend.STATUSES},
               "missing_markers": 0, "due": sum(c["due"] for c in claims), **summary_extra}
    return {"wiki_dir": ".openwiki", "claims": claims, "summary": summary}


def build(check: dict, pages: list[str] | None = None, sidecars: dict | None = None) -> dict:
    pages = pages if pages is not None else sorted({c["page"] for c in check["claims"]})
    return health.build(check, sidecars or {}, pages, trend.History(), now=NOW, head=None, link_base=None, since=None)
