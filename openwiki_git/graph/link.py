"""Building the evidence graph (`build`): documents and pages, then claims (claim_graph), then the
references between them (refs), then the search index. Pure: no I/O.

A build records how it went (buildlog.BuildLog), so that a rebuild given the previous graph
redoes only what changed and still gives exactly the graph a fresh build gives. The claims' part
depends on no prose document (`claim_graph.build_claim_graph`), so graph_build builds it while the
documents are still being split, and `link` adds the documents to it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from openwiki_git.graph.buildlog import BuildLog, replay
from openwiki_git.graph.claim_graph import ClaimGraph, build_claim_graph
from openwiki_git.graph.core import Graph
from openwiki_git.graph.documents import add_document, document_terms
from openwiki_git.graph.refs import Resolver
from openwiki_git.graph.search import Terms, build_index
from openwiki_git.markdown.document import Document
from openwiki_git.model import ClaimResult, Sidecar


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
    With `previous` (a graph built before, with its `build_log`), what did not change is replayed
    instead of worked out again: `unchanged` names the sidecar pages whose sidecar and page text
    are those `previous` was built from (their check results may differ); `sidecars=None` says
    every sidecar page and every check result is unchanged (`results` is then not read)."""
    part = build_claim_graph(
        pages=pages, sidecars=sidecars, results=results, wiki_dir=wiki_dir, previous=previous, unchanged=unchanged
    )
    return link(part, docs=docs, files=files, wiki_dir=wiki_dir, previous=previous)


def link(
    part: ClaimGraph,
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
    old = previous.build_log if previous is not None and previous.build_log is not None else BuildLog()
    docs = sorted(docs, key=lambda d: d.path)
    for d in docs:
        add_document(g, "doc:" + d.path, "doc", d)
    offset = len(g.nodes)  # the documents' nodes come first
    g.merge(part.graph)
    start, end = part.log.claim_nodes
    log = replace(part.log, claim_nodes=(start + offset, end + offset), refs={}, terms=dict(part.log.terms))
    _add_refs(g, docs, part.pages, files, wiki_dir, old, log)
    # The pages' and claims' entries were tokenised with the claims' part (while documents were
    # being split): only the documents' are left.
    blocks = [part.terms]
    ahead = terms or {}
    for d in docs:  # a document's entries are kept with it: an unchanged one is not read again
        doc_id = "doc:" + d.path
        hit = old.terms.get(doc_id)
        entries = hit[1] if hit is not None and hit[0] is d else ahead.get(d.path) or document_terms(d)
        log.terms[doc_id] = (d, entries)
        blocks.append(entries)
    g.index = build_index(blocks)
    g.build_log = log
    g.built()
    return g


# -- references -------------------------------------------------------------------------------
def _add_refs(
    g: Graph,
    docs: Sequence[Document],
    pages: Sequence[tuple[str, Document]],
    files: Collection[str],
    wiki_dir: str,
    old: BuildLog,
    log: BuildLog,
) -> None:
    """Every document's and page's references, in that order; a document's previous log is
    replayed when it is the same document and the resolution context is equal."""
    resolver = Resolver(g, files, wiki_dir)
    log.context = resolution_context(g, resolver)
    same_context = old.context is not None and old.context == log.context
    for doc_id, d in [*(("doc:" + d.path, d) for d in docs), *(("page:" + n, d) for n, d in pages)]:
        hit = old.refs.get(doc_id) if same_context else None
        if hit is not None and hit[0] is d:
            replay(g, hit[1])
            log.refs[doc_id] = hit
            continue
        resolver.log = []
        resolver.document(doc_id, d)
        log.refs[doc_id] = (d, resolver.log)


def resolution_context(g: Graph, resolver: Resolver) -> tuple[Any, ...]:
    """Everything a reference resolves against but its own document: ids, titles, paths, the
    headings (anchor -> section) of every page and document, the tracked files."""
    anchors = {doc_id: tuple([(s.anchor, s.key) for s in d.sections]) for doc_id, d in g.docs.items()}
    return (resolver.wiki_dir, frozenset(resolver.files), g.aliases, g.titles, g.by_path, anchors)
