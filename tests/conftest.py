"""Shared fixtures: real git repositories in tmp_path, isolated from the user's git config."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.pty_session import kill_leftovers
from tests.support.repo import GitRepo

# Fixtures shared by several test packages (their modules say what each is for).
pytest_plugins = ("tests.support.github_fake", "tests.support.ground_docs")


@pytest.fixture(autouse=True)
def _no_terminal_session_left() -> Iterator[None]:
    """A command a test ran in a pseudo-terminal and left running (a failed assertion midway) is
    killed when the test ends, not reported by the next one as a still-running subprocess."""
    yield
    kill_leftovers()


@pytest.fixture(autouse=True)
def _isolate_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed identity and no user/system config or templates: tests never depend on the machine."""
    _isolated(tmp_path_factory, monkeypatch)


def _isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
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


@pytest.fixture(scope="session")
def _many_marks_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """tests/support/many_marks.py's repository, built once (200 claims through `claim add`)."""
    from tests.support import many_marks

    with pytest.MonkeyPatch.context() as mp:
        _isolated(tmp_path_factory, mp)
        root = tmp_path_factory.mktemp("many-marks") / "repo"
        root.mkdir()
        r = GitRepo(root)
        r.git("init", "-q", "-b", "main")
        return root, many_marks.build(r)


@pytest.fixture
def many_marks_repo(tmp_path: Path, _many_marks_template: tuple[Path, list[str]]) -> GitRepo:
    """A copy of the 200-claim repository (tests/support/many_marks.py), its claim ids in `ids`."""
    import shutil

    src, ids = _many_marks_template
    shutil.copytree(src, tmp_path / "repo", symlinks=True, ignore=shutil.ignore_patterns("openwiki-git"))  # no caches
    r = GitRepo(tmp_path / "repo")
    r.ids = ids  # type: ignore[attr-defined]
    return r
