"""No crash, no traceback to an agent (issue 33, item 3): after a head claim is verified through
verify_claim, every MCP tool and `locate`/`expand`/`check` answer, over the SDK's real stdio
client; an error openwiki-git did not expect comes back as one line naming the log file."""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402

from openwiki_git.agents.service import GraphService  # noqa: E402
from openwiki_git.cli import crashlog  # noqa: E402
from tests.support.agent_session import build_shared_file_repo, data, server_params  # noqa: E402

RACY_S = 2.1  # past git's racy window (caches/check_entries.py): the graph's per-file results are reused from then on


def test_every_tool_answers_after_a_head_claim_is_verified_over_the_real_client(tmp_path: Path) -> None:
    repo, ids = build_shared_file_repo(tmp_path / "repo")
    time.sleep(RACY_S)  # an agent reads first: the files are no longer racy, so the first load's results are kept
    answers: dict[str, dict] = {}

    async def main() -> None:
        async with stdio_client(server_params(repo.root)) as (read, write), ClientSession(
            read, write, client_info=Implementation(name="scripted-agent", version="1")
        ) as session:
            await session.initialize()
            assert not (await session.call_tool("locate", {"terms": "client"})).is_error
            verdict = {
                "claim_id": ids["head"], "verdict": "confirm", "rationale": "The signature still defaults verify to True.",
                "cited_ranges": [
                    {"resource": "repo://src/client.py#Client:head", "quote": "def __init__(self, verify=True, timeout=10.0):"}
                ],
            }
            got = await session.call_tool("verify_claim", verdict)
            assert not got.is_error, got.content[0].text
            await anyio.sleep(RACY_S)
            for name, args in (("check", {}), ("locate", {"terms": "client verifies"}), ("expand", {"node": ids["send"]}),
                               ("claim_show", {"claim": ids["module"]}), ("claims_for_change", {})):
                result = await session.call_tool(name, args)
                assert not result.is_error, (name, result.content[0].text)
                answers[name] = data(result)

    anyio.run(main)
    assert answers["check"]["summary"]["stale"] == 1 and answers["check"]["stale_claims"] == [ids["get"]]
    assert [c["claim_id"] for c in answers["claims_for_change"]["claims"]] == [ids["get"]]
    for argv in (["locate", "client"], ["expand", "src/client.py"], ["check"]):
        assert repo.run(*argv) in (0, 1), argv


def _in_process_server(root: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """`openwiki-git mcp`'s server, in this process, its module forgotten after the test (so a
    test that hides the SDK imports it afresh)."""
    import sys

    import openwiki_git.agents as agents

    monkeypatch.delitem(sys.modules, "openwiki_git.agents.mcp_server", raising=False)
    monkeypatch.setattr(agents, "mcp_server", None, raising=False)  # restored (absent) at teardown
    monkeypatch.delattr(agents, "mcp_server")
    from openwiki_git.agents import mcp_server

    monkeypatch.setitem(sys.modules, "openwiki_git.agents.mcp_server", mcp_server)  # removed again at teardown
    return mcp_server.make_server(root, crash_log=crashlog.write)


def test_an_unexpected_error_is_one_line_naming_the_log_never_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = build_shared_file_repo(tmp_path / "repo")

    def broken(self: GraphService, page: str | None = None) -> dict:
        raise KeyError(("repo://src/client.py#Client:head", "repo-head-v2:sha256:0"))

    monkeypatch.setattr(GraphService, "_check", broken)
    monkeypatch.chdir(repo.root)  # as `openwiki-git -C ROOT mcp` runs: the log goes to this repository's git directory
    server = _in_process_server(repo.root, monkeypatch)
    texts: list[str] = []

    async def main() -> None:
        async with Client(server) as client:
            result = await client.call_tool("check", {})
            assert result.is_error
            texts.append(result.content[0].text)
            assert not (await client.call_tool("locate", {"terms": "client"})).is_error  # the others still answer

    anyio.run(main)
    (text,) = texts
    assert "\n" not in text and "Traceback" not in text
    error = json.loads(text[text.index("{") :])
    log = repo.root / ".git" / "openwiki-git" / "last-error.log"
    assert error["error"].startswith("check: unexpected KeyError: ") and f"details in {log}" in error["error"]
    assert "Traceback" in log.read_text("utf-8") and "in broken" in log.read_text("utf-8")
