"""The content check: every claim's evidence re-resolved against the text it cites. Pure.

Cost follows the number of cited files: each file is read once and its line index is shared by
every claim that cites it, and each (resource, version) pair is resolved once.

One cohesive thing: the `Resolver` re-resolves an item (relocation, a definition or a set, the
cosmetic and the syntax-follow judgements that re-decide a changed range) and `check_claim` /
`check_all` fold its results into claims; the two share the memo and the file reads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime

from openwiki_git.claims import kinds, relevance, signature_edits, symbols
from openwiki_git.claims.due import ReverifyAfter
from openwiki_git.diff import cosmetic, units
from openwiki_git.evidence import tokens
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.relocation import GROWTH_FACTOR, GROWTH_LINES, bounded, relocate
from openwiki_git.evidence.resolver import LineIndex
from openwiki_git.evidence.resource import Resource, ResourceError, parse_resource
from openwiki_git.evidence.tokens import CONTEXT_LINES, decode_anchors, file_version, lines_version
from openwiki_git.formats import pagenames
from openwiki_git.formats.sidecar import canonical_parts
from openwiki_git.formats.timestamps import instant
from openwiki_git.model import Cause, Claim, ClaimResult, Evidence, EvidenceResult, FileText, Sidecar, Status, worst
from openwiki_git.pages import citations
from openwiki_git.pages.frontmatter_core import UNREAD, boundary, read_fast

Reader = Callable[[str], FileText]


class EvidenceResolver:
    """Resolves evidence against one source (working tree, index or revision), memoised."""

    def __init__(
        self, read: Reader, *, max_growth: int = 200, growth: tuple[int, int] = (GROWTH_FACTOR, GROWTH_LINES)
    ) -> None:
        self._read = read
        self.texts: dict[str, FileText] = {}  # every file read so far, by path
        self._files: dict[str, tuple[FileText, LineIndex | None]] = {}
        self._lines: dict[str, tuple[FileText, list[str] | None]] = {}
        self._memo: dict[tuple[str, ...], EvidenceResult] = {}  # key(): (resource, version[, blob])
        self._verified_memo: dict[tuple[str, str, str], tuple[Resource, LineIndex, tuple[int, int]] | None] = {}
        self.max_growth = max_growth
        self.growth = growth  # a stale span's bound: relocation.range_limit(cited, *growth)
        # Cosmetic edits (cosmetic.py): off unless the workspace configures them, with a way to
        # read the blob an evidence item was verified in (`Evidence.blob`).
        self.cosmetic_edits = "stale"
        self.cosmetic_annotations: bool | None = False  # None: by the claim's sentence (claims/relevance.py)
        self.cosmetic_parameters_added: bool | None = False  # None: by the claim's sentence (claims/relevance.py)
        self.blob_text: Callable[[str, str], FileText] | None = None
        self.tracked: Callable[[], Sequence[str]] | None = None  # the paths a glob in evidence ranges over

    def read(self, path: str) -> FileText:
        """The file, read once."""
        ft = self.texts.get(path)
        if ft is None:
            ft = self.texts[path] = self._read(path)
        return ft

    def file(self, path: str) -> tuple[FileText, LineIndex | None]:
        """The file (read once) and its line index (built once, when relocation needs it)."""
        got = self._files.get(path)
        if got is None:
            ft = self.read(path)
            got = self._files[path] = (ft, LineIndex(ft.text) if ft.text is not None else None)
        return got

    def lines(self, path: str) -> tuple[FileText, list[str] | None]:
        """The file (read once) and its lines, without the index relocation needs."""
        got = self._lines.get(path)
        if got is None:
            ft = self.read(path)
            got = self._lines[path] = (ft, split_lines(ft.text) if ft.text is not None else None)
        return got

    def remember(self, known: dict[tuple[str, str], EvidenceResult]) -> None:
        """Take these results as resolved (a cache's, for a file it found unchanged)."""
        self._memo.update(known.items())  # (resource, version) keys into the wider key type

    def key(self, resource: str, version: str, blob: str | None) -> tuple[str, ...]:
        """The memo key: the blob counts when a cosmetic edit may be recognised from it."""
        return (resource, version) if not blob or self.cosmetic_edits == "stale" or self.blob_text is None else (resource, version, blob)

    def resolve(self, resource: str, version: str, blob: str | None = None) -> EvidenceResult:
        """The evidence item now; with `blob` (where its text was verified), a stale item whose
        edit is cosmetic is judged as `cosmetic()` says."""
        key = self.key(resource, version, blob)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._resolve(resource, version, blob)
        return hit

    def _resolve(self, resource: str, version: str, blob: str | None = None) -> EvidenceResult:
        r = self._relocated(resource, version, blob)
        if blob and r.status != "fresh" and self.key(resource, version, blob) != (resource, version):
            ev = Evidence(resource, version, blob)
            r = self.cosmetic(ev, self.followed(ev, r))
        return r

    def _relocated(self, resource: str, version: str, blob: str | None = None) -> EvidenceResult:
        if looks_like_kind(resource):
            return self._kind(resource, version, blob)
        plain = canonical_parts(resource)
        if plain is not None:
            path, start, end = plain
            if start is not None and end is not None:
                ft, lines = self.lines(path)
                if lines is not None and unchanged_at_hint(lines, start - 1, end, version):
                    # What relocation.relocate() returns in this case, for a fraction of its cost.
                    return EvidenceResult(resource, "fresh", resource, "unchanged", version, ft.blob)
        try:
            res = Resource(*plain) if plain is not None else parse_resource(resource, wiki_dir="\0")
        except ResourceError as e:
            return EvidenceResult(resource, "unresolved", None, str(e))
        ft, index = self.file(res.path)
        if ft.text is None or index is None:
            return EvidenceResult(resource, "unresolved", None, f"{res.path}: {ft.problem}", blob=ft.blob)
        r = relocate(res, ft.text, version, lines=index, max_growth=self.max_growth)
        current = r.resource.canonical if r.resource is not None else None
        status: Status = r.status  # type: ignore[assignment]
        reason, token = r.reason, r.version
        anchors = decode_anchors(version)
        if status == "stale" and r.resource is not None and r.resource.is_range and anchors is not None:
            assert r.resource.start is not None and r.resource.end is not None
            cited = int(anchors[1]["selectedLineCount"])
            span, note = bounded((r.resource.start, r.resource.end), cited, *self.growth, len(index))
            if note:  # never adopt a range that swallowed its neighbours (check --fix, claim confirm)
                current = r.resource.with_lines(*span).canonical
                reason, token = reason + note, lines_version(index.lines, span[0] - 1, span[1])
        return EvidenceResult(resource, status, current, reason, token, ft.blob)

    def _kind(self, resource: str, version: str, blob: str | None) -> EvidenceResult:
        """A definition by name, a set of files or of matching lines (claims/kinds.py)."""
        try:
            kind = parse_kind(resource, wiki_dir="\0")
        except ResourceError as e:
            return EvidenceResult(resource, "unresolved", None, str(e))
        assert kind is not None
        verified = None
        if isinstance(kind, Symbol) and blob and self.cosmetic_edits != "stale" and self.blob_text is not None:
            verified = self.blob_text(kind.path, blob)
        return kinds.resolve(
            kind, resource, version, self.read, self.tracked, verified=verified, annotations=self.cosmetic_annotations,
            parameters=self.cosmetic_parameters_added,
        )

    def _verified(self, ev: Evidence) -> tuple[Resource, LineIndex, tuple[int, int]] | None:
        """The item's cited range, the blob it was verified in (indexed) and where its verified
        text is there: what `followed` and `cosmetic` both read, read once per item."""
        if self.blob_text is None or not ev.blob:
            return None
        key = (ev.resource, ev.version, ev.blob)
        if key not in self._verified_memo:
            old = _parse_or_none(ev.resource)
            then = self.blob_text(old.path, ev.blob) if old is not None and old.is_range else None
            got = None
            if old is not None and then is not None and then.text is not None:
                then_idx = LineIndex(then.text)
                span = verified_span(old, then.text, then_idx, ev.version)
                got = (old, then_idx, span) if span is not None else None
            self._verified_memo[key] = got
        return self._verified_memo[key]

    def followed(self, ev: Evidence, r: EvidenceResult) -> EvidenceResult:
        """A changed range that cited whole parameters, an assignment or a definition (read in the
        blob it was verified in) is stale where that syntax is now by name, all of its lines
        (diff/units.py): the hook's rule when a hunk rewrote the lines around it, so both say the
        same of typer's parameters rewritten as `Annotated[bool, Doc("...")]`. Else `r`."""
        old = _parse_or_none(ev.resource)
        if old is None or not (old.is_range and old.path.endswith(cosmetic.PYTHON_SUFFIXES)):
            return r
        verified, (ft, idx) = self._verified(ev), self.file(old.path)
        if verified is None or ft.text is None or idx is None:
            return r
        _, then_idx, span = verified
        found = units.follow(old.path, then_idx.text, ft.text, *span)
        if found is None:
            return r
        current = Resource(old.path, *found).canonical
        return EvidenceResult(ev.resource, "stale", current, "changed", lines_version(idx.lines, found[0] - 1, found[1]), ft.blob)

    def cosmetic(self, ev: Evidence, r: EvidenceResult) -> EvidenceResult:
        """A stale result whose edit is cosmetic (the verified text, read from the blob it was
        verified in, has the same tokens as the text now): fresh, with the reason and the token
        of the text now (so `check --fix` re-anchors it). Else `r`. The hook's judgement; whether
        the edit still marks a claim (`cosmetic_edits: mark`, a type its sentence names) is
        claims/relevance.py's, per claim (check_claim)."""
        if r.status != "stale" or self.cosmetic_edits == "stale" or self.blob_text is None or not ev.blob:
            return r
        new = _parse_or_none(r.current_resource or "")
        if new is None or not (new.start and new.end):
            return r
        verified, (ft, idx) = self._verified(ev), self.file(new.path)
        if verified is None or idx is None:
            return r
        _, then_idx, span = verified
        reason = signature_edits.range_cosmetic(
            new.path, then_idx.lines, idx.lines, span, (new.start, new.end),
            annotations=self.cosmetic_annotations, parameters=self.cosmetic_parameters_added,
        )
        if reason is None:
            if not self.cosmetic_annotations and cosmetic.compare(
                new.path, then_idx.lines, idx.lines, old_span=span, new_span=(new.start, new.end), annotations=True
            ):  # stale all the same: the reason says the annotations alone changed (as the hook's mark does)
                from openwiki_git.claims.causes import annotations_only

                return EvidenceResult(r.resource, r.status, r.current_resource, annotations_only(r.reason), r.current_version,
                                      r.blob, r.hunk)
            return r
        token = lines_version(idx.lines, new.start - 1, new.end)
        return EvidenceResult(r.resource, "fresh", r.current_resource, reason, token, ft.blob)


def _parse_or_none(resource: str) -> Resource | None:
    try:
        return parse_resource(resource, wiki_dir="\0")
    except ResourceError:
        return None


def verified_span(res: Resource, text: str, idx: LineIndex, version: str) -> tuple[int, int] | None:
    """Where `version`'s text is in `text` (1-based inclusive), when it is there unchanged."""
    r = relocate(res, text, version, lines=idx)
    if r.status != "fresh" or r.resource is None or r.resource.start is None or r.resource.end is None:
        return None
    return (r.resource.start, r.resource.end)


_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """tokens.split_lines(text), faster: str.splitlines(keepends=True) is the same split when the
    text has no line boundary other than \\n (splitlines also breaks at these)."""
    for char in _OTHER_BREAKS:
        if char in text:
            return tokens.split_lines(text)
    return text.splitlines(keepends=True)


def unchanged_at_hint(lines: list[str], start0: int, end0: int, version: str) -> bool:
    """Whether `version` is exactly `tokens.lines_version(lines, start0, end0)`: the cited text and
    its context are unchanged at the resource's own lines (the common case of a check).

    Then relocation.relocate() finds the text at its hint (fast path), its context in place, and keeps
    the stored token: fresh, "unchanged", same resource and version. tokens.unchanged_lines
    compares, on the span's window of lines; text that UTF-8 cannot encode (a lone surrogate) is
    left to relocation.relocate().
    """
    n = len(lines)
    if not 0 <= start0 < end0 <= n:
        return False
    before, after = max(0, start0 - CONTEXT_LINES), min(n, end0 + CONTEXT_LINES)
    try:
        window = [line.encode() for line in lines[before:after]]
    except UnicodeEncodeError:
        return False
    return tokens.unchanged_lines(window, start0 - before, end0 - before, version)


def cause_for(claim: Claim, resource: str) -> Cause | None:
    """The mark's cause for the evidence item now at `resource`: cited there when it was marked,
    or where its text went since (the cause's `path`/`new_lines`)."""
    if claim.mark is None:
        return None
    for c in claim.mark.causes:
        if c.resource == resource:
            return c
        try:
            old = parse_resource(c.resource, wiki_dir="\0")
            if c.new_lines is not None and resource == Resource(c.path or old.path, *c.new_lines).canonical:
                return c
        except (ResourceError, ValueError):
            continue
    return None


def marked_result(claim: Claim, ev: Evidence, r: EvidenceResult, resolver: EvidenceResolver) -> EvidenceResult:
    """A marked claim's evidence as the hook sees it: its range has followed its changed text, so
    when the verified text is not found (relocation needs it unchanged, or its context) but the
    file is still text with the range in it, the item is `stale` where it is, not `unresolved`.
    `unresolved` stays for text that is gone: a missing or binary file, lines past its end, or
    the mark's own cause saying the lines were deleted."""
    if r.status != "unresolved":
        return r
    cause = cause_for(claim, ev.resource)
    if cause is not None and cause.new_lines is None:
        return r  # the hook found the lines deleted (or the file gone)
    try:
        res = parse_resource(ev.resource, wiki_dir="\0")
    except ResourceError:
        return r
    ft, lines = resolver.lines(res.path)
    if lines is None or ft.text is None or (res.end is not None and res.end > len(lines)):
        return r
    if res.start is not None and res.end is not None:
        token = lines_version(lines, res.start - 1, res.end)  # what `claim confirm` re-establishes
    else:
        token = file_version(ft.text)
    return EvidenceResult(ev.resource, "stale", ev.resource, "changed since it was marked", token, ft.blob)


def check_claim(
    page: str,
    claim: Claim,
    resolver: EvidenceResolver,
    *,
    page_text: str | None,
    due: bool = False,
    markers: set[str] | None = None,
) -> ClaimResult:
    """One claim's verdict. `markers` is `citations.markers_in(page_text)`, when the caller has
    it (check_all scans each page once, not once per claim)."""
    # An unmarked claim's items carry their blob: a cosmetic edit is recognised (and cached).
    blobs = [ev.blob if claim.mark is None else None for ev in claim.evidence]
    results = tuple(resolver.resolve(ev.resource, ev.version, b) for ev, b in zip(claim.evidence, blobs, strict=True))
    if claim.mark is None and resolver.cosmetic_edits != "stale":  # a cosmetic edit that still matters to the sentence
        edits, annotations, parameters = resolver.cosmetic_edits, resolver.cosmetic_annotations, resolver.cosmetic_parameters_added
        results = tuple(
            relevance.result(claim.statement, r, edits=edits, annotations=annotations, parameters=parameters) for r in results
        )
    if claim.mark is not None:
        results = tuple(marked_result(claim, ev, r, resolver) for ev, r in zip(claim.evidence, results, strict=True))
    status = worst([r.status for r in results])
    notes: list[str] = []
    if claim.mark is not None and status == "fresh":
        # A mark is cleared by verification or by `check --fix` on a revert, never silently.
        status = "stale"
        notes.append("marked stale earlier; the cited text is back to its verified version (`check --fix` clears it)")
    elif claim.mark is not None:
        notes.extend(f"{c.resource}: {c.reason}" + (f" by {c.hunk}" if c.hunk else "") for c in claim.mark.causes)
    if markers is None and page_text is not None:
        markers = citations.markers_in(page_text)
    marker = page_text is not None and markers is not None and citations.label(claim.id) in markers
    if page_text is None:
        notes.append(pagenames.page_gone(page))
    # check's text names a claim needing attention by PAGE:LINE; found here, it is cached with the record
    attention = status != "fresh" or due or claim.mark is not None
    line = citations.sentence_line(page_text, claim.id, claim.statement) if attention and marker and page_text is not None else None
    cited = [e.resource for e in claim.evidence]
    return ClaimResult(page, claim, status, tuple(symbols.for_claim(r, claim.id, cited) for r in results), marker, due, tuple(notes), line)


def is_due(
    claim: Claim, now: datetime, reverify_after_seconds: int | None, stale_after: str | None = None
) -> bool:
    """Whether a claim is due for re-verification: its last verification is older than
    `reverify_after` (never when unknown), or its page's OKF `stale_after` has passed and the claim
    was last verified before it (an unparseable `stale_after` counts as passed, as in OKF)."""
    if stale_after is None and reverify_after_seconds is None:
        return False  # the usual case: nothing to parse for any claim
    verified = instant(claim.verified_at) if claim.verified_at else None
    if stale_after is not None:
        limit = instant(stale_after)
        if limit is None or (now >= limit and (verified is None or verified < limit)):
            return True
    if reverify_after_seconds is None or not claim.verified_at:
        return False
    if verified is None:
        return True
    return (now - verified).total_seconds() >= reverify_after_seconds


def next_due_change(
    claim: Claim, now: datetime, reverify_after_seconds: int | None, stale_after: str | None = None
) -> float | None:
    """The first instant (POSIX seconds) after `now` at which `is_due` may answer otherwise for
    this claim, None when never (a cached verdict holds until then)."""
    if stale_after is None and reverify_after_seconds is None:
        return None
    moments = []
    verified = instant(claim.verified_at) if claim.verified_at else None
    if stale_after is not None:
        limit = instant(stale_after)
        if limit is not None:
            moments.append(limit.timestamp())
    if reverify_after_seconds is not None and verified is not None:
        moments.append(verified.timestamp() + reverify_after_seconds)
    later = [m for m in moments if m > now.timestamp()]
    return min(later) if later else None


def page_stale_after(text: str | None) -> str | None:
    """The page's OKF `stale_after`, read without a YAML parser (check runs on every commit): the
    one front-matter boundary and the one fast reader (frontmatter_core). A value the fast reader
    leaves to YAML, or one that is not a string, is returned as "?", which `is_due` treats as
    unparseable, hence passed."""
    sp = boundary(text) if text else None
    if sp is None or "stale_after" not in sp.yaml:
        return None
    read = read_fast(sp.yaml)
    value = UNREAD if read is None else read.get("stale_after")
    if value is None:
        return None
    return (value.strip() or None) if isinstance(value, str) else "?"


def check_all(
    sidecars: dict[str, Sidecar],
    resolver: EvidenceResolver,
    page_texts: Callable[[str], str | None],
    *,
    now: datetime | None = None,
    reverify_after: ReverifyAfter | None = None,
) -> list[ClaimResult]:
    """Every claim of every sidecar, in page then claim order."""
    out = []
    for page in sorted(sidecars):
        text = page_texts(page)
        stale_after = page_stale_after(text) if now is not None else None
        seconds = reverify_after.for_page(page, text) if now is not None and reverify_after is not None else None
        markers = citations.markers_in(text) if text is not None else None
        for claim in sidecars[page].claims:
            due = now is not None and is_due(claim, now, seconds, stale_after)
            out.append(check_claim(page, claim, resolver, page_text=text, due=due, markers=markers))
    return out


def markers_optional(results: list[ClaimResult], text: str | None) -> list[ClaimResult]:
    """OpenWiki mode: OpenWiki's pages carry no claim markers, so on a page (`text`, the page of
    every one of `results`) that uses none, none is missing."""
    if text is None or citations.markers_in(text):
        return results
    return [r if r.marker_present else dataclasses.replace(r, marker_present=True) for r in results]


def summarize(results: list[ClaimResult]) -> dict[str, int]:
    summary = {"total": len(results), "fresh": 0, "stale": 0, "unresolved": 0}
    for r in results:
        summary[r.status] += 1
    summary["missing_markers"] = sum(1 for r in results if not r.marker_present)
    summary["due"] = sum(1 for r in results if r.due)
    return summary
