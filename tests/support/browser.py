"""Headless Chromium (Debian's `chromium`, which .ci/run installs when missing) for the HTML
the tool writes: the rendered DOM at a window width, a screenshot, and the console lines the page
logged (a script error, or anything the page's Content-Security-Policy refused to load)."""

from __future__ import annotations

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
