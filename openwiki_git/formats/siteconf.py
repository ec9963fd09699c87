"""Which docs site builds a wiki folder, read from the site's own configuration: an MkDocs
`mkdocs.yml` whose `docs_dir` holds the folder, or a Sphinx `conf.py` in the folder or above it
(or in its `source/`, Sphinx's split layout). Pure, and `re` alone: the configurations' text in,
the answer out; store/site.py reads the files.

A site's pages are rendered for readers, so the tool's bookkeeping stays out of them (site mode:
store/site.py). Only the few settings the tool needs are read, by line, never by running or fully
parsing the configuration (a `conf.py` is a program; an `mkdocs.yml` may carry `!!python` tags).
"""

from __future__ import annotations

import posixpath
import re

MKDOCS_CONFIGS = ("mkdocs.yml", "mkdocs.yaml")
SPHINX_CONFIG = "conf.py"
GENERATORS = ("mkdocs", "sphinx")
# Patterns, compiled on first use (re caches them): check's warm path imports this module for a
# folder no site builds and reads no configuration.
_DOCS_DIR = r"""(?m)^docs_dir\s*:\s*["']?([^"'\s#]+)"""
# A conf.py is Sphinx's when it sets what Sphinx reads (a project's other conf.py files do not).
_SPHINX_SETTING = r"(?m)^(?:extensions|master_doc|root_doc|source_suffix|html_theme|project)\s*="


TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths; type checkers read it as True
if TYPE_CHECKING:
    from collections.abc import Callable


def hidden(wiki_dir: str) -> bool:
    """A wiki folder no site builds: one inside a hidden folder (`.openwiki/`)."""
    return any(part.startswith(".") for part in wiki_dir.split("/"))


def found(wiki_dir: str, read: Callable[[str], str | None]) -> tuple[str, str] | None:
    """The nearest site configuration that builds `wiki_dir` (candidates, generator): its
    generator and repository path, or None. `read(path)` gives a configuration's text, None when
    there is none to read: the caller's I/O (store/site.py; the check cache's stdlib paths)."""
    for path in candidates(wiki_dir):
        text = read(path)
        if text is not None:
            name = generator(path, text, wiki_dir)
            if name is not None:
                return name, path
    return None


def candidates(wiki_dir: str) -> list[str]:
    """Where a site configuration for `wiki_dir` may be, nearest first (repository paths): a
    `conf.py` in it or its `source/`, then in each folder above it, each folder's `mkdocs.yml`
    too, up to the repository's root."""
    wiki = wiki_dir.strip("/")
    out = [posixpath.join(wiki, SPHINX_CONFIG), posixpath.join(wiki, "source", SPHINX_CONFIG)]
    out += [posixpath.join(wiki, name) for name in MKDOCS_CONFIGS]
    folder = wiki
    while folder:
        folder = posixpath.dirname(folder)
        out += [posixpath.join(folder, name) for name in (SPHINX_CONFIG, *MKDOCS_CONFIGS)]
    return [p.removeprefix("./") for p in out]


def generator(config: str, text: str, wiki_dir: str) -> str | None:
    """"mkdocs" or "sphinx" when the configuration at repository path `config` builds the wiki
    folder `wiki_dir`, else None."""
    name = posixpath.basename(config)
    wiki = posixpath.normpath(wiki_dir)
    if name in MKDOCS_CONFIGS:
        docs = docs_dir(config, text)
        return "mkdocs" if wiki == docs or wiki.startswith(docs + "/") else None
    if name == SPHINX_CONFIG and re.search(_SPHINX_SETTING, text):
        src = posixpath.dirname(config) or "."
        inside = src == "." or wiki == src or wiki.startswith(src + "/")
        split_layout = src == posixpath.join(wiki, "source")  # docs/source/conf.py for wiki_dir docs
        return "sphinx" if inside or split_layout else None
    return None



def docs_dir(config: str, text: str) -> str:
    """The folder an `mkdocs.yml` at repository path `config` builds (`docs_dir`, default `docs`)."""
    m = re.search(_DOCS_DIR, text)
    return posixpath.normpath(posixpath.join(posixpath.dirname(config), m.group(1) if m else "docs"))
