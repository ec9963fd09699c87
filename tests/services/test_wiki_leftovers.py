"""Two hostile-input leftovers (issue 34, item 4), through the real CLI: a sidecar whose page is
gone is named by the sidecar in `check`'s note (not only by the page it expected), and `lint` on a
plain wiki whose generated root index.md was deleted reports it (and `--fix` writes it back)."""

from __future__ import annotations

import json

import pytest

from tests.support.repo import GitRepo


def test_a_sidecar_without_its_page_is_named(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.write("a.py", "x = 1\n")
    assert repo.run("init") == 0
    repo.write(".openwiki/gone.md", "---\ntype: Reference\ntitle: Gone\n---\n\n# Gone\n\nX is one.\n")
    repo.commit_all("page")
    assert repo.run("claim", "add", "--page", "gone.md", "--statement", "X is one.", "--evidence", "repo://a.py#L1-L1") == 0
    (repo.root / ".openwiki/gone.md").unlink()
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1
    [claim] = json.loads(capsys.readouterr().out)["claims"]
    assert "the page does not exist; its claims are in .claims/gone.json" in claim["notes"][0]


def test_lint_reports_a_deleted_root_index(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert repo.run("init") == 0
    repo.commit_all("wiki")
    (repo.root / ".openwiki/index.md").unlink()
    capsys.readouterr()
    assert repo.run("lint") == 1
    assert ".openwiki/index.md:1: index: is missing; --fix regenerates it" in capsys.readouterr().out
    assert repo.run("lint", "--fix") == 0
    assert (repo.root / ".openwiki/index.md").is_file()
