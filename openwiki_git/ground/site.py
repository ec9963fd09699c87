"""Whether the docs site the pages are built into renders claim markers. Pure: the site
configuration's text in, a notice out.

A marker is a Markdown footnote reference (`[^c-1a2b3c4d]`); the citations block holds the
footnotes. MkDocs renders them only with the `footnotes` extension of Python-Markdown
(`markdown_extensions: [footnotes]`); without it each marker shows as a stray `[^c-...]` and
the block as plain text. Sphinx reads Markdown pages through MyST (`myst_parser`), whose
footnotes are on by default; without MyST the pages are not Markdown to Sphinx at all.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

MKDOCS_CONFIGS = ("mkdocs.yml", "mkdocs.yaml")
SPHINX_CONFIG = "conf.py"
_EXTENSIONS = re.compile(r"^markdown_extensions\s*:(.*?)(?=^\S|\Z)", re.MULTILINE | re.DOTALL)
_FOOTNOTES = re.compile(r"""(?:^|[\s\[,'"-])footnotes\b""")
_DOCS_DIR = re.compile(r"""^docs_dir\s*:\s*["']?([^"'\s#]+)""", re.MULTILINE)
_MYST = re.compile(r"""["'](?:myst_parser|myst_nb)["']""")


def candidates(wiki_dir: str) -> list[str]:
    """Where a site configuration for `wiki_dir` may be: in it, in its `source/`, and in each
    folder above it up to the repository's root (repository paths, nearest first)."""
    out = [posixpath.join(wiki_dir, SPHINX_CONFIG), posixpath.join(wiki_dir, "source", SPHINX_CONFIG)]
    folder = wiki_dir.rstrip("/")
    while True:
        folder = posixpath.dirname(folder)
        out += [posixpath.join(folder, name) for name in MKDOCS_CONFIGS]
        if not folder:
            break
    return [p.removeprefix("./") for p in out]


def notice(configs: dict[str, str], wiki_dir: str = "docs") -> dict[str, Any] | None:
    """The first configuration found (`configs`: repository path -> text, nearest first) that
    builds `wiki_dir` and would not render the markers, with how to make it; None when the site
    renders them or none is found. An `mkdocs.yml` builds its `docs_dir` (default `docs`)."""
    for path, text in configs.items():
        name = posixpath.basename(path)
        if name in MKDOCS_CONFIGS:
            if not _builds(path, text, wiki_dir):
                continue
            section = _EXTENSIONS.search(text)
            if section and _FOOTNOTES.search(section.group(1)):
                return None
            return {
                "config": path, "site": "mkdocs", "footnotes": False,
                "problem": "MkDocs renders the claim markers ([^c-...]) as footnotes only with the footnotes extension",
                "hint": f"add it to {path}: `markdown_extensions: [footnotes]` (or `- footnotes` under markdown_extensions)",
            }
        if name == SPHINX_CONFIG:
            if _MYST.search(text):
                return None
            return {
                "config": path, "site": "sphinx", "footnotes": False,
                "problem": "Sphinx reads Markdown pages, and renders their claim markers as footnotes, only through MyST",
                "hint": f"pip install myst-parser and add \"myst_parser\" to `extensions` in {path} (MyST's footnotes are on by default)",
            }
    return None


def _builds(config: str, text: str, wiki_dir: str) -> bool:
    m = _DOCS_DIR.search(text)
    docs = posixpath.normpath(posixpath.join(posixpath.dirname(config), m.group(1) if m else "docs"))
    wiki = posixpath.normpath(wiki_dir)
    return wiki == docs or wiki.startswith(docs + "/")


def note(site: dict[str, Any]) -> str:
    """The notice as one line of text output."""
    return f"note: {site['config']}: {site['problem']}; {site['hint']}"
