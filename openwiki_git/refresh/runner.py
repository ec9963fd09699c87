"""The refresher: a chat model confirms, revises or retracts each stale claim, and only decisions
that pass every check are applied, one claim at a time.

This is the only module that imports langchain_openai / langchain_core / openai, and only inside
functions, so `check` and the hook never pay for them.

- `run_refresh(ws, options, refresher=None) -> RefreshResult`: the whole run (also used by the
  GitHub Action). Selection, trivial drift, the model calls, checking, applying, usage and cost.
- `Refresher`: the narrow protocol a model implements: `review(request) -> VerdictResponse`.
- `LangChainRefresher`: ChatOpenAI (any OpenAI-compatible endpoint) with
  `with_structured_output(..., include_raw=True)`, falling back from `json_schema` to
  `function_calling` to `json_mode` when the endpoint answers HTTP 400.
- Tests script the model with `tests/scripted_refresher.py` (same path otherwise).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import hashlib
import importlib.util
import json
import os
import queue
import re
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any, Protocol

from openwiki_git import PRODUCER, redact
from openwiki_git.claims import check as checker
from openwiki_git.errors import OpenwikiError, RefreshError, UsageError
from openwiki_git.evidence.resource import Resource
from openwiki_git.formats import schema
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.model import Claim, ClaimResult, Sidecar, Verification
from openwiki_git.pages import citations
from openwiki_git.refresh import core as refresh_core
from openwiki_git.refresh import pricing
from openwiki_git.refresh.core import ClaimContext, Plan, Source, VerdictError
from openwiki_git.store import editing
from openwiki_git.store.wiki import page_version
from openwiki_git.store.workspace import Workspace, now_iso

METHODS = ("json_schema", "function_calling", "json_mode")
HISTORY_DEPTH = 50  # commits searched for the text as last verified when no blob id is recorded
DEFAULTS: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "base_url": None,
    "api_key_env": "OPENAI_API_KEY",
    "temperature": 0.0,
    "max_tokens": 1024,
    "timeout": 60.0,
    "max_retries": 2,
    "method": "json_schema",
    "trivial_drift": "whitespace",
    "context_tokens": refresh_core.DEFAULT_CONTEXT_TOKENS,
    "max_claims": None,
    "max_total_tokens": None,
    "prices": {},
    "max_concurrency": 4,
    "deadline": None,
}
# Variables that hold the runner's own credentials: never sent to a model endpoint as its key.
REFUSED_KEY_VARS = re.compile(r"^(GITHUB_TOKEN$|ACTIONS_|GH_|GITHUB_)")
PLANNED_OUTPUT_TOKENS = 200  # a verdict's typical size, for --plan's estimate


# ---------------------------------------------------------------------------------------------
# Options, settings, results
# ---------------------------------------------------------------------------------------------


@dataclass
class RefreshOptions:
    """What to refresh and how. None means: the config's `refresh:` value, else the default."""

    claims: Sequence[str] = ()
    pages: Sequence[str] = ()
    due: bool = False
    dry_run: bool = False
    max_claims: int | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    method: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float | None = None
    max_retries: int | None = None
    trivial_drift: str | bool | None = None
    context_tokens: int | None = None
    max_total_tokens: int | None = None
    max_concurrency: int | None = None
    deadline: float | None = None  # seconds for the whole run; then nothing new is sent
    shard: tuple[int, int] | None = None  # (i, n): only the pages of shard i of n (1-based)
    # False under `github ...`: the endpoint and the key variable come only from the command line
    # (the action's inputs), never from the repository's config, which a pull request can change.
    endpoint_from_config: bool = True
    progress: Callable[[str], None] | None = None  # one line per claim (the CLI prints to stderr)


@dataclass(frozen=True)
class Settings:
    model: str
    base_url: str | None
    api_key_env: str
    temperature: float
    max_tokens: int
    timeout: float
    max_retries: int
    method: str
    trivial_drift: str
    context_tokens: int
    max_claims: int | None
    max_total_tokens: int | None
    prices: dict[str, dict[str, float]]
    max_concurrency: int
    deadline: float | None

    @classmethod
    def resolve(cls, config: dict[str, Any], options: RefreshOptions) -> Settings:
        trusted = {k: v for k, v in config.items() if k in DEFAULTS}
        if not options.endpoint_from_config:
            trusted.pop("base_url", None)
            trusted.pop("api_key_env", None)
        values = {**DEFAULTS, **trusted}
        for key in DEFAULTS:
            given = getattr(options, key, None)
            if given is not None:
                values[key] = given
        drift = values["trivial_drift"]
        values["trivial_drift"] = {True: "whitespace", False: "off"}.get(drift, drift) if isinstance(drift, bool) else drift
        if values["method"] not in METHODS:
            raise UsageError(f"refresh method {values['method']!r} is unknown", f"use one of {', '.join(METHODS)}")
        if values["trivial_drift"] not in refresh_core.TRIVIAL_MODES:
            raise UsageError(
                f"trivial_drift {values['trivial_drift']!r} is unknown", f"use one of {', '.join(refresh_core.TRIVIAL_MODES)}"
            )
        if values["max_claims"] is not None and values["max_claims"] < 0:
            raise UsageError("--max-claims must be 0 or more")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(values["api_key_env"])):
            raise UsageError(f"api_key_env {values['api_key_env']!r} is not an environment variable name")
        if REFUSED_KEY_VARS.match(str(values["api_key_env"]).upper()):
            raise UsageError(
                f"api_key_env {values['api_key_env']!r}: the runner's GitHub and Actions credentials are never "
                "sent to a model endpoint",
                "put the model key in its own secret and variable, e.g. OPENAI_API_KEY",
            )
        if not isinstance(values["max_concurrency"], int) or values["max_concurrency"] < 1:
            raise UsageError(f"max_concurrency {values['max_concurrency']!r} must be a whole number of 1 or more")
        if values["deadline"] is not None and float(values["deadline"]) <= 0:
            raise UsageError("--deadline must be more than 0 seconds")
        if values["timeout"] is not None and float(values["timeout"]) <= 0:
            raise UsageError("--timeout must be more than 0 seconds")
        values["prices"] = pricing.price_table(values["prices"] if isinstance(values["prices"], dict) else {})
        return cls(**values)

    def cost(self, tokens_in: int, tokens_out: int) -> float | None:
        """USD from the price table (per million tokens), None when the model has no price."""
        return pricing.cost(self.prices, self.model, tokens_in, tokens_out)


@dataclass
class Decision:
    """What happened to one claim. `verdict` is None when the claim stays as it was."""

    claim_id: str
    page: str
    verdict: str | None
    old_statement: str
    new_statement: str | None = None  # the statement after the decision (None: retracted or undecided)
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = 0.0
    error: str | None = None  # why the claim stays stale (rejected answer, model error, changed meanwhile)
    skipped: str | None = None  # why the claim was not sent (max-claims, budget, run stopped)
    trivial: str | None = None  # confirmed without a model: why
    rationale: str | None = None
    status: str = "stale"  # the check's status before the decision
    due: bool = False
    evidence_before: list[str] = field(default_factory=list)
    evidence_after: list[str] = field(default_factory=list)
    attempts: int = 0
    method: str | None = None
    applied: bool = False  # written (or, in a dry run, would be)
    quotes: list[dict[str, str]] = field(default_factory=list)  # the model's cited lines: resource, quote
    notes: list[str] = field(default_factory=list)  # what a reviewer should look at (e.g. quotes of comments)
    planned: dict[str, Any] | None = None  # dry run: would it be sent, estimated tokens and cost

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim_id": self.claim_id,
            "page": self.page,
            "verdict": self.verdict,
            "old_statement": self.old_statement,
            "new_statement": self.new_statement,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": self.cost,
            "error": self.error,
            "skipped": self.skipped,
            "trivial": self.trivial,
            "rationale": self.rationale,
            "status": self.status,
            "due": self.due,
            "evidence_before": list(self.evidence_before),
            "evidence_after": list(self.evidence_after),
            "attempts": self.attempts,
            "method": self.method,
            "applied": self.applied,
            "quotes": [dict(q) for q in self.quotes],
            "notes": list(self.notes),
            **({"planned": dict(self.planned)} if self.planned is not None else {}),
        }


@dataclass
class RefreshResult:
    decisions: list[Decision] = field(default_factory=list)
    model: str | None = None
    dry_run: bool = False
    written: list[str] = field(default_factory=list)  # repo paths written (all under the wiki dir)
    diff: str = ""  # dry run: what would change, as a unified diff
    stopped: str | None = None  # why the run stopped early (the rest stays stale)
    fallbacks: list[str] = field(default_factory=list)  # structured-output methods given up, and why
    unusable: str | None = None  # the model cannot be used at all (401, 404, unreachable): why
    shard: tuple[int, int] | None = None

    @property
    def totals(self) -> dict[str, Any]:
        ds = self.decisions
        costs = [d.cost for d in ds]
        return {
            "claims": len(ds),
            "confirmed": sum(d.verdict == "confirm" for d in ds),
            "revised": sum(d.verdict == "revise" for d in ds),
            "retracted": sum(d.verdict == "retract" for d in ds),
            "trivial": sum(d.trivial is not None for d in ds),
            "failed": sum(d.error is not None for d in ds),
            "skipped": sum(d.skipped is not None for d in ds),
            "model_calls": sum(d.attempts for d in ds),
            "tokens_in": sum(d.tokens_in for d in ds),
            "tokens_out": sum(d.tokens_out for d in ds),
            "cost": None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6),
        }

    @property
    def plan_totals(self) -> dict[str, Any]:
        """A dry run's estimate: the claims that would be sent, their tokens and cost."""
        planned = [d.planned for d in self.decisions if d.planned is not None and d.planned["send"]]
        costs = [p["cost"] for p in planned]
        return {
            "claims_to_send": len(planned),
            "tokens_in": sum(p["tokens_in"] for p in planned),
            "tokens_out": sum(p["tokens_out"] for p in planned),
            "cost": None if any(c is None for c in costs) else round(sum(costs), 6),
        }

    @property
    def ok(self) -> bool:
        """Every selected claim was decided."""
        return all(d.verdict is not None for d in self.decisions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": PRODUCER,
            "model": self.model,
            "dry_run": self.dry_run,
            "decisions": [d.to_dict() for d in self.decisions],
            "totals": self.totals,
            "written": list(self.written),
            "stopped": self.stopped,
            "fallbacks": list(self.fallbacks),
            "unusable": self.unusable,
            "shard": list(self.shard) if self.shard else None,
            **({"diff": self.diff, "plan": self.plan_totals} if self.dry_run else {}),
        }


# ---------------------------------------------------------------------------------------------
# The model protocol
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewRequest:
    claim_id: str
    system: str
    messages: tuple[str, ...]  # user turns: the context, then (on a retry) the rejection
    schema: dict[str, Any]
    attempt: int = 1


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class VerdictResponse:
    data: Any = None  # the parsed JSON value; None when nothing could be parsed
    raw: str | None = None  # the answer as text, for the report and the retry
    error: str | None = None  # why nothing could be parsed
    usage: Usage = Usage()
    method: str | None = None


class RefreshCallError(Exception):
    """The model could not be asked. `fatal`: no point asking for the next claim either."""

    def __init__(self, message: str, *, fatal: bool = False, usage: Usage | None = None, unusable: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal or unusable
        self.unusable = unusable  # the key, the model or the endpoint is wrong: no run can succeed
        self.usage = usage or Usage()


class Refresher(Protocol):
    def review(self, request: ReviewRequest) -> VerdictResponse: ...


@cache
def verdict_schema() -> dict[str, Any]:
    text = resources.files("openwiki_git").joinpath("schemas", "verdict.schema.json").read_text("utf-8")
    return json.loads(text)


def model_schema() -> dict[str, Any]:
    """The schema as sent to the model (no `$schema`/`$id`, which some endpoints refuse)."""
    return {k: v for k, v in verdict_schema().items() if not k.startswith("$")}


def schema_problems(data: Any) -> list[str]:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(verdict_schema())
    out = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        where = schema.json_path(error.absolute_path)
        message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
        out.append(f"{where}: {message}")
    return out


def parse_json_answer(text: str) -> Any:
    """The JSON value in a model's text: plain, fenced (```json), or the outermost {...}."""
    stripped = text.strip()
    fence = re.match(r"^```[A-Za-z]*\s*\n(.*?)\n?```\s*$", stripped, re.S)
    if fence:
        stripped = fence.group(1).strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    lo, hi = stripped.find("{"), stripped.rfind("}")
    if 0 <= lo < hi:
        return json.loads(stripped[lo : hi + 1])
    raise ValueError("no JSON object in the answer")


class LangChainRefresher:
    """ChatOpenAI through `with_structured_output(schema, method=..., include_raw=True)`.

    The client is built on the first review, never at import or construction. When the endpoint
    answers HTTP 400 to `json_schema`, the method falls back to `function_calling`, then to
    `json_mode` (the schema then goes into the prompt), and stays there for the next claims.
    """

    def __init__(self, settings: Settings, api_key: str) -> None:
        self.settings = settings
        self.method = settings.method
        self.fallbacks: list[str] = []
        self._api_key = api_key
        self._llm: Any = None
        self._runnables: dict[str, Any] = {}
        self._lock = threading.RLock()  # claims are reviewed from several threads

    def _chat(self) -> Any:
        with self._lock:
            return self._chat_locked()

    def _chat_locked(self) -> Any:
        if self._llm is None:
            from langchain_openai import ChatOpenAI

            s = self.settings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._llm = ChatOpenAI(
                    model=s.model,
                    base_url=s.base_url,
                    # pydantic validates a str into SecretStr; the constructor's annotation takes only SecretStr
                    api_key=self._api_key,  # type: ignore[arg-type]
                    temperature=s.temperature,
                    # max_tokens is the field name (alias max_completion_tokens): pydantic takes either, the stub only the alias
                    max_tokens=s.max_tokens,  # type: ignore[call-arg]
                    timeout=s.timeout,
                    max_retries=s.max_retries,
                    use_responses_api=False,
                )
        return self._llm

    def _runnable(self, method: str) -> Any:
        with self._lock:
            return self._runnable_locked(method)

    def _runnable_locked(self, method: str) -> Any:
        if method not in self._runnables:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._runnables[method] = self._chat().with_structured_output(
                    model_schema(), method=method, include_raw=True
                )
        return self._runnables[method]

    def review(self, request: ReviewRequest) -> VerdictResponse:
        """One call. The endpoint's own error text is never passed on (an endpoint can echo the
        key, or anything else, into it): only the status and a short error code are."""
        import openai

        while True:
            method = self.method
            try:
                return self._ask(method, request)
            except openai.BadRequestError as e:
                message = _api_message(e)
                overflow = "context" in message.lower() and "length" in message.lower()
                if method == METHODS[-1] or overflow:
                    why = "the prompt is too long for the model" if overflow else _api_code(e)
                    raise RefreshCallError(f"the endpoint refused the request (HTTP 400, {why})") from None
                with self._lock:
                    if self.method == method:
                        self.method = METHODS[METHODS.index(method) + 1]
                        self.fallbacks.append(f"{method} refused with HTTP 400 ({_api_code(e)}); using {self.method}")
            except openai.APITimeoutError:
                s = self.settings
                raise RefreshCallError(f"no answer within {s.timeout:g}s ({s.max_retries} retries)") from None
            except openai.RateLimitError as e:
                raise RefreshCallError(
                    f"rate limited (HTTP 429, {_api_code(e)}) after {self.settings.max_retries} retries", fatal=True
                ) from None
            except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
                raise RefreshCallError(
                    f"the endpoint refused the key (HTTP {e.status_code}, {_api_code(e)})", unusable=True
                ) from None
            except openai.NotFoundError as e:
                raise RefreshCallError(
                    f"model {self.settings.model!r} or the endpoint was not found (HTTP 404, {_api_code(e)})",
                    unusable=True,
                ) from None
            except openai.APIConnectionError:
                where = redact.url_for_display(self.settings.base_url) or "the OpenAI API"
                raise RefreshCallError(f"cannot reach {where}", unusable=True) from None
            except openai.APIStatusError as e:
                raise RefreshCallError(f"the endpoint failed (HTTP {e.status_code}, {_api_code(e)})") from None
            except openai.APIError as e:
                raise RefreshCallError(f"the endpoint's answer is not a chat completion ({type(e).__name__})") from None
            except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
                # A 200 that is no chat completion (`choices: []`, an HTML page): this claim fails.
                raise RefreshCallError(f"the endpoint's answer is not a chat completion ({type(e).__name__})") from None

    def _ask(self, method: str, request: ReviewRequest) -> VerdictResponse:
        from langchain_core.messages import HumanMessage, SystemMessage

        system = request.system
        if method == "json_mode":
            system += "\nThe JSON object must match this JSON Schema:\n" + json.dumps(model_schema())
        messages = [SystemMessage(content=system), *(HumanMessage(content=m) for m in request.messages)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = self._runnable(method).invoke(messages)
        return _response(out, method)


_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,47}$")


def _api_code(e: Exception) -> str:
    """The error's `code` or `type` when it is a short identifier (never free text), else "no code"."""
    body = getattr(e, "body", None)
    inner = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(inner, dict):
        for key in ("code", "type"):
            value = inner.get(key)
            if isinstance(value, str) and _CODE.match(value):
                return value
    return "no error code"


def _api_message(e: Exception) -> str:
    """The endpoint's message, for decisions made here only (never published)."""
    message = getattr(e, "message", None) or str(e)
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            message = inner["message"]
    message = " ".join(str(message).split())
    return message if len(message) <= 300 else message[:300] + "..."


def _response(out: dict[str, Any], method: str) -> VerdictResponse:
    raw = out.get("raw")
    usage = Usage()
    meta = getattr(raw, "usage_metadata", None)
    if meta:
        usage = Usage(int(meta.get("input_tokens") or 0), int(meta.get("output_tokens") or 0))
    else:
        token_usage = (getattr(raw, "response_metadata", None) or {}).get("token_usage") or {}
        usage = Usage(int(token_usage.get("prompt_tokens") or 0), int(token_usage.get("completion_tokens") or 0))
    text = _raw_text(raw)
    parsed = out.get("parsed")
    if parsed is not None:
        return VerdictResponse(parsed, text or json.dumps(parsed), None, usage, method)
    try:
        return VerdictResponse(parse_json_answer(text), text, None, usage, method)
    except ValueError:
        pass
    error = out.get("parsing_error")
    why = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}" if error else "no structured answer"
    return VerdictResponse(None, text, f"the answer is not a JSON verdict ({why})", usage, method)


def _raw_text(raw: Any) -> str:
    if raw is None:
        return ""
    calls = getattr(raw, "tool_calls", None) or []
    if calls:
        return json.dumps(calls[0].get("args"), ensure_ascii=False)
    invalid = getattr(raw, "invalid_tool_calls", None) or []
    if invalid:
        return str(invalid[0].get("args") or "")
    content = getattr(raw, "content", "")
    if isinstance(content, list):
        return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    return str(content)


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------


@dataclass
class _Target:
    result: ClaimResult
    sources: list[Source]
    trivial: str | None = None

    @property
    def page(self) -> str:
        return self.result.page

    @property
    def claim(self) -> Claim:
        return self.result.claim


class _Writer:
    """Applies one decision at a time: under the wiki lock, on the sidecar and page as they are on
    disk now, saved atomically before the next claim. In a dry run the decisions accumulate in
    memory (the sidecar, and the prose edits replayed on the page as it is on disk)."""

    def __init__(self, ws: Workspace, dry_run: bool, now: str) -> None:
        self.ws = ws
        self.dry_run = dry_run
        self.now = now
        self.written: list[str] = []
        self.sidecars: dict[str, Sidecar] = {}
        self.edits: dict[str, list[Callable[[str], str]]] = {}

    def _edited(self, page: str, text: str | None) -> str | None:
        if text is None:
            return None
        for edit in self.edits.get(page, ()):
            text = edit(text)
        return text

    def _composed(self, page: str) -> Callable[[str], str]:
        return lambda text: self._edited(page, text) or text

    def apply(
        self, page: str, asked: Claim, decide: Callable[[Sidecar, str | None, ClaimResult], tuple[Sidecar, Any]]
    ) -> None:
        lock = contextlib.nullcontext() if self.dry_run else self.ws.wiki.lock()
        with lock:
            sidecar = self.sidecars.get(page) if self.dry_run else None
            sidecar = sidecar or self.ws.wiki.load(page)
            text = self.ws.page_text(page)
            if self.dry_run:
                text = self._edited(page, text)
            current = sidecar.claim(asked.id) if sidecar is not None else None
            if sidecar is None or current is None:
                raise VerdictError(f"{asked.id} is no longer on {page} (changed while the model was answering)")
            if current.statement != asked.statement or [e.version for e in current.evidence] != [
                e.version for e in asked.evidence
            ]:
                raise VerdictError(f"{asked.id} was changed while the model was answering; run refresh again")
            resolver = self.ws.resolver()
            result = checker.check_claim(page, current, resolver, page_text=text)
            new, edit = decide(sidecar, text, result)
            new = self._stamp(new, text, resolver)
            if self.dry_run:
                self.sidecars[page] = new
                self.edits.setdefault(page, []).append(edit)
            else:
                self.written.extend(p for p in editing.save_page(self.ws.wiki, new, edit=edit) if p not in self.written)

    def _stamp(self, sidecar: Sidecar, text: str | None, resolver: checker.EvidenceResolver) -> Sidecar:
        """The page's verification is the run's when every claim left on it is fresh."""
        if not sidecar.claims:
            return sidecar
        for claim in sidecar.claims:
            if claim.mark is not None:
                return sidecar
            if checker.check_claim(sidecar.page, claim, resolver, page_text=text).status != "fresh":
                return sidecar
        return sidecar.replace(verification=Verification(PRODUCER, self.now))

    def diff(self) -> str:
        """A dry run's decisions as a unified diff of the pages and sidecars they would write."""
        out: list[str] = []
        wiki = self.ws.wiki
        for page in sorted(self.sidecars):
            new_sc = self.sidecars[page]
            edit = self._composed(page)
            render = getattr(editing, "render_page", None)
            if render is not None:
                old_bytes, new_bytes = render(wiki, new_sc, edit=edit)
            else:  # pragma: no cover - before the OKF projection landed
                old_text = self.ws.page_text(page)
                old_bytes = None if old_text is None else old_text.encode("utf-8")
                new_bytes = None if old_text is None else citations.sync(
                    edit(old_text), wiki.repo_path(page), new_sc.claims
                ).encode("utf-8")
            repo_page = wiki.repo_path(page)
            if old_bytes is not None and new_bytes is not None and old_bytes != new_bytes:
                out += difflib.unified_diff(
                    old_bytes.decode("utf-8", "replace").splitlines(keepends=True),
                    new_bytes.decode("utf-8", "replace").splitlines(keepends=True),
                    f"a/{repo_page}",
                    f"b/{repo_page}",
                )
            old_sc = wiki.load(page)
            new_sc = new_sc.replace(page_version=page_version(new_bytes or b""))
            if wiki.config.strict_openwiki:
                new_sc = new_sc.for_openwiki()
            old_json = sidecar_codec.dumps(old_sc) if old_sc is not None else ""
            new_json = sidecar_codec.dumps(new_sc)
            if old_json != new_json:
                rel = wiki.sidecar_path(page).relative_to(wiki.root).as_posix()
                out += difflib.unified_diff(
                    old_json.splitlines(keepends=True), new_json.splitlines(keepends=True), f"a/{rel}", f"b/{rel}"
                )
        return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def select(ws: Workspace, options: RefreshOptions, results: list[ClaimResult]) -> list[ClaimResult]:
    """The claims to refresh, in order: stale and unresolved ones in page order, then (with
    --due) the due ones, least recently verified first. --claim names claims whatever their state."""
    named: set[str] = set()
    if options.claims:
        all_sidecars = ws.wiki.load_all()
        named = {ws.wiki.find_claim(c, all_sidecars)[2].id for c in options.claims}
    pages = {ws.wiki.normalize_page(p) for p in options.pages} if options.pages else None
    stale, due = [], []
    for r in results:
        if pages is not None and r.page not in pages:
            continue
        if named and r.claim.id not in named:
            continue
        if r.status != "fresh" or (named and r.claim.id in named):
            stale.append(r)
        elif options.due and r.due:
            due.append(r)
    due.sort(key=lambda r: (r.claim.verified_at or "", r.page, r.claim.id))
    return stale + due


def shard_of(page: str, n: int) -> int:
    """The shard (1..n) a page belongs to: stable across runs and machines (a hash of its name)."""
    digest = hashlib.sha256(page.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n + 1


def run_refresh(ws: Workspace, options: RefreshOptions, refresher: Refresher | None = None) -> RefreshResult:
    """Refresh the stale (and, with `due`, the due) claims; see the module docstring.

    Raises RefreshError (exit 2) before anything is written when claims need a model and no key is
    set or langchain-openai is missing. Each decided claim is saved as soon as it is decided. A dry
    run (`--plan`) calls no model: it lists what would be sent, with estimated tokens and cost.
    """
    settings = Settings.resolve(ws.config.refresh, options)
    progress = options.progress or (lambda _message: None)
    started = time.monotonic()
    now = datetime.now(UTC)
    stamp = now_iso()
    sidecars = ws.wiki.load_all()
    resolver = ws.resolver()
    results = checker.check_all(
        sidecars, resolver, ws.page_text, now=now, reverify_after_seconds=ws.config.reverify_after_seconds
    )
    chosen = select(ws, options, results)
    if options.shard is not None:
        i, n = options.shard
        chosen = [r for r in chosen if shard_of(r.page, n) == i]
    targets = [_target(ws, r, resolver, settings) for r in chosen]
    for t in targets:
        t.trivial = refresh_core.trivial_drift(t.result, t.sources, settings.trivial_drift)
    preflight = getattr(editing, "preflight", None)
    if preflight is not None and not options.dry_run:
        preflight(ws.wiki, sorted({t.page for t in targets}))  # a malformed front matter: exit 2, nothing written
    writer = _Writer(ws, options.dry_run, stamp)
    decisions = {t.claim.id: _decision(t) for t in targets}
    result = RefreshResult(dry_run=options.dry_run, shard=options.shard)
    result.decisions = [decisions[t.claim.id] for t in targets]
    total = len(targets)
    done = 0

    def report(t: _Target) -> None:
        nonlocal done
        done += 1
        progress(redact.redact(f"[{done}/{total}] {ws.wiki.repo_path(t.page)}: {t.claim.id}: {_said(decisions[t.claim.id])}"))

    needs_model: list[_Target] = []
    nothing_citable: list[_Target] = []
    for t in targets:
        if t.trivial is None:
            citable = any(s.text is not None and s.path is not None for s in t.sources)
            (needs_model if citable else nothing_citable).append(t)
    result.model = settings.model if needs_model else None
    limit = settings.max_claims
    to_send = needs_model if limit is None else needs_model[:limit]
    if to_send and refresher is None and not options.dry_run:
        refresher = _default_refresher(settings, len(to_send))  # no key: exit 2 before anything is written

    for t in targets:
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
    run = _ModelRun(ws, refresher, writer, settings, stamp, result, decisions, started, report)
    if options.dry_run:
        run.plan(needs_model)
    else:
        run.send(needs_model)

    result.written = writer.written
    if options.dry_run:
        result.diff = writer.diff()
    if isinstance(refresher, LangChainRefresher):
        result.fallbacks = list(refresher.fallbacks)
    return result


@dataclass(eq=False)  # compared by identity: an abandoned call that answers late is ignored
class _Call:
    """One request in flight: its target, attempt, messages and when it must have answered."""

    target: _Target
    ctx: ClaimContext
    messages: tuple[str, ...]
    attempt: int
    due_at: float
    reserved: int
    answer: Any = None  # set by the worker: a VerdictResponse or an exception


class _ModelRun:
    """The model calls of one run: up to `max_concurrency` claims in flight, each call bounded by
    `timeout` (a total deadline, however slowly the endpoint trickles), the run by `deadline`,
    the tokens by `max_total_tokens`, across all of them. Workers only call the model; checking
    and applying happen here, on the main thread, one decision at a time."""

    def __init__(
        self,
        ws: Workspace,
        refresher: Refresher | None,
        writer: _Writer,
        settings: Settings,
        stamp: str,
        result: RefreshResult,
        decisions: dict[str, Decision],
        started: float,
        report: Callable[[_Target], None],
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
        self.done: queue.Queue[_Call] = queue.Queue()

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

    def _context(self, t: _Target) -> ClaimContext:
        return refresh_core.build_context(
            t.page, t.result, t.sources, self.ws.page_text(t.page), budget=self.settings.context_tokens,
            wiki_path=self.ws.wiki.repo_path(t.page),
        )

    # -- the plan ---------------------------------------------------------------------------------
    def plan(self, targets: Sequence[_Target]) -> None:
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
    def _submit(self, call: _Call) -> None:
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

    def send(self, targets: Sequence[_Target]) -> None:
        pending = deque(targets)
        inflight: list[_Call] = []
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
                call = _Call(t, ctx, (ctx.user,), 1, self._call_due(timeout), ctx.tokens + PLANNED_OUTPUT_TOKENS)
                self.sent += 1
                self.decisions[t.claim.id].attempts = 1
                inflight.append(call)
                self._submit(call)
            if not inflight:
                continue
            wait = max(0.0, min(c.due_at for c in inflight) - time.monotonic())
            try:
                finished: _Call | None = self.done.get(timeout=wait)
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

    def _answered(self, call: _Call) -> _Call | None:
        """Handle one finished call; return the retry to send, if any."""
        t, ctx = call.target, call.ctx
        d = self.decisions[t.claim.id]
        answer = call.answer
        settings = self.settings
        if isinstance(answer, BaseException) and not isinstance(answer, (RefreshCallError, Exception)):
            raise answer  # KeyboardInterrupt, SystemExit
        if isinstance(answer, Exception) and not isinstance(answer, RefreshCallError):
            # Whatever the client raised (a 200 without choices, an HTML page): this claim fails.
            answer = RefreshCallError(f"the endpoint's answer is not a chat completion ({type(answer).__name__})")
        if isinstance(answer, RefreshCallError):
            d.tokens_in += answer.usage.input_tokens
            d.tokens_out += answer.usage.output_tokens
            self.spent += answer.usage.input_tokens + answer.usage.output_tokens
            d.cost = settings.cost(d.tokens_in, d.tokens_out)
            d.error = redact.redact(f"model error: {answer}")
            if answer.fatal:
                self.result.stopped = redact.redact(str(answer))
                if answer.unusable:
                    self.result.unusable = self.result.stopped
            self.report(t)
            return None
        response: VerdictResponse = answer
        d.tokens_in += response.usage.input_tokens
        d.tokens_out += response.usage.output_tokens
        self.spent += response.usage.input_tokens + response.usage.output_tokens
        d.cost = settings.cost(d.tokens_in, d.tokens_out)
        d.method = response.method
        reader = self.ws.reader()
        wiki_dir = self.ws.config.wiki_dir
        try:
            if response.error is not None or response.data is None:
                raise VerdictError(response.error or "the answer is empty")
            plan = refresh_core.check_verdict(response.data, ctx, reader, wiki_dir=wiki_dir, schema_problems=schema_problems)
        except VerdictError as e:
            error = str(e)
            if call.attempt == 1 and self.result.stopped is None and (
                self.run_due is None or time.monotonic() < self.run_due
            ):
                d.attempts = 2
                messages = (ctx.user, refresh_core.retry_prompt(ctx, response.raw or "", error))
                return _Call(t, ctx, messages, 2, self._call_due(float(settings.timeout)), call.reserved)
            d.error = redact.redact(f"answer rejected {'twice' if call.attempt == 2 else 'once'}: {error}")
            self.report(t)
            return None
        d.rationale = redact.redact(plan.rationale)
        d.quotes = [{"resource": r, "quote": redact.redact(q)} for r, q in plan.quotes]
        d.notes = [redact.redact(n) for n in plan.notes]
        by = f"model:{settings.model}"
        data = response.data

        def decide(sidecar: Sidecar, text: str | None, result_now: ClaimResult) -> tuple[Sidecar, Any]:
            # Checked again under the lock, against the files as they are now.
            again = refresh_core.check_verdict(data, ctx, self.ws.reader(), wiki_dir=wiki_dir, schema_problems=schema_problems)
            return refresh_core.apply_plan(sidecar, again, result=result_now, by=by, now=self.stamp)

        try:
            self.writer.apply(t.page, t.claim, decide)
        except (VerdictError, OpenwikiError) as e:
            d.error = redact.redact(str(e))
            self.report(t)
            return None
        d.verdict = plan.verdict
        d.applied = True
        if plan.verdict == "retract":
            d.new_statement = None
        else:
            d.new_statement = plan.statement
            d.evidence_after = [e.resource for e in plan.evidence] if plan.evidence else list(d.evidence_before)
        self.report(t)
        return None


def _said(d: Decision) -> str:
    if d.verdict is not None:
        return {"confirm": "confirmed", "revise": "revised", "retract": "retracted"}[d.verdict] + (
            f" ({d.trivial})" if d.trivial else ""
        )
    return f"left {d.status}: {d.error or d.skipped}"


def _decision(t: _Target) -> Decision:
    return Decision(
        claim_id=t.claim.id,
        page=t.page,
        verdict=None,
        old_statement=t.claim.statement,
        status=t.result.status,
        due=t.result.due,
        evidence_before=[e.resource for e in t.claim.evidence],
    )


def _default_refresher(settings: Settings, count: int) -> Refresher:
    key = os.environ.get(settings.api_key_env)
    redact.add_secret(key)
    if not key:
        raise RefreshError(
            f"{count} claim(s) need a model and the environment variable {settings.api_key_env} is not set; "
            "nothing was changed",
            f"export {settings.api_key_env}=<key> (or name another variable with --api-key-env or "
            "refresh.api_key_env); `check` needs no key",
        )
    if importlib.util.find_spec("langchain_openai") is None:
        raise RefreshError(
            "langchain-openai is not installed; nothing was changed",
            "pip install 'openwiki-git[refresh]'",
        )
    return LangChainRefresher(settings, key)


def _target(ws: Workspace, r: ClaimResult, resolver: checker.EvidenceResolver, settings: Settings) -> _Target:
    sources = []
    renamed = {c.resource: c.path for c in (r.claim.mark.causes if r.claim.mark else ()) if c.path}
    for ev, er in zip(r.claim.evidence, r.evidence, strict=True):
        res = refresh_core._parse(er.current_resource) or refresh_core._parse(ev.resource)
        path = res.path if res is not None else None
        ft, _ = resolver.file(path) if path is not None else (None, None)
        if (ft is None or ft.text is None) and ev.resource in renamed:
            path = renamed[ev.resource]
            ft, _ = resolver.file(path)
        text = ft.text if ft is not None else None
        old_text, old_from = None, None
        if er.status != "fresh":
            old_text, old_from = _verified_text(ws, r.claim, ev) or (None, None)
        sources.append(Source(ev, er, path, text, old_text, old_from))
    return _Target(r, sources)


def _verified_text(ws: Workspace, claim: Claim, ev: Any) -> tuple[str, str] | None:
    """The cited text as last verified: from the recorded blob, the mark's commit, the index, or
    the first-parent history of HEAD (at most HISTORY_DEPTH commits)."""
    res = refresh_core._parse(ev.resource)
    if res is None:
        return None
    paths = [res.path]
    for cause in claim.mark.causes if claim.mark else ():
        old = refresh_core._parse(cause.resource)
        if old is not None and old.path not in paths:
            paths.append(old.path)
    seen: set[str] = set()
    for label, read in _old_copies(ws, ev, claim, paths):
        try:
            ft = read()
        except OpenwikiError:
            break
        if ft is None or ft.text is None or (ft.blob is not None and ft.blob in seen):
            continue
        if ft.blob:
            seen.add(ft.blob)
        found = refresh_core.verified_text(ev.resource, ft.text, ev.version)
        if found is None and ft.path != res.path:
            moved = Resource(ft.path, res.start, res.end).canonical
            found = refresh_core.verified_text(moved, ft.text, ev.version)
        if found is not None:
            return found, label
    return None


def _old_copies(ws: Workspace, ev: Any, claim: Claim, paths: list[str]) -> Iterator[tuple[str, Callable[[], Any]]]:
    repo = ws.repo
    for path in paths:
        if ev.blob:
            yield f"blob {ev.blob[:12]}", functools.partial(repo.blob_text, path, ev.blob)
    commit = claim.mark.commit if claim.mark else None
    for path in paths:
        if commit:
            yield f"commit {commit[:12]}", functools.partial(repo.read, path, commit)
        yield "the index", functools.partial(repo.read, path, "index")
    if repo.head() is None:
        return
    for k in range(HISTORY_DEPTH):
        rev = "HEAD" if k == 0 else f"HEAD~{k}"
        for path in paths:
            yield rev, functools.partial(repo.read, path, rev)


def _apply(writer: _Writer, t: _Target, d: Decision, plan: Plan, stamp: str, *, by: str) -> None:
    def decide(sidecar: Sidecar, text: str | None, result: ClaimResult) -> tuple[Sidecar, Any]:
        return refresh_core.apply_plan(sidecar, plan, result=result, by=by, now=stamp)

    try:
        writer.apply(t.page, t.claim, decide)
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


def model_client(settings: Settings, count: int) -> Refresher:
    """The client `refresh` builds (key from the environment, langchain-openai), for the other
    passes that ask a model (`ground --model`): `count` items need it."""
    return _default_refresher(settings, count)
