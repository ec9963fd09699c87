"""The two sides of a diff as the staleness engine reads them: each side's files read at most
once, lazily, with their line indexes; the lines the diff adds, where moved text is looked for;
the hunks over a span. Pure: the readers are given. The judging is staleness.py's.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from openwiki_git.diff.hunks import FileChange, Hunk, added_lines
from openwiki_git.evidence.kinds import glob_literal_start, glob_matches
from openwiki_git.evidence.resolver import LineIndex, context_ok
from openwiki_git.evidence.tokens import Anchors
from openwiki_git.model import FileText

__all__ = ["MODE_GITLINK", "MODE_LINK", "Found", "Reader", "DiffTexts"]

Reader = Callable[[str], FileText]
Found = tuple[str, LineIndex, int, str | None]  # path, its index, the 0-based start, its blob

MODE_LINK = 0o120000
MODE_GITLINK = 0o160000


class DiffTexts:
    """The old and new side of one diff. A file the diff does not touch is never read on the old
    side by the engine (it asks only for files in `by_old`)."""

    def __init__(self, changes: Sequence[FileChange], read_old: Reader, read_new: Reader, wiki_dir: str) -> None:
        self._read_old = read_old
        self._read_new = read_new
        self.by_old = {c.old_path: c for c in changes if c.old_path is not None}
        self.by_new = {c.new_path: c for c in changes if c.new_path is not None}
        self._changes = changes
        self.changes = changes  # every change of the diff (in_scope finds those in a set's scope)
        self._wiki_dir = wiki_dir
        self._old: dict[str, tuple[FileText, LineIndex | None]] = {}
        self._new: dict[str, tuple[FileText, LineIndex | None]] = {}
        self._targets: list[tuple[str, LineIndex, list[tuple[int, int]], str | None]] | None = None
        self._paths: list[tuple[str, int]] | None = None  # (old or new path, its change's index), sorted

    def in_scope(self, scope: str) -> list[FileChange]:
        """The changes whose old or new path is in `scope` (a glob, or a path), in the diff's order.
        Only the changed paths that begin with the glob's literal start are matched against it (a
        sorted list, bisected): a set's cost follows the changes in its scope, not the diff's size."""
        if self._paths is None:
            self._paths = sorted({(p, i) for i, c in enumerate(self._changes) for p in (c.old_path, c.new_path) if p is not None})
        start = glob_literal_start(scope)
        found: set[int] = set()
        for path, i in self._paths[bisect.bisect_left(self._paths, (start, -1)) :]:
            if not path.startswith(start):
                break
            if i not in found and glob_matches(scope, path):
                found.add(i)
        return [self._changes[i] for i in sorted(found)]

    def _file(self, cache: dict[str, tuple[FileText, LineIndex | None]], read: Reader, path: str) -> tuple[FileText, LineIndex | None]:
        got = cache.get(path)
        if got is None:
            ft = read(path)
            got = cache[path] = (ft, LineIndex(ft.text) if ft.text is not None else None)
        return got

    def old_file(self, path: str) -> tuple[FileText, LineIndex | None]:
        return self._file(self._old, self._read_old, path)

    def new_file(self, path: str) -> tuple[FileText, LineIndex | None]:
        return self._file(self._new, self._read_new, path)

    def _move_targets(self) -> list[tuple[str, LineIndex, list[tuple[int, int]], str | None]]:
        """Every text file the diff adds or changes, with its added lines."""
        if self._targets is None:
            wiki = self._wiki_dir.strip("/") + "/"
            self._targets = []
            for c in self._changes:
                path = c.new_path
                if path is None or c.status == "deleted" or c.binary or path.startswith(wiki):
                    continue
                if c.new_mode in (MODE_LINK, MODE_GITLINK):
                    continue
                ft, idx = self.new_file(path)
                if ft.text is None or idx is None:
                    continue
                added = [(1, len(idx))] if c.status == "added" or c.old_path is None else added_lines(c.hunks)
                if added:
                    self._targets.append((path, idx, added, ft.blob))
        return self._targets

    def moved(self, content_hash: str, anchors: Anchors) -> Found | None:
        """Where the verified text is, unchanged, in exactly one place among the lines the diff
        adds (the stored context anchors single one out of several)."""
        count = int(anchors["selectedLineCount"])
        first, last = str(anchors["firstSelectedLineHash"]), str(anchors["lastSelectedLineHash"])
        found: list[Found] = []
        for path, idx, added, blob in self._move_targets():
            hashes = idx.line_hashes()
            for s0 in idx.window_starts(1, first):
                e0 = s0 + count
                if e0 > len(idx):
                    break
                if hashes[e0 - 1] != last or idx.span_hash(s0, e0) != content_hash:
                    continue
                if _overlaps((s0 + 1, e0), added):
                    found.append((path, idx, s0, blob))
        if len(found) > 1:
            found = [f for f in found if context_ok(f[1], f[2], f[2] + count, anchors)]
        return found[0] if len(found) == 1 else None

    def hunks_over(self, path: str, span: tuple[int, int] | None) -> tuple[Hunk, ...]:
        """The diff's hunks whose new side overlaps or borders `span` (new-side lines)."""
        change = self.by_new.get(path)
        if change is None:
            return ()
        if span is None:
            return change.hunks
        s, e = span
        out = []
        for h in change.hunks:
            lo, hi = (h.new_start, h.new_last) if h.new_count else (h.new_start, h.new_start + 1)
            if lo <= e and s <= hi:
                out.append(h)
        return tuple(out)


def _overlaps(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    s, e = span
    return any(a <= e and s <= b for a, b in spans)
