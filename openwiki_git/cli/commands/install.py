"""`openwiki-git install`: set up git so that branches which mark or re-anchor claims in the same
sidecar merge without a JSON conflict.

It configures the sidecar merge driver in this repository's `.git/config`:

    merge.openwiki-git.name   = openwiki-git sidecars, merged claim by claim
    merge.openwiki-git.driver = openwiki-git merge-driver %O %A %B %P

and adds `<wiki>/.claims/**/*.json merge=openwiki-git`, `<wiki>/**/*.md merge=openwiki-git` and `<wiki>/**/*.rst merge=openwiki-git`
(pages: their generated parts never conflict) to the top-level `.gitattributes` (commit that
file; every clone then needs `openwiki-git install` once, as git never copies config).
Idempotent: running it again changes nothing.

With `--mcp CLIENT` (claude, cursor or vscode; repeatable) it instead writes that MCP client's
project config to start `openwiki-git mcp` (`.mcp.json` and `.cursor/mcp.json`: `{"mcpServers":
{"openwiki-git": ...}}`; `.vscode/mcp.json`: `{"servers": {"openwiki-git": {"type": "stdio", ...}}}`)
and a section in `AGENTS.md` telling agents to call `claims_for_change` after editing code and
`verify_claim` before finishing. The entry is merged into an existing config; a config that does
not parse, or has a different `openwiki-git` entry, is refused (exit 2) with the entry to add,
and nothing is written. The AGENTS.md section is appended once, between
`<!-- openwiki-git:agents:begin -->` and `<!-- openwiki-git:agents:end -->`.
"""

from __future__ import annotations

import argparse

from openwiki_git.cli.args import open_workspace
from openwiki_git.services.install import install
from openwiki_git.services.mcp_install import CLIENTS, install_mcp


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("install", help="configure the sidecar merge driver (git config + .gitattributes), or an MCP client",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mcp", action="append", choices=sorted(CLIENTS), metavar="CLIENT",
                   help="write this MCP client's project config and the AGENTS.md section instead: "
                   + ", ".join(sorted(CLIENTS)) + " (repeatable)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args, require_wiki=False)
    if args.mcp:
        written = install_mcp(ws, args.mcp)
        for path in written:
            print(f"wrote {path}")
        if not written:
            print("the MCP config and the AGENTS.md section are already there; nothing changed")
        return 0
    changed = install(ws)
    for what in changed:
        print(f"set {what}")
    if not changed:
        print("the sidecar merge driver is already installed; nothing changed")
    else:
        print("commit .gitattributes; run `openwiki-git install` once in every clone (git never copies config)")
    return 0
