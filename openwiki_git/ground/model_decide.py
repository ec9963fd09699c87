"""`ground --model`, the evidence the deterministic pass could not decide: a sentence about what a
class does that names none of its members, or about what a definition longer than a screen does
(proves.py cites the head and lists it as undecided). The model is shown the sentence and the
definition with line numbers (up to MAX_LINES) and answers in the
refresher's verdict format: `confirm` quoting the lines that do what the sentence says, or
`retract` when none do. Its answer goes through the one quote check (`validated`: verdicts/validator's
`check_cited`, as the refresher, the agents and review use it), then the lines it quoted become the evidence:
the method of the class that holds them (`#Client.send`), else the lines themselves. The claim keeps its id
and statement; its head evidence is replaced, its verifier becomes `model:<name>`. A `retract`
leaves the head (the sentence is listed for a person); nothing is written in a plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol, parse_kind
from openwiki_git.evidence.resource import parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import Claim, ClaimResult, Evidence, EvidenceResult
from openwiki_git.store.workspace import Workspace
from openwiki_git.verdicts.context import estimate_tokens

MAX_LINES = 400  # of a class shown
# What ground's model questions share: the refresher's verdict format, confirm or retract only.
VERDICT_RULES = """\
Never use "revise"; revised_statement is always null. claim_id is the id given. rationale: one sentence.
"""
SYSTEM = """\
You decide which code makes one sentence of a project's documentation true.
The sentence says what a class or a function does; you are shown its code with line numbers.
Answer with one JSON object: verdict "confirm" with cited_ranges, the lines that do what the
sentence says ({"resource": "repo://<path>#L<start>-L<end>", "quote": their exact text, without
line numbers}; code, not only comments or docstrings; only lines shown), or verdict "retract"
with no cited_ranges when no lines shown do it.
""" + VERDICT_RULES


@dataclass(frozen=True, slots=True)
class Undecided:
    page: str
    claim_id: str
    statement: str
    line: int
    head: str  # the head resource the deterministic pass cited
    name: str  # the definition's name in its file
    path: str
    start: int
    end: int
    user: str
    tokens: int


def undecided(ws: Workspace, reports: list[Any], index: Any) -> list[Undecided]:
    """The undecided items of the deterministic pass's reports, each with what the model is shown."""
    out = []
    for rep in reports:
        for prop in [] if rep.refused else rep.proposals:
            for item in prop.items:
                if not item.undecided:
                    continue
                kind = parse_kind(item.resource, wiki_dir="\0")
                text = index.text(kind.path) if isinstance(kind, Symbol) else None
                ext = definitions.find(kind.path, text, kind.name) if isinstance(kind, Symbol) and text else None
                if ext is None or not isinstance(kind, Symbol):
                    continue
                end = min(ext.end, ext.start + MAX_LINES - 1)
                lines = split_lines(text or "")[ext.start - 1 : end]
                user = "\n".join([
                    f"Page: {rep.page}", f"claim_id: {prop.claim_id}", f"Sentence (line {prop.sentence.line}): {prop.statement}", "",
                    f"Current text of repo://{kind.path}#L{ext.start}-L{end} ({kind.name}):",
                    *(f"{n:>5} | {ln.rstrip()}" for n, ln in enumerate(lines, ext.start)),
                ])
                out.append(Undecided(rep.page, prop.claim_id, prop.statement, prop.sentence.line, item.resource, kind.name,
                                     kind.path, ext.start, end, user, estimate_tokens(SYSTEM + user)))
    return out


def ask(client: Any, request: Any, out: dict[str, Any], where: dict[str, Any]) -> Any:
    """One question to the model, its tokens counted in `out`; None when the call failed (listed
    in `out["errors"]`; `out["stopped"]` set when the failure ends the run)."""
    from openwiki_git.refresh import protocol as refresher

    try:
        response = client.review(request)
    except refresher.RefreshCallError as e:
        out["tokens_in"] += e.usage.input_tokens
        out["tokens_out"] += e.usage.output_tokens
        out["errors"].append({**where, "reason": f"model error: {e}"})
        if e.fatal:
            out["stopped"] = str(e)
        return None
    out["tokens_in"] += response.usage.input_tokens
    out["tokens_out"] += response.usage.output_tokens
    return response


@dataclass(frozen=True, slots=True)
class Decision:
    """The model's checked answer: `retract`, or the lines it quoted (`cited`: `repo://path#La-Lb`)."""

    verdict: str
    rationale: str
    cited: tuple[str, ...]


def validated(data: Any, ctx: Any, read: Any, wiki_dir: str) -> Decision:
    """The answer checked against the verdict schema and, quote by quote, by the one quote check
    (verdicts/validator.check_cited, the refresher's, the agents' and review's): the claim asked
    about, lines shown, quotes equal to the text there, code rather than comments. Any lines of
    the class shown may be quoted: which of them hold the behaviour is the question (a confirm
    of the refresher's kind would hold the model to the head it cites). Raises VerdictError."""
    from openwiki_git.refresh import protocol
    from openwiki_git.verdicts.edits import VerdictError
    from openwiki_git.verdicts.validator import check_cited

    problems = protocol.schema_problems(data)
    if problems:
        raise VerdictError(f"the answer does not match the verdict schema: {problems[0]}")
    if data["claim_id"] != ctx.claim.id:
        raise VerdictError(f"claim_id {str(data['claim_id'])[:80]!r} is not the claim asked about ({ctx.claim.id})")
    rationale = " ".join(str(data.get("rationale") or "").split())[:1000]
    if data["verdict"] == "retract":
        return Decision("retract", rationale, ())
    if not data["cited_ranges"]:
        raise VerdictError(f"a {data['verdict']} must quote the current lines that do what the sentence says in cited_ranges")
    quoted = check_cited(data["cited_ranges"], {p: ctx.spans_of(p) for p in ctx.paths}, read, wiki_dir=wiki_dir)
    return Decision(data["verdict"], rationale, tuple(dict.fromkeys(q.evidence.resource for q in quoted)))


def context(it: Undecided, evidence: tuple[Evidence, ...]) -> Any:
    """The verdicts' ClaimContext for the question: the claim as written, the class shown."""
    from openwiki_git.verdicts.context import ClaimContext, Shown

    claim = Claim(it.claim_id, it.statement, evidence)
    results = tuple(EvidenceResult(e.resource, "fresh", e.resource, "unchanged", e.version) for e in evidence)
    result = ClaimResult(it.page, claim, "fresh", results)
    shown = (Shown(0, it.path, ((it.start, it.end),), False),)
    return ClaimContext(it.page, claim, result, None, shown, SYSTEM, it.user, "ground-decide", it.tokens, False)


def decided(ws: Workspace, it: Undecided, plan: Any, index: Any) -> list[str]:
    """The evidence the model's quoted lines become: the method of the class holding each range
    (a nested definition of a function), else the range: the lines that do it."""
    text = index.text(it.path) or ""
    members = [e for e in definitions.definitions(it.path, text)
               if e.name.startswith(it.name + ".") and e.kind != "class" and e.start >= it.start and e.end <= it.end]
    out: list[str] = []
    for raw in plan.cited:
        res = parse_resource(raw, wiki_dir=ws.config.wiki_dir)
        holders = [m for m in members if res.start is not None and res.end is not None and m.start <= res.start and res.end <= m.end]
        best = min(holders, key=lambda m: m.end - m.start, default=None)
        out.append(Symbol(it.path, best.name).canonical if best is not None else res.canonical)
    return list(dict.fromkeys(out))


def run(
    ws: Workspace, items: list[Undecided], client: Any, settings: Any, out: dict[str, Any], *, plan: bool, source: str, index: Any
) -> None:
    """Each undecided item asked (unless `plan`), its claim re-pointed when the answer holds."""
    from openwiki_git.refresh import protocol as refresher

    by = f"model:{settings.model}"
    for it in items:
        where = {"page": it.page, "page_path": ws.wiki.repo_path(it.page), "line": it.line, "statement": it.statement,
                 "claim_id": it.claim_id, "cites": it.head}
        if plan:
            out["decide"].append({**where, "tokens": it.tokens})
            out["tokens_in"] += it.tokens
            continue
        if settings.max_total_tokens is not None and out["tokens_in"] + out["tokens_out"] >= settings.max_total_tokens:
            out["stopped"] = f"max_total_tokens ({settings.max_total_tokens}) reached"
            return
        request = refresher.ReviewRequest(it.claim_id, SYSTEM, (it.user,), refresher.model_schema(), 1)
        response = ask(client, request, out, where)
        if response is None:
            if out["stopped"]:
                return
            continue
        _apply(ws, it, response, by, source, index, out, where)


def _apply(
    ws: Workspace, it: Undecided, response: Any, by: str, source: str, index: Any, out: dict[str, Any], where: dict[str, Any]
) -> None:
    from openwiki_git.store import editing
    from openwiki_git.store.workspace import now_iso
    from openwiki_git.verdicts.edits import VerdictError

    with ws.wiki.lock():
        _, sidecar, claim = ws.wiki.find_claim(it.claim_id)
        read = lambda p: ws.repo.read(p, source)  # noqa: E731
        try:
            verdict = validated(response.data, context(it, claim.evidence), read, ws.config.wiki_dir)
        except VerdictError as e:
            out["rejected"].append({**where, "reason": str(e)})
            return
        if verdict.verdict == "retract":
            out["ungrounded"].append({**where, "reason": verdict.rationale or "the model found no code that does it"})
            return
        chosen = decided(ws, it, verdict, index)
        evidence = editing.resolve_new_evidence(ws, chosen, source)
        kept = tuple(e for e in claim.evidence if e.resource != it.head)
        new = claim.replace(evidence=(*kept, *(e for e in evidence if e.resource not in {k.resource for k in kept})),
                            verified_at=now_iso(), verified_by=by, mark=None)
        editing.save_page(ws.wiki, sidecar.with_claim(new))
    out["decided"].append({**where, "evidence": chosen})
