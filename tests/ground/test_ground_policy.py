"""`ground` under a verify policy that forbids the tool on a page: nothing written, reported."""

from __future__ import annotations

import json

import pytest

from tests.support.repo import GitRepo


def test_a_page_the_policy_keeps_for_people_is_not_grounded(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    docs_repo.write(".openwiki/config.yml", 'wiki_dir: docs\nverify_policy:\n  - pages: "guide.md"\n    allow: [human]\n')
    docs_repo.commit_all("policy")
    before = docs_repo.snapshot()
    capsys.readouterr()
    docs_repo.run("ground", "--all", "--format", "json")
    data = json.loads(capsys.readouterr().out)
    (page,) = data["pages"]
    assert page["refused_by_policy"] == '.openwiki/config.yml: $.verify_policy[0]: pages "guide.md" allow [human]'
    assert len(page["added"]) == 6 and data["summary"]["refused_by_policy"] == 1  # what it would have added
    assert docs_repo.snapshot() == before
    docs_repo.run("ground", "--all")
    assert "docs/guide.md: not grounded (6 to add): the verify policy forbids ground's tool: claims here" in capsys.readouterr().out
