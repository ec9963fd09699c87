"""gitdiff.staged: the quick path (`git diff-index --cached` and blob diffs, when every staged
change edits a regular file in place) gives exactly what libgit2's index diff gives, and hands
anything else to libgit2. Real repositories, real git."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openwiki_git import gitdiff
from openwiki_git.git import open_repository
from tests.conftest import GitRepo

BASE = "".join(f"line {i}\n" for i in range(1, 31))


def both(root: Path) -> tuple[gitdiff.Diff, gitdiff.Diff]:
    repo = open_repository(root)
    quick = gitdiff.staged(repo)
    slow = gitdiff._staged_libgit2(open_repository(root), repo.head(), 50)
    return quick, slow


def seeded(repo: GitRepo) -> None:
    repo.write("a.py", BASE)
    repo.write("b.txt", "one\ntwo\nthree\n")
    repo.write("crlf.txt", "x\r\ny\r\nz\r\n")
    (repo.root / "bin.dat").write_bytes(b"\x00\x01\x02binary\n")
    repo.write("nodiff.txt", "p\nq\n")
    repo.write(".gitattributes", "nodiff.txt -diff\n")
    repo.write("deep/er/c.md", "c\n")
    repo.commit_all("base")


def test_in_place_edits_match_libgit2(repo: GitRepo) -> None:
    seeded(repo)
    repo.write("a.py", BASE.replace("line 2\n", "changed\n").replace("line 20\n", "") + "tail\n")
    repo.write("crlf.txt", "x\r\nY\r\nz\r\n")
    (repo.root / "bin.dat").write_bytes(b"\x00\x01\x03binary\n")
    repo.write("nodiff.txt", "p\nQ\n")
    repo.write("deep/er/c.md", "c\nd\n")
    os.chmod(repo.root / "b.txt", 0o755)
    repo.git("add", "-A")
    quick, slow = both(repo.root)
    assert quick.complete and not slow.complete
    assert quick.changes == slow.changes
    assert {c.new_path for c in quick.changes} == {"a.py", "crlf.txt", "bin.dat", "nodiff.txt", "deep/er/c.md", "b.txt"}
    assert [c.binary for c in quick.changes if c.new_path in ("bin.dat", "nodiff.txt")] == [True, True]


def test_nothing_staged(repo: GitRepo) -> None:
    seeded(repo)
    quick, slow = both(repo.root)
    assert quick.changes == slow.changes == ()


@pytest.mark.parametrize("change", ["add", "delete", "rename", "symlink"])
def test_other_changes_go_through_libgit2(repo: GitRepo, change: str) -> None:
    seeded(repo)
    repo.write("a.py", BASE + "more\n")
    if change == "add":
        repo.write("new.py", "new\n")
    elif change == "delete":
        (repo.root / "b.txt").unlink()
    elif change == "rename":
        repo.git("mv", "deep/er/c.md", "deep/moved.md")
    else:
        (repo.root / "b.txt").unlink()
        (repo.root / "b.txt").symlink_to("a.py")
    repo.git("add", "-A")
    quick, slow = both(repo.root)
    assert not quick.complete
    assert quick.changes == slow.changes


def test_new_side_reads_and_index_blobs_agree_with_the_index(repo: GitRepo) -> None:
    seeded(repo)
    repo.write("a.py", BASE.replace("line 5\n", "five\n"))
    repo.git("add", "a.py")
    repo.write("a.py", "unstaged\n")  # the working tree is not the index
    r = open_repository(repo.root)
    diff = gitdiff.staged(r)
    assert diff.complete
    paths = ["a.py", "b.txt", "deep/er/c.md", "deep/er", "missing.py", "bin.dat"]
    for p in paths:
        assert gitdiff.read_new(r, diff, p) == open_repository(repo.root).read(p, "index")
    assert gitdiff.index_blobs(r, diff, paths) == open_repository(repo.root).index_blobs(paths)


def test_git_index_file_is_honoured(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(repo)
    other = repo.root / ".git" / "next-index-1.lock"
    shutil.copy(repo.root / ".git" / "index", other)  # as `git commit <paths>` starts its own
    repo.write("b.txt", "one\nTWO\nthree\n")
    repo.git("add", "b.txt", env={"GIT_INDEX_FILE": str(other)})
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    quick, slow = both(repo.root)
    assert quick.complete and [c.new_path for c in quick.changes] == ["b.txt"]
    assert quick.changes == slow.changes


lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "def f():\n", "    return 1\n", "x = 2\n"]), max_size=25)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=lines, new=lines, other=lines)
def test_hunks_match_libgit2(repo: GitRepo, old: list[str], new: list[str], other: list[str]) -> None:
    repo.write("f.py", "".join(old) + "end\n")
    repo.write("g.txt", "".join(other) + "end\n")
    repo.commit_all("base")
    repo.write("f.py", "".join(new) + "end\n")
    repo.write("g.txt", "".join(reversed(other)) + "end\n")
    repo.git("add", "-A")
    quick, slow = both(repo.root)
    assert quick.changes == slow.changes
