"""What a node looks like in an answer: `summary` (a short, self-describing view) and `detail`
(the summary with the node's own content: a paragraph's text, a document's front matter, a
claim's evidence with the lines it cites). Pure: reads a built `core.Graph`; no I/O.

Every result that shows a claim carries its `status` and `stale` (true unless the check found it
fresh, or when it cites a superseded document: then `cites_superseded` holds citestale's
notices, each naming the superseding document), and the caller's `stale` set collects such
claims, so an agent never takes a stale claim for a fact. Pages, documents and their sections
and paragraphs carry their document's standing (context.standing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openwiki_git.graph import citestale
from openwiki_git.graph import context as graph_context
from openwiki_git.graph.core import ClaimData, Graph, split_canonical

LinesReader = Callable[[str], "str | None"]  # the cited lines of a `repo://` resource as they are now


def summary(g: Graph, node_id: str, stale: set[str] | None = None) -> dict[str, Any]:
    """A short, self-describing view of a node; claims carry status and stale."""
    node = g.node(node_id)
    assert node is not None, node_id
    out: dict[str, Any] = {"id": node_id, "kind": node.kind, "label": node.label}
    data = node.data
    if node.kind == "claim":
        out.update(_claim_summary(data))
        cited = cited_documents(g, data)
        if cited:
            out["cited_documents"] = cited
            superseded = [c for c in cited if c["standing"] == "superseded"]
            if superseded:  # said as check and lint say it, so no second call is needed to learn why
                out["stale"] = True
                out["cites_superseded"] = [_superseded_notice(g, c) for c in superseded]
        if out["stale"] and stale is not None:
            stale.add(node_id)
    elif node.kind in ("page", "doc"):
        out["path"] = data.path
        _standing(g, out, node_id)
    elif node.kind == "section":
        out.update(path=data[0].path, line=data[1].line, document=node_id.split("#", 1)[0])
        _standing(g, out, out["document"])
    elif node.kind == "paragraph":
        d, i = data
        out.update(path=d.path, lines=[d.starts[i], d.ends[i]], document=node_id.split("#", 1)[0])
        _standing(g, out, out["document"])
        claims = [t for e, t in g.adj.get(node_id, ()) if e == "asserts"]
        if claims:
            out["claims"] = [_claim_brief(g, c, stale) for c in claims]
    elif node.kind == "span":
        out.update(path=data.path, lines=[data.start, data.end], status=data.status)
        if data.current_resource and data.current_resource != node_id:
            out["current_resource"] = data.current_resource
    elif node.kind == "file":
        out["path"] = data
    return out


def _standing(g: Graph, out: dict[str, Any], doc_id: str) -> None:
    """A page's or document's standing (graph_context.standing) on a summary of it or of
    one of its sections or paragraphs: `standing` (current, superseded, amended), and when
    not current `superseded: true`, `superseded_by`, `head` (the document in force) or
    `amended: true`, `amended_by`."""
    got = graph_context.standing(g, doc_id)
    out["standing"] = got["status"]
    if "declared" in got:
        out["declared_status"] = got["declared"]
    if "superseded_by" in got:
        out.update(superseded=True, superseded_by=got["superseded_by"], head=got["head"])
    if "amended_by" in got:
        out.update(amended=True, amended_by=got["amended_by"])


def cited_documents(g: Graph, data: ClaimData) -> list[dict[str, Any]]:
    """The prose documents a claim cites that are not in force as they were: superseded
    (a stale belief: the claim is flagged stale) or amended. [{document, standing, by}]."""
    out: list[dict[str, Any]] = []
    for ev in data.evidence:
        path = split_canonical(ev["resource"])[1]
        doc_id = g.by_path.get(path) if path.endswith(".md") else None
        if doc_id is None or not doc_id.startswith("doc:"):
            continue
        got = graph_context.standing(g, doc_id)
        if got["status"] != "current" and all(c["document"] != doc_id for c in out):
            by = got.get("superseded_by") or got.get("amended_by") or []
            item = {"document": doc_id, "standing": got["status"], "by": by}
            if "head" in got:
                item["head"] = got["head"]
            out.append(item)
    return out


def _superseded_notice(g: Graph, cited: dict[str, Any]) -> dict[str, Any]:
    """citestale's notice ({source, kind, by: [{path, title}], note}) for one cited document."""
    by = [(g.docs[t].path, g.docs[t].title) for t in cited["by"] if t in g.docs]
    return citestale.superseded_notice(g.docs[cited["document"]].path, by)


def _claim_brief(g: Graph, claim_id: str, stale: set[str] | None) -> dict[str, Any]:
    data = g.nodes[claim_id].data
    is_stale = data.status != "fresh" or data.marked is not None
    is_stale = is_stale or any(c["standing"] == "superseded" for c in cited_documents(g, data))
    if is_stale and stale is not None:
        stale.add(claim_id)
    return {"id": claim_id, "statement": data.statement, "status": data.status, "stale": is_stale}


def detail(g: Graph, node_id: str, stale: set[str], lines: LinesReader | None = None) -> dict[str, Any]:
    """The summary plus the node's own content: a paragraph's text, a document's front
    matter, a claim's evidence with reasons, a span's cited lines."""
    out = summary(g, node_id, stale)
    node = g.node(node_id)
    assert node is not None
    if node.kind == "paragraph":
        d, i = node.data
        out["text"] = d.text(i)
    elif node.kind in ("page", "doc"):
        out["title"] = node.data.title
        out["ids"] = list(g.ids_of.get(node_id, ()))
        if node.data.meta:
            out["front_matter"] = node.data.meta
        refs = graph_context.references(g, node_id)
        if refs:
            out["references"] = [summary(g, r, stale) for r in refs]
    elif node.kind == "section":
        out["heading"] = node.data[1].heading
    if lines is not None and node.kind in ("claim", "span"):
        _add_lines(out, lines)
    return out


def _add_lines(out: dict[str, Any], lines: LinesReader) -> None:
    if out["kind"] == "span":
        out["text"] = lines(out.get("current_resource") or out["id"])
    elif out["kind"] == "claim":
        for ev in out["evidence"]:
            where = ev.get("current_resource") or ev["resource"]
            ev["text"] = lines(where) if "#L" in where else None


def _claim_summary(data: ClaimData) -> dict[str, Any]:
    out: dict[str, Any] = {
        "statement": data.statement,
        "status": data.status,
        "stale": data.status != "fresh" or data.marked is not None,
        "page": data.page,
        "evidence": [dict(e) for e in data.evidence],
    }
    if data.marked:
        out["marked"] = data.marked
    if not data.marker_present:
        out["marker_present"] = False
    return out
