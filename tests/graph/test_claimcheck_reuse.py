"""The graph's claims check reuses results per cited file and per page (graph/claimcheck.py):
after an agent verifies a head claim of one page, a page citing the same file whose results are
reused must not break the load (issue 33: a KeyError from every graph tool and `locate`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openwiki_git.agents import verification
from openwiki_git.agents.service import GraphService
from openwiki_git.caches import statkey
from openwiki_git.store.workspace import Workspace
from tests.support.agent_session import build_shared_file_repo


def test_a_verified_head_claim_then_every_tool_on_a_page_reused_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, ids = build_shared_file_repo(tmp_path / "repo")
    monkeypatch.setattr(statkey, "RACY_NS", 0)  # what a later call sees: the files' stat is trusted
    service = GraphService(repo.root)
    assert service.call("check")["summary"]["stale"] == 2  # loaded: the per-file and per-page results cached
    verdict = {
        "claim_id": ids["head"], "verdict": "confirm", "revised_statement": None, "rationale": "r",
        "cited_ranges": [{"resource": "repo://src/client.py#Client:head", "quote": "def __init__(self, verify=True, timeout=10.0):"}],
    }
    assert verification.verify_claim(Workspace.open(repo.root), verdict, agent="t")["applied"]
    answers = {
        "check": service.call("check"),
        "locate": service.call("locate", terms="client verifies"),
        "expand": service.call("expand", node=ids["send"]),
        "claim_show": service.call("claim_show", claim=ids["module"]),
        "claims_for_change": service.call("claims_for_change"),
    }
    assert {k: v.get("error") for k, v in answers.items()} == dict.fromkeys(answers)
    assert answers["check"]["summary"]["stale"] == 1 and ids["get"] in answers["check"]["stale_claims"]
    for argv in (["locate", "client"], ["expand", "src/client.py"], ["check"]):
        assert repo.run(*argv) in (0, 1), argv
