"""`openwiki-git mcp`: the evidence graph as an MCP server (stdio), for MCP-capable agents.

Tools: locate, expand, check (stale claims by page), claim_show, and for verification
claims_for_change (the claims a change touches, with everything needed to decide them),
verify_claim (a verdict checked by the refresher's validator, written to the working tree as
verified by agent:NAME, never staged) and add_claim; the wiki's pages are resources
(`openwiki://page/<page>`). Errors come back as tool results the model can read (isError), never
as a crash: an unexpected one (a bug in openwiki-git) as one line naming the log file that holds
its traceback, as exit 3 does. The graph is reloaded when a page, sidecar, document or cited file
changes. Needs the `mcp` extra: pip install 'openwiki-git[mcp]'.

Configure an agent (Claude Desktop / Claude Code `mcpServers`):
  {"mcpServers": {"openwiki": {"command": "openwiki-git", "args": ["-C", "/path/to/repo", "mcp"]}}}
"""

from __future__ import annotations

import argparse

from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import UsageError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the evidence graph to agents over MCP (stdio)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent", metavar="NAME", help="record verifications as agent:NAME (default: the name the MCP client gives itself)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from openwiki_git.agents import mcp_server
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] in ("mcp", "pydantic"):
            raise UsageError("`openwiki-git mcp` needs the MCP SDK, which is not installed", "pip install 'openwiki-git[mcp]'") from None
        raise
    ws = open_workspace(args)
    if args.agent is not None and not args.agent.strip():
        raise UsageError("--agent is empty", "name the agent, e.g. --agent claude-code")
    from openwiki_git.cli import crashlog

    mcp_server.serve(ws.repo.root, wiki_dir=ws.config.wiki_dir, agent=args.agent, crash_log=crashlog.write)
    return 0
