"""OpenWiki-compatible evidence: `repo://` resources, version tokens and range relocation.

This is a pure port of the evidence algorithms of OpenWiki 0.3.3 (langchain-ai/openwiki, MIT),
as described in shared/docs/openwiki-claims-format.md §2-§4 and Appendix A, plus
`relocate()`, openwiki-git's own relocation built on top of them. Stdlib only: no I/O, no git.

- `parse_resource` / `format_resource`: the `repo://path[#Lx-Ly]` grammar (§2).
- `file_version` / `lines_version` / `decode_anchors`: `repo-file-v1` and `repo-lines-v1` (§3).
- `resolve` / `classify`: OpenWiki's resolver, bit for bit (§4), checked by the compat vectors.
- `relocate`: our variant, which rewrites the line hint and refreshes anchors (weaknesses 3, 4),
  bounds Phase B growth (6) and never calls text "changed" while it still exists verbatim.

Line numbers are 1-based and inclusive in resources; spans passed to helpers are 0-based and
half-open, as the function docstrings say.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass

__all__ = [
    "LineIndex",
    "Relocation",
    "Resolved",
    "Resource",
    "ResourceError",
    "classify",
    "context_ok",
    "decode_anchors",
    "file_version",
    "format_resource",
    "lines_version",
    "parse_resource",
    "relocate",
    "resolve",
    "sha256_hex",
    "split_lines",
]

PREFIX = "repo://"
FILE_PREFIX = "repo-file-v1:sha256:"
LINES_PREFIX = "repo-lines-v1:sha256:"
CONTEXT_LINES = 3  # K in §3.3
MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER
ANCHOR_KEYS = (
    "selectedLineCount",
    "firstSelectedLineHash",
    "lastSelectedLineHash",
    "precedingContextLineCount",
    "precedingContextHash",
    "followingContextLineCount",
    "followingContextHash",
)
Anchors = dict[str, int | str]  # the seven §3.3 keys, in order: counts are int, hashes str

# §3.4: the integer anchors and their inclusive bounds; the other four are hashes.
_COUNT_LIMITS = {
    "selectedLineCount": (1, MAX_SAFE_INTEGER),
    "precedingContextLineCount": (0, CONTEXT_LINES),
    "followingContextLineCount": (0, CONTEXT_LINES),
}

_HEX64 = re.compile(r"[0-9a-f]{64}")
_FILE_TOKEN = re.compile(r"repo-file-v1:sha256:[0-9a-f]{64}")
# One run of consecutive %XX escapes; decodeURIComponent decodes such a run as UTF-8.
_ESCAPE_RUN = re.compile(r"((?:%[0-9A-Fa-f]{2})+)")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SUSPECT = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")  # control characters or lone surrogates
# `[0-9]`, not `\d`: Python's `\d` also matches non-ASCII digits, JavaScript's does not.
_FRAGMENT = re.compile(r"L([1-9][0-9]*)(?:-L([1-9][0-9]*))?")
# OpenWiki tests /^[a-z]:\//iu; with the i+u flags JavaScript also folds U+017F and U+212A to
# s and k, while Python's re.I would add U+0130/U+0131 too. Spell the JavaScript set out.
_DRIVE = re.compile("[A-Za-z\u017f\u212a]:/")
# encodeURIComponent leaves exactly these characters alone; `/` is kept between segments.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9\-_.!~*'()/]*")
# A resource that is already canonical (plain_parts): segments of unreserved characters, none `.`
# or `..`, the first not .git, openwiki or .openwiki; an `#L<n>-L<m>` range. No `%`, `\\`, `//` or `:`.
_PLAIN_SEGMENT = r"(?!\.\.?(?:/|#|$))[A-Za-z0-9\-_.!~*'()]+"
_TOP = r"(?!(?i:\.git|openwiki|\.openwiki)(?:/|#|$))"
_PLAIN_RESOURCE = re.compile(
    rf"repo://({_TOP}{_PLAIN_SEGMENT}(?:/{_PLAIN_SEGMENT})*)(?:#L([1-9][0-9]{{0,14}})-L([1-9][0-9]{{0,14}}))?"
)
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
_BASE64_CHARS = re.compile(r"[^A-Za-z0-9+/\-_]")
_URL_TO_STD = bytes.maketrans(b"-_", b"+/")
_STD_TO_URL = bytes.maketrans(b"+/", b"-_")
# The compact JSON that lines_version() writes (JSON.stringify gives the same bytes).
_CANONICAL_ANCHORS = re.compile(
    r'\{"selectedLineCount":([1-9][0-9]{0,15}),'
    r'"firstSelectedLineHash":"([0-9a-f]{64})","lastSelectedLineHash":"([0-9a-f]{64})",'
    r'"precedingContextLineCount":([0-3]),"precedingContextHash":"([0-9a-f]{64})",'
    r'"followingContextLineCount":([0-3]),"followingContextHash":"([0-9a-f]{64})"\}'
)


class ResourceError(ValueError):
    """A repo:// resource that does not parse; str(e) is a one-line human message saying what is
    wrong and how to fix it."""


# ---------------------------------------------------------------------------------------------
# Resources (§2)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resource:
    """A parsed `repo://` resource.

    `path` is decoded, normalised, repository-relative POSIX. `start`/`end` are 1-based and
    inclusive, both None for whole-file evidence, else 1 <= start <= end <= 2**53 - 1.
    """

    path: str
    start: int | None = None
    end: int | None = None

    def __post_init__(self) -> None:
        start, end = self.start, self.end
        if start is None and end is None:
            return
        if start is None or end is None or not (_is_line_number(start) and _is_line_number(end)):
            raise ResourceError(f"line range {start!r}-{end!r} is invalid; use 1-based integers")
        if end < start:
            raise ResourceError(f"line range L{start}-L{end} ends before it starts; swap the numbers")

    @property
    def canonical(self) -> str:
        """`repo://<encoded path>` plus `#L<start>-L<end>` for a range (§2.3)."""
        fragment = f"#L{self.start}-L{self.end}" if self.is_range else ""
        return PREFIX + _encode_path(self.path) + fragment

    @property
    def is_range(self) -> bool:
        """True for line-range evidence, False for whole-file evidence."""
        return self.start is not None

    def whole_file(self) -> Resource:
        """The same path as whole-file evidence."""
        return Resource(self.path)

    def with_lines(self, start: int, end: int) -> Resource:
        """The same path at lines `start`..`end` (1-based, inclusive)."""
        return Resource(self.path, start, end)

    def with_path(self, path: str) -> Resource:
        """The same lines in another file; `path` must already be normalised (round-trip rule)."""
        format_resource(path, None)
        return Resource(path, self.start, self.end)


def _is_line_number(value: object) -> bool:
    return type(value) is int and 1 <= value <= MAX_SAFE_INTEGER


def _show(text: str) -> str:
    """The input for an error message: repr() keeps it on one line, whatever it contains."""
    return repr(text if len(text) <= 200 else text[:200] + "...")


def parse_resource(text: str, *, wiki_dir: str = "openwiki", allow_nested_git: bool = True) -> Resource:
    """Parse a `repo://path[#Lx[-Ly]]` resource by OpenWiki's rules (§2.2), plus ours.

    Ours: a bare `..` is rejected here; `wiki_dir`, `openwiki` and `.openwiki` are refused at the
    top level (case-insensitive). `allow_nested_git=False` also refuses a `.git` segment at any
    depth; it defaults to True because the compat vectors require `vendor/lib/.git/config` to
    parse. Raises ResourceError with a one-line message.
    """
    parts = plain_parts(text) if isinstance(text, str) else None
    if parts is None:
        return _parse_general(text, wiki_dir, allow_nested_git)
    # Already canonical: nothing to decode or normalise (checks 1-6 cannot fail), so only the
    # refused directories remain. Saves most of the cost of a check run.
    _check_path(parts[0], text, wiki_dir, allow_nested_git)
    return Resource(*parts)


def plain_parts(resource: str, wiki: str = "") -> tuple[str, int | None, int | None] | None:
    """`(path, start, end)` of a canonical, plain resource (no escapes, no `.`/`..` segment, not
    under `.git`, `openwiki`, `.openwiki` or `wiki`, which is lower case), read without compat's
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


def _parse_general(text: str, wiki_dir: str, allow_nested_git: bool) -> Resource:
    """§2.2 steps 1-8 in order, for any input."""
    if not isinstance(text, str) or not text.startswith(PREFIX):
        shown = _show(str(text))
        raise ResourceError(f"evidence {shown} must start with 'repo://', e.g. repo://src/app.py#L10-L24")
    raw_path, sep, raw_fragment = text[len(PREFIX) :].partition("#")
    if "#" in raw_fragment:
        raise ResourceError(f"evidence {_show(text)} has a second '#'; write a '#' in a file name as %23")
    path = _normalise_path(_decode_component(raw_path, text), text)
    _check_path(path, text, wiki_dir, allow_nested_git)
    if not sep:
        return Resource(path)
    start, end = _parse_fragment(_decode_component(raw_fragment, text), text)
    return Resource(path, start, end)


def _decode_component(value: str, text: str) -> str:
    """decodeURIComponent, strictly: a bad escape or invalid UTF-8 raises; `+` stays `+`."""
    decoded = _percent_decode(value, text) if "%" in value else value
    if _SUSPECT.search(decoded):
        if _CONTROL.search(decoded):
            raise ResourceError(f"evidence {_show(text)} contains a control character; remove it")
        # JavaScript accepts it here but cannot re-encode it (encodeURIComponent throws).
        raise ResourceError(f"evidence {_show(text)} contains a lone surrogate; fix the character")
    return decoded


def _percent_decode(value: str, text: str) -> str:
    parts = _ESCAPE_RUN.split(value)
    # re.split with one group alternates literal text (even indexes) and escape runs (odd).
    if any("%" in literal for literal in parts[::2]):
        raise ResourceError(f"evidence {_show(text)} has a malformed %-escape; write a literal '%' as %25")
    try:
        parts[1::2] = [bytes.fromhex(run.replace("%", "")).decode("utf-8") for run in parts[1::2]]
    except UnicodeDecodeError:
        raise ResourceError(f"evidence {_show(text)} has %-escapes that are not valid UTF-8") from None
    return "".join(parts)


def _normalise_path(path: str, text: str) -> str:
    """`\\` -> `/`, Node's path.posix.normalize (keeps a trailing `/`), strip a leading `./`."""
    path = _node_normalize(path.replace("\\", "/"))
    path = path[2:] if path.startswith("./") else path
    escapes = path in ("", ".", "..") or path.startswith(("../", "/")) or _DRIVE.match(path)
    if escapes:
        raise ResourceError(
            f"evidence {_show(text)} must name a file inside the repository; "
            "use a repository-relative path such as src/app.py"
        )
    return path


def _node_normalize(path: str) -> str:
    """Port of Node's path.posix.normalize (posixpath.normpath differs, see Appendix A)."""
    if not path:
        return "."
    absolute, trailing = path.startswith("/"), path.endswith("/")
    out: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment != "..":
            out.append(segment)
        elif out and out[-1] != "..":
            out.pop()
        elif not absolute:
            out.append("..")  # a relative path may climb above its start
    body = "/".join(out)
    if not body:
        return "/" if absolute else ("./" if trailing else ".")
    body += "/" if trailing else ""
    return "/" + body if absolute else body


def _check_path(path: str, text: str, wiki_dir: str, allow_nested_git: bool) -> None:
    """Refuse Git metadata and generated wiki output (top level, case-insensitive)."""
    lower = path.lower()
    wiki = wiki_dir.strip("/").lower()
    if not allow_nested_git and ".git" in lower.split("/"):
        _refuse_git(text)
    # One C-level prefix test first: most paths start with none of these.
    if not lower.startswith((".git", "openwiki", ".openwiki", wiki or "openwiki")):
        return
    if lower.partition("/")[0] == ".git":
        _refuse_git(text)
    for refused in ("openwiki", ".openwiki", wiki):
        if refused and (lower == refused or lower.startswith(refused + "/")):
            raise ResourceError(
                f"evidence {_show(text)} points into the generated wiki ({refused}/); "
                "cite source files, not wiki pages"
            )


def _refuse_git(text: str) -> None:
    raise ResourceError(f"evidence {_show(text)} points into Git metadata (.git); cite a tracked source file")


def _parse_fragment(fragment: str, text: str) -> tuple[int, int]:
    """`L<n>` or `L<n>-L<m>`: no leading zeros, 1 <= n <= m <= 2**53 - 1."""
    match = _FRAGMENT.fullmatch(fragment)
    if match is None:
        shown = f"fragment #{fragment}" if fragment else "an empty fragment"
        raise ResourceError(
            f"evidence {_show(text)} has {shown}; a line range looks like #L10-L24 or #L8 "
            "(1-based, no leading zeros)"
        )
    return _check_range(int(match.group(1)), int(match.group(2) or match.group(1)), text)


def _check_range(start: int, end: int, text: str) -> tuple[int, int]:
    if max(start, end) > MAX_SAFE_INTEGER:
        raise ResourceError(f"evidence {_show(text)} has a line number above 2**53 - 1; use a real one")
    if end < start:
        shown = _show(text)
        raise ResourceError(f"evidence {shown} ends its range before it starts; write #L{end}-L{start}")
    return start, end


def _encode_path(path: str) -> str:
    """encodeURIComponent per `/`-separated segment, uppercase hex (§2.3)."""
    if _PLAIN_PATH.fullmatch(path):
        return path  # the common case: nothing to escape
    try:
        return "".join(c if c in _UNRESERVED or c == "/" else _escape(c) for c in path)
    except UnicodeEncodeError:
        raise ResourceError(f"path {_show(path)} contains a lone surrogate and cannot be encoded") from None


def _escape(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))


def format_resource(
    path: str, lines: tuple[int, int] | None, *, wiki_dir: str = "openwiki", allow_nested_git: bool = True
) -> str:
    """The canonical `repo://` string for `path` and 1-based inclusive `lines` (None: whole file).

    Round-trip rule (§2.3): the output is parsed back and must give the same path and range, so
    a path that is not already normalised (`src/../x`, `src\\x`, `openwiki/x`) raises
    ResourceError, as do a start below 1 and `end < start`.
    """
    if lines is not None and not (len(lines) == 2 and all(_is_line_number(n) for n in lines)):
        raise ResourceError(f"line range {lines!r} is invalid; give (start, end) as 1-based integers")
    if lines is not None and lines[1] < lines[0]:
        raise ResourceError(f"line range L{lines[0]}-L{lines[1]} ends before it starts; swap the numbers")
    formatted = PREFIX + _encode_path(path) + (f"#L{lines[0]}-L{lines[1]}" if lines else "")
    parsed = parse_resource(formatted, wiki_dir=wiki_dir, allow_nested_git=allow_nested_git)
    if parsed.path != path:
        raise ResourceError(f"path {_show(path)} is not normalised; write it as {parsed.path!r}")
    return formatted


def _as_resource(resource: str | Resource) -> Resource:
    return resource if isinstance(resource, Resource) else parse_resource(resource)


# ---------------------------------------------------------------------------------------------
# Lines, hashes and version tokens (§3)
# ---------------------------------------------------------------------------------------------


def split_lines(text: str) -> list[str]:
    """Split on "\\n" only, keeping terminators; no phantom empty last line (§3.2).

    `"a\\r\\nb"` -> `["a\\r\\n", "b"]`; `""` -> `[]`. Never str.splitlines(), which also splits
    on \\r, U+2028, U+0085, \\v and \\f.
    """
    parts = text.split("\n")
    last = parts.pop()
    lines = [part + "\n" for part in parts]
    if last:
        lines.append(last)
    return lines


def sha256_hex(text: str) -> str:
    """Lowercase hex SHA-256 of the UTF-8 encoding of `text`."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Node encodes a lone surrogate as U+FFFD; a UTF-16 round trip does the same here.
        data = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def file_version(text: str) -> str:
    """`repo-file-v1:sha256:<H(text)>`: any byte change gives a new version (§3.1)."""
    return FILE_PREFIX + sha256_hex(text)


def lines_version(lines: list[str], start0: int, end0: int) -> str:
    """`repo-lines-v1` token for `lines[start0:end0]` (0-based, half-open, non-empty) (§3.3)."""
    n = len(lines)
    if not 0 <= start0 < end0 <= n:
        raise ValueError(f"span [{start0}, {end0}) is not a non-empty span of {n} lines")
    before = max(0, start0 - CONTEXT_LINES)
    after = min(n, end0 + CONTEXT_LINES)
    anchors = {
        "selectedLineCount": end0 - start0,
        "firstSelectedLineHash": sha256_hex(lines[start0]),
        "lastSelectedLineHash": sha256_hex(lines[end0 - 1]),
        "precedingContextLineCount": start0 - before,
        "precedingContextHash": sha256_hex("".join(lines[before:start0])),
        "followingContextLineCount": after - end0,
        "followingContextHash": sha256_hex("".join(lines[end0:after])),
    }
    payload = base64.urlsafe_b64encode(json.dumps(anchors, separators=(",", ":")).encode("utf-8"))
    return f"{LINES_PREFIX}{sha256_hex(''.join(lines[start0:end0]))}:{payload.rstrip(b'=').decode('ascii')}"


def decode_anchors(token: str) -> tuple[str, Anchors] | None:
    """Strictly read a `repo-lines-v1` token (§3.4): `(content_hash, anchors)` or None.

    None means "no usable previous version". The anchors come back with exactly the seven §3.3
    keys, in order, counts as `int` (JSON `4.0` is accepted, `true` is not).
    """
    decoded = _decode_token(token)
    return None if decoded is None else (decoded[0], decoded[1])


def _decode_token(token: str) -> tuple[str, Anchors, bool] | None:
    """decode_anchors() plus a flag: True when `token` is exactly what lines_version() writes
    for these anchors, so an unchanged span can keep the token without re-encoding it."""
    if not isinstance(token, str) or not token.startswith(LINES_PREFIX):
        return None
    content_hash, sep, payload = token[len(LINES_PREFIX) :].partition(":")
    if not sep or not _HEX64.fullmatch(content_hash):
        return None
    raw, plain = _decode_base64(payload)
    match = _CANONICAL_ANCHORS.fullmatch(raw.decode("utf-8", "replace"))
    if match is not None:
        # The shape lines_version() writes: no JSON parser and no type checks needed.
        count, first, last, before, before_hash, after, after_hash = match.groups()
        if int(count) > MAX_SAFE_INTEGER:
            return None
        anchors: Anchors = {
            "selectedLineCount": int(count),
            "firstSelectedLineHash": first,
            "lastSelectedLineHash": last,
            "precedingContextLineCount": int(before),
            "precedingContextHash": before_hash,
            "followingContextLineCount": int(after),
            "followingContextHash": after_hash,
        }
        return content_hash, anchors, plain
    checked = _parse_anchors(raw)
    return None if checked is None else (content_hash, checked, False)


def _decode_base64(payload: str) -> tuple[bytes, bool]:
    """Node's lenient `Buffer.from(s, "base64url")`, and whether `payload` is exactly the
    unpadded base64url encoding of the result (as lines_version() writes it)."""
    if len(payload) % 4 != 1:
        # base64.urlsafe_b64decode/-encode without their wrappers (this runs once per claim).
        try:
            encoded = payload.encode("ascii")
            raw = binascii.a2b_base64(encoded.translate(_URL_TO_STD) + b"=" * (-len(encoded) % 4))
        except ValueError:  # not ASCII, or binascii.Error
            pass
        else:
            if binascii.b2a_base64(raw, newline=False).translate(_STD_TO_URL).rstrip(b"=") == encoded:
                return raw, True
    # Node skips characters outside the alphabet, stops at "=", and ignores a lone trailing one.
    data = _BASE64_CHARS.sub("", payload.partition("=")[0])
    if len(data) % 4 == 1:
        data = data[:-1]
    return base64.urlsafe_b64decode(data.replace("+", "-").replace("/", "_") + "=" * (-len(data) % 4)), False


def _parse_anchors(raw: bytes) -> Anchors | None:
    """The general path: JSON.parse semantics (no NaN/Infinity), then the §3.4 checks."""
    try:
        meta = json.loads(raw.decode("utf-8", "replace"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return None
    return _check_anchors(meta) if isinstance(meta, dict) else None


def _reject_constant(name: str) -> object:
    raise ValueError(f"JSON.parse rejects {name}")


def _check_anchors(meta: dict[str, object]) -> Anchors | None:
    if len(meta) != len(ANCHOR_KEYS) or set(meta) != set(ANCHOR_KEYS):
        return None
    anchors: Anchors = {}
    for key in ANCHOR_KEYS:
        value = meta[key]
        limits = _COUNT_LIMITS.get(key)
        checked = _js_int(value, *limits) if limits else _hash_or_none(value)
        if checked is None:
            return None
        anchors[key] = checked
    return anchors


def _js_int(value: object, low: int, high: int) -> int | None:
    """A JSON number that JavaScript's Number.isSafeInteger accepts, within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None  # Python's bool is an int; JSON's true is not a number
    if isinstance(value, float) and not value.is_integer():
        return None  # also rejects inf and nan
    number = int(value)
    return number if low <= number <= high else None


def _hash_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and _HEX64.fullmatch(value) else None


class LineIndex:
    """Per-file cache: the text's lines and their hashes, computed once and reused by every claim
    citing the file.

    Hashes are built lazily: the fast path (text unchanged at its hint) hashes only the hinted
    span, so a check where nothing moved never hashes whole files. A full scan or Phase B builds
    `window -> positions` tables (1 to 3 lines wide) once per file.
    """

    __slots__ = ("_file_version", "_line_hashes", "_windows", "lines", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: list[str] = split_lines(text)
        self._line_hashes: list[str] | None = None
        self._windows: dict[int, dict[str, list[int]]] = {}
        self._file_version: str | None = None

    def __len__(self) -> int:
        return len(self.lines)

    @property
    def file_version(self) -> str:
        """`file_version(self.text)`, computed once."""
        if self._file_version is None:
            self._file_version = file_version(self.text)
        return self._file_version

    def line_hashes(self) -> list[str]:
        """H(line) for every line, in order."""
        if self._line_hashes is None:
            self._line_hashes = [sha256_hex(line) for line in self.lines]
        return self._line_hashes

    def span_hash(self, start0: int, end0: int) -> str:
        """H of `lines[start0:end0]` joined (0-based, half-open)."""
        return sha256_hex("".join(self.lines[start0:end0]))

    def window_starts(self, count: int, digest: str) -> list[int]:
        """Ascending 0-based starts `i` with H(join(lines[i:i+count])) == digest (count >= 1)."""
        table = self._windows.get(count)
        if table is None:
            table = self._windows[count] = self._build_windows(count)
        return table.get(digest, [])

    def _build_windows(self, count: int) -> dict[str, list[int]]:
        table: dict[str, list[int]] = {}
        if count == 1:
            hashes = self.line_hashes()
        else:
            hashes = [self.span_hash(i, i + count) for i in range(len(self.lines) - count + 1)]
        for i, digest in enumerate(hashes):
            table.setdefault(digest, []).append(i)
        return table


def _index_for(text: str, lines: LineIndex | None) -> LineIndex:
    if lines is None:
        return LineIndex(text)
    if lines.text is not text and lines.text != text:
        raise ValueError("the LineIndex was built for a different text")
    return lines


# ---------------------------------------------------------------------------------------------
# OpenWiki's resolver (§4)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resolved:
    """What OpenWiki's resolver returns for one piece of evidence.

    `resource` is the located one (for a range: where the text is now, which may differ from the
    hint; OpenWiki itself keeps the hint). `version` is OpenWiki's token: the previous token
    verbatim when the text was found unchanged. `content` is the selected text, or the whole file.
    """

    resource: Resource
    version: str
    content: str


@dataclass(slots=True)
class _Search:
    """Where §4 found a range. `copies` counts the verbatim copies Phase A saw (1 on the fast
    path, which looks no further); `spans` counts Phase B candidates (0 if it did not run)."""

    span: tuple[int, int] | None
    unchanged: bool
    copies: int
    spans: int


def _hint(resource: Resource, n: int) -> tuple[int, int] | None:
    """The 0-based half-open span written in the resource; it counts only if end <= n."""
    start, end = resource.start, resource.end
    return (start - 1, end) if start is not None and end is not None and end <= n else None


def _search(idx: LineIndex, hint: tuple[int, int] | None, content_hash: str, m: Anchors) -> _Search:
    """§4: Phase A (fast path, full scan, context), then Phase B."""
    count = int(m["selectedLineCount"])
    if hint is not None and hint[1] - hint[0] == count and idx.span_hash(*hint) == content_hash:
        return _Search(hint, True, 1, 0)  # fast path: the context is deliberately not checked
    starts = _verbatim_starts(idx, content_hash, m)
    if len(starts) == 1:
        return _Search((starts[0], starts[0] + count), True, 1, 0)
    in_context = [s for s in starts if context_ok(idx, s, s + count, m)]
    if len(in_context) == 1:
        return _Search((in_context[0], in_context[0] + count), True, len(starts), 0)
    span, spans = _changed_span(idx, m)
    return _Search(span if spans == 1 else None, False, len(starts), spans)


def _verbatim_starts(idx: LineIndex, content_hash: str, m: Anchors) -> list[int]:
    """Full scan: starts whose first and last line hashes match and whose window hashes to
    `content_hash`; the line-hash table replaces OpenWiki's loop over every start."""
    count, n = int(m["selectedLineCount"]), len(idx.lines)
    hashes = idx.line_hashes()
    found = []
    for s in idx.window_starts(1, str(m["firstSelectedLineHash"])):
        if s + count > n:
            break  # starts are ascending
        if hashes[s + count - 1] == m["lastSelectedLineHash"] and idx.span_hash(s, s + count) == content_hash:
            found.append(s)
    return found


def context_ok(idx: LineIndex, s: int, e: int, m: Anchors) -> bool:
    """Both stored contexts sit exactly around [s, e); a 0-line context pins to the file edge."""
    before, after = int(m["precedingContextLineCount"]), int(m["followingContextLineCount"])
    n = len(idx.lines)
    if before == 0:
        before_ok = s == 0
    else:
        before_ok = s >= before and idx.span_hash(s - before, s) == m["precedingContextHash"]
    if after == 0:
        after_ok = e == n
    else:
        after_ok = e + after <= n and idx.span_hash(e, e + after) == m["followingContextHash"]
    return before_ok and after_ok


def _changed_span(idx: LineIndex, m: Anchors) -> tuple[tuple[int, int] | None, int]:
    """Phase B: the first (start, end) pair with end > start, and how many pairs exist.

    Pairs are enumerated as OpenWiki does (starts ascending, then ends ascending), so the first
    pair is OpenWiki's answer whenever it is the only one. Counting uses two pointers: O(S + E).
    """
    before, after = int(m["precedingContextLineCount"]), int(m["followingContextLineCount"])
    starts = _boundaries(idx, before, str(m["precedingContextHash"]), before=True)
    ends = _boundaries(idx, after, str(m["followingContextHash"]), before=False)
    first: tuple[int, int] | None = None
    total = j = 0
    for s in starts:
        while j < len(ends) and ends[j] <= s:
            j += 1
        if j < len(ends) and first is None:
            first = (s, ends[j])
        total += len(ends) - j
    return first, total


def _boundaries(idx: LineIndex, count: int, digest: str, *, before: bool) -> list[int]:
    """Phase B steps 1-2: selection boundaries just after (before=True) or at (False) a context."""
    if count == 0:
        return [0 if before else len(idx.lines)]
    starts = idx.window_starts(count, digest)
    return [i + count for i in starts] if before else starts


def _at(resource: Resource, idx: LineIndex, span: tuple[int, int], version: str | None = None) -> Resolved:
    """A Resolved for `span`, with a newly issued token unless `version` is given."""
    s, e = span
    token = lines_version(idx.lines, s, e) if version is None else version
    return Resolved(resource.with_lines(s + 1, e), token, "".join(idx.lines[s:e]))


def resolve(
    resource: str | Resource, text: str, previous: str | None = None, *, lines: LineIndex | None = None
) -> Resolved | None:
    """OpenWiki's resolver (§4), exactly; None means "missing".

    Whole-file evidence ignores `previous`. A range without a usable previous token is taken at
    its literal lines (the hint), which must satisfy end <= number of lines. With a token, the
    unchanged text is searched (fast path at the hint, full scan, context disambiguation) and
    returned with `previous` verbatim; failing that, Phase B re-anchors changed text between the
    unchanged contexts and issues a new token. `lines` must be a LineIndex of `text`.
    """
    res = _as_resource(resource)
    if not res.is_range:
        return Resolved(res, lines.file_version if lines is not None else file_version(text), text)
    idx = _index_for(text, lines)
    hint = _hint(res, len(idx.lines))
    parsed = decode_anchors(previous) if previous else None
    if parsed is None or previous is None:
        return None if hint is None else _at(res, idx, hint)
    found = _search(idx, hint, *parsed)
    if found.span is None:
        return None
    return _at(res, idx, found.span, previous if found.unchanged else None)


def classify(resolved: Resolved | None, previous: str) -> dict[str, object]:
    """OpenWiki's status: None -> unresolved; version == previous -> fresh; else stale.

    Returns `{"status", "range": [start, end] (1-based inclusive) or None, "version"}`.
    """
    if resolved is None:
        return {"status": "unresolved", "range": None, "version": None}
    res = resolved.resource
    return {
        "status": "fresh" if resolved.version == previous else "stale",
        "range": [res.start, res.end] if res.is_range else None,
        "version": resolved.version,
    }


# ---------------------------------------------------------------------------------------------
# openwiki-git's relocation
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Relocation:
    """The outcome of `relocate()`.

    status: "fresh" (the cited text is unchanged, possibly at new lines), "stale" (the text
    changed and was re-anchored between unchanged context, or no usable stored version), or
    "unresolved". resource: where the text is now (None when unresolved). version: a token
    computed at that location (so anchors never age), None when unresolved. reason: one short
    human sentence.
    """

    status: str
    resource: Resource | None
    version: str | None
    content: str | None
    reason: str


def _unresolved(reason: str) -> Relocation:
    return Relocation("unresolved", None, None, None, reason)


def _label(resource: Resource) -> str:
    return f"L{resource.start}-L{resource.end}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def relocate(
    resource: str | Resource,
    text: str,
    previous: str | None,
    *,
    lines: LineIndex | None = None,
    max_growth: int = 200,
) -> Relocation:
    """Locate cited text in `text`, fixing OpenWiki's hint drift and anchor aging.

    Invariants: "fresh" iff the located text hashes to the previous token's content hash (whole
    files: the token is unchanged), and then `resource` holds the new lines and `version` a fresh
    token with refreshed anchors. Never "stale" while the cited text still occurs verbatim: an
    ambiguous verbatim match is "unresolved". A stale span longer than the old line count plus
    `max_growth` is "unresolved". Without a usable `previous`, the hint is taken literally and
    reported "stale" ("no usable stored version"), never "fresh".
    """
    if max_growth < 0:
        raise ValueError("max_growth must be >= 0")
    res = _as_resource(resource)
    if not res.is_range:
        return _relocate_file(res, text, previous, lines)
    idx = _index_for(text, lines)
    hint = _hint(res, len(idx.lines))
    decoded = _decode_token(previous) if previous else None
    if decoded is None or previous is None:
        if hint is None:
            return _unresolved(f"range ends past the end of the file ({_plural(len(idx.lines), 'line')})")
        found = _at(res, idx, hint)
        return Relocation("stale", found.resource, found.version, found.content, "no usable stored version")
    content_hash, anchors, canonical = decoded
    search = _search(idx, hint, content_hash, anchors)
    if search.span is not None and search.unchanged:
        return _fresh(res, idx, search.span, previous if canonical else None, anchors)
    return _judge(res, idx, search, int(anchors["selectedLineCount"]), max_growth)


def _relocate_file(res: Resource, text: str, previous: str | None, lines: LineIndex | None) -> Relocation:
    version = lines.file_version if lines is not None else file_version(text)
    if previous is None or not _FILE_TOKEN.fullmatch(previous):
        return Relocation("stale", res, version, text, "no usable stored version")
    if previous == version:
        return Relocation("fresh", res, version, text, "unchanged")
    return Relocation("stale", res, version, text, "file changed")


def _fresh(
    res: Resource, idx: LineIndex, span: tuple[int, int], previous: str | None, m: Anchors
) -> Relocation:
    """The cited text, unchanged, at `span`, with a token computed there (anchors never age).

    Shortcut: when the stored token is canonical and its context still surrounds the span, the
    token lines_version() would compute is the stored one, so it is reused instead of rebuilt.
    """
    s, e = span
    counts = (min(CONTEXT_LINES, s), min(CONTEXT_LINES, len(idx.lines) - e))
    same_shape = counts == (m["precedingContextLineCount"], m["followingContextLineCount"])
    if previous is not None and same_shape and context_ok(idx, s, e, m):
        version = previous
    else:
        version = lines_version(idx.lines, s, e)
    if (s + 1, e) == (res.start, res.end):
        return Relocation("fresh", res, version, "".join(idx.lines[s:e]), "unchanged")
    located = res.with_lines(s + 1, e)
    reason = f"moved from {_label(res)} to {_label(located)}"
    return Relocation("fresh", located, version, "".join(idx.lines[s:e]), reason)


def _judge(res: Resource, idx: LineIndex, found: _Search, old_count: int, max_growth: int) -> Relocation:
    """Our verdict when the cited text was not found unchanged at one place (see relocate())."""
    if found.copies >= 2:
        # The text still exists verbatim, in several places: never call it changed, never guess.
        return _unresolved(f"ambiguous: {found.copies} places match")
    if found.span is None:
        if found.spans >= 2:
            return _unresolved(f"ambiguous: {found.spans} spans fit between the unchanged context")
        return _unresolved("cited text no longer found")
    s, e = found.span
    if e - s > old_count + max_growth:
        grew = f"{_plural(old_count, 'line')} to {_plural(e - s, 'line')}"
        return _unresolved(f"changed text grew from {grew} (limit +{max_growth})")
    located = _at(res, idx, found.span)
    reason = "text changed between unchanged context"
    return Relocation("stale", located.resource, located.version, located.content, reason)
