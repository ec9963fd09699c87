"""The claims' part of a build: the pages, the claims of their sidecars with their check results,
the spans and files the claims cite, and the markers that assert them, in a graph of its own.
It depends on no prose document, so graph_build builds it while the documents are still being
split, and `link` adds the documents to it. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openwiki_git.evidence.kinds import cited_files, looks_like_kind
from openwiki_git.formats import pagenames
from openwiki_git.graph.buildlog import BuildLog
from openwiki_git.graph.core import ClaimData, Graph, Node, Unresolved, worse
from openwiki_git.graph.documents import add_document, index_items
from openwiki_git.graph.search import Terms, tokenize
from openwiki_git.markdown.document import Document
from openwiki_git.model import ClaimResult, Sidecar
from openwiki_git.pages import rst_markers

_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)


@dataclass
class ClaimGraph:
    """The first half of a build, which needs no prose document: the pages and the claims (see
    `build_claim_graph`). `link` adds the documents and the references."""

    graph: Graph
    pages: list[tuple[str, Document]]
    log: BuildLog
    terms: Terms  # the search index's entries for pages, their sections and claims


def build_claim_graph(
    *,
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar] | None,
    results: Mapping[str, ClaimResult] | None,
    wiki_dir: str,
    previous: Graph | None = None,
    unchanged: Collection[str] = (),
) -> ClaimGraph:
    """The pages and their claims, in a graph of their own: the part of a build that depends on
    no prose document, so it can be built while the documents are still being split."""
    g = Graph()
    old = previous.build_log if previous is not None and previous.build_log is not None else BuildLog()
    pages = sorted(pages, key=lambda p: p[0])
    for name, d in pages:
        add_document(g, "page:" + name, "page", d)
    log = BuildLog()
    restored = _add_claims(g, pages, sidecars, results, wiki_dir, old, unchanged, previous, log)
    # The entries of pages and claims are those of the previous build when the claims were read
    # off it (same statements) and every page is the same document.
    read_from = tuple(g.docs.values()) if restored else None
    hit = old.terms.get("")
    same = read_from is not None and hit is not None and hit[0] is not None and len(hit[0]) == len(read_from)
    if same and hit is not None and read_from is not None and all(a is b for a, b in zip(hit[0], read_from)):
        terms = hit[1]
    else:
        terms = tokenize(index_items(g, g.docs, claims=True))
    log.terms[""] = (read_from, terms)
    return ClaimGraph(g, pages, log, terms)


# -- claims -----------------------------------------------------------------------------------
def _add_claims(
    g: Graph,
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar] | None,
    results: Mapping[str, ClaimResult] | None,
    wiki_dir: str,
    old: BuildLog,
    unchanged: Collection[str],
    previous: Graph | None,
    log: BuildLog,
) -> bool:
    """The claims of every sidecar page (and the markers of pages without one), in page order.
    True when they were read off the previous graph (no sidecar page changed)."""
    start = len(g.nodes)
    same = previous is not None and previous.build_log is not None
    if sidecars is not None:
        same = same and tuple(sorted(sidecars)) == old.sidecar_pages and all(p in unchanged for p in sidecars)
    elif not same:
        raise ValueError("graph.link.build: sidecars=None needs the previous graph and its build log")
    if same and previous is not None:
        _restore_claims(g, old, previous, log)
        if sidecars is not None:
            _update_results(g, sidecars, results or {})
    else:
        assert sidecars is not None
        _claims(g, pages, sidecars, results or {}, wiki_dir, log)
    log.claim_nodes = (start, len(g.nodes))
    log.claim_adj = dict(zip(g.adj, map(len, g.adj.values())))  # no edge before the claims'
    log.claim_unresolved = len(g.unresolved)
    for name, d in pages:  # markers on pages without a sidecar
        if name not in log.sidecar_pages:
            _markers(g, "page:" + name, d, {})
    return same


def _claims(
    g: Graph,
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar],
    results: Mapping[str, ClaimResult],
    wiki_dir: str,
    log: BuildLog,
) -> None:
    split = dict(pages)
    log.sidecar_pages = tuple(sorted(sidecars))
    for page in log.sidecar_pages:
        page_id = "page:" + page
        if page_id not in g.nodes:  # a sidecar whose page is gone: its claims still need a home
            placeholder = Document(f"{wiki_dir}/{page}", page, {})
            add_document(g, page_id, "page", placeholder)
            log.placeholders.append((page_id, placeholder))
        labels: dict[str, str] = {}
        g.claim_aliases.update(sidecars[page].aliases)
        for claim in sidecars[page].claims:
            labels["c-" + claim.id.removeprefix("claim_")[:8]] = claim.id
            _add_claim(g, page, claim, results.get(claim.id))
        asserted = _markers(g, page_id, split.get(page), labels)
        for claim in sidecars[page].claims:
            if claim.id not in asserted:
                g.add_edge(page_id, "asserts", claim.id)


def _add_claim(g: Graph, page: str, claim: Any, result: ClaimResult | None) -> None:
    data = _claim_data(page, claim, result)
    claim_id, cite = claim.id, g.cite
    if claim_id not in g.nodes:
        g.nodes[claim_id] = _new(Node, ("claim", claim.statement, data))
    for item, ev in zip(data.evidence, claim.evidence, strict=True):
        if looks_like_kind(ev.resource):  # a definition cites its file, a set every member it lists
            for target in dict.fromkeys(cited_files(ev.resource, ev.version)):
                cite(claim_id, target, item["status"], None)
            continue
        cite(claim_id, item["resource"], item["status"], item.get("current_resource"))


def _claim_data(page: str, claim: Any, result: ClaimResult | None) -> ClaimData:
    status = result.status if result is not None else "unchecked"
    marked = claim.mark.status if claim.mark is not None else None
    present = result.marker_present if result is not None else True
    return _new(ClaimData, (page, claim.statement, status, _evidence(claim, result), marked, present))


def _markers(g: Graph, page_id: str, d: Document | None, labels: dict[str, str]) -> set[str]:
    asserted: set[str] = set()
    if d is None:
        return asserted
    found = dict(d.markers)
    if page_id.endswith(pagenames.RST):  # a reST marker line follows its paragraph (pages/rst_markers.py)
        found.update(_rst_markers(d))
    indexes = sorted(found)
    for i, key in zip(indexes, d.keys_at(indexes)):
        for label in found[i]:
            pid = f"{page_id}#{key}"
            if label in labels:
                g.add_edge(pid, "asserts", labels[label])
                asserted.add(labels[label])
            else:
                g.unresolved.append(Unresolved(pid, "marker", f"[^{label}]", "no claim on this page has that label"))
    return asserted


def _rst_markers(d: Document) -> dict[int, tuple[str, ...]]:
    """A reStructuredText page's markers: a paragraph of marker lines (`.. c-1a2b3c4d`) gives its
    labels to the paragraph before it, which holds the claims' sentences."""
    out: dict[int, tuple[str, ...]] = {}
    for i, text in enumerate(d.texts):
        labels = [m.group(2) for m in rst_markers.LINE.finditer(text)]
        if i > 0 and labels and len(labels) == len([ln for ln in text.split("\n") if ln.strip()]):
            out[i - 1] = out.get(i - 1, ()) + tuple(labels)
    return out


def _restore_claims(g: Graph, old: BuildLog, previous: Graph, log: BuildLog) -> None:
    """No sidecar page changed: the claims' part of the graph is read off the previous graph
    (`BuildLog.claim_*`: slices of its nodes, adjacency lists and unresolved list). Placeholder
    pages' tables are added again, in page order."""
    start, end = old.claim_nodes
    g.nodes.update(list(previous.nodes.items())[start:end])
    for page_id, placeholder in old.placeholders:
        add_document(g, page_id, "page", placeholder)
    g.adj.update({k: previous.adj[k][:n] for k, n in old.claim_adj.items()})
    g.unresolved.extend(previous.unresolved[: old.claim_unresolved])
    g.claim_aliases.update(getattr(previous, "claim_aliases", {}))  # a graph cached before aliases existed has none
    log.sidecar_pages, log.placeholders = old.sidecar_pages, old.placeholders


def _update_results(g: Graph, sidecars: Mapping[str, Sidecar], results: Mapping[str, ClaimResult]) -> None:
    """Check results only change node data: the claims whose data differ are replaced (in
    place, so the node order stands), and the spans they cite get their status again."""
    touched: dict[str, None] = {}
    for page in sorted(sidecars):
        for claim in sidecars[page].claims:
            node = g.nodes[claim.id]
            data = _claim_data(page, claim, results.get(claim.id))
            if node.data != data and node.data.page == page:  # (a duplicate id is the first page's)
                g.nodes[claim.id] = Node("claim", claim.statement, data)
                touched.update(dict.fromkeys(item["resource"] for item in data.evidence))
    for resource in touched:
        _span_status(g, resource)


def _span_status(g: Graph, resource: str) -> None:
    """A span's status and current resource as Graph.cite folds them, claim after claim in the
    order they cite it (its `cited_by` edges)."""
    node = g.nodes.get(resource)
    if node is None or node.kind != "span":
        return
    data = None
    for etype, claim_id in g.adj.get(resource, ()):
        if etype != "cited_by":
            continue
        item = next(e for e in g.nodes[claim_id].data.evidence if e["resource"] == resource)
        status, current = item["status"], item.get("current_resource")
        if data is None:  # the first citing claim made the span
            data = node.data._replace(status=status, current_resource=current)
            continue
        worst = worse(data.status, status)
        if worst != data.status or (current and not data.current_resource):
            data = data._replace(status=worst, current_resource=current)
    if data is not None:
        g.nodes[resource] = node._replace(data=data)


def _evidence(claim: Any, result: ClaimResult | None) -> tuple[dict[str, Any], ...]:
    """Each cited resource with its status (and, when it moved or is not fresh, where and why)."""
    if result is None:
        return tuple([{"resource": ev.resource, "status": "unchecked"} for ev in claim.evidence])
    by_resource = {r.resource: r for r in result.evidence}
    evidence = []
    for ev in claim.evidence:
        r = by_resource.get(ev.resource)
        item: dict[str, Any] = {"resource": ev.resource, "status": r.status if r else "unchecked"}
        if r is not None and r.current_resource and r.current_resource != ev.resource:
            item["current_resource"] = r.current_resource
        if r is not None and r.status != "fresh":
            item["reason"] = r.reason
        evidence.append(item)
    return tuple(evidence)
