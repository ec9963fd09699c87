"""The docs site stays whole on real projects (issue 35): strict MkDocs and Sphinx builds of the
real docs of the replay bundles before and after `ground --all`, and after the next commits
replayed through the hook, with the tool's wording looked for in the rendered HTML.

For each project: clone its bundle (read-only data) into a scratch folder at the commit
`--commits` first-parent commits before its tip; build its docs strictly (`mkdocs build --strict`,
`sphinx-build -E -W --keep-going`) and keep the warnings; `init --wiki-dir DIR`, `ground --all`,
build again; then replay the following commits as a developer would, the code only (the docs'
own changes held back, as in the doc-recall benchmark, with the site's configuration): `git diff
C^1 C -- . ':!DIR'` applied to
the index, `openwiki-git hook` (the command pre-commit runs), the hook's own rewrites staged,
`git commit --no-verify`; build a third time. Printed per build: the warnings (new ones: not in
the first build, line numbers aside), and what readers see: the rendered pages' text (comments,
scripts and tags removed) searched for a marker label or the tool's words (stale, review,
openwiki, the warning sign), and the raw HTML for a citations block or a footnote marker.

The generators and each project's plugins come from the interpreter given by `--python` (its
environment must hold them: mkdocs, mkdocs-material, the projects' plugins, sphinx, myst-parser,
furo, ...; see the docs' requirements of each project); openwiki-git runs from this checkout.

Run: python bench/site_builds.py --python /path/to/venv/bin/python [--commits 30]
     [--project uvicorn|attrs|tenacity ...] [--scratch DIR] [--format json]
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = Path("/work/shared/testdata/replay")
PROJECTS = {
    # held: the docs' own files outside the wiki folder (the site's configuration), held back with it
    "uvicorn": {"wiki": "docs", "generator": "mkdocs", "source": ".", "held": "mkdocs.yml", "code": "."},
    "attrs": {"wiki": "docs", "generator": "sphinx", "source": "docs", "held": "docs", "code": "src"},
    "tenacity": {"wiki": "doc/source", "generator": "sphinx", "source": "doc/source", "held": "doc", "code": "."},
}
_LEAK = re.compile(r"c-[0-9a-f]{8}\b|openwiki|\bstale\b|awaits review|under review|⚠", re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_LINE_NO = re.compile(r":\d+:")


def sh(argv: list[str], cwd: Path, env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if check and p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({p.returncode}) in {cwd}:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def owg(repo: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT)}
    return sh([sys.executable, "-m", "openwiki_git", "-C", str(repo), *argv], repo, env, check=False)


def build(repo: Path, project: dict[str, str], python: str, out: Path) -> dict[str, Any]:
    bin_dir = str(Path(python).parent)
    # the clone's own package first (autodoc, a hook running its CLI), before an installed copy
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(repo / project["code"])}
    if out.exists():
        shutil.rmtree(out)
    if project["generator"] == "mkdocs":
        argv = [python, "-m", "mkdocs", "build", "--strict", "-d", str(out)]
    else:
        argv = [python, "-m", "sphinx", "-E", "-W", "--keep-going", "-b", "html", project["source"], str(out)]
    p = sh(argv, repo, env, check=False)
    lines = (p.stdout + p.stderr).splitlines()
    warnings = sorted({_LINE_NO.sub(":", ln.replace(str(repo) + "/", "")) for ln in lines if "WARNING" in ln or "ERROR" in ln})
    return {"rc": p.returncode, "warnings": warnings, **seen(out)}


def seen(out: Path) -> dict[str, Any]:
    leaks: dict[str, int] = {}
    raw_hits = 0
    pages = 0
    for page in sorted(out.rglob("*.html")) if out.is_dir() else []:
        if {"_static", "assets", "search", "_modules"} & set(page.relative_to(out).parts):
            continue
        pages += 1
        raw = page.read_text("utf-8", errors="replace")
        raw_hits += raw.count("openwiki-git:citations") + len(re.findall(r"\[\^c-[0-9a-f]{8}", raw))
        text = html.unescape(_TAG.sub(" ", _SCRIPT.sub("", _COMMENT.sub("", raw))))
        for m in _LEAK.finditer(text):
            leaks[m.group(0).lower()] = leaks.get(m.group(0).lower(), 0) + 1
    return {"pages": pages, "seen_by_readers": leaks, "raw_citations_or_footnotes": raw_hits}


def first_parent(repo: Path, tip: str, n: int) -> list[str]:
    return sh(["git", "rev-list", "--first-parent", f"-n{n + 1}", tip], repo).stdout.split()[::-1]


def replay(repo: Path, wiki: str, held: str, commits: list[str]) -> dict[str, int]:
    ident = ["-c", "user.name=Replay", "-c", "user.email=replay@example.invalid"]
    counts = {"commits": 0, "hook_stops": 0, "marked": 0}
    for c in commits:
        diff = sh(["git", "diff", "--binary", f"{c}^1", c, "--", ".", f":!{wiki}", f":!{held}"], repo).stdout
        if not diff.strip():
            continue
        applied = subprocess.run(["git", "apply", "--index", "--whitespace=nowarn"], input=diff, cwd=repo, text=True, capture_output=True)
        if applied.returncode != 0:
            sh(["git", "reset", "-q", "--hard"], repo)
            continue
        hooked = owg(repo, "hook")
        counts["hook_stops"] += hooked.returncode == 1
        sh(["git", "add", "-A", wiki], repo)
        sh(["git", *ident, "commit", "-q", "--no-verify", "--allow-empty", "-C", c], repo)
        counts["commits"] += 1
    report = json.loads(owg(repo, "check", "--format", "json").stdout or "{}")
    counts["marked"] = sum(1 for c in report.get("claims", ()) if c.get("mark"))
    counts["claims"] = len(report.get("claims", ()))
    return counts


def run_project(name: str, python: str, n: int, scratch: Path) -> dict[str, Any]:
    project = PROJECTS[name]
    repo = scratch / name
    if repo.exists():
        shutil.rmtree(repo)
    sh(["git", "clone", "-q", str(BUNDLES / f"{name}.bundle"), str(repo)], scratch)
    tip = sh(["git", "rev-parse", "HEAD"], repo).stdout.strip()
    chain = first_parent(repo, tip, n)
    sh(["git", "checkout", "-q", "-B", "replay", chain[0]], repo)
    out = scratch / f"{name}-site"
    result: dict[str, Any] = {"project": name, "base": chain[0][:12], "generator": project["generator"]}
    result["before"] = build(repo, project, python, out)
    owg(repo, "init", "--wiki-dir", project["wiki"])
    grounded = json.loads(owg(repo, "ground", "--all", "--format", "json").stdout)
    result["ground"] = {k: grounded["summary"][k] for k in ("references", "added", "broken", "ambiguous")}
    result["site"] = grounded.get("site")
    sh(["git", "add", "-A"], repo)
    sh(["git", "-c", "user.name=R", "-c", "user.email=r@example.invalid", "commit", "-q", "--no-verify", "-m", "grounded"], repo)
    result["after_ground"] = build(repo, project, python, out)
    result["replay"] = replay(repo, project["wiki"], project["held"], chain[1:])
    result["after_replay"] = build(repo, project, python, out)
    base = set(result["before"]["warnings"])
    for step in ("after_ground", "after_replay"):
        result[step]["new_warnings"] = [w for w in result[step]["warnings"] if w not in base]
        was = result["before"]["seen_by_readers"]
        result[step]["new_seen"] = {k: v - was.get(k, 0) for k, v in result[step]["seen_by_readers"].items() if v > was.get(k, 0)}
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", required=True, help="an interpreter whose environment holds the generators and plugins")
    ap.add_argument("--commits", type=int, default=30)
    ap.add_argument("--project", action="append", choices=sorted(PROJECTS))
    ap.add_argument("--scratch", type=Path)
    ap.add_argument("--format", choices=["text", "json"], default="text")
    args = ap.parse_args(argv)
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="site-builds-"))
    scratch.mkdir(parents=True, exist_ok=True)
    results = [run_project(name, args.python, args.commits, scratch) for name in args.project or sorted(PROJECTS)]
    if args.format == "json":
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print(f"{r['project']} ({r['generator']}, base {r['base']}): ground {r['ground']}; replay {r['replay']}")
        for step in ("before", "after_ground", "after_replay"):
            b = r[step]
            new = "" if step == "before" else f", {len(b['new_warnings'])} new; new to readers: {b['new_seen'] or 'nothing'}"
            print(f"  {step:13} exit {b['rc']}, {len(b['warnings'])} warning(s){new}; {b['pages']} pages; "
                  f"readers see {b['seen_by_readers'] or 'nothing of the tool'}; citations blocks or footnotes in the HTML: "
                  f"{b['raw_citations_or_footnotes']}")
            for w in b.get("new_warnings", [])[:5]:
                print(f"    new: {w[:200]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
