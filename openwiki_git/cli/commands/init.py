"""`openwiki-git init`: create the wiki layout. Idempotent; never overwrites a file.

In a repository whose docs are already a site (an `mkdocs.yml` at the root building `docs/`, or
a Sphinx `conf.py` in `docs/` or `doc/`), plain `init` offers to guard that folder in place
(site mode) on a terminal, and otherwise asks for the choice to be made with `--wiki-dir`,
writing nothing: a separate `.openwiki/` wiki beside a site is rarely what was meant."""

from __future__ import annotations

import argparse
import sys

from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import ConfigError
from openwiki_git.ground import site as ground_site
from openwiki_git.services.ground import site_notice
from openwiki_git.services.init import init
from openwiki_git.store.config import config_path
from openwiki_git.store.site import existing


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create the .openwiki/ layout, or set up an existing docs site", description=__doc__)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args, require_wiki=False)
    if getattr(args, "wiki_dir", None) is None and not config_path(ws.repo.root).exists():
        found = existing(ws.repo.root)
        if found is not None and found[0] != ws.config.wiki_dir:
            args.wiki_dir = _choose(found[0], found[1].config or found[0])
            ws = open_workspace(args, require_wiki=False)
    created = init(ws)
    for rel in created:
        print(f"created {rel}")
    if not created:
        print(f"{ws.config.wiki_dir}/ is already set up; nothing changed")
    site = site_notice(ws)  # site mode, or a site that renders the markers as text: say so
    if site is not None:
        print(ground_site.note(site))
    if ws.wiki.wiki_path.is_dir() and ws.wiki.pages():
        print("next: `openwiki-git ground --all --plan` lists the claims the pages' code references would make; "
              "`openwiki-git ground --all` writes them")
    else:
        print(f"next: write a page under {ws.config.wiki_dir}/ and ground it with `openwiki-git claim add`")
    return 0


def _choose(folder: str, config: str) -> str:
    """On a terminal, the wiki folder the user picks: the site's (default) or `.openwiki`."""
    question = f"{folder}/ is the source of a docs site ({config}). Guard its pages in place (site mode)? [Y/n] "
    if not sys.stdin.isatty():
        raise ConfigError(
            f"{folder}/ is the source of a docs site ({config}): say which folder to guard",
            f"`openwiki-git init --wiki-dir {folder}` guards its pages in place (site mode); "
            "`openwiki-git init --wiki-dir .openwiki` starts a separate wiki",
        )
    print(question, end="", flush=True)
    answer = sys.stdin.readline().strip().lower()
    return ".openwiki" if answer in ("n", "no") else folder
