"""The hook as users run it: the real pre-commit (language: python, installed from this checkout)
called by real `git commit`s in temporary repositories."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import ROOT, hook_environments, pre_commit

pytestmark = pytest.mark.e2e

SAMPLE = "".join(f"line {i}\n" for i in range(1, 41))
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\nLine ten says ten. Thirty follows.\n"
CONFIG = "repos:\n  - repo: {url}\n    rev: v0.1.0\n    hooks:\n      - id: {hook}\n"


def run(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=root, capture_output=True, text=True)


def commit(repo, *args: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    p = run(repo.root, "git", "commit", "-q", *args)
    return p.returncode, p.stdout + p.stderr


def committed_claims(repo, rev: str = "HEAD") -> dict[str, dict]:  # type: ignore[no-untyped-def, type-arg]
    data = json.loads(repo.git("show", f"{rev}:.openwiki/.claims/guide.json"))
    return {c["statement"]: c for c in data["claims"]}


def edit(repo, fn: Callable[[list[str]], list[str]], path: str = "src/app.py") -> None:  # type: ignore[no-untyped-def]
    lines = repo.read(path).splitlines(keepends=True)
    repo.write(path, "".join(fn(lines)))


def claim_add(repo, statement: str, resource: str) -> None:  # type: ignore[no-untyped-def]
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        assert repo.run("claim", "add", "--page", "guide.md", "--statement", statement, "--evidence", resource) == 0


@pytest.fixture
def project(repo, hook_repo):  # type: ignore[no-untyped-def]
    """A repository using the marking hook, with claims A (L10-L12) and B (L30-L31) committed.
    The first commit itself goes through the hook (no HEAD yet)."""
    claims = [("Line ten says ten.", "repo://src/app.py#L10-L12"), ("Thirty follows.", "repo://src/app.py#L30-L31")]
    return hooked(repo, hook_repo, {"src/app.py": SAMPLE}, PAGE, claims)


def hooked(repo, hook_repo, sources: dict[str, str], page: str, claims: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    """`repo` with `sources`, an initialised wiki whose guide.md is `page`, the marking hook
    installed by the real pre-commit and `claims` (statement, resource) added, all committed
    through the hook."""
    import contextlib
    import io

    for path, text in sources.items():
        repo.write(path, text)
    with contextlib.redirect_stdout(io.StringIO()):
        assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", page)
    repo.write(".pre-commit-config.yaml", CONFIG.format(url=hook_repo, hook="openwiki-git"))
    repo.git("add", "-A")
    for statement, resource in claims:
        claim_add(repo, statement, resource)
    repo.git("add", "-A")
    installed = pre_commit(repo.root, "install")
    assert installed.returncode == 0, installed.stderr
    rc, out = commit(repo, "-m", "initial")
    assert rc == 0, out
    return repo


def stale_line(claims: dict, statement: str, where: str, hunk: str, reason: str = "changed") -> str:  # type: ignore[type-arg]
    return f".openwiki/guide.md: {claims[statement]['id']}: {statement} ({where} {reason} by {hunk})"


def test_partial_staging(project) -> None:  # type: ignore[no-untyped-def]
    """An unstaged edit inside a cited range is not reported; a staged one is. A commit that only
    moves text passes at once, with the re-anchored sidecar in it."""
    edit(project, lambda ls: ["# header\n"] + ls)
    project.git("add", "src/app.py")
    edit(project, lambda ls: ls[:11] + ["not staged\n"] + ls[12:])  # inside A, working tree only
    rc, out = commit(project, "-m", "header")
    assert rc == 0, out
    assert "changed by" not in out and "files were modified" not in out
    assert "not staged" in project.read("src/app.py")  # pre-commit put the unstaged edit back
    claims = committed_claims(project)
    assert "mark" not in claims["Line ten says ten."]
    assert claims["Line ten says ten."]["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    assert project.git("status", "--porcelain").splitlines() == [" M src/app.py"]  # the index is consistent
    # now stage the edit: the commit stops once, with the mark staged; the same commit then passes
    project.git("add", "src/app.py")
    rc, out = commit(project, "-m", "edit")
    assert rc == 1
    assert stale_line(claims, "Line ten says ten.", "src/app.py#L11-L13", "@@ -12 +12 @@") in out
    assert "files were modified" not in out and "the marks are staged" in out
    rc, out = commit(project, "-m", "edit")
    assert rc == 0, out
    assert committed_claims(project)["Line ten says ten."]["mark"]["causes"][0]["hunk"] == "@@ -12 +12 @@"
    assert project.git("status", "--porcelain") == ""


def test_commit_all(project) -> None:  # type: ignore[no-untyped-def]
    claims = committed_claims(project)
    edit(project, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    rc, out = commit(project, "-a", "-m", "edit")
    assert rc == 1
    assert stale_line(claims, "Line ten says ten.", "src/app.py#L10-L12", "@@ -11 +11 @@") in out
    rc, out = commit(project, "-a", "-m", "edit")
    assert rc == 0, out
    assert committed_claims(project)["Line ten says ten."]["mark"]["status"] == "stale"
    assert project.git("status", "--porcelain") == ""


def test_commit_all_that_only_moves_text_passes_at_once(project) -> None:  # type: ignore[no-untyped-def]
    edit(project, lambda ls: ["# one\n", "# two\n"] + ls)
    rc, out = commit(project, "-a", "-m", "shift")
    assert rc == 0, out
    claims = committed_claims(project)
    assert claims["Line ten says ten."]["evidence"][0]["resource"] == "repo://src/app.py#L12-L14"
    assert project.git("status", "--porcelain") == ""


def test_commit_with_paths_uses_the_temporary_index(project) -> None:  # type: ignore[no-untyped-def]
    claims = committed_claims(project)
    project.write("other.txt", "staged, not part of this commit\n")
    project.git("add", "other.txt")
    # only moved: passes at once, the re-anchored sidecar in the commit and in the real index
    edit(project, lambda ls: ["# header\n"] + ls)
    rc, out = commit(project, "-m", "shift", "src/app.py")
    assert rc == 0, out
    assert committed_claims(project)["Thirty follows."]["evidence"][0]["resource"] == "repo://src/app.py#L31-L32"
    assert project.git("show", "--name-only", "--format=", "HEAD").split() == [
        ".openwiki/.claims/guide.json", ".openwiki/guide.md", "src/app.py"]
    assert project.git("status", "--porcelain").splitlines() == ["A  other.txt"]
    # a stale claim: stops once, writing nothing; the same commit then passes with the mark
    edit(project, lambda ls: ls[:30] + ["changed thirty\n"] + ls[31:])  # inside B
    rc, out = commit(project, "-m", "edit", "src/app.py")
    assert rc == 1
    assert stale_line(claims, "Thirty follows.", "src/app.py#L31-L32", "@@ -31 +31 @@") in out
    assert "Line ten" not in out
    rc, out = commit(project, "-m", "edit", "src/app.py")
    assert rc == 0, out
    assert committed_claims(project)["Thirty follows."]["mark"]["status"] == "stale"
    assert "other.txt" not in project.git("show", "--name-only", "HEAD")
    assert project.git("status", "--porcelain").splitlines() == ["A  other.txt"]


def test_amend(project) -> None:  # type: ignore[no-untyped-def]
    project.write("notes.txt", "notes\n")
    project.git("add", "notes.txt")
    assert commit(project, "-m", "notes")[0] == 0
    count = project.git("rev-list", "--count", "HEAD")
    edit(project, lambda ls: ["# header\n"] + ls)
    rc, out = commit(project, "-a", "--amend", "--no-edit")
    assert rc == 0, out  # only moved
    assert committed_claims(project)["Line ten says ten."]["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    edit(project, lambda ls: ls[:11] + ["changed\n"] + ls[12:])  # inside A
    project.git("add", "src/app.py")
    rc, out = commit(project, "--amend", "--no-edit")
    assert rc == 1 and "Line ten says ten." in out
    rc, out = commit(project, "--amend", "--no-edit")
    assert rc == 0, out
    assert committed_claims(project)["Line ten says ten."]["mark"]["status"] == "stale"
    assert project.git("rev-list", "--count", "HEAD") == count
    assert project.git("status", "--porcelain") == ""


def test_unstaged_edits_to_a_page_the_hook_rewrites_stop_the_commit(project) -> None:  # type: ignore[no-untyped-def]
    """pre-commit stashes the page's unstaged prose edit; the hook must not stage the page over it."""
    edit(project, lambda ls: ["# header\n"] + ls)
    project.git("add", "src/app.py")
    project.write(".openwiki/guide.md", project.read(".openwiki/guide.md").replace("# Guide", "# Guide, draft"))
    rc, out = commit(project, "-m", "shift")
    assert rc == 1, out
    assert "not staged" in out
    assert "# Guide, draft" in project.read(".openwiki/guide.md")  # the person's edit is still there
    assert "An unexpected error" not in out  # pre-commit put its stash back
    project.git("add", ".openwiki")
    rc, out = commit(project, "-m", "shift")
    assert rc == 0, out
    assert committed_claims(project)["Line ten says ten."]["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    assert project.git("status", "--porcelain") == ""


@pytest.mark.parametrize("setting", ["on_moved: stop", "on_stale: stage"])
def test_hook_settings(project, setting: str) -> None:  # type: ignore[no-untyped-def]
    project.write(".openwiki/config.yml", project.read(".openwiki/config.yml") + f"hook:\n  {setting}\n")
    assert commit(project, "-a", "-m", "config")[0] == 0
    if setting == "on_moved: stop":
        edit(project, lambda ls: ["# header\n"] + ls)
        rc, out = commit(project, "-a", "-m", "shift")
        assert rc == 1 and "on_moved: stop" in out
        rc, out = commit(project, "-a", "-m", "shift")
        assert rc == 0, out
        assert committed_claims(project)["Line ten says ten."]["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    else:
        edit(project, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
        rc, out = commit(project, "-a", "-m", "edit")
        assert rc == 0, out
        assert committed_claims(project)["Line ten says ten."]["mark"]["status"] == "stale"
    assert project.git("status", "--porcelain") == ""


def test_rename_with_edits(project) -> None:  # type: ignore[no-untyped-def]
    claims = committed_claims(project)
    project.git("mv", "src/app.py", "src/core.py")
    edit(project, lambda ls: ["# moved here\n"] + ls[:10] + ["changed\n"] + ls[11:], "src/core.py")
    project.git("add", "src/core.py")
    rc, out = commit(project, "-m", "rename")
    assert rc == 1
    assert stale_line(claims, "Line ten says ten.", "src/core.py#L11-L13", "@@ -11 +12 @@", "renamed and changed") in out
    rc, out = commit(project, "-m", "rename")
    assert rc == 0, out
    after = committed_claims(project)
    a, b = after["Line ten says ten."], after["Thirty follows."]
    assert a["evidence"][0]["resource"] == "repo://src/core.py#L11-L13"
    assert a["mark"]["causes"][0]["path"] == "src/core.py"
    assert b["evidence"][0]["resource"] == "repo://src/core.py#L31-L32" and "mark" not in b


def test_deletion(project) -> None:  # type: ignore[no-untyped-def]
    project.git("rm", "-q", "src/app.py")
    rc, out = commit(project, "-m", "delete")
    assert rc == 1
    assert out.count("src/app.py#L") == 2 and "deleted" in out
    rc, out = commit(project, "-m", "delete")
    assert rc == 0, out
    assert {c["mark"]["status"] for c in committed_claims(project).values()} == {"unresolved"}
    assert project.run("check") == 1


def _mark_a(project) -> None:  # type: ignore[no-untyped-def]
    edit(project, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    assert commit(project, "-a", "-m", "edit")[0] == 1
    rc, out = commit(project, "-a", "-m", "edit")
    assert rc == 0, out
    assert "mark" in committed_claims(project)["Line ten says ten."]


def test_git_revert_of_the_marking_commit(project) -> None:  # type: ignore[no-untyped-def]
    _mark_a(project)
    p = run(project.root, "git", "revert", "--no-edit", "HEAD")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "mark" not in committed_claims(project)["Line ten says ten."]
    assert project.read("src/app.py") == SAMPLE
    assert project.run("check") == 0


def test_hand_revert_keeps_the_mark_until_check_fix(project) -> None:  # type: ignore[no-untyped-def]
    _mark_a(project)
    project.write("src/app.py", SAMPLE)
    rc, out = commit(project, "-a", "-m", "put it back")
    assert rc == 0, out  # nothing to rewrite: the range is where it was
    assert "mark" in committed_claims(project)["Line ten says ten."]
    assert project.run("check") == 1
    assert project.run("check", "--fix") == 0  # the text is back to exactly what was verified
    rc, out = commit(project, "-a", "-m", "clear the mark")
    assert rc == 0, out
    assert "mark" not in committed_claims(project)["Line ten says ten."]


def test_merge_commit_resolving_a_conflict(project) -> None:  # type: ignore[no-untyped-def]
    project.git("checkout", "-q", "-b", "topic")
    edit(project, lambda ls: ["# topic header\n"] + ls[:4] + ["topic five\n"] + ls[5:])
    rc, out = commit(project, "-a", "-m", "topic")
    assert rc == 0, out  # B and A re-anchored, in the commit
    project.git("checkout", "-q", "main")
    edit(project, lambda ls: ls[:4] + ["main five\n"] + ls[5:])
    rc, out = commit(project, "-a", "-m", "main")
    assert rc == 0, out  # no cited line touched, nothing moved
    p = run(project.root, "git", "merge", "topic")
    assert p.returncode != 0 and "CONFLICT" in p.stdout  # line 5
    resolved = ["# topic header\n"] + SAMPLE.splitlines(keepends=True)
    resolved[5] = "merged five\n"
    resolved[11] = "changed in the merge\n"  # old line 11: inside A
    project.write("src/app.py", "".join(resolved))
    project.git("add", "src/app.py")
    rc, out = commit(project, "--no-edit")
    assert rc == 1, out
    assert "Line ten says ten." in out and "Thirty follows." not in out
    rc, out = commit(project, "--no-edit")
    assert rc == 0, out
    assert len(project.git("rev-list", "--parents", "-n1", "HEAD").split()) == 3
    claims = committed_claims(project)
    assert claims["Line ten says ten."]["mark"]["status"] == "stale"
    assert claims["Line ten says ten."]["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    assert claims["Thirty follows."]["evidence"][0]["resource"] == "repo://src/app.py#L31-L32"
    assert "mark" not in claims["Thirty follows."]


def test_two_branches_merged_through_the_driver(project) -> None:  # type: ignore[no-untyped-def]
    """One branch re-anchors every claim, the other marks one: the sidecar merges claim by claim."""
    assert project.run("install") == 0
    project.git("add", ".gitattributes")
    assert commit(project, "-m", "merge driver")[0] == 0
    project.git("checkout", "-q", "-b", "topic")
    edit(project, lambda ls: ["# one\n", "# two\n"] + ls)
    assert commit(project, "-a", "-m", "topic")[0] == 0
    project.git("checkout", "-q", "main")
    edit(project, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    assert commit(project, "-a", "-m", "main")[0] == 1
    assert commit(project, "-a", "-m", "main")[0] == 0
    p = run(project.root, "git", "merge", "--no-edit", "topic")
    assert p.returncode == 0, p.stdout + p.stderr
    claims = committed_claims(project)
    a, b = claims["Line ten says ten."], claims["Thirty follows."]
    assert a["mark"]["status"] == "stale"  # from main
    assert a["evidence"][0]["resource"] == "repo://src/app.py#L12-L14"  # from topic
    assert b["evidence"][0]["resource"] == "repo://src/app.py#L32-L33" and "mark" not in b
    before = project.snapshot()
    assert project.run("hook") == 0  # nothing staged: every claim checked, every page rendered
    assert project.snapshot() == before
    assert project.run("check", "--fix") == 1  # A is stale; its line numbers are already right
    after = json.loads(project.read(".openwiki/.claims/guide.json"))["claims"]
    assert [(c["evidence"][0]["resource"], c.get("mark")) for c in after] == [
        (c["evidence"][0]["resource"], c.get("mark")) for c in (a, b)
    ]
    # the same merge with git's line-based merge conflicts
    project.git("checkout", "-q", "--", ".openwiki")
    project.git("checkout", "-q", "-b", "plain", "HEAD~1")
    info = project.root / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("* merge=text\n")
    p = run(project.root, "git", "merge", "--no-edit", "topic")
    assert p.returncode != 0 and "CONFLICT" in p.stdout
    project.git("merge", "--abort")


def test_crlf_checkout_with_autocrlf(project) -> None:  # type: ignore[no-untyped-def]
    project.git("config", "core.autocrlf", "true")
    (project.root / "src/app.py").unlink()
    project.git("checkout", "--", "src/app.py")
    assert b"\r\n" in (project.root / "src/app.py").read_bytes()
    assert project.run("check") == 0
    data = (project.root / "src/app.py").read_bytes().replace(b"line 2\r\n", b"line 2\r\nadded\r\n", 1)
    (project.root / "src/app.py").write_bytes(data)
    rc, out = commit(project, "-a", "-m", "crlf edit")
    assert rc == 0 and "changed by" not in out, out  # re-anchored only: in the commit
    claims = committed_claims(project)
    assert all("mark" not in c for c in claims.values())
    assert claims["Line ten says ten."]["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    assert project.run("check") == 0


def test_check_only_hook_on_a_ref_range(project, hook_repo) -> None:  # type: ignore[no-untyped-def]
    base = project.git("rev-parse", "HEAD").strip()
    edit(project, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    assert commit(project, "-a", "--no-verify", "-m", "unhooked")[0] == 0
    project.write(".pre-commit-config.yaml", CONFIG.format(url=hook_repo, hook="openwiki-git-check"))
    project.git("add", ".pre-commit-config.yaml")
    assert commit(project, "--no-verify", "-m", "check-only hook")[0] == 0
    before = project.snapshot()
    p = pre_commit(project.root, "run", "openwiki-git-check", "--hook-stage", "manual", "--from-ref", base, "--to-ref", "HEAD")
    assert p.returncode == 1
    assert "Line ten says ten. (src/app.py#L10-L12 changed by @@ -11 +11 @@)" in p.stdout
    assert project.snapshot() == before


def _readme_snippet() -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("## Use it as a pre-commit hook", 1)[1]
    match = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert match, "the README section has a yaml block"
    return match.group(1)


def test_readme_snippet_as_a_new_user(repo, hook_repo) -> None:  # type: ignore[no-untyped-def]
    """From an empty repository to a commit that marks a claim stale, following the README."""
    snippet = _readme_snippet()
    assert "repo: https://github.com/openwiki-git/openwiki-git" in snippet and "rev: v0.1.0" in snippet
    repo.write(".pre-commit-config.yaml", snippet.replace("https://github.com/openwiki-git/openwiki-git", str(hook_repo)))
    assert pre_commit(repo.root, "install").returncode == 0
    repo.write("src/retry.py", "".join(f"# {i}\n" for i in range(1, 10)) + "MAX_ATTEMPTS = 5\n" + "# end\n")
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        assert repo.run("init") == 0
    repo.write(".openwiki/architecture.md", "---\ntype: Reference\n---\n\n# Retries\n\nRetries stop after five attempts.\n")
    repo.git("add", "-A")
    with contextlib.redirect_stdout(io.StringIO()):
        argv = ("claim", "add", "--page", "architecture.md", "--statement", "Retries stop after five attempts.")
        assert repo.run(*argv, "--evidence", "repo://src/retry.py#L10") == 0
    repo.git("add", "-A")
    rc, out = commit(repo, "-m", "wiki")
    assert rc == 0, out
    repo.write("src/retry.py", repo.read("src/retry.py").replace("MAX_ATTEMPTS = 5", "MAX_ATTEMPTS = 7"))
    rc, out = commit(repo, "-a", "-m", "more retries")
    assert rc == 1
    assert "Retries stop after five attempts. (src/retry.py#L10-L10 changed by @@ -10 +10 @@)" in out
    assert "the marks are staged" in out and "files were modified by this hook" not in out
    rc, out = commit(repo, "-a", "-m", "more retries")
    assert rc == 0, out
    sidecar = json.loads(repo.git("show", "HEAD:.openwiki/.claims/architecture.json"))
    assert sidecar["claims"][0]["mark"]["status"] == "stale"


def test_hook_environment_is_built_from_the_wheelhouse_alone(project, pre_commit_home, wheelhouse) -> None:  # type: ignore[no-untyped-def]
    """The virtualenv pre-commit built sees no site-packages but its own: pygit2 and the other
    run-time dependencies were installed into it, from the wheels made of this environment."""
    import importlib.metadata

    envs = hook_environments(pre_commit_home)
    assert envs, f"no hook environment under {pre_commit_home}"
    for env in envs:
        assert "include-system-site-packages = false" in (env / "pyvenv.cfg").read_text()
        python = env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
        code = "import pygit2, ruamel.yaml, jsonschema; print(pygit2.__file__); print(pygit2.__version__)"
        probe = subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True, check=True)
        where, version = probe.stdout.split()
        assert Path(where).resolve().is_relative_to(env.resolve()), where
        assert version == importlib.metadata.version("pygit2")
    assert any(p.name.startswith("pygit2-") for p in wheelhouse.iterdir())


def test_definitions_and_sets_through_the_real_hook(project) -> None:  # type: ignore[no-untyped-def]
    """Issue 23: a definition by name and a set of files, marked by `git commit` as pre-commit runs
    the hook: moved code passes, a changed definition and a new member stop the commit once."""
    project.write("src/cart.py", "class Cart:\n    def add(self, item):\n        return item\n")
    project.write("src/stores/memory.py", "class MemoryStore: ...\n")
    page = project.read(".openwiki/guide.md")
    project.write(".openwiki/guide.md", page + "\nCart.add returns the item. MemoryStore is the only store.\n")
    project.git("add", "-A")
    claim_add(project, "Cart.add returns the item.", "repo://src/cart.py#Cart.add")
    claim_add(project, "MemoryStore is the only store.", "repo://src/stores/*.py")
    project.git("add", "-A")
    rc, out = commit(project, "-m", "kinds")
    assert rc == 0, out
    project.write("src/cart.py", "import os\n\n\nclass Cart:\n    def add(self, item):\n        return item\n")
    project.git("add", "-A")
    rc, out = commit(project, "-m", "moved")
    assert rc == 0, out
    assert "mark" not in committed_claims(project)["Cart.add returns the item."]
    project.write("src/cart.py", "import os\n\n\nclass Cart:\n    def add(self, item):\n        return [item]\n")
    project.write("src/stores/disk.py", "class DiskStore: ...\n")
    project.git("add", "-A")
    rc, out = commit(project, "-m", "changed")
    assert rc == 1
    assert "src/cart.py#Cart.add definition Cart.add changed (L5-L6 now) by @@ -6 +6 @@" in out
    assert "src/stores/*.py new: src/stores/disk.py" in out
    rc, out = commit(project, "-m", "changed")  # the marks are staged: the same commit passes
    assert rc == 0, out
    claims = committed_claims(project)
    assert claims["Cart.add returns the item."]["mark"]["status"] == "stale"
    assert claims["MemoryStore is the only store."]["mark"]["causes"][0]["reason"] == "new: src/stores/disk.py"
def test_a_verifier_the_policy_forbids_stops_every_commit_until_a_person_confirms(project) -> None:  # type: ignore[no-untyped-def]
    project.write(".openwiki/config.yml", project.read(".openwiki/config.yml")
                  + 'verify_policy:\n  - pages: "guide.md"\n    allow: [human]\n')
    rc, out = commit(project, "-a", "-m", "policy")
    assert rc == 0, out
    claim = committed_claims(project)["Line ten says ten."]
    path = ".openwiki/.claims/guide.json"
    data = json.loads(project.read(path))
    data["claims"][0]["verifiedBy"] = "model:gpt-4o"  # set by hand, as a pull request could
    project.write(path, json.dumps(data, indent=2) + "\n")
    for _ in range(2):  # not a stop-once
        rc, out = commit(project, "-a", "-m", "verified by a model")
        assert rc == 1
        assert f"{claim['id']}: verified by model:gpt-4o, which the verify policy forbids" in out
        assert '$.verify_policy[0]: pages "guide.md" allow [human]' in out
    assert project.run("claim", "confirm", claim["id"], "--by", "human:ada") == 0
    rc, out = commit(project, "-a", "-m", "confirmed by a person")
    assert rc == 0, out
    assert committed_claims(project)["Line ten says ten."]["verifiedBy"] == "human:ada"

def test_a_commit_copying_a_claim_to_another_page_is_refused(project) -> None:  # type: ignore[no-untyped-def]
    """The commit adds other.md with a copy of guide.md's sidecar (citing another file): it touches
    only other.md, yet its claim ids are also on guide.md. The hook refuses it (as validate and
    check do), writes nothing, and the commit does not happen."""
    a = committed_claims(project)["Line ten says ten."]["id"]
    project.write("src/copy.py", SAMPLE)
    project.write(".openwiki/other.md", project.read(".openwiki/guide.md"))
    project.write(".openwiki/.claims/other.json", project.read(".openwiki/.claims/guide.json").replace("src/app.py", "src/copy.py"))
    project.git("add", "-A")
    head, status = project.git("rev-parse", "HEAD"), project.git("status", "--porcelain")
    before = project.snapshot()
    rc, out = commit(project, "-m", "copy a page")
    assert rc != 0 and f"claim {a} is also on page guide.md" in out and "Traceback" not in out
    assert project.git("rev-parse", "HEAD") == head and project.git("status", "--porcelain") == status
    assert project.snapshot() == before
