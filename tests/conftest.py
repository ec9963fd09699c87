"""Shared fixtures: real git repositories in tmp_path, isolated from the user's git config."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from openwiki_git.cli.main import main


@pytest.fixture(autouse=True)
def _isolate_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed identity and no user/system config or templates: tests never depend on the machine."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", "")
    for name, value in {
        "GIT_AUTHOR_NAME": "Ada Test",
        "GIT_AUTHOR_EMAIL": "ada@example.invalid",
        "GIT_COMMITTER_NAME": "Ada Test",
        "GIT_COMMITTER_EMAIL": "ada@example.invalid",
        "GIT_AUTHOR_DATE": "2026-11-30T10:00:00+00:00",
        "GIT_COMMITTER_DATE": "2026-11-30T10:00:00+00:00",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "PRE_COMMIT", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF"):
        monkeypatch.delenv(name, raising=False)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "GITHUB_TOKEN", "OPENWIKI_GIT_LOCK_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)


class GitRepo:
    """A real git repository in a temporary directory, driven with the git CLI."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.root, capture_output=True, text=True, env={**os.environ, **(env or {})}
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
        return proc.stdout

    def write(self, path: str, text: str) -> Path:
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(text.encode("utf-8"))
        return full

    def read(self, path: str) -> str:
        return (self.root / path).read_bytes().decode("utf-8")

    def commit_all(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def snapshot(self) -> dict[str, bytes]:
        """Every file's bytes outside .git, to prove a command wrote nothing."""
        out = {}
        for p in sorted(self.root.rglob("*")):
            if p.is_file() and ".git" not in p.relative_to(self.root).parts:
                out[p.relative_to(self.root).as_posix()] = p.read_bytes()
        return out

    def run(self, *argv: str) -> int:
        return main(["-C", str(self.root), *argv])


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[GitRepo]:
    root = tmp_path / "repo"
    root.mkdir()
    r = GitRepo(root)
    r.git("init", "-q", "-b", "main")
    yield r


SAMPLE = "".join(f"line {i}\n" for i in range(1, 41))


@pytest.fixture
def wiki_repo(repo: GitRepo) -> GitRepo:
    """A repository with one source file, an initialised wiki and one page."""
    repo.write("src/app.py", SAMPLE)
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\nLine ten says ten.\n")
    repo.commit_all("initial")
    return repo
