"""End-to-end fixtures: the real pre-commit, installed from this checkout as a hook repository.

`hook_repo` copies the package (the working tree, so uncommitted work is what gets tested) into a
git repository tagged v0.1.0, which a `.pre-commit-config.yaml` names as `repo:`: pre-commit then
clones it, builds a virtualenv and pip-installs it, exactly as for a user (`language: python`).

Offline: the environment pre-commit builds sees the interpreter's site-packages
(VIRTUALENV_SYSTEM_SITE_PACKAGES=1), so pygit2, ruamel.yaml and jsonschema are already there;
pip is told not to use an index (PIP_NO_INDEX=1) and to build with the setuptools that virtualenv
seeds (PIP_NO_BUILD_ISOLATION=0: pip's spelling of --no-build-isolation). Nothing is downloaded.
The environment is built once per test session (PRE_COMMIT_HOME is shared).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOK_FILES = ("openwiki_git", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml")


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("hook-repo") / "openwiki-git"
    dest.mkdir()
    for name in HOOK_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dest / name)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(dest.parent), "GIT_CONFIG_GLOBAL": os.devnull}
    ident = ["-c", "user.name=Hook", "-c", "user.email=hook@example.invalid", "-c", "commit.gpgsign=false"]
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], [*ident, "commit", "-q", "-m", "v0.1.0"], ["tag", "v0.1.0"]):
        subprocess.run(["git", *argv], cwd=dest, env=env, check=True, capture_output=True)
    return dest


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(autouse=True)
def _offline_pre_commit(pre_commit_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("VIRTUALENV_SYSTEM_SITE_PACKAGES", "1")
    monkeypatch.setenv("PIP_NO_BUILD_ISOLATION", "0")
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    monkeypatch.delenv("SKIP", raising=False)


def pre_commit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=root, capture_output=True, text=True)
