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
from openwiki_git.store.wiki import atomic_write

DRIVER_NAME = "openwiki-git"
DRIVER = "openwiki-git merge-driver %O %A %B %P"
DESCRIPTION = "openwiki-git sidecars, merged claim by claim"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("install", help="configure the sidecar merge driver (git config + .gitattributes)", description=__doc__)
    p.set_defaults(run=run)


def attributes_lines(wiki_dir: str) -> list[str]:
    return [f"{wiki_dir}/.claims/**/*.json merge={DRIVER_NAME}", f"{wiki_dir}/**/*.md merge={DRIVER_NAME}"]


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args, require_wiki=False)
    changed = []
    for key, value in ((f"merge.{DRIVER_NAME}.name", DESCRIPTION), (f"merge.{DRIVER_NAME}.driver", DRIVER)):
        if ws.repo.config_value(key) != value:
            ws.repo.set_config(key, value)
            changed.append(f"git config {key}")
    path = ws.repo.root / ".gitattributes"
    data = path.read_bytes() if path.is_file() else b""
    text = data.decode("utf-8", errors="replace")
    present = {existing.strip() for existing in text.splitlines()}
    missing = [line for line in attributes_lines(ws.config.wiki_dir) if line not in present]
    if missing:
        with ws.wiki.lock():
            prefix = text if not text or text.endswith("\n") else text + "\n"
            atomic_write(path, (prefix + "".join(m + "\n" for m in missing)).encode("utf-8"), root=ws.repo.root)
        changed.append(".gitattributes")
    for what in changed:
        print(f"set {what}")
    if not changed:
        print("the sidecar merge driver is already installed; nothing changed")
    else:
        print("commit .gitattributes; run `openwiki-git install` once in every clone (git never copies config)")
    return 0
