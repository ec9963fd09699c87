#!/usr/bin/env python3
"""The README's screenshot of a real health report: `openwiki-git report --html` of a real
repository, rendered by headless Chromium (tests/support/browser.py, the tests' own driver) at
1280 and 390 pixels wide, written to docs/img/report.png and docs/img/report-mobile.png.

The repository: the attrs replay's (`python bench/replay.py --keep DIR`, then `--replay DIR`),
whose history holds the marks the real hook made; without --replay, this repository itself.

    python bench/screenshot_report.py [--replay DIR] [--history N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.support.browser import render  # noqa: E402

SHOTS = {(1280, 1500): ROOT / "docs" / "img" / "report.png", (390, 2000): ROOT / "docs" / "img" / "report-mobile.png"}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", type=Path, help="the directory `bench/replay.py --keep DIR` left")
    p.add_argument("--history", type=int, default=60, help="the trend's commits (default 60)")
    args = p.parse_args()
    repo = args.replay / "attrs" if args.replay else ROOT
    with tempfile.TemporaryDirectory(prefix="owg-shot-") as tmp:
        page = Path(tmp) / "report.html"
        subprocess.run([sys.executable, "-m", "openwiki_git", "-C", str(repo), "report", "--history", str(args.history),
                        "--html", str(page)], check=True)
        for (width, height), out in SHOTS.items():
            out.parent.mkdir(parents=True, exist_ok=True)
            _, console = render(page, width, screenshot=out, height=height)
            if console:
                raise SystemExit(f"the page logged to the console: {console}")
            print(f"wrote {out.relative_to(ROOT)} ({width} px wide)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
