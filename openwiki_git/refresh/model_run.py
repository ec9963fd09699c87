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
from openwiki_git.refresh.edits import Plan, VerdictError, apply_plan
from openwiki_git.refresh.prompt import ClaimContext, build_context, retry_prompt
from openwiki_git.refresh.protocol import (
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
from openwiki_git.refresh.verdicts import check_verdict
from openwiki_git.refresh.writer import Writer
from openwiki_git.store.workspace import Workspace

PLANNED_OUTPUT_TOKENS = 200  # a verdict's typical size, for --plan's estimate


@dataclass(eq=False)  # compared by identity: an abandoned call that answers late is ignored
class Call:
    """One request in flight: its target, attempt, messages and when it must have answered."""

    target: Target
    ctx: ClaimContext
    messages: tuple[str, ...]
    attempt: int
    due_at: float
    reserved: int
    answer: Any = None  # set by the worker: a VerdictResponse or an exception


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
    ) -> None:
        self.ws = ws
        self.refresher = refresher
        self.writer = writer
        self.settings = settings
        self.stamp = stamp
        self.result = result
        self.decisions = decisions
        self.report = report
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

    def _context(self, t: Target) -> ClaimContext:
        return build_context(
            t.page, t.result, t.sources, self.ws.page_text(t.page), budget=self.settings.context_tokens,
            wiki_path=self.ws.wiki.repo_path(t.page),
        )

    # -- the plan ---------------------------------------------------------------------------------
    def plan(self, targets: Sequence[Target]) -> None:
        """What a run would send, with estimated tokens and cost; no model is called."""
        reserved = 0
        for t in targets:
            d = self.decisions[t.claim.id]
            ctx = self._context(t)
            estimate_in, estimate_out = ctx.tokens, min(PLANNED_OUTPUT_TOKENS, self.settings.max_tokens)
            why = self._why_not(reserved, estimate_in + estimate_out)
            d.planned = {
                "send": why is None,
                "tokens_in": estimate_in,
                "tokens_out": estimate_out,
                "cost": self.settings.cost(estimate_in, estimate_out),
                "files": sorted(ctx.paths),
                "truncated": ctx.truncated,
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
            try:
                call.answer = refresher.review(request)
            except BaseException as e:  # noqa: BLE001 - delivered to the main thread, which decides
                call.answer = e
            self.done.put(call)

        threading.Thread(target=work, name=f"owg-refresh-{call.target.claim.id[:12]}", daemon=True).start()

    def send(self, targets: Sequence[Target]) -> None:
        pending = deque(targets)
        inflight: list[Call] = []
        width = 1 if getattr(self.refresher, "sequential", False) else self.settings.max_concurrency
        timeout = float(self.settings.timeout)
        while pending or inflight:
            while pending and len(inflight) < width:
                reserved = sum(c.reserved for c in inflight)
                t = pending[0]
                why = self._why_not(reserved, 0)
                if why is not None:
                    if inflight:
                        break  # the calls in flight may still free budget or stop the run
                    pending.popleft()
                    self.decisions[t.claim.id].skipped = why
                    self.report(t)
                    continue
                pending.popleft()
                ctx = self._context(t)
                call = Call(t, ctx, (ctx.user,), 1, self._call_due(timeout), ctx.tokens + PLANNED_OUTPUT_TOKENS)
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
        self._decided(call.target, call.ctx, response.data, plan)
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
            return Call(t, ctx, messages, 2, self._call_due(float(self.settings.timeout)), call.reserved)
        d.error = redact.redact(f"answer rejected {'twice' if call.attempt == 2 else 'once'}: {error}")
        self.report(t)
        return None

    def _decided(self, t: Target, ctx: ClaimContext, data: Any, plan: Plan) -> None:
        """A checked answer, checked again under the lock and applied."""
        d = self.decisions[t.claim.id]
        d.rationale = redact.redact(plan.rationale)
        d.quotes = [{"resource": r, "quote": redact.redact(q)} for r, q in plan.quotes]
        d.notes = [redact.redact(n) for n in plan.notes]
        by = f"model:{self.settings.model}"
        wiki_dir = self.ws.config.wiki_dir

        def decide(sidecar: Sidecar, text: str | None, result_now: ClaimResult) -> tuple[Sidecar, Any]:
            # Checked again under the lock, against the files as they are now.
            again = check_verdict(data, ctx, self.ws.reader(), wiki_dir=wiki_dir, schema_problems=schema_problems)
            return apply_plan(sidecar, again, result=result_now, by=by, now=self.stamp)

        try:
            self.writer.apply(t.page, t.claim, decide, by=by)
        except (VerdictError, OpenwikiError) as e:
            d.error = redact.redact(str(e))
            self.report(t)
            return
        d.verdict = plan.verdict
        d.applied = True
        if plan.verdict == "retract":
            d.new_statement = None
        else:
            d.new_statement = plan.statement
            d.evidence_after = [e.resource for e in plan.evidence] if plan.evidence else list(d.evidence_before)
        self.report(t)
