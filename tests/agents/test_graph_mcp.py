"""`openwiki-git mcp` through the official SDK's stdio client: the tools are listed with their
argument descriptions, each tool answers, errors come back as results (isError), the wiki's
pages are resources, and an edited cited file is seen by the next call (never `fresh` next to
edited text)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

mcp = pytest.importorskip("mcp")
from mcp.client.session import ClientSession  # noqa: E402 - after importorskip, so the module skips without mcp
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402 - likewise

_spec = importlib.util.spec_from_file_location("adr_corpus", Path(__file__).parents[1] / "fixtures/adr/corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name, value in corpus.GIT_ENV.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "repo"
    corpus.build(path)
    yield path


async def _session_run(root: Path, body) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "openwiki_git", "-C", str(root), "mcp"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await body(session)


def _data(result) -> dict:
    return json.loads(result.content[0].text)


def test_mcp_tools_resources_and_errors(root: Path) -> None:
    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"locate", "expand", "check", "claim_show", "claims_for_change", "verify_claim", "add_claim"}
        props = tools["expand"].input_schema["properties"]
        assert "superseded_by" in tools["expand"].description and "edge types" in props["edges"]["description"].lower()
        assert all(p.get("description") for t in tools.values() for p in t.input_schema["properties"].values())

        found = _data(await session.call_tool("locate", {"terms": "how users authenticate to the cluster"}))
        top = found["results"][0]
        assert top["superseded"] is True and top["head"].endswith("0011-oidc-single-sign-on-for-kubernetes.md")
        walk = _data(await session.call_tool("expand", {"node": top["id"], "edges": ["superseded_by"], "hops": 10}))
        assert walk["end"]["node"]["id"] == top["head"]
        checked = _data(await session.call_tool("check", {}))
        flagged = {c["statement"] for claims in checked["pages"].values() for c in claims}
        assert "Orders are stored in a single PostgreSQL primary with two replicas." in flagged
        claim_id = checked["stale_claims"][0]
        shown = _data(await session.call_tool("claim_show", {"claim": claim_id[:14]}))
        assert shown["node"]["id"] == claim_id and shown["node"]["evidence"][0]["text"]

        missing = await session.call_tool("expand", {"node": "ADR-0999"})
        assert missing.is_error and "not in the graph" in missing.content[0].text
        wrong = await session.call_tool("locate", {"terms": "x", "limit": "many"})
        assert wrong.is_error

        resources = (await session.list_resources()).resources
        assert [str(r.uri) for r in resources] == ["openwiki://page/platform.md"]
        page = await session.read_resource("openwiki://page/platform.md")
        assert "Platform decisions in force" in page.contents[0].text

    anyio.run(_session_run, root, body)


def test_an_edited_cited_file_is_seen_by_the_next_call(root: Path) -> None:
    async def body(session: ClientSession) -> None:
        before = _data(await session.call_tool("claim_show", {"claim": _claim(root, "CockroachDB")}))
        assert before["node"]["status"] == "fresh"
        path = root / "docs/adr/0019-distributed-sql-for-orders.md"
        path.write_text(path.read_text("utf-8").replace("CockroachDB across three regions", "YugabyteDB in one region"), "utf-8")
        after = _data(await session.call_tool("claim_show", {"claim": _claim(root, "CockroachDB")}))
        assert after["node"]["status"] == "stale" and "YugabyteDB" in after["node"]["evidence"][0]["text"]

    anyio.run(_session_run, root, body)


def _claim(root: Path, word: str) -> str:
    sidecar = json.loads((root / ".openwiki/.claims/platform.json").read_text("utf-8"))
    return next(c["id"] for c in sidecar["claims"] if word in c["statement"])
