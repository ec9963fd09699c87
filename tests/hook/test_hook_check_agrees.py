"""`hook --check` with nothing staged (pre-commit's `run --all-files`, a manual stage) judges every
claim, which is `check`'s question: it takes check's answer through check's cache, and exits as
`check` does, on a clean wiki, a stale claim and a missing marker alike."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from openwiki_git.caches import check_entries as checkcache
from openwiki_git.cli.main import main
from tests.support.repo import GitRepo


def run(repo: GitRepo, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["-C", str(repo.root), *argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def claimed(wiki_repo: GitRepo) -> GitRepo:
    wiki_repo.write(".openwiki/guide.md", wiki_repo.read(".openwiki/guide.md") + "\nThirty follows.\n")
    for statement, resource in (("Line ten says ten.", "repo://src/app.py#L10-L12"), ("Thirty follows.", "repo://src/app.py#L30-L31")):
        code, _, _ = run(wiki_repo, "claim", "add", "--page", "guide.md", "--statement", statement, "--evidence", resource)
        assert code == 0
    wiki_repo.commit_all("claims")
    return wiki_repo


def cache_file(repo: GitRepo) -> Path:
    return repo.root / ".git" / "openwiki-git" / checkcache.CACHE_NAME


def codes(repo: GitRepo) -> tuple[int, int, str, str]:
    """(check's exit code, hook --check's, hook --check's stdout and stderr)."""
    check_code, _, _ = run(repo, "check")
    hook_code, out, err = run(repo, "hook", "--check")
    return check_code, hook_code, out, err


def test_a_clean_wiki_passes_both_and_the_hook_goes_through_checks_cache(claimed: GitRepo) -> None:
    assert not cache_file(claimed).exists()
    code, out, _ = run(claimed, "hook", "--check")
    assert (code, out) == (0, "")
    assert cache_file(claimed).exists()  # check's cache, written by check's judging
    assert codes(claimed)[:3] == (0, 0, "")


def test_a_stale_claim_fails_both_with_its_line(claimed: GitRepo) -> None:
    lines = claimed.read("src/app.py").splitlines(keepends=True)
    claimed.write("src/app.py", "".join(lines[:10] + ["changed\n"] + lines[11:]))
    claimed.commit_all("committed without the hook")
    before = claimed.snapshot()
    check_code, hook_code, out, _ = codes(claimed)
    assert check_code == hook_code == 1
    assert out.startswith(".openwiki/guide.md: claim_") and "Line ten says ten. (src/app.py#L10-L12 " in out
    assert "Thirty follows." not in out
    assert claimed.snapshot() == before


def test_a_missing_marker_fails_both(claimed: GitRepo) -> None:
    page = claimed.read(".openwiki/guide.md")
    body, _, rest = page.partition("Thirty follows.[^")
    claimed.write(".openwiki/guide.md", body + "Thirty follows." + rest.partition("]")[2])
    claimed.commit_all("a marker lost")
    check_code, hook_code, out, err = codes(claimed)
    assert check_code == hook_code == 1
    assert out == "" and "openwiki-git check" in err


def test_unstaged_edits_are_not_judged_the_index_is(claimed: GitRepo) -> None:
    """With a tracked file edited but not staged, every claim is judged against the index, as
    before: check (the working tree) and the hook (what would be committed) may then differ."""
    lines = claimed.read("src/app.py").splitlines(keepends=True)
    claimed.write("src/app.py", "".join(lines[:10] + ["unstaged\n"] + lines[11:]))
    check_code, hook_code, out, _ = codes(claimed)
    assert (check_code, hook_code, out) == (1, 0, "")
