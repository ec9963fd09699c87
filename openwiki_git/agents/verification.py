"""The agents' verification tools as data (no SDK types): `claims_for_change` (the claims a change
touches, each with everything needed to decide it), `verify_claim` (a verdict in the refresher's
own format, checked by the refresher's own validator, applied as the refresher applies one) and
`add_claim` (a new claim whose quotes must match).

One validator: a verdict is checked by `refresh/verdicts.check_verdict` against the same
`ClaimContext` the refresher builds for the model (`refresh/targets.target_of` +
`refresh/prompt.build_context`), so an agent may cite exactly what the refresher's model may.
One write path: an accepted verdict goes through the refresher's `Writer` and `apply_plan` (checked
again under the wiki lock against the files as they are then, the prose rewritten or the sentence
removed as a refresh would), recorded as `agent:NAME`. That path, not `services/claims.py`'s,
because a verdict's evidence comes from its checked quotes (a `Plan`), which `claim edit` cannot
take; both enforce `verify_policy`. The working tree only: nothing is staged or committed.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Iterable
from typing import Any

from openwiki_git.claims import check as checker
from openwiki_git.claims import policy
from openwiki_git.claims.report import cause_data
from openwiki_git.errors import OpenwikiError, UsageError
from openwiki_git.evidence.resource import REPO_PREFIX
from openwiki_git.git import diff as gitdiff
from openwiki_git.graph import inputs as graph_inputs
from openwiki_git.hook.engine import evaluate, staged_or_range
from openwiki_git.model import Claim, ClaimResult, EvidenceResult, Sidecar
from openwiki_git.pages import citations
from openwiki_git.refresh.drift import Source
from openwiki_git.refresh.edits import VerdictError, apply_plan
from openwiki_git.refresh.prompt import ClaimContext, build_context
from openwiki_git.refresh.protocol import schema_problems
from openwiki_git.refresh.targets import target_of
from openwiki_git.refresh.verdicts import check_statement, check_verdict
from openwiki_git.refresh.writer import Writer
from openwiki_git.store import editing
from openwiki_git.store.workspace import Workspace, now_iso

SCOPES = ("worktree", "staged", "branch")
MAX_CLAIMS = 50
MAX_CHARS = 60_000  # the whole answer's contexts, so one call never floods the agent's window
CONTEXT_TOKENS = 3000  # per claim, as the refresher's budget counts them


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
    unresolved, each with what deciding it takes (`item`), within `limit` claims and `max_chars`."""
    limit = max(1, min(int(limit), MAX_CLAIMS))
    diff = change_diff(ws, scope, base)
    evaluation = evaluate(ws, diff)
    touched = {o.before.id: o for o in evaluation.outcomes if o.affected and o.status != "fresh"}
    sidecars = (memo or SidecarMemo()).load_all(ws)
    resolver = ws.resolver()
    chosen: list[tuple[str, Claim, str]] = []
    for page in sorted(sidecars):
        for claim in sidecars[page].claims:
            if claim.id in touched:
                chosen.append((page, claim, "changed"))
            elif claim.mark is not None:
                chosen.append((page, claim, "marked"))
    items: list[dict[str, Any]] = []
    used = 0
    for page, claim, why in chosen:
        if len(items) >= limit or used >= max_chars:
            break
        found = item(ws, page, claim, resolver, why, touched.get(claim.id))
        used += len(found["context"])
        items.append(found)
    return {
        "scope": scope,
        "base": base,
        "claims": items,
        "total": len(chosen),
        "truncated": len(items) < len(chosen),
        "next": "Decide each claim: call verify_claim with confirm, revise or retract, quoting the current lines shown.",
    }


def item(ws: Workspace, page: str, claim: Claim, resolver: checker.EvidenceResolver, why: str, outcome: Any) -> dict[str, Any]:
    """One claim with everything an agent needs to decide it without another call."""
    ctx, sources = context(ws, page, claim, resolver)
    causes = [o.cause() for o in outcome.evidence if o.status != "fresh"] if outcome is not None else []
    if not causes and claim.mark is not None:
        causes = list(claim.mark.causes)
    rule = policy.forbidding(ws.config.verify_policy, page, agent_actor("x"))
    return {
        "claim_id": claim.id,
        "label": citations.label(claim.id),
        "page": page,
        "why": why,
        "status": ctx.result.status,
        "statement": claim.statement,
        "verified_by": claim.verified_by,
        "agents_may_verify": rule is None,
        **({"policy": rule.describe()} if rule is not None else {}),
        "cause": [cause_data(c) for c in causes],
        "evidence": [_evidence(src) for src in sources],
        "may_cite": [f"{REPO_PREFIX}{s.path}#L{a}-L{b}" for s in ctx.shown if s.path for a, b in s.spans],
        "context": ctx.user,
    }


def _evidence(src: Source) -> dict[str, Any]:
    """One evidence item: where its text is now, that text, and the diff from the text as verified."""
    r, now = src.result, src.current_content
    diff = None
    if src.old_text is not None and now is not None and src.old_text != now:
        lines = difflib.unified_diff(
            src.old_text.splitlines(keepends=True), now.splitlines(keepends=True), "verified", "now", n=2
        )
        diff = "".join(ln if ln.endswith("\n") else ln + "\n" for ln in lines)
    return {
        "resource": r.resource, "status": r.status, "current_resource": r.current_resource, "reason": r.reason,
        "current_text": _clip(now), "diff": _clip(diff),
    }


def _clip(text: str | None, limit: int = 6000) -> str | None:
    return text if text is None or len(text) <= limit else text[:limit] + "\n... (cut; see context)\n"


def context(
    ws: Workspace, page: str, claim: Claim, resolver: checker.EvidenceResolver | None = None
) -> tuple[ClaimContext, list[Source]]:
    """The ClaimContext the refresher builds for this claim (its check now, its sources: the
    current text and the text as last verified, from git, and what is shown of them), and the sources."""
    resolver = resolver or ws.resolver()
    text = ws.page_text(page)
    result = checker.check_claim(page, claim, resolver, page_text=text)
    target = target_of(ws, result, resolver)
    ctx = build_context(page, result, target.sources, text, budget=CONTEXT_TOKENS, wiki_path=ws.wiki.repo_path(page))
    return ctx, target.sources


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
    ctx, _ = context(ws, page, claim)
    plan = _checked(ws, verdict, ctx)
    writer = Writer(ws, dry_run=False, now=now_iso())

    def decide(sidecar: Any, text: str | None, result_now: ClaimResult) -> tuple[Any, Any]:
        again = _checked(ws, verdict, ctx)  # under the lock, against the files as they are now
        return apply_plan(sidecar, again, result=result_now, by=by, now=writer.now)

    try:
        writer.apply(page, claim, decide, by=by)
    except VerdictError as e:
        raise VerificationRefused(f"verdict refused: {e}", _HINT) from None
    return {
        "applied": True,
        "claim_id": claim.id,
        "page": page,
        "verdict": plan.verdict,
        "statement": None if plan.verdict == "retract" else plan.statement,
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
    """The quotes checked by check_verdict, as a revise of a claim that cites exactly these lines."""
    from openwiki_git.evidence.resource import ResourceError, parse_resource
    from openwiki_git.refresh.prompt import Shown

    shown = []
    results = []
    for i, raw in enumerate(resources):
        try:
            res = parse_resource(raw, wiki_dir=ws.config.wiki_dir, allow_nested_git=False)
        except ResourceError as e:
            raise VerificationRefused(f"claim refused: cited_ranges[{i}]: {e}", _HINT) from None
        if not res.is_range:
            raise VerificationRefused(f"claim refused: cited_ranges[{i}]: cite line ranges (repo://path#L<start>-L<end>)", _HINT)
        shown.append(Shown(i + 1, res.path, ((res.start, res.end),), False))  # type: ignore[arg-type]
        results.append(EvidenceResult(res.canonical, "fresh", res.canonical, "new", None))
    claim = Claim("claim_" + "0" * 32, statement, ())
    ctx = ClaimContext(page, claim, ClaimResult(page, claim, "fresh", tuple(results)), None, tuple(shown), "", "", "", 0, False)
    verdict = {"claim_id": claim.id, "verdict": "revise", "revised_statement": None, "cited_ranges": cited, "rationale": "new claim"}
    _checked(ws, verdict, ctx)


def _same_claim(ws: Workspace, page: str, statement: str, resources: Iterable[str]) -> Claim | None:
    from openwiki_git.refresh.drift import parse_or_none

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
