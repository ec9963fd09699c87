"""Line ranges mapped through a diff's zero-context hunks. Pure: numbers in, numbers out.

A hunk is git's `@@ -a,b +c,d @@` with no context lines. Old and new line numbers are 1-based;
ranges are 1-based and inclusive. Git's conventions for empty sides are kept: a pure insertion
(`b == 0`) goes *after* old line `a` (0: before the first line), and a pure deletion (`d == 0`)
leaves the new side *after* new line `c`.

What happens to a cited range `[start, end]` of the old side:

- no hunk touches it: fresh, shifted by the line-count change of every hunk above it;
- a hunk replaces or deletes one of its lines, or inserts lines between two of them: stale, and
  the new span runs from the new position of its first line (or the new side of the hunk that
  replaced it) to that of its last line;
- every line deleted and nothing put in their place: deleted (no new span);
- lines inserted right above its first line or right below its last: `adjacent`, fresh or stale
  as the caller's policy says (`adjacent_insert`); the range follows its own text either way.

Also here: `FileChange`, the record of one file in a diff (produced by git/diff.py from pygit2,
consumed by claims/staleness.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from openwiki_git.evidence.tokens import CONTEXT_LINES

__all__ = ["FileChange", "Hunk", "Mapped", "added_lines", "context_kept", "map_line", "map_range", "parse_header"]

MapStatus = Literal["fresh", "stale", "deleted"]


@dataclass(frozen=True, slots=True)
class Hunk:
    """One zero-context hunk: `old_count` old lines from `old_start` became `new_count` new lines
    from `new_start` (git's numbering for empty sides, see the module docstring)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int

    @property
    def header(self) -> str:
        """`@@ -a,b +c,d @@` exactly as git prints it (a count of 1 is omitted)."""
        return f"@@ -{_side(self.old_start, self.old_count)} +{_side(self.new_start, self.new_count)} @@"

    @property
    def old_last(self) -> int:
        """The last old line replaced (old_start - 1 for a pure insertion)."""
        return self.old_start + self.old_count - 1

    @property
    def new_last(self) -> int:
        """The last new line added (new_start - 1 for a pure deletion)."""
        return self.new_start + self.new_count - 1

    @property
    def new_lines(self) -> tuple[int, int] | None:
        """The new side's lines, 1-based inclusive; None for a pure deletion."""
        return (self.new_start, self.new_last) if self.new_count else None

    @property
    def old_lines(self) -> tuple[int, int] | None:
        """The old side's lines, 1-based inclusive; None for a pure insertion."""
        return (self.old_start, self.old_last) if self.old_count else None


def _side(start: int, count: int) -> str:
    return str(start) if count == 1 else f"{start},{count}"


def parse_header(header: str) -> Hunk:
    """The inverse of `Hunk.header` (`@@ -10,2 +10,3 @@`, trailing text ignored)."""
    parts = header.split()
    if len(parts) < 4 or parts[0] != "@@" or parts[3] != "@@" or parts[1][:1] != "-" or parts[2][:1] != "+":
        raise ValueError(f"not a hunk header: {header!r}")

    def side(text: str) -> tuple[int, int]:
        start, _, count = text[1:].partition(",")
        return int(start), int(count) if count else 1

    (a, b), (c, d) = side(parts[1]), side(parts[2])
    return Hunk(a, b, c, d)


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file in a diff. `status` is added, deleted, modified, renamed, copied or typechange;
    paths are repository-relative POSIX (None on the side where the file does not exist); blobs
    are hex object ids; modes are git's (0o100644, 0o120000 symlink, 0o160000 submodule)."""

    status: str
    old_path: str | None
    new_path: str | None
    old_blob: str | None = None
    new_blob: str | None = None
    old_mode: int = 0
    new_mode: int = 0
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    similarity: int = 0

    @property
    def renamed(self) -> bool:
        return self.old_path is not None and self.new_path is not None and self.old_path != self.new_path


@dataclass(frozen=True, slots=True)
class Mapped:
    """Where an old range is on the new side, and what touched it.

    `start`/`end` are None when every cited line was deleted. `hunks` are the hunks that
    overlapped the range or (with `adjacent`) inserted right at its edge.
    """

    status: MapStatus
    start: int | None
    end: int | None
    hunks: tuple[Hunk, ...] = ()
    adjacent: bool = False


def map_line(line: int, hunks: Iterable[Hunk]) -> int | None:
    """The new number of old line `line`, or None if a hunk replaced or deleted it."""
    delta = 0
    for h in sorted(hunks, key=_order):
        if h.old_count == 0:
            if h.old_start < line:
                delta += h.new_count
            else:
                break
        elif h.old_last < line:
            delta += h.new_count - h.old_count
        elif h.old_start <= line:
            return None
        else:
            break
    return line + delta


def _order(h: Hunk) -> float:
    # A pure insertion after old line a sits between a and a + 1.
    return h.old_start + 0.5 if h.old_count == 0 else float(h.old_start)


def map_range(start: int, end: int, hunks: Iterable[Hunk], *, adjacent_insert: str = "fresh") -> Mapped:
    """Map the old range `[start, end]` (1-based inclusive) through `hunks` (see module docstring)."""
    if not 1 <= start <= end:
        raise ValueError(f"invalid range {start}-{end}")
    ordered = sorted(hunks, key=_order)
    before = 0  # line-count change of everything above `start`
    through = 0  # ... of everything up to and including `end`
    touching: list[Hunk] = []
    adjacent: list[Hunk] = []
    new_s: int | None = None  # set when a hunk replaced the first line
    new_e: int | None = None  # set when a hunk replaced the last line
    for h in ordered:
        if h.old_count == 0:  # pure insertion after old line p
            p = h.old_start
            if p < start - 1:
                before += h.new_count
                through += h.new_count
            elif p == start - 1:
                adjacent.append(h)
                before += h.new_count
                through += h.new_count
            elif p < end:
                touching.append(h)
                through += h.new_count
            elif p == end:
                adjacent.append(h)
            else:
                break
            continue
        a, b = h.old_start, h.old_last
        if b < start:
            before += h.new_count - h.old_count
            through += h.new_count - h.old_count
            continue
        if a > end:
            break
        touching.append(h)
        if a <= start <= b:
            new_s = h.new_start if h.new_count else h.new_start + 1
        if a <= end <= b:
            new_e = h.new_last if h.new_count else h.new_start
        through += h.new_count - h.old_count
    s = new_s if new_s is not None else start + before
    e = new_e if new_e is not None else end + through
    if touching:
        if e < s:
            return Mapped("deleted", None, None, tuple(touching))
        return Mapped("stale", s, e, tuple(sorted(touching + adjacent, key=_order)))
    if adjacent:
        status: MapStatus = "stale" if adjacent_insert == "stale" else "fresh"
        return Mapped(status, s, e, tuple(adjacent), adjacent=True)
    return Mapped("fresh", s, e)


def added_lines(hunks: Iterable[Hunk]) -> list[tuple[int, int]]:
    """The new side's added lines, as 1-based inclusive spans in order."""
    return [h.new_lines for h in sorted(hunks, key=_order) if h.new_lines is not None]


def context_kept(start: int, end: int, old_n: int, span: tuple[int, int], new_n: int, hunks: Sequence[Hunk]) -> bool:
    """Are the range's 3-line contexts (hence its token's anchors) the same on both sides? Yes
    when no hunk comes within 3 lines of it and it is 3+ lines from either end of the file."""
    k = CONTEXT_LINES
    if min(start, span[0]) <= k or old_n - end < k or new_n - span[1] < k:
        return False
    for h in hunks:
        if h.old_count == 0:
            if start - k <= h.old_start <= end + k - 1:
                return False
        elif h.old_start <= end + k and h.old_last >= start - k:
            return False
    return True
