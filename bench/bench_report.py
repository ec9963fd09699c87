#!/usr/bin/env python3
"""Benchmark `openwiki-git report` (issue 24): `report --html` on bench_check's synthetic wiki of
10,000 claims (100 pages x 100 claims over 1,000 cited files) with a history of 30 first-parent
commits in which marks appear (cited lines changed, `check --fix`, committed) and are cleared
(the lines restored, `check --fix` again); and, with --replay, `report --history 200` on the
repository `python bench/replay.py --keep DIR` leaves in DIR/attrs.

Each figure is a whole process (interpreter start included): the minimum and the median of
--runs runs, warm (the check cache written by a first run), the least CPU time (user + system:
steadier than wall time on a shared machine), and the process's peak RSS (GNU time's %M).
Goals: `report --html` at 10,000 claims under 2 s warm, `--history 200` on the attrs replay
under 5 s.

    python bench/bench_report.py [--runs 5] [--replay /tmp/replay]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import GIT_ENV, TIME, build, cli, settle  # noqa: E402

HOUR = 3600
T0 = 1_767_225_600  # 2026-01-01T00:00:00Z


def commit(root: Path, message: str, at: int) -> None:
    env = {**os.environ, **GIT_ENV, "GIT_COMMITTER_DATE": f"@{at} +0000", "GIT_AUTHOR_DATE": f"@{at} +0000"}
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=root, check=True, env=env)


def fix(root: Path) -> None:
    subprocess.run([*cli(), "-C", str(root), "check", "--fix"], check=False, capture_output=True)


def edit(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text("utf-8").replace(old, new, 1), "utf-8")


def history(root: Path) -> dict[str, int]:
    """29 commits after the synthetic wiki: marks made in commits 3, 6, 9 (ten files each), the
    first batch cleared at commit 12 (lines restored), the rest empty commits, one hour apart."""
    files = sorted((root / "src").rglob("*.py"))
    batches = [files[i * 10:(i + 1) * 10] for i in range(3)]
    t = T0
    for n in range(1, 30):
        t += HOUR
        if n in (3, 6, 9):
            for f in batches[n // 3 - 1]:
                edit(f, "value * ", "value ** ")
            fix(root)
        elif n == 12:
            for f in batches[0]:
                edit(f, "value ** ", "value * ")
            fix(root)
        commit(root, f"commit {n}", t)
    return {"commits": 30}


def run_process(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds user + system, peak RSS MiB) of one process, from GNU time: on a
    shared machine the CPU time is the steadier figure."""
    with tempfile.NamedTemporaryFile("r") as out:
        proc = subprocess.run([TIME, "-f", "%e %U %S %M", "-o", out.name, *cmd], capture_output=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
        wall, user, system, kib = out.read().split()[-4:]
    return float(wall), float(user) + float(system), int(kib) / 1024


def timed(cmd: list[str], runs: int) -> tuple[float, float, float, float]:
    """(min wall, median wall, min CPU, peak MiB) of `runs` whole-process runs, after one
    untimed warm-up run."""
    run_process(cmd)
    walls, cpus, peak = [], [], 0.0
    for _ in range(runs):
        wall, cpu, rss = run_process(cmd)
        walls.append(wall)
        cpus.append(cpu)
        peak = max(peak, rss)
    walls.sort()
    return walls[0], walls[len(walls) // 2], min(cpus), peak


def line(label: str, figures: tuple[float, float, float, float]) -> str:
    lo, median, cpu, peak = figures
    return f"{label:<52} wall min {lo:6.3f} s  median {median:6.3f} s  CPU min {cpu:6.3f} s  peak {peak:6.1f} MiB"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--replay", type=Path, help="the directory `bench/replay.py --keep DIR` left (its attrs clone)")
    args = p.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (shared: wall times are upper bounds)")
    with tempfile.TemporaryDirectory(prefix="owg-bench-report-") as tmp:
        root = Path(tmp) / "synthetic"
        shape = build(root, pages=100, claims_per_page=100, files=1000)
        history(root)
        settle()
        out = Path(tmp) / "report.html"
        base = [*cli(), "-C", str(root), "report"]
        print(f"synthetic: {shape['claims']} claims on {shape['pages']} pages over {shape['files']} files, 30 commits")
        print(line("report --html (warm)", timed([*base, "--html", str(out)], args.runs)))
        print(line("report --format json (warm)", timed([*base, "--format", "json"], args.runs)))
        print(line("report --markdown (warm)", timed([*base, "--markdown"], args.runs)))
        print(line("report --html --history 200 (30 commits exist)", timed([*base, "--history", "200", "--html", str(out)], args.runs)))
        print(f"html size: {out.stat().st_size / 1024:.0f} KiB")
        if args.replay:
            repo = args.replay / "attrs"
            cmd = [*cli(), "-C", str(repo), "report", "--history", "200", "--html", str(Path(tmp) / "attrs.html")]
            print(line("attrs replay: report --history 200 --html (warm)", timed(cmd, args.runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
