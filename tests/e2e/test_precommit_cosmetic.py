"""A cosmetic edit through the real pre-commit and `git commit`: the commit passes at once, the
claim stays fresh with its range re-anchored to the new text (in the same commit)."""

from __future__ import annotations

import pytest

from .test_precommit import commit, committed_claims, edit, project  # noqa: F401  (project: a fixture)

pytestmark = pytest.mark.e2e


def test_a_comment_inside_a_cited_range_passes_and_keeps_the_claim_fresh(project) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    before = committed_claims(project)["Line ten says ten."]
    edit(project, lambda ls: ls[:10] + ["line 11  # the eleventh\n", "\n"] + ls[11:])  # a comment and a blank line
    project.git("add", "src/app.py")
    rc, out = commit(project, "-m", "comment")
    assert rc == 0, out
    after = committed_claims(project)["Line ten says ten."]
    assert "mark" not in after
    assert after["evidence"][0]["resource"] == "repo://src/app.py#L10-L13"
    assert after["evidence"][0]["version"] != before["evidence"][0]["version"]  # the new text's token
    assert project.git("status", "--porcelain") == ""
    edit(project, lambda ls: ls[:10] + ["line 111  # the eleventh\n"] + ls[11:])  # a real edit still stops
    project.git("add", "src/app.py")
    rc, out = commit(project, "-m", "real")
    assert rc == 1 and "Line ten says ten." in out, out
