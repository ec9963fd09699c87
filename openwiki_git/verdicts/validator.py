"""THE validator of a verdict, for every path that takes one (the refresher's model, an agent's
`verify_claim`, `add_claim`, `ground --model` through `check_cited`). Pure: files arrive
through a reader.

Answers are taken as models give them: several quotes from one resource (each an unbroken run
of the lines shown, kept together as that evidence's support); a quote cut mid-line at a token's
edge; the numbering column copied along; lines cited by the numbers shown, which are the file's
real line numbers; a definition cited by name or by the numbers of its lines (it stays the
claim's evidence by name). A quote whose numbers are off but whose text is found once in the
lines shown is taken where it is, with a note.

Refused, in every path alike (`VerdictError` naming the first problem): a quote outside the
lines shown (a definition's lines that were not shown included), a quote of only comments or
docstrings where the cited lines hold code, a quote from a file the claim does not cite, a
quote of the text as verified (`-` rows), a confirm that cites lines other than the claim's own,
a revise keeping the statement that cites unrelated lines, a revised statement that is not one
plain sentence (verdicts/statement.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from openwiki_git.claims import part
from openwiki_git.evidence.kinds import SET_PREFIX, Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.resolver import resolve
from openwiki_git.evidence.resource import REPO_PREFIX, Resource, ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import Evidence, FileText
from openwiki_git.pages.markers import ANY
from openwiki_git.verdicts import quotes
from openwiki_git.verdicts.context import ClaimContext, Part
from openwiki_git.verdicts.edits import Plan, VerdictError
from openwiki_git.verdicts.statement import INSTRUCTION, checked_statement

__all__ = ["Quoted", "check_cited", "check_verdict"]

Reader = Callable[[str], FileText]
Span = tuple[int, int]
_PARENT = re.compile(r"(^|/)\.\.(/|$)")
_PROSE_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc", ".org", ".html", ".htm", "")


@dataclass(frozen=True, slots=True)
class Quoted:
    """One checked quote: the resource as cited, where the quote is in the file now, the
    evidence it supports, and the sentence's evidence item it falls in (None: other lines)."""

    index: int
    resource: str
    quote: str
    lines: Span | None  # None: a set's members
    evidence: Evidence
    own: int | None
    notes: tuple[str, ...] = ()
    prose_only: bool = False  # only comments or docstrings, where the lines it supports hold code


def check_cited(
    cited: Sequence[Mapping[str, Any]], shown: Mapping[str, Sequence[Span]], read: Reader, *, wiki_dir: str,
    parts: Sequence[Part] = (), sets: Mapping[str, tuple[str, str]] | None = None,
) -> list[Quoted]:
    """THE quote check, the stable entry point (`ground --model` calls it with what it showed):
    each `{resource, quote}` of `cited` found in the lines `shown` (by file: the current lines,
    1-based spans), as the evidence it becomes. `parts`: the claims' own evidence items (a quote
    inside one supports it); `sets`: a set's canonical resource -> (its members now, its token).
    Raises VerdictError naming the first problem."""
    out = []
    for i, item in enumerate(cited):
        where = f"cited_ranges[{i}]"
        raw, quote = str(item.get("resource", "")), str(item.get("quote", ""))
        if _PARENT.search(unquote(raw.removeprefix(REPO_PREFIX).split("#", 1)[0]).replace("\\", "/")):
            raise VerdictError(f"{where}: {raw[:200]!r}: '..' is not allowed in a cited path")
        if quotes.verified_rows(quote):
            raise VerdictError(f"{where}: the quote copies rows marked '-', the text as verified; quote the current text "
                               "(the ' ' and '+' rows)")
        if not quotes.quote_lines(quote):
            raise VerdictError(f"{where}: the quote is empty: copy the cited lines' text")
        out.append(_one(i, raw, quote, shown, read, wiki_dir, parts, sets or {}, where))
    for q in out:  # a comment or docstring may come with the code it documents, never alone
        if q.prose_only and all(o.prose_only for o in out if o.evidence.resource == q.evidence.resource):
            raise VerdictError(f"cited_ranges[{q.index}]: the quote is only comments or strings (docstrings included), "
                               "which prove no code; quote the code lines that support the statement")
    return out


def _one(
    i: int, raw: str, quote: str, shown: Mapping[str, Sequence[Span]], read: Reader, wiki_dir: str,
    parts: Sequence[Part], sets: Mapping[str, tuple[str, str]], where: str,
) -> Quoted:
    try:
        kind = parse_kind(raw, wiki_dir=wiki_dir) if looks_like_kind(raw) else None
        res = None if kind is not None else parse_resource(raw, wiki_dir=wiki_dir, allow_nested_git=False)
    except ResourceError as e:
        raise VerdictError(f"{where}: {e}") from None
    if kind is not None and not isinstance(kind, Symbol):
        return _member_quote(i, kind.canonical, quote, parts, sets, where)
    path = kind.path if kind is not None else res.path  # type: ignore[union-attr]
    if path not in shown or not shown[path]:
        files = ", ".join(sorted(p for p, s in shown.items() if s)) or "none"
        raise VerdictError(f"{where}: {path} was not shown; cite only the files shown ({files})")
    ft = read(path)
    if ft.text is None:
        raise VerdictError(f"{where}: {path}: {ft.problem}")
    lines = split_lines(ft.text)
    wanted = quotes.quote_lines(quote)
    allowed = list(shown[path])
    if isinstance(kind, Symbol):
        found, cited = _in_symbol(kind, wanted, lines, ft.text, allowed, where)
    else:
        assert res is not None
        found, cited = _in_range(res, wanted, lines, allowed, where)
    notes, prose_only = _notes(path, ft.text, lines, wanted, found, parts, cited, where)
    own = next((p.index for p in parts if p.path == path and p.now and _inside(found, p.now, p.symbol)), None)
    evidence = _evidence(kind, res, cited, found, own, parts, ft, where)
    resource = kind.canonical if kind is not None else res.canonical  # type: ignore[union-attr]
    return Quoted(i, resource, quote, found, evidence, own, notes, prose_only)


def _inside(found: Span, spans: Sequence[Span], whole: bool) -> bool:
    """Within a definition's part (`whole`: every quoted line in it), or overlapping a range."""
    if whole:
        return all(any(a <= n <= b for a, b in spans) for n in range(found[0], found[1] + 1))
    return any(found[0] <= b and a <= found[1] for a, b in spans)


def _in_symbol(sym: Symbol, wanted: list[str], lines: list[str], text: str, allowed: list[Span], where: str) -> tuple[Span, Span]:
    spans = part.symbol_spans(sym, text)
    if spans is None:
        raise VerdictError(f"{where}: {sym.canonical} does not resolve now")
    inner = [(max(a, c), min(b, d)) for a, b in allowed for c, d in spans if max(a, c) <= min(b, d)]
    found = quotes.find(wanted, lines, inner)
    if found:
        return found[0], (spans[0][0], spans[-1][1])
    if quotes.find(wanted, lines, spans):
        raise VerdictError(f"{where}: {sym.canonical}: the quote is from lines of it that were not shown "
                           f"(shown: {part.at(inner) or 'none of it'}); quote the lines shown")
    elsewhere = quotes.find(wanted, lines, allowed)
    hint = f" (it is at L{elsewhere[0][0]}-L{elsewhere[0][1]}: cite those lines)" if elsewhere else ""
    raise VerdictError(f"{where}: the quote does not match the current text of {sym.canonical}{hint}")


def _in_range(res: Resource, wanted: list[str], lines: list[str], allowed: list[Span], where: str) -> tuple[Span, Span]:
    """Where the quote is: inside the cited lines when it is there, else the one place among the
    lines shown (the numbers were off); the lines cited (the whole file: all of them)."""
    if not res.is_range:
        found = quotes.find(wanted, lines, allowed)
        if not found:
            raise VerdictError(f"{where}: the quote does not match the current text of {res.canonical}")
        return found[0], (1, len(lines))
    start, end = res.start, res.end
    assert start is not None and end is not None
    if end > len(lines):
        raise VerdictError(f"{where}: {res.canonical}: {res.path} has {len(lines)} lines")
    inner = [(max(a, start), min(b, end)) for a, b in allowed if max(a, start) <= min(b, end)]
    found = quotes.find(wanted, lines, inner)
    if found:
        return found[0], (start, end)
    anywhere = quotes.find(wanted, lines, allowed)
    if len(anywhere) == 1:
        return anywhere[0], anywhere[0]
    if len(anywhere) > 1:
        places = ", ".join(f"L{a}-L{b}" for a, b in anywhere[:5])
        raise VerdictError(f"{where}: {res.canonical}: the quote occurs at {places}; cite the lines you mean")
    if not inner:
        shown = ", ".join(f"L{a}-L{b}" for a, b in sorted(allowed))
        raise VerdictError(f"{where}: {res.canonical}: lines outside those shown ({res.path} {shown})")
    raise VerdictError(f"{where}: the quote does not match the current text of {res.canonical}")


def _notes(
    path: str, text: str, lines: list[str], wanted: list[str], found: Span, parts: Sequence[Part], cited: Span, where: str
) -> tuple[tuple[str, ...], bool]:
    """Notes for the reviewer (instruction-like text, numbers that were off), and whether the
    quote is only comments or docstrings while the lines it supports hold code."""
    notes = []
    if INSTRUCTION.search(" ".join(wanted)):
        notes.append(f"{where}: the quoted text reads like instructions to a model; check it against the code")
    if not (found[0] >= cited[0] and found[1] <= cited[1]):
        notes.append(f"{where}: cited L{cited[0]}-L{cited[1]}; the quote is at L{found[0]}-L{found[1]}")
    name = path.rsplit("/", 1)[-1].lower()
    if (name[name.rfind(".") :] if "." in name else "") in _PROSE_SUFFIXES:
        return tuple(notes), False
    prose = quotes.prose_lines(path, text, lines)
    if all(n in prose for n in range(found[0], found[1] + 1)):
        own = [sp for p in parts if p.path == path and p.now and _inside(found, p.now, False) for sp in p.now]
        supported = own or [cited]
        if any(n not in prose for a, b in supported for n in range(a, min(b, len(lines)) + 1)):
            return tuple(notes), True
        notes.append(f"{where}: the cited lines are comments or docstrings only, not code")
    return tuple(notes), False


def _evidence(
    kind: Symbol | None, res: Resource | None, cited: Span, found: Span, own: int | None, parts: Sequence[Part],
    ft: FileText, where: str,
) -> Evidence:
    """What the quote supports as evidence: a definition by name (cited so, or by the numbers of
    lines inside one the claims cite), else the lines cited (the quote's own where the numbers
    were off), established now."""
    from openwiki_git.claims import kinds

    assert ft.text is not None
    mine = next((p for p in parts if p.index == own), None)
    if kind is None and mine is not None and mine.symbol:
        kind = parse_kind(mine.resource, wiki_dir="\0")  # type: ignore[assignment]
    if isinstance(kind, Symbol):
        token = kinds.symbol_result(kind, kind.canonical, "", ft).current_version
        if token is None:  # pragma: no cover - found above
            raise VerdictError(f"{where}: {kind.canonical} does not resolve now")
        return Evidence(kind.canonical, token, ft.blob)
    assert res is not None
    target = res if (not res.is_range or (res.start, res.end) == cited) else Resource(res.path, found[0], found[1])
    got = resolve(target, ft.text, None)
    if got is None:  # pragma: no cover - the range was checked against the line count above
        raise VerdictError(f"{where}: {target.canonical} does not resolve")
    return Evidence(got.resource.canonical, got.version, ft.blob)


def _member_quote(
    i: int, canonical: str, quote: str, parts: Sequence[Part], sets: Mapping[str, tuple[str, str]], where: str
) -> Quoted:
    """A set the claims cite, quoted by its members as shown."""
    own = next((p for p in parts if p.resource == canonical), None)
    if own is None or canonical not in sets:
        raise VerdictError(f"{where}: {canonical}: cite a set this claim cites, as shown")
    members, token = sets[canonical]
    text = split_lines(members)
    wanted = [ln[1:].strip() if ln[:1] in "+ " else ln for ln in quotes.quote_lines(quote)]  # a row copied with its sign
    if not quotes.find(wanted, text, [(1, len(text))]):
        raise VerdictError(f"{where}: the quote does not match the current text of {canonical}")
    return Quoted(i, canonical, quote, None, Evidence(canonical, token, None), own.index)


def check_verdict(
    data: Any, ctx: ClaimContext, read: Reader, *, wiki_dir: str, schema_problems: Callable[[Any], list[str]]
) -> Plan:
    """Check an answer about the sentence `ctx` shows against the schema and the facts; raise
    VerdictError naming the first problem. Nothing here trusts the answer: ids, paths and lines
    must be ones asked about or shown, quotes must be the current text there."""
    problems = schema_problems(data)
    if problems:
        raise VerdictError(f"the answer does not match the verdict schema: {problems[0]}")
    if data["claim_id"] not in ctx.ids:
        raise VerdictError(f"claim_id {data['claim_id'][:80]!r} is not the claim asked about ({ctx.claim.id})")
    claim = next(r.claim for r in ctx.claims if r.claim.id == data["claim_id"])
    group = tuple(c for c in ctx.ids if c != claim.id)
    verdict = data["verdict"]
    rationale = " ".join(str(data.get("rationale") or "").split())[:1000]
    if verdict == "retract":
        return Plan(claim.id, "retract", claim.statement, None, (), rationale, group=group, neighbour=_neighbour(data, ctx))
    if not data["cited_ranges"]:
        raise VerdictError(f"a {verdict} must quote the current lines that support the statement in cited_ranges")
    if verdict == "confirm":
        bad = [e for r in ctx.claims for e in r.evidence if e.status == "unresolved" or e.current_version is None]
        if bad:
            raise VerdictError(
                f"{bad[0].resource} cannot be found in the current code ({bad[0].reason}), so the claim cannot be "
                "confirmed as cited: revise it with the lines that support it, or retract it"
            )
    statement = claim.statement
    if verdict == "revise" and data["revised_statement"] is not None:
        statement = checked_statement(data["revised_statement"])
    sets = {e.current_resource: (m, e.current_version) for r in ctx.claims for e in r.evidence
            if e.current_resource and e.current_version and (m := _members_of(e.current_version)) is not None}
    shown = {p: ctx.spans_of(p) for p in ctx.paths}
    quoted = check_cited(data["cited_ranges"], shown, read, wiki_dir=wiki_dir, parts=ctx.parts, sets=sets)
    keeps = verdict == "confirm" or statement == claim.statement
    for q in quoted:
        _scope(q, ctx, verdict, keeps)
    evidence = tuple({q.evidence.resource: q.evidence for q in quoted}.values())
    notes = tuple(n for q in quoted for n in q.notes)
    said = tuple((q.resource, q.quote) for q in quoted)
    if verdict == "confirm":
        return Plan(claim.id, "confirm", claim.statement, None, tuple(e.resource for e in evidence), rationale, notes, said, group)
    return Plan(claim.id, "revise", statement, evidence, tuple(e.resource for e in evidence), rationale, notes, said, group)


def _members_of(token: str) -> str | None:
    from openwiki_git.claims import kinds

    return kinds.members_text(token) if token.startswith(SET_PREFIX) else None


def _scope(q: Quoted, ctx: ClaimContext, verdict: str, keeps: bool) -> None:
    """A confirm quotes the claims' own cited parts; a revise keeping the statement quotes them
    or their verified text, moved."""
    where = f"cited_ranges[{q.index}]"
    if q.own is not None:
        return
    if verdict == "confirm":
        raise VerdictError(f"{where}: {q.resource} is outside the claim's cited lines; "
                           "to cite other lines, answer revise (they become its evidence)")
    wanted = quotes.quote_lines(q.quote)
    moved = any(quotes.find(wanted, split_lines(old), [(1, len(split_lines(old)))]) for old in ctx.verified)
    if keeps and not moved:
        raise VerdictError(
            f"{where}: {q.resource} is neither the claim's cited lines nor its verified text moved elsewhere; "
            "a revise that keeps the statement vouches for it like a confirm. Give the revised_statement these "
            "lines support, or retract"
        )


def _neighbour(data: Any, ctx: ClaimContext) -> tuple[str, str] | None:
    """A retract's rewrite of the neighbouring sentence ("retract and rewrite the paragraph"):
    a sentence of the same paragraph, as the page has it, carrying no claim of its own."""
    got = data.get("rewrite_neighbour")
    if not got:
        return None
    sentence, revised = str(got.get("sentence", "")), str(got.get("revised", ""))
    paragraph = " ".join((ctx.paragraph or "").split())
    if not sentence.strip() or " ".join(sentence.split()) not in paragraph:
        raise VerdictError("rewrite_neighbour.sentence is not a sentence of the claim's paragraph, as the page has it")
    if ANY.search(sentence):
        raise VerdictError("rewrite_neighbour.sentence carries a claim of its own: revise that claim instead")
    return sentence, checked_statement(revised, "rewrite_neighbour.revised")
