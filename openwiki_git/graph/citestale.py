"""Citation consistency: a claim whose cited source document is superseded, or was amended after
the claim was verified, is a stale belief even when the cited lines are unchanged. Pure: judges
from the claims and the standing of the documents they cite; no I/O.

    superseded_notices(claims, standing) -> {claim id: [notice, ...]}

`standing(path)` gives a cited document's standing ({"superseded_by": [(path, title)],
"amended_by": [(path, title, date or None)]}) or None when the path is no prose document.
A notice: {"source", "kind": "superseded" | "amended", "by": [{"path", "title", "date"?}],
"note"} — `note` is the line `check`, `lint` and the PR comment show. An amendment counts when
it is dated after the claim's verification, or is not dated at all (it may be newer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

Standing = Mapping[str, Any]


def cited_documents(claims: Iterable[Any], wiki_dir: str) -> set[str]:
    """The Markdown paths outside the wiki that some claim cites (a cheap test: check consults
    the documents' standing only when this is not empty)."""
    out = set()
    inside = wiki_dir + "/"
    for claim in claims:
        for ev in claim.evidence:
            if ".md" in ev.resource:  # a substring test first (DOCUMENT_MENTION): most evidence cites code
                path = _path(ev.resource)
                if path.endswith(".md") and not path.startswith(inside):
                    out.add(path)
    return out


# What a resource citing a Markdown document holds (cited_documents' substring test, in bytes):
# check --base parses only the sidecars whose `repo://` strings hold it (cite_bytes.mentions,
# asked of the cited-path index's one-shot scan: CiteIndex(mention=DOCUMENT_MENTION)).
DOCUMENT_MENTION = b".md"


def superseded_notices(claims: Iterable[Any], standing: Callable[[str], Standing | None]) -> dict[str, list[dict[str, Any]]]:
    """Notices by claim id, for claims citing a superseded (or later amended) document."""
    out: dict[str, list[dict[str, Any]]] = {}
    for claim in claims:
        seen: set[str] = set()
        for ev in claim.evidence:
            path = _path(ev.resource)
            if path in seen or not path.endswith(".md"):
                continue
            seen.add(path)
            got = standing(path)
            if not got:
                continue
            notice = _notice(path, got, claim.verified_at)
            if notice is not None:
                out.setdefault(claim.id, []).append(notice)
    return out


def _notice(path: str, got: Standing, verified_at: str | None) -> dict[str, Any] | None:
    by = got.get("superseded_by") or []
    if by:
        return superseded_notice(path, by)
    later = [
        {"path": p, "title": t, **({"date": d} if d else {})}
        for p, t, d in got.get("amended_by") or []
        if not d or not verified_at or d > verified_at[:10]
    ]
    if later:
        when = f" after it was verified ({verified_at[:10]})" if verified_at else ""
        return {"source": path, "kind": "amended", "by": later, "note": f"cites {path}, amended{when} by " + _names(later)}
    return None


def superseded_notice(path: str, by: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The notice for a claim citing `path`, superseded by the documents `by` ((path, title)):
    the one wording check, lint, the PR comment and the graph's answers show."""
    names = [{"path": p, "title": t} for p, t in by]
    return {"source": path, "kind": "superseded", "by": names, "note": f"cites {path}, superseded by " + _names(names)}


def _names(items: list[dict[str, Any]]) -> str:
    return ", ".join(f"{i['path']} ({i['title']})" for i in items)


def _path(resource: str) -> str:
    return resource.removeprefix("repo://").split("#", 1)[0]
