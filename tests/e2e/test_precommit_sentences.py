"""The doc side guarded (issue 32, item 6), through the real pre-commit and `git commit`: a
person rewrites the sentence that carries a claim, and the commit stops once with the claim
stale ("its sentence changed") and its statement following the new sentence; `check` and
`check --base` then agree. A sentence deleted with its marker retracts its claim: the commit stops
once to say so, the sidecar staged. Re-wrapping a sentence changes nothing."""

from __future__ import annotations

import json

import pytest

from .test_precommit import commit, committed_claims, project  # noqa: F401  (project: a fixture)

pytestmark = pytest.mark.e2e

PAGE = ".openwiki/guide.md"


def _check(repo, *args: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    import subprocess

    p = subprocess.run(["openwiki-git", "check", "--format", "json", *args], cwd=repo.root, capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)  # type: ignore[no-any-return]


def test_a_reworded_sentence_marks_its_claim_and_the_statement_follows(project) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    claims = committed_claims(project)
    cid = claims["Line ten says ten."]["id"]
    project.write(PAGE, project.read(PAGE).replace("Line ten says ten.", "Line ten says eleven."))
    project.git("add", PAGE)
    rc, out = commit(project, "-m", "reword")
    assert rc == 1 and "its sentence changed" in out, out
    rc, out = commit(project, "-m", "reword")  # the marks are staged: the same commit passes
    assert rc == 0, out
    assert project.git("status", "--porcelain") == ""  # the second run wrote nothing (it converges)
    after = {c["id"]: c for c in committed_claims(project).values()}
    assert after[cid]["statement"] == "Line ten says eleven."
    assert after[cid]["mark"]["status"] == "stale"
    assert after[cid]["mark"]["causes"][0]["reason"] == "its sentence changed: it said 'Line ten says ten.'"
    assert "mark" not in committed_claims(project)["Thirty follows."]  # the other sentence of the paragraph
    worktree = {c["id"]: c for c in _check(project)["claims"]}
    base = {c["id"]: c for c in _check(project, "--base", "HEAD~1")["claims"]}
    assert worktree[cid]["status"] == base[cid]["status"] == "stale"
    assert [c["id"] for c in worktree.values() if c["status"] != "fresh"] == [cid]


def test_re_wrapping_a_sentence_changes_nothing(project) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    text = project.read(PAGE)
    assert "Line ten says ten.[^" in text and "] Thirty follows.[^" in text
    project.write(PAGE, text.replace("Line ten says ten.", "Line ten\nsays ten.").replace("] Thirty follows.", "]\nThirty follows."))
    project.git("add", PAGE)
    rc, out = commit(project, "-m", "wrap")
    assert rc == 0, out
    assert all("mark" not in c for c in committed_claims(project).values())


def test_a_sentence_deleted_with_its_marker_retracts_its_claim(project) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    claims = committed_claims(project)
    text = project.read(PAGE)
    label = "c-" + claims["Thirty follows."]["id"].removeprefix("claim_")[:8]
    assert f"Thirty follows.[^{label}]" in text
    project.write(PAGE, text.replace(f" Thirty follows.[^{label}]", ""))
    project.git("add", PAGE)
    rc, out = commit(project, "-m", "drop a sentence")
    assert rc == 1 and "retracted, its sentence was deleted with its marker: Thirty follows." in out, out  # said once
    rc, out = commit(project, "-m", "drop a sentence")
    assert rc == 0, out
    sidecar = json.loads(project.git("show", "HEAD:.openwiki/.claims/guide.json"))
    assert [c["statement"] for c in sidecar["claims"]] == ["Line ten says ten."]
    assert [t["statement"] for t in sidecar["retracted"]] == ["Thirty follows."]
    assert f"[^{label}]" not in project.git("show", f"HEAD:{PAGE}")  # its citation line went with it
    assert project.git("status", "--porcelain") == ""
    assert _check(project)["summary"]["missing_markers"] == 0


def test_a_claim_restated_with_its_page_is_not_marked(project) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """`claim edit --statement` and the page edited to match (what the refresher and `review` do
    too): the tool's own rewrite, not a sentence gone out of step with its claim."""
    import subprocess

    cid = committed_claims(project)["Line ten says ten."]["id"]
    project.write(PAGE, project.read(PAGE).replace("Line ten says ten.", "Line ten reads ten."))
    argv = ["openwiki-git", "claim", "edit", cid, "--statement", "Line ten reads ten."]
    p = subprocess.run(argv, cwd=project.root, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    project.git("add", "-A")
    rc, out = commit(project, "-m", "restated")
    assert rc == 0, out
    assert "mark" not in committed_claims(project)["Line ten reads ten."]
    assert project.git("status", "--porcelain") == ""
