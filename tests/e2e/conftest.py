"""End-to-end fixtures: the real pre-commit, installed from this checkout as a hook repository.

`hook_repo` copies the package (the working tree, so uncommitted work is what gets tested) into a
git repository tagged v0.1.0, which a `.pre-commit-config.yaml` names as `repo:`: pre-commit then
clones it, builds a virtualenv and pip-installs it, exactly as for a user (`language: python`).

Offline, and from what *this* environment has, never from the base interpreter: `wheelhouse`
repacks the installed distributions that openwiki-git's runtime dependencies need (walked
transitively from the metadata) and setuptools (the build backend) into wheels in a temporary
directory. pip in pre-commit's virtualenv is pointed there and nowhere else (PIP_FIND_LINKS,
PIP_NO_INDEX=1, no pip config file); the virtualenv does not see any site-packages but its own.
The environment is built once per test session (PRE_COMMIT_HOME is shared).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
HOOK_FILES = ("openwiki_git", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
BUILD_BACKEND = "setuptools"  # pyproject.toml's build-system; pip builds the hook repository with it
_SKIPPED_DIST_INFO = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(dist: metadata.Distribution) -> list[str]:
    """The names `dist` needs at run time on this interpreter (no extras)."""
    env = {**default_environment(), "extra": ""}
    out = []
    for line in dist.requires or ():
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            out.append(req.name)
    return out


def _runtime_requirements(pyproject: Path) -> list[str]:
    """The names the hook repository asks pip for: pyproject.toml's (not the installed, maybe
    older, metadata's) `project.dependencies`."""
    env = {**default_environment(), "extra": ""}
    reqs = [Requirement(r) for r in tomllib.loads(pyproject.read_text())["project"]["dependencies"]]
    return [r.name for r in reqs if r.marker is None or r.marker.evaluate(env)]


def runtime_closure(pyproject: Path) -> list[metadata.Distribution]:
    """The installed distributions the project of `pyproject` needs at run time, transitively."""
    seen: dict[str, metadata.Distribution] = {}
    todo = _runtime_requirements(pyproject)
    while todo:
        name = _canonical(todo.pop())
        if name in seen:
            continue
        dist = metadata.distribution(name)  # PackageNotFoundError: the environment is incomplete
        seen[name] = dist
        todo.extend(_requirements(dist))
    return [seen[n] for n in sorted(seen)]


def _wheel_tags(wheel_text: str) -> str:
    """`py3-none-any`, or the compressed tag set (`cp311-cp311-manylinux_2_26_x86_64.manylinux_2_28_x86_64`)."""
    tags = [line.split(":", 1)[1].strip() for line in wheel_text.splitlines() if line.startswith("Tag:")]
    if not tags:
        return "py3-none-any"
    parts = [sorted({t.split("-")[i] for t in tags}) for i in range(3)]
    return "-".join(".".join(p) for p in parts)


def repack(dist: metadata.Distribution, dest: Path) -> Path:
    """An installed distribution as a wheel again: the files its RECORD lists under
    site-packages (not bytecode, not scripts: pip regenerates those), its dist-info, a new RECORD."""
    site = Path(str(dist.locate_file(""))).resolve()
    wheel_text = dist.read_text("WHEEL") or "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    version = dist.version
    info = f"{name}-{version}.dist-info"
    target = dest / f"{name}-{version}-{_wheel_tags(wheel_text)}.whl"
    record: list[str] = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in dist.files or ():
            path = Path(str(dist.locate_file(file))).resolve()
            try:
                rel = path.relative_to(site).as_posix()
            except ValueError:
                continue  # bin/ scripts and other data outside site-packages
            parts = rel.split("/")
            if "__pycache__" in parts or rel.endswith(".pyc") or not path.is_file():
                continue
            if parts[0].endswith(".dist-info"):
                if parts[-1] in _SKIPPED_DIST_INFO and len(parts) == 2:
                    continue
                rel = "/".join([info, *parts[1:]])
            data = path.read_bytes()
            zf.writestr(rel, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{rel},sha256={digest},{len(data)}")
        if f"{info}/WHEEL" not in {r.split(",")[0] for r in record}:
            zf.writestr(f"{info}/WHEEL", wheel_text)
            record.append(f"{info}/WHEEL,,")
        record.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return target


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """openwiki-git's run-time dependencies and its build backend, as wheels made from this environment."""
    dest = tmp_path_factory.mktemp("wheelhouse")
    fix = "run `python -m pip install -e '.[test]'` again"
    try:
        dists = [*runtime_closure(ROOT / "pyproject.toml"), metadata.distribution(BUILD_BACKEND)]
    except metadata.PackageNotFoundError as e:
        pytest.fail(f"the test environment lacks {e.name}: {fix}")
    needed = [Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]]
    for req in needed:
        if not req.specifier.contains(metadata.version(req.name), prereleases=True):
            pytest.fail(f"the hook repository builds with {req}, this environment has {metadata.version(req.name)}: {fix}")
    for dist in dists:
        repack(dist, dest)
    return dest


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
def _offline_pre_commit(pre_commit_home: Path, wheelhouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith(("PIP_", "VIRTUALENV_"))]:
        monkeypatch.delenv(name)  # the machine's pip settings are not a user's
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # nor its pip.conf (indexes, find-links, constraints)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheelhouse))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    monkeypatch.delenv("SKIP", raising=False)
    # The hook fits its message to the terminal pre-commit runs in (/dev/tty): the tests' width
    # is theirs, 200 columns, not the terminal of whoever runs the suite.
    monkeypatch.setenv("COLUMNS", "200")


def pre_commit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=root, capture_output=True, text=True)


def hook_environments(pre_commit_home: Path) -> list[Path]:
    """The virtualenvs pre-commit built for the hook repository (`<home>/repo*/py_env-*`)."""
    return sorted(p for p in pre_commit_home.glob("repo*/py_env-*") if (p / "pyvenv.cfg").is_file())
