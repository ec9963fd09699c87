"""The cited part of an evidence item, one owner: the lines it cites in a file (a range's own; a
definition's extent; a head's signature, docstring summary and `__init__` signature), the hunks
inside those lines, where they are now (`at`: "L574-L580, L610-L622"), and the verified text of
the part against its current text as a diff with a few lines of context around each change,
every line numbered with the file's real line number (`diff`). Pure: texts in, text out.

The hook's causes (claims/kinds.py keeps the hunks inside the part), `claim show` and `review`
(services/claims.py) and the model's and the agent's context (verdicts/) all ask here, so a
person, a model and an agent see the same lines under the same numbers.

The diff's lines: ` ` and `+` lines are the current text, numbered as the file is now (the
lines a verdict may quote); `-` lines are the text as verified, numbered as the file was then.
Each group opens with `@@ L<a>-L<b> now (L<c>-L<d> as verified) @@`; a jump in the numbering
inside a group (a head's spans are apart) is shown as a `...` line.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from openwiki_git.diff.hunks import Hunk
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol
from openwiki_git.evidence.tokens import split_lines

__all__ = [
    "CONTEXT", "WHOLE_BELOW", "Cited", "Diff", "Line", "Span", "at", "cited", "diff", "hunks_inside", "numbered", "part_lines",
    "path_of", "spans_of", "symbol_spans", "view",
]

Span = tuple[int, int]  # 1-based, inclusive
Line = tuple[int | None, str]  # (the file's line number, None when unknown; the line's text without its terminator)
CONTEXT = 3  # lines around each change
WHOLE_BELOW = 40  # a part shorter than this is shown whole, its changes inline


def symbol_spans(sym: Symbol, text: str | None) -> tuple[Span, ...] | None:
    """The lines `sym` cites in `text`: a head's spans, a whole definition's extent; None when
    the file has no such definition (or cannot be read)."""
    if text is None or definitions.unsupported(sym.path) is not None:
        return None
    ext = definitions.find(sym.path, text, sym.name)
    if ext is None:
        return None
    return ext.head if sym.head else ((ext.start, ext.end),)


def at(spans: Sequence[Span]) -> str:
    """`L574-L580, L610-L622`: the part's lines, as the file numbers them."""
    return ", ".join(f"L{a}-L{b}" for a, b in spans)


def hunks_inside(spans: Sequence[Span], hunks: Sequence[Hunk]) -> tuple[Hunk, ...]:
    """The hunks whose new side overlaps or borders one of `spans` (a pure deletion borders the
    line it leaves the new side after)."""
    return tuple(
        h for h in hunks if any(h.new_start <= b and a <= max(h.new_last, h.new_start) for a, b in spans)
    )


def part_lines(text: str, spans: Sequence[Span]) -> list[Line]:
    """The part's lines in `text`, each with its line number."""
    lines = split_lines(text)
    return [(n, lines[n - 1].rstrip("\r\n")) for a, b in spans for n in range(a, min(b, len(lines)) + 1)]


def numbered(lines: Sequence[Line], sign: str = " ") -> str:
    """Lines as the diff numbers them: `  574 | text` (a `...` line where the numbering jumps)."""
    out: list[str] = []
    prev: int | None = None
    for n, text in lines:
        if prev is not None and n is not None and n != prev + 1:
            out.append(_JUMP)
        out.append(_row(sign, n, text))
        prev = n
    return "\n".join(out)


@dataclass(frozen=True, slots=True)
class Diff:
    """The part's verified text against its current text: the numbered diff, how many lines
    changed, and the current lines it shows (the lines a verdict may quote)."""

    text: str
    changed: int
    shown: tuple[Span, ...]

    @property
    def empty(self) -> bool:
        return self.changed == 0


def diff(then: Sequence[Line], now: Sequence[Line], context: int = CONTEXT) -> Diff:
    """`then` (the part as verified) against `now` (the part now), `context` lines around each
    change (a negative `context`: the whole part, changes inline)."""
    a = [t for _, t in then]
    b = [t for _, t in now]
    n = max(len(a), len(b)) if context < 0 else context
    out: list[str] = []
    changed = 0
    shown: list[int] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(n):
        rows: list[str] = []
        prev: int | None = None
        for tag, i1, i2, j1, j2 in group:
            if tag != "equal":
                changed += (i2 - i1) + (j2 - j1)
            for k in range(i1, i2) if tag in ("delete", "replace") else ():
                rows.append(_row("-", then[k][0], then[k][1]))
            for k in range(j1, j2) if tag != "delete" else ():
                num = now[k][0]
                if prev is not None and num is not None and num != prev + 1:
                    rows.append(_JUMP)
                rows.append(_row("+" if tag != "equal" else " ", num, now[k][1]))
                prev = num if num is not None else prev
                if num is not None:
                    shown.append(num)
        out.append(_header(group, then, now))
        out.extend(rows)
    return Diff("\n".join(out), changed, _spans(shown))


def view(then: Sequence[Line] | None, now: Sequence[Line], *, context: int = CONTEXT, whole_below: int = 0) -> Diff:
    """What is shown of a part: its diff when the verified text is known and differs (the whole
    part, changes inline, when it has fewer than `whole_below` lines), else its current lines."""
    if then is not None and [t for _, t in then] != [t for _, t in now]:
        return diff(then, now, -1 if len(now) < whole_below else context)
    nums = [n for n, _ in now if n is not None]
    return Diff(numbered(now), 0, _spans(nums))


@dataclass(frozen=True, slots=True)
class Cited:
    """One evidence item's cited part: its lines now (None: not found now) and as verified (None:
    unknown), `at` (its lines now, as words), and what is shown of it (`shown`)."""

    now: tuple[Span, ...] | None
    then: tuple[Span, ...] | None
    shown: Diff | None

    @property
    def at(self) -> str | None:
        return at(self.now) if self.now else None


def path_of(resource: str | None) -> str | None:
    """The file a resource cites (a range's, a definition's; a set's scope is no one file: None)."""
    from openwiki_git.evidence.kinds import looks_like_kind, parse_kind
    from openwiki_git.evidence.resource import ResourceError, parse_resource

    if resource is None:
        return None
    try:
        if looks_like_kind(resource):
            kind = parse_kind(resource, wiki_dir="\0")
            return kind.path if isinstance(kind, Symbol) else None
        return parse_resource(resource, wiki_dir="\0").path
    except ResourceError:
        return None


def spans_of(resource: str, text: str | None) -> tuple[Span, ...] | None:
    """The lines `resource` cites in `text`: a definition's (by name), or a range's own when the
    file has them; None for a whole file, a set, or when they are not there."""
    from openwiki_git.evidence.kinds import looks_like_kind, parse_kind
    from openwiki_git.evidence.resource import ResourceError, parse_resource

    try:
        if looks_like_kind(resource):
            kind = parse_kind(resource, wiki_dir="\0")
            return symbol_spans(kind, text) if isinstance(kind, Symbol) else None
        res = parse_resource(resource, wiki_dir="\0")
    except ResourceError:
        return None
    if not res.is_range or res.start is None or res.end is None or text is None:
        return None
    return ((res.start, res.end),) if res.end <= len(split_lines(text)) else None


def cited(
    resource: str,
    current: str | None,
    now_text: str | None,
    then_text: str | None = None,
    then_span: Span | None = None,
    *,
    then_part: str | None = None,
    context: int = CONTEXT,
    whole_below: int = 0,
) -> Cited:
    """THE cited part of one evidence item, for every reader (see the module's docstring).

    `resource` as stored and `current` where the check finds it now (a range moves; a
    definition is its name); `now_text` the file now; `then_text` the file as verified (its
    blob), where the part is found by name (a definition) or at `then_span` (a range: where its
    verified text is in that file); `then_part` the part's verified text when only it is known
    (its lines then carry no numbers)."""
    now_spans = spans_of(current, now_text) if current is not None else None
    if now_spans is None or now_text is None:
        return Cited(None, None, None)
    then_spans = spans_of(resource, then_text) if then_span is None else (then_span,)
    then: list[Line] | None = None
    if then_text is not None and then_spans is not None:
        then = part_lines(then_text, then_spans)
    elif then_part is not None:
        then = [(None, ln.rstrip("\r\n")) for ln in split_lines(then_part)]
    return Cited(now_spans, then_spans, view(then, part_lines(now_text, now_spans), context=context, whole_below=whole_below))


_JUMP = "   ... |"


def _row(sign: str, n: int | None, text: str) -> str:
    return f"{sign}{'' if n is None else n:>6} | {text}"


def _header(group: Sequence[tuple[str, int, int, int, int]], then: Sequence[Line], now: Sequence[Line]) -> str:
    i1, i2 = group[0][1], group[-1][2]
    j1, j2 = group[0][3], group[-1][4]
    new = [n for n, _ in now[j1:j2] if n is not None]
    old = [n for n, _ in then[i1:i2] if n is not None]
    where = f"L{new[0]}-L{new[-1]} now" if new else "nothing now"
    was = f" (L{old[0]}-L{old[-1]} as verified)" if old else ""
    return f"@@ {where}{was} @@"


def _spans(numbers: Sequence[int]) -> tuple[Span, ...]:
    return definitions.merged_spans((n, n) for n in numbers)
