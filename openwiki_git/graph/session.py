"""A loaded graph and the working tree it came from, for commands and agent tools: `locate` and
`expand` as JSON-ready dicts, spans and claims with their cited lines as they are now, and the
text index taken from its cache file when it was built for the same inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openwiki_git.caches import graph as graph_cache
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.graph import context as graph_context
from openwiki_git.graph import expand as graph_expand
from openwiki_git.graph import locate as graph_locate
from openwiki_git.graph.build import BuildInfo, cache_folder, load
from openwiki_git.graph.core import Graph
from openwiki_git.store.workspace import Workspace

TEXT_NAME = "text.pickle"  # the text index (context.TextIndex) of the cached graph
MAX_LINES = 60  # cited lines shown per span; longer spans are cut with a note


@dataclass
class TextCache:
    """text.pickle: the text index, and the inputs' key of the graph it was built for."""

    key: tuple[Any, ...]
    index: Any  # context.TextIndex


class GraphSession:
    """A loaded graph and the workspace it came from; `locate`/`expand` return JSON-ready dicts
    (spans carry their cited lines, read from the working tree)."""

    def __init__(self, ws: Workspace, g: Graph, info: BuildInfo) -> None:
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
        return graph_locate.locate(self.graph, terms, within=within, limit=limit)

    def _text_index(self) -> None:
        """The graph's index of what documents say: from its cache when it was built for this
        graph's inputs (`BuildInfo.key`), else built and cached (a large corpus takes a second)."""
        g, key = self.graph, self.info.key
        if g.text_index is not None or key is None:
            return
        folder = cache_folder(self.ws)
        cached = graph_cache.Loader(folder / TEXT_NAME).next(TextCache)
        if cached is not None and cached.key == key:
            g.text_index = cached.index
            return
        index = graph_context.text_index(g)
        graph_cache.write(folder, TEXT_NAME, graph_cache.dumps([TextCache(key, index)]), self.ws.repo.git_dir)

    def expand(
        self, node: str, *, edges: list[str] | None = None, hops: int = 1, depth: int = 1, max_chars: int = graph_context.MAX_CHARS
    ) -> dict[str, Any]:
        return graph_expand.expand(self.graph, node, edges=edges, hops=hops, lines=self.lines, depth=depth, max_chars=max_chars)

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
