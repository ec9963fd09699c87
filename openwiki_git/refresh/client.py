"""The refresher's model client, the only module that imports langchain_openai / langchain_core /
openai, and only inside functions, so `check` and the hook never pay for them.

- `LangChainRefresher`: ChatOpenAI (any OpenAI-compatible endpoint) with
  `with_structured_output(..., include_raw=True)`, falling back from `json_schema` to
  `function_calling` to `json_mode` when the endpoint answers HTTP 400.
- `model_client(settings, count)`: the client `refresh` (and `ground --model`) builds: the key from
  the environment, langchain-openai installed, else a RefreshError before anything is written.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import threading
import time
import warnings
from typing import Any

from openwiki_git import redact
from openwiki_git.errors import RefreshError
from openwiki_git.refresh.protocol import (
    CALL_DUE,
    RefreshCallError,
    Refresher,
    ReviewRequest,
    Usage,
    VerdictResponse,
    model_schema,
    parse_json_answer,
)
from openwiki_git.refresh.settings import METHODS, Settings


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
        self._http: Any = None  # the HTTP client, once built: closed by close()
        self._lock = threading.RLock()  # claims are reviewed from several threads

    def _chat(self) -> Any:
        with self._lock:
            return self._chat_locked()

    def _chat_locked(self) -> Any:
        if self._llm is None:
            from langchain_openai import ChatOpenAI

            s = self.settings
            self._http = _deadline_http_client()
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
                    http_client=self._http,
                )
        return self._llm

    def close(self) -> None:
        """Close the HTTP client's connections at the end of a run: in a process that lives on (a
        test, a service calling run_refresh) they would otherwise be left to garbage collection,
        which may finalise a socket before its client."""
        with self._lock:
            if self._http is not None:
                self._http.close()

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

    def prepare(self) -> None:
        """Build the client now (imports take seconds), before any call's deadline starts."""
        self._runnable(self.method)

    def review(self, request: ReviewRequest) -> VerdictResponse:
        """One call, ended by `timeout` seconds from now or the caller's CALL_DUE, whichever
        comes first, however slowly the endpoint answers: its connection is closed then, so an
        abandoned call never outlives its deadline (nor keeps the process). The endpoint's own
        error text is never passed on (an endpoint can echo the key, or anything else, into it):
        only the status and a short error code are."""
        self.prepare()
        due = time.monotonic() + float(self.settings.timeout)
        caller = CALL_DUE.get()
        token = CALL_DUE.set(due if caller is None else min(due, caller))
        try:
            return self._review(request)
        except CallPastDue:
            raise RefreshCallError(f"no answer within {self.settings.timeout:g}s (the call's deadline)") from None
        finally:
            CALL_DUE.reset(token)

    def _review(self, request: ReviewRequest) -> VerdictResponse:
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


class CallPastDue(BaseException):  # noqa: N818 - a signal, not an error; BaseException: the openai client neither catches nor retries it
    """Raised in the HTTP transport once a call's deadline (CALL_DUE) has passed."""


def _deadline_http_client() -> Any:
    """The openai client's HTTP client, with a transport that holds each request to the call's
    CALL_DUE: every socket timeout is capped by the time left, and a body trickled byte by byte
    (which no read timeout catches) is cut at the deadline, closing the connection."""
    import sys

    import openai

    # The HTTP library this openai release is built on (httpx, or its successor httpx2): the
    # transport must be that library's, so it is taken from the client class openai subclasses.
    httpx: Any = sys.modules[openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0]]

    class DueStream(httpx.SyncByteStream):
        def __init__(self, inner: Any, due: float) -> None:
            self.inner, self.due = inner, due

        def __iter__(self) -> Any:
            for chunk in self.inner:
                if time.monotonic() >= self.due:
                    raise CallPastDue
                yield chunk

        def close(self) -> None:
            self.inner.close()

    class DueTransport(httpx.BaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.HTTPTransport()

        def handle_request(self, request: Any) -> Any:
            due = CALL_DUE.get()
            if due is None:
                return self.inner.handle_request(request)
            left = due - time.monotonic()
            if left <= 0:
                raise CallPastDue
            timeouts = dict(request.extensions.get("timeout") or {})
            request.extensions["timeout"] = {k: min(timeouts.get(k) or left, left) for k in ("connect", "read", "write", "pool")}
            try:
                response = self.inner.handle_request(request)
            except httpx.TimeoutException:
                if time.monotonic() >= due - 0.05:
                    raise CallPastDue from None
                raise
            return httpx.Response(
                response.status_code, headers=response.headers, stream=DueStream(response.stream, due), extensions=response.extensions
            )

        def close(self) -> None:
            self.inner.close()

    class Client(openai.DefaultHttpxClient):
        def __del__(self) -> None:  # as openai's own client does: its connections closed with it
            try:
                self.close()
            except Exception:  # noqa: BLE001, S110 - at interpreter exit the modules may be half gone
                pass

    return Client(transport=DueTransport())


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


def model_client(settings: Settings, count: int) -> Refresher:
    """The client `refresh` builds (key from the environment, langchain-openai), for the other
    passes that ask a model (`ground --model`): `count` items need it."""
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
