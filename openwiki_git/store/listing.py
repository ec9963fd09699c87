"""The one lister of a wiki's pages and sidecars: which files under a folder are listed, and which
entries the wiki refuses, in one walk that every reader shares (store/wiki.py's `pages` and
`sidecar_pages`, the check cache's fast answer, check's lean path). Imports only `os` and
formats/pagenames: check's fast paths import it.

The walk reads each directory as os.walk does, with os.scandir (an entry's type comes with it, so
no file is stat'ed: a wiki of thousands of pages is walked on every graph load), in name order; a
directory that cannot be read is passed over, as os.walk does. It lists the files named with a
suffix, neither hidden (`.a.json`) nor symlinks. It raises `Refused` on what the wiki cannot take:
a name that is not UTF-8 (wiki paths are recorded as UTF-8 text) and, with `refuse_links`, a
symlink to a directory or named like a listed file, and a directory named like one. Pages and
sidecars differ in that one rule: a symlinked page is passed over (not the wiki's own file), but
a symlinked sidecar passed over would silently drop its claims from every check (OpenWiki: fatal),
so the sidecars are listed with `refuse_links`. The careful reader turns a refusal into its
message; a fast path hands the wiki to the careful reader (`sidecar_pages_or_none`).
"""

from __future__ import annotations

import os

from openwiki_git.formats import pagenames

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from collections.abc import Iterator

# What a refused entry is (Refused.kind).
NAME = "name"  # a name that is not UTF-8
LINK = "link"  # a symlink where a listed file or a directory is (refuse_links)
DIRECTORY = "directory"  # a directory named like a listed file (refuse_links)


class Refused(Exception):  # noqa: N818 - a refusal, raised and caught as such
    """An entry the wiki cannot take: its `kind` (NAME, LINK, DIRECTORY) and its full `path`."""

    def __init__(self, kind: str, path: str) -> None:
        super().__init__(kind, path)
        self.kind, self.path = kind, path


def files(top: str | os.PathLike[str], suffix: str | tuple[str, ...], *, refuse_links: bool = False,
          skip: str | None = None) -> Iterator[str]:
    """The files under `top` named with `suffix` (see the module's docstring), as '/'-separated
    paths relative to it, each directory's in name order; `skip`: a directory at the top that is
    not walked (the wiki's own `.claims/` when its pages are listed). Nothing when `top` is not a
    directory. Raises Refused."""
    yield from _scan(top, "", suffix, refuse_links, skip)


def _scan(folder: str | os.PathLike[str], prefix: str, suffix: str | tuple[str, ...], refuse_links: bool,
          skip: str | None) -> Iterator[str]:
    try:
        entries = list(os.scandir(folder))
    except OSError:  # as os.walk: a directory that cannot be read is passed over
        return
    for entry in sorted(entries, key=lambda e: e.name):
        name, link = entry.name, entry.is_symlink()
        if not name.isascii() and not _utf8(entry.path):
            raise Refused(NAME, entry.path)
        is_dir = entry.is_dir()  # follows links, as os.walk sorts names into dirnames
        if refuse_links and link and (is_dir or name.endswith(suffix)):
            raise Refused(LINK, entry.path)
        if refuse_links and is_dir and name.endswith(suffix):
            raise Refused(DIRECTORY, entry.path)
        if is_dir:
            if not link and name != skip:
                yield from _scan(entry.path, f"{prefix}{name}/", suffix, refuse_links, None)
        elif name.endswith(suffix) and not link and not name.startswith("."):
            yield prefix + name


def _utf8(path: str) -> bool:
    """Whether a path as os.scandir gives it (undecodable bytes as surrogates) is UTF-8 text."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def sidecar_pages(claims: str | os.PathLike[str]) -> list[str]:
    """The pages that have a sidecar in the sidecars' folder `claims` (whether or not the page
    itself still exists), sorted. Raises Refused."""
    return sorted(pagenames.page_of_sidecar(name) for name in files(claims, pagenames.SIDECAR, refuse_links=True))


def sidecar_pages_or_none(claims: str) -> list[str] | None:
    """sidecar_pages, or None on anything the careful reader refuses (check's fast paths: the
    careful reader then judges, and says what it refuses)."""
    try:
        return sidecar_pages(claims)
    except Refused:
        return None
