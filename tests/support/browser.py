"""Headless Chromium (Debian's `chromium`, which .ci/run installs when missing) for the HTML
the tool writes: the rendered DOM at a window width, a screenshot, and the console lines the page
logged (a script error, or anything the page's Content-Security-Policy refused to load)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "chromium is not installed: apt-get install -y chromium (.ci/run does it)"
    return found


def render(page: Path, width: int, *, screenshot: Path | None = None, height: int = 2000) -> tuple[str, list[str]]:
    """(the DOM after rendering, the console lines) of `page` in a window `width` x `height` pixels;
    with `screenshot`, the PNG is written there instead of the DOM being returned."""
    with tempfile.TemporaryDirectory(prefix="owg-chromium-") as profile:
        what = [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
        proc = subprocess.run(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", *what, page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


class DevTools:
    """Chromium driven over its DevTools protocol (`--remote-debugging-pipe`: it reads commands
    from fd 3 and writes answers to fd 4, NUL-separated JSON), with the standard library only.
    `layout(page, width)` loads the page in a viewport `width` pixels wide (the device metrics
    emulated: a headless window is never narrower than 500) and evaluates expressions in it."""

    def __init__(self) -> None:
        import fcntl

        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in (to_child, from_child)]
        self._profile = tempfile.TemporaryDirectory(prefix="owg-chromium-")

        def child_fds() -> None:  # the protocol's fixed descriptors, in the child only
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self._proc = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=child_fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for fd in (to_child, from_child, *high):
            os.close(fd)
        self._buffer, self._next = b"", 0

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60) -> dict:
        import json
        import select
        import time

        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}, **({"sessionId": session} if session else {})}
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, _, self._buffer = self._buffer.partition(b"\0")
                answer = json.loads(raw)
                if answer.get("id") == self._next:
                    assert "error" not in answer, answer["error"]
                    return answer["result"]
            ready, _, _ = select.select([self._read], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"chromium did not answer {method} in {timeout} s"
            chunk = os.read(self._read, 1 << 16)
            assert chunk, "chromium closed the DevTools pipe"
            self._buffer += chunk

    def layout(self, page: Path, width: int) -> str:
        """A session on a tab showing `page` at `width` CSS pixels, loaded."""
        import time

        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 2000, "deviceScaleFactor": 1, "mobile": width < 500}, session)
        url = page.resolve().as_uri()
        self.call("Page.navigate", {"url": url}, session)
        while self.evaluate(session, "document.readyState === 'complete' && location.href") != url:
            time.sleep(0.05)
        return session

    def evaluate(self, session: str, expression: str) -> object:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (AssertionError, OSError):
            self._proc.kill()
        self._proc.wait(timeout=30)
        os.close(self._write)
        os.close(self._read)
        self._profile.cleanup()
