#!/usr/bin/env python3
"""The health report's history against a count made independently (issue 24, "Measured"): on the
repository `python bench/replay.py --keep DIR` leaves (DIR/attrs: the attrs history replayed
through the real pre-commit hook, its marks committed as they were made), every sidecar of every
one of the last N first-parent commits is read with the git CLI (`git ls-tree`, `git cat-file
--batch`, plain json), each claim's status counted (a mark's status, else fresh) and each mark's
wait timed (first commit with it to first commit without it, committer time). The figures must
equal `openwiki-git report --format json --history N`'s trend and clearing times; the script
prints both and exits 1 when they differ.

Nobody verifies during the replay, so its marks are never cleared. With --clear, a clone of the
replayed repository gets what a person would do next: each claim still marked confirmed
(`claim confirm --by human:bench`) in a commit of its own, one hour apart, so that the clearing
times are compared too.

    python bench/replay_report.py DIR [--history N] [--clear]   (N: default every commit, at most 200)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

WIKI = ".openwiki"


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, input=data, capture_output=True, check=True).stdout


def read_blobs(repo: Path, specs: list[str]) -> list[bytes]:
    """`git cat-file --batch` for many `<commit>:<path>` at once."""
    out = git(repo, "cat-file", "--batch", data="".join(s + "\n" for s in specs).encode())
    blobs, pos = [], 0
    for _ in specs:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        blobs.append(out[header_end + 1: header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return blobs


def statuses_at(repo: Path, commit: str) -> dict[str, str]:
    """claim id -> status, from every sidecar of the commit."""
    names = [n for n in git(repo, "ls-tree", "-r", "--name-only", commit, "--", f"{WIKI}/.claims/").decode().splitlines()
             if n.endswith(".json")]
    out: dict[str, str] = {}
    for blob in read_blobs(repo, [f"{commit}:{n}" for n in names]) if names else []:
        for c in json.loads(blob).get("claims", []):
            out[c["id"]] = (c.get("mark") or {}).get("status", "fresh")
    return out


def count(repo: Path, n: int) -> dict[str, Any]:
    commits = git(repo, "rev-list", "--first-parent", "--reverse", f"--max-count={n}", "HEAD").decode().split()
    trend, waits, started = [], [], {}
    for i, c in enumerate(commits):
        when = int(git(repo, "show", "-s", "--format=%ct", c).decode())
        now = statuses_at(repo, c)
        trend.append({"commit": c, "time": when, **{s: sum(v == s for v in now.values()) for s in ("fresh", "stale", "unresolved")}})
        for cid, status in now.items():
            if status != "fresh" and cid not in started:
                started[cid] = None if i == 0 else when
        for cid in [k for k in started if now.get(k, "fresh") == "fresh"]:
            start = started.pop(cid)
            if start is not None:
                waits.append(when - start)
    return {"trend": trend, "waits": waits, "open": len(started)}


def clear_marks(repo: Path, into: Path) -> int:
    """A clone of `repo` in which every marked claim is confirmed, one commit per claim, an hour apart."""
    subprocess.run(["git", "clone", "-q", str(repo), str(into)], check=True)
    last = int(git(into, "show", "-s", "--format=%ct", "HEAD").decode())
    marked = sorted(cid for cid, status in statuses_at(into, "HEAD").items() if status != "fresh")
    for k, cid in enumerate(marked, 1):
        subprocess.run([sys.executable, "-m", "openwiki_git", "-C", str(into), "claim", "confirm", cid, "--by", "human:bench"],
                       check=True, capture_output=True)
        date = f"@{last + k * 3600} +0000"
        env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@x.invalid",
               "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@x.invalid"}
        subprocess.run(["git", "commit", "-q", "-am", f"confirm {cid}"], cwd=into, check=True, env={**os.environ, **env})
    return len(marked)


def quantiles(waits: list[int]) -> tuple[float | None, float | None]:
    if not waits:
        return None, None
    if len(waits) == 1:
        return float(waits[0]), float(waits[0])
    return float(statistics.median(waits)), float(statistics.quantiles(waits, n=10, method="inclusive")[8])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="the directory `bench/replay.py --keep DIR` left")
    p.add_argument("--history", type=int, help="the last N first-parent commits (default: every replayed one, at most 200)")
    p.add_argument("--clear", action="store_true", help="in a clone, confirm each marked claim in a commit of its own first")
    args = p.parse_args()
    repo = args.dir / "attrs"
    replayed = int(git(repo, "rev-list", "--first-parent", "--count", "origin/HEAD..HEAD").decode() or 0)
    if args.clear:
        with tempfile.TemporaryDirectory(prefix="owg-replay-clear-") as tmp:
            confirmed = clear_marks(repo, Path(tmp) / "attrs")
            print(f"--clear: {confirmed} marked claims confirmed, one commit each, an hour apart")
            return compare(Path(tmp) / "attrs", args.history or min(200, replayed + 1 + confirmed), replayed)
    return compare(repo, args.history or min(200, replayed + 1), replayed)


def compare(repo: Path, n: int, replayed: int) -> int:
    counted = count(repo, n)
    proc = subprocess.run([sys.executable, "-m", "openwiki_git", "-C", str(repo), "report", "--format", "json", "--history", str(n)],
                          capture_output=True, text=True, check=True)
    report = json.loads(proc.stdout)
    median, p90 = quantiles(counted["waits"])
    mine = {"trend": counted["trend"], "cleared": len(counted["waits"]), "median": median, "p90": p90, "open": counted["open"]}
    c = report["clearing"]
    theirs = {"trend": report["trend"], "cleared": c["cleared"], "median": c["median_seconds"], "p90": c["p90_seconds"], "open": c["open"]}
    first, last = counted["trend"][0], counted["trend"][-1]
    print(f"attrs replay: {replayed} commits on the bundle's base (the wiki's, then the replayed ones); "
          f"the last {n} first-parent commits compared")
    print(f"counted with git + json: first {first['fresh']}/{first['stale']}/{first['unresolved']} "
          f"(fresh/stale/unresolved), last {last['fresh']}/{last['stale']}/{last['unresolved']}, "
          f"max stale {max(t['stale'] for t in counted['trend'])}, max unresolved {max(t['unresolved'] for t in counted['trend'])}")
    print(f"marks cleared: counted {mine['cleared']}, report {theirs['cleared']}; median wait counted {mine['median']} s, "
          f"report {theirs['median']} s; p90 counted {mine['p90']} s, report {theirs['p90']} s; open {mine['open']} / {theirs['open']}")
    same = mine == theirs
    if not same:
        for i, (a, b) in enumerate(zip(mine["trend"], theirs["trend"], strict=False)):
            if a != b:
                print(f"first difference at commit {i}: counted {a}, report {b}")
                break
    print("agree" if same else "DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
