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

With --shape stars, the shape of a real HTTP client's docs instead (issue 21, item 1): a package
whose `__init__.py` re-exports a dozen private modules with `from ._x import *`, those modules
star-importing each other (cycles), classes deriving from classes of the other modules, 23 pages
of prose naming the public API (present and missing members, methods, bare names), 125 tracked
files. Following the star imports without a memo explores every path through the web: the
resolution of a missing name is exponential in the chain's depth. --timeout bounds each run.

    python bench/bench_ground.py --shape stars [--timeout 120]

With --shape httpx, the real thing: the installed httpx package's source (its `__init__.py`
star-imports eleven private modules) and 23 generated pages naming its public API, members
and methods (`.auth_flow()`), present and missing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
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


STAR_MODULES = ["_api", "_auth", "_client", "_config", "_content", "_exceptions", "_models", "_multipart",
                "_status_codes", "_types", "_urls", "_utils"]


def star_module_text(i: int) -> str:
    """One private module of the star web: it star-imports the next three (a cycle through all of
    them), defines two classes (one deriving from the previous module's) and functions."""
    n = len(STAR_MODULES)
    name = STAR_MODULES[i]
    stars = "".join(f"from .{STAR_MODULES[(i + k) % n]} import *\n" for k in (1, 2, 3))
    prev = f"Base{(i - 1) % n}"
    cls = name.strip("_").capitalize()
    funcs = "\n\n".join(f"def {name.strip('_')}_helper_{j}(value):\n    return value\n" for j in range(4))
    return (
        f"{stars}\n\nclass Base{i}:\n    def close(self):\n        return None\n\n\n"
        f"class {cls}({prev}):\n    def send(self, request):\n        return request\n\n"
        f"    def auth_flow_{i}(self):\n        yield self\n\n\n{funcs}\n"
        f"DEFAULT_{name.strip('_').upper()} = {i}\n"
    )


def make_star_repo(root: Path) -> None:
    rng = random.Random(21)
    pkg = root / "starpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("".join(f"from .{m} import *\n" for m in STAR_MODULES) + "\n__version__ = '1.0'\n")
    for i, m in enumerate(STAR_MODULES):
        (pkg / f"{m}.py").write_text(star_module_text(i))
    tests = root / "tests"
    tests.mkdir()
    for i in range(60):  # the rest of the 125 tracked files: tests, scripts, docs' images
        (tests / f"test_{i}.py").write_text(f"import starpkg\n\n\ndef test_{i}():\n    assert starpkg.__version__\n")
    (root / ".openwiki").mkdir()
    (root / ".openwiki" / "config.yml").write_text("wiki_dir: docs\n")
    docs = root / "docs"
    (docs / "img").mkdir(parents=True)
    for i in range(28):
        (docs / "img" / f"figure{i}.txt").write_text("figure\n")
    names = [m.strip("_").capitalize() for m in STAR_MODULES]
    for p in range(23):
        lines = [f"# Guide {p}", ""]
        for k in range(30):
            cls = rng.choice(names)
            ref = rng.choice([
                f"`starpkg.{cls}`", f"`starpkg.{cls}.send()`", f"`starpkg.{cls}.close()`", f"`{cls}.send`",
                f"`starpkg.{cls}.missing_{k}()`", f"`starpkg.gone_{k}`", f"`starpkg.{cls}.auth_flow_{k % 12}()`",
                f"`{rng.choice(STAR_MODULES).strip('_')}_helper_{k % 4}()`", f"`starpkg.nothing_{k}.deeper`",
            ])
            lines.append(f"The client explains how {ref} handles the retry and backoff of a request.")
        (docs / f"guide{p}.md").write_text("\n".join(lines) + "\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bench")


MEMBERS = ["send", "get", "close", "auth_flow", "sync_auth_flow", "read", "json", "raise_for_status", "stream", "gone_away"]


def make_httpx_repo(root: Path) -> None:
    import httpx  # the installed package's source: a real star re-export web

    rng = random.Random(23)
    shutil.copytree(Path(httpx.__file__).parent, root / "httpx", ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".openwiki").mkdir()
    (root / ".openwiki" / "config.yml").write_text("wiki_dir: docs\n")
    docs = root / "docs"
    docs.mkdir()
    names = sorted(httpx.__all__)
    for p in range(23):
        lines = [f"# Guide {p}", ""]
        for k in range(30):
            name, member = rng.choice(names), rng.choice(MEMBERS)
            ref = rng.choice([f"`httpx.{name}`", f"`httpx.{name}.{member}()`", f"`{name}.{member}`", f"`.{member}()`",
                              f"`httpx.nothing_{k}`", f"`httpx.{name}.{member}.deeper`"])
            lines.append(f"The client explains how {ref} handles the retry and backoff of a request.")
        (docs / f"guide{p}.md").write_text("\n".join(lines) + "\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bench")


def timed(root: Path, *argv: str, timeout: float | None = None) -> tuple[float, float, str]:
    code = (
        "import resource, sys, time\n"
        "from openwiki_git.cli.main import main\n"
        "t = time.perf_counter()\n"
        "rc = main(sys.argv[1:])\n"
        "print(f'@@ {time.perf_counter() - t:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} {rc}', file=sys.stderr)\n"
    )
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            check=False,
            args=[sys.executable, "-c", code, "-C", str(root), *argv],
            capture_output=True,
            text=True,
            env={**os.environ, **GIT_ENV},
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, float("nan"), f"killed after {timeout:.0f} s"
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
    ap.add_argument("--shape", choices=("flat", "stars", "httpx"), default="flat",
                    help="flat modules, a star re-export web, or the installed httpx package")
    ap.add_argument("--timeout", type=float, default=None, help="kill a run after this many seconds")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        t = time.perf_counter()
        if args.shape == "httpx":
            make_httpx_repo(root)
            print("repository: the installed httpx package, 23 pages x 30 references")
        elif args.shape == "stars":
            make_star_repo(root)
            print(f"repository: 23 pages x 30 references, {len(STAR_MODULES)} star-importing modules, 125 tracked files")
        else:
            make_repo(root, args)
            print(f"repository: {args.pages} pages x {args.refs} references, {args.modules} modules")
        print(f"({time.perf_counter() - t:.1f} s to build)")
        for label, argv in [
            ("ground --all --plan", ("ground", "--all", "--plan")),
            ("ground --all", ("ground", "--all")),
            ("ground --all (again)", ("ground", "--all")),
            ("check", ("check",)),
        ]:
            wall, mem, summary = timed(root, *argv, timeout=args.timeout)
            print(f"{label:22} {wall:7.2f} s  peak {mem:7.1f} MiB  {summary[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
