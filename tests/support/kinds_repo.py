"""One page with one claim on a fresh repository, and the hook run as pre-commit runs it: the setup
the evidence-kind tests (definitions, heads, moved definitions, docstrings as prose) share."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.repo import GitRepo


def one_claim(repo: GitRepo, capsys: pytest.CaptureFixture[str], files: dict[str, str], page: str, statement: str,
              resource: str) -> str:
    """Write `files`, `init`, write `page` as guide.md, commit, `claim add` the statement citing
    `resource` (it must succeed), commit; the claim's id."""
    for path, text in files.items():
        repo.write(path, text)
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", page)
    repo.commit_all("initial")
    capsys.readouterr()
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", statement, "--evidence", resource) == 0
    cid = capsys.readouterr().out.split()[0]
    repo.commit_all("claim")
    return cid


def first_claim(repo: GitRepo) -> dict[str, Any]:
    """guide.md's first claim, as its sidecar stores it."""
    return dict(json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0])


def staged_hook(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Stage everything and run the hook: its exit code and everything it printed."""
    repo.git("add", "-A")
    capsys.readouterr()
    rc = repo.run("hook")
    captured = capsys.readouterr()
    return rc, captured.out + captured.err
