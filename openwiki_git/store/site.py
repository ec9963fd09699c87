"""Site mode: whether the wiki folder is a docs site's source (MkDocs or Sphinx), whose pages are
built for readers. Then the tool's bookkeeping stays out of what readers see: markers are the
generator's own invisible comments, no citations block or `index.md` bundle is written, and OKF
front matter is optional (pages/okf.py's `uses_okf` is the one predicate validate, lint, check and
the writers ask).

The config's `site:` decides when set (`mkdocs`, `sphinx`, or `none` for a plain wiki inside a
site folder); otherwise the nearest site configuration that builds the folder does
(formats/siteconf.py). A plain `.openwiki/` wiki, or an OpenWiki wiki, is never a site unless the
config says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from openwiki_git.formats import siteconf
from openwiki_git.store.config import Config


@dataclass(frozen=True, slots=True)
class Site:
    generator: str  # "mkdocs" | "sphinx"
    config: str | None  # the site configuration's repository path; None when only `site:` names it


def detect(root: Path, config: Config) -> Site | None:
    """The docs site the wiki folder is built into, or None (a plain wiki)."""
    declared = config.raw.get("site")
    if declared == "none":
        return None
    hidden = siteconf.hidden(config.wiki_dir)  # `.openwiki/`: no site builds it
    found = None if hidden or config.strict_openwiki else _configured(root, config.wiki_dir)
    if declared in siteconf.GENERATORS:
        return Site(declared, found.config if found is not None and found.generator == declared else None)
    return found


def _configured(root: Path, wiki_dir: str) -> Site | None:
    got = siteconf.found(wiki_dir, lambda path: _read(root / path))
    return None if got is None else Site(*got)


# Where `init` looks for an existing site when no wiki folder is named: an `mkdocs.yml` at the
# root builds its `docs_dir`; a Sphinx project keeps `conf.py` in docs/ or doc/ (or their source/).
_SPHINX_FOLDERS = ("docs", "docs/source", "doc", "doc/source")


def existing(root: Path) -> tuple[str, Site] | None:
    """An existing docs site's source folder in the repository (its path, the site), or None."""
    for name in siteconf.MKDOCS_CONFIGS:
        text = _read(root / name)
        if text is not None:
            folder = siteconf.docs_dir(name, text)
            if (root / folder).is_dir():
                return folder, Site("mkdocs", name)
    for folder in _SPHINX_FOLDERS:
        config = f"{folder}/{siteconf.SPHINX_CONFIG}"
        text = _read(root / config)
        if text is not None and siteconf.generator(config, text, folder) == "sphinx":
            return folder, Site("sphinx", config)
    return None


def _read(path: Path) -> str | None:
    """A site configuration's text; None when it is missing, a link, over 1 MiB or unreadable."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1 << 20:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
