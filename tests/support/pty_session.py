"""A command run in a real pseudo-terminal: its stdin, stdout and stderr are the pty's slave
end, so `isatty()` is true and keys arrive through the terminal's line discipline, as a person
types them. The test (or a bench script) reads the screen until a prompt and writes keys."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class PtySession:
    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str] | None = None,
                 size: tuple[int, int] | None = None) -> None:
        """`size`: the terminal's (rows, columns), as a window of that size gives it (TIOCSWINSZ)."""
        _STARTED.append(self)
        master, slave = os.openpty()
        if size is not None:
            import fcntl
            import struct
            import termios

            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
        self.master = master
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=slave, stdout=slave, stderr=slave, env={**os.environ, **(env or {})},
            start_new_session=True, close_fds=True,
        )
        os.close(slave)
        self.screen = ""  # everything shown so far, colours stripped
        self.raw = ""  # the same with its escape sequences
        self._pos = 0  # where the last read_until's match ended

    def read_until(self, text: str, timeout: float = 60.0) -> str:
        """Everything shown since the last call's match, up to and including `text`."""
        start = self._pos
        limit = time.monotonic() + timeout
        while text not in self.screen[start:]:
            left = limit - time.monotonic()
            if left <= 0 or not self._read(left):
                raise AssertionError(f"{text!r} not shown; the screen ends with:\n{self.screen[-2000:]}")
        end = self.screen.index(text, start) + len(text)
        self._pos = end
        return self.screen[start:end]

    def read_quiet(self, quiet: float = 1.0, timeout: float = 60.0) -> str:
        """Everything shown until nothing more comes for `quiet` seconds (a program waiting for
        keys it prompts for with no fixed text, such as a pager)."""
        start = len(self.screen)
        limit = time.monotonic() + timeout
        while time.monotonic() < limit and self._read(quiet):
            pass
        self._pos = len(self.screen)
        return self.screen[start:]

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536).decode("utf-8", "replace")
        except OSError:  # the child closed the terminal (Linux raises EIO)
            return False
        if not chunk:
            return False
        self.raw += chunk
        self.screen += _ANSI.sub("", chunk).replace("\r\n", "\n")
        return True

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode("utf-8"))

    def wait(self, timeout: float = 60.0) -> int:
        """The exit status, reading what is left on the screen."""
        limit = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < limit:
            self._read(0.05)
        while self._read(0.05):
            pass
        code = self.proc.wait(timeout=max(limit - time.monotonic(), 1))
        os.close(self.master)
        return code

    def kill(self) -> None:
        """kill -9, as a crash or a closed laptop would."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        os.close(self.master)


_STARTED: list[PtySession] = []


def kill_leftovers() -> None:
    """Every session a test started and did not wait for (a failed assertion midway) killed and
    reaped, so that the next test is not reported a still-running subprocess (tests/conftest.py)."""
    while _STARTED:
        session = _STARTED.pop()
        if session.proc.poll() is None:
            session.kill()


def openwiki_git(*args: str) -> list[str]:
    return [sys.executable, "-m", "openwiki_git", *args]
