"""git/tracked.py: the paths of a plain index, read without pygit2, are git's; any index it
cannot be sure of is None (libgit2 reads it)."""

from __future__ import annotations

import subprocess

import pytest

from openwiki_git.git.tracked import opens_quietly, tracked_paths


@pytest.fixture
def tracked(repo):
    for path in ("a.py", "src/b.py", "src/deep/c d.py", "é.md"):
        repo.write(path, f"{path}\n")
    repo.commit_all("files")
    return repo


def index(repo) -> str:
    return str(repo.root / ".git" / "index")


def ls_files(repo) -> frozenset[str]:
    out = subprocess.run(["git", "-c", "core.quotepath=off", "ls-files", "-z"], cwd=repo.root, capture_output=True, check=True)
    return frozenset(p for p in out.stdout.decode("utf-8").split("\0") if p)


def test_the_paths_are_git_ls_files(tracked):
    assert tracked_paths(index(tracked)) == ls_files(tracked) == {"a.py", "src/b.py", "src/deep/c d.py", "é.md"}
    tracked.git("rm", "-q", "--cached", "a.py")  # and after a change, with git's extensions (TREE) in place
    tracked.git("update-index", "--index-version", "3")
    assert tracked_paths(index(tracked)) == ls_files(tracked) == {"src/b.py", "src/deep/c d.py", "é.md"}
    tracked.git("update-index", "--assume-unchanged", "src/b.py")  # still in the index, read from disk
    assert tracked_paths(index(tracked)) == ls_files(tracked)


@pytest.mark.parametrize("change", [
    ["update-index", "--index-version", "4"],  # prefix-compressed paths
    ["update-index", "--split-index"],  # the entries live in a shared index
    ["update-index", "--skip-worktree", "a.py"],  # an extended flag
])
def test_an_index_it_is_unsure_of_is_none(tracked, change):
    tracked.git(*change)
    assert tracked_paths(index(tracked)) is None


def test_a_conflict_a_damaged_or_missing_index_is_none(tracked, tmp_path):
    blob = tracked.git("rev-parse", "HEAD:a.py").strip()
    info = f"0 {'0' * 40}\ta.py\n100644 {blob} 1\ta.py\n100644 {blob} 2\ta.py\n"
    subprocess.run(["git", "update-index", "--index-info"], cwd=tracked.root, input=info, text=True, check=True)
    assert tracked_paths(index(tracked)) is None
    tracked.git("reset", "-q")
    data = bytearray((tracked.root / ".git" / "index").read_bytes())
    assert tracked_paths(index(tracked)) is not None
    data[40] ^= 1  # one bit of an entry: the checksum no longer matches
    (tmp_path / "index").write_bytes(bytes(data))
    assert tracked_paths(str(tmp_path / "index")) is None
    assert tracked_paths(str(tmp_path / "no-index")) is None


def quietly(repo, start=None) -> bool:
    git = str(repo.root / ".git")
    return opens_quietly(str(repo.root), git, git, str(start or repo.root))


def test_opens_quietly_what_libgit2_opens_without_a_word(tracked):
    assert quietly(tracked)
    tracked.git("pack-refs", "--all")  # the branch only in packed-refs
    assert quietly(tracked)
    tracked.git("checkout", "-q", "--detach")
    assert quietly(tracked)
    assert not quietly(tracked, tracked.root / ".git" / "objects")  # started inside the git directory


@pytest.mark.parametrize("damage", [
    lambda r: (r.root / ".git" / "HEAD").write_text("ref: refs/heads/../x\n"),
    lambda r: (r.root / ".git" / "HEAD").write_text("garbage\n"),
    lambda r: (r.root / ".git" / "refs" / "heads" / "main").write_text("not an id\n"),
    lambda r: r.git("config", "core.bare", "true"),
    lambda r: r.git("config", "core.worktree", "/elsewhere"),
    lambda r: r.git("config", "include.path", "other.config"),
    lambda r: r.git("config", "core.repositoryformatversion", "2"),
])
def test_anything_else_is_left_to_libgit2(tracked, damage):
    damage(tracked)
    assert not quietly(tracked)
