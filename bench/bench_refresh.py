#!/usr/bin/env python3
"""Benchmark the refresher's own cost per claim (everything but the model): selection, the
history search for the verified text, the context, the checks of the answer, and the atomic
write under the lock. The model is a scripted fake that confirms each claim by quoting the first
cited line it was shown, so the figures are the overhead a real run adds to the model's latency.

Also prints the import time of `openwiki_git.commands.check` (which must not load langchain) and
of the refresher's client stack, each in a fresh interpreter.

    python bench/bench_refresh.py [--claims 200] [--pages 10]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from openwiki_git.main import main
from openwiki_git.refresher import RefreshOptions, ReviewRequest, run_refresh
from openwiki_git.workspace import Workspace

_MARKED = re.compile(r"^\s*(\d+)>\| ?(.*)$", re.M)
_CURRENT = re.compile(r"^Current text of (\S+),", re.M)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def build(root: Path, claims: int, pages: int) -> None:
    git(root, "init", "-q", "-b", "main")
    assert main(["-C", str(root), "init"]) == 0
    per_page = claims // pages
    for p in range(pages):
        (root / "src").mkdir(exist_ok=True)
        (root / f"src/m{p}.py").write_text("".join(f"V_{p}_{i} = {i}\n" for i in range(1, per_page * 4 + 10)))
        body = " ".join(f"V_{p}_{4 * k + 3} is {4 * k + 3}." for k in range(per_page))
        (root / f".openwiki/p{p}.md").write_text(f"---\ntype: Reference\n---\n\n{body}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "pages")
    for p in range(pages):
        for k in range(per_page):
            line = 4 * k + 3
            assert main(["-C", str(root), "claim", "add", "--page", f"p{p}.md", "--statement", f"V_{p}_{line} is {line}.",
                         "--evidence", f"repo://src/m{p}.py#L{line}-L{line}"]) == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "claims")
    for p in range(pages):
        path = root / f"src/m{p}.py"
        lines = path.read_text().splitlines(keepends=True)
        for k in range(per_page):  # only the cited lines change: the context around them stays
            lines[4 * k + 2] = lines[4 * k + 2].replace(" = ", " = 3 * ")
        path.write_text("".join(lines))
    git(root, "commit", "-qam", "every cited value changes")


def confirm(request: ReviewRequest) -> dict[str, object]:
    text = request.messages[0]
    path = _CURRENT.search(text).group(1)  # type: ignore[union-attr]
    n, line = _MARKED.search(text).groups()  # type: ignore[union-attr]
    return {"claim_id": request.claim_id, "verdict": "confirm", "revised_statement": None,
            "cited_ranges": [{"resource": f"repo://{path}#L{n}-L{n}", "quote": line}], "rationale": "bench"}


def import_ms(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1000)"
    best = min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
               for _ in range(3))
    return best


def main_bench() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--claims", type=int, default=200)
    ap.add_argument("--pages", type=int, default=10)
    args = ap.parse_args()
    os.environ.update({"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
                       "GIT_COMMITTER_EMAIL": "b@x", "GIT_CONFIG_NOSYSTEM": "1"})
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with contextlib.redirect_stdout(io.StringIO()):
            build(root, args.claims, args.pages)
        fake = ScriptedRefresher([confirm] * args.claims)
        t = time.perf_counter()
        result = run_refresh(Workspace.open(root), RefreshOptions(), fake)
        elapsed = time.perf_counter() - t
        totals = result.totals
        print(f"refresh of {totals['claims']} stale claims on {args.pages} pages, scripted model: "
              f"{elapsed:.2f} s total, {elapsed / max(1, totals['claims']) * 1000:.1f} ms per claim "
              f"({totals['confirmed']} confirmed, {totals['failed']} failed); "
              f"estimated prompt tokens per claim {totals['tokens_in'] / max(1, totals['claims']):.0f}")
    print(f"import openwiki_git.commands.check: {import_ms('openwiki_git.commands.check'):.0f} ms")
    print(f"import openwiki_git.refresher:      {import_ms('openwiki_git.refresher'):.0f} ms")
    print(f"import langchain_openai:            {import_ms('langchain_openai'):.0f} ms (paid only by refresh)")


if __name__ == "__main__":
    main_bench()
