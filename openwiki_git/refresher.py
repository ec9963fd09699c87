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
- `ScriptedRefresher`: a scripted fake for tests (`enqueue`, `history`), same path otherwise.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import json
import os
import re
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from importlib import resources
from typing import Any, Protocol

from openwiki_git import PRODUCER, checker, citations, compat, editing, refresh_core
from openwiki_git import sidecar as sidecar_codec
from openwiki_git.errors import OpenwikiError, RefreshError, UsageError
from openwiki_git.model import Claim, ClaimResult, Sidecar, Verification
from openwiki_git.refresh_core import ClaimContext, Plan, Source, VerdictError
from openwiki_git.store import page_version
from openwiki_git.workspace import Workspace, now_iso

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
}


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

    @classmethod
    def resolve(cls, config: dict[str, Any], options: RefreshOptions) -> Settings:
        values = {**DEFAULTS, **{k: v for k, v in config.items() if k in DEFAULTS}}
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
        return cls(**values)

    def cost(self, tokens_in: int, tokens_out: int) -> float | None:
        """USD from the price table (per million tokens), None when the model has no price."""
        price = self.prices.get(self.model)
        if price is None:
            return None if (tokens_in or tokens_out) else 0.0
        return tokens_in * float(price.get("input", 0)) / 1e6 + tokens_out * float(price.get("output", 0)) / 1e6


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
            **({"diff": self.diff} if self.dry_run else {}),
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

    def __init__(self, message: str, *, fatal: bool = False, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.fatal = fatal
        self.usage = usage or Usage()


class Refresher(Protocol):
    def review(self, request: ReviewRequest) -> VerdictResponse: ...


@cache
def verdict_schema() -> dict[str, Any]:
    text = resources.files("openwiki_git").joinpath("schemas", "verdict.schema.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def model_schema() -> dict[str, Any]:
    """The schema as sent to the model (no `$schema`/`$id`, which some endpoints refuse)."""
    return {k: v for k, v in verdict_schema().items() if not k.startswith("$")}


def schema_problems(data: Any) -> list[str]:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(verdict_schema())
    out = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
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


class ScriptedRefresher:
    """A fake model for tests. Each `review` pops the next scripted item:

    - a dict (or any JSON value): the parsed answer;
    - a str: the answer's text, parsed like a real model's (may be malformed);
    - a VerdictResponse: returned as is;
    - an exception: raised (e.g. RefreshCallError("timeout"));
    - a callable(request) -> any of the above.

    With no item left it raises a fatal RefreshCallError. `history` holds every request."""

    def __init__(self, items: Iterable[Any] = (), *, method: str = "scripted") -> None:
        self.queue: deque[Any] = deque(items)
        self.history: list[ReviewRequest] = []
        self.method = method

    def enqueue(self, *items: Any) -> ScriptedRefresher:
        self.queue.extend(items)
        return self

    def review(self, request: ReviewRequest) -> VerdictResponse:
        self.history.append(request)
        if not self.queue:
            raise RefreshCallError("the scripted model has no answer left", fatal=True)
        item = self.queue.popleft()
        if callable(item) and not isinstance(item, type):
            item = item(request)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, VerdictResponse):
            return item
        tokens_in = refresh_core.estimate_tokens(request.system + "".join(request.messages))
        if isinstance(item, str):
            usage = Usage(tokens_in, refresh_core.estimate_tokens(item))
            try:
                return VerdictResponse(parse_json_answer(item), item, None, usage, self.method)
            except ValueError as e:
                return VerdictResponse(None, item, f"the answer is not JSON: {e}", usage, self.method)
        raw = json.dumps(item, ensure_ascii=False)
        return VerdictResponse(item, raw, None, Usage(tokens_in, refresh_core.estimate_tokens(raw)), self.method)


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

    def _chat(self) -> Any:
        if self._llm is None:
            from langchain_openai import ChatOpenAI

            s = self.settings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._llm = ChatOpenAI(
                    model=s.model,
                    base_url=s.base_url,
                    api_key=self._api_key,
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                    timeout=s.timeout,
                    max_retries=s.max_retries,
                    use_responses_api=False,
                )
        return self._llm

    def _runnable(self, method: str) -> Any:
        if method not in self._runnables:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._runnables[method] = self._chat().with_structured_output(
                    model_schema(), method=method, include_raw=True
                )
        return self._runnables[method]

    def review(self, request: ReviewRequest) -> VerdictResponse:
        import openai

        while True:
            method = self.method
            try:
                return self._ask(method, request)
            except openai.BadRequestError as e:
                message = _api_message(e)
                overflow = "context" in message.lower() and "length" in message.lower()
                if method == METHODS[-1] or overflow:
                    raise RefreshCallError(f"the endpoint refused the request (HTTP 400): {message}") from None
                self.method = METHODS[METHODS.index(method) + 1]
                self.fallbacks.append(f"{method} refused with HTTP 400 ({message}); using {self.method}")
            except openai.APITimeoutError:
                s = self.settings
                raise RefreshCallError(f"no answer within {s.timeout:g}s ({s.max_retries} retries)") from None
            except openai.RateLimitError as e:
                raise RefreshCallError(
                    f"rate limited (HTTP 429) after {self.settings.max_retries} retries: {_api_message(e)}", fatal=True
                ) from None
            except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
                raise RefreshCallError(
                    f"the endpoint refused the key (HTTP {e.status_code}): {_api_message(e)}", fatal=True
                ) from None
            except openai.NotFoundError as e:
                raise RefreshCallError(
                    f"model {self.settings.model!r} or the endpoint was not found (HTTP 404): {_api_message(e)}",
                    fatal=True,
                ) from None
            except openai.APIConnectionError as e:
                where = self.settings.base_url or "the OpenAI API"
                raise RefreshCallError(f"cannot reach {where}: {e}", fatal=True) from None
            except openai.APIStatusError as e:
                raise RefreshCallError(f"the endpoint failed (HTTP {e.status_code}): {_api_message(e)}") from None
            except openai.APIError as e:
                raise RefreshCallError(f"the endpoint failed: {_api_message(e)}") from None

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


def _api_message(e: Exception) -> str:
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


def run_refresh(ws: Workspace, options: RefreshOptions, refresher: Refresher | None = None) -> RefreshResult:
    """Refresh the stale (and, with `due`, the due) claims; see the module docstring.

    Raises RefreshError (exit 2) before anything is written when claims need a model and no key is
    set or langchain-openai is missing. Each decided claim is saved as soon as it is decided.
    """
    settings = Settings.resolve(ws.config.refresh, options)
    progress = options.progress or (lambda _message: None)
    now = datetime.now(timezone.utc)
    stamp = now_iso()
    sidecars = ws.wiki.load_all()
    resolver = ws.resolver()
    results = checker.check_all(
        sidecars, resolver, ws.page_text, now=now, reverify_after_seconds=ws.config.reverify_after_seconds
    )
    chosen = select(ws, options, results)
    targets = [_target(ws, r, resolver, settings) for r in chosen]
    for t in targets:
        t.trivial = refresh_core.trivial_drift(t.result, t.sources, settings.trivial_drift)
    preflight = getattr(editing, "preflight", None)
    if preflight is not None and not options.dry_run:
        preflight(ws.wiki, sorted({t.page for t in targets}))  # a malformed front matter: exit 2, nothing written
    needs_model = [t for t in targets if t.trivial is None]
    limit = settings.max_claims
    to_send = needs_model if limit is None else needs_model[:limit]
    result = RefreshResult(model=settings.model if needs_model else None, dry_run=options.dry_run)
    if to_send and refresher is None:
        refresher = _default_refresher(settings, len(to_send))
    writer = _Writer(ws, options.dry_run, stamp)
    decisions = {t.claim.id: _decision(t) for t in targets}
    result.decisions = [decisions[t.claim.id] for t in targets]
    total = len(targets)
    done = 0

    for t in targets:
        if t.trivial is None:
            continue
        d = decisions[t.claim.id]
        plan = Plan(t.claim.id, "confirm", t.claim.statement, None, (), t.trivial)
        _apply(writer, t, d, plan, stamp, by=PRODUCER)
        done += 1
        progress(f"[{done}/{total}] {ws.wiki.repo_path(t.page)}: {t.claim.id}: {_said(d)}")

    sent = 0
    spent = 0
    for t in needs_model:
        d = decisions[t.claim.id]
        if result.stopped is not None:
            d.skipped = f"not sent: {result.stopped}"
        elif limit is not None and sent >= limit:
            d.skipped = f"not sent: --max-claims {limit} reached"
        elif settings.max_total_tokens is not None and spent >= settings.max_total_tokens:
            d.skipped = f"not sent: the token budget ({settings.max_total_tokens}) is spent"
        else:
            assert refresher is not None
            sent += 1
            _ask_and_apply(ws, refresher, writer, t, d, settings, stamp, result)
            spent += d.tokens_in + d.tokens_out
        done += 1
        progress(f"[{done}/{total}] {ws.wiki.repo_path(t.page)}: {t.claim.id}: {_said(d)}")

    result.written = writer.written
    if options.dry_run:
        result.diff = writer.diff()
    if isinstance(refresher, LangChainRefresher):
        result.fallbacks = list(refresher.fallbacks)
    return result


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
            moved = compat.Resource(ft.path, res.start, res.end).canonical
            found = refresh_core.verified_text(moved, ft.text, ev.version)
        if found is not None:
            return found, label
    return None


def _old_copies(ws: Workspace, ev: Any, claim: Claim, paths: list[str]) -> Iterator[tuple[str, Callable[[], Any]]]:
    repo = ws.repo
    for path in paths:
        if ev.blob:
            yield f"blob {ev.blob[:12]}", lambda p=path: repo.blob_text(p, ev.blob)
    commit = claim.mark.commit if claim.mark else None
    for path in paths:
        if commit:
            yield f"commit {commit[:12]}", lambda p=path: repo.read(p, commit)
        yield "the index", lambda p=path: repo.read(p, "index")
    if repo.head() is None:
        return
    for k in range(HISTORY_DEPTH):
        rev = "HEAD" if k == 0 else f"HEAD~{k}"
        for path in paths:
            yield rev, lambda p=path, r=rev: repo.read(p, r)


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


def _ask_and_apply(
    ws: Workspace,
    refresher: Refresher,
    writer: _Writer,
    t: _Target,
    d: Decision,
    settings: Settings,
    stamp: str,
    result: RefreshResult,
) -> None:
    ctx = refresh_core.build_context(
        t.page, t.result, t.sources, ws.page_text(t.page), budget=settings.context_tokens,
        wiki_path=ws.wiki.repo_path(t.page),
    )
    reader = ws.reader()
    messages: tuple[str, ...] = (ctx.user,)
    by = f"model:{settings.model}"
    for attempt in (1, 2):
        request = ReviewRequest(t.claim.id, ctx.system, messages, model_schema(), attempt)
        d.attempts = attempt
        try:
            response = refresher.review(request)
        except RefreshCallError as e:
            d.tokens_in += e.usage.input_tokens
            d.tokens_out += e.usage.output_tokens
            d.cost = settings.cost(d.tokens_in, d.tokens_out)
            d.error = f"model error: {e}"
            if e.fatal:
                result.stopped = str(e)
            return
        d.tokens_in += response.usage.input_tokens
        d.tokens_out += response.usage.output_tokens
        d.cost = settings.cost(d.tokens_in, d.tokens_out)
        d.method = response.method
        try:
            if response.error is not None or response.data is None:
                raise VerdictError(response.error or "the answer is empty")
            plan = refresh_core.check_verdict(
                response.data, ctx, reader, wiki_dir=ws.config.wiki_dir, schema_problems=schema_problems
            )
        except VerdictError as e:
            error = str(e)
            if attempt == 1:
                messages = (ctx.user, refresh_core.retry_prompt(ctx, response.raw or "", error))
                continue
            d.error = f"answer rejected twice: {error}"
            return
        d.rationale = plan.rationale
        final = plan

        def decide(sidecar: Sidecar, text: str | None, result_now: ClaimResult, plan: Plan = final) -> tuple[Sidecar, Any]:
            # Checked again under the lock, against the files as they are now.
            again = refresh_core.check_verdict(
                response.data, ctx, ws.reader(), wiki_dir=ws.config.wiki_dir, schema_problems=schema_problems
            )
            return refresh_core.apply_plan(sidecar, again, result=result_now, by=by, now=stamp)

        try:
            writer.apply(t.page, t.claim, decide)
        except (VerdictError, OpenwikiError) as e:
            d.error = str(e)
            return
        d.verdict = final.verdict
        d.applied = True
        if final.verdict == "retract":
            d.new_statement = None
        else:
            d.new_statement = final.statement
            d.evidence_after = [e.resource for e in final.evidence] if final.evidence else list(d.evidence_before)
        return


def model_client(settings: Settings, count: int) -> Refresher:
    """The client `refresh` builds (key from the environment, langchain-openai), for the other
    passes that ask a model (`ground --model`): `count` items need it."""
    return _default_refresher(settings, count)
