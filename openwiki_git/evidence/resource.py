"""The `repo://path[#Lx-Ly]` grammar (OpenWiki's §2, plus our refused paths): parse, canonical
form, and the one fast path for resources that are already canonical (`canonical_parts`).

A pure port of OpenWiki 0.3.3 (langchain-ai/openwiki, MIT), as described in
shared/docs/openwiki-claims-format.md §2 and Appendix A. Stdlib only: no I/O, no git.

- `parse_resource` / `format_resource`: the grammar and its round-trip rule (§2.2, §2.3).
- `canonical_parts` (evidence/canonical.py, re-exported): `(path, start, end)` of a canonical, plain resource,
  without the general machinery.
- `Resource`: a parsed resource; `canonical` is its one spelling.

Line numbers in resources are 1-based and inclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from openwiki_git.evidence.canonical import MAX_SAFE_INTEGER, canonical_parts

__all__ = [
    "MAX_SAFE_INTEGER",
    "REPO_PREFIX",
    "Resource",
    "ResourceError",
    "as_resource",
    "format_resource",
    "parse_resource",
    "canonical_parts",
]

REPO_PREFIX = "repo://"

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
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")


class ResourceError(ValueError):
    """A repo:// resource that does not parse; str(e) is a one-line human message saying what is
    wrong and how to fix it."""


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
        return REPO_PREFIX + _encode_path(self.path) + fragment

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
    parts = canonical_parts(text) if isinstance(text, str) else None
    if parts is None:
        return _parse_general(text, wiki_dir, allow_nested_git)
    # Already canonical: nothing to decode or normalise (checks 1-6 cannot fail), so only the
    # refused directories remain. Saves most of the cost of a check run.
    _check_path(parts[0], text, wiki_dir, allow_nested_git)
    return Resource(*parts)


def _parse_general(text: str, wiki_dir: str, allow_nested_git: bool) -> Resource:
    """§2.2 steps 1-8 in order, for any input."""
    if not isinstance(text, str) or not text.startswith(REPO_PREFIX):
        shown = _show(str(text))
        raise ResourceError(f"evidence {shown} must start with 'repo://', e.g. repo://src/app.py#L10-L24")
    raw_path, sep, raw_fragment = text[len(REPO_PREFIX) :].partition("#")
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
    formatted = REPO_PREFIX + _encode_path(path) + (f"#L{lines[0]}-L{lines[1]}" if lines else "")
    parsed = parse_resource(formatted, wiki_dir=wiki_dir, allow_nested_git=allow_nested_git)
    if parsed.path != path:
        raise ResourceError(f"path {_show(path)} is not normalised; write it as {parsed.path!r}")
    return formatted


def as_resource(resource: str | Resource) -> Resource:
    """`resource` parsed (OpenWiki's defaults) unless it already is a Resource."""
    return resource if isinstance(resource, Resource) else parse_resource(resource)
