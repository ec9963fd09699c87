"""The one report assembler of `check`: every stage of the chain (services/check_chain.run) gives each
page the same entry (the check cache's: summary, notable records, unmarked ids, findings), and
`assemble` builds the one result, `Report`, from them: the summary and the findings summed, the
claims produced as they are read (a page's sidecar is read only when every claim is listed).
Text, JSON (cli/check_output.py) and the hook's view are rendered from it. Imports only the standard
library: the cache's warm answer goes through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from openwiki_git.claims import records
from openwiki_git.formats import pagenames

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any


class Report:
    """`check`'s report, produced as it is read: its head fields, its claims (records, or FreshRecord
    tuples of plainly fresh claims; read once) and what follows them (`summary`, then the
    findings' keys). A plain class: a NamedTuple's class costs about half a millisecond to build,
    on the warm path."""

    __slots__ = ("head", "claims", "tail", "unlisted_unmarked", "site")

    def __init__(self, head: dict[str, Any], claims: Iterable[records.Item], tail: dict[str, Any], unlisted_unmarked: int = 0,
                 site: bool = False) -> None:
        self.head, self.claims, self.tail, self.site = head, claims, tail, site  # site: its markers' form (site mode)
        # Claims whose only text line would be their missing marker's, left out of `claims`
        # (more than records.UNMARKED_LISTED of them, in the text of the notable claims).
        self.unlisted_unmarked = unlisted_unmarked

    def whole(self) -> dict[str, Any]:
        """The report as one dict (the JSON document's data), its claims read to the end (plain claims as records)."""
        claims = [c if isinstance(c, dict) else records.fresh_record_data(*c, site=self.site) for c in self.claims]
        return {**self.head, "claims": claims, **self.tail}


def assemble(
    head: dict[str, Any], entries: dict[str, Any], pages: list[str], items: Callable[[str], Iterable[records.Item]], *,
    every: bool, only_problems: bool, late: dict[str, list[Any]] | None = None, notices: dict[str, list[Any]] | None = None,
    site: bool = False, fields: dict[str, Any] | None = None,
) -> Report:
    """The report of `pages` (their entries give the summary and the notable claims; `items(page)`
    every claim, read only when every claim is listed), to be produced as it is read: every claim
    (`every`), else the notable ones (only the problems: `only_problems`). `late` and `notices`:
    the wiki-wide findings and the claims they flag (services/check_chain.py: _wiki_findings); `site`:
    the workspace is in site mode (the claims' markers' form: pages/markers.marker_text);
    `fields`: keys that follow the summary as they are (check --base's commits)."""
    summary = _summary([entries[p]["summary"] for p in pages])
    findings: dict[str, Any] = dict(fields or {})
    for p in pages:
        for key, found in entries[p]["findings"].items():
            if not key.startswith("_"):
                findings.setdefault(key, []).extend(found)
    notices = notices or {}
    for key, found in (late or {}).items():
        findings.setdefault(key, []).extend(found)
    if "superseded_sources" in findings:
        summary = {**summary, "superseded_sources": len(findings["superseded_sources"])}
    if "policy_problems" in findings:
        summary = {**summary, "policy_problems": len(findings["policy_problems"])}

    unlisted = _unlisted_unmarked(entries, pages) if not (every or only_problems) else 0

    def listed() -> Iterator[records.Item]:
        for p in pages:
            if every:
                yield from items(p)
            elif unlisted:
                yield from (c for c in entries[p]["notable"] if not records.only_marker_missing(c))
            elif entries[p]["unmarked"]:  # their records come from the sidecar, in the claims' order
                yield from (c for c in items(p) if isinstance(c, dict) and (not only_problems or records.is_problem(c)))
            else:
                yield from (c for c in entries[p]["notable"] if not only_problems or records.is_problem(c))

    def claims() -> Iterator[records.Item]:
        if not notices:  # the common case: every claim as listed (10,000 of them in a JSON report)
            yield from listed()
            return
        for c in listed():
            cid = c["id"] if isinstance(c, dict) else c[2]
            if cid in notices:  # rare: a claim citing a replaced document gets its record in full
                c = dict(c) if isinstance(c, dict) else records.fresh_record_data(*c, site=site)
                c["cited_documents"] = notices[cid]
            yield c

    if only_problems:
        findings["only_problems"] = True
    return Report(head, claims(), {"summary": summary, **findings}, unlisted, site)


def _unlisted_unmarked(entries: dict[str, Any], pages: list[str]) -> int:
    """How many claims the text of the notable claims leaves out, their only line being their
    missing marker's: all of them past records.UNMARKED_LISTED, else none. Counted from the
    entries (ids and the few notable records), whatever their number: no sidecar is read."""
    n = 0
    for p in pages:
        entry = entries[p]
        n += entry["unmarked"].count("\n") + 1 if entry["unmarked"] else 0
        n += sum(1 for c in entry["notable"] if records.only_marker_missing(c))
    return n if n > records.UNMARKED_LISTED else 0


def items_of(page: str, page_path: str, entry: dict[str, Any], sc: Any, site: bool = False) -> Iterator[records.Item]:
    """Every claim of a page in order: its notable record, else the plainly fresh claim (a record when
    its marker is missing; `site`: the workspace is in site mode)."""
    notable = {c["id"]: c for c in entry["notable"]}
    unmarked = set(entry["unmarked"].split("\n")) if entry["unmarked"] else ()
    for claim in sc.claims if sc is not None else ():
        plain = records.fresh_record(page, page_path, claim)
        yield notable.get(claim.id) or (
            records.fresh_record_data(*plain, marker_present=False, site=site) if claim.id in unmarked else plain)


def sidecar_loader(root: str, wiki_dir: str, entries: dict[str, Any], site: bool = False) -> Callable[[str], Iterator[records.Item]]:
    """items(page) for the fast answer, read only when every claim is listed. The sidecar is the
    one the cached run parsed (its stat is unchanged), which the careful reader accepted only
    with canonical resources and exact strings: its JSON fields are the claims' fields, so
    json.loads stands in for sidecar.loads."""
    import json
    import os

    def items(page: str) -> Iterator[records.Item]:
        path, page_path = pagenames.sidecar_path(os.path.join(root, wiki_dir), page), f"{wiki_dir}/{page}"
        with open(path, "rb") as fh:
            claims = json.loads(fh.read())["claims"]
        notable = {c["id"]: c for c in entries[page]["notable"]}
        unmarked = set(entries[page]["unmarked"].split("\n")) if entries[page]["unmarked"] else ()
        for raw in claims:
            cid = raw["id"]
            plain = (page, page_path, cid, raw["statement"], tuple(e["resource"] for e in raw["evidence"]), raw.get("verifiedAt"))
            yield notable.get(cid) or (records.fresh_record_data(*plain, marker_present=False, site=site) if cid in unmarked else plain)

    return items


def _summary(parts: list[dict[str, int]]) -> dict[str, int]:
    if not parts:
        from openwiki_git.claims.freshness import summarize

        return summarize([])
    out = dict.fromkeys(parts[0], 0)
    for part in parts:
        for key, n in part.items():
            out[key] = out.get(key, 0) + n
    return out
