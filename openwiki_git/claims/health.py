"""The health report's numbers: what check found now, per page and per cited file, the claims
open now (stale, unresolved or due: each with its page, statement, the age of its mark and its
cause), and the history's trend and clearing times, as one JSON-able record
(schemas/report.schema.json).

Every current number comes from check's report (its claim records, `summary`, `due`, and the
findings it lists); nothing here judges a claim. The sidecars add only who verified each claim
(`verifiedBy`). Pure: the check report, who verified, the history and the time come in.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import quote

from openwiki_git import PRODUCER
from openwiki_git.claims import causes
from openwiki_git.claims.trend import STATUSES, History, clearing
from openwiki_git.formats.sidecar import resource_path
from openwiki_git.formats.timestamps import instant

REPORT_SCHEMA_ID = "https://openwiki-git.dev/schemas/report.schema.json"
VERIFIERS = ("human", "agent", "model", "tool", "none")


def verifier_kind(verified_by: str | None) -> str:
    """Who verified, by `verifiedBy`'s prefix: human:, agent:, model:; any other actor is a tool
    (openwiki-git's own fixes, scripts); none when the claim records no one."""
    if not verified_by:
        return "none"
    prefix = verified_by.split(":", 1)[0] if ":" in verified_by else ""
    return prefix if prefix in ("human", "agent", "model") else "tool"


def duration(seconds: float | None) -> str:
    """A wait for people: "45 min", "5 h", "3.5 d"; "n/a" when there is none."""
    if seconds is None:
        return "n/a"
    if seconds < 3600:
        return f"{max(0, round(seconds / 60))} min"
    if seconds < 86400:
        return f"{seconds / 3600:.1f} h".replace(".0 h", " h")
    return f"{seconds / 86400:.1f} d".replace(".0 d", " d")


def _epoch(value: str | None) -> float | None:
    at = instant(value)
    return None if at is None else at.timestamp()


def build(check: Mapping[str, Any], verifiers: Mapping[str, str | None], pages: list[str], history: History, *,
          now: datetime, head: str | None, link_base: str | None, since: str | None) -> dict[str, Any]:
    """The report: `check` is check's whole report (every claim), `verifiers` each claim's
    `verifiedBy` by claim id (from its sidecar), `pages` every
    page of the wiki (as check names them), `history` the walk of the sidecars' history,
    `link_base` the URL a cited path is appended to (None: paths stay relative)."""
    claims: list[dict[str, Any]] = list(check["claims"])
    summary = check["summary"]
    by_page: dict[str, list[dict[str, Any]]] = {}
    for c in claims:
        by_page.setdefault(c["page"], []).append(c)
    verified_by = verifiers
    now_s = now.timestamp()
    policy = list(check.get("policy_problems") or [])
    with_claims = [p for p in pages if by_page.get(p)]
    return {
        "$schema": REPORT_SCHEMA_ID,
        "tool": PRODUCER,
        "wiki_dir": check.get("wiki_dir"),
        "generated_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "head": head,
        "summary": {
            "claims": len(claims),
            "pages": len(pages),
            **{s: int(summary.get(s, 0)) for s in STATUSES},
            "due": int(summary.get("due", 0)),
            "policy_problems": int(summary.get("policy_problems", len(policy))),
            "missing_markers": int(summary.get("missing_markers", 0)),
            "broken_references": len(check.get("broken_references") or []),
            "superseded_sources": len(check.get("superseded_sources") or []),
            "pages_without_claims": len(pages) - len(with_claims),
        },
        "pages": [_page(p, by_page[p], verified_by, now_s) for p in sorted(by_page)],
        "hot_spots": _hot_spots(claims, history, link_base),
        "due": [_claim_ref(c) for c in claims if c.get("due")],
        "open": open_claims(claims, history, link_base, now_s),
        "pages_without_claims": [p for p in pages if not by_page.get(p)],
        "broken_references": list(check.get("broken_references") or []),
        "superseded_sources": list(check.get("superseded_sources") or []),
        "policy_problems": policy,
        "trend": [{"commit": p.commit, "time": p.time, **p.counts} for p in history.points],
        "clearing": clearing(history),
        "history": {"commits": len(history.points), "since": since,
                    "first": {"commit": history.points[0].commit, "time": history.points[0].time} if history.points else None},
    }


def open_claims(claims: list[dict[str, Any]], history: History, link_base: str | None, now_s: float) -> list[dict[str, Any]]:
    """Every claim a person must look at (stale, unresolved or due), oldest mark first, then the
    due ones (oldest verification first): its page (`url`: at the line of its sentence, on GitHub
    when `link_base` is given), statement, status, when it was marked and how long ago, and its
    cause (the kind of change its mark's causes name, or its evidence's reasons when it has no
    mark; `commit`: the commit of the history window that brought the mark, `after`: the commit
    the mark was measured against)."""
    out = []
    for c in claims:
        if c["status"] == "fresh" and not c.get("due"):
            continue
        mark = c.get("mark") or {}
        marked = _epoch(mark.get("since"))
        page_path, line = c["page_path"], c.get("line")
        url = f"{link_base}{quote(page_path)}" + (f"#L{line}" if line else "") if link_base else None
        cause = None
        if c["status"] != "fresh":
            found = causes.of_record(c)
            cause = {"kind": found.kind, "places": list(found.places), "commit": history.marked_in.get(c["id"]),
                     "after": mark.get("commit")}
        out.append({
            "id": c["id"], "label": "c-" + c["id"].removeprefix("claim_")[:8], "page": c["page"], "page_path": page_path,
            "line": line, "url": url, "statement": c["statement"], "status": c["status"], "due": bool(c.get("due")),
            "marked_at": mark.get("since"), "age_seconds": max(0, int(now_s - marked)) if marked is not None else None,
            "verified_at": c.get("verified_at"), "cause": cause,
        })
    return sorted(out, key=lambda o: (o["age_seconds"] is None, -(o["age_seconds"] or 0), o["verified_at"] or "", o["page"], o["id"]))


def _claim_ref(c: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": c["id"], "page": c["page"], "statement": c["statement"], "status": c["status"],
            "verified_at": c.get("verified_at")}


def _page(page: str, claims: list[dict[str, Any]], verified_by: Mapping[str, str | None], now_s: float) -> dict[str, Any]:
    counts = {s: sum(1 for c in claims if c["status"] == s) for s in STATUSES}
    marks = [t for c in claims if (t := _epoch((c.get("mark") or {}).get("since"))) is not None]
    kinds = [verifier_kind(verified_by.get(c["id"])) for c in claims]
    human = [c.get("verified_at") for c, kind in zip(claims, kinds, strict=True) if kind == "human"]
    human_times = [(t, v) for v in human if (t := _epoch(v)) is not None]
    return {
        "page": page,
        "page_path": claims[0]["page_path"],
        "claims": len(claims),
        **counts,
        "due": sum(1 for c in claims if c.get("due")),
        "oldest_mark_age_seconds": max(0, int(now_s - min(marks))) if marks else None,
        "last_human_verified_at": max(human_times)[1] if human_times else None,
        "verified_by": {k: kinds.count(k) for k in VERIFIERS},
    }


def _hot_spots(claims: list[dict[str, Any]], history: History, link_base: str | None, limit: int = 20) -> list[dict[str, Any]]:
    """The cited files that marked the most claims: every mark the window's history saw, and
    every claim check finds stale or unresolved now (by its evidence that is not fresh)."""
    marked: dict[str, set[str]] = {}
    for (cid, _), files in history.marks_seen.items():
        for f in files:
            marked.setdefault(f, set()).add(cid)
    for c in claims:
        if c["status"] != "fresh":
            for e in c["evidence"]:
                if e["status"] != "fresh":
                    marked.setdefault(resource_path(e["resource"]), set()).add(c["id"])
    ranked = sorted(marked.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]
    return [{"path": path, "claims": len(ids), "url": f"{link_base or ''}{quote(path)}"} for path, ids in ranked]
