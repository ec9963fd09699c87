"""`init`'s work: the wiki layout created, never overwriting a file. The config template is
also what `import` writes when the repository has no config yet."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openwiki_git.pages.indexes import GENERATED_INDEX_MARK
from openwiki_git.store.config import CONFIG_DIR, CONFIG_NAME

if TYPE_CHECKING:
    from openwiki_git.store.site import Site
    from openwiki_git.store.workspace import Workspace

CONFIG_TEMPLATE = """\
# openwiki-git settings (schema: schemas/config.schema.json in the openwiki-git package)
wiki_dir: {wiki_dir}
# Insertion right at a cited range's edge: "fresh" (default) or "stale".
adjacent_insert: fresh
# Similarity (0-100) above which git's rename detection follows a renamed file.
rename_threshold: 50
# Re-verify claims whose last verification is older than this (e.g. 90d); unset: never.
# reverify_after: 90d
"""

INDEX_TEMPLATE = f"""\
---
okf_version: "0.2"
---

{GENERATED_INDEX_MARK}

# Files

# Directories
"""



SITE_NOTE = """\
# {wiki_dir}/ is the source of {name} site ({source}): site mode. Markers are invisible
# comments, and no citations block, index.md or OKF front matter is written into its pages.
# `site: none` makes it a plain wiki; `site: mkdocs` or `site: sphinx` names the generator.
"""


def config_text(wiki_dir: str, site: Site | None = None) -> str:
    """The `config.yml` a new wiki starts with (saying so when it is a docs site's source)."""
    text = CONFIG_TEMPLATE.format(wiki_dir=wiki_dir)
    if site is None:
        return text
    name = {"mkdocs": "an MkDocs", "sphinx": "a Sphinx"}[site.generator]
    return text + SITE_NOTE.format(wiki_dir=wiki_dir, name=name, source=site.config or "config: site")


def init(ws: Workspace) -> list[str]:
    """Create the config, and for a plain wiki its top `index.md` and `.claims/`; the repo paths
    created. A docs site's source gets the config alone: its pages are the site's, and `.claims/`
    comes with the first claim."""
    wiki = ws.wiki
    site = wiki.site
    created = []
    with wiki.lock():
        targets = [(ws.repo.root / CONFIG_DIR / CONFIG_NAME, config_text(ws.config.wiki_dir, site))]
        if site is None:
            targets.append((wiki.claims_path / ".gitkeep", ""))
        if site is None and not (wiki.wiki_path.is_dir() and wiki.pages()):  # an existing docs folder keeps its own landing page, or none
            targets.insert(1, (wiki.wiki_path / "index.md", INDEX_TEMPLATE))
        for path, text in targets:
            if path.exists() or path.is_symlink():
                continue
            wiki.write_bytes(path, text.encode("utf-8"))
            created.append(path.relative_to(ws.repo.root).as_posix())
    return created
