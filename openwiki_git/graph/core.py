"""The evidence graph: typed, explicit paths from wiki prose to claims to cited lines, and between
pages and documents. Nodes, edges and ids only: the graph is built by `link`, read by `summary`,
`locate` and `expand`, none of which it imports. Pure: no I/O.

Node ids (stable, human-readable):
- `page:<page>` a wiki page (`page:guides/retries.md`); `doc:<repo path>` a prose document;
- `<page or doc id>#<slug path>` a section (`doc:docs/adr/0008-backoff.md#context`);
- `<page or doc id>#<slug path>~<hash8>[.n]` a paragraph (see mdsplit: survives edits elsewhere);
- `claim_<32 hex>` a claim; `repo://<path>#L<x>-L<y>` an evidence span; `repo://<path>` a file.

Edges are typed and stored with their inverse: contains/contained_in, asserts/asserted_by,
cites/cited_by (claim -> span -> file), refers_to/referred_by, supersedes/superseded_by,
amends/amended_by, attaches_to/has_attachment. Every explicit reference that cannot be resolved
is kept in `Graph.unresolved`, never dropped.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import unquote

from openwiki_git.errors import UsageError
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.graph.search import Index
from openwiki_git.markdown.document import Document
from openwiki_git.markdown.keys import normalize

_PAIRS = (
    ("contains", "contained_in"),
    ("asserts", "asserted_by"),
    ("cites", "cited_by"),
    ("refers_to", "referred_by"),
    ("supersedes", "superseded_by"),
    ("amends", "amended_by"),
    ("attaches_to", "has_attachment"),
)
INVERSE = {a: b for pair in _PAIRS for a, b in (pair, pair[::-1])}
EDGE_TYPES = tuple(INVERSE)  # forward, inverse, forward, inverse, ...
FORWARD = tuple(a for a, _ in _PAIRS)
_EDGE_ORDER = {t: i for i, t in enumerate(EDGE_TYPES)}
KINDS = ("page", "doc", "section", "paragraph", "claim", "span", "file")
# Directories whose numbered files (`0012-title.md`) are known by an identifier (`ADR-12`).
ID_DIRS = {"adr": "ADR", "adrs": "ADR", "decisions": "ADR", "rfc": "RFC", "rfcs": "RFC", "pep": "PEP", "peps": "PEP"}
# "ADR-0012", "ADR 12", "adr_0012", and without a separator "ADR012", "RFC1234" (the prefix is
# then letters only: "ADR032" is ADR-32, never ADR03-2).
_ID = re.compile(r"^(?:([A-Z][A-Z0-9]*)[-_ ]|([A-Z]+))0*([0-9]+)$")
LINE_ANCHOR = re.compile(r"^L([1-9][0-9]*)(?:-L([1-9][0-9]*))?$")


class Node(NamedTuple):
    kind: str
    label: str
    data: Any  # kind-specific record: Document, Section, Paragraph, ClaimData, SpanData, path


@dataclass(frozen=True, slots=True)
class Unresolved:
    """An explicit reference that names nothing the graph knows."""

    source: str  # the node that makes the reference
    kind: str  # link, id, see, marker, supersedes, superseded_by, amends, amended_by, attaches_to
    target: str  # as written
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "kind": self.kind, "target": self.target, "reason": self.reason}


class ClaimData(NamedTuple):
    page: str
    statement: str
    status: str  # fresh, stale, unresolved, or unchecked
    evidence: tuple[dict[str, Any], ...]
    marked: str | None
    marker_present: bool


class SpanData(NamedTuple):
    path: str
    start: int
    end: int
    status: str | None = None
    current_resource: str | None = None


_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)
_DATA_OF_KIND: dict[str, type] = {"claim": ClaimData, "span": SpanData}
_NODE_DATA = frozenset(_DATA_OF_KIND.values())


def id_key(text: str) -> str | None:
    """`ADR-0012`, `adr 12`, `ADR012`, `adr_0012` -> `ADR-12`; None when it is not an identifier."""
    m = _ID.match(text.strip().upper())
    return f"{m.group(1) or m.group(2)}-{int(m.group(3))}" if m else None


class Graph:
    """Nodes, typed adjacency (each edge stored with its inverse), and unresolved references.

    Pages, documents, claims, spans and files are explicit nodes. Sections and paragraphs are
    derived from their document on demand (`node`, `edges`): their ids, `contains` and
    `contained_in` edges come from the document's structure, so a large corpus costs no object per
    paragraph; every other edge of theirs (asserts, refers_to) is stored like any edge."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.adj: dict[str, list[tuple[str, str]]] = {}
        self.docs: dict[str, Document] = {}  # page/doc id -> its split document
        self.unresolved: list[Unresolved] = []
        self.by_path: dict[str, str] = {}  # repo path of a page or document -> its node id
        self.aliases: dict[str, list[str]] = {}  # id_key -> page/doc ids
        self.ids_of: dict[str, list[str]] = {}  # page/doc id -> its id_keys
        self.titles: dict[str, list[str]] = {}  # normalised title -> page/doc ids
        self.claim_aliases: dict[str, str] = {}  # an old id of claims folded into one -> the folded claim's
        self.index = Index()
        self.build_log: Any = None  # buildlog.BuildLog: how it was built, for a rebuild (cached apart)
        self.text_index: Any = None  # context.TextIndex: built on the first search of text (context.text_index)
        self._seen: set[tuple[str, str, str]] = set()
        self._anchors: dict[str, dict[str, str]] = {}

    def __getstate__(self) -> dict[str, Any]:
        # NamedTuples pickle through Python-level calls, several times slower than plain tuples:
        # nodes (and their claim and span data) are stored as plain tuples. The build log is
        # cached apart (graph_build), and the building caches not at all.
        state = dict(self.__dict__)
        state["nodes"] = {k: (n[0], n[1], tuple(n[2]) if type(n[2]) in _NODE_DATA else n[2]) for k, n in self.nodes.items()}
        state["_seen"], state["_anchors"], state["build_log"], state["text_index"] = set(), {}, None, None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        new, data_types = tuple.__new__, _DATA_OF_KIND
        nodes = {}
        for k, (kind, label, data) in state["nodes"].items():
            cls = data_types.get(kind)
            nodes[k] = new(Node, (kind, label, new(cls, data) if cls is not None and type(data) is tuple else data))
        self.nodes = nodes

    # -- construction ----------------------------------------------------------------------
    def add_node(self, node_id: str, kind: str, label: str, data: Any = None) -> None:
        if node_id not in self.nodes:
            self.nodes[node_id] = Node(kind, label, data)

    def add_edge(self, src: str, etype: str, dst: str) -> None:
        """Add `src -etype-> dst` and its inverse, once."""
        key = (src, etype, dst)
        if key in self._seen or src == dst:
            return
        self._seen.add(key)
        self.link(src, etype, dst)

    def link(self, src: str, etype: str, dst: str) -> None:
        """Add `src -etype-> dst` and its inverse; the caller knows the edge is new."""
        adj = self.adj
        out = adj.get(src)
        if out is None:
            adj[src] = [(etype, dst)]
        else:
            out.append((etype, dst))
        back = adj.get(dst)
        if back is None:
            adj[dst] = [(INVERSE[etype], src)]
        else:
            back.append((INVERSE[etype], src))

    def span(self, resource: str, status: str | None = None, current: str | None = None) -> str:
        """The span (or file, for whole-file evidence) node of a canonical resource, added if new."""
        nodes = self.nodes
        if resource in nodes:
            return resource
        file_id, path, start, end = split_canonical(resource)
        if file_id not in nodes:
            nodes[file_id] = _new(Node, ("file", path, path))
        if start is None or end is None:
            return file_id
        nodes[resource] = _new(Node, ("span", resource, _new(SpanData, (path, start, end, status, current))))
        self.link(resource, "cites", file_id)
        return resource

    def cite(self, claim_id: str, resource: str, status: str, current: str | None) -> None:
        """`claim_id` cites `resource` (each once: the codec checks); a span cited by several
        claims keeps the worst status. A hot path: `link` is written out."""
        node = self.nodes.get(resource)
        if node is None:
            self.span(resource, status, current)
        elif node.kind == "span":
            data = node.data
            worst = worse(data.status, status)
            if worst != data.status or (current and not data.current_resource):
                self.nodes[resource] = node._replace(data=data._replace(status=worst, current_resource=current))
        adj = self.adj
        out = adj.get(claim_id)
        if out is None:
            adj[claim_id] = [("cites", resource)]
        else:
            out.append(("cites", resource))
        back = adj.get(resource)
        if back is None:
            adj[resource] = [("cited_by", claim_id)]
        else:
            back.append(("cited_by", claim_id))

    def merge(self, part: Graph) -> None:
        """Add the tables of `part` (a graph without documents: pages, claims, spans, files and
        their edges) after this one's, which holds documents only and so no edge yet: tables
        keep insertion order (documents, then pages), lists are extended in that order."""
        self.nodes.update(part.nodes)
        self.docs.update(part.docs)
        self.by_path.update(part.by_path)
        self.ids_of.update(part.ids_of)
        for table, more in ((self.titles, part.titles), (self.aliases, part.aliases)):
            for key, ids in more.items():
                have = table.get(key)
                if have is None:
                    table[key] = ids
                else:
                    have.extend(ids)
        self.claim_aliases.update(part.claim_aliases)
        assert not self.adj and not self.unresolved  # documents alone make no edge
        self.adj, self.unresolved, self._seen = part.adj, part.unresolved, part._seen

    def built(self) -> None:
        """The build is over: the set that kept `add_edge` from adding an edge twice goes."""
        self._seen = set()

    # -- nodes -----------------------------------------------------------------------------
    def node(self, node_id: str) -> Node | None:
        """The node with this id; sections and paragraphs are looked up in their document."""
        got = self.nodes.get(node_id)
        if got is not None:
            return got
        owner, sep, key = node_id.partition("#")
        d = self.docs.get(owner) if sep else None
        if d is None:
            return None
        if "~" in key:
            i = d.find(key)
            return None if i is None else Node("paragraph", normalize(d.text(i)[:300])[:80], (d, i))
        section = d.section(key)
        return None if section is None else Node("section", section.heading, (d, section))

    def ids(self) -> Iterable[str]:
        """Every node id: the explicit ones, then each document's sections and paragraphs."""
        yield from self.nodes
        for owner, d in self.docs.items():
            for s in d.sections:
                yield f"{owner}#{s.key}"
            for i in range(len(d)):
                yield f"{owner}#{d.key(i)}"

    def anchor(self, owner: str, anchor: str) -> str | None:
        """The section of page/document `owner` whose GitHub anchor is `anchor`."""
        table = self._anchors.get(owner)
        if table is None:
            table = self._anchors[owner] = {s.anchor: f"{owner}#{s.key}" for s in self.docs[owner].sections}
        return table.get(anchor.lower())

    # -- edges -----------------------------------------------------------------------------
    def edges(self, node_id: str, types: Collection[str] | None = None) -> list[tuple[str, str]]:
        """(type, target) pairs in a stable order: by edge type, then document order / as built."""
        # contains / contained_in come from the document's structure, which costs its paragraph
        # keys: read only when asked for.
        structural = types is None or "contains" in types or "contained_in" in types
        got = (self._structure(node_id) if structural else []) + self.adj.get(node_id, [])
        if types is not None:
            got = [e for e in got if e[0] in types]
        return sorted(got, key=lambda e: _EDGE_ORDER[e[0]])

    def _structure(self, node_id: str) -> list[tuple[str, str]]:
        """contains / contained_in, from the document's structure."""
        if node_id in self.docs:
            return [("contains", f"{node_id}#{k}") for _, k in self.docs[node_id].children("")]
        owner, sep, key = node_id.partition("#")
        d = self.docs.get(owner) if sep else None
        if d is None:
            return []
        if "~" in key:
            i = d.find(key)
            if i is None:
                return []
            section = d.section_of(i)
            return [("contained_in", f"{owner}#{section}" if section else owner)]
        s = d.section(key)
        if s is None:
            return []
        out = [("contained_in", f"{owner}#{s.parent}" if s.parent else owner)]
        out.extend(("contains", f"{owner}#{k}") for _, k in d.children(key))
        return out

    def edge_list(self) -> list[dict[str, str]]:
        """Every edge once, in its forward type ({source, type, target}), structural ones (from
        the documents' structure) first, then the stored ones in build order."""
        out = []
        for owner, d in self.docs.items():
            for s in d.sections:
                out.append({"source": f"{owner}#{s.parent}" if s.parent else owner, "type": "contains", "target": f"{owner}#{s.key}"})
            for i in range(len(d)):
                section = d.section_of(i)
                out.append({"source": f"{owner}#{section}" if section else owner, "type": "contains", "target": f"{owner}#{d.key(i)}"})
        forward = set(FORWARD)
        for src, edges in self.adj.items():
            out.extend({"source": src, "type": e, "target": t} for e, t in edges if e in forward)
        return out

    def counts(self) -> dict[str, Any]:
        nodes = dict.fromkeys(KINDS, 0)
        for node in self.nodes.values():
            nodes[node.kind] += 1
        edges = dict.fromkeys(FORWARD, 0)
        for d in self.docs.values():
            nodes["section"] += len(d.sections)
            nodes["paragraph"] += len(d)
            edges["contains"] += len(d.sections) + len(d)
        for out in self.adj.values():
            for etype, _ in out:
                if etype in edges:
                    edges[etype] += 1
        return {
            "nodes": nodes,
            "edges": edges,
            "total_nodes": sum(nodes.values()),
            "total_edges": sum(edges.values()),
            "unresolved": len(self.unresolved),
        }

    def resolve_id(self, text: str) -> str:
        """A node id from what a user or agent typed: an id, a claim id prefix or `c-` label, an
        identifier such as ADR-0012, a page name or a repository path."""
        text = text.strip()
        if self.node(text) is not None:
            return text
        for candidate in self._id_candidates(text):
            if candidate in self.nodes:
                return candidate
        hits = self._claim_prefix(text)
        if len(hits) == 1:
            return hits[0]
        prefix = self._claim_id_prefix(text)
        folded = {new for old, new in getattr(self, "claim_aliases", {}).items() if prefix and old.startswith(prefix)}
        if not hits and len(folded) == 1 and next(iter(folded)) in self.nodes:
            return folded.pop()  # an id of claims folded into one claim per sentence (lint --fix)
        key = id_key(text)
        if key and len(self.aliases.get(key, ())) == 1:
            return self.aliases[key][0]
        near = [n for n in self.nodes if n[:5] == text[:5] and not n.startswith("claim_")][:5000]
        close = difflib.get_close_matches(text, near, n=3)
        why = "is ambiguous" if len(hits) > 1 else "is not in the graph"
        hint = f"did you mean {', '.join(close)}?" if close else "use an id printed by `openwiki-git locate`"
        raise UsageError(f"node {text!r} {why}", hint)

    def _id_candidates(self, text: str) -> Iterable[str]:
        path = text.removeprefix("./")
        yield from (f"page:{path}", f"doc:{path}", f"page:{path}.md", f"doc:{path}.md")
        if path in self.by_path:
            yield self.by_path[path]
        if path.startswith("repo://"):
            try:
                yield parse_resource(path, wiki_dir="\0").canonical
            except ResourceError:
                pass
        else:
            yield "repo://" + path

    def _claim_prefix(self, text: str) -> list[str]:
        prefix = self._claim_id_prefix(text)
        return sorted(i for i, n in self.nodes.items() if n.kind == "claim" and i.startswith(prefix)) if prefix else []

    @staticmethod
    def _claim_id_prefix(text: str) -> str | None:
        """`claim_<hex>` of a claim id, its first 8+ hex digits or its `c-` label; else None."""
        body = text.removeprefix("claim_").removeprefix("c-").lower()
        if len(body) < 8 or not all(c in "0123456789abcdef" for c in body):
            return None
        return "claim_" + body


def worse(a: str | None, b: str) -> str:
    """The worse of two evidence statuses (a span cited by several claims keeps the worst)."""
    order = ("unchecked", "fresh", "stale", "unresolved")
    return b if a is None or order.index(b) > order.index(a) else a


def split_canonical(resource: str) -> tuple[str, str, int | None, int | None]:
    """(file resource, decoded path, start, end) of a canonical `repo://` resource, as sidecars
    hold them (the codec refuses any other form), without the full parser's cost."""
    file_id, _, fragment = resource.partition("#")
    path = file_id[len("repo://") :]
    if "%" in path:
        path = unquote(path)
    m = LINE_ANCHOR.match(fragment)
    if not m:
        return file_id, path, None, None
    start = int(m.group(1))
    return file_id, path, start, int(m.group(2) or start)

