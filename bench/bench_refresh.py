#!/usr/bin/env python3
"""Benchmark the refresher's own cost per claim (everything but the model): selection, the
history search for the verified text, the context, the checks of the answer, and the atomic
write under the lock. The model is a scripted fake that confirms each claim by quoting the first
cited line it was shown, so the figures are the overhead a real run adds to the model's latency.

Also prints the import time of `openwiki_git.cli.commands.check` (which must not load langchain) and
of the refresher's client stack, each in a fresh interpreter.

    python bench/bench_refresh.py [--claims 200] [--pages 10] [--latency 0.2] [--slow-claims 40]

Then the wall time of a refresh against a slow scripted model (`--latency` seconds per answer):
one serial job (max_concurrency 1), one job sending 4 claims at once, and two shard jobs run in
parallel processes (each serial, each in its own clone, as two matrix jobs) plus the merge of their
saved decisions in a third clone (what `github refresh-pr --from-shards` does before publishing).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for tests.support

from openwiki_git.cli.main import main
from openwiki_git.refresh.protocol import ReviewRequest
from openwiki_git.refresh.run import run_refresh
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support import model_answers
from tests.support.scripted_refresher import ScriptedRefresher  # the tests' scripted model


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
    """Confirm, quoting the current rows of the first evidence's cited part (as a diligent model)."""
    return model_answers.answer(request.claim_id, request.messages[0], retry=True)


def _shard_job(root: str, shard: tuple[int, int], latency: float, claims: int, out: str) -> float:
    """One matrix job: its own clone, its shard's pages, a serial slow model; saves its decisions."""
    from openwiki_git.refresh import shards
    from openwiki_git.services.github_publish import wiki_changes

    t = time.perf_counter()
    ws = Workspace.open(Path(root))
    fake = ScriptedRefresher([confirm] * claims, sequential=False, delay=latency)
    result = run_refresh(ws, RefreshOptions(shard=shard, max_concurrency=1), fake)
    shards.save(ws, result.to_dict(), wiki_changes(ws), Path(out))
    return time.perf_counter() - t


def slow_model(root: Path, claims: int, latency: float) -> None:
    """Wall time, serial vs concurrent vs two shards, against a model answering in `latency` s."""
    import multiprocessing

    from openwiki_git.refresh import shards
    from openwiki_git.services.github_refresh import merge_sidecar

    def clone(name: str) -> Path:
        target = root.parent / name
        subprocess.run(["git", "clone", "-q", str(root), str(target)], check=True)
        return target

    times = {}
    for label, conc in (("serial, 1 job", 1), ("1 job, max_concurrency 4", 4)):
        work = clone(f"c{conc}")
        fake = ScriptedRefresher([confirm] * claims, sequential=False, delay=latency)
        t = time.perf_counter()
        r = run_refresh(Workspace.open(work), RefreshOptions(max_concurrency=conc), fake)
        times[label] = time.perf_counter() - t
        assert r.totals["confirmed"] == claims, r.totals
    jobs = [clone(f"s{i}") for i in (1, 2)]
    outs = [str(root.parent / f"out{i}") for i in (1, 2)]
    ctx = multiprocessing.get_context("fork")
    t = time.perf_counter()
    with ctx.Pool(2) as pool:
        per_job = pool.starmap(_shard_job, [(str(j), (i, 2), latency, claims, o) for i, (j, o) in enumerate(zip(jobs, outs), 1)])
    shard_wall = time.perf_counter() - t
    final = clone("final")
    ws = Workspace.open(final)
    t = time.perf_counter()
    merged = shards.merge(ws, [Path(o) for o in outs], lambda *parts: merge_sidecar(ws, *parts))
    merge_s = time.perf_counter() - t
    assert merged["totals"]["confirmed"] == claims, merged["totals"]
    times["2 shards in parallel (serial each) + merge"] = shard_wall + merge_s
    print(f"slow scripted model: {claims} stale claims, {latency:.2f} s per answer")
    for label, seconds in times.items():
        print(f"  {label:<44} {seconds:6.2f} s wall")
    print(f"  (shard jobs {per_job[0]:.2f} s and {per_job[1]:.2f} s; merge {merge_s * 1000:.0f} ms)")


def import_ms(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1000)"
    best = min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
               for _ in range(3))
    return best


def main_bench() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--claims", type=int, default=200)
    ap.add_argument("--pages", type=int, default=10)
    ap.add_argument("--latency", type=float, default=0.2, help="seconds per answer of the slow model")
    ap.add_argument("--slow-claims", type=int, default=40, help="claims in the slow-model comparison")
    args = ap.parse_args()
    os.environ.update({"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
                       "GIT_COMMITTER_EMAIL": "b@x", "GIT_CONFIG_NOSYSTEM": "1"})
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with contextlib.redirect_stdout(io.StringIO()):
            build(root, args.claims, args.pages)
        fake = ScriptedRefresher([confirm] * args.claims)
        t = time.perf_counter()
        result = run_refresh(Workspace.open(root), RefreshOptions(max_concurrency=1), fake)
        elapsed = time.perf_counter() - t
        totals = result.totals
        print(f"refresh of {totals['claims']} stale claims on {args.pages} pages, scripted model: "
              f"{elapsed:.2f} s total, {elapsed / max(1, totals['claims']) * 1000:.1f} ms per claim "
              f"({totals['confirmed']} confirmed, {totals['failed']} failed); "
              f"estimated prompt tokens per claim {totals['tokens_in'] / max(1, totals['claims']):.0f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "origin"
        root.mkdir()
        with contextlib.redirect_stdout(io.StringIO()):
            build(root, args.slow_claims, max(2, args.pages))
        slow_model(root, args.slow_claims, args.latency)
    print(f"import openwiki_git.cli.commands.check: {import_ms('openwiki_git.cli.commands.check'):.0f} ms")
    print(f"import openwiki_git.refresh.run:         {import_ms('openwiki_git.refresh.run'):.0f} ms")
    print(f"import langchain_openai:            {import_ms('langchain_openai'):.0f} ms (paid only by refresh)")


if __name__ == "__main__":
    main_bench()
