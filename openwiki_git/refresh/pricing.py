"""The default price table for cost estimates: USD per million tokens, input and output, of the
chat models people point the refresher at. Estimates only (cached-input discounts, batch prices
and provider markups are ignored); `refresh.prices` in `.openwiki/config.yml` overrides or adds
models (`refresh: {prices: {my-model: {input: 0.2, output: 0.8}}}`).

Maintained by hand from the providers' public price pages; `AS_OF` says when. Pure data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

AS_OF = "2026-11"

DEFAULT_PRICES: dict[str, dict[str, float]] = {
    # OpenAI
    "gpt-4o-mini": {"input": 0.15, "output": 0.60},
    "gpt-4o": {"input": 2.50, "output": 10.00},
    "gpt-4.1": {"input": 2.00, "output": 8.00},
    "gpt-4.1-mini": {"input": 0.40, "output": 1.60},
    "gpt-4.1-nano": {"input": 0.10, "output": 0.40},
    "gpt-5": {"input": 1.25, "output": 10.00},
    "gpt-5-mini": {"input": 0.25, "output": 2.00},
    "gpt-5-nano": {"input": 0.05, "output": 0.40},
    "o4-mini": {"input": 1.10, "output": 4.40},
    "o3-mini": {"input": 1.10, "output": 4.40},
    # OpenAI-compatible hosted models
    "deepseek-chat": {"input": 0.27, "output": 1.10},
    "mistral-small-latest": {"input": 0.10, "output": 0.30},
}


def price_table(overrides: Mapping[str, Any] | None) -> dict[str, dict[str, float]]:
    """The defaults with the config's `refresh.prices` on top (a model given there wins whole)."""
    table = {name: dict(p) for name, p in DEFAULT_PRICES.items()}
    for name, price in (overrides or {}).items():
        if isinstance(price, Mapping):
            table[str(name)] = {k: float(v) for k, v in price.items() if k in ("input", "output")}
    return table


def lookup(table: Mapping[str, Mapping[str, float]], model: str) -> Mapping[str, float] | None:
    """The price of `model`: exact, else a dated snapshot of a known model (`gpt-4o-2024-08-06`)."""
    if model in table:
        return table[model]
    best = max((name for name in table if model.startswith(name + "-")), key=len, default=None)
    return table[best] if best is not None else None


def cost(table: Mapping[str, Mapping[str, float]], model: str, tokens_in: int, tokens_out: int) -> float | None:
    """USD for these tokens, None when the model has no price."""
    price = lookup(table, model)
    if price is None:
        return None if (tokens_in or tokens_out) else 0.0
    return tokens_in * float(price.get("input", 0)) / 1e6 + tokens_out * float(price.get("output", 0)) / 1e6
