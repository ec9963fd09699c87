"""`git/diff.worktree`: HEAD -> the working tree, as `git diff HEAD` sees it (the agents'
claims_for_change), whether the edits are unstaged, staged, both, renames or deletions."""

from __future__ import annotations

import re

from openwiki_git.git import diff as gitdiff
from openwiki_git.git.repo import Repo
from tests.support.repo import GitRepo

TEXT = "".join(f"line {i}\n" for i in range(1, 31))


def _git_view(repo: GitRepo) -> dict[tuple[str | None, str | None], list[str]]:
    """What `git diff HEAD -U0 -M50%` says: per (old path, new path), its hunk headers."""
    out: dict[tuple[str | None, str | None], list[str]] = {}
    key: tuple[str | None, str | None] = (None, None)
    old: str | None = None
    for line in repo.git("diff", "HEAD", "-U0", "-M50%", "--no-color").splitlines():
        if line.startswith("--- "):
            old = None if line == "--- /dev/null" else line[6:]
        elif line.startswith("+++ "):
            key = (old, None if line == "+++ /dev/null" else line[6:])
            out[key] = []
        elif line.startswith("@@"):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            assert m
            a, b, c, d = m.group(1), m.group(2) or "1", m.group(3), m.group(4) or "1"
            out[key].append(f"{a},{b} {c},{d}")
        elif line.startswith("rename from "):
            old = line[len("rename from "):]
        elif line.startswith("rename to "):
            key = (old, line[len("rename to "):])
            out[key] = []
    return out


def _ours(repo: GitRepo) -> dict[tuple[str | None, str | None], list[str]]:
    d = gitdiff.worktree(Repo(repo.root))
    return {
        (c.old_path, c.new_path): [f"{h.old_start},{h.old_count} {h.new_start},{h.new_count}" for h in c.hunks] for c in d.changes
    }


def test_the_working_tree_diff_is_git_diff_head(repo: GitRepo) -> None:
    for name in ("a", "b", "c", "d", "e"):
        repo.write(f"src/{name}.py", TEXT.replace("line 1\n", f"{name} first\n"))
    repo.commit_all("files")
    assert _ours(repo) == {} == _git_view(repo)
    repo.write("src/a.py", repo.read("src/a.py").replace("line 5\n", "five\n"))  # unstaged
    repo.write("src/b.py", repo.read("src/b.py").replace("line 9\n", ""))
    repo.git("add", "src/b.py")  # staged only
    repo.git("rm", "-q", "src/c.py")  # staged deletion
    (repo.root / "src/d.py").unlink()  # unstaged deletion
    repo.git("mv", "src/e.py", "src/e2.py")  # staged rename
    assert _ours(repo) == _git_view(repo)
    assert set(_ours(repo)) == {("src/a.py", "src/a.py"), ("src/b.py", "src/b.py"), ("src/c.py", None),
                                ("src/d.py", None), ("src/e.py", "src/e2.py")}
    repo.write("src/b.py", repo.read("src/b.py").replace("line 20\n", "twenty\n"))  # staged, then edited again
    repo.write("src/e2.py", repo.read("src/e2.py") + "appended\n")
    assert _ours(repo) == _git_view(repo)
    assert _ours(repo)[("src/b.py", "src/b.py")] == ["9,1 8,0", "20,1 19,1"]
    repo.write("src/a.py", repo.read("src/a.py") + "more\n")
    repo.git("add", "src/a.py")
    (repo.root / "src/a.py").unlink()  # staged, then deleted on disk
    repo.write("src/new.py", "new\n")
    repo.git("add", "src/new.py")
    (repo.root / "src/new.py").unlink()  # added, then deleted again: no change at all
    assert _ours(repo) == _git_view(repo)
    assert _ours(repo)[("src/a.py", None)] == ["1,30 0,0"] and ("src/new.py", None) not in _ours(repo)
