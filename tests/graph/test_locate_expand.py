"""Cross-document questions over the fixture corpus: `locate` then `expand` must reach the right
claim and the lines that support it in at most 3 calls, through the CLI's JSON and through the
LangChain tools."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.cli.main import main

_spec = importlib.util.spec_from_file_location("graph_corpus", Path(__file__).parents[1] / "fixtures/graph/corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from corpus.built_in_tmp(tmp_path_factory, corpus.build, "corpus")


class CliAgent:
    """The two calls an agent has, through `openwiki-git … --format json`; counts the calls."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.calls = 0

    def _run(self, *argv: str) -> dict[str, Any]:
        self.calls += 1
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["-C", str(self.root), *argv, "--format", "json"])
        assert code == 0
        return json.loads(out.getvalue())  # type: ignore[no-any-return]

    def locate(self, terms: str) -> dict[str, Any]:
        return self._run("locate", *terms.split())

    def expand(self, node: str, edges: list[str] | None = None, hops: int = 1) -> dict[str, Any]:
        return self._run("expand", node, *(["--edges", *edges] if edges else []), "--hops", str(hops))


class ToolAgent(CliAgent):
    """The same calls through the LangChain tools of agent_tools.py."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        from openwiki_git.agents.langchain_tools import graph_tools

        self.tools = {t.name: t for t in graph_tools(root)}

    def locate(self, terms: str) -> dict[str, Any]:
        self.calls += 1
        return json.loads(self.tools["locate"].invoke({"terms": terms}))  # type: ignore[no-any-return]

    def expand(self, node: str, edges: list[str] | None = None, hops: int = 1) -> dict[str, Any]:
        self.calls += 1
        return json.loads(self.tools["expand"].invoke({"node": node, "edges": edges, "hops": hops}))  # type: ignore[no-any-return]


def first(items: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    return next(item for item in items if test(item))


def claims_referring(expansion: dict[str, Any]) -> list[dict[str, Any]]:
    """The claims asserted by wiki paragraphs that refer to the expanded node."""
    return [
        c
        for e in expansion["edges"]
        if e["type"] == "referred_by" and e["target"]["id"].startswith("page:")
        for c in e["target"].get("claims", ())
    ]


def cited_lines(root: Path, evidence: dict[str, Any]) -> str:
    """What the file says at the evidence's lines now, read independently of the tool."""
    resource = evidence.get("current_resource") or evidence["resource"]
    path, _, lines = resource.removeprefix("repo://").partition("#L")
    start, end = (int(x) for x in lines.split("-L"))
    return "".join((root / path).read_text("utf-8").splitlines(keepends=True)[start - 1 : end])


# Each question: how an agent would go, as a function of the agent; it returns the final claim.
def retries_now(agent: CliAgent) -> dict[str, Any]:
    """How are failed deliveries retried now? (the old decision, its successors, the wiki's claim)"""
    hits = agent.locate("fixed retry delay")["results"]
    old = first(hits, lambda h: h.get("superseded", False))
    walk = agent.expand(old["id"], edges=["superseded_by"], hops=10)
    assert walk["stopped"] == "end" and walk["end"]["node"]["label"].startswith("ADR-0015")
    claim = first(claims_referring(walk["end"]), lambda c: "random delay" in c["statement"])
    return agent.expand(claim["id"])


def session_timeout(agent: CliAgent) -> dict[str, Any]:
    """How long does a session last, and which decision says so?"""
    hits = agent.locate("session expire timeout")["results"]
    claim = agent.expand(first(hits, lambda h: h["kind"] == "claim")["id"])
    paragraph = first(claim["edges"], lambda e: e["type"] == "asserted_by")["target"]["id"]
    decided = agent.expand(paragraph, edges=["refers_to"])
    assert [e["target"]["label"] for e in decided["edges"]] == ["ADR-0014: Sessions expire after thirty minutes of inactivity"]
    return claim


def burst_size(agent: CliAgent) -> dict[str, Any]:
    """How big a burst may a client send? (the rate-limit decision and its amendment)"""
    hits = agent.locate("rate limit per client")["results"]
    walk = agent.expand(hits[0]["id"], edges=["amended_by"], hops=5)
    assert [p["label"][:8] for p in walk["path"]] == ["ADR-0007", "ADR-0012"]
    claim = first(claims_referring(walk["end"]), lambda c: "Bursts" in c["statement"])
    return agent.expand(claim["id"])


def draining(agent: CliAgent) -> dict[str, Any]:
    """What does draining a queue do? (the runbook, the wiki page that cites the code)"""
    hits = agent.locate("drain a queue runbook")["results"]
    runbook = first(hits, lambda h: h["kind"] == "doc")
    referred = agent.expand(runbook["id"], edges=["referred_by"])
    claim = first(claims_referring(referred), lambda c: "Draining" in c["statement"])
    return agent.expand(claim["id"])


def scheduling(agent: CliAgent) -> dict[str, Any]:
    """How is the next queue chosen? (a superseded RFC, its successor, the wiki's claim)"""
    hits = agent.locate("priority queues")["results"]
    old = first(hits, lambda h: h.get("superseded", False))
    walk = agent.expand(old["id"], edges=["superseded_by"], hops=10)
    claim = first(claims_referring(walk["end"]), lambda c: "weighted fair" in c["statement"])
    return agent.expand(claim["id"])


QUESTIONS = [
    pytest.param(retries_now, "Each retry waits a random delay", ["return random.uniform(0, cap)"], id="retries-now"),
    pytest.param(session_timeout, "Sessions expire after 30 minutes", ["SESSION_TTL_SECONDS = 1800"], id="session-timeout"),
    pytest.param(burst_size, "Bursts of up to 20 requests", ["BURST = 20", "self.capacity = burst"], id="burst-size"),
    pytest.param(draining, "Draining a queue stops", ["self.accepting = False"], id="draining"),
    pytest.param(scheduling, "The next queue is chosen", ["credits[name] -= 1"], id="scheduling"),
]


@pytest.mark.parametrize(("question", "statement", "code"), QUESTIONS)
@pytest.mark.parametrize("agent_type", [CliAgent, ToolAgent], ids=["cli", "langchain"])
def test_cross_document_questions_in_at_most_three_calls(
    root: Path, agent_type: type[CliAgent], question: Callable[[CliAgent], dict[str, Any]], statement: str, code: list[str]
) -> None:
    agent = agent_type(root)
    answer = question(agent)
    assert agent.calls <= 3
    claim = answer["node"]
    assert claim["kind"] == "claim" and claim["statement"].startswith(statement)
    assert claim["status"] == "fresh" and claim["stale"] is False and answer["stale_claims"] == []
    for ev in claim["evidence"]:
        assert ev["text"] == cited_lines(root, ev)  # the evidence lines, as they are in the file
    cited = "".join(ev["text"] for ev in claim["evidence"])
    assert all(line in cited for line in code)
    assert {e["target"]["id"] for e in answer["edges"] if e["type"] == "cites"} == {ev["resource"] for ev in claim["evidence"]}


def test_a_stale_claim_is_never_presented_as_fresh(root: Path) -> None:
    agent = ToolAgent(root)
    hits = agent.locate("session key prefix")
    top = hits["results"][0]
    assert top["kind"] == "claim" and top["stale"] is True and hits["stale_claims"] == [top["id"]]
    answer = agent.expand(top["id"])
    assert answer["node"]["status"] == "stale" and answer["stale_claims"] == [top["id"]]
    assert answer["node"]["evidence"][0]["text"] == 'KEY_PREFIX = "session:"\n'  # what the code says now


def test_the_tools_describe_themselves_and_report_errors(root: Path) -> None:
    agent = ToolAgent(root)
    assert set(agent.tools) == {"locate", "expand"}
    assert "stale" in agent.tools["locate"].description and "superseded_by" in agent.tools["expand"].description
    err = agent.expand("ADR-0999")
    assert err == {"error": "node 'ADR-0999' is not in the graph", "hint": err["hint"]}
    assert agent.expand("ADR-0003", edges=["superseded_by"], hops=10) == CliAgent(root).expand(
        "ADR-0003", edges=["superseded_by"], hops=10
    )


def test_the_tools_describe_their_arguments_and_return_bad_arguments_as_errors(root: Path) -> None:
    agent = ToolAgent(root)
    schema = agent.tools["expand"].args
    assert all(field.get("description") for field in schema.values())
    assert "superseded_by" in schema["edges"]["description"]
    err = json.loads(agent.tools["locate"].invoke({"terms": "retry", "limit": "many"}))
    assert "error" in err and "hint" in err
    err = json.loads(agent.tools["expand"].invoke({"node": "ADR-0003", "edges": ["superseded_by", "amends"], "hops": 3}))
    assert "--" not in err["error"] + err["hint"]  # hints speak the tool's language, not the CLI's


def test_missing_langchain_core_is_a_clear_usage_error(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from openwiki_git.agents.langchain_tools import graph_tools
    from openwiki_git.errors import UsageError

    monkeypatch.setitem(sys.modules, "langchain_core.tools", None)
    with pytest.raises(UsageError) as info:
        graph_tools(root)
    assert "openwiki-git[agent]" in (info.value.hint or "")
