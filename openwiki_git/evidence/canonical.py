"""A `repo://` resource that is already canonical and plain, read without the general grammar
(`canonical_parts`), and the grammar's number limit. Pure, and the standard library's `re` alone: the
checker, the sidecar reader and `check --no-cache`'s lean path (services/check_unchanged.py), which
imports nothing heavy, all read resources through it; resource.py has the general grammar.
"""

from __future__ import annotations

import re

MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER

# A resource that is already canonical (canonical_parts): segments of unreserved characters, none `.`
# or `..`, the first not .git, openwiki or .openwiki; an `#L<n>-L<m>` range. No `%`, `\\`, `//` or `:`.
_PLAIN_SEGMENT = r"(?!\.\.?(?:/|#|$))[A-Za-z0-9\-_.!~*'()]+"
_TOP = r"(?!(?i:\.git|openwiki|\.openwiki)(?:/|#|$))"
_PLAIN_RESOURCE = re.compile(
    rf"repo://({_TOP}{_PLAIN_SEGMENT}(?:/{_PLAIN_SEGMENT})*)(?:#L([1-9][0-9]{{0,14}})-L([1-9][0-9]{{0,14}}))?"
)


def canonical_parts(resource: str, wiki: str = "") -> tuple[str, int | None, int | None] | None:
    """`(path, start, end)` of a canonical, plain resource (no escapes, no `.`/`..` segment, not
    under `.git`, `openwiki`, `.openwiki` or `wiki`, which is lower case), read without the
    general machinery; None means "ask parse_resource", which agrees on plain input. The one
    fast path for resources: parse_resource, the sidecar reader, the checker, the check cache and
    the cited-path index use it."""
    m = _PLAIN_RESOURCE.fullmatch(resource)
    if m is None:
        return None
    path, start, end = m.groups()
    if wiki and path[: len(wiki)].lower() == wiki and path[len(wiki) : len(wiki) + 1] in ("", "/"):
        return None
    if start is None:
        return path, None, None
    first, last = int(start), int(end)
    return (path, first, last) if first <= last else None
