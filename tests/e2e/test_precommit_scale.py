"""Two hundred marks in one commit, through the real pre-commit (issue 36 item 1): the hook's
message stays within 20 lines and the terminal's width whatever the number of marks, counts
the claims per cause, names the first few and the command that lists every one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support import many_marks

from .conftest import pre_commit

pytestmark = pytest.mark.e2e

CONFIG = "repos:\n  - repo: {url}\n    rev: v0.1.0\n    hooks:\n      - id: openwiki-git\n"
PRE_COMMIT_LINES = ("openwiki-git (mark stale claims)", "- hook id:", "- exit code:", "- files were modified")


def commit(repo, *args: str, columns: int) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    p = subprocess.run(["git", "commit", "-q", *args], cwd=repo.root, capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": str(columns)})
    return p.returncode, (p.stdout + p.stderr).splitlines()


def hooks_part(lines: list[str]) -> list[str]:
    """What the hook said: git commit's output without pre-commit's own lines."""
    return [ln for ln in lines if ln.strip() and not ln.startswith(PRE_COMMIT_LINES)]


def test_two_hundred_marks_fit_one_screen_and_hook_v_lists_them_all(many_marks_repo, hook_repo) -> None:  # type: ignore[no-untyped-def]
    """At an 80-column terminal (tests/hook/test_hook_scale.py: 200 columns, without pre-commit)."""
    repo, ids, columns = many_marks_repo, many_marks_repo.ids, 80
    assert len(ids) == many_marks.FUNCS * many_marks.PER == 200
    repo.write(".pre-commit-config.yaml", CONFIG.format(url=hook_repo))
    installed = pre_commit(repo.root, "install")
    assert installed.returncode == 0, installed.stderr
    repo.git("add", "-A")
    rc, out = commit(repo, "-m", "the hook", columns=columns)
    assert rc == 0, out

    many_marks.annotate(repo)
    rc, out = commit(repo, "-am", "annotations: PEP 604", columns=columns)
    assert rc == 1, out
    said = hooks_part(out)
    assert len(said) <= 20 and max(len(line) for line in said) <= columns, "\n".join(said)
    text = "\n".join(said)
    assert "openwiki-git: 200 claims stale on 1 page, by cause:" in text
    assert "  annotations changed in 20 definitions: 200 claims" in text  # the count per cause
    assert "`openwiki-git hook -v`" in text and "marked 200 claims stale" in text
    first = [line for line in said if line.startswith("  .openwiki/api.md: c-")]
    assert len(first) == 5 and [f"`f{i}()`" in line for i, line in enumerate(first)] == [True] * 5  # one per definition

    # -v: every claim, one line each (the marks are staged, the change still to commit)
    every = subprocess.run([sys.executable, "-m", "openwiki_git", "hook", "-v"], cwd=repo.root, capture_output=True, text=True)
    claim_lines = [ln for ln in every.stdout.splitlines() if ln.startswith(".openwiki/api.md: claim_")]
    assert len(claim_lines) == 200 and {ln.split(": ")[1] for ln in claim_lines} == set(ids)
    assert all("definition f" in ln and "changed: annotations only" in ln for ln in claim_lines)

    rc, out = commit(repo, "-am", "annotations: PEP 604", columns=columns)
    assert rc == 0, out  # the same commit again passes: the marks are committed with it
    check = subprocess.run([sys.executable, "-m", "openwiki_git", "check"], cwd=repo.root, capture_output=True, text=True)
    assert check.returncode == 1 and "200 claims: 0 fresh, 200 stale" in check.stdout
