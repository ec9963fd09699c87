"""`locate`: ranked starting points in the evidence graph for a few words. Pure: reads a built
`core.Graph` (and builds its text index on the first search: context.text_index); no I/O.

Two BM25 indexes are searched: the graph's own (`Graph.index`: page and document titles with
their identifiers, headings, claim statements) and the text index (every prose paragraph). A
page or document appears once, by its best-matching entry; a superseded document ranks a little
below a current one that matches about as well.
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Sequence
from typing import Any

from openwiki_git.errors import UsageError
from openwiki_git.graph import context as graph_context
from openwiki_git.graph.core import Graph
from openwiki_git.graph.search import bm25, has, tokens
from openwiki_git.graph.summary import summary

SUPERSEDED_WEIGHT = 0.7  # a superseded document's score, relative to a current one's

# A candidate: (-score, node id, entry), entry ("m", i) in the graph's index or ("t", n) in the
# text index; a ranked one adds its page or document (None for a claim).
Candidate = tuple[float, str, tuple[str, int]]
Ranked = tuple[float, str, tuple[str, int], "str | None"]


def locate(g: Graph, terms: str | Sequence[str], *, within: str | None = None, limit: int = 10) -> dict[str, Any]:
    """Ranked starting points: BM25 over page titles, document titles, headings and claim
    statements, and over what pages and documents say (every prose paragraph); ties broken
    by node id. A page or document appears once, by its best-matching title, section or
    paragraph (`more` counts its other matches); each result carries its document's
    standing (superseded, its `head`, amended) and the first lines of its text. `within`
    keeps nodes under that node."""
    query = terms if isinstance(terms, str) else " ".join(terms)
    words = list(dict.fromkeys(tokens(query)))
    if not words:
        raise UsageError(f"no search words in {query!r}", "give words from a title, heading, paragraph or statement")
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    root = g.resolve_id(within) if within else None
    scope = nodes_within(g, root) if root else None
    scores = bm25(g.index, words, scope)
    ids = g.index.ids
    pool = limit * 4 + 20
    # Scores are summed in query-word order, so equal inputs give equal floats.
    cands: list[Candidate] = [
        (-sc, ids[i], ("m", i)) for i, sc in heapq.nsmallest(pool, scores.items(), key=lambda x: (-x[1], ids[x[0]]))
    ]
    cands += _text_candidates(g, words, root, pool)
    ranked, more = _rank(g, cands)
    stale: set[str] = set()
    results: list[dict[str, Any]] = []
    for neg, nid, (where, i), owner in ranked[:limit]:
        index = g.index if where == "m" else graph_context.text_index(g).index
        matched = [w for w in words if has(index, w, i)]
        hit = {"rank": len(results) + 1, "score": round(-neg, 4), "matched": matched, **summary(g, nid, stale)}
        if owner is not None and more[owner] > 0:
            hit["more"] = more[owner]
        text = graph_context.first_lines(g, nid, hit["kind"])
        if text:
            hit["text"] = text
        results.append(hit)
    return {
        "query": query,
        "terms": words,
        "within": root,
        "limit": limit,
        "results": results,
        "stale_claims": sorted(stale),
    }


def _rank(g: Graph, cands: list[Candidate]) -> tuple[list[Ranked], dict[str, int]]:
    """The candidates ranked, and how many more matches each page or document has. A page or
    document ranks by its best title-or-heading match plus its best paragraph match, shown by
    the best single entry; a claim ranks alone."""
    best: dict[str, Candidate] = {}
    parts: dict[str, dict[str, float]] = {}
    ranked: list[Ranked] = []
    for cand in cands:
        nid = cand[1]
        owner = nid.split("#", 1)[0] if nid.startswith(("doc:", "page:")) else None
        if owner is None:
            ranked.append((cand[0], nid, cand[2], None))
            continue
        if owner not in best or cand < best[owner]:
            best[owner] = cand
        got = parts.setdefault(owner, {})
        got[cand[2][0]] = min(got.get(cand[2][0], 0.0), cand[0])
    more = {o: -1 for o in best}
    for cand in cands:
        if cand[1].startswith(("doc:", "page:")):
            more[cand[1].split("#", 1)[0]] += 1
    # A superseded document ranks a little below a current one that matches about as well:
    # the question is usually what governs now (it still shows, with its `head`).
    ranked += [(sum(parts[o].values()) * (SUPERSEDED_WEIGHT if _superseded(g, o) else 1.0), c[1], c[2], o) for o, c in best.items()]
    ranked.sort(key=lambda r: (r[0], r[1]))
    return ranked, more


def _superseded(g: Graph, doc_id: str) -> bool:
    return any(e == "superseded_by" for e, _ in g.adj.get(doc_id, ()))


def _text_candidates(g: Graph, words: list[str], root: str | None, pool: int) -> list[Candidate]:
    """The best paragraphs for `words` (within `root`: its page or document, its section)."""
    owner, section = None, None
    if root is not None:
        owner, _, key = root.partition("#")
        if owner not in g.docs:
            return []
        section = key.split("~", 1)[0] if key else None
        if "~" in key:  # within a paragraph: that paragraph only
            section = None
    ti = graph_context.text_index(g)
    got = ti.search(words, [owner] if owner else None)
    if section:
        prefix = section + "/"
        got = {
            n: sc
            for n, sc in got.items()
            if (w := g.docs[ti.paragraphs[n][0]].section_of(ti.paragraphs[n][1])) == section or w.startswith(prefix)
        }
    if root is not None and owner is not None and "~" in root:
        d = g.docs[owner]
        got = {n: sc for n, sc in got.items() if f"{owner}#{d.key(ti.paragraphs[n][1])}" == root}
    # The best `pool` by score (C-level key; equal scores keep entry order: deterministic).
    top = heapq.nlargest(pool, got.items(), key=operator.itemgetter(1))
    out = []
    for n, sc in top:
        owner_id, i = ti.paragraphs[n]
        out.append((-sc, f"{owner_id}#{g.docs[owner_id].key(i)}", ("t", n)))
    return out


def nodes_within(g: Graph, node_id: str) -> set[str]:
    """The node and everything it contains, with the claims those paragraphs assert."""
    owner, _, key = node_id.partition("#")
    if owner in g.docs and "~" not in key:
        return _within_document(g, node_id, owner, key)
    seen = {node_id}
    todo = [node_id]
    while todo:
        for _etype, target in g.edges(todo.pop(), ("contains", "asserts")):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _within_document(g: Graph, node_id: str, owner: str, key: str) -> set[str]:
    """`nodes_within` for a page, a document or a section, read off the document's structure."""
    d = g.docs[owner]
    prefix = key + "/" if key else ""
    out = {node_id}
    out.update(f"{owner}#{s.key}" for s in d.sections if s.key.startswith(prefix) or s.key == key)
    for i in d.markers:
        section = d.section_of(i)
        if not key or section == key or section.startswith(prefix):
            pid = f"{owner}#{d.key(i)}"
            out.update(t for e, t in g.adj.get(pid, ()) if e == "asserts")
    if not key:
        out.update(t for e, t in g.adj.get(owner, ()) if e == "asserts")
    return out
