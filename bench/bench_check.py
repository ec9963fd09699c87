#!/usr/bin/env python3
"""Benchmark `openwiki-git check` on synthetic repositories, without and with its cache.

Builds git repositories whose wiki holds 10,000 claims with real OpenWiki tokens (computed with
tokens.lines_version directly, so building is fast), commits them, and times `check`:

  A. 10,000 claims over 1,000 cited files (100 pages x 100 claims, 10 claims per file)
  B. 10,000 claims over   100 cited files (100 pages x 100 claims, 100 claims per file)
  C. A again after a line is inserted at the top of every cited file (every claim relocates)
  D. C again after every cited file is rewritten with the same bytes (every stat changes)

each end to end as a subprocess (interpreter start included, best of --runs) and in-process
(best of --runs), in three modes: `no cache` (`check --no-cache`), `first run` (A, B: no cache
file yet, the run writes it; C, D: the cache from before the change, so every file misses) and
`warm` (the cache up to date: the common case of a check run again). B against A shows that the
cost follows the number of cited files, not the number of claims per file. The bench sleeps out
the cache's 2-second racy window after building or changing files (statkey.RACY_NS).

    python bench/bench_check.py            # all shapes
    python bench/bench_check.py --profile  # plus a cProfile of in-process runs of A, cold and warm
    python bench/bench_check.py --floor    # only the whole-process figures of issue 17 (below)

--floor: whole processes, median of --runs, wall time and the process's own peak RSS (wait4), on
A (10,000 claims over 1,000 files) and H (100,000 claims: 1,000 pages x 100 over 1,000 files x
100), against bench/openwiki_algorithm.py (every cited range re-read and re-hashed) in the same
run: warm text, warm JSON (every claim, and --only-problems when the version has it),
--no-cache, the first check after one cited file changed, and the cache's size on disk.

To time another version of the package (before/after), put its parent directory first on the
path and run from outside the checkout: `cd /tmp && PYTHONPATH=/path/to/old python
/path/to/bench/bench_check.py` (the console script and the in-process runs both pick it up;
a version without the cache has no checkcache module and no --no-cache flag).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from openwiki_git.caches import check_entries as checkcache
from openwiki_git.cli.main import main
from openwiki_git.evidence.resource import format_resource
from openwiki_git.evidence.tokens import lines_version, split_lines
from openwiki_git.formats import sidecar
from openwiki_git.model import Claim, Evidence, Sidecar
from openwiki_git.pages import citations
from openwiki_git.store.wiki import page_version

try:
    from openwiki_git.caches.statkey import RACY_NS
except ImportError:  # a version from before caches/statkey.py (timed from outside the checkout) kept it here
    from openwiki_git.caches.check_entries import RACY_NS

LINES_PER_FILE = 400
RANGE_LINES = 4
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def source_text(f: int) -> str:
    """A Python-looking file whose lines are unique within the file."""
    out = [f'"""Module {f}."""\n', "\n"]
    i = 0
    while len(out) < LINES_PER_FILE:
        out += [f"def handler_{f}_{i}(request):\n", f"    value = request.get({i!r})\n",
                f"    return value * {i % 7 + 1}\n", "\n"]
        i += 1
    return "".join(out[:LINES_PER_FILE])


def build(root: Path, *, pages: int, claims_per_page: int, files: int, markers: bool = True) -> dict[str, int]:
    """A committed repository: `files` source files, `pages` pages of `claims_per_page` claims,
    the claims spread evenly over the files; `markers` False: the pages carry none (every claim
    is reported "without a marker")."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    texts = {}
    for f in range(files):
        path = f"src/pkg{f % 10}/mod_{f}.py"
        text = source_text(f)
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, "utf-8")
        texts[path] = split_lines(text)
    paths = sorted(texts)
    wiki = root / ".openwiki"
    (wiki / ".claims" / "area").mkdir(parents=True)
    (wiki / "area").mkdir()
    (wiki / "config.yml").write_text("wiki_dir: .openwiki\n", "utf-8")
    (wiki / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Index\n', "utf-8")
    total = pages * claims_per_page
    per_file = max(1, total // files)
    n = 0
    for p in range(pages):
        page = f"area/page_{p:04d}.md"
        claims = []
        prose = [f"---\ntype: Reference\ntitle: Page {p}\n---\n\n# Page {p}\n\n"]
        for _ in range(claims_per_page):
            path = paths[(n // per_file) % files]
            lines = texts[path]
            slot = n % per_file
            start0 = 2 + (slot * 7) % (LINES_PER_FILE - RANGE_LINES - 4)
            res = format_resource(path, (start0 + 1, start0 + RANGE_LINES))
            cid = f"claim_{n:032x}"
            statement = f"Handler {n} in {path} scales its value."
            claims.append(Claim(cid, statement, (Evidence(res, lines_version(lines, start0, start0 + RANGE_LINES)),)))
            prose.append(f"{statement}{citations.marker(cid) if markers else ''}\n")
            n += 1
        text = citations.sync("".join(prose), f".openwiki/{page}", claims)
        (wiki / page).write_text(text, "utf-8")
        sc = Sidecar(page, page_version(text.encode("utf-8")), tuple(claims))
        (wiki / ".claims" / (page[:-3] + ".json")).write_text(sidecar.dumps(sc), "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "synthetic wiki")
    return {"pages": pages, "claims": n, "files": len({c for c in paths[: -(-n // per_file)]}), "claims_per_file": per_file}


def shift_sources(root: Path) -> None:
    """Insert a line at the top of every source file: every cited range moves down by one."""
    for path in (root / "src").rglob("*.py"):
        path.write_text("# header\n" + path.read_text("utf-8"), "utf-8")


def touch_sources(root: Path) -> None:
    """Rewrite every source file with the same bytes: every stat changes, no blob does."""
    for path in (root / "src").rglob("*.py"):
        path.write_bytes(path.read_bytes())


def settle() -> None:
    """Wait out the check cache's racy window (statkey.RACY_NS): files written less than 2 s
    before a check are read again by the next one, so a warm figure needs older files."""
    time.sleep(RACY_NS / 1e9 + 0.2)


def cli() -> list[str]:
    exe = shutil.which("openwiki-git")
    return [exe] if exe else [sys.executable, "-m", "openwiki_git"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Cache:
    """The repository's check cache file, to remove or put back between timed runs."""

    def __init__(self, root: Path) -> None:
        self.path = root / ".git" / "openwiki-git" / checkcache.CACHE_NAME
        self.saved: bytes | None = None

    def drop(self) -> None:
        self.path.unlink(missing_ok=True)

    def save(self) -> None:
        self.saved = self.path.read_bytes()

    def restore(self) -> None:
        assert self.saved is not None
        self.path.write_bytes(self.saved)


def time_subprocess(root: Path, runs: int, extra: tuple[str, ...] = (), before=None) -> tuple[float, float]:
    """Best wall time and best CPU time (user + sys) of `openwiki-git -C root check [extra]`;
    `before()` runs before each (untimed)."""
    best = best_cpu = float("inf")
    for _ in range(runs):
        if before is not None:
            before()
        cpu = _children_cpu()
        started = time.perf_counter()
        proc = subprocess.run([*cli(), "-C", str(root), "check", *extra], capture_output=True, text=True)
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, _children_cpu() - cpu)
        if proc.returncode != 0:
            raise SystemExit(f"check exited {proc.returncode}: {proc.stderr or proc.stdout[-500:]}")
    return best, best_cpu


def time_in_process(root: Path, runs: int, extra: tuple[str, ...] = (), before=None) -> tuple[float, float]:
    """Best wall and CPU time of main(["-C", root, "check", *extra]) in this process (imports warm)."""
    best = best_cpu = float("inf")
    for _ in range(runs):
        if before is not None:
            before()
        cpu = time.process_time()
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            rc = main(["-C", str(root), "check", *extra])
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        if rc != 0:
            raise SystemExit(f"in-process check exited {rc}")
    return best, best_cpu


Timings = dict[str, tuple[float, float, float, float]]  # mode -> sub wall, sub CPU, in-process wall, CPU


def summary(root: Path, *extra: str) -> dict[str, int]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["-C", str(root), "check", "--format", "json", *extra])
    return json.loads(out.getvalue())["summary"]


def time_shape(root: Path, runs: int, first_run) -> Timings:
    """{mode: (subprocess wall, subprocess CPU, in-process wall, in-process CPU)} for three modes:
    `no cache` (--no-cache), `first run` (`first_run()` sets up the cache before each run: none,
    or one from before a change) and `warm` (the cache up to date). Leaves the cache warm."""
    cache = Cache(root)
    out = {"no cache": (*time_subprocess(root, runs, ("--no-cache",)), *time_in_process(root, runs, ("--no-cache",)))}
    out["first run"] = (*time_subprocess(root, runs, before=first_run), *time_in_process(root, runs, before=first_run))
    assert cache.path.exists(), "the first run wrote no cache: are the files older than the racy window?"
    out["warm"] = (*time_subprocess(root, runs), *time_in_process(root, runs))
    no_cache, warm = summary(root, "--no-cache"), summary(root)
    assert no_cache == warm and warm["fresh"] == warm["total"] == 10_000, (no_cache, warm)
    return out


def profile(root: Path, *extra: str) -> None:
    prof = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()):
        prof.runcall(main, ["-C", str(root), "check", *extra])
    pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


LABELS = {
    "A": "A 10,000 claims / 1,000 files (10 per file)",
    "B": "B 10,000 claims /   100 files (100 per file)",
    "C": "C = A, every cited range moved by one line",
    "D": "D = C, every cited file rewritten unchanged",
}


def report(results: dict[str, Timings], runs: int) -> None:
    print()
    print(f"{'':<46}{'subprocess wall / CPU':>23}{'in-process wall / CPU':>23}")
    for name, modes in results.items():
        print(LABELS[name])
        for mode, (sub, sub_cpu, inproc, in_cpu) in modes.items():
            print(f"  {mode:<44}{sub * 1000:>13.0f} / {sub_cpu * 1000:>4.0f} ms"
                  f"{inproc * 1000:>13.0f} / {in_cpu * 1000:>4.0f} ms")
    print(f"(best of {runs}; subprocess includes interpreter start and imports. first run: A, B with no cache "
          f"file; C, D with the cache from before the change)")
    print(f"peak RSS: largest child {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f}MB, "
          f"bench process (builds + in-process runs) {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}MB")


def build_shapes(tmp: Path) -> dict[str, Path]:
    shapes = {
        "A": dict(pages=100, claims_per_page=100, files=1000),
        "B": dict(pages=100, claims_per_page=100, files=100),
    }
    roots = {}
    for name, shape in shapes.items():
        started = time.perf_counter()
        roots[name] = tmp / name
        got = build(roots[name], **shape)
        print(f"built {name}: {got['claims']} claims on {got['pages']} pages over {got['files']} cited files "
              f"({got['claims_per_file']} claims per file, {LINES_PER_FILE} lines each) "
              f"in {time.perf_counter() - started:.1f} s")
    settle()
    return roots


def run_shapes(roots: dict[str, Path], runs: int, profile_a: bool) -> dict[str, Timings]:
    results = {}
    for name in ("A", "B"):
        results[name] = time_shape(roots[name], runs, Cache(roots[name]).drop)
    if profile_a:
        print("\n--- profile: A, no cache ---")
        profile(roots["A"], "--no-cache")
        print("--- profile: A, warm ---")
        profile(roots["A"])
    # C, then D: each first run starts from the warm cache of before its change (restored each run).
    for name, change in (("C", shift_sources), ("D", touch_sources)):
        cache = Cache(roots["A"])
        cache.save()
        change(roots["A"])
        settle()
        results[name] = time_shape(roots["A"], runs, cache.restore)
    return results


# -- --floor: whole processes against the OpenWiki algorithm ---------------------------------------
ALGORITHM = Path(__file__).with_name("openwiki_algorithm.py")


TIME = shutil.which("time") or "/usr/bin/time"


def run_process(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB) of one process; exit 0 or 1 (findings) is expected.

    The peak comes from GNU time (`%M`) when there is one: a child's ru_maxrss counts the pages
    of the process it was forked from, this bench with its repositories in memory."""
    with tempfile.NamedTemporaryFile("r") as rss:
        wrapped = [TIME, "-f", "%M", "-o", rss.name, *cmd] if os.path.exists(TIME) else cmd
        started = time.perf_counter()
        proc = subprocess.run(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        wall = time.perf_counter() - started
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
        kib = rss.read().strip().splitlines()[-1] if wrapped is not cmd else "0"
    return wall, int(kib) / 1024


def median_process(cmd: list[str], runs: int, before=None) -> tuple[float, float]:
    walls, rss = [], []
    for _ in range(runs):
        if before is not None:
            before()
        w, r = run_process(cmd)
        walls.append(w)
        rss.append(r)
    walls.sort()
    return walls[len(walls) // 2], max(rss)


class CacheFiles:
    """Every check cache file under <git dir>/openwiki-git (whatever the version calls them)."""

    def __init__(self, root: Path) -> None:
        self.dir = root / ".git" / "openwiki-git"
        self.saved: dict[Path, bytes] = {}

    def files(self) -> list[Path]:
        return sorted(self.dir.glob("check-*")) if self.dir.is_dir() else []

    def size(self) -> int:
        return sum(p.stat().st_size for p in self.files())

    def save(self) -> None:
        self.saved = {p: p.read_bytes() for p in self.files()}

    def restore(self) -> None:
        for p in self.files():
            p.unlink()
        for p, data in self.saved.items():
            p.write_bytes(data)


def has_flag(flag: str) -> bool:
    out = subprocess.run([*cli(), "check", "--help"], capture_output=True, text=True).stdout
    return flag in out


def floor(tmp: Path, runs: int) -> None:
    rows: list[tuple[str, float, float]] = []
    only = has_flag("--only-problems")
    for name, shape in (("A", dict(pages=100, claims_per_page=100, files=1000)),
                        ("H", dict(pages=1000, claims_per_page=100, files=1000))):
        root = tmp / f"floor-{name}"
        got = build(root, **shape)
        print(f"built {name}: {got['claims']} claims, {got['pages']} pages, {got['files']} files", flush=True)
        settle()
        check = [*cli(), "-C", str(root), "check"]
        subprocess.run(check, capture_output=True)  # writes the cache
        settle()
        subprocess.run(check, capture_output=True)  # warm: nothing racy left
        label = f"{name} {got['claims']:,} claims"
        algo_runs = runs if name == "A" else 1
        algo = median_process([sys.executable, str(ALGORITHM), str(root)], algo_runs)
        rows.append((f"{label}: OpenWiki algorithm (re-read, re-hash every range; {algo_runs} run(s))", *algo))
        rows.append((f"{label}: check, warm, text", *median_process(check, runs)))
        rows.append((f"{label}: check --format json, warm (every claim)", *median_process([*check, "--format", "json"], runs)))
        if only:
            rows.append((f"{label}: check --format json --only-problems, warm",
                         *median_process([*check, "--format", "json", "--only-problems"], runs)))
        if name == "A":
            rows.append((f"{label}: check --no-cache", *median_process([*check, "--no-cache"], runs)))
            cache = CacheFiles(root)
            cache.save()
            changed = root / "src" / "pkg0" / "mod_0.py"
            changed.write_text("# header\n" + changed.read_text("utf-8"), "utf-8")
            settle()
            rows.append((f"{label}: check, one cited file changed (first run after it)",
                         *median_process(check, runs, before=cache.restore)))
        print(f"{label}: check cache on disk {CacheFiles(root).size() / 1e6:.1f} MB", flush=True)
    print(f"\n{'':<78}{'wall':>8}{'peak RSS':>11}")
    for text, wall, rss in rows:
        print(f"{text:<78}{wall * 1000:>6.0f}ms{rss:>7.0f} MiB")
    print(f"(median of {runs} whole processes, interpreter start included; load average {os.getloadavg()[0]:.1f})")


def main_bench() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="cProfile one in-process run of shape A, cold and warm")
    ap.add_argument("--keep", action="store_true", help="keep the repositories (their paths are printed)")
    ap.add_argument("--floor", action="store_true", help="only the whole-process figures against the OpenWiki algorithm")
    args = ap.parse_args()
    # Time what a user runs: an installed package with its bytecode cached, not one compiled on
    # every start (PYTHONDONTWRITEBYTECODE, set in some sandboxes, costs ~0.1 s per process).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

    tmp = Path(tempfile.mkdtemp(prefix="openwiki-bench-"))
    import openwiki_git

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, "
          f"command: {' '.join(cli())} -C REPO check")
    print(f"timing the openwiki_git package in {Path(openwiki_git.__file__).parent}")
    try:
        if args.floor:
            floor(tmp, args.runs)
            return
        roots = build_shapes(tmp)
        results = run_shapes(roots, args.runs, args.profile)
        report(results, args.runs)
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        if args.keep:
            print(f"repositories kept in {tmp}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main_bench()
