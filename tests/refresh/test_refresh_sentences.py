"""The model's pass, one request per sentence and its cost in the open (issue 33, items 2 and 5):
a sentence carrying two claims is sent once and decided once (a revise folds it into one claim);
the report, `--plan` and the JSON give requests, calls and tokens per claim, the first answers
accepted and the retries; a model answering as the real one did, through the real HTTP client,
is accepted the first time."""

from __future__ import annotations

import json
from typing import Any

from openwiki_git.refresh.run import run_refresh
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support.fake_openai_server import FakeOpenAI, like_a_real_model
from tests.support.repo import GitRepo
from tests.support.scripted_refresher import ScriptedRefresher

PAGE = "---\ntype: Reference\ntitle: Net\n---\n\n# Net\n\nThe client retries twice and waits one second.\n"


def _split(ws: Workspace, page: str) -> None:
    """The page's one claim made two after its sentence, one per evidence item: what a wiki grounded
    before one claim per sentence (or imported from OpenWiki) holds, and the refresher decides."""
    from openwiki_git.pages import citations
    from openwiki_git.store import editing

    sidecar = ws.wiki.load(page)
    assert sidecar is not None
    (claim,) = sidecar.claims
    first, second = claim.replace(evidence=claim.evidence[:1]), claim.replace(id="claim_" + "b" * 32, evidence=claim.evidence[1:])
    marker = f"[^{citations.label(claim.id)}]"
    with ws.wiki.lock():
        editing.save_page(ws.wiki, sidecar.replace(claims=(first, second)),
                          edit=lambda text: text.replace(marker, marker + f"[^{citations.label(second.id)}]", 1))


def _two_claims_one_sentence(repo: GitRepo) -> list[str]:
    repo.write("src/net.py", "RETRIES = 2\nWAIT = 1\n")
    assert repo.run("init") == 0
    repo.write(".openwiki/net.md", PAGE)
    repo.commit_all("net")
    statement = "The client retries twice and waits one second."
    for line in (1, 2):  # one claim citing both lines: a sentence gets one claim now
        assert repo.run("claim", "add", "--page", "net.md", "--statement", statement,
                        "--evidence", f"repo://src/net.py#L{line}-L{line}", "--by", "human:ada") == 0
    _split(Workspace.open(repo.root), "net.md")
    repo.commit_all("claims")
    repo.write("src/net.py", "RETRIES = 3\nWAIT = 2\n")
    repo.git("add", "-A")
    assert repo.run("hook") == 1
    repo.commit_all("three retries")
    return [c["id"] for c in json.loads(repo.read(".openwiki/.claims/net.json"))["claims"]]


def test_a_sentence_with_two_claims_is_one_request_and_one_decision(wiki_repo: Any) -> None:
    repo = wiki_repo
    first, second = _two_claims_one_sentence(repo)
    verdict = {
        "claim_id": first, "verdict": "revise", "revised_statement": "The client retries three times and waits two seconds.",
        "cited_ranges": [{"resource": "repo://src/net.py#L1-L1", "quote": "RETRIES = 3"},
                         {"resource": "repo://src/net.py#L2-L2", "quote": "WAIT = 2"}],
        "rationale": "both values changed",
    }
    fake = ScriptedRefresher([verdict])
    result = run_refresh(Workspace.open(repo.root), RefreshOptions(), fake)
    assert len(fake.history) == 1 and f"Its sentence also carries {second}" in fake.history[0].messages[0]
    prompt = fake.history[0].messages[0]
    # every evidence item, in one request (each line its own assignment, followed by diff/units.py)
    assert "Evidence 2 of 2: repo://src/net.py#L2-L2" in prompt
    assert prompt.count("2 | WAIT = 2") == 1 and "-     2 | WAIT = 1" in prompt  # no text twice (here: around the first)
    by_id = {d.claim_id: d for d in result.decisions}
    assert by_id[first].verdict == "revise" and by_id[second].verdict == "revise" and by_id[second].decided_with == first
    claims = json.loads(repo.read(".openwiki/.claims/net.json"))["claims"]
    assert [c["id"] for c in claims] == [first]  # one claim for the sentence, the page and the sidecar agree
    assert [e["resource"] for e in claims[0]["evidence"]] == ["repo://src/net.py#L1-L1", "repo://src/net.py#L2-L2"]
    text = repo.read(".openwiki/net.md")
    assert "The client retries three times and waits two seconds.[^c-" in text and text.count("[^c-") == 2  # marker + footnote
    t = result.totals
    assert (t["requests"], t["model_decided"], t["calls_per_claim"], t["first_accepted"], t["retries"]) == (1, 2, 0.5, 1, 0)


def test_the_report_and_the_plan_give_the_cost_per_claim(wiki_repo: Any, capsys: Any, monkeypatch: Any) -> None:
    repo = wiki_repo
    _two_claims_one_sentence(repo)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    capsys.readouterr()
    assert repo.run("refresh", "--plan") == 0
    out = capsys.readouterr().out
    assert "plan: 2 claims would be sent in 1 requests (one per sentence)" in out and "tokens per claim" in out
    assert "with 1 more claims of its sentence" in out


def test_a_model_answering_as_the_real_one_did_is_accepted_first_over_http(wiki_repo: Any, monkeypatch: Any) -> None:
    from tests.support.agent_session import build_shared_file_repo

    repo, ids = build_shared_file_repo(wiki_repo.root.parent / "shared")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")  # the key the other end-to-end tests use (redacted as one)
    with FakeOpenAI(responder=like_a_real_model) as server:
        result = run_refresh(
            Workspace.open(repo.root), RefreshOptions(base_url=server.base_url, max_concurrency=1, max_retries=0),
        )
    assert {d.claim_id for d in result.decisions} == {ids["head"], ids["get"]}
    assert all(d.applied and d.first_accepted and d.attempts == 1 for d in result.decisions), [d.to_dict() for d in result.decisions]
    assert result.totals["first_acceptance"] == 1.0 and result.totals["retries"] == 0
