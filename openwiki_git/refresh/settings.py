"""What a refresh run is asked to do (`RefreshOptions`) and the settings it runs with
(`Settings.resolve`: the options over the config's `refresh:` section over the defaults, checked).
Pure: the config arrives as a dict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from openwiki_git.errors import UsageError
from openwiki_git.refresh import pricing
from openwiki_git.refresh.prompt import DEFAULT_CONTEXT_TOKENS
from openwiki_git.verdicts.drift import TRIVIAL_MODES

METHODS = ("json_schema", "function_calling", "json_mode")
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
    "context_tokens": DEFAULT_CONTEXT_TOKENS,
    "max_claims": None,
    "max_total_tokens": None,
    "prices": {},
    "max_concurrency": 4,
    "deadline": None,
}
# Variables that hold the runner's own credentials: never sent to a model endpoint as its key.
REFUSED_KEY_VARS = re.compile(r"^(GITHUB_TOKEN$|ACTIONS_|GH_|GITHUB_)")


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
        if values["trivial_drift"] not in TRIVIAL_MODES:
            raise UsageError(
                f"trivial_drift {values['trivial_drift']!r} is unknown", f"use one of {', '.join(TRIVIAL_MODES)}"
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
