"""git/history.py on a real repository: the first-parent line (a merged branch's commits are not
on it), and at each commit only what changed in the folder (nothing for an unchanged tree)."""

from __future__ import annotations

import pytest

from openwiki_git.errors import GitError
from openwiki_git.git import history
from openwiki_git.git.repo import Repo


def test_first_parent_line_and_the_folders_changes(repo):
    repo.write("docs/a.json", "a1")
    repo.write("docs/b.json", "b1")
    c1 = repo.commit_all("one")
    repo.write("src.py", "x")
    c2 = repo.commit_all("outside the folder")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("docs/a.json", "a-side")
    side = repo.commit_all("side")
    repo.git("checkout", "-q", "main")
    repo.git("rm", "-q", "docs/b.json")
    repo.write("docs/c/d.json", "d1")
    c3 = repo.commit_all("delete b, add c/d")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = repo.git("rev-parse", "HEAD").strip()
    r = Repo(repo.root)
    commits = history.first_parent(r, merge, limit=None)
    assert [c.id for c in commits] == [c1, c2, c3, merge] and side not in [c.id for c in commits]
    assert [c.id for c in history.first_parent(r, merge, limit=2)] == [c3, merge]
    assert [c.id for c in history.first_parent(r, merge, limit=None, stop=c2)] == [c2, c3, merge]
    with pytest.raises(GitError, match="first-parent"):
        history.first_parent(r, merge, limit=None, stop=side)
    snaps = list(history.folder_history(r, commits, "docs"))
    assert [(s.changed, s.whole) for s in snaps] == [
        ({"a.json": b"a1", "b.json": b"b1"}, True),
        ({}, False),  # the folder's tree is the one before: one lookup, nothing read
        ({"b.json": None, "c/d.json": b"d1"}, False),
        ({"a.json": b"a-side"}, False),
    ]


def test_a_folder_that_appears_and_vanishes(repo):
    c1 = repo.commit_all("empty")
    repo.write("docs/a.json", "a1")
    c2 = repo.commit_all("appears")
    repo.git("rm", "-q", "-r", "docs")
    c3 = repo.commit_all("vanishes")
    r = Repo(repo.root)
    commits = history.first_parent(r, c3, limit=None)
    assert [c.id for c in commits] == [c1, c2, c3]
    assert [(s.changed, s.whole) for s in history.folder_history(r, commits, "docs")] == [
        ({}, True), ({"a.json": b"a1"}, True), ({}, True)]
