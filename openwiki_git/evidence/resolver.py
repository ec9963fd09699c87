"""OpenWiki's resolver (§4), bit for bit: where cited text is in a file now, and its status.

A pure port of OpenWiki 0.3.3 (langchain-ai/openwiki, MIT), as described in
shared/docs/openwiki-claims-format.md §4, checked by the compat vectors. Stdlib only.

- `LineIndex`: a file's lines and their hashes, built once and shared by every claim citing it.
- `resolve` / `classify`: OpenWiki's answer and status for one piece of evidence.
- `search`: §4's search (Phase A: the hint, a full scan, the context; then Phase B), which our
  relocation (relocation.py) judges differently.

Spans are 0-based and half-open; resources' lines are 1-based and inclusive.
"""

from __future__ import annotations

from dataclasses import dataclass

from openwiki_git.evidence.resource import Resource, as_resource
from openwiki_git.evidence.tokens import Anchors, decode_anchors, file_version, lines_version, sha256_hex, split_lines

__all__ = [
    "LineIndex",
    "Resolved",
    "Search",
    "classify",
    "context_ok",
    "hint_span",
    "index_for",
    "resolve",
    "resolved_at",
    "search",
]


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


def index_for(text: str, lines: LineIndex | None) -> LineIndex:
    """`lines` when it indexes `text` (ValueError when it indexes another), else a new index."""
    if lines is None:
        return LineIndex(text)
    if lines.text is not text and lines.text != text:
        raise ValueError("the LineIndex was built for a different text")
    return lines


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
class Search:
    """Where §4 found a range. `copies` counts the verbatim copies Phase A saw (1 on the fast
    path, which looks no further); `spans` counts Phase B candidates (0 if it did not run)."""

    span: tuple[int, int] | None
    unchanged: bool
    copies: int
    spans: int


def hint_span(resource: Resource, n: int) -> tuple[int, int] | None:
    """The 0-based half-open span written in the resource; it counts only if end <= n."""
    start, end = resource.start, resource.end
    return (start - 1, end) if start is not None and end is not None and end <= n else None


def search(idx: LineIndex, hint: tuple[int, int] | None, content_hash: str, m: Anchors) -> Search:
    """§4: Phase A (fast path, full scan, context), then Phase B."""
    count = int(m["selectedLineCount"])
    if hint is not None and hint[1] - hint[0] == count and idx.span_hash(*hint) == content_hash:
        return Search(hint, True, 1, 0)  # fast path: the context is deliberately not checked
    starts = _verbatim_starts(idx, content_hash, m)
    if len(starts) == 1:
        return Search((starts[0], starts[0] + count), True, 1, 0)
    in_context = [s for s in starts if context_ok(idx, s, s + count, m)]
    if len(in_context) == 1:
        return Search((in_context[0], in_context[0] + count), True, len(starts), 0)
    span, spans = _changed_span(idx, m)
    return Search(span if spans == 1 else None, False, len(starts), spans)


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


def resolved_at(resource: Resource, idx: LineIndex, span: tuple[int, int], version: str | None = None) -> Resolved:
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
    res = as_resource(resource)
    if not res.is_range:
        return Resolved(res, lines.file_version if lines is not None else file_version(text), text)
    idx = index_for(text, lines)
    hint = hint_span(res, len(idx.lines))
    parsed = decode_anchors(previous) if previous else None
    if parsed is None or previous is None:
        return None if hint is None else resolved_at(res, idx, hint)
    found = search(idx, hint, *parsed)
    if found.span is None:
        return None
    return resolved_at(res, idx, found.span, previous if found.unchanged else None)


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
