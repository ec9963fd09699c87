"""What `ground` and `init` say about the docs site the pages are built into. Pure. In site mode
(store/site.py) markers are invisible comments and need nothing from the generator. A plain wiki
kept inside a site folder (`site: none`) writes footnote markers, and the notice says when the
site would not render them:

A marker is a Markdown footnote reference (`[^c-1a2b3c4d]`); the citations block holds the
footnotes. MkDocs renders them only with the `footnotes` extension of Python-Markdown
(`markdown_extensions: [footnotes]`); without it each marker shows as a stray `[^c-...]` and
the block as plain text. Sphinx reads Markdown pages through MyST (`myst_parser`), whose
footnotes are on by default; without MyST the pages are not Markdown to Sphinx at all.
"""

from __future__ import annotations

import re
from typing import Any

from openwiki_git.formats import siteconf

_EXTENSIONS = re.compile(r"^markdown_extensions\s*:(.*?)(?=^\S|\Z)", re.MULTILINE | re.DOTALL)
_FOOTNOTES = re.compile(r"""(?:^|[\s\[,'"-])footnotes\b""")
_MYST = re.compile(r"""["'](?:myst_parser|myst_nb)["']""")


def described(generator: str, config: str | None) -> dict[str, Any]:
    """Site mode (store/site.py), as `ground --format json` and `init` report it."""
    return {"config": config, "site": generator, "markers": "comments", "footnotes": False}


def notice(configs: dict[str, str], wiki_dir: str = "docs") -> dict[str, Any] | None:
    """For a plain wiki inside a site folder (`site: none`, footnote markers): the first
    configuration found (`configs`: repository path -> text, nearest first) that builds `wiki_dir`
    and would not render the markers, with how to make it; None when the site renders them or
    none is found."""
    for path, text in configs.items():
        generator = siteconf.generator(path, text, wiki_dir)
        if generator == "mkdocs":
            section = _EXTENSIONS.search(text)
            if section and _FOOTNOTES.search(section.group(1)):
                return None
            return {
                "config": path, "site": "mkdocs", "footnotes": False,
                "problem": "MkDocs renders the claim markers ([^c-...]) as footnotes only with the footnotes extension",
                "hint": f"add it to {path}: `markdown_extensions: [footnotes]` (or `- footnotes` under markdown_extensions)",
            }
        if generator == "sphinx":
            if _MYST.search(text):
                return None
            return {
                "config": path, "site": "sphinx", "footnotes": False,
                "problem": "Sphinx reads Markdown pages, and renders their claim markers as footnotes, only through MyST",
                "hint": f"pip install myst-parser and add \"myst_parser\" to `extensions` in {path} (MyST's footnotes are on by default)",
            }
    return None


def note(site: dict[str, Any]) -> str:
    """The notice, or site mode, as one line of text output."""
    if "problem" in site:
        return f"note: {site['config']}: {site['problem']}; {site['hint']}"
    name = {"mkdocs": "an MkDocs", "sphinx": "a Sphinx"}[site["site"]]
    source = f" ({site['config']})" if site["config"] else " (config: site)"
    return (
        f"site: {name} site's source{source}: markers are invisible comments, and no citations block, "
        "index.md or OKF front matter is written"
    )
