"""What a graph load reads, by stat: every input's stat key (git's racy rule: caches/statkey.py), the prose documents
the config's globs match, the tracked set, and a page's or document's text to split. A key that
matches the cached one means the input is the one the cache was built from (graph_build).
"""

from __future__ import annotations

import glob
import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from openwiki_git.caches import statkey
from openwiki_git.evidence.kinds import glob_literal_start, glob_matches
from openwiki_git.pages import citations
from openwiki_git.store.workspace import Workspace

DEFAULT_DOCS = ("docs/**/*.md", "doc/**/*.md", "adr/**/*.md", "decisions/**/*.md")

StatKey = statkey.StatKey | None


def stat_key(path: Path, started_ns: int) -> StatKey:
    """(mtime, size, inode, ctime) of `path`, None when it is missing. A racy file (changed less
    than RACY_NS before this load started: git's racy rule, caches/statkey.py) could change again
    within the same timestamp tick without its stat showing it: it gets a key that no later load
    computes (negative, with this load's start time), so nothing is ever reused for it."""
    key = statkey.stat_or_none(path)
    return (-1, -1, -1, started_ns) if key is not None and statkey.racy(started_ns, key) else key


def cited_key(root: Path, path: str, started_ns: int) -> StatKey | str:
    """What a cited path's results are kept by: a file's stat_key; a glob's (a set of lines over a
    folder, `src/**/*.py`) a digest of the stat keys of every file under its literal start that
    it matches, so that an edit of any of them (a new line mentioning the name) is seen. A racy
    file makes a digest no later load computes, as stat_key does."""
    if not any(c in path for c in "*?["):
        return stat_key(root / path, started_ns)
    start = glob_literal_start(path)
    base = start if start.endswith("/") or not start else start.rsplit("/", 1)[0] + "/" if "/" in start else ""
    found: list[tuple[str, StatKey]] = []
    for folder, dirs, files in os.walk(root / base):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        found.extend((prefix + f, stat_key(Path(folder) / f, started_ns)) for f in sorted(files) if glob_matches(path, prefix + f))
    return hashlib.sha1(repr(found).encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


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
class Inputs:
    """What is on disk now, by stat: the cache key and what a rebuild must read."""

    index: StatKey
    docs: dict[str, StatKey]
    pages: dict[str, StatKey]
    sidecars: dict[str, StatKey]
    started_ns: int  # when this load started, before any stat (the racy rule)


def stat_inputs(ws: Workspace) -> Inputs:
    """Every input of a graph load now, by stat (the git index, documents, pages, sidecars)."""
    root, wiki, started = ws.repo.root, ws.wiki, time.time_ns()
    return Inputs(
        stat_key(ws.repo.git_dir / "index", started),
        {p: stat_key(root / p, started) for p in doc_paths(root, doc_globs(ws), ws.config.wiki_dir)},
        {p: stat_key(wiki.page_path(p), started) for p in wiki.pages()},
        {p: stat_key(wiki.sidecar_path(p), started) for p in wiki.sidecar_pages()},
        started,
    )


def tracked(ws: Workspace) -> frozenset[str]:
    """Paths in git's index: the files a link may point to."""
    return frozenset(entry.path for entry in ws.repo.index)


def read_text(path: Path, *, strip: bool) -> str:
    """The text of a document or page to split ("" when it cannot be read)."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        text = ""
    if strip:  # the generated citations block is the tool's, not the author's prose
        text = citations.strip_block(text)
    return text
