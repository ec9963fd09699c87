"""The one redaction every published string goes through (stderr, `::warning`, the step summary,
the PR body, comments, JSON reports): known secret values, anything shaped like a token, and the
userinfo of URLs.

- `add_secret(value)`: a value to mask wherever it appears (the model key, GITHUB_TOKEN, ...).
  Commands register them when they read them; `secrets_from_env()` registers every variable
  whose name says it holds a secret.
- `redact(text)`: the text with every registered value and token-shaped string replaced by
  `***`, and `scheme://user:pass@host` shown as `scheme://***@host`.

Pure apart from the registry of values (process state, set by the adapters and commands).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

MASK = "***"
MIN_SECRET = 4  # shorter values would mask ordinary text

_SECRETS: set[str] = set()

# Names whose values are secrets (matched on the upper-cased variable name).
_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|CREDENTIAL|AUTH)")

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # URL userinfo: https://user:pass@host -> https://***@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@:]*(?::[^/\s@]*)?@"), r"\1" + MASK + "@"),
    (re.compile(r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?)(?:bearer\s+|basic\s+|token\s+)?[^\s\"',;]+"), r"\1" + MASK),
    (re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{6,}"), r"\1\2" + MASK),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{10,}"), MASK),
    (re.compile(r"\bgh[opusr]_[A-Za-z0-9]{10,}"), MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{10,}"), MASK),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,}"), MASK),  # JWTs
)


def add_secret(value: str | None) -> None:
    """Mask `value` wherever it is published from now on (ignored when shorter than 4)."""
    if value and len(value.strip()) >= MIN_SECRET:
        _SECRETS.add(value.strip())


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name.upper()))


def secrets_from_env(environ: Mapping[str, str], names: Iterable[str] = ()) -> None:
    """Register the values of `names` and of every variable whose name says it is a secret."""
    for name in names:
        add_secret(environ.get(name))
    for name, value in environ.items():
        if is_secret_name(name):
            add_secret(value)


def redact(text: object) -> str:
    """`text` as it may be published: registered secrets, token-shaped strings, URL userinfo masked."""
    out = "" if text is None else str(text)
    for secret in sorted(_SECRETS, key=len, reverse=True):
        if secret in out:
            out = out.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        out = pattern.sub(replacement, out)
    return out


def url_for_display(url: str | None) -> str | None:
    """An endpoint URL without its userinfo, query and fragment (they may carry keys)."""
    if url is None:
        return None
    text = redact(url)
    return re.split(r"[?#]", text, maxsplit=1)[0]


def _reset_for_tests() -> None:
    _SECRETS.clear()
