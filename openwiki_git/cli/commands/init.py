"""`openwiki-git init`: create the wiki layout. Idempotent; never overwrites a file."""

from __future__ import annotations

import argparse

from openwiki_git.cli.args import open_workspace
from openwiki_git.ground import site as ground_site
from openwiki_git.services.ground import site_notice
from openwiki_git.services.init import init


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create the .openwiki/ layout", description=__doc__)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args, require_wiki=False)
    created = init(ws)
    for rel in created:
        print(f"created {rel}")
    if not created:
        print(f"{ws.config.wiki_dir}/ is already set up; nothing changed")
    site = site_notice(ws)  # a docs site that renders the markers as text: say how to fix it
    if site is not None:
        print(ground_site.note(site))
    print(f"next: write a page under {ws.config.wiki_dir}/ and ground it with `openwiki-git claim add`")
    return 0
