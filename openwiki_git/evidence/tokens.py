"""OpenWiki-compatible version tokens (§3): lines, hashes, `repo-file-v1` and `repo-lines-v1`,
and the strict reading of a stored token's anchors (§3.4).

A pure port of OpenWiki 0.3.3 (langchain-ai/openwiki, MIT), as described in
shared/docs/openwiki-claims-format.md §3. Stdlib only: no I/O, no git. Spans passed here are
0-based and half-open, as the function docstrings say.
"""

from __future__ import annotations

import binascii
import hashlib
import json
import re

from openwiki_git.evidence.canonical import MAX_SAFE_INTEGER

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ANCHOR_KEYS",
    "CONTEXT_LINES",
    "Anchors",
    "decode_anchors",
    "decode_token",
    "file_version",
    "is_file_token",
    "lines_version",
    "sha256_hex",
    "split_lines",
    "unchanged_lines",
]

FILE_PREFIX = "repo-file-v1:sha256:"
LINES_PREFIX = "repo-lines-v1:sha256:"
CONTEXT_LINES = 3  # K in §3.3
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


def is_file_token(token: str) -> bool:
    """Whether `token` is a well-formed `repo-file-v1` token."""
    return _FILE_TOKEN.fullmatch(token) is not None


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
    import base64  # here: check --no-cache's lean path compares tokens (unchanged_lines) and writes none

    payload = base64.urlsafe_b64encode(json.dumps(anchors, separators=(",", ":")).encode("utf-8"))
    return f"{LINES_PREFIX}{sha256_hex(''.join(lines[start0:end0]))}:{payload.rstrip(b'=').decode('ascii')}"


def unchanged_lines(
    lines: list[bytes], start0: int, end0: int, version: str, _sha: Any = hashlib.sha256, _b2a: Any = binascii.b2a_base64
) -> bool:
    """Whether `version` is exactly `lines_version()` of these lines' text at `[start0, end0)`:
    `lines` are the UTF-8 bytes of the lines, terminators kept (a window from CONTEXT_LINES
    before the span to CONTEXT_LINES after it is enough). The cited text and its context are
    unchanged at the resource's own lines: the common case of a check (claims/freshness.py's
    unchanged_at_hint, `check --no-cache`'s lean path), run once per cited range, so written for
    speed: the content hash is compared first (changed text costs one hash), the anchors are
    written without json.dumps, which dominates lines_version()'s cost (tests compare the two on
    random input), and the hash and base64 functions are bound locally."""
    n = len(lines)
    if not (0 <= start0 < end0 <= n and version.startswith(LINES_PREFIX)):
        return False
    if version[21:85] != _sha(b"".join(lines[start0:end0])).hexdigest() or version[85:86] != ":":
        return False
    before = start0 - CONTEXT_LINES if start0 > CONTEXT_LINES else 0
    after = end0 + CONTEXT_LINES if end0 + CONTEXT_LINES < n else n
    anchors = (
        f'{{"selectedLineCount":{end0 - start0},"firstSelectedLineHash":"{_sha(lines[start0]).hexdigest()}",'
        f'"lastSelectedLineHash":"{_sha(lines[end0 - 1]).hexdigest()}","precedingContextLineCount":{start0 - before},'
        f'"precedingContextHash":"{_sha(b"".join(lines[before:start0])).hexdigest()}",'
        f'"followingContextLineCount":{after - end0},'
        f'"followingContextHash":"{_sha(b"".join(lines[end0:after])).hexdigest()}"}}'
    )
    return version[86:] == _b2a(anchors.encode(), newline=False).rstrip(b"=").translate(_STD_TO_URL).decode()


def decode_anchors(token: str) -> tuple[str, Anchors] | None:
    """Strictly read a `repo-lines-v1` token (§3.4): `(content_hash, anchors)` or None.

    None means "no usable previous version". The anchors come back with exactly the seven §3.3
    keys, in order, counts as `int` (JSON `4.0` is accepted, `true` is not).
    """
    decoded = decode_token(token)
    return None if decoded is None else (decoded[0], decoded[1])


def decode_token(token: str) -> tuple[str, Anchors, bool] | None:
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
    import base64

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

