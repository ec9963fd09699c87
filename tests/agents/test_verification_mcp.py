"""The verification tools over the SDK's real stdio client (issue 22, item 2): claims_for_change
gives what deciding takes, verify_claim applies an honest verdict as agent:NAME and refuses every
hostile one with nothing written, add_claim checks quotes and never duplicates."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402

from tests.support.agent_session import build_marked_repo, data, honest_agent, hostile_agent, server_params  # noqa: E402


def _run(root: Path, body, *extra: str) -> None:  # type: ignore[no-untyped-def]
    async def main() -> None:
        async with stdio_client(server_params(root, *extra)) as (read, write), ClientSession(
            read, write, client_info=Implementation(name="scripted-agent", version="1")
        ) as session:
            await session.initialize()
            await body(session)

    anyio.run(main)


def test_hostile_verdicts_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    repo, ids = build_marked_repo(tmp_path / "repo")
    before = repo.snapshot()
    got: list = []

    async def body(session: ClientSession) -> None:
        got.extend(await hostile_agent(session, ids))

    _run(repo.root, body)
    assert [refused for _, refused, _ in got] == [True] * 6
    errors = dict((name, text) for name, _, text in got)
    assert "does not match the current text of repo://src/billing.py#L3" in errors["fabricated quote"]
    assert "src/auth.py was not shown" in errors["quote from another file"]
    assert "only comments or strings" in errors["a comment as proof of code"]
    assert "reads like instructions to a model" in errors["instructions in a revised statement"]
    assert "src/billing.py#L3" in errors["a claim id of another page"] and "verdict refused" in errors["a claim id of another page"]
    assert '$.verify_policy[0]: pages \\"security/**\\" allow [human]' in errors["a people-only page"]
    assert repo.snapshot() == before  # tree bytes unchanged
    assert repo.git("status", "--porcelain") == ""


def test_an_honest_agent_clears_every_mark_it_may_verify_from_one_claims_for_change(tmp_path: Path) -> None:
    repo, ids = build_marked_repo(tmp_path / "repo")
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"claims_for_change", "verify_claim", "add_claim"} <= tools
        found = data(await session.call_tool("claims_for_change", {}))
        seen.update({c["claim_id"]: c for c in found["claims"]})
        seen["result"] = await honest_agent(session)

    _run(repo.root, body)
    tax = seen[ids["tax"]]
    assert tax["status"] == "stale" and tax["why"] == "marked" and tax["statement"] == "The tax rate is 20 percent."
    assert tax["evidence"][0]["now_at"] == "L3-L3" and tax["may_cite"] == ["repo://src/billing.py#L1-L7"]
    assert "-     3 | TAX_RATE = 0.2  # the VAT rate\n+     3 | TAX_RATE = 0.20  # VAT, standard rate" in tax["context"]
    assert "current_text" not in tax["evidence"][0] and tax["context"].count("TAX_RATE = 0.20") == 1  # every text once
    assert tax["cause"] and tax["cause"][0]["resource"] == "repo://src/billing.py#L3-L3"
    assert seen[ids["ttl"]]["agents_may_verify"] is False and "security/**" in seen[ids["ttl"]]["policy"]
    assert seen["result"] == (3, 3, [])
    sidecar = json.loads(repo.read(".openwiki/.claims/guide.json"))
    assert {c.get("verifiedBy") for c in sidecar["claims"]} == {"agent:scripted-agent"}
    assert all("mark" not in c for c in sidecar["claims"])
    # The working tree only: nothing staged, the security page still marked.
    assert repo.git("diff", "--cached", "--name-only") == ""
    assert "mark" in json.loads(repo.read(".openwiki/.claims/security/tokens.json"))["claims"][0]


def test_claims_for_change_follows_an_uncommitted_edit_and_add_claim_never_duplicates(tmp_path: Path) -> None:
    repo, ids = build_marked_repo(tmp_path / "repo")
    for name in ("tax", "total", "refund"):
        assert repo.run("claim", "confirm", ids[name], "--by", "human:ada") == 0
    assert repo.run("claim", "confirm", ids["ttl"], "--by", "human:ada") == 0
    repo.commit_all("confirmed")
    repo.write("src/billing.py", repo.read("src/billing.py").replace("return -amount", "return -abs(amount)"))
    out: dict = {}

    async def body(session: ClientSession) -> None:
        out["change"] = data(await session.call_tool("claims_for_change", {"scope": "worktree"}))
        out["staged"] = data(await session.call_tool("claims_for_change", {"scope": "staged"}))
        repo.git("add", "src/billing.py")  # the long-lived server sees the index as it is now
        out["staged_now"] = data(await session.call_tool("claims_for_change", {"scope": "staged"}))
        bad = await session.call_tool("claims_for_change", {"scope": "branch"})
        out["bad"] = (bad.is_error, bad.content[0].text)
        cite = [{"resource": "repo://src/auth.py#L3-L3", "quote": "TOKEN_TTL = 60 * 60"}]
        out["wrong"] = await session.call_tool("add_claim", {"page": "guide.md", "statement": "The TTL is an hour.",
                                                              "cited_ranges": [{**cite[0], "quote": "TOKEN_TTL = 7"}]})
        new = {"page": "guide.md", "statement": "The TTL is an hour.", "cited_ranges": cite}
        out["added"] = data(await session.call_tool("add_claim", new))
        out["again"] = data(await session.call_tool("add_claim", new))

    _run(repo.root, body, "--agent", "claude-code")
    assert [(c["claim_id"], c["why"]) for c in out["change"]["claims"]] == [(ids["refund"], "changed")]
    assert "+    12 |     return -abs(amount)" in out["change"]["claims"][0]["context"]
    assert out["staged"]["claims"] == []
    assert [c["claim_id"] for c in out["staged_now"]["claims"]] == [ids["refund"]]
    assert out["bad"][0] and "scope branch needs base" in out["bad"][1]
    assert out["wrong"].is_error and "does not match the current text" in out["wrong"].content[0].text
    assert out["added"]["added"] is True and out["again"] == {**out["again"], "added": False, "claim_id": out["added"]["claim_id"]}
    claims = json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"]
    assert [c["verifiedBy"] for c in claims if c["id"] == out["added"]["claim_id"]] == ["agent:claude-code"]
    assert len(claims) == 3


def test_the_langchain_tools_are_the_same_tools(tmp_path: Path) -> None:
    from openwiki_git.agents.langchain_tools import verification_tools
    from tests.support.agent_session import hostile_verdicts

    repo, ids = build_marked_repo(tmp_path / "repo")
    tools = {t.name: t for t in verification_tools(repo.root, agent="lc-agent")}
    assert set(tools) == {"claims_for_change", "verify_claim"}
    found = json.loads(tools["claims_for_change"].invoke({}))
    assert {c["claim_id"] for c in found["claims"]} == set(ids.values())
    before = repo.snapshot()
    name, bad = hostile_verdicts(ids)[0]
    refused = json.loads(tools["verify_claim"].invoke(bad))
    assert "does not match the current text" in refused["error"] and "nothing was written" in refused["hint"]
    assert repo.snapshot() == before
    cited = [{"resource": "repo://src/billing.py#L3-L3", "quote": "   3 | TAX_RATE = 0.20  # VAT, standard rate"}]  # as shown
    done = json.loads(tools["verify_claim"].invoke({"claim_id": ids["tax"], "verdict": "revise", "cited_ranges": cited,
                                                    "revised_statement": "The tax rate is 20 percent (VAT).", "rationale": "r"}))
    assert done["applied"] is True and done["verified_by"] == "agent:lc-agent"
    assert "The tax rate is 20 percent (VAT).[^c-" in repo.read(".openwiki/guide.md")


def test_retract_and_rewrite_the_paragraph_is_one_verdict_over_the_real_client(tmp_path: Path) -> None:
    from tests.support.agent_session import build_dangling_repo

    repo, _ = build_dangling_repo(tmp_path / "repo")
    got: dict = {}

    async def body(session: ClientSession) -> None:
        (item,) = data(await session.call_tool("claims_for_change", {}))["claims"]
        got["item"] = item
        got["done"] = data(await session.call_tool("verify_claim", {
            "claim_id": item["claim_id"], "verdict": "retract", "cited_ranges": [], "rationale": "no retries any more",
            "rewrite_neighbour": {"sentence": item["retract_leaves"], "revised": "The client waits before it gives up."},
        }))

    _run(repo.root, body)
    assert got["item"]["retract_leaves"] == "Instead, it waits one second."
    assert "neighbouring sentence rewritten" in got["done"]["paragraph"]
    assert repo.read(".openwiki/net.md").endswith("# Net\n\nThe client waits before it gives up.\n")
