"""Code examples on real docs (issue 32, item 3): how many examples `ground` finds, guards and leaves
alone (and why), and how the calls they make resolve, on the replay bundles' Markdown docs.

For each project and commit: clone the bundle (`/work/shared/testdata/replay/<name>.bundle`) into a
scratch folder, check the commit out, `openwiki-git init --wiki-dir docs`, and run `ground --plan
--format json` on every Markdown page of `docs/` but the release notes (a plan writes nothing). The
figures are counts read from the report's `summary.examples`:

- examples found (python/py/pycon/console/shell blocks and `>>>` blocks), guarded (a claim proposed),
  left alone, by reason;
- calls (and imported names, and a console's options and dotted names) of the project's packages:
  resolved to one definition, ambiguous, broken, unknown (a framework's `--help`, an option of the
  user's own program, a name the resolver does not know);
- with `--sample N`, N guarded examples drawn at random (seeded) with their code and evidence, to
  judge by hand whether the cited heads cover what the example depends on.

Run: python bench/bench_examples.py [--project uvicorn|typer|attrs]... [--rev REV] [--sample N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BUNDLES = Path("/work/shared/testdata/replay")
PROJECTS = ("uvicorn", "typer", "attrs")
NOTES = ("release-notes", "changelog", "history", "changes", "news")


def git(cwd: Path, *argv: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *argv], capture_output=True, text=True, check=True).stdout


def owg(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openwiki_git", *argv], cwd=cwd, capture_output=True, text=True)


def measure(name: str, rev: str | None, scratch: Path) -> dict[str, Any]:
    work = scratch / name
    subprocess.run(["git", "clone", "-q", str(BUNDLES / f"{name}.bundle"), str(work)], check=True, capture_output=True)
    if rev:
        git(work, "checkout", "-q", rev)
    commit = git(work, "rev-parse", "--short=12", "HEAD").strip()
    if owg(work, "init", "--wiki-dir", "docs").returncode != 0:
        raise SystemExit(f"bench_examples: {name}: init failed")
    pages = sorted(
        p.removeprefix("docs/") for p in git(work, "ls-files", "docs").split()
        if p.endswith(".md") and not any(n in p.lower() for n in NOTES)
    )
    done = owg(work, "ground", "--plan", "--format", "json", *pages)
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench_examples: {name}: ground --plan exited {done.returncode}: {done.stderr.strip()}")
    data = json.loads(done.stdout)
    guarded = [
        {"page": p["page_path"], **a, "code": _code(work / p["page_path"], a["line"])}
        for p in data["pages"] for a in p["examples"]["added"]
    ]
    return {"project": name, "commit": commit, "pages": len(pages), "examples": data["summary"]["examples"], "guarded": guarded}


def _code(path: Path, line: int) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = [lines[line - 1]]
    fence = lines[line - 1].strip()[:3]
    for ln in lines[line:]:
        out.append(ln)
        if fence in ("```", "~~~") and ln.strip().startswith(fence):
            break
        if fence not in ("```", "~~~") and not ln.strip():
            break
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--project", action="append", choices=PROJECTS, help="a bundle (default: uvicorn and typer)")
    p.add_argument("--rev", help="the commit to ground (default: the bundle's last)")
    p.add_argument("--sample", type=int, default=0, help="show N guarded examples drawn at random, to judge by hand")
    p.add_argument("--json", type=Path, help="write every figure and every guarded example as JSON")
    args = p.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-examples-", dir="/work/scratch" if Path("/work/scratch").is_dir() else None) as tmp:
        for name in args.project or ["uvicorn", "typer"]:
            results.append(measure(name, args.rev, Path(tmp)))
    print("| project @ commit | pages | examples | guarded | left alone (why) | calls resolved | ambiguous | broken | unknown |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        e = r["examples"]
        why = ", ".join(f"{n} {k}" for k, n in e["left_alone"].items()) or "-"
        c = e["calls"]
        print(f"| {r['project']} @ {r['commit']} | {r['pages']} | {e['found']} | {e['guarded']} | {e['found'] - e['guarded']}: {why} "
              f"| {c['resolved']} | {c['ambiguous']} | {c['broken']} | {c['unknown']} |")
    if args.sample:
        rng = random.Random(32)
        pool = [(r["project"], g) for r in results for g in r["guarded"]]
        for project, g in rng.sample(pool, min(args.sample, len(pool))):
            print(f"\n## {project} {g['page']}:{g['line']}\n{g['code']}\n-> " + "\n-> ".join(g["evidence"]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
