"""The writers' lock: one openwiki-git writer per repository at a time, across processes.

`filelock` picks the platform's primitive (flock on POSIX, msvcrt on Windows) when a lock is
taken, so importing this module imports no platform-only module. The OS drops the lock when its
holder dies (even by SIGKILL), so a stale lock file is harmless. The wait is bounded: by
--lock-timeout, else $OPENWIKI_GIT_LOCK_TIMEOUT, else a few seconds; then exit 2 naming the file.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from openwiki_git.errors import StoreError

LOCK_TIMEOUT_ENV = "OPENWIKI_GIT_LOCK_TIMEOUT"
DEFAULT_TIMEOUT = 5.0
_override: list[float] = []  # --lock-timeout of the running command (main() sets it)


@contextlib.contextmanager
def timeout_override(seconds: float | None) -> Iterator[None]:
    """--lock-timeout for the duration of one command (main() may run again in the same process)."""
    if seconds is None:
        yield
        return
    _override.append(seconds)
    try:
        yield
    finally:
        _override.pop()


def timeout() -> float:
    """The wait: --lock-timeout, else the environment's, else DEFAULT_TIMEOUT."""
    if _override:
        return _override[-1]
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise StoreError(f"${LOCK_TIMEOUT_ENV}={raw!r} is not a number of seconds", "set it to e.g. 5, or unset it")
    return value


@contextlib.contextmanager
def hold(path: Path) -> Iterator[None]:
    """Hold the lock at `path` (created if missing), waiting at most timeout() seconds."""
    from filelock import FileLock, Timeout

    wait = timeout()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(path), timeout=wait)
        lock.acquire()
    except Timeout:
        raise StoreError(
            f"{path}: another openwiki-git process holds the lock (waited {wait:g} s)",
            f"let it finish and run again, or wait longer with --lock-timeout SECONDS or ${LOCK_TIMEOUT_ENV}",
        ) from None
    except OSError as e:
        raise StoreError(f"{path}: cannot take the writers' lock: {e.strerror or e}", "make the git directory writable") from None
    try:
        yield
    finally:
        lock.release()
