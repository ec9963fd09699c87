"""The hook stages its own rewrites into the commit being made: which files it may stage, and
into which index files. An adapter (git through `git.Repo`, pre-commit's stash on disk).

pre-commit judges a hook by `git diff` (working tree against the index) before and after it: a
hook that writes a file *and* stages it leaves that diff unchanged, so it is not "modifying
files". A file may be staged only when it had no unstaged edits before the hook wrote it, else
the person's unfinished edit would be committed with it (or pre-commit's stash, put back after
the hooks, would conflict with it). Unstaged edits are seen two ways:

- in the working tree (the hook run by hand, or by a plain `.git/hooks/pre-commit`): the file's
  bytes, through git's clean filter, differ from its entry in the index git commits;
- in pre-commit's stash: pre-commit saved them as a patch (`<PRE_COMMIT_HOME>/patch<time>-<pid>`,
  pid of the pre-commit process, our parent) and checked out the index before running hooks.

The index git commits is `GIT_INDEX_FILE` (git sets it for hooks). `git commit <paths>` commits a
temporary index (`next-index-*.lock`) and, after the commit, puts its locked `index.lock` in
place as the real index: a staged rewrite goes into both, so the real index ends up holding what
was committed (only where the two agreed on the file before).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from openwiki_git.errors import OpenwikiError
from openwiki_git.git.repo import Repo
from openwiki_git.store import wiki as store

_DIFF_HEADER = re.compile(r'^diff --git (?:"?a/)(.*?)"? "?b/', re.MULTILINE)


def clean(repo: Repo, paths: list[str]) -> set[str]:
    """The `paths` (repository-relative) with no unstaged edits now: tracked, and the working
    tree's file is the index's blob, and pre-commit did not stash edits of it."""
    stashed = precommit_stashed()
    staged = repo.index_blobs(paths)
    return {p for p in paths if p not in stashed and staged[p] is not None and repo.read(p).blob == staged[p]}


def stage(repo: Repo, paths: list[str]) -> None:
    """Stage `paths` into the index git commits and, under `git commit <paths>`, into the real
    index git will put in place after the commit (where it agreed with the temporary one)."""
    if not paths:
        return
    real = _real_index(repo)
    agree = []
    if real is not None:
        now, there = repo.index_blobs(paths), repo.index_blobs(paths, real)
        agree = [p for p in paths if there[p] == now[p]]
    repo.stage(paths)
    if real is not None and agree:
        repo.stage(agree, real)


def partial_commit(repo: Repo) -> bool:
    """Whether the hook runs for a `git commit <paths>` (on its temporary index)."""
    return _real_index(repo) is not None


def first_stop(repo_dir: Path, record: Path, key: str) -> bool:
    """Whether the stop named `key` is new (then it is recorded, replacing the last one): the
    same commit run again, with the same change and the same new marks, is not stopped twice."""
    try:
        if record.read_text("ascii").strip() == key:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        store.atomic_write(record, (key + "\n").encode("ascii"), root=repo_dir)
    except (OSError, OpenwikiError):
        pass  # a read-only git directory: stop every time rather than never
    return True


def _real_index(repo: Repo) -> Path | None:
    """The locked real index of a `git commit <paths>`, when the hook runs on its temporary index."""
    name = os.environ.get("GIT_INDEX_FILE")
    if not name or not Path(name).name.startswith("next-index"):
        return None
    lock = repo.git_dir / "index.lock"
    return lock if lock.is_file() else None


def precommit_stashed() -> set[str]:
    """The paths whose unstaged edits pre-commit stashed before running this hook (none when not
    run by pre-commit, or when pre-commit stashed nothing)."""
    if os.environ.get("PRE_COMMIT") != "1":
        return set()
    suffix = f"-{os.getppid()}"
    found: list[Path] = []
    for folder in _precommit_homes():
        try:
            found.extend(p for p in folder.iterdir() if p.name.startswith("patch") and p.name.endswith(suffix))
        except OSError:
            continue
    if not found:
        return set()
    newest = max(found, key=lambda p: p.stat().st_mtime_ns)
    try:
        text = newest.read_bytes().decode("utf-8", "replace")
    except OSError:
        return set()
    return {m.group(1) for m in _DIFF_HEADER.finditer(text)}


def _precommit_homes() -> list[Path]:
    """Where pre-commit keeps its store (and its stash patches), as pre-commit resolves it."""
    if os.environ.get("PRE_COMMIT_HOME"):
        return [Path(os.environ["PRE_COMMIT_HOME"])]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [Path(cache) / "pre-commit"]

