"""What a model or an agent is shown of one sentence's claims, and what it may cite. Pure: files
arrive as text (verdicts/sources.py reads them).

One request per sentence: the statement and its paragraph, then every evidence item of every
claim the sentence carries, each once: its cited part (claims/part.py) as a diff of the text as
verified against the text now, a few lines around each change (the whole part when small),
every line numbered with the file's real line number, the cause's hunk, and for a range a few
lines around it; an unchanged item its current lines. Nothing is sent twice. Within the budget
(`context_tokens`) the context narrows step by step and says what it left out. `ClaimContext`
keeps what was shown, for the validator (verdicts/validator.py): the lines shown per file, and each
evidence item's part now.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from openwiki_git.claims import part
from openwiki_git.evidence.definitions import merged_spans as _merge_spans
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.resource import REPO_PREFIX, ResourceError
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import Claim, ClaimResult
from openwiki_git.pages import citations
from openwiki_git.pages.labels import marker_text
from openwiki_git.pages.markers import ANY
from openwiki_git.verdicts.drift import Source, parse_or_none
from openwiki_git.verdicts.prose import paragraph_of

DEFAULT_CONTEXT_TOKENS = 4000
Span = tuple[int, int]

# (lines of context around each change, lines around a range, most rows per block), tried in
# order until the request fits the budget.
_LEVELS: tuple[tuple[int, int, int | None], ...] = (
    (2, 4, None), (2, 3, 400), (2, 2, 200), (1, 1, 120), (1, 0, 60), (1, 0, 30), (0, 0, 12),
)


def estimate_tokens(text: str) -> int:
    """A provider-independent estimate (about four characters a token), for the budget only."""
    return len(text) // 4 + 1


@dataclass(frozen=True, slots=True)
class Shown:
    """What was shown of one evidence item's current file (for checking an answer)."""

    index: int
    path: str | None
    spans: tuple[Span, ...]  # 1-based inclusive line spans of the current file shown (citable)
    whole_file: bool  # the evidence cites the whole file


@dataclass(frozen=True, slots=True)
class Part:
    """One evidence item of the sentence's claims: its claim, its resource as stored, and its
    cited part's lines now (None: not found now, or a set)."""

    index: int
    claim_id: str
    resource: str
    path: str | None
    now: tuple[Span, ...] | None
    symbol: bool  # a definition by name


@dataclass(frozen=True, slots=True)
class ClaimContext:
    page: str
    claim: Claim  # the claim asked about (the sentence's first)
    result: ClaimResult
    paragraph: str | None
    shown: tuple[Shown, ...]
    system: str
    user: str
    tag: str
    tokens: int  # estimated, request and system together
    truncated: bool
    verified: tuple[str, ...] = ()  # the cited texts as last verified (where a moved text may be found)
    results: tuple[ClaimResult, ...] = ()  # every claim of the sentence, the one asked about first
    parts: tuple[Part, ...] = ()
    left_out: tuple[str, ...] = ()  # what the budget left out, as the request says it

    @property
    def claims(self) -> tuple[ClaimResult, ...]:
        return self.results or (self.result,)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r.claim.id for r in self.claims)

    @property
    def paths(self) -> set[str]:
        return {s.path for s in self.shown if s.path is not None and s.spans}

    def spans_of(self, path: str) -> list[Span]:
        return [sp for s in self.shown if s.path == path for sp in s.spans]

    def may_cite(self) -> list[str]:
        """The current lines shown, by file, as `repo://path#La-Lb`; the definitions by name."""
        out = []
        for path in sorted(self.paths):
            out += [f"{REPO_PREFIX}{path}#L{a}-L{b}" for a, b in _merge_spans(self.spans_of(path))]
        return out + sorted({p.resource for p in self.parts if p.symbol and p.now})


def _block(name: str, tag: str, body: str) -> str:
    return f"<<<{name} {tag}\n{body}\n>>>{name} {tag}"


def tag_for(parts: Sequence[str]) -> str:
    """A delimiter tag that occurs in none of the data (so data cannot close its own block)."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8", "replace")).hexdigest()
    for size in (12, 20, 32, 64):
        tag = "DATA-" + digest[:size]
        if not any(tag in p for p in parts):
            return tag
    return "DATA-" + digest + digest  # pragma: no cover - would need a SHA-256 preimage


def build_context(
    page: str,
    claims: Sequence[tuple[ClaimResult, Sequence[Source]]],
    page_text: str | None,
    *,
    system: str,
    budget: int = DEFAULT_CONTEXT_TOKENS,
    wiki_path: str | None = None,
    site: bool = False,
) -> ClaimContext:
    """Everything shown about one sentence's claims (the first is the one asked about), within
    `budget` estimated tokens together with `system`. `site`: the workspace is in site mode (the
    marker named is the page's own form: pages/markers.marker_text)."""
    first = claims[0][0]
    where = (wiki_path, marker_text(first.claim.id, page, site))
    paragraph = paragraph_of(page_text, first.claim.id)
    sources = [s for _, ss in claims for s in ss]
    raw = [r.claim.statement for r, _ in claims] + [paragraph or "", page]
    raw += [s.text or "" for s in sources] + [s.old_text or "" for s in sources] + [s.file_text or "" for s in sources]
    tag = tag_for(raw)
    rendered, shown, parts, left = "", tuple[Shown, ...](), tuple[Part, ...](), tuple[str, ...]()
    for level in _LEVELS:
        rendered, shown, parts, left = _render(page, claims, paragraph, tag, level, where)
        if estimate_tokens(system + rendered) <= budget:
            break
    return ClaimContext(
        page=page, claim=first.claim, result=first, paragraph=paragraph, shown=shown, system=system, user=rendered,
        tag=tag, tokens=estimate_tokens(system + rendered), truncated=bool(left) or estimate_tokens(system + rendered) > budget,
        verified=tuple(s.old_text for s in sources if s.old_text is not None),
        results=tuple(r for r, _ in claims), parts=parts, left_out=left,
    )


def _render(
    page: str, claims: Sequence[tuple[ClaimResult, Sequence[Source]]], paragraph: str | None, tag: str,
    level: tuple[int, int, int | None], where: tuple[str | None, str],
) -> tuple[str, tuple[Shown, ...], tuple[Part, ...], tuple[str, ...]]:
    out = _head(page, [r for r, _ in claims], paragraph, tag, where, level[2])
    shown: list[Shown] = []
    parts: list[Part] = []
    left: list[str] = []
    count = sum(len(ss) for _, ss in claims)
    for r, sources in claims:
        for src in sources:
            i = len(parts) + 1
            path = part.path_of(src.evidence.resource)  # once per item: parsing a resource is the costly part
            before = [sp for s in shown if s.path == path for sp in s.spans]
            lines, seen, got, cut = _item(i, count, r.claim, src, tag, level, before)
            out += lines
            shown.append(seen)
            parts.append(got)
            left += cut
    if left:
        out.append("Left out to fit the budget: " + "; ".join(left) + ".")
    cite = "; ".join(f"{p} " + ", ".join(f"L{a}-L{b}" for a, b in _merge_spans([sp for s in shown if s.path == p for sp in s.spans]))
                     for p in sorted({s.path for s in shown if s.path and s.spans}))
    if cite:
        named = " (a definition also by its resource)" if any(p.symbol for p in parts) else ""
        out.append(f"You may cite these current lines (the numbers shown): {cite}{named}.")
    else:
        out.append("No current text can be cited: the only possible verdict is retract.")
    out.append(f'Answer with claim_id "{claims[0][0].claim.id}".')
    return "\n".join(out) + "\n", tuple(shown), tuple(parts), tuple(left)


def _head(page: str, results: Sequence[ClaimResult], paragraph: str | None, tag: str, where: tuple[str | None, str],
          limit: int | None) -> list[str]:
    """The request's head: which claims, their status, the statement and the paragraph (`where`:
    the page's path in the repository, the claim's marker as the page carries it)."""
    (wiki_path, marker), first = where, results[0]
    claim = first.claim
    others = [r.claim.id for r in results[1:]]
    out = [f"Review claim {claim.id} on the wiki page {wiki_path or page}."]
    if others:
        out.append(f"Its sentence also carries {', '.join(others)}: one verdict decides the sentence and all its claims; "
                   "a revise keeps one claim for the sentence.")
    status = "unresolved" if any(r.status == "unresolved" for r in results) else first.status
    if status == "fresh" and any(r.status == "stale" for r in results):
        status = "stale"
    out.append(f"Its status: {status}" + (f" (last verified {claim.verified_at})" if claim.verified_at else "") + ".")
    if first.due and status == "fresh":
        out.append("Its cited lines have not changed, but it is due for re-verification: other code may have changed.")
    out += ["", "The statement:", _block("statement", tag, claim.statement), ""]
    if paragraph and _plain(paragraph) != _plain(claim.statement):
        para = paragraph if limit is None or len(paragraph) <= limit * 80 else paragraph[: limit * 80] + " ..."
        out += [f"The paragraph that carries it (its marker is {marker}):", _block("paragraph", tag, para), ""]
    elif not paragraph:
        out += ["(The statement's marker was not found in the page.)", ""]
    return out


def _plain(text: str) -> str:
    return " ".join(ANY.sub("", text).split())


def _item(
    i: int, count: int, claim: Claim, src: Source, tag: str, level: tuple[int, int, int | None],
    before: Sequence[Span] = (),
) -> tuple[list[str], Shown, Part, list[str]]:
    """Evidence item `i` of `count`: its header, its part as verified -> now, what is around it."""
    ev, r = src.evidence, src.result
    symbol = _symbol(ev.resource)
    stored = parse_or_none(ev.resource)
    whole = symbol is None and not looks_like_kind(ev.resource) and stored is not None and not stored.is_range
    label = f" (claim {citations.label(claim.id)})"
    if src.named and symbol is None:  # a set: its members
        return _members(i, count, claim, src, tag, label, whole)
    file_text = src.file_text if symbol is not None else src.text
    current = ev.resource if symbol is not None else r.current_resource
    got = part.cited(
        ev.resource, current if r.current_resource is not None or symbol is not None else None, file_text,
        src.old_file, src.old_span, then_part=src.old_text if src.old_file is None else None,
        context=level[0], whole_below=part.WHOLE_BELOW if level[2] is None or level[2] >= part.WHOLE_BELOW else 0,
    )
    where = f"now at {got.at}" if got.at else "not found now"
    reason = r.reason.removesuffix(f" ({got.at} now)") if got.at else r.reason
    out = [f"Evidence {i} of {count}: {ev.resource}{label}: {r.status} ({reason}); {where}."]
    cut: list[str] = []
    spans: tuple[Span, ...] = ()
    if got.shown is not None and file_text is not None:
        rows, spans, left = _clipped(got.shown, level[2])
        if symbol is not None and got.now and not any(a <= got.now[0][0] <= b for a, b in spans):
            rows, spans = _with_first_line(rows, spans, file_text, got.now[0][0])
        if spans and before and all(any(a <= n <= b for a, b in before) for s, e in spans for n in range(s, e + 1)):
            rows = _once(rows)  # its current lines are an earlier item's: only what it verified is new
        if got.shown.changed:
            out.append("Its cited part, as verified -> now:")
        else:
            out.append("Its cited part now (unchanged since it was verified):" if r.status == "fresh" else
                       "Its cited part now (the text as verified could not be recovered from git):")
        out.append(_block(f"part-{i}", tag, rows))
        if left:
            cut.append(f"evidence {i}: {left}")
        around, around_spans = _around(file_text, got.now or (), level[1]) if symbol is None else ("", ())
        if around:
            out += ["Lines around it now:", _block(f"around-{i}", tag, around)]
            spans += around_spans
    elif file_text is not None and src.path is not None:  # gone from its lines: the file, where it was
        body, spans, left = _where_it_was(src, file_text, level)
        out += ["Where it was, the file now:", _block(f"around-{i}", tag, body)]
        if left:
            cut.append(f"evidence {i}: {left}")
    else:
        out.append(f"(No current text to show: {r.reason}.)")
    out.append("")
    path = src.path if src.path is not None else part.path_of(ev.resource)
    return out, Shown(i, path, spans, whole), Part(i, claim.id, ev.resource, path, got.now, symbol is not None), cut


def _symbol(resource: str) -> Symbol | None:
    try:
        kind = parse_kind(resource, wiki_dir="\0") if looks_like_kind(resource) else None
    except ResourceError:
        return None
    return kind if isinstance(kind, Symbol) else None


def _with_first_line(rows: str, spans: tuple[Span, ...], text: str, first: int) -> tuple[str, tuple[Span, ...]]:
    """A definition's rows with its first line (`class Config:`, `def run(`) on top: what it is."""
    line = split_lines(text)[first - 1].rstrip("\r\n")
    return f"{part.numbered([(first, line)])}\n   ... |\n{rows}", ((first, first), *spans)


def _once(rows: str) -> str:
    """A part's rows whose current lines an earlier evidence item showed: its `-` rows alone."""
    kept = [r for r in rows.splitlines() if r.startswith(("@@", "-"))]
    return "\n".join([*kept, "   (its current lines are shown above)"])


def _clipped(diff: part.Diff, limit: int | None) -> tuple[str, tuple[Span, ...], str | None]:
    """The part's rows within `limit` rows, the current lines those rows show, and what was
    left out."""
    rows = diff.text.splitlines()
    if limit is None or len(rows) <= limit:
        return diff.text, diff.shown, None
    kept = rows[:limit]
    numbers = [int(r[1:7]) for r in kept if r[:1] in " +" and r[1:7].strip().isdigit()]
    last = max(numbers) if numbers else None
    left = f"{len(rows) - limit} more rows of its cited part" + (f" (after L{last})" if last else "")
    return "\n".join(kept), tuple(_merge_spans([(n, n) for n in numbers])), left


def _around(text: str, spans: Sequence[Span], n: int) -> tuple[str, tuple[Span, ...]]:
    """`n` numbered lines before and after a range's part (what a revise may cite instead)."""
    if n <= 0 or not spans:
        return "", ()
    lines = split_lines(text)
    a, b = spans[0][0], spans[-1][1]
    before = [(k, lines[k - 1].rstrip("\r\n")) for k in range(max(1, a - n), a)]
    after = [(k, lines[k - 1].rstrip("\r\n")) for k in range(b + 1, min(len(lines), b + n) + 1)]
    rows = "\n".join(x for x in (part.numbered(before), "   ... |" if before and after else "",
                                  part.numbered(after)) if x)
    return rows, tuple(s for s in ((before[0][0], before[-1][0]) if before else None,
                                   (after[0][0], after[-1][0]) if after else None) if s is not None)


def _where_it_was(src: Source, text: str, level: tuple[int, int, int | None]) -> tuple[str, tuple[Span, ...], str | None]:
    """The file now around where the cited text was (the stored line hint), or all of it when
    it fits: an unresolved item's text may be there, changed or moved."""
    lines = split_lines(text)
    limit = level[2] or 200
    stored = parse_or_none(src.evidence.resource)
    lo, hi = 1, len(lines)
    if len(lines) > limit and stored is not None and stored.is_range and stored.start is not None:
        mid = min(stored.start, len(lines))
        lo, hi = max(1, mid - limit // 2), min(len(lines), max(1, mid - limit // 2) + limit - 1)
    rows = part.numbered([(k, lines[k - 1].rstrip("\r\n")) for k in range(lo, hi + 1)])
    left = f"L1-L{lo - 1} and L{hi + 1}-L{len(lines)} of {src.path}" if (lo, hi) != (1, len(lines)) else None
    return rows or "(the file is empty)", (((lo, hi),) if lines else ()), left


def _members(
    i: int, count: int, claim: Claim, src: Source, tag: str, label: str, whole: bool
) -> tuple[list[str], Shown, Part, list[str]]:
    ev, r = src.evidence, src.result
    out = [f"Evidence {i} of {count}: {ev.resource}{label}: {r.status} ({r.reason})."]
    now = (src.text or "").splitlines()
    if src.old_text is not None and r.status != "fresh" and src.text is not None:
        then = src.old_text.splitlines()
        rows = [f"-{m}" for m in then if m not in now] + [f"{'+' if m not in then else ' '}{m}" for m in now]
        out += ["Its members, as verified -> now ('+' new, '-' gone; cite the set by its resource, quoting members now):",
                _block(f"members-{i}", tag, "\n".join(rows))]
    elif src.text is not None:
        out += ["Its members now (cite the set by its resource, quoting members):", _block(f"members-{i}", tag, "\n".join(now))]
    out.append("")
    return out, Shown(i, src.path, (), whole), Part(i, claim.id, ev.resource, src.path, None, False), []
