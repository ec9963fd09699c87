"""The evidence graph: typed, explicit paths from wiki prose to claims to cited lines, and between
pages and documents. Pure: built from split documents, sidecars and check results; no I/O.

Node ids (stable, human-readable):
- `page:<page>` a wiki page (`page:guides/retries.md`); `doc:<repo path>` a prose document;
- `<page or doc id>#<slug path>` a section (`doc:docs/adr/0008-backoff.md#context`);
- `<page or doc id>#<slug path>~<hash8>[.n]` a paragraph (see mdsplit: survives edits elsewhere);
- `claim_<32 hex>` a claim; `repo://<path>#L<x>-L<y>` an evidence span; `repo://<path>` a file.

Edges are typed and stored with their inverse: contains/contained_in, asserts/asserted_by,
cites/cited_by (claim -> span -> file), refers_to/referred_by, supersedes/superseded_by,
amends/amended_by, attaches_to/has_attachment. Every explicit reference that cannot be resolved
is kept in `Graph.unresolved`, never dropped.

Every result that shows a claim carries its `status` and `stale` (true unless the check found it
fresh), and lists such claims in `stale_claims`, so an agent never takes a stale claim for a fact.
"""

from __future__ import annotations

import difflib
import heapq
import operator
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import unquote

from openwiki_git.errors import UsageError
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.graph import context as graph_context
from openwiki_git.graph.search import K1, STOP, B, Index, bm25, has, tokens  # noqa: F401 (B, K1, STOP: re-exported)
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
MAX_CHARS = graph_context.MAX_CHARS
SUPERSEDED_WEIGHT = 0.7  # locate: a superseded document's score, relative to a current one's
LINE_ANCHOR = re.compile(r"^L([1-9][0-9]*)(?:-L([1-9][0-9]*))?$")


class Node(NamedTuple):
    kind: str
    label: str
    data: Any  # kind-specific record: Document, Section, Paragraph, _ClaimData, _SpanData, path


@dataclass(frozen=True, slots=True)
class Unresolved:
    """An explicit reference that names nothing the graph knows."""

    source: str  # the node that makes the reference
    kind: str  # link, id, see, marker, supersedes, superseded_by, amends, amended_by, attaches_to
    target: str  # as written
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "kind": self.kind, "target": self.target, "reason": self.reason}


class _ClaimData(NamedTuple):
    page: str
    statement: str
    status: str  # fresh, stale, unresolved, or unchecked
    evidence: tuple[dict[str, Any], ...]
    marked: str | None
    marker_present: bool


class _SpanData(NamedTuple):
    path: str
    start: int
    end: int
    status: str | None = None
    current_resource: str | None = None


_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)
_DATA_OF_KIND: dict[str, type] = {"claim": _ClaimData, "span": _SpanData}
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
        self.index = Index()
        self.links: Any = None  # graph_link.Links: how it was built, for a rebuild (cached apart)
        self._seen: set[tuple[str, str, str]] = set()
        self._anchors: dict[str, dict[str, str]] = {}
        self._text: graph_context.TextIndex | None = None  # built on the first search of text

    def __getstate__(self) -> dict[str, Any]:
        # NamedTuples pickle through Python-level calls, several times slower than plain tuples:
        # nodes (and their claim and span data) are stored as plain tuples. The build log is
        # cached apart (graph_build), and the building caches not at all.
        state = dict(self.__dict__)
        state["nodes"] = {k: (n[0], n[1], tuple(n[2]) if type(n[2]) in _NODE_DATA else n[2]) for k, n in self.nodes.items()}
        state["_seen"], state["_anchors"], state["links"], state["_text"] = set(), {}, None, None
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
        nodes[resource] = _new(Node, ("span", resource, _new(_SpanData, (path, start, end, status, current))))
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
            worst = _worse(data.status, status)
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
        body = text.removeprefix("claim_").removeprefix("c-").lower()
        if len(body) < 8 or not all(c in "0123456789abcdef" for c in body):
            return []
        prefix = "claim_" + body
        return sorted(i for i, n in self.nodes.items() if n.kind == "claim" and i.startswith(prefix))

    # -- summaries -------------------------------------------------------------------------
    def summary(self, node_id: str, stale: set[str] | None = None) -> dict[str, Any]:
        """A short, self-describing view of a node; claims carry status and stale."""
        node = self.node(node_id)
        assert node is not None, node_id
        out: dict[str, Any] = {"id": node_id, "kind": node.kind, "label": node.label}
        data = node.data
        if node.kind == "claim":
            out.update(_claim_summary(data))
            cited = self.cited_documents(data)
            if cited:
                out["cited_documents"] = cited
                out["stale"] = out["stale"] or any(c["standing"] == "superseded" for c in cited)
            if out["stale"] and stale is not None:
                stale.add(node_id)
        elif node.kind in ("page", "doc"):
            out["path"] = data.path
            self._standing(out, node_id)
        elif node.kind == "section":
            out.update(path=data[0].path, line=data[1].line, document=node_id.split("#", 1)[0])
            self._standing(out, out["document"])
        elif node.kind == "paragraph":
            d, i = data
            out.update(path=d.path, lines=[d.starts[i], d.ends[i]], document=node_id.split("#", 1)[0])
            self._standing(out, out["document"])
            claims = [t for e, t in self.adj.get(node_id, ()) if e == "asserts"]
            if claims:
                out["claims"] = [self._claim_brief(c, stale) for c in claims]
        elif node.kind == "span":
            out.update(path=data.path, lines=[data.start, data.end], status=data.status)
            if data.current_resource and data.current_resource != node_id:
                out["current_resource"] = data.current_resource
        elif node.kind == "file":
            out["path"] = data
        return out

    def _standing(self, out: dict[str, Any], doc_id: str) -> None:
        """A page's or document's standing (graph_context.standing) on a summary of it or of
        one of its sections or paragraphs: `standing` (current, superseded, amended), and when
        not current `superseded: true`, `superseded_by`, `head` (the document in force) or
        `amended: true`, `amended_by`."""
        got = graph_context.standing(self, doc_id)
        out["standing"] = got["status"]
        if "declared" in got:
            out["declared_status"] = got["declared"]
        if "superseded_by" in got:
            out.update(superseded=True, superseded_by=got["superseded_by"], head=got["head"])
        if "amended_by" in got:
            out.update(amended=True, amended_by=got["amended_by"])

    def cited_documents(self, data: _ClaimData) -> list[dict[str, Any]]:
        """The prose documents a claim cites that are not in force as they were: superseded
        (a stale belief: the claim is flagged stale) or amended. [{document, standing, by}]."""
        out: list[dict[str, Any]] = []
        for ev in data.evidence:
            path = split_canonical(ev["resource"])[1]
            doc_id = self.by_path.get(path) if path.endswith(".md") else None
            if doc_id is None or not doc_id.startswith("doc:"):
                continue
            got = graph_context.standing(self, doc_id)
            if got["status"] != "current" and all(c["document"] != doc_id for c in out):
                by = got.get("superseded_by") or got.get("amended_by") or []
                item = {"document": doc_id, "standing": got["status"], "by": by}
                if "head" in got:
                    item["head"] = got["head"]
                out.append(item)
        return out

    def _claim_brief(self, claim_id: str, stale: set[str] | None) -> dict[str, Any]:
        data = self.nodes[claim_id].data
        is_stale = data.status != "fresh" or data.marked is not None
        is_stale = is_stale or any(c["standing"] == "superseded" for c in self.cited_documents(data))
        if is_stale and stale is not None:
            stale.add(claim_id)
        return {"id": claim_id, "statement": data.statement, "status": data.status, "stale": is_stale}

    def detail(self, node_id: str, stale: set[str], lines: LinesReader | None = None) -> dict[str, Any]:
        """The summary plus the node's own content: a paragraph's text, a document's front
        matter, a claim's evidence with reasons, a span's cited lines."""
        out = self.summary(node_id, stale)
        node = self.node(node_id)
        assert node is not None
        if node.kind == "paragraph":
            d, i = node.data
            out["text"] = d.text(i)
        elif node.kind in ("page", "doc"):
            out["title"] = node.data.title
            out["ids"] = list(self.ids_of.get(node_id, ()))
            if node.data.meta:
                out["front_matter"] = node.data.meta
            refs = graph_context.references(self, node_id)
            if refs:
                out["references"] = [self.summary(r, stale) for r in refs]
        elif node.kind == "section":
            out["heading"] = node.data[1].heading
        if lines is not None and node.kind in ("claim", "span"):
            _add_lines(out, lines)
        return out

    # -- locate ----------------------------------------------------------------------------
    def locate(self, terms: str | Sequence[str], *, within: str | None = None, limit: int = 10) -> dict[str, Any]:
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
        root = self.resolve_id(within) if within else None
        scope = self.within(root) if root else None
        scores = bm25(self.index, words, scope)
        ids = self.index.ids
        pool = limit * 4 + 20
        # Candidates: (-score, id, entry) with entry ("m", i) in the titles' index or ("t", n)
        # in the text index. Scores are summed in query-word order, so equal inputs give equal floats.
        cands: list[tuple[float, str, tuple[str, int]]] = [
            (-sc, ids[i], ("m", i)) for i, sc in heapq.nsmallest(pool, scores.items(), key=lambda x: (-x[1], ids[x[0]]))
        ]
        cands += self._text_candidates(words, root, pool)
        # A page or document ranks by its best title-or-heading match plus its best paragraph
        # match, shown by the best single entry; a claim ranks alone.
        best: dict[str, tuple[float, str, tuple[str, int]]] = {}
        parts: dict[str, dict[str, float]] = {}
        ranked: list[tuple[float, str, tuple[str, int], str | None]] = []
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
        ranked += [(sum(parts[o].values()) * (SUPERSEDED_WEIGHT if self._superseded(o) else 1.0), c[1], c[2], o) for o, c in best.items()]
        ranked.sort(key=lambda r: (r[0], r[1]))
        stale: set[str] = set()
        results: list[dict[str, Any]] = []
        for neg, nid, (where, i), owner in ranked[:limit]:
            index = self.index if where == "m" else self.text_index().index
            matched = [w for w in words if has(index, w, i)]
            hit = {"rank": len(results) + 1, "score": round(-neg, 4), "matched": matched, **self.summary(nid, stale)}
            if owner is not None and more[owner] > 0:
                hit["more"] = more[owner]
            text = self._first_lines(nid, hit["kind"])
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

    def _superseded(self, doc_id: str) -> bool:
        return any(e == "superseded_by" for e, _ in self.adj.get(doc_id, ()))

    def text_index(self) -> graph_context.TextIndex:
        """The index of what pages and documents say, built on first use."""
        if getattr(self, "_text", None) is None:
            self._text = graph_context.TextIndex(self)
        return self._text  # type: ignore[return-value]

    def _text_candidates(self, words: list[str], root: str | None, pool: int) -> list[tuple[float, str, tuple[str, int]]]:
        """The best paragraphs for `words` (within `root`: its page or document, its section)."""
        owner, section = None, None
        if root is not None:
            owner, _, key = root.partition("#")
            if owner not in self.docs:
                return []
            section = key.split("~", 1)[0] if key else None
            if "~" in key:  # within a paragraph: that paragraph only
                section = None
        ti = self.text_index()
        got = ti.search(words, [owner] if owner else None)
        if section:
            prefix = section + "/"
            got = {
                n: sc
                for n, sc in got.items()
                if (w := self.docs[ti.paragraphs[n][0]].section_of(ti.paragraphs[n][1])) == section or w.startswith(prefix)
            }
        if root is not None and owner is not None and "~" in root:
            d = self.docs[owner]
            got = {n: sc for n, sc in got.items() if f"{owner}#{d.key(ti.paragraphs[n][1])}" == root}
        # The best `pool` by score (C-level key; equal scores keep entry order: deterministic).
        top = heapq.nlargest(pool, got.items(), key=operator.itemgetter(1))
        out = []
        for n, sc in top:
            owner_id, i = ti.paragraphs[n]
            out.append((-sc, f"{owner_id}#{self.docs[owner_id].key(i)}", ("t", n)))
        return out

    def _first_lines(self, node_id: str, kind: str) -> str | None:
        """The first lines of a result's text: a paragraph's own, a section's first paragraph,
        a page's or document's first prose paragraph."""
        if kind in ("page", "doc"):
            return graph_context.first_text(self, node_id)
        node = self.node(node_id)
        if node is None:
            return None
        if kind == "paragraph":
            d, i = node.data
            return graph_context.snippet(d.text(i))
        if kind == "section":
            d, section = node.data
            first = next((i for i in range(len(d)) if i not in d.code and d.section_of(i) == section.key), None)
            return graph_context.snippet(d.text(first)) if first is not None else None
        return None

    def within(self, node_id: str) -> set[str]:
        """The node and everything it contains, with the claims those paragraphs assert."""
        owner, _, key = node_id.partition("#")
        if owner in self.docs and "~" not in key:
            return self._within_document(node_id, owner, key)
        seen = {node_id}
        todo = [node_id]
        while todo:
            for _etype, target in self.edges(todo.pop(), ("contains", "asserts")):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    def _within_document(self, node_id: str, owner: str, key: str) -> set[str]:
        """`within` for a page, a document or a section, read off the document's structure."""
        d = self.docs[owner]
        prefix = key + "/" if key else ""
        out = {node_id}
        out.update(f"{owner}#{s.key}" for s in d.sections if s.key.startswith(prefix) or s.key == key)
        for i in d.markers:
            section = d.section_of(i)
            if not key or section == key or section.startswith(prefix):
                pid = f"{owner}#{d.key(i)}"
                out.update(t for e, t in self.adj.get(pid, ()) if e == "asserts")
        if not key:
            out.update(t for e, t in self.adj.get(owner, ()) if e == "asserts")
        return out

    # -- expand ----------------------------------------------------------------------------
    def expand(
        self,
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
        start = self.resolve_id(node)
        owner = start.split("#", 1)[0]
        if types and owner != start and owner in self.docs and all(t in graph_context.RELATION_EDGES for t in types):
            start = owner  # supersession and amendment are between documents: a paragraph's are its document's
        if hops == 1:
            stale: set[str] = set()
            out = self._expand_one(start, types, stale, lines, ctx)
            out["stale_claims"] = sorted(stale)
            return out
        if types is None or len(types) != 1:
            raise UsageError("--hops above 1 walks one edge type", "pass exactly one --edges TYPE, e.g. superseded_by")
        return self._walk(start, types[0], hops, lines, ctx)

    def _expand_one(
        self,
        node_id: str,
        types: Sequence[str] | None,
        stale: set[str],
        lines: LinesReader | None,
        ctx: tuple[graph_context.Budget, int] | None = None,
    ) -> dict[str, Any]:
        edges = [{"type": e, "target": self.summary(t, stale)} for e, t in self.edges(node_id, types)]
        out = {"node": self.detail(node_id, stale, lines), "edges": edges}
        if ctx is not None and ctx[1] > 0:
            self._context(out, *ctx)
        return out

    def _context(self, out: dict[str, Any], budget: graph_context.Budget, depth: int) -> None:
        """`expand`'s context (see there), in place: the node's text first, then the section's
        paragraphs, then the neighbours' first lines, then (depth 2) related documents' text."""
        node = out["node"]
        nid, kind = node["id"], node["kind"]
        if "text" in node and kind == "paragraph":
            node["text"] = budget.take(node["text"]) or ""
        owner = nid.split("#", 1)[0]
        if kind in ("page", "doc", "section", "paragraph") and owner in self.docs:
            section = None if kind in ("page", "doc") else self.node(nid).data[1].key if kind == "section" else node.get("section")  # type: ignore[union-attr]
            if kind == "paragraph":
                d, i = self.node(nid).data  # type: ignore[union-attr]
                section = d.section_of(i)
                node["section"] = f"{owner}#{section}" if section else owner
            node["paragraphs"] = graph_context.paragraphs_of(self, owner, section, budget, skip=nid)
        for e in out["edges"]:
            target = e["target"]
            if e["type"] in graph_context.STRUCTURAL and kind in ("page", "doc", "section"):
                continue  # their text is in `paragraphs`
            if target["kind"] in ("page", "doc", "section", "paragraph"):
                text = self._first_lines(target["id"], target["kind"])
                if text:
                    got = budget.take(text)
                    if got is None:
                        break
                    target["text"] = got
        if depth > 1:
            for e in out["edges"]:
                target = e["target"]
                if e["type"] in graph_context.RELATION_EDGES and target["kind"] in ("page", "doc"):
                    target["paragraphs"] = graph_context.paragraphs_of(self, target["id"], None, budget)
        if budget.cut:
            out["truncated"] = True

    def _walk(
        self, start: str, etype: str, hops: int, lines: LinesReader | None, ctx: tuple[graph_context.Budget, int] | None = None
    ) -> dict[str, Any]:
        path, seen, current = [start], {start}, start
        stopped, branches = "hops", []
        for _ in range(hops):
            nxt = [t for _, t in self.edges(current, (etype,))]
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
            after = [t for _, t in self.edges(current, (etype,))]
            if not after:
                stopped = "end"
            elif len(after) > 1:
                stopped, branches = "branch", after
        stale: set[str] = set()
        out: dict[str, Any] = {
            "start": self.summary(start, stale),
            "edge": etype,
            "hops": hops,
            "path": [self.summary(n, stale) for n in path],
            "stopped": stopped,
        }
        if branches:
            out["branches"] = [self.summary(b, stale) for b in branches]
        out["end"] = self._expand_one(current, None, stale, lines, ctx)
        out["stale_claims"] = sorted(stale)
        return out


LinesReader = Callable[[str], "str | None"]


def _add_lines(out: dict[str, Any], lines: LinesReader) -> None:
    if out["kind"] == "span":
        out["text"] = lines(out.get("current_resource") or out["id"])
    elif out["kind"] == "claim":
        for ev in out["evidence"]:
            where = ev.get("current_resource") or ev["resource"]
            ev["text"] = lines(where) if "#L" in where else None


def _claim_summary(data: _ClaimData) -> dict[str, Any]:
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


# ============================================================================================
# Building (graph_link.py)
# ============================================================================================


def build(**inputs: Any) -> Graph:
    """The graph of split documents, pages, sidecars and check results: `graph_link.build`,
    which documents the inputs (it builds on this module, so it is imported here when called)."""
    from openwiki_git.graph import link as graph_link

    return graph_link.build(**inputs)


def _worse(a: str | None, b: str) -> str:
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

