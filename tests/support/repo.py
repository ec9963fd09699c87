"""A real git repository in a temporary directory, driven with the git CLI and our own `main`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from openwiki_git.cli.main import main


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


def add_claim(repo: GitRepo, page: str, statement: str, *evidence: str) -> str:
    """`claim add` through the real CLI (it must succeed); the new claim's id."""
    argv = ["claim", "add", "--page", page, "--statement", statement]
    for ev in evidence:
        argv += ["--evidence", ev]
    assert repo.run(*argv) == 0
    from openwiki_git.store.workspace import Workspace

    sidecar = Workspace.open(repo.root).wiki.sidecar_path(page)  # the repository's own wiki directory
    return str(json.loads(sidecar.read_text("utf-8"))["claims"][-1]["id"])


def claims_over(repo: GitRepo, files: dict[str, str], claims: list[tuple[str, ...]]) -> GitRepo:
    """`files` written and committed ("sources"), then each claim (page, statement, evidence...)
    added through the real CLI and committed ("claims"): a wiki of hand-made claims."""
    for path, text in files.items():
        repo.write(path, text)
    repo.commit_all("sources")
    for page, statement, *evidence in claims:
        add_claim(repo, page, statement, *evidence)
    repo.commit_all("claims")
    return repo


# Run in a fresh interpreter: the CLI's exit code, then the modules it imported (its last line).
IMPORTS_PROBE = (
    "import sys\n"
    "before = set(sys.modules)\n"
    "from openwiki_git.cli.main import main\n"
    "rc = main(sys.argv[1:])\n"
    "print('\\n' + repr(sorted(set(sys.modules) - before)))\n"
    "sys.exit(rc)\n"
)
