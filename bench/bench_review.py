#!/usr/bin/env python3
"""Benchmark `openwiki-git review` (issue 22 item 1), driven through a real pseudo-terminal.

1. Clearing every mark left by a real history: on a copy of the repository `bench/replay.py
   --keep DIR` leaves (python-attrs replayed through the hook; some claims end marked), count
   the commands and the characters a person types to clear every mark
   - with `review`: one command, then per claim the key and Enter (`c` confirms, with the
     suggested range when the cited text grew past the bound); the run is real, and `check`
     must exit 0 after it;
   - with today's commands, run for real on a second copy: `check` to find the ids, then per
     claim `claim show c-xxxxxxxx` and `claim confirm c-xxxxxxxx --by human:NAME`, plus `claim
     edit c-xxxxxxxx --evidence repo://...#Lx-Ly` where the text grew past the bound (the range
     a person works out by hand; here review's suggestion, so both end the same); each command
     counted as typed, with Enter, ids typed as the 10-character page label.
2. Start-up on 1,000 marked claims: a synthetic repository (bench_check's builder: 10 pages x
   100 claims over 100 files), every cited range changed and marked by the real hook, then the
   wall time from starting `review` to its first prompt on the terminal (best of --runs).

    python bench/replay.py --keep /tmp/replay     # once: leaves /tmp/replay/attrs
    python bench/bench_review.py --replay /tmp/replay [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for tests.support and bench_check
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import build, git  # noqa: E402  (the synthetic wiki of the check benchmark)

from tests.support.pty_session import PtySession, openwiki_git  # noqa: E402  (the tests' pty driver)

PROMPT = ",u,q,?]? "  # the end of review's prompt, with or without `a` (claims that share a change)
ACTOR = "human:Ada Lovelace"


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(openwiki_git("-C", str(root), *args), capture_output=True, text=True, check=False)


def _marked(root: Path) -> list[dict]:  # type: ignore[type-arg]
    data = json.loads(_run(root, "check", "--format", "json", "--only-problems").stdout)
    return [c for c in data["claims"] if c["status"] != "fresh" or c["due"]]


def clear_with_review(root: Path) -> dict[str, object]:
    """Every mark cleared by one `review`, `c` + Enter per claim; what was typed."""
    marked = _marked(root)
    s = PtySession(openwiki_git("-C", str(root), "review", "--by", ACTOR, "--no-color"), cwd=root)
    typed = len("openwiki-git review\n")
    keys = 0
    for _ in marked:
        s.read_until(PROMPT)
        s.send("c\n")
        keys += 2
    code = s.wait()
    ok = _run(root, "check").returncode == 0
    return {"claims": len(marked), "commands": 1, "typed": typed + keys, "keys_per_claim": keys / max(len(marked), 1),
            "exit": code, "check_clean_after": ok, "suggested_ranges": s.screen.count("suggested range:"),
            "summary": s.screen.strip().splitlines()[-1]}


def clear_with_claim_commands(root: Path, suggestions: dict[str, str]) -> dict[str, object]:
    """The same clearing with `check`, `claim show`, `claim confirm` and `claim edit`."""
    marked = _marked(root)
    commands = [["check"]]
    for c in marked:
        label = "c-" + c["id"].removeprefix("claim_")[:8]
        commands.append(["claim", "show", label])
        if c["id"] in suggestions:  # grown past the bound: the range worked out by hand
            commands.append(["claim", "edit", label, "--evidence", suggestions[c["id"]], "--by", ACTOR])
        else:
            commands.append(["claim", "confirm", label, "--by", ACTOR])
    typed = 0
    for argv in commands:
        shown = " ".join(a if " " not in a else f"'{a}'" for a in argv)
        typed += len(f"openwiki-git {shown}\n")
        _run(root, *argv)
    ok = _run(root, "check").returncode == 0
    return {"claims": len(marked), "commands": len(commands), "typed": typed, "check_clean_after": ok}


def suggested(root: Path) -> dict[str, str]:
    """Review's suggested ranges (claim id -> the one resource), read through the service."""
    from openwiki_git.services import review
    from openwiki_git.store.workspace import Workspace

    ws = Workspace.open(root)
    out = {}
    for entry in review.queue(ws):
        v = review.view(ws, entry)
        if v.has_suggestion and len(v.suggested) == 1 and v.suggested[0]:
            out[entry.claim_id] = v.suggested[0]
    return out


def replay_figures(replay: Path) -> None:
    src = replay / "attrs"
    with tempfile.TemporaryDirectory(prefix="bench-review-") as tmp:
        a, b = Path(tmp) / "review", Path(tmp) / "commands"
        shutil.copytree(src, a, symlinks=True)
        shutil.copytree(src, b, symlinks=True)
        hints = suggested(b)
        r = clear_with_review(a)
        o = clear_with_claim_commands(b, hints)
    print(f"replay ({src}): {r['claims']} claims marked at the end, {r['suggested_ranges']} with a suggested range")
    print(f"  review:          {r['commands']} command, {r['typed']} characters typed "
          f"({r['keys_per_claim']:.0f} per claim), check clean after: {r['check_clean_after']} ({r['summary']})")
    print(f"  claim commands: {o['commands']} commands, {o['typed']} characters typed, check clean after: {o['check_clean_after']}")


def startup(runs: int, claims: int = 1000) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-review-start-") as tmp:
        root = Path(tmp) / "repo"
        build(root, pages=10, claims_per_page=claims // 10, files=100)
        for path in (root / "src").rglob("*.py"):
            path.write_text(path.read_text("utf-8").replace("value", "amount"), "utf-8")
        git(root, "add", "src")
        subprocess.run(openwiki_git("-C", str(root), "hook"), capture_output=True, check=False)  # the real hook marks them
        n = len(_marked(root))
        best = float("inf")
        for _ in range(runs):
            started = time.perf_counter()
            s = PtySession(openwiki_git("-C", str(root), "review", "--by", ACTOR), cwd=root)
            s.read_until(PROMPT)
            best = min(best, time.perf_counter() - started)
            s.send("q\n")
            s.wait()
    print(f"start-up: {n} marked claims, first prompt after {best * 1000:.0f} ms (best of {runs}, interpreter start included)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replay", type=Path, help="the directory `bench/replay.py --keep DIR` left (its attrs/ is copied)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}; the machine may be shared: figures are the best of several runs")
    # An installed package has its bytecode; with PYTHONDONTWRITEBYTECODE a checkout would compile
    # every edited module on every start, which is not what a user waits for.
    import compileall

    import openwiki_git

    compileall.compile_dir(str(Path(openwiki_git.__file__).parent), quiet=1)
    if args.replay:
        replay_figures(args.replay)
    startup(args.runs)


if __name__ == "__main__":
    main()
