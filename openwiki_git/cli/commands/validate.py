"""`openwiki-git validate`: check the config, every sidecar and every page's front matter against
the bundled schemas. Each problem is printed as `file: location: message`; exit 1 if any."""

from __future__ import annotations

import argparse

from openwiki_git.cli.args import open_workspace
from openwiki_git.services.validate import validate
from openwiki_git.store.config import config_path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check config, sidecars and front matter against the schemas", description=__doc__)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args)  # a config that does not validate is reported here, exit 2
    found = validate(ws)
    for line in found:
        print(line)
    checked = len(ws.wiki.sidecar_pages())
    print(f"{len(found)} problem(s) in {config_path(ws.repo.root).name}, {checked} sidecar(s) and {len(ws.wiki.pages())} page(s)")
    return 1 if found else 0
