"""How a graph was built (`BuildLog`), so that a rebuild given the previous graph redoes only
what changed, and still gives exactly the graph a fresh build gives (same nodes in the same order,
edges in the same order, same unresolved list). Pure: no I/O.

- claims: when no sidecar page changed (nor its page), the claims' part of the graph is the
  previous graph's, read off as slices (it is built first, before any reference: claim_graph);
  check results that changed only change node data, so those claims and the spans they cite are
  recomputed;
- references: each document's resolved references are logged (refs.Resolver) and the log is
  replayed (`replay`), in the order a fresh build visits the documents, for every document that
  is the same object while everything references resolve against (link's resolution context)
  is equal;
- the search index is built again (search: it costs little more than tokenising), from entries
  kept per document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openwiki_git.graph.core import Graph
from openwiki_git.graph.refs import EDGE, SPAN, UNRESOLVED
from openwiki_git.graph.search import Terms
from openwiki_git.markdown.document import Document


@dataclass
class BuildLog:
    """How a graph was built, for a rebuild (see the module's docstring)."""

    context: Any = None  # what references resolved against (link.resolution_context)
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
