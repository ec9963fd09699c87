"""Builds the evidence graph from the repository, and caches it outside version control.

Reads the wiki's pages and sidecars (through `store.Wiki`), the prose documents matched by the
config's `docs` globs (default: DEFAULT_DOCS), and the claims' statuses (the content check of
`checker.py`, against the working tree). The cache files (graph_cache) are under
`<git dir>/openwiki-git/`: the graph with a header holding the inputs' key, its documents in
packs, its build log, and the sidecars and check results. Every input is keyed by its stat
(mtime, size, inode, ctime): when nothing changed, the header's key matches and the graph is
returned as is, with no sidecar read and no check. Otherwise the rebuild is incremental: only the
documents that changed are split again, only the claims whose cited files changed are re-checked,
and graph.build replays its previous log for every page and document that did not change (see
graph_link), so only what changed is linked again. The cache is derived data, written without
the writers' lock, so a read-only command never waits; a cache that cannot be read is rebuilt.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from openwiki_git import __version__
from openwiki_git.caches import check as checkcache
from openwiki_git.caches import graph as graph_cache
from openwiki_git.caches.check import no_gc
from openwiki_git.claims.check import EvidenceResolver, check_claim
from openwiki_git.errors import StoreError
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.graph import core as graph
from openwiki_git.graph import link as graph_link
from openwiki_git.graph import search as graph_search
from openwiki_git.graph import split as graph_split
from openwiki_git.graph.split import SplitJob
from openwiki_git.markdown import split as mdsplit
from openwiki_git.model import ClaimResult, EvidenceResult, Sidecar
from openwiki_git.pages import citations
from openwiki_git.store.workspace import Workspace

CACHE_DIR, CACHE_NAME, PARTS_NAME = graph_cache.CACHE_DIR, graph_cache.CACHE_NAME, graph_cache.PARTS_NAME
STANDING_NAME = "standing.pickle"  # citestale's table of superseded and amended documents
TEXT_NAME = "text.pickle"  # the text index (graph_context.TextIndex) of the cached graph
CACHE_FORMAT = 12
DEFAULT_DOCS = ("docs/**/*.md", "doc/**/*.md", "adr/**/*.md", "decisions/**/*.md")
MAX_LINES = 60  # cited lines shown per span; longer spans are cut with a note

StatKey = tuple[int, int, int, int] | None


def stat_key(path: Path, started_ns: int) -> StatKey:
    """(mtime, size, inode, ctime) of `path`, None when it is missing. A racy file (changed less
    than RACY_NS before this load started: git's racy rule, see checkcache) could change again
    within the same timestamp tick without its stat showing it: it gets a key that no later load
    computes (negative, with this load's start time), so nothing is ever reused for it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if max(st.st_mtime_ns, st.st_ctime_ns) >= started_ns - checkcache.RACY_NS:
        return (-1, -1, -1, started_ns)
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


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


@dataclass
class _Parts:
    """graph.parts.pickle: what an incremental rebuild reuses (documents come from the graph)."""

    index: StatKey = None
    tracked: frozenset[str] = frozenset()
    sidecars: dict[str, tuple[StatKey, Sidecar]] = field(default_factory=dict)
    evidence: dict[str, tuple[Any, dict[tuple[str, str], EvidenceResult]]] = field(default_factory=dict)
    results: dict[str, tuple[Any, dict[str, ClaimResult]]] = field(default_factory=dict)  # by page


def cache_path(ws: Workspace) -> Path:
    return ws.repo.git_dir / CACHE_DIR / CACHE_NAME


def _parts_path(ws: Workspace) -> Path:
    return ws.repo.git_dir / CACHE_DIR / PARTS_NAME


def doc_globs(ws: Workspace) -> tuple[str, ...]:
    return ws.config.docs or DEFAULT_DOCS


def doc_paths(root: Path, globs: tuple[str, ...], wiki_dir: str) -> list[str]:
    """Repository paths of the prose documents: regular Markdown files (no symlinks) matched by
    `globs`, outside the wiki and `.git`, sorted."""
    found: set[str] = set()
    for pattern in globs:
        for rel in glob.glob(pattern, root_dir=root, recursive=True):
            path = rel.replace(os.sep, "/")
            top = path.split("/", 1)[0]
            if top == ".git" or path == wiki_dir or path.startswith(wiki_dir + "/"):
                continue
            full = root / path
            if path.endswith(".md") and full.is_file() and not full.is_symlink():
                found.add(path)
    return sorted(found)


@dataclass
class _Inputs:
    """What is on disk now, by stat: the cache key and what a rebuild must read."""

    index: StatKey
    docs: dict[str, StatKey]
    pages: dict[str, StatKey]
    sidecars: dict[str, StatKey]
    started_ns: int  # when this load started, before any stat (the racy rule)


def _inputs(ws: Workspace) -> _Inputs:
    root, wiki, started = ws.repo.root, ws.wiki, time.time_ns()
    return _Inputs(
        stat_key(ws.repo.git_dir / "index", started),
        {p: stat_key(root / p, started) for p in doc_paths(root, doc_globs(ws), ws.config.wiki_dir)},
        {p: stat_key(wiki.page_path(p), started) for p in wiki.pages()},
        {p: stat_key(wiki.sidecar_path(p), started) for p in wiki.sidecar_pages()},
        started,
    )


def _key(ws: Workspace, now: _Inputs, cited: tuple[str, ...], tracked: str) -> tuple[Any, ...]:
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
        tuple((p, stat_key(root / p, now.started_ns)) for p in cited),
    )


def _digest(paths: frozenset[str]) -> str:
    return hashlib.sha1("\n".join(sorted(paths)).encode("utf-8")).hexdigest()


def load(ws: Workspace, *, use_cache: bool = True, check: bool = True) -> tuple[graph.Graph, BuildInfo]:
    """The graph of the repository now; the cached one when no input changed (by stat).
    `check=False` skips the claims' content check (every claim "unchecked"; nothing cached)."""
    with no_gc():
        return _load(ws, use_cache and check, check)


def _load(ws: Workspace, use_cache: bool, check: bool) -> tuple[graph.Graph, BuildInfo]:
    began = time.perf_counter()
    info = BuildInfo(cache_path=str(cache_path(ws)))
    now = _inputs(ws)
    cache, tracked = _read_cache(ws) if use_cache else _Cached(), None
    if cache.graph is not None and cache.header is not None:
        if cache.header.index != now.index:
            tracked = _tracked(ws)
        digest = cache.header.tracked if tracked is None else _digest(tracked)
        key = _key(ws, now, cache.header.cited, digest)
        g: graph.Graph | None = None
        if key == cache.header.key:
            info.cached, g, info.key = True, cache.graph, key
        elif key[:6] == cache.header.key[:6] and key[7:] == cache.header.key[7:]:
            # Only documents changed (not a page, a sidecar, a cited file, the tracked set):
            # the claims and their check results are those of the cached graph.
            g = _relink(ws, now, cache, tracked or _tracked(ws), key, info)
        if g is not None:
            info.seconds = time.perf_counter() - began
            return g, info
    g = _rebuild(ws, now, cache, tracked, use_cache, check, info)
    info.seconds = time.perf_counter() - began
    return g, info


def _relink(
    ws: Workspace, now: _Inputs, cache: _Cached, tracked: frozenset[str], key: tuple[Any, ...], info: BuildInfo
) -> graph.Graph | None:
    """The graph after some documents changed: they are split again and linked again, the rest
    is replayed from the cached graph's log (graph_link); no sidecar is read, no claim checked."""
    previous = cache.previous()
    if previous is None or cache.header is None:
        return None
    with _Splitting(ws, now, cache.header, cache.graph, info) as split:
        pages = split.pages()
        part = graph_link.claims_part(
            pages=sorted(pages.items()), sidecars=None, results=None, wiki_dir=ws.config.wiki_dir, previous=previous
        )
        docs = split.docs()
    g = graph_link.link(part, docs=docs, files=tracked, wiki_dir=ws.config.wiki_dir, previous=previous, terms=split.terms())
    header = cache.header
    _write_cache(ws, now, _Header(key, header.cited, now.index, header.tracked, now.docs, now.pages), g, (docs, pages), header)
    info.key = key
    return g


def _rebuild(
    ws: Workspace, now: _Inputs, cache: _Cached, tracked: frozenset[str] | None, use_cache: bool, check: bool, info: BuildInfo
) -> graph.Graph:
    """The graph when claims may have changed: sidecars read and claims checked again where their
    stat (or their cited files') changed; the rest replayed from the cached graph's log."""
    parts = (_read(_parts_path(ws), _Parts) or _Parts()) if use_cache else _Parts()
    new = _Parts(index=now.index)
    if tracked is None:
        tracked = parts.tracked if parts.index is not None and parts.index == now.index else _tracked(ws)
    new.tracked = tracked
    previous = cache.previous()
    # The documents are split by a forked child while this process splits the pages, reads the
    # sidecars, checks the claims and builds the claims' part of the graph (graph_split).
    with _Splitting(ws, now, cache.header, cache.graph, info) as split:
        pages = split.pages()
        sidecars = _read_sidecars(ws, now, parts, new, info)
        results = _check(ws, sidecars, pages, now, new, parts, info) if check else {}
        # Sidecar pages whose sidecar and page text are unchanged: the claims' part of the graph
        # has the same shape as the cached graph's (graph_link reads it off, then applies new
        # results).
        was = cache.header.pages if cache.header is not None else {}
        unchanged = {
            p for p, (_, sc) in new.sidecars.items()
            if parts.sidecars.get(p, (None, None))[1] is sc and was.get(p, "gone") == now.pages.get(p, "gone")
        }
        part = graph_link.claims_part(
            pages=sorted(pages.items()), sidecars=sidecars, results=results, wiki_dir=ws.config.wiki_dir,
            previous=previous, unchanged=unchanged,
        )
        docs = split.docs()
    g = graph_link.link(
        part, docs=docs, files=new.tracked, wiki_dir=ws.config.wiki_dir, previous=previous, terms=split.terms()
    )
    if use_cache:
        cited, digest = tuple(sorted(new.evidence)), _digest(new.tracked)
        header = _Header(_key(ws, now, cited, digest), cited, now.index, digest, now.docs, now.pages)
        info.key = header.key
        _write_cache(ws, now, header, g, (docs, pages), cache.header)
        if _changed(parts, new):
            graph_cache.write(_folder(ws), PARTS_NAME, graph_cache.dumps([new]), ws.repo.git_dir)
    return g


class _Cached:
    """What graph.pickle held: the header and graph (None when unusable), and the build log,
    read only when asked for (a rebuild)."""

    def __init__(self, header: _Header | None = None, g: graph.Graph | None = None, loader: graph_cache.Loader | None = None) -> None:
        self.header, self.graph, self._loader = header, g, loader

    def previous(self) -> graph.Graph | None:
        if self.graph is None or self._loader is None:
            return None
        self.graph.links = self._loader.next(graph_link.Links)
        return self.graph if self.graph.links is not None else None


def _read_cache(ws: Workspace) -> _Cached:
    folder = _folder(ws)
    head = graph_cache.Loader(folder / CACHE_NAME)
    header = head.next(_Header)
    if header is None or header.key[:2] != (CACHE_FORMAT, __version__):
        return _Cached()
    docs = graph_cache.read_packs(folder, header.packs)
    if docs is None:
        return _Cached()
    loader = graph_cache.Loader(folder / CACHE_NAME, docs)
    loader.next(_Header)
    g = loader.next(graph.Graph)
    return _Cached(header, g, loader) if g is not None else _Cached()


def _write_cache(
    ws: Workspace,
    now: _Inputs,
    header: _Header,
    g: graph.Graph,
    docs: tuple[list[mdsplit.Document], dict[str, mdsplit.Document]],
    old: _Header | None,
) -> None:
    """The packs whose documents changed, then graph.pickle (header, graph, build log)."""
    folder, git_dir, wiki = _folder(ws), ws.repo.git_dir, ws.wiki
    entries = [(d.path, now.docs[d.path], d) for d in docs[0]]
    entries += [(wiki.repo_path(p), now.pages[p], d) for p, d in docs[1].items()]
    packs: dict[int, list[tuple[str, StatKey, mdsplit.Document]]] = {}
    for entry in entries:
        packs.setdefault(graph_cache.pack_of(entry[0]), []).append(entry)
    header.packs = {n: graph_cache.pack_digest((path, key) for path, key, _ in packs[n]) for n in sorted(packs)}
    for n, packed in packs.items():
        if old is None or old.packs.get(n) != header.packs[n] or not (folder / graph_cache.pack_name(n)).exists():
            data = graph_cache.dumps([header.packs[n], {path: d for path, _, d in packed}])
            if not graph_cache.write(folder, graph_cache.pack_name(n), data, git_dir):
                return  # a read-only git dir: work without a cache
    packed_ids = {id(d): path for path, _, d in entries}
    graph_cache.write(folder, CACHE_NAME, graph_cache.dumps([header, g, g.links], packed_ids), git_dir)


def _folder(ws: Workspace) -> Path:
    return ws.repo.git_dir / CACHE_DIR


def _tracked(ws: Workspace) -> frozenset[str]:
    """Paths in git's index: the files a link may point to."""
    return frozenset(entry.path for entry in ws.repo.index)


class _Splitting:
    """The documents and pages of a build: taken from the cached graph when their stat is
    unchanged, the rest read and split by a SplitJob, pages at the front (they are needed
    first), documents after them, the largest last (the child starts there)."""

    def __init__(self, ws: Workspace, now: _Inputs, header: _Header | None, old: graph.Graph | None, info: BuildInfo) -> None:
        root, wiki = ws.repo.root, ws.wiki
        old_docs = old.docs if old is not None and header is not None else {}
        was_docs = header.docs if header is not None else {}
        was_pages = header.pages if header is not None else {}
        self._pages: dict[str, mdsplit.Document | None] = {}
        pages: list[tuple[str, str]] = []  # (text, repo path) of what must be split again
        for page, key in now.pages.items():
            hit = old_docs.get("page:" + page) if was_pages.get(page) == key and key is not None else None
            if hit is None:
                pages.append((_read_text(wiki.page_path(page), info, strip=True), wiki.repo_path(page)))
            self._pages[page] = hit
        self._docs: dict[str, mdsplit.Document | None] = {}
        docs: list[tuple[str, str]] = []
        for path, key in now.docs.items():
            hit = old_docs.get("doc:" + path) if was_docs.get(path) == key and key is not None else None
            if hit is None:
                docs.append((_read_text(root / path, info, strip=False), path))
            self._docs[path] = hit
        docs.sort(key=lambda item: len(item[0]))
        self._n_pages = n = len(pages)
        # A document's search index entries are made where it is split (in the child, for its share).
        self.job = SplitJob(pages + docs, after=lambda i, d: graph_link.document_terms(d) if i >= n else None)

    def pages(self) -> dict[str, mdsplit.Document]:
        fresh = iter(self.job.front(self._n_pages))
        return {p: d if d is not None else next(fresh) for p, d in self._pages.items()}

    def docs(self) -> list[mdsplit.Document]:
        split = {d.path: d for d in self.job.result()[self._n_pages :]}
        return [d if d is not None else split[path] for path, d in self._docs.items()]

    def terms(self) -> dict[str, graph_search.Terms]:
        """The search index entries of the documents split (by repository path): `docs` first."""
        return {self.job.done[i].path: t for i, t in self.job.extras.items() if t is not None}

    def __enter__(self) -> _Splitting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.job.close()


def _changed(old: _Parts, new: _Parts) -> bool:
    """Whether graph.parts.pickle must be written again."""
    if old.index != new.index or old.tracked != new.tracked:
        return True
    if {p: k for p, (k, _) in old.sidecars.items()} != {p: k for p, (k, _) in new.sidecars.items()}:
        return True
    if {p: k for p, (k, _) in old.results.items()} != {p: k for p, (k, _) in new.results.items()}:
        return True
    return {p: (k, set(r)) for p, (k, r) in old.evidence.items()} != {p: (k, set(r)) for p, (k, r) in new.evidence.items()}


def _read_text(path: Path, info: BuildInfo, *, strip: bool) -> str:
    """The text of a document or page to split (counted in `info.split`)."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        text = ""
    if strip:  # the generated citations block is the tool's, not the author's prose
        text = citations.strip_block(text)
    info.split += 1
    return text


def _read_sidecars(ws: Workspace, now: _Inputs, parts: _Parts, new: _Parts, info: BuildInfo) -> dict[str, Sidecar]:
    out: dict[str, Sidecar] = {}
    for page, key in now.sidecars.items():
        hit = parts.sidecars.get(page)
        if hit is not None and hit[0] == key and key is not None:
            sidecar = hit[1]
        else:
            loaded = ws.wiki.load(page)
            info.sidecars_read += 1
            if loaded is None:
                continue
            sidecar = loaded
        new.sidecars[page] = (key, sidecar)
        out[page] = sidecar
    _unique_ids(ws, out)
    return out


def _unique_ids(ws: Workspace, sidecars: dict[str, Sidecar]) -> None:
    owner: dict[str, str] = {}
    for page in sorted(sidecars):
        for claim in sidecars[page].claims:
            if claim.id in owner:
                rel = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
                raise StoreError(
                    f"{rel}: claim {claim.id} is also on page {owner[claim.id]}",
                    "claim ids must be unique across the wiki; retract one of them",
                )
            owner[claim.id] = page


def _cited_path(resource: str) -> str:
    """The decoded path of a canonical `repo://` resource (graph.split_canonical's, without
    reading the line range)."""
    path = resource.partition("#")[0][len("repo://") :]
    return unquote(path) if "%" in path else path


class _CachedResolver(EvidenceResolver):
    """The checker's resolver, answering first from results cached per cited file."""

    def __init__(self, ws: Workspace, known: dict[tuple[str, str], EvidenceResult]) -> None:
        super().__init__(ws.reader("worktree"), max_growth=ws.config.max_growth)
        self.known = known
        self.fresh: dict[tuple[str, str], EvidenceResult] = {}

    def resolve(self, resource: str, version: str, blob: str | None = None) -> EvidenceResult:
        hit = self.known.get((resource, version))
        if hit is None:
            hit = self.known[(resource, version)] = self.fresh[(resource, version)] = super().resolve(resource, version, blob)
        return hit


def _check(
    ws: Workspace,
    sidecars: dict[str, Sidecar],
    pages: dict[str, mdsplit.Document],
    now: _Inputs,
    new: _Parts,
    parts: _Parts,
    info: BuildInfo,
) -> dict[str, ClaimResult]:
    """Every claim's status (checker.check_claim); evidence in files whose stat and tracking are
    unchanged is reused from the cache."""
    by_file: dict[str, list[tuple[str, str]]] = {}
    path_of: dict[str, str] = {}  # resource -> the file it cites (graph.split_canonical's path)
    for sc in sidecars.values():
        for claim in sc.claims:
            for ev in claim.evidence:
                path = path_of.get(ev.resource)
                if path is None:
                    path = path_of[ev.resource] = _cited_path(ev.resource)
                by_file.setdefault(path, []).append((ev.resource, ev.version))
    known: dict[tuple[str, str], EvidenceResult] = {}
    file_keys: dict[str, Any] = {}
    for path in sorted(by_file):
        key = (stat_key(ws.repo.root / path, now.started_ns), path in new.tracked)
        file_keys[path] = key
        hit = parts.evidence.get(path)
        if hit is not None and hit[0] == key and key[0] is not None and all(p in hit[1] for p in by_file[path]):
            known.update(hit[1])
    resolver = _CachedResolver(ws, known)
    results: dict[str, ClaimResult] = {}
    for page in sorted(sidecars):
        # A page's results stand while its sidecar, its text and the files it cites are unchanged.
        cited = sorted({path_of[e.resource] for c in sidecars[page].claims for e in c.evidence})
        page_key = (new.sidecars[page][0], now.pages.get(page), tuple(file_keys[f] for f in cited))
        page_hit = parts.results.get(page)
        if page_hit is not None and page_hit[0] == page_key and None not in page_key[:2]:
            new.results[page] = page_hit
            results.update(page_hit[1])
            continue
        d = pages.get(page)
        # check_claim only asks whether the page carries each marker: give it just the markers.
        text = None if d is None else " ".join(f"[^{m}]" for ms in d.markers.values() for m in ms)
        page_results = {c.id: check_claim(page, c, resolver, page_text=text) for c in sidecars[page].claims}
        new.results[page] = (page_key, page_results)
        results.update(page_results)
    info.files_checked = len({graph.split_canonical(r)[1] for r, _ in resolver.fresh})
    for path, pairs in by_file.items():
        new.evidence[path] = (file_keys[path], {p: known[p] for p in dict.fromkeys(pairs)})
    return results


# -- the cache files (graph_cache) -------------------------------------------------------------
def _read(path: Path, kind: type) -> Any:
    return graph_cache.Loader(path).next(kind)


def clear_cache(ws: Workspace) -> bool:
    return graph_cache.remove(_folder(ws))


# --------------------------------------------------------------------------------------------
# Sessions: the graph plus the working tree, for commands and agent tools
# --------------------------------------------------------------------------------------------


class GraphSession:
    """A loaded graph and the workspace it came from; `locate`/`expand` return JSON-ready dicts
    (spans carry their cited lines, read from the working tree)."""

    def __init__(self, ws: Workspace, g: graph.Graph, info: BuildInfo) -> None:
        self.ws = ws
        self.graph = g
        self.info = info
        self._texts: dict[str, list[str] | None] = {}

    @classmethod
    def open(cls, start: Path | None = None, *, wiki_dir: str | None = None, use_cache: bool = True) -> GraphSession:
        ws = Workspace.open(start, wiki_dir=wiki_dir)
        g, info = load(ws, use_cache=use_cache)
        return cls(ws, g, info)

    def locate(self, terms: str | list[str], *, within: str | None = None, limit: int = 10) -> dict[str, Any]:
        self._text_index()
        return self.graph.locate(terms, within=within, limit=limit)

    def _text_index(self) -> None:
        """The graph's index of what documents say: from its cache when it was built for this
        graph's inputs (`BuildInfo.key`), else built and cached (a large corpus takes a second)."""
        g, key = self.graph, self.info.key
        if getattr(g, "_text", None) is not None or key is None:
            return
        cached = _read(_folder(self.ws) / TEXT_NAME, _TextCache)
        if cached is not None and cached.key == key:
            g._text = cached.index
            return
        index = g.text_index()
        graph_cache.write(_folder(self.ws), TEXT_NAME, graph_cache.dumps([_TextCache(key, index)]), self.ws.repo.git_dir)

    def expand(
        self, node: str, *, edges: list[str] | None = None, hops: int = 1, depth: int = 1, max_chars: int = graph.MAX_CHARS
    ) -> dict[str, Any]:
        return self.graph.expand(node, edges=edges, hops=hops, lines=self.lines, depth=depth, max_chars=max_chars)

    def lines(self, resource: str) -> str | None:
        """The cited lines of a `repo://path#Lx-Ly` resource as they are now (None if unreadable)."""
        try:
            res = parse_resource(resource, wiki_dir="\0")
        except ResourceError:
            return None
        if not res.is_range or res.start is None or res.end is None:
            return None
        if res.path not in self._texts:
            ft = self.ws.repo.read(res.path)
            self._texts[res.path] = split_lines(ft.text) if ft.text is not None else None
        got = self._texts[res.path]
        if got is None or res.start > len(got):
            return None
        last = min(res.end, len(got), res.start + MAX_LINES - 1)
        text = "".join(got[res.start - 1 : last])
        if last < res.end:
            text += f"… ({res.end - last} more lines)\n"
        return text



# -- citation consistency (citestale) ---------------------------------------------------------
_DATE = re.compile(r"^[ \t*_|-]*date[ \t*_]*[:|][ \t*_]*([0-9]{4}-[0-9]{2}-[0-9]{2})", re.I | re.M)


@dataclass
class _TextCache:
    key: tuple[Any, ...]
    index: Any  # graph_context.TextIndex


@dataclass
class _StandingCache:
    key: tuple[Any, ...]
    table: dict[str, dict[str, Any]]


def document_standing(ws: Workspace, paths: set[str]) -> dict[str, dict[str, Any]]:
    """The standing of the prose documents among `paths` (citestale.judge's `standing`): what
    supersedes and amends each, with titles and dates. The table of every document is cached
    under the git directory, keyed by every document's stat (so a check pays a glob and a stat
    per document when none changed); otherwise the documents alone are split and linked (no
    page, no claim, no check). Callers ask only when a claim cites a Markdown document."""
    root, started = ws.repo.root, time.time_ns()
    on_disk = doc_paths(root, doc_globs(ws), ws.config.wiki_dir)
    if not paths.intersection(on_disk):
        return {}
    key = (CACHE_FORMAT, __version__, ws.config.wiki_dir, doc_globs(ws), tuple((p, stat_key(root / p, started)) for p in on_disk))
    cached = _read(_folder(ws) / STANDING_NAME, _StandingCache)
    if cached is not None and cached.key == key:
        table = cached.table
    else:
        items = [(_read_text(root / p, BuildInfo(), strip=False), p) for p in on_disk]
        docs = graph_split.split_many(items)
        part = graph_link.claims_part(pages=[], sidecars={}, results={}, wiki_dir=ws.config.wiki_dir)
        g = graph_link.link(part, docs=docs, files=frozenset(on_disk), wiki_dir=ws.config.wiki_dir)
        table = standing_table(g)
        graph_cache.write(_folder(ws), STANDING_NAME, graph_cache.dumps([_StandingCache(key, table)]), ws.repo.git_dir)
    return {p: table[p] for p in paths if p in table}


def standing_table(g: graph.Graph) -> dict[str, dict[str, Any]]:
    """Repository path -> {superseded_by: [(path, title)], amended_by: [(path, title, date)]},
    for every prose document of `g` that is superseded or amended."""
    out: dict[str, dict[str, Any]] = {}
    for doc_id, d in g.docs.items():
        if not doc_id.startswith("doc:"):
            continue
        adj = g.adj.get(doc_id, ())
        entry: dict[str, Any] = {}
        by = [t for e, t in adj if e == "superseded_by"]
        amended = [t for e, t in adj if e == "amended_by"]
        if by:
            entry["superseded_by"] = [(g.docs[t].path, g.docs[t].title) for t in by]
        if amended:
            entry["amended_by"] = [(g.docs[t].path, g.docs[t].title, _doc_date(g.docs[t])) for t in amended]
        if entry:
            out[d.path] = entry
    return out


def _doc_date(d: mdsplit.Document) -> str | None:
    value = d.meta.get("date")
    if isinstance(value, str) and value[:4].isdigit():
        return value[:10]
    for i in range(min(len(d), 8)):
        m = _DATE.search(d.text(i))
        if m:
            return m.group(1)
    return None


def stale_citations(ws: Workspace, claims: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """citestale's notices for `claims` (by claim id); nothing is read unless some claim cites
    a Markdown document outside the wiki."""
    from openwiki_git.graph import citestale

    cited = citestale.cited_documents(claims, ws.config.wiki_dir)
    if not cited:
        return {}
    table = document_standing(ws, cited)
    return citestale.judge(claims, table.get)
