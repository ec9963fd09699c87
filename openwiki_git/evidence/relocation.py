"""openwiki-git's relocation: OpenWiki's search (resolver.py) judged our way, and how far a
changed range may grow.

`relocate()` rewrites the line hint and refreshes anchors (OpenWiki's weaknesses 3 and 4 in
shared/docs/openwiki-claims-format.md), bounds Phase B growth (6) and never calls text "changed"
while it still exists verbatim. Two bounds on a changed range live here:

- `max_growth` (config `max_growth`): a stale span longer than the cited line count plus it is
  no longer the cited text: `relocate()` says "unresolved";
- `range_limit()` / `bounded()` (config `range_growth_factor`, `range_growth_lines`): a changed
  range that is still the cited text, remapped through a diff or relocated, keeps within
  max(factor x, + lines) of its cited size; past it, it keeps its cited size and a person or the
  refresher sets the new extent.

Pure, stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from openwiki_git.evidence.resolver import LineIndex, Search, context_ok, hint_span, index_for, resolved_at, search
from openwiki_git.evidence.resource import Resource, as_resource
from openwiki_git.evidence.tokens import CONTEXT_LINES, Anchors, decode_token, file_version, is_file_token, lines_version

__all__ = ["GROWTH_FACTOR", "GROWTH_LINES", "Relocation", "bounded", "range_limit", "relocate"]

GROWTH_FACTOR = 2  # a changed range may grow to max(2x, +10 lines) of its cited size ...
GROWTH_LINES = 10  # ... (config: range_growth_factor, range_growth_lines)


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
    res = as_resource(resource)
    if not res.is_range:
        return _relocate_file(res, text, previous, lines)
    idx = index_for(text, lines)
    hint = hint_span(res, len(idx.lines))
    decoded = decode_token(previous) if previous else None
    if decoded is None or previous is None:
        if hint is None:
            return _unresolved(f"range ends past the end of the file ({_plural(len(idx.lines), 'line')})")
        taken = resolved_at(res, idx, hint)
        return Relocation("stale", taken.resource, taken.version, taken.content, "no usable stored version")
    content_hash, anchors, canonical = decoded
    found = search(idx, hint, content_hash, anchors)
    if found.span is not None and found.unchanged:
        return _fresh(res, idx, found.span, previous if canonical else None, anchors)
    return _judge(res, idx, found, int(anchors["selectedLineCount"]), max_growth)


def _relocate_file(res: Resource, text: str, previous: str | None, lines: LineIndex | None) -> Relocation:
    version = lines.file_version if lines is not None else file_version(text)
    if previous is None or not is_file_token(previous):
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


def _judge(res: Resource, idx: LineIndex, found: Search, old_count: int, max_growth: int) -> Relocation:
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
    located = resolved_at(res, idx, found.span)
    reason = "text changed between unchanged context"
    return Relocation("stale", located.resource, located.version, located.content, reason)


def range_limit(cited: int, factor: int = GROWTH_FACTOR, extra: int = GROWTH_LINES) -> int:
    """The most lines a range of `cited` lines may span after its text changed: max(factor x,
    + extra lines). Past it, the new extent is a person's (or the refresher's) call, never a remap's:
    a 4-line range does not silently swallow the methods around it."""
    return max(cited * factor, cited + extra)


_EXTENT = re.compile(r"; its new extent L(\d+)-L(\d+) \(")


def extent_in(reason: str) -> tuple[int, int] | None:
    """The new extent a `bounded` note names (the lines the changed text spans now, past the
    bound), None when the reason names none: review suggests it as the claim's new range."""
    m = _EXTENT.search(reason)
    return (int(m.group(1)), int(m.group(2))) if m else None


def bounded(
    span: tuple[int, int], cited: int, factor: int, extra: int, n_lines: int | None = None
) -> tuple[tuple[int, int], str]:
    """`span` when it is within `range_limit(cited)` lines, else the cited size from its
    first line (never past `n_lines`), with the note that says so."""
    limit = range_limit(cited, factor, extra)
    size = span[1] - span[0] + 1
    if size <= limit:
        return span, ""
    end = span[0] + cited - 1
    if n_lines is not None:
        end = min(end, max(n_lines, span[0]))
    note = (
        f"; its new extent L{span[0]}-L{span[1]} ({size} lines) is past the bound of {limit} for"
        f" {cited} cited lines, so the range keeps its size: a person or the refresher must set it"
    )
    return (span[0], end), note
