"""The paths git's index tracks, read from the index file with the standard library alone (no
pygit2): what `check --no-cache`'s lean path (services/check_lean.py) asks of git, and all it asks.

Only the plain index is read: format version 2 or 3, every entry at stage 0 without extended flags
(no conflict, no skip-worktree or intent-to-add entry), no split or sparse index, a trailing SHA-1
that matches. Anything else is None, "ask libgit2" (git/repo.py), which reads every index git
writes and says what is wrong with a damaged one.
"""

from __future__ import annotations

import hashlib
import struct

_HEADER = struct.Struct(">4sII")  # signature, version, number of entries
_ENTRY_FIXED = 62  # ctime, mtime, dev, ino, mode, uid, gid, size (40), object id (20), flags (2)
_FLAG_EXTENDED = 0x4000
_FLAG_STAGE = 0x3000
_REFUSED_EXTENSIONS = (b"link", b"sdir")  # a split index's shared part; a sparse index's directories


def tracked_paths(path: str) -> frozenset[str] | None:
    """The paths of the index file at `path` (every entry is at stage 0), or None when the file
    is missing, unreadable or anything but the plain index described above."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if len(data) < _HEADER.size + 20 or hashlib.sha1(data[:-20]).digest() != data[-20:]:
        return None  # includes index.skipHash's zero checksum: libgit2 decides
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3):
        return None
    entries = _entries(data, count)
    if entries is None or not _extensions_plain(data, entries[1]):
        return None
    return frozenset(entries[0])


def _entries(data: bytes, count: int) -> tuple[list[str], int] | None:
    """The `count` entries' paths, and where the entries end (the extensions start)."""
    out: list[str] = []
    at = _HEADER.size
    limit = len(data) - 20
    for _ in range(count):
        if at + _ENTRY_FIXED > limit:
            return None
        flags = int.from_bytes(data[at + 60 : at + 62], "big")
        if flags & (_FLAG_EXTENDED | _FLAG_STAGE):
            return None
        nul = data.find(b"\0", at + _ENTRY_FIXED, limit)
        if nul < 0:
            return None
        try:
            out.append(data[at + _ENTRY_FIXED : nul].decode("utf-8"))
        except UnicodeDecodeError:
            return None
        at += (nul - at + 8) & ~7  # the entry, its NUL and padding to a multiple of 8 bytes
    return out, at


def _extensions_plain(data: bytes, at: int) -> bool:
    """Whether the extensions after the entries are well formed and none is refused."""
    limit = len(data) - 20
    while at < limit:
        if at + 8 > limit:
            return False
        signature, size = data[at : at + 4], int.from_bytes(data[at + 4 : at + 8], "big")
        if signature in _REFUSED_EXTENSIONS or at + 8 + size > limit:
            return False
        at += 8 + size
    return at == limit
