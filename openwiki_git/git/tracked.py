"""A repository read with the standard library alone (no pygit2), when it is plain: whether
libgit2 would open it without a word (`opens_quietly`: its HEAD, config and packed refs), and the
paths its index tracks (`tracked_paths`). What `check --no-cache`'s lean path
(services/check_unchanged.py) asks of git, and all it asks.

Only the plain index is read: format version 2 or 3, every entry at stage 0 without extended flags
(no conflict, no skip-worktree or intent-to-add entry), no split or sparse index, a trailing SHA-1
that matches. Anything else is None, "ask libgit2" (git/repo.py), which reads every index git
writes and says what is wrong with a damaged one.
"""

from __future__ import annotations

import hashlib
import os
import struct

LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"  # a Git LFS pointer file starts so
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


def opens_quietly(root: str, git_dir: str, common: str, start: str | None) -> bool:
    """Whether libgit2 would open this repository as checkcache.locate found it, with nothing to
    say: started outside the git directory, a HEAD that names a branch (born or not) or a commit,
    and a config that makes it neither bare nor elsewhere (core.bare, core.worktree, includes)
    nor of another object format."""
    here = os.path.realpath(start or os.getcwd())
    if here == git_dir or here.startswith(git_dir + os.sep) or here == common or here.startswith(common + os.sep):
        return False
    try:
        with open(os.path.join(git_dir, "HEAD"), "rb") as fh:
            head = fh.read()
        with open(os.path.join(common, "config"), "rb") as fh:
            config = fh.read().lower()
    except OSError:
        return False
    if not _plain_git_config(config):
        return False
    if _is_object_id(head):
        return True
    if not head.startswith(b"ref: refs/heads/") or not head.endswith(b"\n") or head.count(b"\n") != 1:
        return False
    name = head[len(b"ref: ") : -1].decode("ascii", "replace")
    if not all(c.isalnum() or c in "-_./" for c in name) or ".." in name or name.endswith((".", "/", ".lock")) or "//" in name:
        return False
    try:
        with open(os.path.join(common, *name.split("/")), "rb") as fh:
            return _is_object_id(fh.read())
    except FileNotFoundError:  # unborn, or packed: either way libgit2 opens it
        return _packed_refs_plain(os.path.join(common, "packed-refs"))
    except OSError:
        return False


def _plain_git_config(config: bytes) -> bool:
    """No include, no extension (another object format), not bare, no core.worktree elsewhere, a
    repository format libgit2 opens."""
    for line in config.split(b"\n"):
        line = line.strip()
        if line.startswith((b"[include", b"[extensions")):
            return False
        key, _, value = line.partition(b"=")
        key, value = key.strip(), value.strip()
        if key == b"worktree" or (key == b"bare" and value not in (b"false", b"no", b"off", b"0")):
            return False
        if key == b"repositoryformatversion" and value not in (b"0", b"1"):
            return False  # a format libgit2 refuses to open: the full path says so
    return True


def _is_object_id(data: bytes) -> bool:
    return len(data) == 41 and data.endswith(b"\n") and all(c in b"0123456789abcdef" for c in data[:40])


def _packed_refs_plain(path: str) -> bool:
    """A packed-refs file that is absent, or every line of it a header, a ref or a peeled id."""
    try:
        with open(path, "rb") as fh:
            lines = fh.read().split(b"\n")
    except FileNotFoundError:
        return True
    except OSError:
        return False
    for line in lines:
        if line and not line.startswith(b"#"):
            ref = line[1:] if line.startswith(b"^") else line[:40]
            if len(ref) != 40 or not all(c in b"0123456789abcdef" for c in ref):
                return False
    return True
