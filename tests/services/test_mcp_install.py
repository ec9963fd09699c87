"""`install --mcp CLIENT` (issue 22, item 2): each client's project config, merged into what a user
wrote, refused (exit 2, nothing written) when it does not parse or conflicts; AGENTS.md's section
appended once; idempotent."""

from __future__ import annotations

import json

from openwiki_git.services.mcp_install import BEGIN, END


def test_each_client_gets_its_config_and_agents_md_its_section_once(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    wiki_repo.write("AGENTS.md", "# Agents\n\nRun the tests.\n")
    assert wiki_repo.run("install", "--mcp", "claude", "--mcp", "cursor", "--mcp", "vscode") == 0
    out = capsys.readouterr().out
    assert "wrote .mcp.json" in out and "wrote .cursor/mcp.json" in out and "wrote .vscode/mcp.json" in out
    assert json.loads(wiki_repo.read(".mcp.json")) == {"mcpServers": {"openwiki-git": {"command": "openwiki-git", "args": ["mcp"]}}}
    cursor = json.loads(wiki_repo.read(".cursor/mcp.json"))["mcpServers"]["openwiki-git"]
    assert cursor["args"] == ["-C", "${workspaceFolder}", "mcp"]
    vscode = json.loads(wiki_repo.read(".vscode/mcp.json"))
    assert vscode["servers"]["openwiki-git"]["type"] == "stdio" and vscode["servers"]["openwiki-git"]["command"] == "openwiki-git"
    agents = wiki_repo.read("AGENTS.md")
    assert agents.startswith("# Agents\n\nRun the tests.\n\n" + BEGIN) and agents.rstrip().endswith(END)
    assert "claims_for_change" in agents and "verify_claim" in agents
    before = wiki_repo.snapshot()
    assert wiki_repo.run("install", "--mcp", "claude", "--mcp", "vscode") == 0
    assert "nothing changed" in capsys.readouterr().out
    assert wiki_repo.snapshot() == before


def test_an_existing_config_is_merged_never_overwritten(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    mine = {"mcpServers": {"other": {"command": "other-server"}}, "note": "mine"}
    wiki_repo.write(".mcp.json", json.dumps(mine))
    assert wiki_repo.run("install", "--mcp", "claude") == 0
    merged = json.loads(wiki_repo.read(".mcp.json"))
    assert merged["note"] == "mine" and merged["mcpServers"]["other"] == {"command": "other-server"}
    assert merged["mcpServers"]["openwiki-git"]["args"] == ["mcp"]


def test_a_broken_or_conflicting_config_is_refused_and_nothing_is_written(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    wiki_repo.write(".vscode/mcp.json", '{"servers": {"openwiki-git": {"command": "something-else"}}}')
    wiki_repo.write(".cursor/mcp.json", "{ not json")
    before = wiki_repo.snapshot()
    assert wiki_repo.run("install", "--mcp", "claude", "--mcp", "vscode") == 2
    err = capsys.readouterr().err
    assert "error: .vscode/mcp.json: $.servers.openwiki-git: already set to something else; nothing was written" in err
    assert '"type": "stdio"' in err and "Traceback" not in err
    assert wiki_repo.run("install", "--mcp", "cursor") == 2
    err = capsys.readouterr().err
    assert "error: .cursor/mcp.json: not valid JSON" in err and '"mcpServers"' in err
    assert wiki_repo.snapshot() == before  # not even .mcp.json or AGENTS.md
