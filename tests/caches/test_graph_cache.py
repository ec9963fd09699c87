"""graph_cache writes through store.atomic_write (the one atomic write), unsynced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from openwiki_git.caches import graph as graph_cache
from openwiki_git.store import wiki as store


def test_a_cache_file_is_written_as_the_store_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    git_dir = tmp_path / ".git"
    folder = git_dir / graph_cache.CACHE_DIR
    assert graph_cache.write(folder, "x.pickle", b"data", git_dir)
    assert (folder / "x.pickle").read_bytes() == b"data"
    assert (folder / "x.pickle").stat().st_mode & 0o777 == 0o644  # it was 0600 (mkstemp's) before
    assert synced == []  # derived data: a torn file is rebuilt
    assert sorted(p.name for p in folder.iterdir()) == ["x.pickle"]  # no temporary file left
    store.atomic_write(folder / "y", b"kept", root=git_dir)
    assert len(synced) == 1


def test_a_symlinked_cache_folder_is_never_written_through(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (git_dir / graph_cache.CACHE_DIR).symlink_to(elsewhere)
    assert not graph_cache.write(git_dir / graph_cache.CACHE_DIR, "x.pickle", b"data", git_dir)
    assert list(elsewhere.iterdir()) == []
