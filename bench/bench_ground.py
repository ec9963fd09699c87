#!/usr/bin/env python3
"""Benchmark `ground`'s deterministic pass over a 1,000-page wiki in a synthetic git repository.

The repository holds a Python package of --modules modules (each with functions, a class with
methods, an argparse flag and an environment variable) and --pages pages in `docs/` (no front
matter, as a team's existing docs), each with --refs sentences naming one of those (symbols,
`Class.method`, flags, env vars, paths) plus a few references that name nothing (broken) or the
standard library (unknown). Prints wall time and peak memory (ru_maxrss) of:

  1. `ground --all --plan` (resolve everything, write nothing)
  2. `ground --all` (write every claim: pages and sidecars)
  3. `ground --all` again (idempotent: nothing to add)
  4. `check` on the grounded wiki (claims + broken references of grounded pages)

each in a fresh subprocess (interpreter start included). No assertions.

    python bench/bench_ground.py [--pages 1000] [--modules 200] [--refs 10]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import GIT_ENV, git  # the same git identity and runner


def module_text(i: int) -> str:
    funcs = "\n\n".join(f"def func_{i}_{j}(x):\n    \"\"\"Doc.\"\"\"\n    return x + {j}\n" for j in range(8))
    return (
        f"import argparse\nimport os\n\n\n{funcs}\n\n"
        f"class Thing{i}:\n    def __init__(self):\n        self.size = {i}\n\n"
        f"    def grow_{i}(self):\n        return self.size + 1\n\n\n"
        f"def parser_{i}():\n    p = argparse.ArgumentParser()\n    p.add_argument(\"--opt-{i}\")\n    return p\n\n\n"
        f"TOKEN_{i} = os.environ.get(\"BENCH_VAR_{i}\")\n"
    )


def make_repo(root: Path, args: argparse.Namespace) -> None:
    rng = random.Random(7)
    pkg = root / "src" / "benchpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for i in range(args.modules):
        (pkg / f"mod_{i}.py").write_text(module_text(i))
    (root / ".openwiki").mkdir()
    (root / ".openwiki" / "config.yml").write_text("wiki_dir: docs\n")
    docs = root / "docs"
    for p in range(args.pages):
        lines = [f"# Page {p}", ""]
        for _ in range(args.refs):
            i, j = rng.randrange(args.modules), rng.randrange(8)
            choice = rng.randrange(7)
            ref = [
                f"`benchpkg.mod_{i}.func_{i}_{j}()`", f"`Thing{i}.grow_{i}`", f"`--opt-{i}`", f"`BENCH_VAR_{i}`",
                f"`src/benchpkg/mod_{i}.py`", f"`benchpkg.mod_{i}.removed_{j}()`", "`json.dumps`",
            ][choice]
            lines.append(f"The page explains how {ref} handles the retry and backoff of a queue.")
        lines.append("")
        lines.append("```python\nexample = benchpkg.call()\n```")
        folder = docs / f"section{p % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page{p}.md").write_text("\n".join(lines) + "\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bench")


def timed(root: Path, *argv: str) -> tuple[float, float, str]:
    code = (
        "import resource, sys, time\n"
        "from openwiki_git.cli.main import main\n"
        "t = time.perf_counter()\n"
        "rc = main(sys.argv[1:])\n"
        "print(f'@@ {time.perf_counter() - t:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} {rc}', file=sys.stderr)\n"
    )
    t0 = time.perf_counter()
    proc = subprocess.run(
        check=False,
        args=[sys.executable, "-c", code, "-C", str(root), *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
    )
    wall = time.perf_counter() - t0
    tail = [ln for ln in proc.stderr.splitlines() if ln.startswith("@@ ")]
    _, _, mem, rc = tail[-1].split() if tail else ("", "", "nan", "?")
    summary = (proc.stdout.strip().splitlines() or [""])[-1]
    return wall, float(mem), f"exit {rc}: {summary}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--modules", type=int, default=200)
    ap.add_argument("--refs", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        t = time.perf_counter()
        make_repo(root, args)
        print(f"repository: {args.pages} pages x {args.refs} references, {args.modules} modules ({time.perf_counter() - t:.1f} s to build)")
        for label, argv in [
            ("ground --all --plan", ("ground", "--all", "--plan")),
            ("ground --all", ("ground", "--all")),
            ("ground --all (again)", ("ground", "--all")),
            ("check", ("check",)),
        ]:
            wall, mem, summary = timed(root, *argv)
            print(f"{label:22} {wall:7.2f} s  peak {mem:7.1f} MiB  {summary[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
