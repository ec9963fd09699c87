"""`init`'s work: the wiki layout created, never overwriting a file. The config template is
also what `import` writes when the repository has no config yet."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openwiki_git.pages.indexes import GENERATED_INDEX_MARK
from openwiki_git.store.config import CONFIG_DIR, CONFIG_NAME

if TYPE_CHECKING:
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



def config_text(wiki_dir: str) -> str:
    """The `config.yml` a new wiki starts with."""
    return CONFIG_TEMPLATE.format(wiki_dir=wiki_dir)


def init(ws: Workspace) -> list[str]:
    """Create the config, the wiki's top `index.md` and `.claims/`; the repo paths created."""
    wiki = ws.wiki
    created = []
    with wiki.lock():
        targets = [
            (ws.repo.root / CONFIG_DIR / CONFIG_NAME, config_text(ws.config.wiki_dir)),
            (wiki.claims_path / ".gitkeep", ""),
        ]
        if not (wiki.wiki_path.is_dir() and wiki.pages()):  # an existing docs folder keeps its own landing page, or none
            targets.insert(1, (wiki.wiki_path / "index.md", INDEX_TEMPLATE))
        for path, text in targets:
            if path.exists() or path.is_symlink():
                continue
            wiki.write_bytes(path, text.encode("utf-8"))
            created.append(path.relative_to(ws.repo.root).as_posix())
    return created
