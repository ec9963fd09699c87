#!/usr/bin/env python3
"""Issue 21, item 5: cost follows the change at 100,000 claims. Prints each figure as whole
processes (interpreter start included): the median wall and CPU (user + system) times of --runs
and the largest peak RSS of the child (GNU time's %e %U %S %M), with the exit codes where two
commands must agree.

  H  100,000 claims: 1,000 pages x 100 claims over 1,000 files (100 claims per file), with markers,
     then one commit changing one cited line of one file (2 of its 100 claims stale)
  M  H's shape without markers: 100,000 "without a marker" notices
  A  10,000 claims: 100 pages x 100 over 1,000 files, against bench/openwiki_algorithm.py

Rows:
  H  check --base HEAD~1, no cache (CI's fresh runner: <git dir>/openwiki-git removed before each run)
  H  hook --check with nothing staged, once check has run (pre-commit run --all-files), and check
  M  check, warm (text), and --format json
  A  the OpenWiki algorithm, check --no-cache (text), check --no-cache --format json; the ratios

    python bench/bench_scale.py [--runs 3] [--keep DIR] [--shapes HMA]

To time another version of the package, run from outside the checkout with its parent directory
first on PYTHONPATH (as bench_check.py says).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import ALGORITHM, TIME, build, cli, git, settle  # noqa: E402

Row = tuple[str, float, float, float, float, float, str]  # label, wall s, CPU s, peak MiB, min wall s, min CPU s, note


def median_process(cmd: list[str], runs: int, before=None) -> tuple[float, float, float, float, float]:
    """(median wall, median CPU (user + system), largest peak RSS in MiB, min wall, min CPU) of
    `runs` processes, from GNU time: on a shared machine the CPU time says more than the wall time."""
    walls, cpus, rss = [], [], []
    for _ in range(runs):
        if before is not None:
            before()
        with tempfile.NamedTemporaryFile("r") as out:
            proc = subprocess.run([TIME, "-f", "%e %U %S %M", "-o", out.name, *cmd], capture_output=True, check=False)
            if proc.returncode not in (0, 1):
                raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
            wall, user, system, kib = out.read().split()[-4:]
        walls.append(float(wall))
        cpus.append(float(user) + float(system))
        rss.append(int(kib) / 1024)
    return sorted(walls)[len(walls) // 2], sorted(cpus)[len(cpus) // 2], max(rss), min(walls), min(cpus)


def one_file_commit(root: Path) -> None:
    """Change one cited line of src/pkg0/mod_0.py and commit it (without the hook)."""
    path = root / "src" / "pkg0" / "mod_0.py"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    lines[4] = "    value = 42  # changed\n"
    path.write_text("".join(lines), "utf-8")
    git(root, "commit", "-q", "-am", "one file")


def code(cmd: list[str], cwd: Path) -> int:
    return subprocess.run(cmd, cwd=cwd, capture_output=True).returncode


def hundred_thousand(tmp: Path, runs: int) -> list[Row]:
    root = tmp / "H"
    if not (root / ".git").is_dir():
        build(root, pages=1000, claims_per_page=100, files=1000)
        one_file_commit(root)
    cache = root / ".git" / "openwiki-git"
    base = [*cli(), "-C", str(root), "check", "--base", "HEAD~1"]
    rows: list[Row] = [("H check --base HEAD~1, no cache (100 affected claims)",
                        *median_process(base, runs, before=lambda: shutil.rmtree(cache, ignore_errors=True)),
                        f"exit {code(base, root)}")]
    check = [*cli(), "-C", str(root), "check"]
    settle()
    subprocess.run(check, capture_output=True)  # writes the check cache
    settle()
    subprocess.run(check, capture_output=True)  # warm: nothing racy left
    hook = [*cli(), "-C", str(root), "hook", "--check"]
    rows.append(("H check, warm (text)", *median_process(check, runs), f"exit {code(check, root)}"))
    rows.append(("H hook --check, nothing staged, after check", *median_process(hook, runs), f"exit {code(hook, root)}"))
    return rows


def unmarked(tmp: Path, runs: int) -> list[Row]:
    root = tmp / "M"
    if not (root / ".git").is_dir():
        build(root, pages=1000, claims_per_page=100, files=1000, markers=False)
    check = [*cli(), "-C", str(root), "check"]
    settle()
    subprocess.run(check, capture_output=True)
    settle()
    subprocess.run(check, capture_output=True)
    return [
        ("M check, warm, 100,000 claims without a marker (text)", *median_process(check, runs), ""),
        ("M check --format json, warm (every claim listed)", *median_process([*check, "--format", "json"], runs), ""),
    ]


def ten_thousand(tmp: Path, runs: int) -> list[Row]:
    root = tmp / "A"
    if not (root / ".git").is_dir():
        build(root, pages=100, claims_per_page=100, files=1000)
    check = [*cli(), "-C", str(root), "check", "--no-cache"]
    rows: list[Row] = []
    for _ in range(runs):  # pair by pair: each round times the three one after the other
        port = median_process([sys.executable, str(ALGORITHM), str(root)], 1)
        text = median_process(check, 1)
        json_ = median_process([*check, "--format", "json"], 1)
        rows += [("A OpenWiki algorithm (every range re-read, re-hashed)", *port, ""),
                 ("A check --no-cache (text)", *text, f"{port[0] / text[0]:.1f}x the port (CPU {port[1] / text[1]:.1f}x)"),
                 ("A check --no-cache --format json", *json_, f"{port[0] / json_[0]:.1f}x the port (CPU {port[1] / json_[1]:.1f}x)")]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", metavar="DIR", help="build the repositories here and keep them (reused when there)")
    ap.add_argument("--shapes", default="HMA", help="which shapes to measure (default HMA; H alone: --shapes H)")
    args = ap.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # time an installed package with its bytecode cached
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="openwiki-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
    shapes = {"H": hundred_thousand, "M": unmarked, "A": ten_thousand}
    try:
        rows = [row for name in args.shapes for row in shapes[name](tmp, args.runs)]
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{'':<62}{'wall':>8}{'CPU':>8}{'peak RSS':>11}{'min wall':>10}{'min CPU':>9}")
    for label, wall, cpu, rss, min_wall, min_cpu, note in rows:
        mins = f"{min_wall * 1000:>8.0f}ms{min_cpu * 1000:>7.0f}ms"
        print(f"{label:<62}{wall * 1000:>6.0f}ms{cpu * 1000:>6.0f}ms{rss:>7.0f} MiB{mins}  {note}")
    print(f"(median and min of {args.runs} whole processes, A pair by pair; load average after {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
