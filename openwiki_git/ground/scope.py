"""What `ground` leaves alone. Pure: a page's path and text in, a reason (or None) out.

- **History**: release notes, changelogs and history pages describe past versions, not the code
  now: `CHANGELOG*`, `HISTORY*`, `CHANGES*`, `NEWS*`, `release-notes*` (any case, in any folder)
  and every page under a `changelog/` folder, plus the page globs of the config's
  `ground.exclude` (paths inside the wiki: `**` any folders, `*` within one).
- **A page that opts out**: front matter `openwiki: {ground: false}`.
- **One reference**: an HTML comment `<!-- openwiki-git: ignore -->` right after it (refs.py).
- **A retracted sentence**: its claim's tombstone in the sidecar (`retracted`), unless asked.

A page named on the command line is grounded even when a history glob or `ground.exclude` names
it (the person asked for it); its own front matter's opt-out holds even then.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from openwiki_git.claims.policy import glob_pattern
from openwiki_git.errors import SchemaError
from openwiki_git.pages.frontmatter_core import boundary, read_fast

HISTORY = ("CHANGELOG*", "HISTORY*", "CHANGES*", "NEWS*", "release-notes*", "changelog/")
_HISTORY_NAME = re.compile(r"(?:^|/)(?:changelog|history|changes|news|release-notes)[^/]*$", re.IGNORECASE)
_HISTORY_DIR = re.compile(r"(?:^|/)changelog/", re.IGNORECASE)


def history(page: str, exclude: Iterable[str] = ()) -> str | None:
    """Why `page` (a path inside the wiki) is history `ground` leaves alone, or None."""
    if _HISTORY_DIR.search(page):
        return "a changelog/ page (history)"
    if _HISTORY_NAME.search(page):
        return "a release notes, changelog or history page"
    for glob in exclude:
        if glob_pattern(glob.lstrip("/")).match(page):
            return f"ground.exclude: {glob}"
    return None


def opted_out(text: str) -> bool:
    """Whether the page's front matter says `openwiki: {ground: false}` (or the block form)."""
    sp = boundary(text)
    if sp is None or "openwiki" not in sp.yaml:
        return False
    settings = (read_fast(sp.yaml) or {}).get("openwiki")
    if not isinstance(settings, dict):  # `{ground: false}` or a block mapping: YAML reads it
        from openwiki_git.pages import frontmatter

        try:
            fm = frontmatter.parse(text, filename="page")
        except SchemaError:  # a malformed front matter is the preflight's and lint's to report
            return False
        settings = fm.data.get("openwiki") if fm is not None else None
    return isinstance(settings, dict) and settings.get("ground") is False


def left_alone(page: str, text: str, exclude: Iterable[str], *, named: bool) -> str | None:
    """Why `ground` does not ground `page`, or None. `named`: the page was named, not found by --all."""
    if opted_out(text):
        return "its front matter says openwiki: {ground: false}"
    return None if named else history(page, exclude)
