"""The store: atomic writes, refused symlinks, the writers' lock across processes, discovery."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openwiki_git.errors import StoreError
from openwiki_git.model import Claim, Evidence, Mark, Sidecar
from openwiki_git.store import locking
from openwiki_git.store import wiki as store
from openwiki_git.store.config import Config
from openwiki_git.store.wiki import Wiki, atomic_write, is_grounded_page


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink())


# -- atomic_write ----------------------------------------------------------------------------


def test_atomic_write_new_file_and_no_temp_left(tmp_path):
    atomic_write(tmp_path / "a" / "b.json", b"one\n", root=tmp_path)
    assert (tmp_path / "a" / "b.json").read_bytes() == b"one\n"
    assert _files(tmp_path) == ["a/b.json"]
    assert stat.S_IMODE((tmp_path / "a" / "b.json").stat().st_mode) == 0o644


def test_atomic_write_keeps_mode(tmp_path):
    target = tmp_path / "x.md"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    atomic_write(target, b"new", root=tmp_path)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    os.chmod(target, 0o755)
    atomic_write(target, b"newer", root=tmp_path)
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert _files(tmp_path) == ["x.md"]


def test_atomic_write_replaces_inode(tmp_path):
    """Readers holding the old file see the old bytes: the new file is renamed over it."""
    target = tmp_path / "x.md"
    target.write_bytes(b"old")
    with open(target, "rb") as reader:
        atomic_write(target, b"new", root=tmp_path)
        assert reader.read() == b"old"
    assert target.read_bytes() == b"new"


def test_atomic_write_failure_keeps_old_file_and_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "x.md"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write(target, b"new", root=tmp_path)
    assert target.read_bytes() == b"old"
    assert _files(tmp_path) == ["x.md"]


def test_atomic_write_refuses_symlinked_directory(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    with pytest.raises(StoreError, match="symlink"):
        atomic_write(tmp_path / "link" / "x.json", b"data", root=tmp_path)
    with pytest.raises(StoreError, match="symlink"):
        atomic_write(tmp_path / "link" / "deeper" / "x.json", b"data", root=tmp_path)
    assert list(real.iterdir()) == []


def test_atomic_write_refuses_symlinked_file(tmp_path):
    (tmp_path / "real.md").write_bytes(b"keep")
    os.symlink(tmp_path / "real.md", tmp_path / "link.md")
    with pytest.raises(StoreError, match="symlink"):
        atomic_write(tmp_path / "link.md", b"overwrite", root=tmp_path)
    assert (tmp_path / "real.md").read_bytes() == b"keep"
    assert (tmp_path / "link.md").is_symlink()


# -- Wiki ------------------------------------------------------------------------------------


def _wiki(tmp_path: Path, **config: object) -> Wiki:
    return Wiki(tmp_path, Config(**config), tmp_path / ".git")  # type: ignore[arg-type]


def _sidecar(page: str = "guide.md", *, mark: bool = False) -> Sidecar:
    ev = Evidence("repo://src/a.py", "repo-file-v1:sha256:" + "a" * 64, "b" * 40)
    claim = Claim("claim_" + "1" * 32, "S.", (ev,), "2026-01-01T00:00:00Z", "human:x",
                  Mark("stale", "2026-01-02T00:00:00Z") if mark else None)
    return Sidecar(page, "sha256:" + "0" * 64, (claim,))


def test_write_bytes_is_a_noop_when_unchanged(tmp_path):
    wiki = _wiki(tmp_path)
    path = tmp_path / ".openwiki" / "p.md"
    assert wiki.write_bytes(path, b"x") is True
    inode = path.stat().st_ino
    assert wiki.write_bytes(path, b"x") is False
    assert path.stat().st_ino == inode


def test_save_and_load_round_trip(tmp_path):
    wiki = _wiki(tmp_path)
    sc = _sidecar("deep/er/page.md", mark=True)
    assert wiki.save(sc) is True
    assert wiki.sidecar_path("deep/er/page.md") == tmp_path / ".openwiki/.claims/deep/er/page.json"
    assert wiki.load("deep/er/page.md") == sc
    assert wiki.save(sc) is False
    assert wiki.load("missing.md") is None


def test_strict_openwiki_save_strips_additions(tmp_path):
    wiki = _wiki(tmp_path, sidecar_format="openwiki", wiki_dir="openwiki")
    wiki.save(_sidecar(mark=True))
    data = json.loads((tmp_path / "openwiki/.claims/guide.json").read_text())
    assert set(data["claims"][0]) == {"id", "statement", "evidence"}
    assert set(data["claims"][0]["evidence"][0]) == {"resource", "version"}


def test_discovery_skips_symlinked_pages_and_claims_dir(tmp_path):
    wiki = _wiki(tmp_path)
    w = tmp_path / ".openwiki"
    for page in ("a.md", "sub/b.md", "index.md", "sub/log.md", ".claims/x.md", "notes.txt"):
        (w / page).parent.mkdir(parents=True, exist_ok=True)
        (w / page).write_text("# x\n")
    (w / "sub/index.md").write_text("# Files\n\n* [b](b.md)\n")  # generated (unmarked, as before the mark): no page
    os.symlink(w / "a.md", w / "link.md")
    assert wiki.pages() == ["a.md", "index.md", "sub/b.md"]  # a hand-written index.md is a page
    wiki.save(_sidecar("a.md"))
    wiki.save(_sidecar("gone.md").replace(claims=()))
    assert wiki.sidecar_pages() == ["a.md", "gone.md"]


def test_sidecar_discovery_refuses_links(tmp_path):
    wiki = _wiki(tmp_path)
    wiki.save(_sidecar("a.md"))
    os.symlink(wiki.sidecar_path("a.md"), wiki.claims_path / "b.json")
    with pytest.raises(StoreError, match=r"\.openwiki/\.claims/b\.json: .*symlink"):
        wiki.load_all()


@pytest.mark.parametrize(
    ("page", "grounded"),
    [
        ("a.md", True), ("guides/setup.md", True), ("Index.md", False), ("sub/index.md", False),
        ("log.md", False), ("instructions.md", False), ("_plan.md", False), ("a.MD", False),
        (".claims/a.md", False), ("x/.CLAIMS/a.md", False), ("./a.md", False), ("a/../b.md", False),
        ("a//b.md", False), ("a.txt", False),
    ],
)
def test_is_grounded_page(page, grounded):
    assert is_grounded_page(page) is grounded


def test_find_claim_by_prefix(tmp_path):
    wiki = _wiki(tmp_path)
    a = Claim("claim_" + "ab" * 16, "A.", _sidecar().claims[0].evidence)
    b = Claim("claim_" + "ac" * 16, "B.", _sidecar().claims[0].evidence)
    wiki.save(Sidecar("p.md", "sha256:" + "0" * 64, (a, b)))
    assert wiki.find_claim(a.id)[2] == a
    assert wiki.find_claim(a.id.removeprefix("claim_"))[2] == a
    assert wiki.find_claim("abababab")[2] == a
    with pytest.raises(StoreError, match="ambiguous"):
        wiki.find_claim("a")  # matches both
    with pytest.raises(StoreError, match="does not exist"):
        wiki.find_claim("ffffffff")
    with pytest.raises(StoreError):
        wiki.find_claim("abab")  # unique, but shorter than 8 characters


# -- the lock --------------------------------------------------------------------------------

HOLDER = """
import sys, time
from pathlib import Path
from openwiki_git.store.config import Config
from openwiki_git.store.wiki import Wiki
root = Path(sys.argv[1])
with Wiki(root, Config(), root / ".git").lock():
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
print("released", flush=True)
"""


def _hold_lock(root: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(root), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


def test_lock_times_out_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setattr(locking, "DEFAULT_TIMEOUT", 0.3)
    holder = _hold_lock(tmp_path, 30)
    try:
        started = time.monotonic()
        with pytest.raises(StoreError) as exc:
            with _wiki(tmp_path).lock():
                pytest.fail("acquired a lock held by another process")
        assert 0.25 <= time.monotonic() - started < 10
        assert "another openwiki-git process holds the lock" in exc.value.message
        assert str(tmp_path / ".git" / store.LOCK_NAME) in exc.value.message
        assert exc.value.hint
    finally:
        _stop(holder)


def test_lock_waits_for_the_holder(tmp_path, monkeypatch):
    monkeypatch.setattr(locking, "DEFAULT_TIMEOUT", 30)
    holder = _hold_lock(tmp_path, 0.6)
    started = time.monotonic()
    with _wiki(tmp_path).lock():
        waited = time.monotonic() - started
        # The holder has released by the time we hold the lock.
        assert holder.stdout is not None and holder.stdout.readline().strip() == "released"
    _stop(holder)
    assert waited >= 0.3


def test_lock_is_released_after_each_use(tmp_path):
    """One Wiki takes its lock again and again, and each release is real: another process gets the
    lock in between (with the default 5 s wait, a lock still held would make the holder fail)."""
    wiki = _wiki(tmp_path)
    for _ in range(3):
        with wiki.lock():
            pass
        holder = _hold_lock(tmp_path, 0)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "released"
        _stop(holder)


def test_cli_writer_refused_while_locked(wiki_repo, capsys, monkeypatch):
    monkeypatch.setattr(locking, "DEFAULT_TIMEOUT", 0.2)
    git_dir = Path(wiki_repo.git("rev-parse", "--absolute-git-dir").strip())
    holder = _hold_lock(wiki_repo.root, 30)
    try:
        # The holder locks <root>/.git, the same git dir the CLI resolves.
        assert (git_dir / store.LOCK_NAME).exists()
        before = wiki_repo.snapshot()
        capsys.readouterr()
        rc = wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.",
                           "--evidence", "repo://src/app.py#L10")
        err = capsys.readouterr().err
        assert rc == 2
        assert err.splitlines()[0].startswith("error: ") and "holds the lock" in err
        assert wiki_repo.snapshot() == before
        # Readers do not take the lock: check reads the (claimless) wiki and says there is nothing to check.
        assert wiki_repo.run("check") == 1 and capsys.readouterr().err.startswith("nothing to check: ")
    finally:
        _stop(holder)
