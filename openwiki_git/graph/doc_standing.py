"""The standing of the prose documents claims cite (what supersedes and amends each), for `check`
and `lint`: citestale's input, read from a cache file keyed by every document's stat, else worked
out by splitting and linking the documents alone (no page, no claim, no check).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from openwiki_git import __version__
from openwiki_git.caches import graph as graph_cache
from openwiki_git.graph import split as graph_split
from openwiki_git.graph.build import CACHE_FORMAT, cache_folder
from openwiki_git.graph.claim_graph import build_claim_graph
from openwiki_git.graph.core import Graph
from openwiki_git.graph.inputs import doc_globs, doc_paths, read_text, stat_key
from openwiki_git.graph.link import link
from openwiki_git.markdown.document import Document
from openwiki_git.store.workspace import Workspace

STANDING_NAME = "standing.pickle"  # citestale's table of superseded and amended documents
_DATE = re.compile(r"^[ \t*_|-]*date[ \t*_]*[:|][ \t*_]*([0-9]{4}-[0-9]{2}-[0-9]{2})", re.I | re.M)


@dataclass
class StandingCache:
    """standing.pickle: `standing_table` of every document, and the documents' key."""

    key: tuple[Any, ...]
    table: dict[str, dict[str, Any]]


def document_standing(ws: Workspace, paths: set[str]) -> dict[str, dict[str, Any]]:
    """The standing of the prose documents among `paths` (citestale.superseded_notices's `standing`): what
    supersedes and amends each, with titles and dates. The table of every document is cached
    under the git directory, keyed by every document's stat (so a check pays a glob and a stat
    per document when none changed); otherwise the documents alone are split and linked (no
    page, no claim, no check). Callers ask only when a claim cites a Markdown document."""
    root, started = ws.repo.root, time.time_ns()
    on_disk = doc_paths(root, doc_globs(ws), ws.config.wiki_dir)
    if not paths.intersection(on_disk):
        return {}
    key = (CACHE_FORMAT, __version__, ws.config.wiki_dir, doc_globs(ws), tuple((p, stat_key(root / p, started)) for p in on_disk))
    folder = cache_folder(ws)
    cached = graph_cache.Loader(folder / STANDING_NAME).next(StandingCache)
    if cached is not None and cached.key == key:
        table = cached.table
    else:
        items = [(read_text(root / p, strip=False), p) for p in on_disk]
        docs = graph_split.split_many(items)
        part = build_claim_graph(pages=[], sidecars={}, results={}, wiki_dir=ws.config.wiki_dir)
        g = link(part, docs=docs, files=frozenset(on_disk), wiki_dir=ws.config.wiki_dir)
        table = standing_table(g)
        graph_cache.write(folder, STANDING_NAME, graph_cache.dumps([StandingCache(key, table)]), ws.repo.git_dir)
    return {p: table[p] for p in paths if p in table}


def standing_table(g: Graph) -> dict[str, dict[str, Any]]:
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


def _doc_date(d: Document) -> str | None:
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
    return citestale.superseded_notices(claims, table.get)
