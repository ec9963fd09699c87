"""Reporters: results are data, these render them. The JSON shape is a contract
(schemas/check-report.schema.json): fields may be added, never renamed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring  # what json.dumps(s, ensure_ascii=False) writes, in C
from typing import TYPE_CHECKING, Any

from openwiki_git import PRODUCER

if TYPE_CHECKING:  # check's warm path imports neither the model nor the checker
    from openwiki_git.model import Cause, Claim, ClaimResult, Mark

# One claim of a streamed report: its record (claim_data), or for a plainly fresh claim, whose
# record follows from the claim alone (plain_claim_json), the Plain fields of its sidecar.
Plain = tuple[str, str, str, str, tuple[str, ...], str | None]  # page, page_path, id, statement, resources, verified_at
Item = dict[str, Any] | Plain


def plain(page: str, page_path: str, claim: Claim) -> Plain:
    return (page, page_path, claim.id, claim.statement, tuple(e.resource for e in claim.evidence), claim.verified_at)

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
    }


def is_plain(r: ClaimResult) -> bool:
    """Whether the claim's record is plain_claim_json's: fresh, its marker present, not due, no
    note, no mark, and every evidence fresh where it was, unchanged."""
    if r.status != "fresh" or not r.marker_present or r.due or r.notes or r.claim.mark is not None:
        return False
    return all(
        e.status == "fresh" and e.current_resource == e.resource and e.reason == "unchanged" and not e.hunk
        for e in r.evidence
    )


def is_problem(c: dict[str, Any]) -> bool:
    """What `--only-problems` lists: a claim that is not fresh, lacks its marker or is due."""
    return c["status"] != "fresh" or not c["marker_present"] or bool(c["due"])


def plain_claim_data(page: str, page_path: str, claim_id: str, statement: str, resources: tuple[str, ...],
                     verified_at: str | None) -> dict[str, Any]:
    """claim_data(r) of a plain claim (is_plain): it follows from the claim alone."""
    return {
        "id": claim_id, "page": page, "page_path": page_path, "statement": statement, "status": "fresh",
        "evidence": [
            {"resource": resource, "status": "fresh", "current_resource": resource, "reason": "unchanged"}
            for resource in resources
        ],
        "marker": f"[^c-{claim_id.removeprefix('claim_')[:8]}]", "marker_present": True, "due": False,
        "verified_at": verified_at, "notes": [],
    }


def plain_claim_json(page: str, page_path: str, claim_id: str, statement: str, resources: tuple[str, ...],
                     verified_at: str | None) -> str:
    """`claim_json(plain_claim_data(...))`, written without the dict and the pure-Python
    indenting encoder (tests compare the two, and with claim_data). A field added to claim_data
    must be added to both."""
    if not resources:
        return claim_json(plain_claim_data(page, page_path, claim_id, statement, resources, verified_at))
    q = encode_basestring
    evidence = ",\n".join(
        f'        {{\n          "resource": {q(resource)},\n          "status": "fresh",\n'
        f'          "current_resource": {q(resource)},\n          "reason": "unchanged"\n        }}'
        for resource in resources
    )
    verified = q(verified_at) if verified_at is not None else "null"
    return (
        f'    {{\n      "id": {q(claim_id)},\n      "page": {q(page)},\n      "page_path": {q(page_path)},\n'
        f'      "statement": {q(statement)},\n      "status": "fresh",\n'
        f'      "evidence": [\n{evidence}\n      ],\n'
        f'      "marker": {q("[^c-" + claim_id.removeprefix("claim_")[:8] + "]")},\n      "marker_present": true,\n'
        f'      "due": false,\n      "verified_at": {verified},\n      "notes": []\n    }}'
    )


def claim_json(c: dict[str, Any]) -> str:
    """One claim record as it stands in the indented report (json.dumps of the whole, indent 2)."""
    return "    " + json.dumps(c, indent=2, ensure_ascii=False).replace("\n", "\n    ")


def write_json(
    write: Callable[[str], Any], head: dict[str, Any], claims: Iterable[str], tail: Callable[[], dict[str, Any]]
) -> None:
    """`to_json({**head, "claims": [...], **tail()})`, written as the claims come (`claims` are
    claim_json strings; `tail()`, called after the last, gives `summary` and any extra key)."""
    write("{\n")
    for key, value in head.items():
        write(f"  {json.dumps(key)}: {_indented(value)},\n")
    opened = False
    batch: list[str] = []  # a few hundred claims per write: memory stays bounded, calls few
    for text in claims:
        batch.append(text)
        if len(batch) == 500:
            write((",\n" if opened else '  "claims": [\n') + ",\n".join(batch))
            opened, batch = True, []
    if batch:
        write((",\n" if opened else '  "claims": [\n') + ",\n".join(batch))
        opened = True
    write("\n  ],\n" if opened else '  "claims": [],\n')
    rest = tail()
    write(",\n".join(f"  {json.dumps(key, ensure_ascii=False)}: {_indented(value)}" for key, value in rest.items()))
    write("\n}\n")


def _indented(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")


def claim_text(c: dict[str, Any], *, verbose: bool = False) -> list[str]:
    """The text lines of one claim record (none for a fresh claim unless `verbose`)."""
    lines = []
    if c["status"] != "fresh" or verbose:
        lines.append(claim_line(c))
    if not c["marker_present"]:
        lines.append(f"{c['page_path']}: {c['id']}: marker {c['marker']} is missing from the page's prose")
    if c["due"] and c["status"] == "fresh":
        lines.append(f"{c['page_path']}: {c['id']}: due for re-verification (last verified {c['verified_at']})")
    return lines


def summary_line(s: dict[str, Any]) -> str:
    return (
        f"{s['total']} claims: {s['fresh']} fresh, {s['stale']} stale, {s['unresolved']} unresolved"
        + (f", {s['missing_markers']} without a marker" if s["missing_markers"] else "")
        + (f", {s['due']} due" if s["due"] else "")
        + (f", {s['superseded_sources']} citing a superseded or amended document" if s.get("superseded_sources") else "")
    )


def build(results: list[ClaimResult], *, wiki_dir: str, source: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    from openwiki_git.claims.check import summarize

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
        lines.extend(claim_text(c, verbose=verbose))
    lines.extend(findings_text(report))
    lines.append(summary_line(report["summary"]))
    return "\n".join(lines) + "\n"


def findings_text(report: dict[str, Any]) -> list[str]:
    """The text lines of the report's findings beyond its claims' verdicts: claims citing a
    replaced document, broken code references."""
    lines = [f"{n['page_path']}: {n['id']}: {n['note']}" for n in report.get("superseded_sources", ())]
    lines += [
        f"{b['page_path']}:{b['line']}: broken reference `{b['reference']}`: {b['reason']}"
        for b in report.get("broken_references", [])
    ]
    return lines
