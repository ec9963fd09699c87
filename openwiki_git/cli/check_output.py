"""Reporters: the check report (services/check_report.Report) rendered as text, and as the JSON
text, each written as the claims come."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from itertools import islice
from json.encoder import encode_basestring  # what json.dumps(s, ensure_ascii=False) writes, in C

from openwiki_git.claims.records import fresh_record_data
from openwiki_git.pages.labels import label, marker_text

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

    from openwiki_git.claims.records import FreshRecord, Item

MAX_WIDTH = 200  # a claim's line is cut to the terminal's width, and never longer than this
CLEAR_HINT = "clear them: openwiki-git review (one key per claim), or claim show|confirm|edit|retract c-xxxxxxxx"


def plain_claim_json(page: str, page_path: str, claim_id: str, statement: str, resources: tuple[str, ...],
                     verified_at: str | None, marker_present: bool = True, site: bool = False) -> str:
    """`claim_json(fresh_record_data(...))`, written without the dict and the pure-Python
    indenting encoder (tests compare the two, and with claim_data). A field added to claim_data
    must be added to both. The text a page's claims share (the page, the fixed keys and
    verified_at, which they mostly share too) is written once per page (_shared_text): this runs
    once per claim of a JSON report, 10,000 times for a 10,000-claim wiki."""
    if not resources:
        return claim_json(fresh_record_data(page, page_path, claim_id, statement, resources, verified_at, marker_present, site))
    q = encode_basestring
    head, tail = _shared_text(page, page_path, verified_at, marker_present)
    evidence = ",\n".join([f"{_EVIDENCE_OPEN}{r}{_EVIDENCE_MIDDLE}{r}{_EVIDENCE_CLOSE}" for r in map(q, resources)])
    marker = q(marker_text(claim_id, page, site))
    return f'    {{\n      "id": {q(claim_id)}{head}{q(statement)}{_STATEMENT_TO_EVIDENCE}{evidence}{_EVIDENCE_TO_MARKER}{marker}{tail}'


# plain_claim_json's fixed text: around an evidence item's resource (written twice), and between fields.
_EVIDENCE_OPEN = '        {\n          "resource": '
_EVIDENCE_MIDDLE = ',\n          "status": "fresh",\n          "current_resource": '
_EVIDENCE_CLOSE = ',\n          "reason": "unchanged"\n        }'
_STATEMENT_TO_EVIDENCE = ',\n      "status": "fresh",\n      "evidence": [\n'
_EVIDENCE_TO_MARKER = '\n      ],\n      "marker": '
_shared: dict[tuple[str, str, str | None, bool], tuple[str, str]] = {}


def _shared_text(page: str, page_path: str, verified_at: str | None, marker_present: bool) -> tuple[str, str]:
    """plain_claim_json's text between the id and the statement, and after the marker, for this
    page, verified_at and marker_present. Memoised: a report's claims share a few hundred pages
    (the memo is emptied past 4,096 keys)."""
    key = (page, page_path, verified_at, marker_present)
    text = _shared.get(key)
    if text is None:
        if len(_shared) >= 4096:
            _shared.clear()
        q = encode_basestring
        verified = q(verified_at) if verified_at is not None else "null"
        text = _shared[key] = (
            f',\n      "page": {q(page)},\n      "page_path": {q(page_path)},\n      "statement": ',
            f',\n      "marker_present": {"true" if marker_present else "false"},\n      "due": false,\n'
            f'      "verified_at": {verified},\n      "notes": []\n    }}',
        )
    return text


def claim_json(c: dict[str, Any]) -> str:
    """One claim record as it stands in the indented report (json.dumps of the whole, indent 2)."""
    return "    " + json.dumps(c, indent=2, ensure_ascii=False).replace("\n", "\n    ")


def item_json(c: Item, site: bool = False) -> str:
    """claim_json of one claim of a streamed report: its record, or a plainly fresh claim's FreshRecord.
    A record that is a plainly fresh claim's but for its missing marker (a wiki without markers lists one
    per claim) is written as plain_claim_json writes it too: the indenting encoder took 85% of a
    warm 100,000-claim JSON report. `site`: the workspace is in site mode (a marker's form)."""
    if not isinstance(c, dict):
        return plain_claim_json(*c, site=site)
    fields = _unmarked_plain(c, site)
    return claim_json(c) if fields is None else plain_claim_json(*fields, marker_present=False, site=site)


_PLAIN_KEYS = ("id", "page", "page_path", "statement", "status", "evidence", "marker", "marker_present", "due", "verified_at", "notes")
_PLAIN_EVIDENCE_KEYS = ("resource", "status", "current_resource", "reason")


def _unmarked_plain(c: dict[str, Any], site: bool = False) -> FreshRecord | None:
    """The fields of `c` when it is exactly fresh_record_data(..., marker_present=False) of them
    (the keys in order, every value as that writes it), else None."""
    if c.get("marker_present") is not False or tuple(c) != _PLAIN_KEYS:
        return None
    if c["status"] != "fresh" or c["due"] is not False or c["notes"] != [] or type(c["evidence"]) is not list:
        return None
    resources = []
    for e in c["evidence"]:
        if type(e) is not dict or tuple(e) != _PLAIN_EVIDENCE_KEYS or e["status"] != "fresh" or e["reason"] != "unchanged":
            return None
        if type(e["resource"]) is not str or e["current_resource"] != e["resource"]:
            return None
        resources.append(e["resource"])
    cid, statement, verified = c["id"], c["statement"], c["verified_at"]
    if type(cid) is not str or type(statement) is not str or not (verified is None or type(verified) is str):
        return None
    if type(c["page"]) is not str or type(c["page_path"]) is not str or c["marker"] != marker_text(cid, c["page"], site):
        return None
    return c["page"], c["page_path"], cid, statement, tuple(resources), verified


def write_json(
    write: Callable[[str], Any], head: dict[str, Any], claims: Iterable[str], tail: Callable[[], dict[str, Any]]
) -> None:
    """`to_json({**head, "claims": [...], **tail()})`, written as the claims come (`claims` are
    claim_json strings; `tail()`, called after the last, gives `summary` and any extra key)."""
    write("{\n")
    for key, value in head.items():
        write(f"  {json.dumps(key)}: {_indented(value)},\n")
    opened = False
    claims = iter(claims)
    # A few hundred claims per write (memory stays bounded, calls few), taken by islice in C.
    while batch := list(islice(claims, 500)):
        write((",\n" if opened else '  "claims": [\n') + ",\n".join(batch))
        opened = True
    write("\n  ],\n" if opened else '  "claims": [],\n')
    rest = tail()
    write(",\n".join(f"  {json.dumps(key, ensure_ascii=False)}: {_indented(value)}" for key, value in rest.items()))
    write("\n}\n")


def write_text(
    write: Callable[[str], Any], claims: Iterable[Item], tail: dict[str, Any], *, verbose: bool = False, every: bool = False,
    width: int = MAX_WIDTH, unlisted_unmarked: int = 0,
) -> None:
    """The text report: each claim's lines (claim_text; a plainly fresh claim's only with `every` or
    `verbose`), the findings, the summary line; written as the claims come (see write_json). The
    claims do not hold the `unlisted_unmarked` ones (check_report.Report), summarised in one line."""
    for c in claims:
        if isinstance(c, dict):
            lines = claim_text(c, verbose=verbose, every=every, width=width)
        elif verbose:
            lines = [f"{c[1]}: {c[2]}: fresh: {c[3]}"]  # a plainly fresh claim's claim_line
        elif every:
            lines = [_cut(f"{c[1]} {label(c[2])} fresh {c[3]}", width)]
        else:
            lines = []
        if lines:
            write("\n".join(lines) + "\n")
    for line in findings_text(tail):
        write(line + "\n")
    if unlisted_unmarked:
        write(unlisted_unmarked_line(unlisted_unmarked) + "\n")
    write(summary_line(tail["summary"]) + "\n")
    if not verbose and needs_attention(tail["summary"]):
        write(CLEAR_HINT + "\n")


def unlisted_unmarked_line(count: int) -> str:
    """The one line that stands for the claims whose only line would be "marker ... is missing"
    when there are more than UNMARKED_LISTED of them (a wiki whose pages carry no markers)."""
    return (
        f"{count} claims are fresh but their markers are missing from their pages' prose (not listed one by one:"
        " `check --all` or `check --format json --only-problems` lists them)"
    )


def _indented(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")


def claim_text(c: dict[str, Any], *, verbose: bool = False, every: bool = False, width: int = MAX_WIDTH) -> list[str]:
    """The text lines of one claim record: none for a fresh claim (unless `every`); else
    `PAGE:LINE c-xxxxxxxx STATUS statement` and at most two indented lines of reason (where the
    text is now; the cause), each cut to `width`. `verbose` gives the long form, all on one line."""
    if verbose:
        return detailed_text(c)
    status = attention_status(c)
    if status is None and not every:
        return []
    where = c["page_path"] + (f":{c['line']}" if c.get("line") else "")
    head = f"{where} {label(c['id'])} {status or 'fresh'} {c['statement']}"
    return [_cut(head, width)] + [_cut(f"    {r}", width) for r in reasons(c)]


def attention_status(c: dict[str, Any]) -> str | None:
    """What a claim needing attention is called in the text: stale, unresolved, due, or
    no-marker (its marker is missing from the page); None when it needs none."""
    if c["status"] != "fresh":
        return str(c["status"])
    if not c["marker_present"]:
        return "no-marker"
    return "due" if c["due"] else None


def reasons(c: dict[str, Any]) -> list[str]:
    """At most two lines: where the cited text is now (and why it is not fresh), then the cause
    (the mark's hunk and commit) and the other notes; a reason already said is not repeated."""
    said: set[str] = set()
    now = []
    for e in c["evidence"]:
        if e["status"] == "fresh" and e["current_resource"] == e["resource"]:
            continue
        at = (e["current_resource"] or e["resource"]).removeprefix("repo://")
        by = f" by {e['hunk']}" if e.get("hunk") and not c.get("mark") else ""
        now.append(f"{'now at ' if e['current_resource'] else 'gone: '}{at}: {e['reason']}{by}")
        said.add(e["reason"])
    why = []
    mark = c.get("mark")
    from_mark = set()
    for x in mark["causes"] if mark else ():
        hunk = f" by {x['hunk']}" if x.get("hunk") else ""
        from_mark.add(f"{x['resource']}: {x['reason']}{hunk}")
        first = x["reason"].split("; ", 1)[0]  # the rest (the new extent, the bound) is the "now" line's
        reason = "" if first in said or any(r.startswith(first) for r in said) else f" {first}"
        why.append(f"{x['resource'].removeprefix('repo://')}{reason}{hunk}")
    cause = "cause: " + "; ".join(why) + (f" in {mark['commit'][:12]}" if mark and mark.get("commit") else "") if why else ""
    others = [n for n in c["notes"] if n not in from_mark and n not in said]
    if not c["marker_present"]:
        others.append(f"marker {c['marker']} is missing from the page's prose")
    if c["due"]:
        others.append(f"due for re-verification (last verified {c['verified_at']})")
    second = "; ".join(x for x in (cause, *others) if x)
    return [line for line in ("; ".join(now), second) if line]


def detailed_text(c: dict[str, Any]) -> list[str]:
    """The long form (`-v`): `page: claim-id: status: statement (why)` and the marker and due lines."""
    lines = [claim_line(c)]
    if not c["marker_present"]:
        lines.append(f"{c['page_path']}: {c['id']}: marker {c['marker']} is missing from the page's prose")
    if c["due"] and c["status"] == "fresh":
        lines.append(f"{c['page_path']}: {c['id']}: due for re-verification (last verified {c['verified_at']})")
    return lines


def needs_attention(s: dict[str, Any]) -> bool:
    return bool(s["stale"] or s["unresolved"] or s["missing_markers"] or s["due"])


def _cut(line: str, width: int) -> str:
    width = max(min(width, MAX_WIDTH), 20)
    return line if len(line) <= width else line[: width - 1] + "…"


def summary_line(s: dict[str, Any]) -> str:
    return (
        f"{s['total']} claims: {s['fresh']} fresh, {s['stale']} stale, {s['unresolved']} unresolved"
        + (f", {s['missing_markers']} without a marker" if s["missing_markers"] else "")
        + (f", {s['due']} due" if s["due"] else "")
        + (f", {s['superseded_sources']} citing a superseded or amended document" if s.get("superseded_sources") else "")
        + (f", {s['policy_problems']} verified by whom the verify policy forbids" if s.get("policy_problems") else "")
    )


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


_BROKEN_KIND = {"example": "broken example call"}  # how a broken reference's kind is named, when not "broken reference"


def findings_text(report: dict[str, Any]) -> list[str]:
    """The text lines of the report's findings beyond its claims' verdicts: claims citing a
    replaced document, broken code references."""
    lines = [f"{n['page_path']}: {n['id']}: {n['note']}" for n in report.get("superseded_sources", ())]
    lines += [
        f"{b['page_path']}:{b['line']}: {_BROKEN_KIND.get(b['kind'], 'broken reference')} `{b['reference']}`: {b['reason']}"
        for b in report.get("broken_references", [])
    ]
    lines += [
        f"{p['page']}: {p['claim_id']}: verified by {p['verified_by']}, which the verify policy forbids: {p['rule']}"
        for p in report.get("policy_problems", [])
    ]
    return lines
