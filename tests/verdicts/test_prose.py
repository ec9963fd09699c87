"""Retract with care and one sentence decided once (issue 33, items 2 and 4): a retraction says
what happens to its paragraph and what it leaves dangling; "retract and rewrite the paragraph"
is one decision in verify_claim and in review's service; a sentence carrying several claims is
rewritten once, for all of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openwiki_git.agents import verification
from openwiki_git.pages import citations
from openwiki_git.services import review
from openwiki_git.store.workspace import Workspace
from openwiki_git.verdicts import prose
from tests.support.agent_session import build_dangling_repo
from tests.support.repo import GitRepo

A, B, C = ("claim_" + h * 32 for h in "abc")
MA, MB, MC = (citations.marker(x) for x in (A, B, C))


@pytest.mark.parametrize(
    ("page", "said", "left", "warns"),
    [
        pytest.param(f"One. Two is gone.{MA} Three.\n", "the 2 other sentences of its paragraph kept", "One. Three.\n", [],
                     id="sentence-removed-paragraph-kept"),
        pytest.param(f"Intro.\n\nOnly this.{MA}\n\nEnd.\n", "and with it its paragraph", "Intro.\n\nEnd.\n", [],
                     id="paragraph-gone-with-it"),
        pytest.param(f"# T\n\n- Only this.{MA}\n- Other.\n", "and with it its list item", "# T\n\n- Other.\n", [],
                     id="list-item-gone-with-it"),
        pytest.param(f"Requests supports HTTP/2.{MA} Instead, it waits.\n", "the 1 other sentence of its paragraph kept",
                     "Instead, it waits.\n", ["the next sentence points back"], id="a-dangling-instead"),
        pytest.param(f"Another library streams bodies. This one, by contrast, buffers them.{MA}\n", "kept",
                     "Another library streams bodies.\n", ["completed the one before it"], id="the-second-half-of-a-comparison"),
    ],
)
def test_a_retraction_says_what_happens_to_its_paragraph(page: str, said: str, left: str, warns: list[str]) -> None:
    done = prose.retract(page, A, "x")
    assert said in done.said and done.text == left
    assert len(done.warnings) == len(warns) and all(w in x for w, x in zip(warns, done.warnings, strict=True))


def test_the_claims_of_one_sentence_are_rewritten_and_retracted_together() -> None:
    page = f"Intro. Client verifies TLS.{MA}{MB} Then more.{MC}\n"
    assert prose.sentence_key(page, A) == prose.sentence_key(page, B) != prose.sentence_key(page, C)
    assert prose.rewrite_sentence(page, B, "x", "Client checks TLS.") == page  # alone: the sentence is A's too
    assert prose.rewrite_sentence(page, B, "x", "Client checks TLS.", [A]) == f"Intro. Client checks TLS.{MA}{MB} Then more.{MC}\n"
    assert prose.retract(page, A, "x", [B]).text == f"Intro. Then more.{MC}\n"
    assert prose.neighbour(f"Client verifies TLS.{MA} It also retries.\n", A, "x") == "It also retries."
    ca, cb = (citations.comment_marker(x) for x in (A, B))  # a docs site's invisible markers
    site = f"Intro. Client verifies TLS. {ca} {cb} Then more.\n"
    assert prose.sentence_key(site, A) == prose.sentence_key(site, B)
    assert prose.retract(site, A, "x", [B]).text == "Intro. Then more.\n"


def _repo(root: Path) -> tuple[GitRepo, str]:
    return build_dangling_repo(root)


def test_verify_claim_offers_and_applies_retract_and_rewrite_the_paragraph_as_one_decision(tmp_path: Path) -> None:
    repo, cid = _repo(tmp_path / "repo")
    ws = Workspace.open(repo.root)
    found = verification.claims_for_change(ws)
    (item,) = found["claims"]
    assert item["retract_leaves"] == "Instead, it waits one second."
    verdict = {"claim_id": cid, "verdict": "retract", "revised_statement": None, "cited_ranges": [], "rationale": "no retries now",
               "rewrite_neighbour": {"sentence": "Instead, it waits one second.", "revised": "The client waits one second."}}
    done = verification.verify_claim(ws, verdict, agent="t")
    assert done["verdict"] == "retract" and "neighbouring sentence rewritten" in done["paragraph"] and done["look_at"] == []
    assert repo.read(".openwiki/net.md").endswith("# Net\n\nThe client waits one second.\n")
    assert json.loads(repo.read(".openwiki/.claims/net.json"))["claims"] == []


def test_a_plain_retract_says_what_it_leaves_dangling(tmp_path: Path) -> None:
    repo, cid = _repo(tmp_path / "repo")
    verdict = {"claim_id": cid, "verdict": "retract", "revised_statement": None, "cited_ranges": [], "rationale": "r"}
    done = verification.verify_claim(Workspace.open(repo.root), verdict, agent="t")
    assert "the 1 other sentence of its paragraph kept" in done["paragraph"]
    assert done["look_at"] and "points back" in done["look_at"][0]


def test_reviews_retract_and_rewrite_is_one_decision_undone_as_one(tmp_path: Path) -> None:
    repo, cid = _repo(tmp_path / "repo")
    ws = Workspace.open(repo.root)
    before = repo.snapshot()
    entry = next(e for e in review.queue(ws) if e.claim_id == cid)
    offered = review.retraction(ws, entry)
    assert offered.neighbour == "Instead, it waits one second." and offered.warnings
    assert repo.snapshot() == before  # an offer writes nothing
    done, what = review.retract_and_rewrite(ws, review.view(ws, entry), by="human:ada", revised="The client waits one second.")
    assert "neighbouring sentence rewritten" in what.said
    assert repo.read(".openwiki/net.md").endswith("# Net\n\nThe client waits one second.\n")
    review.undo(ws, done)
    assert repo.snapshot() == before
