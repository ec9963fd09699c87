"""The one reading of a timestamp (OKF's `stale_after` and `verified[].at`, a claim's
`verified_at`, a mark's `since`): an ISO 8601 date-time with an explicit offset, written
`YYYY-MM-DDTHH:MM[:SS[.fraction]]` then `Z` or `+HH:MM`/`-HH:MM`, exactly (no surrounding
space, ASCII digits). Anything else (a naive local time, a date only, a space for the `T`,
the basic format `20260101T1000Z`, an offset without its colon) is not an instant: `validate`
rejects it, and `check` treats it as unparseable (a page's `stale_after` then counts as passed).
Pure."""

from __future__ import annotations

import re
from datetime import datetime

_INSTANT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:[0-9]{2})")


def instant(value: object) -> datetime | None:
    """The instant `value` writes, or None (not text, or not in the form above)."""
    if not isinstance(value, str) or not _INSTANT.fullmatch(value):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:  # a month 13, an hour 25
        return None
