"""The refresher's run: a chat model confirms, revises or retracts each stale claim, and only
decisions that pass every check are applied, one claim at a time.

`run_refresh(ws, options, refresher=None) -> RefreshResult` is the whole run (also used by the
GitHub Action): the claims selected (`targets`), trivial drift confirmed without a model, the
model's calls (`model_run`), each decision saved as soon as it is made (`writer`), usage and cost
(`results`). The model is `client.model_client`'s unless a `Refresher` is given (tests script one
with `tests/support/scripted_refresher.py`; the path is the same otherwise).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from openwiki_git import PRODUCER, redact
from openwiki_git.claims import policy
from openwiki_git.errors import OpenwikiError
from openwiki_git.model import ClaimResult, Sidecar
from openwiki_git.refresh import client
from openwiki_git.refresh.model_run import ModelRun
from openwiki_git.refresh.protocol import Refresher
from openwiki_git.refresh.results import Decision, RefreshResult
from openwiki_git.refresh.settings import RefreshOptions, Settings
from openwiki_git.refresh.targets import Target, requests, targets
from openwiki_git.store import editing
from openwiki_git.store.workspace import Workspace, now_iso
from openwiki_git.verdicts.edits import Plan, VerdictError, apply_plan
from openwiki_git.verdicts.writer import Writer


def run_refresh(ws: Workspace, options: RefreshOptions, refresher: Refresher | None = None) -> RefreshResult:
    """Refresh the stale (and, with `due`, the due) claims; see the module docstring.

    Raises RefreshError (exit 2) before anything is written when claims need a model and no key is
    set or langchain-openai is missing. Each decided claim is saved as soon as it is decided. A dry
    run (`--plan`) calls no model: it lists what would be sent, with estimated tokens and cost.
    """
    settings = Settings.resolve(ws.config.refresh, options)
    progress = options.progress or (lambda _message: None)
    started = time.monotonic()
    stamp = now_iso()
    chosen = targets(ws, options, settings.trivial_drift)
    preflight = getattr(editing, "preflight", None)
    if preflight is not None and not options.dry_run:
        preflight(ws.wiki, sorted({t.page for t in chosen}))  # a malformed front matter: exit 2, nothing written
    writer = Writer(ws, options.dry_run, stamp)
    decisions = {t.claim.id: _decision(t) for t in chosen}
    result = RefreshResult(dry_run=options.dry_run, shard=options.shard)
    result.decisions = [decisions[t.claim.id] for t in chosen]
    report = _reporter(ws, decisions, len(chosen), progress)

    needs_model: list[Target] = []
    nothing_citable: list[Target] = []
    for t in _permitted(ws, chosen, f"model:{settings.model}", decisions, report):
        if t.trivial is None:
            citable = any(s.text is not None and s.path is not None for s in t.sources)
            (needs_model if citable else nothing_citable).append(t)
    result.model = settings.model if needs_model else None
    limit = settings.max_claims
    to_send = needs_model if limit is None else needs_model[:limit]
    if to_send and refresher is None and not options.dry_run:
        refresher = client.model_client(settings, len(to_send))  # no key: exit 2 before anything is written

    for t in chosen:
        if t.trivial is None:
            continue
        plan = Plan(t.claim.id, "confirm", t.claim.statement, None, (), t.trivial)
        _apply(writer, t, decisions[t.claim.id], plan, stamp, by=PRODUCER)
        report(t)
    for t in nothing_citable:
        decisions[t.claim.id].skipped = (
            "not sent: none of its cited files exists any more, so the model could cite nothing; "
            "fix its evidence or retract it (openwiki-git claim retract)"
        )
        report(t)
    run = ModelRun(ws, refresher, writer, settings, stamp, result, decisions, started, report, _decision)
    _ask(run, requests(ws, needs_model), dry_run=options.dry_run)

    result.written = writer.written
    if options.dry_run:
        result.diff = writer.diff()
    if isinstance(refresher, client.LangChainRefresher):
        result.fallbacks = list(refresher.fallbacks)
    return result


def _ask(run: ModelRun, groups: list[list[Target]], *, dry_run: bool) -> None:
    """Plan or send the sentences' requests, then close the model client's connections, whatever happened."""
    try:
        if dry_run:
            run.plan(groups)
        else:
            run.send(groups)
    finally:
        if isinstance(run.refresher, client.LangChainRefresher):
            run.refresher.close()


def _permitted(
    ws: Workspace, chosen: list[Target], by: str, decisions: dict[str, Decision], report: Callable[[Target], None]
) -> list[Target]:
    """The claims the model may verify: one on a page where the config's verify_policy forbids
    `by` is not sent (no tokens spent on a verdict that could not be applied), and says why."""
    allowed = []
    for t in chosen:
        rule = policy.forbidding(ws.config.verify_policy, t.page, by) if t.trivial is None else None
        if rule is None:
            allowed.append(t)
            continue
        decisions[t.claim.id].skipped = f"not sent: {policy.refusal(rule, t.page, by)[0]}"
        report(t)
    return allowed


def _reporter(
    ws: Workspace, decisions: dict[str, Decision], total: int, progress: Callable[[str], None]
) -> Callable[[Target], None]:
    """One progress line per claim decided (or left as it was), numbered."""
    done = 0

    def report(t: Target) -> None:
        nonlocal done
        done += 1
        progress(redact.redact(f"[{done}/{total}] {ws.wiki.repo_path(t.page)}: {t.claim.id}: {_said(decisions[t.claim.id])}"))

    return report


def _said(d: Decision) -> str:
    if d.verdict is not None:
        return {"confirm": "confirmed", "revise": "revised", "retract": "retracted"}[d.verdict] + (
            f" ({d.trivial})" if d.trivial else ""
        )
    return f"left {d.status}: {d.error or d.skipped}"


def _decision(t: Target) -> Decision:
    return Decision(
        claim_id=t.claim.id,
        page=t.page,
        verdict=None,
        old_statement=t.claim.statement,
        status=t.result.status,
        due=t.result.due,
        evidence_before=[e.resource for e in t.claim.evidence],
    )



def _apply(writer: Writer, t: Target, d: Decision, plan: Plan, stamp: str, *, by: str) -> None:
    def decide(sidecar: Sidecar, text: str | None, results: dict[str, ClaimResult]) -> tuple[Sidecar, Any]:
        return apply_plan(sidecar, plan, results=results, by=by, now=stamp)

    try:
        writer.apply(t.page, t.claim, decide, by=by)
    except (VerdictError, OpenwikiError) as e:
        d.error = str(e)
        return
    d.verdict = plan.verdict
    d.applied = True
    d.rationale = plan.rationale or d.rationale
    if plan.verdict == "confirm":
        d.trivial = t.trivial
        d.new_statement = t.claim.statement
        d.evidence_after = list(d.evidence_before)
    elif plan.verdict == "revise":
        d.new_statement = plan.statement
        d.evidence_after = [e.resource for e in plan.evidence or ()]

