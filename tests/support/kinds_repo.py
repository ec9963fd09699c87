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
    """Stage everything and run the hook: its exit code and everything it printed, unwrapped
    (`unwrapped`: a line longer than the message's width continues on the next)."""
    repo.git("add", "-A")
    capsys.readouterr()
    rc = repo.run("hook")
    captured = capsys.readouterr()
    return rc, unwrapped(captured.out + captured.err)


def unwrapped(text: str) -> str:
    """The hook's message with its wrapped lines joined: every run of whitespace one space."""
    return " ".join(text.split())


def old_token_until_confirmed(repo: GitRepo, capsys: pytest.CaptureFixture[str], cid: str, old: str, edited: str,
                              changed: str, new_prefix: str) -> None:
    """The claim's token replaced by `old` (written by an earlier rule) and committed: `check` keeps
    it while the source is unchanged; after the source becomes `edited` (src/shop.py), which the
    old rule covered, `check` reports `changed`; `claim confirm` then writes a `new_prefix` token."""
    sidecar = json.loads(repo.read(".openwiki/.claims/guide.json"))
    sidecar["claims"][0]["evidence"][0]["version"] = old
    repo.write(".openwiki/.claims/guide.json", json.dumps(sidecar, indent=2) + "\n")
    repo.commit_all("a token written by the earlier rule")
    capsys.readouterr()
    assert repo.run("check") == 0  # unchanged: fresh, its token kept
    assert first_claim(repo)["evidence"][0]["version"] == old
    repo.write("src/shop.py", edited)
    repo.commit_all("edited")
    capsys.readouterr()
    assert repo.run("check") == 1  # what the earlier rule covered changed
    assert changed in capsys.readouterr().out
    assert repo.run("claim", "confirm", cid, "--by", "human:lead") == 0
    assert first_claim(repo)["evidence"][0]["version"].startswith(new_prefix)  # confirmed: as it is now
