"""The one validator (verdicts/validator.py), as the refresher's model and an agent's verify_claim meet
it: answers shaped as the real model gave them are accepted the first time, and what is refused
is refused on both paths alike, with nothing written (issue 33, item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.agents import verification
from openwiki_git.refresh.run import run_refresh
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support.agent_session import build_shared_file_repo
from tests.support.repo import GitRepo
from tests.support.scripted_refresher import ScriptedRefresher

HEAD = "repo://src/client.py#Client:head"
INIT = "def __init__(self, verify=True, timeout=10.0):"
ACCEPTED = {
    "several quotes of one definition": [{"resource": HEAD, "quote": "class Client:"}, {"resource": HEAD, "quote": INIT}],
    "numbering as shown": [{"resource": "repo://src/client.py#L7-L7", "quote": f"      7 |     {INIT}"}],
    "cut mid-line at a parameter": [{"resource": HEAD, "quote": "timeout=10.0"}],
    "docstring and signature": [{"resource": HEAD, "quote": '"""Sends requests."""'}, {"resource": HEAD, "quote": INIT}],
    "a row copied with its sign": [{"resource": HEAD, "quote": f"+     7 |     {INIT}"}],
    "numbers off by one": [{"resource": "repo://src/client.py#L6-L6", "quote": INIT}],
}
REFUSED = {
    "a line of the class not shown": ([{"resource": HEAD, "quote": "return request"}], "does not match the current text"),
    "lines outside those shown": ([{"resource": "repo://src/client.py#L12-L12", "quote": "return request"}], "outside those shown"),
    "a docstring alone": ([{"resource": HEAD, "quote": '"""Sends requests."""'}], "only comments or strings"),
    "a file the claim does not cite": ([{"resource": "repo://src/other.py#L1-L1", "quote": "OTHER = 1"}], "was not shown"),
    "the text as verified": ([{"resource": HEAD, "quote": "-     7 |     def __init__(self, verify=True, timeout=5.0):"}],
                             "rows marked '-'"),
    "a token cut inside": ([{"resource": HEAD, "quote": "timeout=10"}], "does not match"),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo, ids = build_shared_file_repo(tmp_path_factory.mktemp("check") / "repo")
    repo.write("src/other.py", "OTHER = 1\n")
    repo.commit_all("another file")
    return repo.root, ids


def _copy(origin: Path, tmp_path: Path) -> GitRepo:
    import shutil

    shutil.copytree(origin, tmp_path / "repo", symlinks=True)
    return GitRepo(tmp_path / "repo")


def _verdict(cid: str, cited: list[dict[str, str]]) -> dict[str, Any]:
    return {"claim_id": cid, "verdict": "confirm", "revised_statement": None, "cited_ranges": cited, "rationale": "r"}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_answers_as_the_real_model_gave_them_are_accepted_the_first_time_on_both_paths(
    shared: tuple[Path, dict[str, str]], tmp_path: Path, name: str
) -> None:
    origin, ids = shared
    repo = _copy(origin, tmp_path)
    fake = ScriptedRefresher([_verdict(ids["head"], ACCEPTED[name])])
    result = run_refresh(Workspace.open(repo.root), RefreshOptions(claims=[ids["head"]]), fake)
    (d,) = result.decisions
    assert d.applied and d.first_accepted and d.attempts == 1, (name, d.error)
    sidecar = json.loads(repo.read(".openwiki/.claims/guide.json"))
    head = next(c for c in sidecar["claims"] if c["id"] == ids["head"])
    assert [e["resource"] for e in head["evidence"]] == [HEAD] and "mark" not in head  # still the definition, by name
    agent = _copy(origin, tmp_path / "agent")
    done = verification.verify_claim(Workspace.open(agent.root), _verdict(ids["head"], ACCEPTED[name]), agent="t")
    assert done["applied"] and done["verdict"] == "confirm"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_is_refused_is_refused_on_both_paths_with_nothing_written(
    shared: tuple[Path, dict[str, str]], tmp_path: Path, name: str
) -> None:
    origin, ids = shared
    repo = _copy(origin, tmp_path)
    cited, why = REFUSED[name]
    before = repo.snapshot()
    with pytest.raises(verification.VerificationRefused) as refused:
        verification.verify_claim(Workspace.open(repo.root), _verdict(ids["head"], cited), agent="t")
    assert why in refused.value.message, (name, refused.value.message)
    fake = ScriptedRefresher([_verdict(ids["head"], cited)] * 2)
    result = run_refresh(Workspace.open(repo.root), RefreshOptions(claims=[ids["head"]]), fake)
    (d,) = result.decisions
    assert not d.applied and d.error is not None and why in d.error and "rejected twice" in d.error, (name, d.error)
    assert repo.snapshot() == before


def test_a_revise_citing_a_definitions_lines_by_number_keeps_the_definition_as_evidence(
    shared: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    origin, ids = shared
    repo = _copy(origin, tmp_path)
    verdict = {**_verdict(ids["head"], ACCEPTED["numbering as shown"]), "verdict": "revise",
               "revised_statement": "A Client verifies TLS and waits ten seconds unless told otherwise."}
    done = verification.verify_claim(Workspace.open(repo.root), verdict, agent="t")
    assert done["statement"].startswith("A Client verifies TLS and waits ten seconds")
    head = next(c for c in json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"] if c["id"] == ids["head"])
    assert [e["resource"] for e in head["evidence"]] == [HEAD]
    assert "A Client verifies TLS and waits ten seconds unless told otherwise.[^c-" in repo.read(".openwiki/guide.md")
