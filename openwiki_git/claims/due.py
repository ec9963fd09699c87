"""When a claim is due for re-verification by age: `reverify_after` per page, by page glob or
OKF `type:` with a default. Pure. check resolves a page's duration once, then compares each of
its claims' `verifiedAt` (claims/freshness.py's `is_due`)."""

from __future__ import annotations

import dataclasses
import re

from openwiki_git.claims.policy import glob_pattern
from openwiki_git.pages.frontmatter_core import UNREAD, boundary, read_fast


def page_glob(pattern: str) -> re.Pattern[str]:
    """A glob over page paths inside the wiki (`runbooks/**` is everything under runbooks/,
    `**/*.md` every page): the verify policy's reading, `policy.glob_pattern`."""
    return glob_pattern(pattern)


def is_page_glob(key: str) -> bool:
    """Whether a `reverify_after` key is a page glob rather than an OKF `type:` (a path has a
    `/`, a wildcard or the `.md` of a page; types are words such as `Decision`)."""
    return any(ch in key for ch in "/*?[") or key.endswith(".md")


@dataclasses.dataclass(frozen=True, slots=True)
class ReverifyAfter:
    """`reverify_after` resolved for a page, in seconds. Precedence: the first page glob that
    matches, in the order written; else the page's OKF `type:`; else `default` (None: never due)."""

    default: int | None = None
    globs: tuple[tuple[re.Pattern[str], int], ...] = ()
    types: tuple[tuple[str, int], ...] = ()

    def for_page(self, page: str, text: str | None) -> int | None:
        for pattern, seconds in self.globs:
            if pattern.match(page):
                return seconds
        if self.types:
            kind = page_type(text)
            for name, seconds in self.types:
                if name == kind:
                    return seconds
        return self.default


def page_type(text: str | None) -> str | None:
    """The page's OKF `type:`, read as page_stale_after reads `stale_after` (no YAML parser)."""
    sp = boundary(text) if text else None
    if sp is None or "type" not in sp.yaml:
        return None
    read = read_fast(sp.yaml)
    value = None if read is None else read.get("type")
    return value.strip() if isinstance(value, str) and value is not UNREAD else None
