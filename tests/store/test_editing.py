"""store/editing.py's refusals of new evidence: a `repo://` path is from the repository's root, so
one typed relative to the directory the command ran in gets the path that names the file as its
hint, never "git add" for a file git already tracks (issue 36 item 5)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PAGE = "---\ntype: Reference\n---\n\n# Routing\n\nRouting returns one.\n"


@pytest.fixture
def routed(repo):  # type: ignore[no-untyped-def]
    repo.write("pkg/routing.py", "def route():\n    return 1\n")
    assert repo.run("init") == 0
    repo.write(".openwiki/routing.md", PAGE)
    repo.commit_all("a package")
    repo.write("untracked.py", "x = 1\n")
    return repo


def add(cwd, evidence: str, *before: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    """`openwiki-git [before...] claim add ... --evidence EVIDENCE`, started in `cwd`."""
    return subprocess.run([sys.executable, "-m", "openwiki_git", *before, "claim", "add", "--page", "routing.md",
                           "--statement", "Routing returns one.", "--evidence", evidence], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize(("evidence", "hint"), [
    ("repo://routing.py#L1-L2", "hint: did you mean repo://pkg/routing.py#L1-L2? (a repo:// path is from the repository's root)"),
    ("repo://routing.py#route:head", "hint: did you mean repo://pkg/routing.py#route:head?"),
    ("repo://routing.py", "hint: did you mean repo://pkg/routing.py?"),
])
def test_a_path_typed_from_the_package_directory_is_offered_from_the_root(routed, evidence: str, hint: str) -> None:  # type: ignore[no-untyped-def]
    before = routed.snapshot()
    p = add(routed.root / "pkg", evidence)
    assert p.returncode == 2 and p.stdout == ""
    error, said = p.stderr.splitlines()
    assert error.startswith(f"error: {evidence}: routing.py: not tracked by git")
    assert said.startswith(hint) and "git add" not in p.stderr
    assert routed.snapshot() == before  # nothing written
    p = add(routed.root, evidence, "-C", "pkg")  # -C DIR: as if started there
    assert p.returncode == 2 and p.stderr.splitlines()[1].startswith(hint)


def test_git_add_only_for_a_file_that_is_there_untracked(routed) -> None:  # type: ignore[no-untyped-def]
    p = add(routed.root, "repo://untracked.py#L1-L1")
    assert p.returncode == 2 and p.stderr.splitlines()[1] == "hint: `git add untracked.py` first"
    p = add(routed.root, "repo://nowhere.py#L1-L1")
    assert p.returncode == 2 and "from the repository's root" in p.stderr and "git add" not in p.stderr
    p = add(routed.root / "pkg", "repo://pkg/routing.py#L1-L2")  # from the root, as it should be
    assert p.returncode == 0, p.stderr
