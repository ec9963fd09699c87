"""The evidence graph a command works on: built, or read from its cache, for one workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openwiki_git.graph.session import GraphSession
    from openwiki_git.store.workspace import Workspace


def open_session(ws: Workspace, *, use_cache: bool = True) -> GraphSession:
    """The graph of `ws` with its build information, ready for locate and expand."""
    from openwiki_git.graph.build import load
    from openwiki_git.graph.session import GraphSession

    g, info = load(ws, use_cache=use_cache)
    return GraphSession(ws, g, info)
