"""The bundled JSON Schemas (package data) and validation that reports every problem.

jsonschema is imported lazily: `check` validates sidecars with the hand-written reader in
sidecar.py and only pays for jsonschema when a config file or `validate` needs it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

SCHEMA_FILES = {
    "config": "config.schema.json",
    "sidecar": "sidecar.schema.json",
    "check-report": "check-report.schema.json",
    "frontmatter": "frontmatter.schema.json",
    "verdict": "verdict.schema.json",
    "report": "report.schema.json",
}


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("openwiki_git").joinpath("schemas", SCHEMA_FILES[name]).read_text("utf-8")
    return json.loads(text)


def problems(name: str, instance: Any) -> list[str]:
    """Every schema violation as '$.json.path: message', sorted by path for stable output."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    validator = Draft202012Validator(load_schema(name))
    found = []
    for error in validator.iter_errors(instance):
        if error.context:
            error = best_match(error.context) or error
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            # Name the key itself, as the sidecar reader does: `$.a.typo: unknown key`.
            allowed = set(error.schema.get("properties", {}))
            for key in sorted(k for k in error.instance if k not in allowed):
                found.append((json_path([*error.absolute_path, key]), f"unknown key (allowed: {', '.join(sorted(allowed))})"))
            continue
        found.append((json_path(error.absolute_path), error.message))
    return [f"{where}: {message}" for where, message in sorted(set(found))]


def plain_problems(name: str, instance: Any, *, limit: int = 200) -> list[str]:
    """Every schema violation in jsonschema's own words, as '$.json.path: message' (the message cut
    at `limit` characters), sorted by path: for answers a model reads back, e.g. the verdict."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(load_schema(name))
    out = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        message = error.message if len(error.message) <= limit else error.message[:limit] + "..."
        out.append(f"{json_path(error.absolute_path)}: {message}")
    return out


def json_path(parts: Iterable[str | int]) -> str:
    """Where a validation error is, as every report writes it: `$`, `.key`, `[index]`."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)
