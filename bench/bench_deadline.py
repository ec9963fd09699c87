#!/usr/bin/env python3
"""How long `refresh` lives after its deadline when the endpoint trickles its answer.

The endpoint (tests/support/fake_openai_server.py, a real HTTP server on 127.0.0.1) answers the
first claim at once and sends the second claim's valid answer one byte every `--trickle` seconds
(minutes in all; no read timeout catches it). `openwiki-git refresh` runs as a new process, once
with `--timeout T` and once with `--deadline T` (and a long per-call timeout). Printed: the
seconds from the trickling request's arrival to the process's exit (it should be about T: the
abandoned call's connection is closed at its deadline), and from the report's last line to the
exit (the interpreter's teardown), and from the process's start (the run's deadline counts from
the run's start). Min and median of `--repeats` runs.

    python bench/bench_deadline.py [--limit 4] [--trickle 0.5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.fake_openai_server import FakeOpenAI, Reply  # noqa: E402 - after the path
from tests.support.refresh_wiki import confirm, stale_wiki  # noqa: E402
from tests.support.repo import GitRepo  # noqa: E402

GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}


def one_run(limit: list[str], trickle: float) -> tuple[float, float, float]:
    """Seconds to the exit from the process's start, from the trickling request, from the last output line."""
    with tempfile.TemporaryDirectory(prefix="owg-deadline-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        repo = GitRepo(root)
        repo.git("init", "-q", "-b", "main")
        with contextlib.redirect_stdout(io.StringIO()):
            grounded = stale_wiki(repo, pages=1, per_page=2)
        with FakeOpenAI() as server:
            server.enqueue(Reply(verdict=confirm(grounded[0])), Reply(verdict=confirm(grounded[1]), trickle=trickle))
            argv = [sys.executable, "-m", "openwiki_git", "-C", str(root), "refresh", "--base-url", server.base_url,
                    "--max-retries", "0", "--max-concurrency", "1", *limit]
            env = {**os.environ, **GIT_ENV, "OPENAI_API_KEY": "sk-bench"}
            started = time.monotonic()
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            assert proc.stdout is not None
            last_line = time.monotonic()
            for _ in proc.stdout:
                last_line = time.monotonic()
            proc.wait()
            ended = time.monotonic()
            return ended - started, ended - server.arrived_at[-1], ended - last_line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=4.0, help="the timeout / deadline in seconds (default 4)")
    ap.add_argument("--trickle", type=float, default=0.5, help="seconds between the answer's bytes (default 0.5)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    os.environ.update(GIT_ENV)
    t = f"{args.limit:g}"
    cases = {f"--timeout {t}": ["--timeout", t], f"--deadline {t}": ["--timeout", "600", "--deadline", t]}
    print(f"refresh against an endpoint trickling one byte every {args.trickle:g}s: seconds to the exit (min / median)")
    print(f"  {'limit':<16} {'from start':>16} {'from the request':>17} {'teardown':>12}")
    for name, limit in cases.items():
        runs = [one_run(limit, args.trickle) for _ in range(args.repeats)]
        cols = [[r[i] for r in runs] for i in range(3)]
        start, request, teardown = (f"{min(c):.2f} / {statistics.median(c):.2f}" for c in cols)
        print(f"  {name:<16} {start:>16} {request:>17} {teardown:>12}")

if __name__ == "__main__":
    main()
