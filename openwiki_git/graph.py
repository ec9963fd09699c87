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
import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import unquote

from openwiki_git import compat
from openwiki_git.errors import UsageError
from openwiki_git.graph_search import B, K1, STOP, Index, bm25, build_index, has, tokens  # noqa: F401 (B, K1, STOP: re-exported)
from openwiki_git.mdsplit import Document, Ref, normalize
from openwiki_git.model import ClaimResult, Sidecar

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
_ID = re.compile(r"^([A-Z][A-Z0-9]*)[- ]0*([0-9]+)$")
_TITLE_ID = re.compile(r"^\s*([A-Z]{2,}[A-Z0-9]*)[- ]?([0-9]+)\b")
_NUMBERED = re.compile(r"^([0-9]+)[-_]")
_LINE_ANCHOR = re.compile(r"^L([1-9][0-9]*)(?:-L([1-9][0-9]*))?$")


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


def id_key(text: str) -> str | None:
    """`ADR-0012`, `adr 12` -> `ADR-12`; None when it is not an identifier."""
    m = _ID.match(text.strip().upper())
    return f"{m.group(1)}-{int(m.group(2))}" if m else None


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
        self._seen: set[tuple[str, str, str]] = set()
        self._anchors: dict[str, dict[str, str]] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_seen"], state["_anchors"] = set(), {}
        return state

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
            return None if i is None else Node("paragraph", normalize(d.texts[i][:300])[:80], (d, i))
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
        got = self._structure(node_id) + self.adj.get(node_id, [])
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
                yield compat.parse_resource(path, wiki_dir="\0").canonical
            except compat.ResourceError:
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
            if out["stale"] and stale is not None:
                stale.add(node_id)
        elif node.kind in ("page", "doc"):
            out["path"] = data.path
            superseded = [t for e, t in self.adj.get(node_id, ()) if e == "superseded_by"]
            if superseded:
                out["superseded"] = True
                out["superseded_by"] = superseded
        elif node.kind == "section":
            out.update(path=data[0].path, line=data[1].line)
        elif node.kind == "paragraph":
            d, i = data
            out.update(path=d.path, lines=[d.starts[i], d.ends[i]])
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

    def _claim_brief(self, claim_id: str, stale: set[str] | None) -> dict[str, Any]:
        data = self.nodes[claim_id].data
        is_stale = data.status != "fresh" or data.marked is not None
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
            out["text"] = d.texts[i]
        elif node.kind in ("page", "doc"):
            out["title"] = node.data.title
            out["ids"] = list(self.ids_of.get(node_id, ()))
            if node.data.meta:
                out["front_matter"] = node.data.meta
        elif node.kind == "section":
            out["heading"] = node.data[1].heading
        if lines is not None and node.kind in ("claim", "span"):
            _add_lines(out, lines)
        return out

    # -- locate ----------------------------------------------------------------------------
    def locate(self, terms: str | Sequence[str], *, within: str | None = None, limit: int = 10) -> dict[str, Any]:
        """Ranked starting points: BM25 over page titles, document titles, headings and claim
        statements; ties broken by node id. `within` keeps nodes under that node."""
        query = terms if isinstance(terms, str) else " ".join(terms)
        words = list(dict.fromkeys(tokens(query)))
        if not words:
            raise UsageError(f"no search words in {query!r}", "give words from a title, heading or statement")
        if limit < 1:
            raise UsageError("--limit must be at least 1")
        root = self.resolve_id(within) if within else None
        scope = self.within(root) if root else None
        scores = bm25(self.index, words, scope)
        ids = self.index.ids
        # Scores are summed in query-word order for every entry, so equal inputs give equal floats.
        ranked = [i for _, _, i in heapq.nsmallest(limit, ((-sc, ids[i], i) for i, sc in scores.items()))]
        matched = {i: [w for w in words if has(self.index, w, i)] for i in ranked}
        stale: set[str] = set()
        results = []
        for rank, i in enumerate(ranked, 1):
            nid = self.index.ids[i]
            hit = {"rank": rank, "score": round(scores[i], 4), "matched": matched[i], **self.summary(nid, stale)}
            results.append(hit)
        return {
            "query": query,
            "terms": words,
            "within": root,
            "limit": limit,
            "results": results,
            "stale_claims": sorted(stale),
        }

    def within(self, node_id: str) -> set[str]:
        """The node and everything it contains, with the claims those paragraphs assert."""
        owner, _, key = node_id.partition("#")
        if owner in self.docs and "~" not in key:
            return self._within_document(node_id, owner, key)
        seen = {node_id}
        todo = [node_id]
        while todo:
            for etype, target in self.edges(todo.pop(), ("contains", "asserts")):
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
    ) -> dict[str, Any]:
        """The node and its typed edges. With `hops > 1` and one edge type: walk that edge while
        there is exactly one way on, stop at a branch, the end, a cycle or the hop limit, and
        return the path with the last node expanded."""
        types = _edge_types(edges)
        if hops < 1:
            raise UsageError("--hops must be at least 1")
        start = self.resolve_id(node)
        if hops == 1:
            stale: set[str] = set()
            out = self._expand_one(start, types, stale, lines)
            out["stale_claims"] = sorted(stale)
            return out
        if types is None or len(types) != 1:
            raise UsageError("--hops above 1 walks one edge type", "pass exactly one --edges TYPE, e.g. superseded_by")
        return self._walk(start, types[0], hops, lines)

    def _expand_one(
        self, node_id: str, types: Sequence[str] | None, stale: set[str], lines: LinesReader | None
    ) -> dict[str, Any]:
        edges = [{"type": e, "target": self.summary(t, stale)} for e, t in self.edges(node_id, types)]
        return {"node": self.detail(node_id, stale, lines), "edges": edges}

    def _walk(self, start: str, etype: str, hops: int, lines: LinesReader | None) -> dict[str, Any]:
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
        out["end"] = self._expand_one(current, None, stale, lines)
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
# Building
# ============================================================================================


def build(
    *,
    docs: Sequence[Document],
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar],
    results: Mapping[str, ClaimResult],
    files: Collection[str],
    wiki_dir: str,
) -> Graph:
    """The graph of `docs` (repository paths), `pages` ((page name, split page)), the claims of
    `sidecars` with their check `results` (by claim id; missing ones are "unchecked"), and the
    tracked `files` that links may point to. Deterministic: inputs are visited in sorted order."""
    g = Graph()
    docs = sorted(docs, key=lambda d: d.path)
    pages = sorted(pages, key=lambda p: p[0])
    for d in docs:
        _add_document(g, "doc:" + d.path, "doc", d)
    for name, d in pages:
        _add_document(g, "page:" + name, "page", d)
    _add_claims(g, pages, sidecars, results, wiki_dir)
    resolver = _Resolver(g, files, wiki_dir)
    for d in docs:
        resolver.document("doc:" + d.path, d)
    for name, d in pages:
        resolver.document("page:" + name, d)
    _build_index(g)
    g._seen = set()  # only needed while building
    return g


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
    return list(dict.fromkeys(found))


def _add_claims(
    g: Graph,
    pages: Sequence[tuple[str, Document]],
    sidecars: Mapping[str, Sidecar],
    results: Mapping[str, ClaimResult],
    wiki_dir: str,
) -> None:
    split = dict(pages)
    for page in sorted(sidecars):
        page_id = "page:" + page
        if page_id not in g.nodes:  # a sidecar whose page is gone: its claims still need a home
            _add_document(g, page_id, "page", Document(f"{wiki_dir}/{page}", page, {}))
        labels: dict[str, str] = {}
        for claim in sidecars[page].claims:
            labels["c-" + claim.id.removeprefix("claim_")[:8]] = claim.id
            _add_claim(g, page, claim.id, claim, results.get(claim.id))
        asserted = _assert_markers(g, page_id, split.get(page), labels)
        for claim in sidecars[page].claims:
            if claim.id not in asserted:
                g.add_edge(page_id, "asserts", claim.id)
    for name, d in pages:  # markers on pages without a sidecar
        if name not in sidecars:
            _assert_markers(g, "page:" + name, d, {})


def _assert_markers(g: Graph, page_id: str, d: Document | None, labels: dict[str, str]) -> set[str]:
    asserted: set[str] = set()
    for i, markers in sorted(d.markers.items()) if d is not None else ():
        for label in markers:
            pid = f"{page_id}#{d.key(i)}"
            if label in labels:
                g.add_edge(pid, "asserts", labels[label])
                asserted.add(labels[label])
            else:
                g.unresolved.append(Unresolved(pid, "marker", f"[^{label}]", "no claim on this page has that label"))
    return asserted


def _add_claim(g: Graph, page: str, claim_id: str, claim: Any, result: ClaimResult | None) -> None:
    evidence = _evidence(claim, result)
    status = result.status if result is not None else "unchecked"
    marked = claim.mark.status if claim.mark is not None else None
    present = result.marker_present if result is not None else True
    nodes = g.nodes
    if claim_id not in nodes:
        nodes[claim_id] = Node("claim", claim.statement, _ClaimData(page, claim.statement, status, evidence, marked, present))
    for item in evidence:
        resource = item["resource"]
        node = nodes.get(resource)
        if node is None:
            _span_node(g, resource, item["status"], item.get("current_resource"))
        elif node.kind == "span":  # cited by several claims: keep the worst status
            data, current = node.data, item.get("current_resource")
            status = _worse(data.status, item["status"])
            if status != data.status or (current and not data.current_resource):
                nodes[resource] = node._replace(data=data._replace(status=status, current_resource=current))
        g.link(claim_id, "cites", resource)  # a claim cites each resource once (the codec checks)


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
    m = _LINE_ANCHOR.match(fragment)
    if not m:
        return file_id, path, None, None
    start = int(m.group(1))
    return file_id, path, start, int(m.group(2) or start)


def _span_node(g: Graph, resource: str, status: str | None = None, current: str | None = None) -> str:
    """The span (or file, for whole-file evidence) node of a canonical resource."""
    nodes = g.nodes
    if resource in nodes:
        return resource
    file_id, path, start, end = split_canonical(resource)
    if file_id not in nodes:
        nodes[file_id] = Node("file", path, path)
    if start is None or end is None:
        return file_id
    nodes[resource] = Node("span", resource, _SpanData(path, start, end, status, current))
    g.link(resource, "cites", file_id)
    return resource


def _span_for(g: Graph, path: str, start: int | None, end: int | None) -> str:
    if start is None or end is None:
        return _span_node(g, compat.Resource(path).canonical)
    return _span_node(g, compat.Resource(path, start, end).canonical)


class _Resolver:
    """Turns the references written in documents into edges, or into unresolved entries."""

    def __init__(self, g: Graph, files: Collection[str], wiki_dir: str) -> None:
        self.g = g
        self.files = files if isinstance(files, (set, frozenset)) else set(files)
        self.dirs = {d for f in self.files for d in _ancestors(f)}
        self.wiki_dir = wiki_dir
        self.prefixes = {k.split("-", 1)[0] for k in g.aliases}

    def document(self, doc_id: str, d: Document) -> None:
        for s in d.sections:
            for ref in s.refs:
                self.refer(f"{doc_id}#{s.key}", doc_id, d.path, ref)
        for i, refs in sorted(d.refs.items()):
            source = f"{doc_id}#{d.key(i)}"
            for ref in refs:
                self.refer(source, doc_id, d.path, ref)
        for rel in d.relations:
            source = f"{doc_id}#{d.key(rel.source)}" if rel.source >= 0 else doc_id
            target, reason = self.resolve(doc_id, d.path, rel.ref)
            if target is not None:
                target = target.split("#", 1)[0] if "#" in target and not target.startswith("repo://") else target
                if target not in self.g.docs:
                    target, reason = None, f"{rel.type.replace('_', ' ')} must name a page or document"
            if target is None:
                if reason:
                    self.g.unresolved.append(Unresolved(source, rel.type, rel.ref.target, reason))
                continue
            if rel.type in ("superseded_by", "amended_by"):
                self.g.add_edge(target, INVERSE[rel.type], doc_id)
            else:
                self.g.add_edge(doc_id, rel.type, target)

    def refer(self, source: str, doc_id: str, doc_path: str, ref: Ref) -> None:
        target, reason = self.resolve(doc_id, doc_path, ref)
        if target is not None:
            if target != doc_id:
                self.g.add_edge(source, "refers_to", target)
        elif reason:
            self.g.unresolved.append(Unresolved(source, ref.kind, ref.target, reason))

    def resolve(self, doc_id: str, doc_path: str, ref: Ref) -> tuple[str | None, str | None]:
        """(node id, None) when resolved; (None, reason) when not; (None, None) when the text is
        not a reference after all (an identifier with a prefix no document uses)."""
        if ref.kind == "id":
            key = id_key(ref.target)
            if key is None or key.split("-", 1)[0] not in self.prefixes:
                return None, None
            hits = self.g.aliases.get(key, [])
            return self._one(hits, f"no page or document has the id {key}", prefer=doc_id.split(":", 1)[0] + ":")
        if ref.kind == "link":
            return self.path(doc_id, doc_path, ref.target, relative=True)
        target = ref.target
        if target.startswith("repo://") or "/" in target or target.endswith(".md") or "#" in target:
            relative = target.startswith(("./", "../"))
            found = self.path(doc_id, doc_path, target, relative=relative)
            if found[0] is None and not relative and not target.startswith("repo://"):
                alt = self.path(doc_id, doc_path, target, relative=True)
                found = alt if alt[0] is not None else found
            return found
        hits = self.g.titles.get(" ".join(target.lower().split()), [])
        return self._one(hits, f"no page or document titled {target!r}", prefer=doc_id.split(":", 1)[0] + ":")

    def _one(self, hits: list[str], missing: str, prefer: str = "") -> tuple[str | None, str | None]:
        """The one node meant; among several, the one of the referring kind (pages name pages,
        documents name documents); otherwise the reference is ambiguous."""
        if len(hits) > 1 and prefer:
            same = [h for h in hits if h.startswith(prefer)]
            hits = same if len(same) == 1 else hits
        if len(hits) == 1:
            return hits[0], None
        if not hits:
            return None, missing
        return None, f"ambiguous: {', '.join(sorted(hits))}"

    def path(self, doc_id: str, doc_path: str, target: str, *, relative: bool) -> tuple[str | None, str | None]:
        if target.startswith("repo://"):
            try:
                res = compat.parse_resource(target, wiki_dir="\0")
            except compat.ResourceError as e:
                return None, str(e)
            return self._file(res.path, f"L{res.start}-L{res.end}" if res.is_range else "", target)
        raw, _, anchor = target.partition("#")
        raw = unquote(raw.split("?", 1)[0])
        if not raw:
            return self._anchor(doc_id, anchor, target)
        if raw.startswith("/"):
            joined = raw.lstrip("/")
        elif relative:
            joined = posixpath.join(posixpath.dirname(doc_path), raw)
        else:
            joined = raw
        norm = posixpath.normpath(joined)
        if norm == ".." or norm.startswith("../"):
            return None, "points outside the repository"
        node = self.g.by_path.get(norm)
        if node is not None:
            return self._anchor(node, anchor, target) if anchor else (node, None)
        return self._file(norm, anchor, target)

    def _anchor(self, doc_id: str, anchor: str, target: str) -> tuple[str | None, str | None]:
        if not anchor:
            return doc_id, None
        hit = self.g.anchor(doc_id, anchor)
        if hit is None:
            return None, f"no heading #{anchor} in {self.g.docs[doc_id].path}"
        return hit, None

    def _file(self, path: str, anchor: str, target: str) -> tuple[str | None, str | None]:
        if path.startswith(self.wiki_dir + "/.claims/"):
            return None, "points into the wiki's sidecars"
        if path in self.files:
            m = _LINE_ANCHOR.match(anchor)
            if m:
                start = int(m.group(1))
                return _span_for(self.g, path, start, int(m.group(2) or start)), None
            return _span_for(self.g, path, None, None), None
        if path.rstrip("/") in self.dirs:
            return _span_for(self.g, path.rstrip("/") + "/", None, None), None
        return None, f"{path}: no such tracked file"


def _ancestors(path: str) -> Iterable[str]:
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        yield "/".join(parts[:i])


def _build_index(g: Graph) -> None:
    """Index titles (with ids), headings and claim statements (graph_search)."""
    items: list[tuple[str, str]] = []
    for node_id, node in g.nodes.items():
        if node.kind in ("doc", "page"):
            items.append((node_id, " ".join([node.label, *g.ids_of.get(node_id, ())])))
        elif node.kind == "claim":
            items.append((node_id, node.label))
    for owner, d in g.docs.items():
        items.extend((f"{owner}#{s.key}", s.heading) for s in d.sections)
    g.index = build_index(items)
