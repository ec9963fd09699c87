"""The agents' verification tools as data (no SDK types): `claims_for_change` (the claims a change
touches, one item per sentence, each with everything needed to decide it), `verify_claim` (a
verdict in the refresher's own format, checked by the one validator, applied by the one writer)
and `add_claim` (a new claim whose quotes must match).

One validator and one writer, the verdicts package's: a verdict is checked by
`verdicts/validator.check_verdict` against the same `ClaimContext` the refresher builds for its model
(`verdicts/sources` + `verdicts/context`: one sentence's claims, their cited parts as verified
and now, at the file's real line numbers), so an agent may cite exactly what the model may; an
accepted verdict goes through `verdicts/writer.Writer` and `verdicts/edits.apply_plan` (checked
again under the wiki lock against the files as they are then, the prose rewritten or the sentence
removed as a refresh would), recorded as `agent:NAME`. Both enforce `verify_policy`. The working
tree only: nothing is staged or committed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from openwiki_git.claims import freshness as checker
from openwiki_git.claims import policy
from openwiki_git.claims.records import cause_data
from openwiki_git.errors import OpenwikiError, UsageError
from openwiki_git.git import diff as gitdiff
from openwiki_git.graph import inputs as graph_inputs
from openwiki_git.hook.engine import evaluate, staged_or_range
from openwiki_git.model import Claim, ClaimResult, Sidecar
from openwiki_git.pages import citations
from openwiki_git.refresh.prompt import SYSTEM_PROMPT
from openwiki_git.refresh.protocol import schema_problems
from openwiki_git.store import editing
from openwiki_git.store.workspace import Workspace, now_iso
from openwiki_git.verdicts import prose
from openwiki_git.verdicts.context import ClaimContext, build_context
from openwiki_git.verdicts.edits import VerdictError, apply_plan
from openwiki_git.verdicts.sources import sentences, sources_of
from openwiki_git.verdicts.statement import check_statement
from openwiki_git.verdicts.validator import check_cited, check_verdict
from openwiki_git.verdicts.writer import Writer

SCOPES = ("worktree", "staged", "branch")
MAX_CLAIMS = 50
MAX_CHARS = 100_000  # the whole answer's contexts, so one call never floods the agent's window
CONTEXT_TOKENS = 3000  # per sentence at most, as the refresher's budget counts them
MIN_CONTEXT_TOKENS = 500  # per sentence at least: what deciding a small change takes


class VerificationRefused(OpenwikiError):
    """A verdict or a new claim the validator or the policy refused; nothing was written."""


def agent_actor(name: str | None) -> str:
    """`agent:NAME` for the record, NAME cleaned to one printable word (a client names itself)."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_.@/" else "-" for ch in (name or "").strip())[:64].strip("-")
    return f"agent:{cleaned or 'unknown'}"


# -- claims_for_change ---------------------------------------------------------------------------
class SidecarMemo:
    """The sidecars of a long-lived server, each parsed again only when its stat changes (and
    never reused while racy: graph/inputs.py's rule), so a warm claims_for_change reads none."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[Any, Sidecar | None]] = {}

    def load_all(self, ws: Workspace) -> dict[str, Sidecar]:
        started = time.time_ns()

        def load(page: str) -> Sidecar | None:
            key = graph_inputs.stat_key(ws.wiki.sidecar_path(page), started)
            kept = self._kept.get(page)
            if kept is not None and kept[0] == key and key is not None and key[0] != -1:
                return kept[1]
            sidecar = ws.wiki.load(page)
            self._kept[page] = (key, sidecar)
            return sidecar

        return ws.wiki.load_all(load)


def change_diff(ws: Workspace, scope: str, base: str | None) -> gitdiff.Diff:
    """The change: the working tree against HEAD, the staged diff, or the branch since `base`."""
    threshold = ws.config.rename_threshold
    if scope == "worktree":
        return gitdiff.worktree(ws.repo, rename_threshold=threshold)
    if scope == "staged":
        return gitdiff.staged(ws.repo, rename_threshold=threshold)
    if scope == "branch":
        if not base:
            raise UsageError("scope branch needs base: the revision the branch started from", "e.g. base: 'main'")
        return staged_or_range(ws, base, "HEAD")[0]
    raise UsageError(f"scope {scope!r} is not one of {', '.join(SCOPES)}", "leave scope out for the working tree against HEAD")


def claims_for_change(
    ws: Workspace, *, scope: str = "worktree", base: str | None = None, limit: int = 20, max_chars: int = MAX_CHARS,
    memo: SidecarMemo | None = None,
) -> dict[str, Any]:
    """The claims whose cited lines the change touches, and the claims already marked stale or
    unresolved, one item per sentence (`item`): `limit` of them, each context narrowed so that
    they fit `max_chars` together; fewer only when even so they do not, and the answer says so."""
    limit = max(1, min(int(limit), MAX_CLAIMS))
    diff = change_diff(ws, scope, base)
    evaluation = evaluate(ws, diff)
    touched = {o.before.id: o for o in evaluation.outcomes if o.affected and o.status != "fresh"}
    sidecars = (memo or SidecarMemo()).load_all(ws)
    resolver = ws.resolver()
    chosen: list[tuple[str, list[Claim], str]] = []
    for page in sorted(sidecars):
        wanted = [c for c in sidecars[page].claims if c.id in touched or c.mark is not None]
        if not wanted:
            continue
        ids = {c.id for c in wanted}
        for group in sentences(ws.page_text(page), list(sidecars[page].claims)):
            if any(c.id in ids for c in group):
                group.sort(key=lambda c: c.id not in ids)  # a claim needing a decision first
                chosen.append((page, group, "changed" if any(c.id in touched for c in group) else "marked"))
    budget = max(MIN_CONTEXT_TOKENS, min(CONTEXT_TOKENS, max_chars // (4 * min(limit, max(1, len(chosen))))))
    items: list[dict[str, Any]] = []
    used = 0
    fewer = None
    for page, group, why in chosen[:limit]:
        found = item(ws, page, group, resolver, why, touched, budget)
        if items and used + len(found["context"]) > max_chars:
            fewer = (f"{len(items)} of {min(limit, len(chosen))} sentences fit the answer's {max_chars:,} characters; "
                     "decide these, then call again for the rest (decided claims drop out)")
            break
        used += len(found["context"])
        items.append(found)
    if fewer is None and len(chosen) > limit:
        fewer = f"limit {limit} reached; {len(chosen) - limit} more sentences need a decision: call again after these"
    return {
        "scope": scope,
        "base": base,
        "claims": items,
        "total": len(chosen),
        "truncated": len(items) < len(chosen),
        **({"fewer": fewer} if fewer else {}),
        "next": "Decide each item: call verify_claim with confirm, revise or retract, quoting the current lines shown "
        "(a sentence carrying several claims is decided by one verdict on its claim_id).",
    }


def item(
    ws: Workspace, page: str, group: list[Claim], resolver: checker.EvidenceResolver, why: str, touched: dict[str, Any],
    budget: int = CONTEXT_TOKENS,
) -> dict[str, Any]:
    """One sentence's claims with everything an agent needs to decide them without another call;
    every text once, in `context`."""
    ctx = context(ws, page, group, resolver, budget)
    claim = group[0]
    causes = [o.cause() for c in group if (outcome := touched.get(c.id)) for o in outcome.evidence if o.status != "fresh"]
    if not causes:
        causes = [x for c in group if c.mark is not None for x in c.mark.causes]
    rule = policy.forbidding(ws.config.verify_policy, page, agent_actor("x"))
    text = ws.page_text(page)
    dangling = prose.neighbour(text, claim.id, claim.statement, [c.id for c in group]) if text is not None else None
    return {
        "claim_id": claim.id,
        "label": citations.label(claim.id),
        **({"claims": [c.id for c in group]} if len(group) > 1 else {}),
        "page": page,
        "why": why,
        "status": _status(ctx.claims),
        "statement": claim.statement,
        "verified_by": claim.verified_by,
        "agents_may_verify": rule is None,
        **({"policy": rule.describe()} if rule is not None else {}),
        "cause": [cause_data(c) for c in causes],
        "evidence": [
            {"resource": p.resource, "claim_id": p.claim_id, "status": e.status, "reason": e.reason,
             "current_resource": e.current_resource, "now_at": _at(p.now)}
            for p, e in zip(ctx.parts, [e for r in ctx.claims for e in r.evidence], strict=True)
        ],
        "may_cite": ctx.may_cite(),
        **({"retract_leaves": dangling} if dangling else {}),
        **({"left_out": list(ctx.left_out)} if ctx.left_out else {}),
        "context": ctx.user,
    }


def _status(results: tuple[ClaimResult, ...]) -> str:
    statuses = {r.status for r in results}
    return "unresolved" if "unresolved" in statuses else "stale" if "stale" in statuses else "fresh"


def _at(spans: Any) -> str | None:
    from openwiki_git.claims import part

    return part.at(spans) if spans else None


def context(
    ws: Workspace, page: str, group: list[Claim], resolver: checker.EvidenceResolver | None = None,
    budget: int = CONTEXT_TOKENS,
) -> ClaimContext:
    """The ClaimContext the refresher builds for this sentence's claims: each checked now, with
    its sources (the current text and the text as last verified, from git)."""
    resolver = resolver or ws.resolver()
    text = ws.page_text(page)
    results = [checker.check_claim(page, c, resolver, page_text=text) for c in group]
    return build_context(
        page, [(r, sources_of(ws, r, resolver)) for r in results], text, system=SYSTEM_PROMPT, budget=budget,
        wiki_path=ws.wiki.repo_path(page), site=ws.wiki.site is not None,
    )


def sentence_of(ws: Workspace, page: str, claim: Claim) -> list[Claim]:
    """The claims of the claim's sentence, the claim first."""
    sidecar = ws.wiki.load(page)
    for group in sentences(ws.page_text(page), list(sidecar.claims) if sidecar is not None else [claim]):
        if any(c.id == claim.id for c in group):
            return [claim] + [c for c in group if c.id != claim.id]
    return [claim]


# -- verify_claim --------------------------------------------------------------------------------
def verify_claim(ws: Workspace, verdict: dict[str, Any], *, agent: str | None) -> dict[str, Any]:
    """Check the verdict as the refresher checks its model's, then apply it (see the module's
    docstring). Raises VerificationRefused naming the first problem; nothing is written then."""
    by = agent_actor(agent)
    problems = schema_problems(verdict)
    if problems:
        raise VerificationRefused(f"the verdict does not match the verdict schema: {problems[0]}", _HINT)
    page, _, claim = ws.wiki.find_claim(str(verdict["claim_id"]))
    verdict = {**verdict, "claim_id": claim.id}  # a label, a prefix or an old id of a folded claim names this one
    _allowed(ws, page, by)
    group = sentence_of(ws, page, claim)
    ctx = context(ws, page, group)
    plan = _checked(ws, verdict, ctx)
    writer = Writer(ws, dry_run=False, now=now_iso())
    edits: list[Any] = []

    def decide(sidecar: Any, text: str | None, results: dict[str, ClaimResult]) -> tuple[Any, Any]:
        again = _checked(ws, verdict, ctx)  # under the lock, against the files as they are now
        got = apply_plan(sidecar, again, results=results, by=by, now=writer.now)
        edits.append(got[1])
        return got

    try:
        writer.apply(page, group, decide, by=by)
    except VerdictError as e:
        raise VerificationRefused(f"verdict refused: {e}", _HINT) from None
    edit = edits[-1] if edits else None
    others = [c.id for c in group[1:]]
    return {
        "applied": True,
        "claim_id": claim.id,
        "page": page,
        "verdict": plan.verdict,
        "statement": None if plan.verdict == "retract" else plan.statement,
        **({"decided_with_it": others, "folded": plan.verdict == "revise"} if others else {}),
        **({"paragraph": edit.said, "look_at": list(edit.warnings)} if edit is not None and edit.said else {}),
        "verified_by": by,
        "written": writer.written,
        "notes": list(plan.notes),
        "next": "Written to the working tree only: the developer's commit (and its hook) takes it from here.",
    }


_HINT = "nothing was written; quote the current lines shown by claims_for_change exactly, or retract"


def _checked(ws: Workspace, verdict: dict[str, Any], ctx: ClaimContext) -> Any:
    try:
        return check_verdict(verdict, ctx, ws.reader(), wiki_dir=ws.config.wiki_dir, schema_problems=schema_problems)
    except VerdictError as e:
        raise VerificationRefused(f"verdict refused: {e}", _HINT) from None


def _allowed(ws: Workspace, page: str, by: str) -> None:
    rule = policy.forbidding(ws.config.verify_policy, page, by)
    if rule is not None:
        message, hint = policy.refusal(rule, page, by)
        raise VerificationRefused(message, "nothing was written; " + hint.replace("e.g. --by", "e.g."))


# -- add_claim -----------------------------------------------------------------------------------
def add_claim(ws: Workspace, page: str, statement: str, cited_ranges: Any, *, agent: str | None) -> dict[str, Any]:
    """A new claim on `page` whose quotes must equal the cited lines (the verdict validator, as a
    revise citing those lines); an existing claim of the page with the same statement citing
    overlapping lines is returned instead of a duplicate."""
    by = agent_actor(agent)
    page = ws.wiki.normalize_page(str(page))
    if not isinstance(statement, str) or check_statement(statement) is not None:
        problem = check_statement(statement) if isinstance(statement, str) else "statement must be a string"
        raise VerificationRefused(f"claim refused: {problem}", "write one plain sentence")
    statement = " ".join(statement.split())
    if not isinstance(cited_ranges, list) or not cited_ranges:
        raise VerificationRefused("claim refused: cited_ranges must list the lines that support it, each with its quote", _HINT)
    resources = [str(c.get("resource", "")) if isinstance(c, dict) else "" for c in cited_ranges]
    existing = _same_claim(ws, page, statement, resources)
    if existing is not None:
        return {"added": False, "claim_id": existing.id, "label": citations.label(existing.id), "page": page,
                "statement": existing.statement, "note": "an existing claim of this page already states it over these lines"}
    _allowed(ws, page, by)
    _check_new(ws, page, statement, resources, cited_ranges)
    if not ws.wiki.page_path(page).is_file():
        raise VerificationRefused(f"{ws.wiki.repo_path(page)}: no such page", "add claims to a page that exists")
    resolved = editing.resolve_new_evidence(ws, resources, "worktree")
    claim, placed = editing.add_claim(ws.wiki, page, statement, resolved, by, now_iso())
    return {"added": True, "claim_id": claim.id, "label": citations.label(claim.id), "page": page,
            "statement": claim.statement, "evidence": [e.resource for e in claim.evidence], "marker_placed": placed,
            "verified_by": by}


def _check_new(ws: Workspace, page: str, statement: str, resources: list[str], cited: list[Any]) -> None:
    """The quotes checked by the one validator's quote check, against exactly the lines cited."""
    from openwiki_git.claims import part

    shown: dict[str, list[tuple[int, int]]] = {}
    for i, raw in enumerate(resources):
        path = part.path_of(raw)
        res = _range(raw)
        if path is None or res is None:
            raise VerificationRefused(f"claim refused: cited_ranges[{i}]: cite line ranges (repo://path#L<start>-L<end>)", _HINT)
        shown.setdefault(path, []).append(res)
    try:
        check_cited([c if isinstance(c, dict) else {} for c in cited], shown, ws.reader(), wiki_dir=ws.config.wiki_dir)
    except VerdictError as e:
        raise VerificationRefused(f"claim refused: {e}", _HINT) from None


def _range(raw: str) -> tuple[int, int] | None:
    from openwiki_git.evidence.resource import ResourceError, parse_resource

    try:
        res = parse_resource(raw, wiki_dir="\0")
    except ResourceError:
        return None
    return (res.start, res.end) if res.is_range and res.start is not None and res.end is not None else None


def _same_claim(ws: Workspace, page: str, statement: str, resources: Iterable[str]) -> Claim | None:
    from openwiki_git.verdicts.drift import parse_or_none

    sidecar = ws.wiki.load(page)
    if sidecar is None:
        return None
    wanted = [r for r in (parse_or_none(x) for x in resources) if r is not None]
    for c in sidecar.claims:
        if " ".join(c.statement.split()) != statement:
            continue
        for e in c.evidence:
            have = parse_or_none(e.resource)
            if have is not None and any(_overlap(have, w) for w in wanted):
                return c
    return None


def _overlap(a: Any, b: Any) -> bool:
    if a.path != b.path:
        return False
    if not a.is_range or not b.is_range:
        return True
    return bool(a.start <= b.end and b.start <= a.end)
