"""Evidence that names what it means: a definition by name, a set of files, a set of matching
lines. Their grammar, canonical form and version tokens. Pure: stdlib only, no I/O.

- `repo://src/cart.py#Cart.add`: the definition `Cart.add` (a dotted qualified name), wherever
  it is in the file; `#Cart.add:head` is its head only (signature, decorators, docstring).
- `repo://src/stores/*.py`: the tracked files the glob matches (`*`, `**`, `?`, `[...]`).
- `repo://src/**/*.py?grep=raise%20OverflowError`: the lines in scope (a file or a glob) that a
  percent-encoded Python regular expression matches, as (path, line text) pairs.

OpenWiki's grammar (resource.py) is left exactly as it is: `parse_kind` answers None for every
resource it reads as a line range or a whole file, and only a resource with a non-`L` fragment,
a glob character in its path or a `?grep=` query is one of ours. Their tokens are ours too
(`repo-def-v2`, `repo-head-v2`, `repo-set-v1`), so OpenWiki cannot misread them as its own. A
whole definition's token is `repo-def-v2` (its text, its docstrings read as prose,
definitions.py); one written before it carries `repo-def-v1` (its text as it is) and is read so.
A head's token is `repo-head-v2` (its signature and docstring summary); a head written before
it carries `repo-def-v1` (its signature and whole docstring) and is read so.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass

from openwiki_git.evidence.resource import (
    REPO_PREFIX,
    ResourceError,
    _decode_component,
    _encode_path,
    _escape,
    _show,
    parse_resource,
)
from openwiki_git.evidence.tokens import sha256_hex

__all__ = [
    "DEF_PREFIX",
    "DEF_V2_PREFIX",
    "HEAD_PREFIX",
    "MAX_MEMBERS",
    "SET_PREFIX",
    "FileSet",
    "GrepSet",
    "Kind",
    "Symbol",
    "cited_files",
    "decode_members",
    "def_v2_version",
    "def_version",
    "glob_matches",
    "head_version",
    "is_kind_token",
    "kind_link_path",
    "looks_like_kind",
    "kind_scope",
    "resource_scope",
    "openwiki_cannot_read",
    "parse_kind",
    "set_version",
]

DEF_PREFIX = "repo-def-v1:sha256:"  # written before repo-def-v2 (a whole definition) and repo-head-v2 (a head)
DEF_V2_PREFIX = "repo-def-v2:sha256:"
HEAD_PREFIX = "repo-head-v2:sha256:"
SET_PREFIX = "repo-set-v1:sha256:"
MAX_MEMBERS = 2000  # a set token lists its members; past this, narrow the glob or the query
MAX_QUERY = 200  # characters of a grep query
MAX_LINE = 1000  # characters of one line a query is matched against (the rest is not scanned)

try:
    from re._constants import MAXREPEAT as _MAXREPEAT  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - Python before 3.11 named it sre_constants
    from sre_constants import MAXREPEAT as _MAXREPEAT  # type: ignore[no-redef,import-not-found,unused-ignore]

_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_GLOB_CHARS = re.compile(r"[*?\[]")
_LINES_TYPO = re.compile(r"[lL]?[0-9]+(?:-[lL]?[0-9]+)?|l[0-9]+(?:-.*)?")  # #l8, #10-20: not names
_QUERY = "?grep="
_GLOB_KEEP = frozenset("*?[]!/")


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition by qualified name in one file; `head`: its head only."""

    path: str
    name: str
    head: bool = False

    @property
    def canonical(self) -> str:
        return f"{REPO_PREFIX}{_encode_path(self.path)}#{self.name}{':head' if self.head else ''}"

    def with_path(self, path: str) -> Symbol:
        return Symbol(path, self.name, self.head)


@dataclass(frozen=True, slots=True)
class FileSet:
    """The tracked files a glob matches."""

    pattern: str

    @property
    def canonical(self) -> str:
        return REPO_PREFIX + _encode_glob(self.pattern)


@dataclass(frozen=True, slots=True)
class GrepSet:
    """The lines of `scope` (a path or a glob) that `query` matches."""

    scope: str
    query: str

    @property
    def canonical(self) -> str:
        query = "".join(c if c.isascii() and (c.isalnum() or c in "-_.!~*'()") else _escape(c) for c in self.query)
        return f"{REPO_PREFIX}{_encode_glob(self.scope)}{_QUERY}{query}"

    @property
    def is_glob(self) -> bool:
        return _GLOB_CHARS.search(self.scope) is not None


Kind = Symbol | FileSet | GrepSet


def looks_like_kind(text: str) -> bool:
    """The cheap test: could `text` be one of ours (else it is OpenWiki's)?"""
    if not text.startswith(REPO_PREFIX):
        return False
    path, sep, fragment = text[len(REPO_PREFIX) :].partition("#")
    if sep:  # OpenWiki's `#L<n>...` (even malformed, its parser says what is wrong), else a name
        return not (fragment[:1] == "L" and fragment[1:2].isdigit()) and fragment != "L"
    return _QUERY in path or _GLOB_CHARS.search(path) is not None


def openwiki_cannot_read(resource: str) -> str | None:
    """OpenWiki mode's rule (`claim add`/`edit` refuse, `validate` reports): its reader knows line
    ranges and whole files only, so a definition, head, glob or grep resource would be misread."""
    return "OpenWiki cannot read this kind; use a line range" if looks_like_kind(resource) else None


def parse_kind(text: str, *, wiki_dir: str = "openwiki") -> Kind | None:
    """One of our kinds, or None for a resource OpenWiki's grammar reads (line range, whole file).
    Raises ResourceError with a one-line message for a malformed one of ours."""
    if not isinstance(text, str) or not looks_like_kind(text):
        return None
    body = text[len(REPO_PREFIX) :]
    raw_path, sep, fragment = body.partition("#")
    if sep:
        name, _, suffix = fragment.partition(":")
        if _LINES_TYPO.fullmatch(fragment):
            raise ResourceError(f"evidence {_show(text)} has fragment #{fragment}; a line range is written #L10-L24 (capital L)")
        if not _NAME.fullmatch(name) or suffix not in ("", "head"):
            raise ResourceError(
                f"evidence {_show(text)} has fragment #{fragment}; name a definition (#Cart.add, #Cart:head) or lines (#L10-L24)"
            )
        path = _path(raw_path, text, wiki_dir)
        if _GLOB_CHARS.search(path):
            raise ResourceError(f"evidence {_show(text)} names a definition in a glob; name one file")
        return Symbol(path, name, suffix == "head")
    raw_scope, query_sep, raw_query = raw_path.rpartition(_QUERY)
    if not query_sep:
        return FileSet(_path(raw_path, text, wiki_dir))
    query = _decode_component(raw_query, text)
    check_query(query, text)
    return GrepSet(_path(raw_scope, text, wiki_dir), query)


def _path(raw: str, text: str, wiki_dir: str) -> str:
    """The path or glob, decoded and checked by OpenWiki's rules (it must stay in the repository)."""
    if "?" in raw and not _GLOB_CHARS.sub("", raw).strip():
        raise ResourceError(f"evidence {_show(text)} has an empty path; cite a file or a glob")
    try:
        return parse_resource(REPO_PREFIX + raw, wiki_dir=wiki_dir).path
    except ResourceError as e:
        raise ResourceError(str(e).replace(_show(REPO_PREFIX + raw), _show(text))) from None


def _encode_glob(pattern: str) -> str:
    return "".join(c if c in _GLOB_KEEP else _encode_path(c) for c in pattern)


def check_query(query: str, text: str = "") -> re.Pattern[str]:
    """The compiled query, refused when it is empty, too long, or may backtrack catastrophically
    (a repeat inside a repeat, an alternation under a repeat, a backreference): lines are
    matched without a timeout, so the cost must be bounded by the pattern's shape."""
    shown = _show(text or query)
    if not query or len(query) > MAX_QUERY:
        raise ResourceError(f"evidence {shown}: the grep query must be 1 to {MAX_QUERY} characters")
    try:
        compiled = re.compile(query)
        from re import _parser  # type: ignore[attr-defined]

        tree = _parser.parse(query)
    except (re.error, RecursionError, OverflowError) as e:
        raise ResourceError(f"evidence {shown}: the grep query is not a Python regular expression ({e})") from None
    if _dangerous(tree, 0):
        raise ResourceError(
            f"evidence {shown}: the grep query nests repeats, repeats an alternation or uses a backreference; "
            "write a simpler pattern (it is matched without a timeout)"
        )
    anchored = bool(tree) and str(tree[0][0]) == "AT" and str(tree[0][1]) == "AT_BEGINNING"
    if _unbounded(tree) > (2 if anchored else 1):
        raise ResourceError(
            f"evidence {shown}: the grep query has more unbounded repeats (*, +, {{n,}}) than it may: one, or two "
            "when it starts with ^ (it is matched without a timeout, so its cost must stay within a line's length squared)"
        )
    return compiled


def _unbounded(tree: object) -> int:
    """The unbounded repeats (`*`, `+`, `{n,}`) in a parsed pattern, at any depth."""
    count = 0
    for op, arg in tree:  # type: ignore[attr-defined]
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            count += (arg[1] is _MAXREPEAT) + _unbounded(arg[2])
        elif name in ("SUBPATTERN", "ATOMIC_GROUP", "ASSERT", "ASSERT_NOT"):
            count += _unbounded(arg[-1])
        elif name == "BRANCH":
            count += max((_unbounded(b) for b in arg[1]), default=0)
    return count


def _dangerous(tree: object, repeats: int) -> bool:
    for op, arg in tree:  # type: ignore[attr-defined]
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS"):
            return True
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            bounded_small = high is not None and high <= 1 or low == high
            inner = repeats + (0 if bounded_small else 1)
            if inner > 1 or _dangerous(sub, inner):
                return True
        elif name == "BRANCH":
            if repeats and len(arg[1]) > 1:
                return True
            if any(_dangerous(b, repeats) for b in arg[1]):
                return True
        elif name in ("SUBPATTERN", "ATOMIC_GROUP", "ASSERT", "ASSERT_NOT"):
            sub = arg[-1]
            if _dangerous(sub, repeats):
                return True
    return False


def kind_scope(kind: Kind) -> tuple[str, bool]:
    """(path or glob, whether it is a glob): what a change must touch for the claim to move."""
    if isinstance(kind, Symbol):
        return kind.path, False
    pattern = kind.pattern if isinstance(kind, FileSet) else kind.scope
    return pattern, _GLOB_CHARS.search(pattern) is not None


_GLOB_CACHE: dict[str, re.Pattern[str]] = {}


def glob_regex(pattern: str) -> re.Pattern[str]:
    """`*` (within a segment), `**` (any number of segments), `?` (one character), `[...]`
    (`[!...]` negated), anchored at both ends."""
    got = _GLOB_CACHE.get(pattern)
    if got is not None:
        return got
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                inner = pattern[i + 1 : j]
                neg = inner.startswith("!")
                inner = inner[1:] if neg else inner
                out.append("[" + ("^" if neg else "") + inner.replace("\\", "\\\\") + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    compiled = _GLOB_CACHE[pattern] = re.compile("".join(out))
    return compiled


def glob_literal_start(pattern: str) -> str:
    """What `pattern` reads before its first pattern character (all of it for a plain path):
    every path it matches starts with this, so the cited-path index looks sets up by it."""
    first = _GLOB_CHARS.search(pattern)
    return pattern if first is None else pattern[: first.start()]


def glob_matches(pattern: str, path: str) -> bool:
    """Whether `path` is in the scope `pattern` (a glob, or a plain path equal to it). The glob's
    literal start is compared first: the hook matches every changed path against every set's
    glob, and most differ there, before any regular expression is built."""
    start = glob_literal_start(pattern)
    if len(start) == len(pattern):
        return pattern == path
    if not path.startswith(start):
        return False
    return glob_regex(pattern).fullmatch(path) is not None


def resource_scope(resource: str) -> tuple[str, bool] | None:
    """`kind_scope` of a stored resource (its path or glob, whether a glob); None as stored_kind."""
    return None if (kind := stored_kind(resource)) is None else kind_scope(kind)


def stored_kind(resource: str) -> Kind | None:
    """A stored resource's kind; None when it is none of ours or does not parse (routing readers never refuse)."""
    try:
        return parse_kind(resource, wiki_dir="\0")
    except ResourceError:
        return None


def kind_link_path(resource: str) -> str | None:
    """What a link to the item points at, encoded: a definition's file, the directory a set's
    glob starts in (its segments before the first glob character); None when it does not parse."""
    found = resource_scope(resource)
    if found is None:
        return None
    scope, is_glob = found
    if is_glob:
        fixed = scope.split("/")
        scope = "/".join(fixed[: next(i for i, seg in enumerate(fixed) if _GLOB_CHARS.search(seg))]) or "."
    return _encode_path(scope)


def cited_files(resource: str, version: str) -> list[str]:
    """The files an item cites, as whole-file resources: a definition's file; a set's members
    as its token lists them (the graph's `cites` edges)."""
    if (kind := stored_kind(resource)) is None:
        return []
    if isinstance(kind, Symbol):
        return [REPO_PREFIX + _encode_path(kind.path)]
    members = decode_members(version) or []
    paths = [m if isinstance(m, str) else m[0] for m in members if isinstance(m, (str, list)) and m]
    return [REPO_PREFIX + _encode_path(p) for p in sorted(set(paths)) if isinstance(p, str)]


# -- tokens ---------------------------------------------------------------------------------------
def def_version(text: str) -> str:
    """`repo-def-v1:sha256:<H(text)>`: the definition's (or its head's) text."""
    return DEF_PREFIX + sha256_hex(text)


def def_v2_version(text: str) -> str:
    """`repo-def-v2:sha256:<H(text)>`: a whole definition's token text (definitions.Extent.whole_token_text)."""
    return DEF_V2_PREFIX + sha256_hex(text)


def head_version(text: str) -> str:
    """`repo-head-v2:sha256:<H(text)>`: a head's token text (definitions.Extent.head_token_text)."""
    return HEAD_PREFIX + sha256_hex(text)


def set_version(members: list[str] | list[list[str]]) -> str:
    """`repo-set-v1:sha256:<H(json)>:<base64url(json)>`: the members, sorted, listed in the token
    so that a change can name what was added and what went (a hash alone could not)."""
    data = json.dumps(sorted(members), separators=(",", ":"), ensure_ascii=False)
    payload = base64.urlsafe_b64encode(data.encode("utf-8")).rstrip(b"=").decode("ascii")
    return f"{SET_PREFIX}{sha256_hex(data)}:{payload}"


def decode_members(token: str) -> list[str] | list[list[str]] | None:
    """The members a `repo-set-v1` token lists, when the token is whole (its hash matches)."""
    if not token.startswith(SET_PREFIX):
        return None
    digest, _, payload = token[len(SET_PREFIX) :].partition(":")
    try:
        data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode("utf-8")
        members = json.loads(data)
    except (binascii.Error, ValueError):
        return None
    if sha256_hex(data) != digest or not isinstance(members, list):
        return None
    return members


def is_kind_token(token: str) -> bool:
    return token.startswith((DEF_PREFIX, DEF_V2_PREFIX, HEAD_PREFIX, SET_PREFIX))
