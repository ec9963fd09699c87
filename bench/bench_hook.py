"""Benchmark the pre-commit hook: its cost must follow the diff, not the size of the wiki.

A synthetic repository: 1,000 source files of 200 lines, and N claims over them (N = 1,000,
10,000, 100,000; each file cited N/1,000 times, 3-line ranges spread over the file), ten claims per
page, so N/10 pages and sidecars, every page with its markers and citations block. One commit
touches 5 source files (line 2 (in the first cited range) and line 122 rewritten, three lines appended, in each).

Measured: the wall time of `openwiki-git hook` run as pre-commit runs it (a new process, so
interpreter start and imports are included) on that staged commit:

- cold: the first run in the clone, which builds the reverse index path -> sidecars under
  .git/openwiki-git/ (it reads every sidecar once);
- warm: later runs (the index is current), the hook's writes undone in between; the runs of
  the sizes are interleaved so that a busy machine slows them alike; min and median of
  `--repeats` wall times, and the median CPU time of the process (user + system).

A second commit inserts 2 lines at the top of the same 5 files instead, so that every claim on
them moves and its sidecar must be rewritten: its cost grows with the claims *on the changed
files*, which is the diff's share of the wiki.

With `--set-claims F` (issue 23), a fraction F of the claims (0.01: 1%) are sets instead of
line ranges, half of them files by glob (`repo://src/m012?.py`: 10 files each), half lines by
query over such a glob (`repo://src/m012?.py?grep=def%20f`): the cited-path index matches every
changed path against their globs, and only the sets whose scope the commit touches are judged.

Run: python bench/bench_hook.py [--sizes 1000,10000,100000] [--set-claims 0.01] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openwiki_git.evidence.kinds import FileSet, GrepSet, set_version  # noqa: E402
from openwiki_git.evidence.resource import Resource  # noqa: E402
from openwiki_git.evidence.tokens import lines_version  # noqa: E402
from openwiki_git.formats import sidecar as sidecar_codec  # noqa: E402
from openwiki_git.model import Claim, Evidence, Sidecar  # noqa: E402
from openwiki_git.pages import citations
from openwiki_git.store.wiki import page_version  # noqa: E402

FILES = 1000
LINES = 200
PER_PAGE = 10
TOUCHED = 5
SPAN = 3


def cli() -> list[str]:
    script = Path(sys.executable).with_name("openwiki-git")
    return [str(script)] if script.exists() else [sys.executable, "-m", "openwiki_git"]


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True, env=env).stdout


def source(i: int) -> list[str]:
    return [f"def f{i}_{n}(x):  # module {i}, line {n}\n" if n % 10 == 1 else f"    x = x + {i * 1000 + n}\n" for n in range(1, LINES + 1)]


def set_evidence(n: int, texts: dict[int, list[str]]) -> Evidence:
    """The n-th set claim's evidence: files by a glob over 10 modules, or lines by a query there."""
    group = (n * 7) % (FILES // 10)  # spread over the groups of 10 modules
    glob = f"src/m{group:03d}?.py"
    members = [i for i in range(group * 10, group * 10 + 10)]
    if n % 2 == 0:
        return Evidence(FileSet(glob).canonical, set_version([f"src/m{i:04d}.py" for i in members]))
    query = f"def f{members[0]}_"
    lines = [[f"src/m{i:04d}.py", line.strip()] for i in members for line in texts[i] if query in line]
    return Evidence(GrepSet(glob, query).canonical, set_version(lines))  # type: ignore[arg-type]


def build(root: Path, claims: int, set_fraction: float = 0.0) -> None:
    per_file = claims // FILES
    every = int(1 / set_fraction) if set_fraction else 0
    os.makedirs(root / "src", exist_ok=True)
    texts = {}
    for i in range(FILES):
        lines = source(i)
        texts[i] = lines
        (root / "src" / f"m{i:04d}.py").write_text("".join(lines))
    wiki = root / ".openwiki"
    (wiki / ".claims").mkdir(parents=True, exist_ok=True)
    (wiki / "config.yml").write_text("wiki_dir: .openwiki\n")
    (wiki / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Files\n')
    all_claims: list[tuple[str, Claim]] = []
    n = 0
    for i in range(FILES):
        step = max(1, (LINES - SPAN) // max(per_file, 1))
        for k in range(per_file):
            start = 1 + k * step
            end = start + SPAN - 1
            resource = Resource(f"src/m{i:04d}.py", start, end).canonical
            version = lines_version(texts[i], start - 1, end)
            cid = f"claim_{n:032x}"
            statement = f"Module {i} part {k} adds numbers."
            ev = set_evidence(n // every, texts) if every and n % every == every - 1 else Evidence(resource, version)
            all_claims.append((statement, Claim(cid, statement, (ev,), "2026-01-01T00:00:00Z")))
            n += 1
    for p in range(0, len(all_claims), PER_PAGE):
        chunk = all_claims[p : p + PER_PAGE]
        page = f"p{p // PER_PAGE // 100:03d}/page{p // PER_PAGE:05d}.md"
        prose = "".join(f"{s}{citations.marker(c.id)}\n" for s, c in chunk)
        text = f"---\ntype: Reference\ntitle: Page {p // PER_PAGE}\n---\n\n# Page\n\n{prose}"
        text = citations.sync(text, f".openwiki/{page}", tuple(c for _, c in chunk))
        (wiki / page).parent.mkdir(parents=True, exist_ok=True)
        (wiki / page).write_text(text)
        sc = Sidecar(page, page_version(text.encode()), tuple(c for _, c in chunk))
        out = wiki / ".claims" / (page[: -len(".md")] + ".json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(sidecar_codec.dumps(sc))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "synthetic")


def stage_commit(root: Path, kind: str) -> None:
    for i in range(0, FILES, FILES // TOUCHED):
        path = root / "src" / f"m{i:04d}.py"
        lines = path.read_text().splitlines(keepends=True)
        if kind == "edit":
            lines[1] = "    x = x * 2  # rewritten\n"  # inside the first cited range (L1-L3)
            lines[121] = "    x = x * 3  # rewritten\n"
            lines += ["\n", "def appended(x):\n", "    return x\n"]
        else:
            lines = ["# inserted\n", "# inserted\n", *lines]
        path.write_text("".join(lines))
        git(root, "add", str(path.relative_to(root)))


def timed_hook(root: Path) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds of the child, exit code, stdout) of one `openwiki-git hook`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([*cli(), "hook"], cwd=root, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.returncode, p.stdout


def undo_hook(root: Path) -> None:
    git(root, "checkout", "-q", "--", ".openwiki")


def restage(root: Path, kind: str) -> None:
    """Back to HEAD (index and files), then stage commit `kind`."""
    git(root, "reset", "-q")
    git(root, "checkout", "-q", "--", "src", ".openwiki")
    stage_commit(root, kind)


def rounds(roots: dict[int, Path], repeats: int) -> dict[int, tuple[list[float], list[float]]]:
    """Runs interleaved across the sizes (1k, 10k, 100k, 1k, ...) so that a busy machine slows
    every size alike; the hook's writes are undone before each run."""
    got: dict[int, tuple[list[float], list[float]]] = {n: ([], []) for n in roots}
    for _ in range(repeats):
        for n, root in roots.items():
            undo_hook(root)
            wall, cpu, _, _ = timed_hook(root)
            got[n][0].append(wall)
            got[n][1].append(cpu)
    return got


def startup() -> float:
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", "import openwiki_git.cli.main, openwiki_git.cli.commands.hook"], capture_output=True, check=True
        )
        times.append(time.perf_counter() - t0)
    return min(times)


def ms(x: float) -> str:
    return f"{x * 1000:>7.0f}ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000", help="claim counts (default 1000,10000,100000)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--keep", metavar="DIR", help="build the repositories here and keep them (reused if there)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ap.add_argument("--set-claims", type=float, default=0.0, metavar="F", help="the fraction of claims that are sets (0.01: 1%%)")
    args = ap.parse_args()
    # Time what a user runs: an installed package with its bytecode cached, not one compiled on
    # every start (PYTHONDONTWRITEBYTECODE, set in some sandboxes, costs ~0.1 s per process).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sizes = [int(s) for s in args.sizes.split(",")]
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-hook-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        roots: dict[int, Path] = {}
        cold: dict[int, tuple[float, int]] = {}
        for n in sizes:
            root = roots[n] = base / (f"repo-{n}" + (f"-sets{args.set_claims:g}" if args.set_claims else ""))
            if not (root / ".git").is_dir():
                t0 = time.perf_counter()
                build(root, n, args.set_claims)
                print(f"built {n} claims in {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
            shutil.rmtree(root / ".git" / "openwiki-git", ignore_errors=True)
            restage(root, "edit")
            wall, _, _, stdout = timed_hook(root)  # the first run builds .git/openwiki-git/cites
            cold[n] = (wall, stdout.count("\n"))
        floor = startup()
        edit = rounds(roots, args.repeats)
        for root in roots.values():
            restage(root, "shift")
            timed_hook(root)
        shift = rounds(roots, args.repeats)
        print(f"interpreter start + the hook's imports, doing nothing: {floor * 1000:.0f} ms")
        print("a commit touching 5 files; wall time of `openwiki-git hook` as a new process")
        if args.set_claims:
            print(f"{args.set_claims:.1%} of the claims are sets (files by glob, lines by query)")
        print(f"{'claims':>8} {'pages':>7} {'cold':>9} {'warm min':>9} {'median':>9} {'cpu':>9} {'shift min':>9}  stale")
        rows = []
        for n in sizes:
            w, c = edit[n]
            sw, _ = shift[n]
            rows.append(
                {
                    "claims": n,
                    "pages": n // PER_PAGE,
                    "cold_s": cold[n][0],
                    "warm_min_s": min(w),
                    "warm_median_s": statistics.median(w),
                    "cpu_median_s": statistics.median(c),
                    "shift_min_s": min(sw),
                    "stale_lines": cold[n][1],
                }
            )
            print(
                f"{n:>8} {n // PER_PAGE:>7} {ms(cold[n][0])} {ms(min(w))} {ms(statistics.median(w))} "
                f"{ms(statistics.median(c))} {ms(min(sw))}  {cold[n][1]}"
            )
        best = [float(r["warm_min_s"]) for r in rows]
        med = [float(r["warm_median_s"]) for r in rows]
        print(
            f"largest/smallest warm time: {max(best) / min(best):.2f}x (min), "
            f"{max(med) / min(med):.2f}x (median); must stay within 1.5x"
        )
        if args.json:
            print(json.dumps(rows, indent=2))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
