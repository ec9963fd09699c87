"""Building the evidence graph (`graph.build`): documents and pages, then claims, then the
references between them, then the search index. Pure: no I/O.

A build records how it went (`Links`), so that a rebuild given the previous graph redoes only
what changed, and still gives exactly the graph a fresh build gives (same nodes in the same order,
edges in the same order, same unresolved list):
- claims: when no sidecar page changed (nor its page), the claims' part of the graph is the
  previous graph's, read off as slices (it is built first, before any reference); check results
  that changed only change node data, so those claims and the spans they cite are recomputed;
- references: each document's resolved references are logged (graph_refs) and the log is
  replayed, in the order a fresh build visits the documents, for every document that is the same
  object while everything references resolve against (`_context`) is equal;
- the search index is built again (graph_search: it costs little more than tokenising).

The claims' part depends on no prose document (`claims_part`), so graph_build builds it while
the documents are still being split, and `link` adds the documents to it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from openwiki_git.graph.core import ID_DIRS, Graph, Node, Unresolved, _ClaimData, _worse, id_key
from openwiki_git.graph.refs import EDGE, SPAN, UNRESOLVED, Resolver
from openwiki_git.graph.search import Terms, build_index, tokenize
from openwiki_git.markdown.document import Document
from openwiki_git.model import ClaimResult, Sidecar

_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)
_TITLE_ID = re.compile(r"^\s*([A-Z]{2,}(?:[A-Z0-9]*[A-Z])?)[-_ ]?([0-9]+)\b")
_NUMBERED = re.compile(r"^([0-9]+)[-_]")
_NAMED_ID = re.compile(r"^(ADR|RFC|PEP)[-_]?0*([0-9]+)(?:[-_.]|$)", re.I)  # adr-012-x.md, RFC1234.md


@dataclass
class Links:
    """How a graph was built, for a rebuild (see the module's docstring)."""

    context: Any = None  # what references resolved against (_context)
    sidecar_pages: tuple[str, ...] = ()
    placeholders: list[tuple[str, Document]] = field(default_factory=list)  # pages added for sidecars without one
    # The graph right after the claims were added, as slices of the finished graph: nodes
    # [start:end] in order, the first n entries of each adjacency list, the first n unresolved.
    claim_nodes: tuple[int, int] = (0, 0)
    claim_adj: dict[str, int] = field(default_factory=dict)
    claim_unresolved: int = 0
    refs: dict[str, tuple[Document, list[tuple[Any, ...]]]] = field(default_factory=dict)  # doc id -> (document, log)
    # Search index entries, tokenised: "" -> (the pages, or None when the claims were not read
    # off the previous graph; entries of pages and claims); doc id -> (document, its entries).
    terms: dict[str, tuple[Any, Terms]] = field(default_factory=dict)


def build(
    *,
    docs: Sequence[Document],
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar] | None,
    results: Mapping[str, ClaimResult] | None,
    files: Collection[str],
    wiki_dir: str,
    previous: Graph | None = None,
    unchanged: Collection[str] = (),
) -> Graph:
    """The graph of `docs` (repository paths), `pages` ((page name, split page)), the claims of
    `sidecars` with their check `results` (by claim id; missing ones are "unchecked"), and the
    tracked `files` that links may point to. Deterministic: inputs are visited in sorted order.
    With `previous` (a graph built before, with its `links`), what did not change is replayed
    instead of worked out again: `unchanged` names the sidecar pages whose sidecar and page text
    are those `previous` was built from (their check results may differ); `sidecars=None` says
    every sidecar page and every check result is unchanged (`results` is then not read)."""
    part = claims_part(
        pages=pages, sidecars=sidecars, results=results, wiki_dir=wiki_dir, previous=previous, unchanged=unchanged
    )
    return link(part, docs=docs, files=files, wiki_dir=wiki_dir, previous=previous)


@dataclass
class ClaimsPart:
    """The first half of a build, which needs no prose document: the pages and the claims (see
    `claims_part`). `link` adds the documents and the references."""

    graph: Graph
    pages: list[tuple[str, Document]]
    links: Links
    terms: Terms  # the search index's entries for pages, their sections and claims


def claims_part(
    *,
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar] | None,
    results: Mapping[str, ClaimResult] | None,
    wiki_dir: str,
    previous: Graph | None = None,
    unchanged: Collection[str] = (),
) -> ClaimsPart:
    """The pages and their claims, in a graph of their own: the part of a build that depends on
    no prose document, so it can be built while the documents are still being split."""
    g = Graph()
    old = previous.links if previous is not None and previous.links is not None else Links()
    pages = sorted(pages, key=lambda p: p[0])
    for name, d in pages:
        _add_document(g, "page:" + name, "page", d)
    links = Links()
    restored = _add_claims(g, pages, sidecars, results, wiki_dir, old, unchanged, previous, links)
    # The entries of pages and claims are those of the previous build when the claims were read
    # off it (same statements) and every page is the same document.
    read_from = tuple(g.docs.values()) if restored else None
    hit = old.terms.get("")
    same = read_from is not None and hit is not None and hit[0] is not None and len(hit[0]) == len(read_from)
    if same and hit is not None and read_from is not None and all(a is b for a, b in zip(hit[0], read_from)):
        terms = hit[1]
    else:
        terms = tokenize(_index_items(g, g.docs, claims=True))
    links.terms[""] = (read_from, terms)
    return ClaimsPart(g, pages, links, terms)


def link(
    part: ClaimsPart,
    *,
    docs: Sequence[Document],
    files: Collection[str],
    wiki_dir: str,
    previous: Graph | None = None,
    terms: Mapping[str, Terms] | None = None,
) -> Graph:
    """The whole graph: the documents first (their nodes come before the pages'), then the
    claims' part, then every reference, then the search index. The same graph, node order and
    all, as adding everything to one graph in that order. `terms` may hold documents' index
    entries made ahead (`document_terms`, by repository path), where they were split."""
    g = Graph()
    old = previous.links if previous is not None and previous.links is not None else Links()
    docs = sorted(docs, key=lambda d: d.path)
    for d in docs:
        _add_document(g, "doc:" + d.path, "doc", d)
    offset = len(g.nodes)  # the documents' nodes come first
    _merge(g, part.graph)
    start, end = part.links.claim_nodes
    links = replace(part.links, claim_nodes=(start + offset, end + offset), refs={}, terms=dict(part.links.terms))
    _add_refs(g, docs, part.pages, files, wiki_dir, old, links)
    # The pages' and claims' entries were tokenised with the claims' part (while documents were
    # being split): only the documents' are left.
    blocks = [part.terms]
    ahead = terms or {}
    for d in docs:  # a document's entries are kept with it: an unchanged one is not read again
        doc_id = "doc:" + d.path
        hit = old.terms.get(doc_id)
        entries = hit[1] if hit is not None and hit[0] is d else ahead.get(d.path) or document_terms(d)
        links.terms[doc_id] = (d, entries)
        blocks.append(entries)
    g.index = build_index(blocks)
    g.links = links
    g._seen = set()  # only needed while building
    return g


def _merge(g: Graph, part: Graph) -> None:
    """Add the claims' part (pages, claims, spans, files and their edges) after the documents:
    tables keep insertion order (documents, then pages), lists are extended in that order."""
    g.nodes.update(part.nodes)
    g.docs.update(part.docs)
    g.by_path.update(part.by_path)
    g.ids_of.update(part.ids_of)
    for table, more in ((g.titles, part.titles), (g.aliases, part.aliases)):
        for key, ids in more.items():
            have = table.get(key)
            if have is None:
                table[key] = ids
            else:
                have.extend(ids)
    assert not g.adj and not g.unresolved  # documents alone make no edge
    g.adj, g.unresolved, g._seen = part.adj, part.unresolved, part._seen


def _add_document(g: Graph, doc_id: str, kind: str, d: Document) -> None:
    g.add_node(doc_id, kind, d.title, d)
    g.docs[doc_id] = d
    g.by_path[d.path] = doc_id
    for title in dict.fromkeys([d.title, d.h1 or d.title]):
        g.titles.setdefault(" ".join(title.lower().split()), []).append(doc_id)
    g.ids_of[doc_id] = _doc_ids(d)
    for key in g.ids_of[doc_id]:
        g.aliases.setdefault(key, []).append(doc_id)


def _doc_ids(d: Document) -> list[str]:
    """A document's identifiers: front-matter `id`/`aliases`, an id opening the title
    (`ADR-0012: …`), or a numbered file in an ADR/RFC/PEP directory (`adr/0012-x.md`)."""
    found: list[str] = []
    for key in ("id", "aliases", "alias"):
        value = d.meta.get(key)
        for item in value if isinstance(value, list) else [value] if value else []:
            k = id_key(item)
            if k:
                found.append(k)
    m = _TITLE_ID.match(d.title)
    if m:
        found.append(f"{m.group(1)}-{int(m.group(2))}")
    parts = d.path.split("/")
    num = _NUMBERED.match(parts[-1])
    if num and len(parts) >= 2 and parts[-2].lower() in ID_DIRS:
        found.append(f"{ID_DIRS[parts[-2].lower()]}-{int(num.group(1))}")
    named = _NAMED_ID.match(parts[-1])
    if named:
        found.append(f"{named.group(1).upper()}-{int(named.group(2))}")
    return list(dict.fromkeys(found))


# -- claims -----------------------------------------------------------------------------------
def _add_claims(
    g: Graph,
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar] | None,
    results: Mapping[str, ClaimResult] | None,
    wiki_dir: str,
    old: Links,
    unchanged: Collection[str],
    previous: Graph | None,
    links: Links,
) -> bool:
    """The claims of every sidecar page (and the markers of pages without one), in page order.
    True when they were read off the previous graph (no sidecar page changed)."""
    start = len(g.nodes)
    same = previous is not None and previous.links is not None
    if sidecars is not None:
        same = same and tuple(sorted(sidecars)) == old.sidecar_pages and all(p in unchanged for p in sidecars)
    elif not same:
        raise ValueError("graph.build: sidecars=None needs the previous graph and its links")
    if same and previous is not None:
        _restore_claims(g, old, previous, links)
        if sidecars is not None:
            _update_results(g, sidecars, results or {})
    else:
        assert sidecars is not None
        _claims(g, pages, sidecars, results or {}, wiki_dir, links)
    links.claim_nodes = (start, len(g.nodes))
    links.claim_adj = dict(zip(g.adj, map(len, g.adj.values())))  # no edge before the claims'
    links.claim_unresolved = len(g.unresolved)
    for name, d in pages:  # markers on pages without a sidecar
        if name not in links.sidecar_pages:
            _markers(g, "page:" + name, d, {})
    return same


def _claims(
    g: Graph,
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar],
    results: Mapping[str, ClaimResult],
    wiki_dir: str,
    links: Links,
) -> None:
    split = dict(pages)
    links.sidecar_pages = tuple(sorted(sidecars))
    for page in links.sidecar_pages:
        page_id = "page:" + page
        if page_id not in g.nodes:  # a sidecar whose page is gone: its claims still need a home
            placeholder = Document(f"{wiki_dir}/{page}", page, {})
            _add_document(g, page_id, "page", placeholder)
            links.placeholders.append((page_id, placeholder))
        labels: dict[str, str] = {}
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
    for item in data.evidence:
        cite(claim_id, item["resource"], item["status"], item.get("current_resource"))


def _claim_data(page: str, claim: Any, result: ClaimResult | None) -> _ClaimData:
    status = result.status if result is not None else "unchecked"
    marked = claim.mark.status if claim.mark is not None else None
    present = result.marker_present if result is not None else True
    return _new(_ClaimData, (page, claim.statement, status, _evidence(claim, result), marked, present))


def _markers(g: Graph, page_id: str, d: Document | None, labels: dict[str, str]) -> set[str]:
    asserted: set[str] = set()
    if d is None:
        return asserted
    indexes = sorted(d.markers)
    for i, key in zip(indexes, d.keys_at(indexes)):
        for label in d.markers[i]:
            pid = f"{page_id}#{key}"
            if label in labels:
                g.add_edge(pid, "asserts", labels[label])
                asserted.add(labels[label])
            else:
                g.unresolved.append(Unresolved(pid, "marker", f"[^{label}]", "no claim on this page has that label"))
    return asserted


def _restore_claims(g: Graph, old: Links, previous: Graph, links: Links) -> None:
    """No sidecar page changed: the claims' part of the graph is read off the previous graph
    (`Links.claim_*`: slices of its nodes, adjacency lists and unresolved list). Placeholder
    pages' tables are added again, in page order."""
    start, end = old.claim_nodes
    g.nodes.update(list(previous.nodes.items())[start:end])
    for page_id, placeholder in old.placeholders:
        _add_document(g, page_id, "page", placeholder)
    g.adj.update({k: previous.adj[k][:n] for k, n in old.claim_adj.items()})
    g.unresolved.extend(previous.unresolved[: old.claim_unresolved])
    links.sidecar_pages, links.placeholders = old.sidecar_pages, old.placeholders


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
        worst = _worse(data.status, status)
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


# -- references -------------------------------------------------------------------------------
def _add_refs(
    g: Graph,
    docs: Sequence[Document],
    pages: Sequence[tuple[str, Document]],
    files: Collection[str],
    wiki_dir: str,
    old: Links,
    links: Links,
) -> None:
    """Every document's and page's references, in that order; a document's previous log is
    replayed when it is the same document and the context is equal."""
    resolver = Resolver(g, files, wiki_dir)
    links.context = _context(g, resolver)
    same_context = old.context is not None and old.context == links.context
    for doc_id, d in [*(("doc:" + d.path, d) for d in docs), *(("page:" + n, d) for n, d in pages)]:
        hit = old.refs.get(doc_id) if same_context else None
        if hit is not None and hit[0] is d:
            replay(g, hit[1])
            links.refs[doc_id] = hit
            continue
        resolver.log = []
        resolver.document(doc_id, d)
        links.refs[doc_id] = (d, resolver.log)


def _context(g: Graph, resolver: Resolver) -> tuple[Any, ...]:
    """Everything a reference resolves against but its own document: ids, titles, paths, the
    headings (anchor -> section) of every page and document, the tracked files."""
    anchors = {doc_id: tuple([(s.anchor, s.key) for s in d.sections]) for doc_id, d in g.docs.items()}
    return (resolver.wiki_dir, frozenset(resolver.files), g.aliases, g.titles, g.by_path, anchors)


# -- replay and index ------------------------------------------------------------------------
def replay(g: Graph, ops: list[tuple[Any, ...]]) -> None:
    """Apply a reference log's operations again, in order."""
    for op in ops:
        kind = op[0]
        if kind == EDGE:
            g.add_edge(op[1], op[2], op[3])
        elif kind == SPAN:
            g.span(op[1])
        else:
            assert kind == UNRESOLVED
            g.unresolved.append(op[1])


def document_terms(d: Document) -> Terms:
    """A prose document's search index entries (its title with its ids, its headings),
    tokenised: what `link` adds for it. graph_build has them made where the document is split."""
    return tokenize(_document_items("doc:" + d.path, d, _doc_ids(d)))


def _document_items(owner: str, d: Document, ids: Sequence[str]) -> list[tuple[str, str]]:
    items = [(owner, " ".join([d.title, *ids]))]
    items.extend([(f"{owner}#{s.key}", s.heading) for s in d.sections])
    return items


def _index_items(g: Graph, owners: Iterable[str], *, claims: bool = False) -> list[tuple[str, str]]:
    """Search index entries: the titles (with ids) and headings of the pages and documents
    `owners`, and with `claims` every claim statement of `g`."""
    items: list[tuple[str, str]] = []
    for owner in owners:
        items.extend(_document_items(owner, g.docs[owner], g.ids_of.get(owner, ())))
    if claims:
        items.extend([(node_id, node.label) for node_id, node in g.nodes.items() if node.kind == "claim"])
    return items
