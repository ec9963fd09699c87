"""A file's stat key and git's racy-file rule: the one owner every stat-keyed cache asks (check's
summary, caches/check_entries*.py; the graph's inputs, graph/inputs.py; ground's broken references,
ground/broken.py). Standard library alone: check's fast answer imports it.

A stat key is a file's (mtime, size, inode, ctime), in nanoseconds: a file whose key is the one a
cache recorded is taken to hold the bytes it held then, as git's index takes it. Not a racy file
(git's racy-index rule): one whose mtime or ctime is less than RACY_NS before the run that reads
it started, or later, may change again within the same timestamp tick without its key changing,
so no cache trusts its key (`racy`). What a cache does with one is its own: check's summary keeps
no entry that depends on it, the graph gives it a key that no later load computes, ground's
broken references are not written to their cache.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

RACY_NS = 2_000_000_000  # git's racy window is one timestamp tick; 2 s covers FAT and coarse clocks

StatKey = tuple[int, int, int, int]  # st_mtime_ns, st_size, st_ino, st_ctime_ns


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def lstat_file(path: str | Path) -> StatKey | None:
    """The stat of a regular file that is no symlink, else None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return stat_key(st) if stat.S_ISREG(st.st_mode) else None


def stat_or_none(path: str | Path) -> StatKey | None:
    """The stat of whatever `path` leads to (a symlink followed), None when there is nothing."""
    try:
        return stat_key(os.stat(path))
    except OSError:
        return None


def racy(started_ns: int, *keys: Any) -> bool:
    """Whether a file of one of `keys` may still change without its key showing it (git's racy
    rule): its mtime or ctime is less than RACY_NS before `started_ns` (when the run started,
    before it read anything), or later. Anything but a key (None, "missing") is never racy."""
    limit = started_ns - RACY_NS
    return any(k is not None and type(k) is tuple and max(k[0], k[3]) >= limit for k in keys)
