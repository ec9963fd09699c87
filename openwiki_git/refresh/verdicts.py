"""Whether the model's answer holds: `check_verdict` checks it against the verdict schema and
the facts (the claim asked about, files and lines shown, quotes equal to the current text there,
a confirm within the claim's own lines, a revised statement that is one plain sentence) and
returns a `Plan` or raises `VerdictError` naming the first problem. Pure: files arrive through a
reader.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.resolver import resolve
from openwiki_git.evidence.resource import REPO_PREFIX, Resource, ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import Evidence, FileText
from openwiki_git.refresh.drift import parse_or_none
from openwiki_git.refresh.edits import Plan, VerdictError
from openwiki_git.refresh.prompt import ClaimContext

VERDICTS = ("confirm", "revise", "retract")
MAX_STATEMENT = 500
Reader = Callable[[str], FileText]


_PARENT = re.compile(r"(^|/)\.\.(/|$)")
_NUMBER_PREFIX = re.compile(r"^\s*\d+\s*>?\s*\|\s?")
_BLOCK_START = re.compile(r"^\s*(?:#|>|[-*+]\s|\d+[.)]\s|\||---|===|```|~~~)")
_FORBIDDEN_IN_STATEMENT = ("[^", "<!--", "-->", "\n", "\r", "\x00")


def _norm_line(line: str) -> str:
    return " ".join(line.split())


def _quote_lines(quote: str) -> list[str]:
    lines = quote.replace("\r\n", "\n").split("\n")
    if lines and all(_NUMBER_PREFIX.match(ln) for ln in lines if ln.strip()):
        lines = [_NUMBER_PREFIX.sub("", ln, count=1) for ln in lines]
    out = [_norm_line(ln) for ln in lines]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def _contains_run(haystack: list[str], needle: list[str]) -> bool:
    if not needle:
        return False
    k = len(needle)
    return any(haystack[i : i + k] == needle for i in range(len(haystack) - k + 1))


def check_verdict(
    data: Any,
    ctx: ClaimContext,
    read: Reader,
    *,
    wiki_dir: str,
    schema_problems: Callable[[Any], list[str]],
) -> Plan:
    """Check the model's answer against the schema and the facts; raise VerdictError naming the
    first problem. Nothing here trusts the answer: ids, paths and lines must be ones asked about
    or shown, quotes must equal the current text."""
    problems = schema_problems(data)
    if problems:
        raise VerdictError(f"the answer does not match the verdict schema: {problems[0]}")
    claim = ctx.claim
    if data["claim_id"] != claim.id:
        raise VerdictError(f"claim_id {data['claim_id'][:80]!r} is not the claim asked about ({claim.id})")
    verdict = data["verdict"]
    rationale = " ".join(str(data.get("rationale") or "").split())[:1000]
    if verdict == "retract":
        return Plan(claim.id, "retract", claim.statement, None, (), rationale)
    cited = data["cited_ranges"]
    if not cited:
        raise VerdictError(f"a {verdict} must quote the current lines that support the statement in cited_ranges")
    if verdict == "confirm":
        bad = [r for r in ctx.result.evidence if r.status == "unresolved" or r.current_version is None]
        if bad:
            raise VerdictError(
                f"{bad[0].resource} cannot be found in the current code ({bad[0].reason}), so the claim cannot be "
                "confirmed as cited: revise it with the lines that support it, or retract it"
            )
    statement = claim.statement
    if verdict == "revise" and data["revised_statement"] is not None:
        statement = _check_statement(data["revised_statement"])
    # A revise that keeps the statement vouches for it as a confirm does: it may cite only the
    # claim's own lines, or the text it cited as verified, found moved (never unrelated lines).
    keeps = verdict == "confirm" or statement == claim.statement
    resolved: list[Evidence] = []
    canon: list[str] = []
    quotes: list[tuple[str, str]] = []
    notes: list[str] = []
    for i, item in enumerate(cited):
        ev, note = _check_cited(item["resource"], item["quote"], ctx, read, wiki_dir, verdict, f"cited_ranges[{i}]", keeps)
        if ev.resource in canon:
            raise VerdictError(f"cited_ranges[{i}]: {ev.resource} is cited twice")
        canon.append(ev.resource)
        resolved.append(ev)
        quotes.append((ev.resource, item["quote"]))
        notes += note
    if verdict == "confirm":
        return Plan(claim.id, "confirm", claim.statement, None, tuple(canon), rationale, tuple(notes), tuple(quotes))
    return Plan(claim.id, "revise", statement, tuple(resolved), tuple(canon), rationale, tuple(notes), tuple(quotes))


_PROSE_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc", ".org", ".html", ".htm", "")
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|/\*|\*|--|<!--|;|%|\"\"\"|\'\'\'|REM\b|')")
_STRING_LINE = re.compile(r"""^\s*[rbfuRBFU]{0,2}(["'`]).*\1[,;]?\s*$""")
_INSTRUCTION = re.compile(
    r"(?i)\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|previous|above|rules?)\b|\byou (must|should) "
    r"(answer|confirm|revise|retract|reply|respond)|\b(answer|verdict)\s*[:=]\s*[\"']?(confirm|revise|retract)|"
    r"\bsystem prompt\b|\bas an ai\b"
)


def _is_prose_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    suffix = name[name.rfind(".") :] if "." in name else ""
    return suffix in _PROSE_SUFFIXES


def _is_comment(line: str) -> bool:
    return bool(_COMMENT_LINE.match(line) or _STRING_LINE.match(line))


def _quote_notes(path: str, wanted: list[str], cited_lines: list[str], where: str) -> list[str]:
    """Raise when a quote of code quotes only comments or strings while the lines cited (by the
    model or the claim) hold code: comments can say anything, including instructions to a model.
    Returns notes for the reviewer."""
    notes: list[str] = []
    quoted = [ln for ln in wanted if ln]
    if _INSTRUCTION.search(" ".join(quoted)):
        notes.append(f"{where}: the quoted text reads like instructions to a model; check it against the code")
    if _is_prose_file(path):
        return notes
    if quoted and all(_is_comment(ln) for ln in quoted):
        code_lines = [ln for ln in cited_lines if ln.strip() and not _is_comment(ln)]
        if code_lines:
            raise VerdictError(
                f"{where}: the quote is only comments or strings; quote the code lines that support the statement"
            )
        notes.append(f"{where}: the cited lines are comments or strings only, not code")
    return notes


def check_statement(text: str) -> str | None:
    """The first problem of a statement written by a model, an agent or a person restating a
    claim (one plain sentence on one line, no markers, no block syntax, bounded), None when it
    is fine. THE statement rule: the refresher, the MCP tools and `review` all ask here."""
    try:
        _check_statement(text)
    except VerdictError as e:
        return str(e).removeprefix("revised_statement ")
    return None


def _check_statement(text: str) -> str:
    statement = " ".join(text.split()) if "\n" not in text.strip() else text.strip()
    if not statement:
        raise VerdictError("revised_statement is empty: give the corrected sentence, or null to keep the statement")
    bad = next((s for s in _FORBIDDEN_IN_STATEMENT if s in statement), None)
    if bad is not None:
        raise VerdictError(f"revised_statement must be one plain sentence on one line, without {bad!r}")
    if _BLOCK_START.match(statement):
        raise VerdictError("revised_statement must be plain prose: it cannot start a heading, list, quote, table or fence")
    if len(statement) > MAX_STATEMENT:
        raise VerdictError(f"revised_statement is {len(statement)} characters long; keep it under {MAX_STATEMENT}")
    if _INSTRUCTION.search(statement):  # a wiki sentence is read by the next model too
        raise VerdictError("revised_statement reads like instructions to a model; state what the code does")
    return statement


def _check_cited(
    raw: str, quote: str, ctx: ClaimContext, read: Reader, wiki_dir: str, verdict: str, where: str, keeps: bool = False
) -> tuple[Evidence, list[str]]:
    if looks_like_kind(raw):
        return _check_named(raw, quote, ctx, read, wiki_dir, where), []
    res = _cited_resource(raw, ctx, wiki_dir, where)
    ft = read(res.path)
    if ft.text is None:
        raise VerdictError(f"{where}: {res.path}: {ft.problem}")
    lines = split_lines(ft.text)
    cited_lines = _cited_lines(res, lines, ctx, where)
    wanted = _quote_lines(quote)
    if not wanted or not any(wanted):
        raise VerdictError(f"{where}: the quote is empty: copy the cited lines' text")
    if not _contains_run([_norm_line(ln) for ln in cited_lines], wanted):
        raise VerdictError(f"{where}: the quote does not match the current text of {res.canonical}")
    own = [
        ln
        for r in (parse_or_none(e.current_resource) for e in ctx.result.evidence)
        if r is not None and r.path == res.path and r.is_range
        for ln in lines[r.start - 1 : r.end]  # type: ignore[operator]
    ]
    notes = _quote_notes(res.path, wanted, cited_lines + own, where)
    _check_scope(res, wanted, ctx, verdict, keeps, where)
    got = resolve(res, ft.text, None)
    if got is None:  # pragma: no cover - the range was checked against the line count above
        raise VerdictError(f"{where}: {res.canonical} does not resolve")
    return Evidence(got.resource.canonical, got.version, ft.blob), notes


def _check_named(raw: str, quote: str, ctx: ClaimContext, read: Reader, wiki_dir: str, where: str) -> Evidence:
    """A definition in a file shown, or a set the claim cites (its members as shown), with a
    quote of its text or members now: the evidence it becomes, established now."""
    from openwiki_git.claims import kinds

    if _PARENT.search(unquote(raw.removeprefix(REPO_PREFIX)).replace("\\", "/")):
        raise VerdictError(f"{where}: {raw[:200]!r}: '..' is not allowed in a cited path")
    try:
        kind = parse_kind(raw, wiki_dir=wiki_dir)
    except ResourceError as e:
        raise VerdictError(f"{where}: {e}") from None
    assert kind is not None
    if isinstance(kind, Symbol):
        if kind.path not in ctx.paths:
            raise VerdictError(f"{where}: {kind.path} was not shown; cite only the files shown ({', '.join(sorted(ctx.paths)) or 'none'})")
        ft = read(kind.path)
        r = kinds.symbol_result(kind, kind.canonical, "", ft)
        text, token, blob = kinds.texts(kind, "", read, None, None)[1], r.current_version, ft.blob
    else:
        own = next((e for e in ctx.result.evidence if e.current_resource == kind.canonical), None)
        if own is None or own.current_version is None:
            raise VerdictError(f"{where}: {kind.canonical}: cite a set this claim cites, as shown")
        text, token, blob = kinds.members_text(own.current_version), own.current_version, None
    if token is None or text is None:
        raise VerdictError(f"{where}: {kind.canonical} does not resolve now")
    wanted = _quote_lines(quote)
    if not wanted or not any(wanted) or not _contains_run([_norm_line(ln) for ln in text.splitlines()], wanted):
        raise VerdictError(f"{where}: the quote does not match the current text of {kind.canonical}")
    return Evidence(kind.canonical, token, blob)


def _cited_resource(raw: str, ctx: ClaimContext, wiki_dir: str, where: str) -> Resource:
    """The cited resource, parsed, in one of the files shown (no `..`, no nested repository)."""
    path_part = raw.removeprefix(REPO_PREFIX).split("#", 1)[0]
    if _PARENT.search(unquote(path_part).replace("\\", "/")):
        raise VerdictError(f"{where}: {raw[:200]!r}: '..' is not allowed in a cited path")
    try:
        res = parse_resource(raw, wiki_dir=wiki_dir, allow_nested_git=False)
    except ResourceError as e:
        raise VerdictError(f"{where}: {e}") from None
    allowed = ctx.paths
    if res.path not in allowed:
        shown = ", ".join(sorted(allowed)) or "none"
        raise VerdictError(f"{where}: {res.path} was not shown; cite only the files shown ({shown})")
    return res


def _cited_lines(res: Resource, lines: list[str], ctx: ClaimContext, where: str) -> list[str]:
    """The current lines cited: a range inside the lines shown, or the whole file when it was cited whole."""
    spans = ctx.spans_of(res.path)
    whole = any(s.whole_file for s in ctx.shown if s.path == res.path)
    if res.is_range:
        start, end = res.start, res.end
        assert start is not None and end is not None
        if end > len(lines):
            raise VerdictError(f"{where}: {res.canonical}: {res.path} has {len(lines)} lines")
        if not all(any(a <= n <= b for a, b in spans) for n in (start, end)) or not _covered(start, end, spans):
            shown_desc = ", ".join(f"L{a}-L{b}" for a, b in spans)
            raise VerdictError(f"{where}: {res.canonical}: lines outside those shown ({res.path} {shown_desc})")
        return lines[start - 1 : end]
    if whole:
        return lines
    raise VerdictError(f"{where}: {res.canonical}: cite line ranges (repo://{res.path}#L<start>-L<end>)")


def _check_scope(
    res: Resource, wanted: list[str], ctx: ClaimContext, verdict: str, keeps: bool, where: str
) -> None:
    """A confirm cites within the claim's own lines; a revise that keeps the statement cites them
    or its verified text, moved."""
    if verdict == "confirm" and res.is_range:
        current = [
            r
            for r in (parse_or_none(e.current_resource) for e in ctx.result.evidence)
            if r is not None and r.path == res.path
        ]
        if current and not any(
            not r.is_range or (r.start <= res.end and res.start <= r.end)  # type: ignore[operator]
            for r in current
        ):
            raise VerdictError(
                f"{where}: {res.canonical} is outside the claim's cited lines; "
                "to cite other lines, answer revise (they become its evidence)"
            )
    elif keeps and not _own_or_moved(res, wanted, ctx):
        raise VerdictError(
            f"{where}: {res.canonical} is neither the claim's cited lines nor its verified text moved elsewhere; "
            "a revise that keeps the statement vouches for it like a confirm. Give the revised_statement these "
            "lines support, or retract"
        )


def _own_or_moved(res: Resource, wanted: list[str], ctx: ClaimContext) -> bool:
    """The cited range overlaps the claim's current lines, or the quote is part of the text as
    last verified (the same text, moved)."""
    for e in ctx.result.evidence:
        r = parse_or_none(e.current_resource)
        if r is None or r.path != res.path:
            continue
        if not r.is_range or not res.is_range or (r.start <= res.end and res.start <= r.end):  # type: ignore[operator]
            return True
    return any(_contains_run([_norm_line(ln) for ln in old.splitlines()], wanted) for old in ctx.verified)


def _covered(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    n = start
    while n <= end:
        nxt = max((b for a, b in spans if a <= n <= b), default=None)
        if nxt is None:
            return False
        n = nxt + 1
    return True

