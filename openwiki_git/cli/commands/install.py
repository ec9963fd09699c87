"""`openwiki-git install`: set up git so that branches which mark or re-anchor claims in the same
sidecar merge without a JSON conflict.

It configures the sidecar merge driver in this repository's `.git/config`:

    merge.openwiki-git.name   = openwiki-git sidecars, merged claim by claim
    merge.openwiki-git.driver = openwiki-git merge-driver %O %A %B %P

and adds `<wiki>/.claims/**/*.json merge=openwiki-git` and `<wiki>/**/*.md merge=openwiki-git`
(pages: their generated parts never conflict) to the top-level `.gitattributes` (commit that
file; every clone then needs `openwiki-git install` once, as git never copies config).
Idempotent: running it again changes nothing.
"""

from __future__ import annotations

import argparse

from openwiki_git.cli.args import open_workspace
from openwiki_git.services.install import install


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("install", help="configure the sidecar merge driver (git config + .gitattributes)", description=__doc__)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args, require_wiki=False)
    changed = install(ws)
    for what in changed:
        print(f"set {what}")
    if not changed:
        print("the sidecar merge driver is already installed; nothing changed")
    else:
        print("commit .gitattributes; run `openwiki-git install` once in every clone (git never copies config)")
    return 0
