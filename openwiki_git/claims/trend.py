"""The wiki's past from its sidecars' history: counts by status at each commit (the trend), and
how long each mark waited to be cleared. No state of its own: git's history is the record.

A claim's status at a commit is its sidecar's: `mark.status` while it has a mark, else fresh. A
mark waits from the first commit of the window whose sidecar has it to the first one whose
sidecar does not (verified, edited or retracted), in commit time; a mark already there at the
window's first commit has no known start and is counted as open from before, never as a wait.
A sidecar that cannot be read counts as no claims at that commit. Pure: the bytes come in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openwiki_git.formats import sidecar as codec

STATUSES = ("fresh", "stale", "unresolved")

# One claim's state at a commit: (status, the mark's since or None, the files its mark's causes name)
State = tuple[str, str | None, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Point:
    """One commit of the trend: its id, committer time (epoch seconds) and counts by status."""

    commit: str
    time: int
    counts: dict[str, int]


@dataclass(slots=True)
class History:
    """What the walk found: the trend, the waits of cleared marks (seconds), the marks still open
    at the last commit (with their start, or None when already open at the first, and the commit
    that brought each), every mark seen in the window: (claim id, since) -> the files its causes
    named, and how many marks cleared in the window predate it."""

    points: list[Point] = field(default_factory=list)
    waits: list[int] = field(default_factory=list)
    open_marks: dict[str, int | None] = field(default_factory=dict)
    marks_seen: dict[tuple[str, str | None], tuple[str, ...]] = field(default_factory=dict)
    cleared_from_before: int = 0  # marks cleared in the window that were there at its first commit (no known wait)
    marked_in: dict[str, str] = field(default_factory=dict)  # open mark's claim id -> the commit of the window that brought it


def sidecar_states(data: bytes) -> dict[str, State]:
    """Each claim of one sidecar's bytes: claim id -> State; {} when it cannot be read."""
    try:
        return {cid: (status, since, files) for cid, _, status, since, files in codec.glance(data)}
    except (ValueError, UnicodeDecodeError):
        return {}


def walk(snapshots: Iterable[tuple[str, int, dict[str, bytes | None], bool]]) -> History:
    """The history of `snapshots`, oldest first: (commit id, time, changed sidecar bytes by path
    with None for deleted, whether `changed` is the whole folder), as git/history.py yields them."""
    h = History()
    files: dict[str, dict[str, State]] = {}
    counts = dict.fromkeys(STATUSES, 0)
    started: dict[str, int | None] = {}  # claim id -> when its current mark was first seen
    for n, (commit, time, changed, whole) in enumerate(snapshots):
        touched = set(files) if whole else set(changed)
        before = {cid: st for p in touched for cid, st in files.get(p, {}).items()}
        for p in touched:  # counted per sidecar: a claim id twice in the wiki is two claims
            for st in files.get(p, {}).values():
                counts[st[0]] -= 1
        if whole:
            files = {}
        for path, data in changed.items():
            if data is None:
                files.pop(path, None)
            else:
                files[path] = sidecar_states(data)
        touched = set(files) if whole else set(changed)
        after = {cid: st for p in touched for cid, st in files.get(p, {}).items()}
        for p in touched:
            for st in files.get(p, {}).values():
                counts[st[0]] += 1
        _marks_moved(h, started, before, after, n, time, commit)
        h.points.append(Point(commit, time, dict(counts)))
    h.open_marks = started
    return h


def _marks_moved(h: History, started: dict[str, int | None], before: dict[str, State], after: dict[str, State],
                 n: int, time: int, commit: str) -> None:
    """Marks that appeared (their wait starts; unknown at the window's first commit) and marks
    that are gone (their wait ends), among the claims of the changed sidecars."""
    for cid, st in after.items():
        if st[0] != "fresh":
            h.marks_seen.setdefault((cid, st[1]), st[2])
            if cid not in started:
                started[cid] = None if n == 0 else time
                if n > 0:
                    h.marked_in[cid] = commit
    for cid in before:
        state = after.get(cid)
        if cid in started and (state is None or state[0] == "fresh"):
            start = started.pop(cid)
            h.marked_in.pop(cid, None)
            if start is not None:
                h.waits.append(time - start)
            else:
                h.cleared_from_before += 1


def percentile(values: list[int], q: float) -> float | None:
    """The q-quantile (0..1) of values, linear between the closest ranks (numpy's default);
    None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def clearing(h: History) -> dict[str, Any]:
    """The clearing times: how many marks were cleared in the window (those set before its first
    commit counted apart: their wait is not known), the median and 90th percentile wait (seconds)
    of the others, and how many are still open."""
    return {
        "cleared": len(h.waits) + h.cleared_from_before,
        "cleared_from_before": h.cleared_from_before,
        "median_seconds": percentile(h.waits, 0.5),
        "p90_seconds": percentile(h.waits, 0.9),
        "open": len(h.open_marks),
        "open_from_before": sum(1 for start in h.open_marks.values() if start is None),
    }
