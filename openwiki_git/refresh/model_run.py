"""The model calls of one refresh run: up to `max_concurrency` claims in flight, each call bounded
by `timeout`, the run by `deadline`, the tokens by `max_total_tokens`; a rejected answer is asked
again once; every answer is checked and applied on the main thread, one decision at a time.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from openwiki_git import redact
from openwiki_git.errors import OpenwikiError
from openwiki_git.model import ClaimResult, Sidecar
from openwiki_git.refresh.prompt import SYSTEM_PROMPT, retry_prompt
from openwiki_git.refresh.protocol import (
    CALL_DUE,
    RefreshCallError,
    Refresher,
    ReviewRequest,
    Usage,
    VerdictResponse,
    model_schema,
    schema_problems,
)
from openwiki_git.refresh.results import Decision, RefreshResult
from openwiki_git.refresh.settings import Settings
from openwiki_git.refresh.targets import Target
from openwiki_git.store.workspace import Workspace
from openwiki_git.verdicts.context import ClaimContext, build_context
from openwiki_git.verdicts.edits import Plan, VerdictError, apply_plan
from openwiki_git.verdicts.validator import check_verdict
from openwiki_git.verdicts.writer import Writer

PLANNED_OUTPUT_TOKENS = 200  # a verdict's typical size, for --plan's estimate


@dataclass(eq=False)  # compared by identity: an abandoned call that answers late is ignored
class Call:
    """One request in flight: its sentence's targets (the one asked about first), attempt,
    messages and when it must have answered."""

    group: list[Target]
    ctx: ClaimContext
    messages: tuple[str, ...]
    attempt: int
    due_at: float
    reserved: int
    answer: Any = None  # set by the worker: a VerdictResponse or an exception

    @property
    def target(self) -> Target:
        return self.group[0]


class ModelRun:
    """The model calls of one run: up to `max_concurrency` claims in flight, each call bounded by
    `timeout` (a total deadline, however slowly the endpoint trickles), the run by `deadline`,
    the tokens by `max_total_tokens`, across all of them. Workers only call the model; checking
    and applying happen here, on the main thread, one decision at a time."""

    def __init__(
        self,
        ws: Workspace,
        refresher: Refresher | None,
        writer: Writer,
        settings: Settings,
        stamp: str,
        result: RefreshResult,
        decisions: dict[str, Decision],
        started: float,
        report: Callable[[Target], None],
        decision_of: Callable[[Target], Decision],
    ) -> None:
        self.ws = ws
        self.refresher = refresher
        self.writer = writer
        self.settings = settings
        self.stamp = stamp
        self.result = result
        self.decisions = decisions
        self.report = report
        self.decision_of = decision_of  # a companion's decision (another claim of the sentence), made when decided
        self.run_due = None if settings.deadline is None else started + float(settings.deadline)
        self.spent = 0
        self.sent = 0
        self.done: queue.Queue[Call] = queue.Queue()

    # -- limits ---------------------------------------------------------------------------------
    def _why_not(self, reserved: int, estimate: int) -> str | None:
        s = self.settings
        if self.result.stopped is not None:
            return f"not sent: {self.result.stopped}"
        if s.max_claims is not None and self.sent >= s.max_claims:
            return f"not sent: --max-claims {s.max_claims} reached"
        if s.max_total_tokens is not None and self.spent + reserved >= s.max_total_tokens:
            return f"not sent: the token budget ({s.max_total_tokens}) is spent"
        if self.run_due is not None and time.monotonic() >= self.run_due:
            return f"not sent: the run's deadline ({s.deadline:g}s) was reached"
        return None

    def _context(self, group: Sequence[Target]) -> ClaimContext:
        t = group[0]
        return build_context(
            t.page, [(g.result, g.sources) for g in group], self.ws.page_text(t.page), system=SYSTEM_PROMPT,
            budget=self.settings.context_tokens, wiki_path=self.ws.wiki.repo_path(t.page), site=self.ws.wiki.site is not None,
        )

    # -- the plan ---------------------------------------------------------------------------------
    def plan(self, groups: Sequence[list[Target]]) -> None:
        """What a run would send, one request per sentence, with estimated tokens and cost; no
        model is called."""
        reserved = 0
        for group in groups:
            t = group[0]
            d = self.decisions[t.claim.id]
            ctx = self._context(group)
            estimate_in, estimate_out = ctx.tokens, min(PLANNED_OUTPUT_TOKENS, self.settings.max_tokens)
            why = self._why_not(reserved, estimate_in + estimate_out)
            d.planned = {
                "send": why is None,
                "tokens_in": estimate_in,
                "tokens_out": estimate_out,
                "cost": self.settings.cost(estimate_in, estimate_out),
                "files": sorted(ctx.paths),
                "truncated": ctx.truncated,
                "claims": list(ctx.ids),
                **({"left_out": list(ctx.left_out)} if ctx.left_out else {}),
            }
            if why is None:
                self.sent += 1
                reserved += estimate_in + estimate_out
                d.skipped = "planned: would be sent to the model (dry run, no call made)"
            else:
                d.skipped = why
            self.report(t)

    # -- the real run -----------------------------------------------------------------------------
    def _submit(self, call: Call) -> None:
        refresher = self.refresher
        assert refresher is not None
        request = ReviewRequest(call.target.claim.id, call.ctx.system, call.messages, model_schema(), call.attempt)

        def work() -> None:
            CALL_DUE.set(call.due_at)  # the client ends the request then: an abandoned call does not live on
            try:
                call.answer = refresher.review(request)
            except BaseException as e:  # noqa: BLE001 - delivered to the main thread, which decides
                call.answer = e
            self.done.put(call)

        threading.Thread(target=work, name=f"owg-refresh-{call.target.claim.id[:12]}", daemon=True).start()

    def send(self, groups: Sequence[list[Target]]) -> None:
        """Ask the model about each sentence (`groups`: its targets, the one asked about first)."""
        pending = deque(groups)
        inflight: list[Call] = []
        width = 1 if getattr(self.refresher, "sequential", False) else self.settings.max_concurrency
        timeout = float(self.settings.timeout)
        prepare = getattr(self.refresher, "prepare", None)
        if pending and prepare is not None:
            prepare()  # the client's imports are not the first call's time
        while pending or inflight:
            while pending and len(inflight) < width:
                reserved = sum(c.reserved for c in inflight)
                group = pending[0]
                t = group[0]
                why = self._why_not(reserved, 0)
                if why is not None:
                    if inflight:
                        break  # the calls in flight may still free budget or stop the run
                    pending.popleft()
                    self.decisions[t.claim.id].skipped = why
                    self.report(t)
                    continue
                pending.popleft()
                ctx = self._context(group)
                call = Call(group, ctx, (ctx.user,), 1, self._call_due(timeout), ctx.tokens + PLANNED_OUTPUT_TOKENS)
                self.sent += 1
                self.decisions[t.claim.id].attempts = 1
                inflight.append(call)
                self._submit(call)
            if not inflight:
                continue
            wait = max(0.0, min(c.due_at for c in inflight) - time.monotonic())
            try:
                finished: Call | None = self.done.get(timeout=wait)
            except queue.Empty:
                finished = None
            if finished is not None and finished in inflight:
                inflight.remove(finished)
                again = self._answered(finished)
                if again is not None:
                    inflight.append(again)
                    self._submit(again)
            now = time.monotonic()
            for call in [c for c in inflight if c.due_at <= now]:
                inflight.remove(call)  # abandoned: the worker may still answer; nobody listens
                d = self.decisions[call.target.claim.id]
                if self.run_due is not None and now >= self.run_due:
                    d.error = f"model error: no answer before the run's deadline ({self.settings.deadline:g}s)"
                else:
                    d.error = f"model error: no answer within {timeout:g}s (the deadline of one call)"
                self.report(call.target)

    def _call_due(self, timeout: float) -> float:
        due = time.monotonic() + timeout
        return due if self.run_due is None else min(due, self.run_due)

    def _answered(self, call: Call) -> Call | None:
        """Handle one finished call; return the retry to send, if any."""
        answer = call.answer
        if isinstance(answer, BaseException) and not isinstance(answer, (RefreshCallError, Exception)):
            raise answer  # KeyboardInterrupt, SystemExit
        if isinstance(answer, Exception) and not isinstance(answer, RefreshCallError):
            # Whatever the client raised (a 200 without choices, an HTML page): this claim fails.
            answer = RefreshCallError(f"the endpoint's answer is not a chat completion ({type(answer).__name__})")
        if isinstance(answer, RefreshCallError):
            self._failed(call.target, answer)
            return None
        response: VerdictResponse = answer
        d = self.decisions[call.target.claim.id]
        self._count(d, response.usage)
        d.method = response.method
        reader = self.ws.reader()
        try:
            if response.error is not None or response.data is None:
                raise VerdictError(response.error or "the answer is empty")
            plan = check_verdict(response.data, call.ctx, reader, wiki_dir=self.ws.config.wiki_dir, schema_problems=schema_problems)
        except VerdictError as e:
            return self._rejected(call, response, str(e))
        d.first_accepted = call.attempt == 1
        self._decided(call.group, call.ctx, response.data, plan)
        return None

    def _count(self, d: Decision, usage: Usage) -> None:
        """A call's tokens, on the claim's decision and the run's budget."""
        d.tokens_in += usage.input_tokens
        d.tokens_out += usage.output_tokens
        self.spent += usage.input_tokens + usage.output_tokens
        d.cost = self.settings.cost(d.tokens_in, d.tokens_out)

    def _failed(self, t: Target, answer: RefreshCallError) -> None:
        """The model could not be asked: the claim stays stale; a fatal error stops the run."""
        d = self.decisions[t.claim.id]
        self._count(d, answer.usage)
        d.error = redact.redact(f"model error: {answer}")
        if answer.fatal:
            self.result.stopped = redact.redact(str(answer))
            if answer.unusable:
                self.result.unusable = self.result.stopped
        self.report(t)

    def _rejected(self, call: Call, response: VerdictResponse, error: str) -> Call | None:
        """An answer that failed a check: asked again once (while the run may go on), else the claim stays stale."""
        t, ctx = call.target, call.ctx
        d = self.decisions[t.claim.id]
        if call.attempt == 1 and self.result.stopped is None and (
            self.run_due is None or time.monotonic() < self.run_due
        ):
            d.attempts = 2
            messages = (ctx.user, retry_prompt(ctx, response.raw or "", error))
            return Call(call.group, ctx, messages, 2, self._call_due(float(self.settings.timeout)), call.reserved)
        d.error = redact.redact(f"answer rejected {'twice' if call.attempt == 2 else 'once'}: {error}")
        self.report(t)
        return None

    def _decided(self, group: list[Target], ctx: ClaimContext, data: Any, plan: Plan) -> None:
        """A checked answer, checked again under the lock and applied to the sentence's claims."""
        t = group[0]
        d = self.decisions[t.claim.id]
        d.rationale = redact.redact(plan.rationale)
        d.quotes = [{"resource": r, "quote": redact.redact(q)} for r, q in plan.quotes]
        d.notes = [redact.redact(n) for n in plan.notes]
        by = f"model:{self.settings.model}"
        wiki_dir = self.ws.config.wiki_dir
        applied: list[Any] = []

        def decide(sidecar: Sidecar, text: str | None, results: dict[str, ClaimResult]) -> tuple[Sidecar, Any]:
            # Checked again under the lock, against the files as they are now.
            again = check_verdict(data, ctx, self.ws.reader(), wiki_dir=wiki_dir, schema_problems=schema_problems)
            got = apply_plan(sidecar, again, results=results, by=by, now=self.stamp)
            applied.append(got[1])
            return got

        try:
            self.writer.apply(t.page, [g.claim for g in group], decide, by=by)
        except (VerdictError, OpenwikiError) as e:
            d.error = redact.redact(str(e))
            self.report(t)
            return
        edit = applied[-1] if applied else None
        if edit is not None and edit.said:
            d.notes.append(redact.redact(f"paragraph: {edit.said}"))
            d.notes += [redact.redact(f"look at: {w}") for w in edit.warnings]
        for n, g in enumerate(group):
            one = d if n == 0 else self.decisions.get(g.claim.id) or self._companion(g)
            _record(one, plan, d.evidence_before if n == 0 else one.evidence_before, t.claim.id if n else None)
            self.report(g)

    def _companion(self, g: Target) -> Decision:
        one = self.decisions[g.claim.id] = self.decision_of(g)
        self.result.decisions.append(one)
        return one


def _record(d: Decision, plan: Plan, before: list[str], with_claim: str | None) -> None:
    """A decision applied to one claim of the sentence (`with_claim`: decided with that claim's
    request; a revise folded it into that claim)."""
    d.verdict = plan.verdict
    d.applied = True
    if with_claim is not None:
        d.decided_with = with_claim
    if plan.verdict == "retract" or (plan.verdict == "revise" and with_claim is not None):
        d.new_statement = plan.statement if plan.verdict == "revise" else None
        d.evidence_after = []
        if plan.verdict == "revise":
            d.notes.append(f"folded into {with_claim}: one claim for the sentence")
        return
    d.new_statement = plan.statement
    d.evidence_after = [e.resource for e in plan.evidence] if plan.evidence else list(before)
