"""The code `ground` reads: the index of a workspace's tracked files (the wiki directory's own
files are no code, though a link may name them), read from the working tree or a commit."""

from __future__ import annotations

from openwiki_git.ground.index import SourceIndex
from openwiki_git.store.workspace import Workspace


def source_index(ws: Workspace, source: str = "worktree") -> SourceIndex:
    def read(path: str) -> str | None:
        try:
            return ws.repo.read(path, source).text
        except OSError:
            return None

    wiki_prefix = ws.config.wiki_dir.rstrip("/") + "/"
    every = tracked(ws)
    paths = [p for p in every if not p.startswith(wiki_prefix)]
    return SourceIndex(paths, read, files=every)  # a link to the docs' own image is no code, but it exists


def tracked(ws: Workspace) -> list[str]:
    return [entry.path for entry in ws.repo.index]
