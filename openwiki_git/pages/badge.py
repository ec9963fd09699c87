"""The review badge of a docs site's page: one short, styled element at the end of a page with
claims awaiting review, written only when the config asks (`site_review_badge: true`; by default
a site's readers see nothing of the review queue). Pure: text in, text out.

Markdown (MkDocs, MyST) gets an inline HTML element between two generated comments; a
reStructuredText page a paragraph with Sphinx's `rst-class`, between two comment lines. The
element carries the class `openwiki-git-review` for the site's stylesheet and says "under review";
its title (in Markdown) counts the statements. The block goes when the last mark is cleared.
"""

from __future__ import annotations

import re

CLASS = "openwiki-git-review"
_MD = re.compile(r"\n*<!-- openwiki-git:review -->\n.*?<!-- /openwiki-git:review -->\n?", re.S)
_RST = re.compile(r"\n*\.\. openwiki-git:review\n.*?\.\. /openwiki-git:review\n?", re.S)


def render(marked: int, *, rst: bool) -> str:
    """The badge for `marked` statements awaiting review ("" for none)."""
    if marked <= 0:
        return ""
    what = f"{marked} statement{'s' if marked != 1 else ''} on this page await{'s' if marked == 1 else ''} review"
    if rst:
        return f".. openwiki-git:review\n\n.. rst-class:: {CLASS}\n\nUnder review.\n\n.. /openwiki-git:review\n"
    return f'<!-- openwiki-git:review -->\n<span class="{CLASS}" title="{what}">under review</span>\n<!-- /openwiki-git:review -->\n'


def sync(text: str, marked: int, *, rst: bool) -> str:
    """The page with its badge in step with `marked` (only the badge's block changes)."""
    block = render(marked, rst=rst)
    pattern = _RST if rst else _MD
    match = pattern.search(text)
    if match is not None:
        start, end = match.span()
        if not block:
            return text[:start].rstrip("\n") + "\n" + text[end:]
        return text[:start] + ("\n\n" if start > 0 else "") + block + text[end:]
    if not block:
        return text
    return (text if text.endswith("\n") else text + "\n") + "\n" + block
