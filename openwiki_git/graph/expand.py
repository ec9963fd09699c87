"""`expand`: a node of the evidence graph with its typed edges and, in the same answer, its
context within a budget of characters; or a walk along one edge type. Pure: reads a built
`core.Graph`; the cited lines of claims and spans come from the caller's `lines` reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openwiki_git.errors import UsageError
from openwiki_git.graph import context as graph_context
from openwiki_git.graph.core import EDGE_TYPES, INVERSE, Graph
from openwiki_git.graph.summary import LinesReader, detail, summary


def expand(
    g: Graph,
    node: str,
    *,
    edges: Sequence[str] | None = None,
    hops: int = 1,
    lines: LinesReader | None = None,
    depth: int = 1,
    max_chars: int = graph_context.MAX_CHARS,
) -> dict[str, Any]:
    """The node and its typed edges. With `hops > 1` and one edge type: walk that edge while
    there is exactly one way on, stop at a branch, the end, a cycle or the hop limit, and
    return the path with the last node expanded.

    `depth` adds context to the expanded node, within `max_chars` characters of text in all:
    0 none; 1 the paragraphs of the node's section (of the whole page or document for one)
    and the first lines of each neighbour's text; 2 also the paragraphs of each document it
    supersedes, is superseded by, amends or is amended by. `truncated: true` says the
    budget ran out."""
    types = _edge_types(edges)
    if hops < 1:
        raise UsageError("--hops must be at least 1")
    if depth < 0 or depth > 2:
        raise UsageError(f"depth must be 0, 1 or 2 (got {depth})")
    if max_chars < 0:
        raise UsageError(f"max_chars must be 0 or more (got {max_chars})")
    ctx = (graph_context.Budget(max_chars), depth)
    start = g.resolve_id(node)
    owner = start.split("#", 1)[0]
    if types and owner != start and owner in g.docs and all(t in graph_context.RELATION_EDGES for t in types):
        start = owner  # supersession and amendment are between documents: a paragraph's are its document's
    if hops == 1:
        stale: set[str] = set()
        out = _expand_one(g, start, types, stale, lines, ctx)
        out["stale_claims"] = sorted(stale)
        return out
    if types is None or len(types) != 1:
        raise UsageError("--hops above 1 walks one edge type", "pass exactly one --edges TYPE, e.g. superseded_by")
    return _walk(g, start, types[0], hops, lines, ctx)


def _expand_one(
    g: Graph,
    node_id: str,
    types: Sequence[str] | None,
    stale: set[str],
    lines: LinesReader | None,
    ctx: tuple[graph_context.Budget, int] | None = None,
) -> dict[str, Any]:
    edges = [{"type": e, "target": summary(g, t, stale)} for e, t in g.edges(node_id, types)]
    out = {"node": detail(g, node_id, stale, lines), "edges": edges}
    if ctx is not None and ctx[1] > 0:
        _context(g, out, *ctx)
    return out


def _context(g: Graph, out: dict[str, Any], budget: graph_context.Budget, depth: int) -> None:
    """`expand`'s context (see there), in place: the node's text first, then the section's
    paragraphs, then the neighbours' first lines, then (depth 2) related documents' text."""
    node = out["node"]
    nid, kind = node["id"], node["kind"]
    if "text" in node and kind == "paragraph":
        node["text"] = budget.take(node["text"]) or ""
    owner = nid.split("#", 1)[0]
    if kind in ("page", "doc", "section", "paragraph") and owner in g.docs:
        section = None if kind in ("page", "doc") else g.node(nid).data[1].key if kind == "section" else node.get("section")  # type: ignore[union-attr]
        if kind == "paragraph":
            d, i = g.node(nid).data  # type: ignore[union-attr]
            section = d.section_of(i)
            node["section"] = f"{owner}#{section}" if section else owner
        node["paragraphs"] = graph_context.paragraphs_of(g, owner, section, budget, skip=nid)
    for e in out["edges"]:
        target = e["target"]
        if e["type"] in graph_context.STRUCTURAL and kind in ("page", "doc", "section"):
            continue  # their text is in `paragraphs`
        if target["kind"] in ("page", "doc", "section", "paragraph"):
            text = graph_context.first_lines(g, target["id"], target["kind"])
            if text:
                got = budget.take(text)
                if got is None:
                    break
                target["text"] = got
    if depth > 1:
        for e in out["edges"]:
            target = e["target"]
            if e["type"] in graph_context.RELATION_EDGES and target["kind"] in ("page", "doc"):
                target["paragraphs"] = graph_context.paragraphs_of(g, target["id"], None, budget)
    if budget.cut:
        out["truncated"] = True


def _walk(
    g: Graph, start: str, etype: str, hops: int, lines: LinesReader | None, ctx: tuple[graph_context.Budget, int] | None = None
) -> dict[str, Any]:
    path, seen, current = [start], {start}, start
    stopped, branches = "hops", []
    for _ in range(hops):
        nxt = [t for _, t in g.edges(current, (etype,))]
        if not nxt:
            stopped = "end"
            break
        if len(nxt) > 1:
            stopped, branches = "branch", nxt
            break
        if nxt[0] in seen:
            stopped = "cycle"
            break
        current = nxt[0]
        path.append(current)
        seen.add(current)
    else:
        after = [t for _, t in g.edges(current, (etype,))]
        if not after:
            stopped = "end"
        elif len(after) > 1:
            stopped, branches = "branch", after
    stale: set[str] = set()
    out: dict[str, Any] = {
        "start": summary(g, start, stale),
        "edge": etype,
        "hops": hops,
        "path": [summary(g, n, stale) for n in path],
        "stopped": stopped,
    }
    if branches:
        out["branches"] = [summary(g, b, stale) for b in branches]
    out["end"] = _expand_one(g, current, None, stale, lines, ctx)
    out["stale_claims"] = sorted(stale)
    return out


def _edge_types(edges: Sequence[str] | None) -> list[str] | None:
    if not edges:
        return None
    out = []
    for item in edges:
        for name in item.split(","):
            name = name.strip().replace("-", "_")
            if not name:
                continue
            if name not in INVERSE:
                raise UsageError(f"unknown edge type {name!r}", f"use one of: {', '.join(EDGE_TYPES)}")
            out.append(name)
    return list(dict.fromkeys(out)) or None
