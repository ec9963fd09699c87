"""`openwiki-git init`: create the wiki layout. Idempotent; never overwrites a file."""

from __future__ import annotations

import argparse

from openwiki_git.cli.args import open_workspace
from openwiki_git.store.config import CONFIG_DIR, CONFIG_NAME

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

INDEX_TEMPLATE = """\
---
okf_version: "0.2"
---

# Files

# Directories
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create the .openwiki/ layout", description=__doc__)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args, require_wiki=False)
    wiki = ws.wiki
    created = []
    with wiki.lock():
        targets = [
            (ws.repo.root / CONFIG_DIR / CONFIG_NAME, CONFIG_TEMPLATE.format(wiki_dir=ws.config.wiki_dir)),
            (wiki.wiki_path / "index.md", INDEX_TEMPLATE),
            (wiki.claims_path / ".gitkeep", ""),
        ]
        for path, text in targets:
            if path.exists() or path.is_symlink():
                continue
            wiki.write_bytes(path, text.encode("utf-8"))
            created.append(path.relative_to(ws.repo.root).as_posix())
    for rel in created:
        print(f"created {rel}")
    if not created:
        print(f"{ws.config.wiki_dir}/ is already set up; nothing changed")
    print(f"next: write a page under {ws.config.wiki_dir}/ and ground it with `openwiki-git claim add`")
    return 0

