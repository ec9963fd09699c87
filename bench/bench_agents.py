#!/usr/bin/env python3
"""Benchmark the agents' verification tools (issue 22, item 2).

1. A scripted agent session over the real MCP client (the SDK's `stdio_client` + `ClientSession`
   starting `openwiki-git mcp` in a real repository whose claims the hook marked,
   tests/support/agent_session.py): an honest agent that reads `claims_for_change` once and
   confirms with the current lines, and a hostile one (fabricated quotes, quotes from another
   file, a comment as proof of code, instructions in a revised statement, a claim id of another
   page, a people-only page). Prints the marks cleared and the writes applied.
2. `claims_for_change` on a 10,000-claim wiki (bench_check's shape A: 100 pages x 100 claims over
   1,000 files) after one cited file was edited in the working tree, in process through the
   service the MCP server runs: the first call (cold) and the warm ones (min and median of --runs).

    python bench/bench_agents.py [--runs 7]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import anyio  # noqa: E402
import bench_check  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402

from openwiki_git.agents.service import GraphService  # noqa: E402
from tests.support import agent_session  # noqa: E402


def _session(root: Path, agent) -> object:  # type: ignore[no-untyped-def]
    """Run `agent(session)` over the real stdio client against `openwiki-git mcp` in `root`."""
    out: list = []

    async def run() -> None:
        async with stdio_client(agent_session.server_params(root)) as (read, write), ClientSession(
            read, write, client_info=Implementation(name="bench-agent", version="1")
        ) as session:
            await session.initialize()
            out.append(await agent(session))

    anyio.run(run)
    return out[0]


def _built(root: Path):  # type: ignore[no-untyped-def]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return agent_session.build_marked_repo(root)


def scripted_session(tmp: Path) -> None:
    repo, ids = _built(tmp / "honest")
    cleared, mine, errors = _session(repo.root, agent_session.honest_agent)  # type: ignore[misc]
    print(f"honest agent: {cleared} of {mine} agent-verifiable marks cleared "
          f"({len(ids) - mine} on a people-only page left to a person), {len(errors)} refusals")
    repo, ids = _built(tmp / "hostile")
    before = repo.snapshot()
    got = _session(repo.root, lambda session: agent_session.hostile_agent(session, ids))
    refused = sum(1 for _, r, _ in got if r)  # type: ignore[attr-defined]
    print(f"hostile agent: {len(got)} verdicts, {refused} refused as tool errors, "  # type: ignore[arg-type]
          f"writes applied: {0 if repo.snapshot() == before else 'SOME'}")
    for name, _, text in got:  # type: ignore[attr-defined]
        print(f"  {name}: {text[:160]}")


def claims_for_change(tmp: Path, runs: int) -> None:
    root = tmp / "big"
    shape = bench_check.build(root, pages=100, claims_per_page=100, files=1000)
    bench_check.settle()
    bench_check.git(root, "update-index", "-q", "--refresh")  # the index's stat data as any `git status` leaves it
    edited = root / "src/pkg0/mod_0.py"
    lines = edited.read_text("utf-8").splitlines(keepends=True)
    lines[3] = "    value = request.get('changed')\n"
    edited.write_text("".join(lines), "utf-8")
    bench_check.settle()
    service = GraphService(root)
    t0 = time.perf_counter()
    first = service.call("claims_for_change")
    cold = time.perf_counter() - t0
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        again = service.call("claims_for_change")
        times.append(time.perf_counter() - t0)
    assert "error" not in first and again["total"] == first["total"], first
    print(f"claims_for_change on {shape['claims']:,} claims ({shape['pages']} pages, {shape['files']} files), "
          f"one cited file edited: {first['total']} claims touched; "
          f"cold {cold:.3f} s, warm min {min(times):.3f} s, median {statistics.median(times):.3f} s ({runs} runs)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scripted_session(Path(tmp))
        claims_for_change(Path(tmp), args.runs)


if __name__ == "__main__":
    main()
