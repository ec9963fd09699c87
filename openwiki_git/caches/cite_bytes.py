"""What a sidecar's JSON bytes cite, read without parsing them whole: the repository paths and
sets' globs its evidence cites (cited_paths), a superset of its claim ids (id_values), the byte
test that spares parsing a sidecar that cannot cite a path (may_cite), and the one-shot scan's
summary of one sidecar (Summary). The cited-path index (cites.py) stores and looks up what these
read; they are pure, bytes in and values out, except the working-tree read of one sidecar.
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openwiki_git.evidence.kinds import FileSet, glob_matches, kind_scope, looks_like_kind, stored_kind
from openwiki_git.evidence.resource import REPO_PREFIX, ResourceError, canonical_parts, parse_resource
from openwiki_git.formats import sidecar as sidecar_codec


def cited_paths(data: bytes) -> set[str]:
    """The repository paths a sidecar's evidence cites (unparseable parts are skipped)."""
    return read_cites(data)[0]


def read_cites(data: bytes) -> tuple[set[str], set[str]]:
    """(the repository paths a sidecar's evidence cites, its claim ids); unparseable parts skipped."""
    try:
        doc = json.loads(data)
        claims = doc.get("claims", []) if isinstance(doc, dict) else []
    except (ValueError, UnicodeDecodeError):
        return set(), set()
    out: set[str] = set()
    ids: set[str] = set()
    for claim in claims if isinstance(claims, list) else []:
        if isinstance(claim, dict) and isinstance(claim.get("id"), str):
            ids.add(claim["id"])
        evidence = claim.get("evidence", []) if isinstance(claim, dict) else []
        for ev in evidence if isinstance(evidence, list) else []:
            resource = ev.get("resource") if isinstance(ev, dict) else None
            if not isinstance(resource, str) or not resource.startswith(REPO_PREFIX):
                continue
            if looks_like_kind(resource):
                scope = _scope(resource)
                if scope is not None:
                    out.add(scope)
                continue
            plain = canonical_parts(resource)
            if plain is not None:
                out.add(plain[0])  # the common case, no need for the full grammar
                continue
            try:
                out.add(parse_resource(resource, wiki_dir="\0").path)
            except ResourceError:
                continue
    return out, ids


def regular_file_bytes(path: Path) -> bytes | None:
    """A regular file's bytes; None for a link, a device, a folder or nothing there."""
    try:
        return path.read_bytes() if stat.S_ISREG(path.lstat().st_mode) else None
    except OSError:
        return None


def may_cite(data: bytes, paths: list[bytes]) -> bool:
    """False only when no evidence of the sidecar `data` can cite any of `paths` (repository
    paths, as bytes): a byte test that spares parsing the sidecars that cannot. A resource names
    its path literally unless it is written with %-escapes, JSON escapes, `.`/`..` segments or
    doubled slashes (which the grammar normalises), or holds a pattern character (a glob, `*`,
    `?` or `[...]`, may name the path without spelling it): a sidecar holding any of those is parsed (cited_paths,
    which this test must never contradict: tests/caches/test_cites.py compares the two)."""
    return _may_cite_raw(sidecar_codec.raw_resources(data), paths)


def _may_cite_raw(raw: bytes | None, paths: list[bytes]) -> bool:
    """may_cite on a sidecar's raw_resources (None: it holds a backslash)."""
    if raw is None:
        return True
    if any(p in raw for p in paths):
        return True
    return any(c in raw for c in (b"%", b"./", b"*", b"?", b"[", b"{")) or b"//" in raw.replace(b"repo://", b"")


# A JSON `"id": "<value>"` member, its value with any escapes (decoded by _id_value); the loop
# unrolled (runs of plain bytes, then one escape) is twice as fast as a choice per byte.
_ID_VALUE = re.compile(rb'"id"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"')


def _id_value(raw: bytes) -> bytes:
    """The UTF-8 of a matched `"id"` value, its JSON escapes decoded (bytes kept when invalid)."""
    if b"\\" not in raw:
        return raw
    try:
        return str(json.loads(b'"' + raw + b'"')).encode("utf-8")
    except ValueError:
        return raw


def id_values(data: bytes) -> bytes:
    """The UTF-8 of every `"id"` value in a sidecar's JSON bytes, escapes decoded, one per line
    (`.split(b"\\n")` gives them): a superset of its claims' ids (a cause's or any other member
    named `id` included), from one C-level pass. One joined value, not a set: a second process
    sends it back in one piece (a set of 100 values per sidecar cost 70 ms to send at 100,000
    claims, more than the scan saves), and a value holding a newline splits into pieces a claim
    id is none of (it holds none), so nothing carrying an id is missed."""
    found = _ID_VALUE.findall(data)
    return b"\n".join(_id_value(v) for v in found) if b"\\" in data else b"\n".join(found)


GLOB = "glob:"  # a cited path that is a set of lines' glob (kept in the index's sets table), matched against the changed paths
# A set of files' glob: the claim is about which files exist, so only a file added, deleted,
# renamed or changed in type can move it; matched against those paths only (an edit inside a
# member leaves the set as it was: its page is not loaded).
MEMBERS = "members:"


def _scope(resource: str) -> str | None:
    """A definition's file, `members:<pattern>` for a set of files over a glob, `glob:<pattern>`
    for a set of lines over one (a set over one file: that file)."""
    kind = stored_kind(resource)
    if kind is None:
        return None
    scope, is_glob = kind_scope(kind)
    if not is_glob:
        return scope
    return (MEMBERS if isinstance(kind, FileSet) else GLOB) + scope


def set_glob(cited: str) -> tuple[str, bool] | None:
    """(pattern, whether only membership changes count) of a cited set glob, else None."""
    if cited.startswith(GLOB):
        return cited[len(GLOB) :], False
    if cited.startswith(MEMBERS):
        return cited[len(MEMBERS) :], True
    return None


# What a one-shot scan notes of one sidecar: whether it cites one of the paths, its "id" values,
# whether it holds the mention (plain values: a second process sends them back with marshal).
Answer = tuple[bool, bytes, bool]
# parallel.map_all_in_halves' shape: {item: answer(item)} from two processes, or None.
Split = Callable[[list[str], list[int], Callable[[str], Any]], "dict[str, Any] | None"]


class Summary:
    """One sidecar's Answer from its bytes: its `repo://` strings found once (raw_resources)
    serve both the path test (may_cite, then cited_paths to confirm) and the mention."""

    def __init__(self, paths: set[str], members: set[str], mention: bytes | None) -> None:
        self.paths, self.members, self.mention = paths, members, mention
        self.needles = [p.encode("utf-8") for p in paths]

    def __call__(self, data: bytes) -> Answer:
        raw = sidecar_codec.raw_resources(data)
        hit = False
        if _may_cite_raw(raw, self.needles):
            cited = cited_paths(data)
            hit = bool(cited & self.paths) or globs_hit(cited, self.paths, self.members)
        return hit, id_values(data), self.mention is not None and mentions(data, raw, self.mention)


def mentions(data: bytes, raw: bytes | None, mention: bytes) -> bool:
    """Whether some `repo://` string of the sidecar `data` holds `mention` (told by its
    raw_resources `raw`: None, a backslash that may spell it, counts), or its bytes are not UTF-8 (utf8)."""
    return raw is None or mention in raw or not utf8(data)


def utf8(data: bytes) -> bool:
    """Whether a sidecar's bytes are UTF-8 (one that is not counts as mentioning anything, so
    that the caller parses it, and refuses it, as every other reader does)."""
    if data.isascii():  # ASCII is UTF-8: only other bytes need the decoder's check
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def globs_hit(cited: set[str], paths: set[str], members: set[str]) -> bool:
    """Whether a set's glob among `cited` matches one of `paths` (of `members`, for a set of files)."""
    for c in cited:
        found = set_glob(c)
        if found is not None and any(glob_matches(found[0], p) for p in (members if found[1] else paths)):
            return True
    return False
