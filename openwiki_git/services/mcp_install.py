"""`install --mcp CLIENT`: the project config of an MCP client (Claude Code `.mcp.json`, Cursor
`.cursor/mcp.json`, VS Code `.vscode/mcp.json`) made to start `openwiki-git mcp`, and a section of
`AGENTS.md` telling agents to check and verify the claims their change touches.

Never overwrites what a user wrote: the server entry is merged into an existing config; a config
that does not parse, or already has a different `openwiki-git` entry, is an error that shows the
entry to add, and then nothing at all is written. AGENTS.md gets the section once, between
markers, so it is found again. Idempotent: a second run changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from openwiki_git.errors import UsageError
from openwiki_git.store.wiki import atomic_write
from openwiki_git.store.workspace import Workspace

SERVER_NAME = "openwiki-git"
AGENTS_FILE = "AGENTS.md"
BEGIN = "<!-- openwiki-git:agents:begin -->"
END = "<!-- openwiki-git:agents:end -->"
SECTION = f"""{BEGIN}
## The wiki's claims (openwiki-git)

This repository's wiki states facts about the code, each citing source lines. Through the
`openwiki-git` MCP server:

- After editing code, call `claims_for_change`: it lists the claims whose cited lines you changed
  (and those already marked stale), with the lines as they were verified and as they are now.
- Before finishing, call `verify_claim` on each one: `confirm` if it still holds, `revise` with the
  corrected sentence, or `retract`, quoting the current lines exactly. A refused verdict says why;
  fix it or leave the claim to a person. Never state a stale claim as a fact.
{END}
"""


@dataclass(frozen=True)
class Client:
    path: str  # the project config, relative to the repository root
    key: str  # the object holding the servers
    entry: dict[str, Any]


_IN_WORKSPACE = ["-C", "${workspaceFolder}", "mcp"]  # Cursor and VS Code expand it to the project's root
CLIENTS = {
    "claude": Client(".mcp.json", "mcpServers", {"command": "openwiki-git", "args": ["mcp"]}),  # started in the project
    "cursor": Client(".cursor/mcp.json", "mcpServers", {"command": "openwiki-git", "args": _IN_WORKSPACE}),
    "vscode": Client(".vscode/mcp.json", "servers", {"type": "stdio", "command": "openwiki-git", "args": _IN_WORKSPACE}),
}


def install_mcp(ws: Workspace, clients: list[str]) -> list[str]:
    """Write each client's config and the AGENTS.md section where missing; the files changed.
    Every file is planned before any is written: one refusal writes nothing."""
    root = ws.repo.root
    planned: list[tuple[str, bytes]] = []
    for name in dict.fromkeys(clients):
        client = CLIENTS[name]
        new = _merged(client, _read(root / client.path))
        if new is not None:
            planned.append((client.path, new))
    agents = _agents_section(_read(root / AGENTS_FILE))
    if agents is not None:
        planned.append((AGENTS_FILE, agents))
    if planned:
        with ws.wiki.lock():
            for rel, data in planned:
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                atomic_write(root / rel, data, root=root)
    return [rel for rel, _ in planned]


def _read(path: Any) -> str | None:
    if path.is_symlink():
        raise UsageError(f"{path.name}: a symlink; refusing to write through it", "replace the link with a file")
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path.name}: cannot read: {e}") from None


def _snippet(client: Client) -> str:
    return json.dumps({client.key: {SERVER_NAME: client.entry}})


def _merged(client: Client, text: str | None) -> bytes | None:
    """The config with the server entry merged in; None when it is already there."""
    if text is None or not text.strip():
        data: dict[str, Any] = {}
    else:
        try:
            data = json.loads(text)
        except ValueError as e:
            raise UsageError(f"{client.path}: not valid JSON ({e}); nothing was written", f"add by hand: {_snippet(client)}") from None
        if not isinstance(data, dict):
            raise UsageError(f"{client.path}: $: not a JSON object; nothing was written", f"add by hand: {_snippet(client)}")
    servers = data.setdefault(client.key, {})
    if not isinstance(servers, dict):
        raise UsageError(f"{client.path}: $.{client.key}: not an object; nothing was written", f"add by hand: {_snippet(client)}")
    have = servers.get(SERVER_NAME)
    if have == client.entry:
        return None
    if have is not None:
        raise UsageError(
            f"{client.path}: $.{client.key}.{SERVER_NAME}: already set to something else; nothing was written",
            f"to start openwiki-git's MCP server it should be {json.dumps(client.entry)}; edit it by hand, or keep yours",
        )
    servers[SERVER_NAME] = client.entry
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _agents_section(text: str | None) -> bytes | None:
    """AGENTS.md with the section appended once (None when it is there already)."""
    if text is not None and BEGIN in text:
        return None
    if not text:
        return SECTION.encode("utf-8")
    return (text.rstrip("\n") + "\n\n" + SECTION).encode("utf-8")
