"""One claim per sentence through the real CLI: `claim add` on a sentence that carries a claim adds
its evidence to it; `lint` reports a sentence carrying several claims and `lint --fix` folds them,
after which every old id still finds the folded claim (`claim show`, the graph the agents' tools
read, the MCP `verify_claim` path) and `check`, `review` and the hook see one claim per sentence;
a retracted claim leaves a tombstone in its sidecar."""

from __future__ import annotations

import json

import pytest

from openwiki_git.pages import citations
from openwiki_git.pages.markers import MARKER
from tests.support.repo import GitRepo

SENTENCE = "Line ten says ten."


def run(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The exit code and what was printed (stdout, then stderr)."""
    capsys.readouterr()
    rc = repo.run(*args)
    got = capsys.readouterr()
    return rc, got.out + got.err


def sidecar(repo: GitRepo) -> dict:  # type: ignore[type-arg]
    return json.loads(repo.read(".openwiki/.claims/guide.json"))  # type: ignore[no-any-return]


def three_claims_on_one_sentence(repo: GitRepo) -> list[str]:
    """What an older `ground` (a claim per reference) or a person adding claims one by one left:
    three claims whose markers follow one sentence."""
    for n in (10, 11, 12):
        assert repo.run("claim", "add", "--page", "guide.md", "--statement", f"Line {n} is cited.", "--evidence",
                        f"repo://src/app.py#L{n}") == 0
    data = sidecar(repo)
    ids = [c["id"] for c in data["claims"]]
    for c in data["claims"]:
        c["statement"] = SENTENCE
    repo.write(".openwiki/.claims/guide.json", json.dumps(data, indent=2) + "\n")
    repo.write(".openwiki/guide.md", repo.read(".openwiki/guide.md").replace(
        SENTENCE, SENTENCE + "".join(citations.marker(i) for i in ids)))
    return ids


def test_claim_add_on_a_sentence_with_a_claim_adds_the_evidence(wiki_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = run(wiki_repo, capsys, "claim", "add", "--page", "guide.md", "--statement", SENTENCE, "--evidence",
                  "repo://src/app.py#L10", "--by", "human:ann")
    first = out.split()[0]
    rc, out = run(wiki_repo, capsys, "claim", "add", "--page", "guide.md", "--statement", SENTENCE, "--evidence",
                  "repo://src/app.py#L20", "--evidence", "repo://src/app.py#L10", "--by", "human:bob")
    assert rc == 0 and out.split()[0] == first and "the evidence was added to that claim" in out
    claims = sidecar(wiki_repo)["claims"]
    assert len(claims) == 1 and claims[0]["verifiedBy"] == "human:ann"  # its verification kept
    assert [e["resource"] for e in claims[0]["evidence"]] == ["repo://src/app.py#L10-L10", "repo://src/app.py#L20-L20"]
    assert MARKER.findall(wiki_repo.read(".openwiki/guide.md").split("<!--")[0]) == [citations.label(first)]


def test_lint_fix_folds_a_sentences_claims_and_old_ids_still_resolve(wiki_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ids = three_claims_on_one_sentence(wiki_repo)
    wiki_repo.commit_all("three claims on one sentence")
    rc, out = run(wiki_repo, capsys, "lint")
    assert rc == 1 and f"several-claims: 3 claims on one sentence ({', '.join(citations.label(i) for i in ids)})" in out
    rc, out = run(wiki_repo, capsys, "lint", "--fix")
    assert "claims of one sentence folded into one" in out and "several-claims" not in out
    data = sidecar(wiki_repo)
    assert [c["id"] for c in data["claims"]] == [ids[0]]
    assert len(data["claims"][0]["evidence"]) == 3 and "mark" not in data["claims"][0]
    assert data["aliases"] == {ids[1]: ids[0], ids[2]: ids[0]}
    prose = wiki_repo.read(".openwiki/guide.md").split("<!--")[0]
    assert MARKER.findall(prose) == [citations.label(ids[0])]
    for old in (ids[2], citations.label(ids[1]), ids[1][:16]):  # an id, a label, a prefix
        capsys.readouterr()
        assert wiki_repo.run("claim", "show", old, "--format", "json") == 0
        assert json.loads(capsys.readouterr().out)["id"] == ids[0], old
    capsys.readouterr()
    assert wiki_repo.run("check", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["summary"]["total"] == 1
    from openwiki_git.agents.service import GraphService

    shown = GraphService(wiki_repo.root).call("claim_show", claim=citations.label(ids[2]))
    assert "error" not in shown and ids[0] in json.dumps(shown) and ids[2] not in json.dumps(shown)
    assert wiki_repo.run("validate") == 0
    rc, out = run(wiki_repo, capsys, "claim", "retract", ids[1], "--by", "human:ann")  # an old id retracts the folded claim
    data = sidecar(wiki_repo)
    assert data["claims"] == [] and "aliases" not in data
    assert data["retracted"] == [{"statement": SENTENCE, "claim": ids[0], "at": data["retracted"][0]["at"], "by": "human:ann"}]
