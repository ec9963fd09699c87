"""What a model is asked and what it answers: the narrow `Refresher` protocol
(`review(request) -> VerdictResponse`), its request, response, usage and error, the verdict
schema as sent and checked, and the JSON found in a model's text. Tests script the model with
`tests/support/scripted_refresher.py`; production's model is `client.LangChainRefresher`.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from openwiki_git.formats import schema

# When the call made in this context must have answered (time.monotonic()), set by the caller
# (the refresh run's per-call and run deadlines); the client ends its request then.
CALL_DUE: ContextVar[float | None] = ContextVar("openwiki_git_call_due", default=None)


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


def model_schema() -> dict[str, Any]:
    """The verdict schema as sent to the model (no `$schema`/`$id`, which some endpoints refuse)."""
    return {k: v for k, v in schema.load_schema("verdict").items() if not k.startswith("$")}


def schema_problems(data: Any) -> list[str]:
    """The answer's problems against the verdict schema, in path order (jsonschema, lazily)."""
    return schema.plain_problems("verdict", data)


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
