"""Builds the evidence graph from the repository, and caches it outside version control.

Reads the wiki's pages and sidecars (through `store.Wiki`), the prose documents matched by the
config's `docs` globs (default: inputs.DEFAULT_DOCS), and the claims' statuses (claimcheck: the
content check against the working tree). The cache files (graph_cache) are under
`<git dir>/openwiki-git/`: the graph with a header holding the inputs' key, its documents in
packs, its build log, and the sidecars and check results. Every input is keyed by its stat
(mtime, size, inode, ctime): when nothing changed, the header's key matches and the graph is
returned as is, with no sidecar read and no check. Otherwise the rebuild is incremental: only the
documents that changed are split again, only the claims whose cited files changed are re-checked,
and link.build replays its previous log for every page and document that did not change (see
buildlog), so only what changed is linked again. The cache is derived data, written without
the writers' lock, so a read-only command never waits; a cache that cannot be read is rebuilt.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openwiki_git import __version__
from openwiki_git.caches import graph as graph_cache
from openwiki_git.caches.check_entries import no_gc
from openwiki_git.graph import claimcheck
from openwiki_git.graph import inputs as graph_inputs
from openwiki_git.graph import search as graph_search
from openwiki_git.graph.buildlog import BuildLog
from openwiki_git.graph.claim_graph import build_claim_graph
from openwiki_git.graph.claimcheck import Parts
from openwiki_git.graph.core import Graph
from openwiki_git.graph.documents import document_terms
from openwiki_git.graph.inputs import Inputs, StatKey, cited_key, doc_globs, stat_inputs
from openwiki_git.graph.link import link
from openwiki_git.graph.split import SplitJob
from openwiki_git.markdown.document import Document
from openwiki_git.store.workspace import Workspace

CACHE_DIR, CACHE_NAME, PARTS_NAME = graph_cache.CACHE_DIR, graph_cache.CACHE_NAME, graph_cache.PARTS_NAME
CACHE_FORMAT = 14  # 14: a set's cited path is its scope (a glob: cited_key), not its query


@dataclass
class BuildInfo:
    """What a load did: whether the cached graph was used as is, and what was redone."""

    cached: bool = False
    split: int = 0  # pages and documents split (not taken from the cache)
    sidecars_read: int = 0
    files_checked: int = 0  # cited files whose claims were re-checked
    seconds: float = 0.0
    cache_path: str = ""
    key: Any = None  # the inputs' key of the graph (None when not cached): keys the text index's cache
    cited: tuple[str, ...] = ()  # the paths its claims cite, globs of sets over folders included (cited_key)

    def to_json(self) -> dict[str, Any]:
        return {
            "cached": self.cached,
            "split": self.split,
            "sidecars_read": self.sidecars_read,
            "files_checked": self.files_checked,
            "seconds": round(self.seconds, 4),
            "cache": self.cache_path,
        }


@dataclass
class _Header:
    """The first object in graph.pickle: enough to tell whether the graph after it is current."""

    key: tuple[Any, ...]
    cited: tuple[str, ...]  # the files the claims cite, to stat them without reading sidecars
    index: StatKey  # git's index when the graph was built: unchanged, the tracked set is too
    tracked: str  # digest of the tracked paths (a `git status` rewrites the index, not the set)
    docs: dict[str, StatKey]  # repo path -> stat of the text the graph's document was split from
    pages: dict[str, StatKey]  # page -> likewise
    packs: dict[int, str] = field(default_factory=dict)  # pack -> digest (graph_cache)


def cache_path(ws: Workspace) -> Path:
    return ws.repo.git_dir / CACHE_DIR / CACHE_NAME


def _parts_path(ws: Workspace) -> Path:
    return ws.repo.git_dir / CACHE_DIR / PARTS_NAME


def _key(ws: Workspace, now: Inputs, cited: tuple[str, ...], tracked: str) -> tuple[Any, ...]:
    root = ws.repo.root
    return (
        CACHE_FORMAT,
        __version__,
        ws.config.wiki_dir,
        doc_globs(ws),
        ws.config.max_growth,
        tracked,
        tuple(now.docs.items()),
        tuple(now.pages.items()),
        tuple(now.sidecars.items()),
        tuple((p, cited_key(root, p, now.started_ns)) for p in cited),
    )


def _digest(paths: frozenset[str]) -> str:
    return hashlib.sha1("\n".join(sorted(paths)).encode("utf-8")).hexdigest()


def load(ws: Workspace, *, use_cache: bool = True, check: bool = True) -> tuple[Graph, BuildInfo]:
    """The graph of the repository now; the cached one when no input changed (by stat).
    `check=False` skips the claims' content check (every claim "unchecked"; nothing cached)."""
    with no_gc():
        return _load(ws, use_cache and check, check)


def _load(ws: Workspace, use_cache: bool, check: bool) -> tuple[Graph, BuildInfo]:
    began = time.perf_counter()
    info = BuildInfo(cache_path=str(cache_path(ws)))
    now = stat_inputs(ws)
    cache, tracked = _read_cache(ws) if use_cache else _Cached(), None
    if cache.graph is not None and cache.header is not None:
        if cache.header.index != now.index:
            tracked = graph_inputs.tracked(ws)
        digest = cache.header.tracked if tracked is None else _digest(tracked)
        key = _key(ws, now, cache.header.cited, digest)
        g: Graph | None = None
        info.cited = cache.header.cited
        if key == cache.header.key:
            info.cached, g, info.key = True, cache.graph, key
        elif key[:6] == cache.header.key[:6] and key[7:] == cache.header.key[7:]:
            # Only documents changed (not a page, a sidecar, a cited file, the tracked set):
            # the claims and their check results are those of the cached graph.
            g = _relink(ws, now, cache, tracked or graph_inputs.tracked(ws), key, info)
        if g is not None:
            info.seconds = time.perf_counter() - began
            return g, info
    g = _rebuild(ws, now, cache, tracked, use_cache, check, info)
    info.seconds = time.perf_counter() - began
    return g, info


def _relink(
    ws: Workspace, now: Inputs, cache: _Cached, tracked: frozenset[str], key: tuple[Any, ...], info: BuildInfo
) -> Graph | None:
    """The graph after some documents changed: they are split again and linked again, the rest
    is replayed from the cached graph's log (buildlog); no sidecar is read, no claim checked."""
    previous = cache.previous()
    if previous is None or cache.header is None:
        return None
    with _Splitting(ws, now, cache.header, cache.graph, info) as split:
        pages = split.pages()
        part = build_claim_graph(
            pages=sorted(pages.items()), sidecars=None, results=None, wiki_dir=ws.config.wiki_dir, previous=previous
        )
        docs = split.docs()
    g = link(part, docs=docs, files=tracked, wiki_dir=ws.config.wiki_dir, previous=previous, terms=split.terms())
    header = cache.header
    _write_cache(ws, now, _Header(key, header.cited, now.index, header.tracked, now.docs, now.pages), g, (docs, pages), header)
    info.key = key
    return g


def _rebuild(
    ws: Workspace, now: Inputs, cache: _Cached, tracked: frozenset[str] | None, use_cache: bool, check: bool, info: BuildInfo
) -> Graph:
    """The graph when claims may have changed: sidecars read and claims checked again where their
    stat (or their cited files') changed; the rest replayed from the cached graph's log."""
    parts = (graph_cache.Loader(_parts_path(ws)).next(Parts) or Parts()) if use_cache else Parts()
    new = Parts(index=now.index)
    if tracked is None:
        tracked = parts.tracked if parts.index is not None and parts.index == now.index else graph_inputs.tracked(ws)
    new.tracked = tracked
    previous = cache.previous()
    # The documents are split by a forked child while this process splits the pages, reads the
    # sidecars, checks the claims and builds the claims' part of the graph (graph_split).
    with _Splitting(ws, now, cache.header, cache.graph, info) as split:
        pages = split.pages()
        sidecars, info.sidecars_read = claimcheck.read_sidecars(ws, now, parts, new)
        results: dict[str, Any] = {}
        if check:
            results, info.files_checked = claimcheck.check(ws, sidecars, pages, now, new, parts)
        # Sidecar pages whose sidecar and page text are unchanged: the claims' part of the graph
        # has the same shape as the cached graph's (claim_graph reads it off, then applies new
        # results).
        was = cache.header.pages if cache.header is not None else {}
        unchanged = {
            p for p, (_, sc) in new.sidecars.items()
            if parts.sidecars.get(p, (None, None))[1] is sc and was.get(p, "gone") == now.pages.get(p, "gone")
        }
        part = build_claim_graph(
            pages=sorted(pages.items()), sidecars=sidecars, results=results, wiki_dir=ws.config.wiki_dir,
            previous=previous, unchanged=unchanged,
        )
        docs = split.docs()
    g = link(
        part, docs=docs, files=new.tracked, wiki_dir=ws.config.wiki_dir, previous=previous, terms=split.terms()
    )
    info.cited = tuple(sorted(new.evidence))
    if use_cache:
        cited, digest = info.cited, _digest(new.tracked)
        header = _Header(_key(ws, now, cited, digest), cited, now.index, digest, now.docs, now.pages)
        info.key = header.key
        _write_cache(ws, now, header, g, (docs, pages), cache.header)
        if claimcheck.changed(parts, new):
            graph_cache.write(cache_folder(ws), PARTS_NAME, graph_cache.dumps([new]), ws.repo.git_dir)
    return g


class _Cached:
    """What graph.pickle held: the header and graph (None when unusable), and the build log,
    read only when asked for (a rebuild)."""

    def __init__(self, header: _Header | None = None, g: Graph | None = None, loader: graph_cache.Loader | None = None) -> None:
        self.header, self.graph, self._loader = header, g, loader

    def previous(self) -> Graph | None:
        if self.graph is None or self._loader is None:
            return None
        self.graph.build_log = self._loader.next(BuildLog)
        return self.graph if self.graph.build_log is not None else None


def _read_cache(ws: Workspace) -> _Cached:
    folder = cache_folder(ws)
    head = graph_cache.Loader(folder / CACHE_NAME)
    header = head.next(_Header)
    if header is None or header.key[:2] != (CACHE_FORMAT, __version__):
        return _Cached()
    docs = graph_cache.read_packs(folder, header.packs)
    if docs is None:
        return _Cached()
    loader = graph_cache.Loader(folder / CACHE_NAME, docs)
    loader.next(_Header)
    g = loader.next(Graph)
    return _Cached(header, g, loader) if g is not None else _Cached()


def _write_cache(
    ws: Workspace,
    now: Inputs,
    header: _Header,
    g: Graph,
    docs: tuple[list[Document], dict[str, Document]],
    old: _Header | None,
) -> None:
    """The packs whose documents changed, then graph.pickle (header, graph, build log)."""
    folder, git_dir, wiki = cache_folder(ws), ws.repo.git_dir, ws.wiki
    entries = [(d.path, now.docs[d.path], d) for d in docs[0]]
    entries += [(wiki.repo_path(p), now.pages[p], d) for p, d in docs[1].items()]
    packs: dict[int, list[tuple[str, StatKey, Document]]] = {}
    for entry in entries:
        packs.setdefault(graph_cache.pack_of(entry[0]), []).append(entry)
    header.packs = {n: graph_cache.pack_digest((path, key) for path, key, _ in packs[n]) for n in sorted(packs)}
    for n, packed in packs.items():
        if old is None or old.packs.get(n) != header.packs[n] or not (folder / graph_cache.pack_name(n)).exists():
            data = graph_cache.dumps([header.packs[n], {path: d for path, _, d in packed}])
            if not graph_cache.write(folder, graph_cache.pack_name(n), data, git_dir):
                return  # a read-only git dir: work without a cache
    packed_ids = {id(d): path for path, _, d in entries}
    graph_cache.write(folder, CACHE_NAME, graph_cache.dumps([header, g, g.build_log], packed_ids), git_dir)


def cache_folder(ws: Workspace) -> Path:
    return ws.repo.git_dir / CACHE_DIR


class _Splitting:
    """The documents and pages of a build: taken from the cached graph when their stat is
    unchanged, the rest read and split by a SplitJob, pages at the front (they are needed
    first), documents after them, the largest last (the child starts there)."""

    def __init__(self, ws: Workspace, now: Inputs, header: _Header | None, old: Graph | None, info: BuildInfo) -> None:
        root, wiki = ws.repo.root, ws.wiki
        old_docs = old.docs if old is not None and header is not None else {}
        was_docs = header.docs if header is not None else {}
        was_pages = header.pages if header is not None else {}
        self._pages: dict[str, Document | None] = {}
        pages: list[tuple[str, str]] = []  # (text, repo path) of what must be split again
        for page, key in now.pages.items():
            hit = old_docs.get("page:" + page) if was_pages.get(page) == key and key is not None else None
            if hit is None:
                pages.append((graph_inputs.read_text(wiki.page_path(page), strip=True), wiki.repo_path(page)))
                info.split += 1
            self._pages[page] = hit
        self._docs: dict[str, Document | None] = {}
        docs: list[tuple[str, str]] = []
        for path, key in now.docs.items():
            hit = old_docs.get("doc:" + path) if was_docs.get(path) == key and key is not None else None
            if hit is None:
                docs.append((graph_inputs.read_text(root / path, strip=False), path))
                info.split += 1
            self._docs[path] = hit
        docs.sort(key=lambda item: len(item[0]))
        self._n_pages = n = len(pages)
        # A document's search index entries are made where it is split (in the child, for its share).
        self.job = SplitJob(pages + docs, after=lambda i, d: document_terms(d) if i >= n else None)

    def pages(self) -> dict[str, Document]:
        fresh = iter(self.job.front(self._n_pages))
        return {p: d if d is not None else next(fresh) for p, d in self._pages.items()}

    def docs(self) -> list[Document]:
        split = {d.path: d for d in self.job.result()[self._n_pages :]}
        return [d if d is not None else split[path] for path, d in self._docs.items()]

    def terms(self) -> dict[str, graph_search.Terms]:
        """The search index entries of the documents split (by repository path): `docs` first."""
        return {self.job.done[i].path: t for i, t in self.job.extras.items() if t is not None}

    def __enter__(self) -> _Splitting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.job.close()


def clear_cache(ws: Workspace) -> bool:
    return graph_cache.remove(cache_folder(ws))

