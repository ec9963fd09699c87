"""Replay a real project's history through the real pre-commit hook (issue 12, point 6).

The data: `/work/shared/testdata/replay/attrs.bundle` (python-attrs, MIT), cloned into a temporary
directory (the bundle is never written). At `bench/replay_data/claims.json`'s base commit, the
harness writes the wiki a user would: the hand-written pages of `bench/replay_data/pages/`, and
every claim of `claims.json` added with `openwiki-git claim add` (so ids and tokens are real;
every statement was checked by hand against the cited lines at the base commit). It installs the
real pre-commit (`pre-commit install -c <config>`, a `repo: local` hook running this checkout's
code, or `--code REV`'s), then replays the next first-parent commits one at a time, as a developer
would: `git diff --binary C^1 C | git apply --index`, `git commit -C C`, and after a stop
`git add .openwiki` and `git commit` again (at most `--cap` runs; then --no-verify, counted).

Printed (text, or `--format json`):

- commits stopped (a `git commit` that failed at least once), and those stopped although no claim
  was newly marked in that commit;
- `git commit` runs per commit: max, and how many commits needed a third run;
- claims reported unresolved although their verified text is still in the file (exactly, or
  "edited in place": at least half of its non-blank lines still there);
- evidence ranges grown past the bound, max(2x, +10 lines) of the size cited at the base;
- the hook's wall time per run (median, max), measured around the hook process;
- `check` and `check --base HEAD^ --head HEAD` agreement on the claims each commit touched, and
  the hook's marks against both;
- the status of every claim at the end, and against the hand labels of
  `bench/replay_data/labels.json` (for each claim whose cited text changed during the replay:
  does the statement still hold at the end?): flagged and false (a needed flag), flagged and
  true (a needless one), fresh and false (a miss).

Run: python bench/replay.py [--commits 110] [--rev BASE] [--code REV] [--format json]
     [--set key=value ...] [--keep DIR]
Takes a few minutes on two cores (about 3 processes per commit).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "replay_data"
BUNDLE = Path("/work/shared/testdata/replay/attrs.bundle")
WIKI = ".openwiki"
CAP = 5

HOOK_WRAPPER = """\
import json, os, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.call([sys.executable, "-m", "openwiki_git", "hook", *sys.argv[1:]])
with open(os.environ["REPLAY_HOOK_LOG"], "a") as f:
    f.write(json.dumps({"wall": time.perf_counter() - t, "rc": rc}) + "\\n")
sys.exit(rc)
"""

PRE_COMMIT_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: openwiki-git
        name: openwiki-git (mark stale claims)
        entry: {python} {wrapper}
        language: unsupported
        pass_filenames: false
        always_run: true
        require_serial: true
"""


class Replay:
    """A clone of a bundle replayed through the real pre-commit hook (bench/doc_recall.py uses it
    on other projects, with their docs folder as the wiki and another tree's code)."""

    def __init__(self, work: Path, code: Path, settings: list[str], *, bundle: Path = BUNDLE, name: str = "attrs",
                 wiki: str = WIKI, python: str = sys.executable) -> None:
        self.work = work
        self.repo = work / name
        self.bundle = bundle
        self.wiki = wiki
        self.python = python
        self.code = code
        self.settings = settings
        self.log = work / "hook-log.jsonl"
        home = work / "home"
        home.mkdir()
        self.env = {
            **os.environ,
            "HOME": str(home),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "Replay",
            "GIT_AUTHOR_EMAIL": "replay@example.invalid",
            "GIT_COMMITTER_NAME": "Replay",
            "GIT_COMMITTER_EMAIL": "replay@example.invalid",
            "PRE_COMMIT_HOME": str(work / "pre-commit-home"),
            "PRE_COMMIT_COLOR": "never",
            "PYTHONPATH": str(code),
            "REPLAY_HOOK_LOG": str(self.log),
        }
        self.env.pop("SKIP", None)
        self.env.pop("GIT_INDEX_FILE", None)

    # -- processes ----------------------------------------------------------------------------
    def run(self, *argv: str, check: bool = True, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        p = subprocess.run(argv, cwd=self.repo, env=self.env, input=stdin, capture_output=True, check=False)
        if check and p.returncode != 0:
            sys.exit(f"replay: {' '.join(argv[:4])} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
        return p

    def git(self, *argv: str, check: bool = True) -> str:
        return self.run("git", *argv, check=check).stdout.decode()

    def tool(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        return self.run(self.python, "-m", "openwiki_git", *argv, check=check)

    # -- setup --------------------------------------------------------------------------------
    def clone(self, base: str) -> None:
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(self.bundle), str(self.repo)], env=self.env, check=True)
        self.git("checkout", "-q", "-B", "replay", base)

    def first_parents_after(self, base: str, n: int) -> list[str]:
        line = self.git("rev-list", "--first-parent", "--reverse", "origin/HEAD").split()
        if base not in line:
            sys.exit(f"replay: --rev {base[:12]} is not on the first-parent line of the bundle's main")
        after = line[line.index(base) + 1 :]
        return after[:n]

    def write_wiki(self, claims: list[dict[str, Any]]) -> dict[str, str]:
        """The hand-written pages, then every claim through `claim add`: key -> claim id."""
        self.tool("-C", str(self.repo), "init", "--wiki-dir", WIKI)  # attrs has docs/conf.py: name the wiki, as a user must
        cfg = self.repo / WIKI / "config.yml"
        if self.settings:
            cfg.write_text(cfg.read_text() + "".join(f"{s.replace('=', ': ', 1)}\n" for s in self.settings))
        for page in sorted((DATA / "pages").glob("*.md")):
            shutil.copy(page, self.repo / WIKI / page.name)
        ids: dict[str, str] = {}
        for c in claims:
            argv = ["-C", str(self.repo), "claim", "add", "--page", c["page"], "--statement", c["statement"], "--by", "human:replay"]
            for e in c["evidence"]:
                argv += ["--evidence", e]
            ids[c["key"]] = self.tool(*argv).stdout.decode().split()[0]
        self.git("add", "-A", WIKI)
        self.git("commit", "-q", "--no-verify", "-m", "docs: a wiki of attrs' core (openwiki-git replay)")
        self.install_hook()
        return ids

    def install_hook(self) -> None:
        """The real pre-commit, installed with a `repo: local` hook running `self.python -m
        openwiki_git hook` (the code on PYTHONPATH), timed by HOOK_WRAPPER."""
        wrapper = self.work / "hook_wrapper.py"
        wrapper.write_text(HOOK_WRAPPER)
        config = self.repo / ".git" / "replay-pre-commit.yaml"
        config.write_text(PRE_COMMIT_CONFIG.format(python=self.python, wrapper=wrapper))
        self.run(sys.executable, "-m", "pre_commit", "install", "-c", str(config))

    # -- one commit ---------------------------------------------------------------------------
    def replay(self, commit: str, cap: int, pathspec: tuple[str, ...] = ()) -> tuple[int, bool, list[str]]:
        """(git commit runs, gave up, the hook's output of the first run). `pathspec` limits the
        change applied (doc_recall: everything but the docs)."""
        diff = self.run("git", "diff", "--binary", f"{commit}^1", commit, "--", *pathspec).stdout
        if diff:
            self.run("git", "apply", "--index", "--whitespace=nowarn", stdin=diff)
        first_output: list[str] = []
        for runs in range(1, cap + 1):
            p = self.run("git", "commit", "-q", "--allow-empty", "--no-edit", "-C", commit, check=False)
            if runs == 1:
                first_output = [ln for ln in (p.stdout + p.stderr).decode(errors="replace").splitlines() if "claim_" in ln]
            if p.returncode == 0:
                return runs, False, first_output
            self.git("add", "-A", "--", self.wiki)  # what a developer does after the hook stops
        self.git("add", "-A", "--", self.wiki)
        self.git("commit", "-q", "--allow-empty", "--no-verify", "--no-edit", "-C", commit)
        return cap, True, first_output

    def sidecar_claims(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for path in sorted((self.repo / WIKI / ".claims").glob("**/*.json")):
            for c in json.loads(path.read_text())["claims"]:
                out[c["id"]] = c
        return out

    def check(self, *extra: str) -> dict[str, Any]:
        p = self.tool("-C", str(self.repo), "check", "--format", "json", *extra, check=False)
        try:
            return json.loads(p.stdout) if p.returncode in (0, 1) else {"error": p.stderr.decode(errors="replace")[-500:], "claims": []}
        except json.JSONDecodeError:
            return {"error": p.stdout.decode(errors="replace")[-500:], "claims": []}


def _range(resource: str) -> tuple[str, int, int] | None:
    m = re.fullmatch(r"repo://(.+)#L(\d+)-L(\d+)", resource)
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def _text_present(repo: Path, path: str, verified: str) -> str | None:
    """'exact' when the verified text is in the file as it is now, 'edited' when at least half of
    its non-blank lines still are, else None."""
    try:
        text = (repo / path).read_text(errors="replace")
    except OSError:
        return None
    if verified in text:
        return "exact"
    wanted = {ln.strip() for ln in verified.splitlines() if ln.strip()}
    have = {ln.strip() for ln in text.splitlines()}
    if wanted and len(wanted & have) * 2 >= len(wanted):
        return "edited"
    return None


def _bound(n: int) -> int:
    return max(2 * n, n + 10)


def _code_dir(rev: str | None, work: Path, root: Path = ROOT) -> Path:
    """A copy of `root`'s package (default: this checkout's; edits made while the replay runs do
    not reach it), or REV of that repository exported to a temporary directory; compiled, as `pip
    install` leaves it (else, with PYTHONDONTWRITEBYTECODE set, every hook run would compile the
    modules it imports, and the hook's time would follow the package's size)."""
    dest = work / "code"
    dest.mkdir()
    if rev is None:
        shutil.copytree(root / "openwiki_git", dest / "openwiki_git", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev, "openwiki_git"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    compileall.compile_dir(str(dest / "openwiki_git"), quiet=1)
    return dest


def measure(args: argparse.Namespace) -> dict[str, Any]:
    spec = json.loads((DATA / "claims.json").read_text())
    labels = json.loads((DATA / "labels.json").read_text())["claims"] if (DATA / "labels.json").exists() else {}
    base = args.rev or spec["base"]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="openwiki-replay-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return _measure(args, spec, labels, base, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def _measure(args: argparse.Namespace, spec: dict[str, Any], labels: dict[str, Any], base: str, work: Path) -> dict[str, Any]:
    r = Replay(work, _code_dir(args.code, work), args.set or [])
    r.clone(base)
    base = r.git("rev-parse", "HEAD").strip()
    commits = r.first_parents_after(base, args.commits)
    claims = spec["claims"]
    # The verified text of every evidence item, read at the base (before the wiki exists).
    verified: dict[tuple[str, int], tuple[str, str, int]] = {}
    for c in claims:
        for i, e in enumerate(c["evidence"]):
            rng = _range(e)
            assert rng is not None, e
            path, a, b = rng
            lines = (r.repo / path).read_text().split("\n")
            verified[(c["key"], i)] = (path, "\n".join(lines[a - 1 : b]), b - a + 1)
    ids = r.write_wiki(claims)
    key_of = {v: k for k, v in ids.items()}
    wiki_commit = r.git("rev-parse", "HEAD").strip()

    per_commit: list[dict[str, Any]] = []
    unresolved_present: dict[str, dict[str, Any]] = {}
    grown: dict[str, dict[str, Any]] = {}
    disagreements: list[dict[str, Any]] = []
    ever_flagged: dict[str, str] = {}  # key -> first commit that marked it
    before = r.sidecar_claims()
    t0 = time.perf_counter()
    for n, commit in enumerate(commits, 1):
        runs, gave_up, first_output = r.replay(commit, args.cap)
        after = r.sidecar_claims()
        newly = sorted(key_of[cid] for cid, c in after.items() if c.get("mark") and not (before.get(cid) or {}).get("mark"))
        for k in newly:
            ever_flagged.setdefault(k, commit)
        check = r.check()
        ci = r.check("--base", "HEAD^", "--head", "HEAD")
        by_check = {c["id"]: c for c in check.get("claims", [])}
        for c in ci.get("claims", []):
            mine = by_check.get(c["id"])
            hook_status = ((after.get(c["id"]) or {}).get("mark") or {}).get("status", "fresh")
            if mine is None or mine["status"] != c["status"] or hook_status != c["status"]:
                disagreements.append({
                    "commit": commit[:10], "claim": key_of.get(c["id"], c["id"]), "check": mine and mine["status"],
                    "check_base": c["status"], "hook_mark": hook_status,
                })
        for c in check.get("claims", []):
            key = key_of.get(c["id"])
            if key is None:
                continue
            for i, ev in enumerate(c["evidence"]):
                if ev["status"] == "unresolved":
                    path, text, _ = verified[(key, i)]
                    found = _text_present(r.repo, path, text)
                    if found is not None:
                        unresolved_present.setdefault(key, {"commit": commit[:10], "text": found, "reason": ev["reason"]})
        for cid, c in after.items():
            key = key_of.get(cid)
            if key is None:
                continue
            for i, ev in enumerate(c["evidence"]):
                rng = _range(ev["resource"])
                size = verified[(key, i)][2]
                if rng is not None and rng[2] - rng[1] + 1 > _bound(size):
                    entry = grown.setdefault(f"{key}#{i}", {"commit": commit[:10], "cited": size, "max": 0})
                    entry["max"] = max(entry["max"], rng[2] - rng[1] + 1)
        per_commit.append({
            "n": n, "commit": commit[:10], "runs": runs, "gave_up": gave_up, "newly_marked": newly,
            "hook_said": first_output[:5],
        })
        before = after
        if args.progress:
            print(f"[{n}/{len(commits)}] {commit[:10]} runs={runs} new={newly}", file=sys.stderr)
    elapsed = time.perf_counter() - t0

    hook_runs = [json.loads(ln) for ln in r.log.read_text().splitlines()] if r.log.exists() else []
    walls = [h["wall"] for h in hook_runs]
    final = r.check()
    final_ci = r.check("--base", wiki_commit, "--head", "HEAD")
    ci_status = {c["id"]: c["status"] for c in final_ci.get("claims", [])}
    status_rows = []
    label_counts = {"flagged_false": 0, "flagged_true": 0, "fresh_false": 0, "fresh_true": 0, "flagged_unlabelled": 0}
    needless: list[str] = []
    for c in final.get("claims", []):
        key = key_of.get(c["id"], c["id"])
        label = labels.get(key, {})
        flagged = c["status"] != "fresh"
        verdict = label.get("verdict")
        if flagged and verdict == "false":
            label_counts["flagged_false"] += 1
        elif flagged and verdict == "true":
            label_counts["flagged_true"] += 1
            needless.append(key)
        elif flagged:
            label_counts["flagged_unlabelled"] += 1
        elif verdict == "false":
            label_counts["fresh_false"] += 1
        elif verdict == "true":
            label_counts["fresh_true"] += 1
        status_rows.append({
            "claim": key, "id": c["id"], "status": c["status"], "check_base": ci_status.get(c["id"]),
            "where": [e.get("current_resource") or e["resource"] for e in c["evidence"]],
            "reason": "; ".join(e["reason"] for e in c["evidence"] if e["status"] != "fresh"),
            "label": verdict, "first_marked": (ever_flagged.get(key) or "")[:10] or None,
        })
    stopped = [p for p in per_commit if p["runs"] > 1]
    return {
        "code": args.code or "working tree (copied at the start)",
        "base": base[:12],
        "commits": len(commits),
        "claims": len(ids),
        "settings": args.set or [],
        "commits_stopped": len(stopped),
        "commits_stopped_without_new_mark": sum(1 for p in stopped if not p["newly_marked"]),
        "commits_with_new_mark": sum(1 for p in per_commit if p["newly_marked"]),
        "runs_max": max((p["runs"] for p in per_commit), default=0),
        "commits_needing_third_run": sum(1 for p in per_commit if p["runs"] >= 3),
        "commits_given_up": sum(1 for p in per_commit if p["gave_up"]),
        "unresolved_with_text_present": unresolved_present,
        "ranges_grown_past_bound": grown,
        "hook_runs": len(walls),
        "hook_wall_median_s": round(statistics.median(walls), 3) if walls else None,
        "hook_wall_max_s": round(max(walls), 3) if walls else None,
        "disagreements": disagreements,
        "final_summary": final.get("summary"),
        "final_check_vs_check_base": sum(1 for c in final.get("claims", []) if c["id"] in ci_status and ci_status[c["id"]] != c["status"]),
        "labels": label_counts,
        "needless_flags": needless,
        "final_status": status_rows,
        "per_commit": per_commit,
        "replay_seconds": round(elapsed, 1),
    }


def to_text(d: dict[str, Any]) -> str:
    out = [
        f"replay of {d['commits']} first-parent commits after {d['base']} of attrs, {d['claims']} claims, code: {d['code']}"
        + (f", settings: {', '.join(d['settings'])}" if d["settings"] else ""),
        f"commits stopped by the hook:                  {d['commits_stopped']}",
        f"  of which no claim was newly marked:         {d['commits_stopped_without_new_mark']}",
        f"commits that newly marked a claim:            {d['commits_with_new_mark']}",
        f"git commit runs per commit: max {d['runs_max']}, commits needing a third run: {d['commits_needing_third_run']}"
        + (f", given up after {CAP}: {d['commits_given_up']}" if d["commits_given_up"] else ""),
        f"claims unresolved although their text is present: {len(d['unresolved_with_text_present'])}",
    ]
    for k, v in d["unresolved_with_text_present"].items():
        out.append(f"    {k} at {v['commit']} (text {v['text']}): {v['reason']}")
    out.append(f"evidence ranges grown past max(2x, +10):      {len(d['ranges_grown_past_bound'])}")
    for k, v in d["ranges_grown_past_bound"].items():
        out.append(f"    {k} at {v['commit']}: cited {v['cited']} lines, grew to {v['max']}")
    out.append(f"hook wall time: median {d['hook_wall_median_s']} s, max {d['hook_wall_max_s']} s over {d['hook_runs']} runs")
    out.append(f"hook / check / check --base disagreements on touched claims: {len(d['disagreements'])}")
    for x in d["disagreements"][:15]:
        out.append(f"    {x['commit']} {x['claim']}: check {x['check']}, check --base {x['check_base']}, hook mark {x['hook_mark']}")
    out.append(f"final check vs check --base (whole replay) disagreements: {d['final_check_vs_check_base']}")
    s = d["final_summary"] or {}
    out.append(f"at the end: {s.get('fresh')} fresh, {s.get('stale')} stale, {s.get('unresolved')} unresolved")
    lab = d["labels"]
    out.append(
        f"hand labels: flagged and false {lab['flagged_false']}, flagged but still true {lab['flagged_true']}, "
        f"fresh but false {lab['fresh_false']}, flagged unlabelled {lab['flagged_unlabelled']}"
    )
    if d["needless_flags"]:
        out.append(f"    flagged but true: {', '.join(d['needless_flags'])}")
    out.append("status of every claim at the end:")
    for row in d["final_status"]:
        where = ", ".join(w.removeprefix("repo://") for w in row["where"])
        extra = f" ({row['reason']})" if row["reason"] else ""
        label = f" [label: {row['label']}]" if row["label"] else ""
        out.append(f"    {row['status']:<10} {row['claim']:<22} {where}{extra}{label}")
    out.append(f"replayed in {d['replay_seconds']} s")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rev", help="the base commit (default: claims.json's base; the claims cite its lines)")
    p.add_argument("--commits", type=int, default=110, help="how many first-parent commits to replay (default 110)")
    p.add_argument("--code", metavar="REV", help="run this repository's REV (e.g. main) instead of the working tree")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="a line added to .openwiki/config.yml (repeatable)")
    p.add_argument("--cap", type=int, default=CAP, help=f"git commit runs before giving up on a commit (default {CAP})")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (the clone, the hook log)")
    p.add_argument("--progress", action="store_true", help="one line per commit on stderr")
    args = p.parse_args(argv)
    if not BUNDLE.is_file():
        print(f"replay: {BUNDLE} not found", file=sys.stderr)
        return 2
    data = measure(args)
    sys.stdout.write(json.dumps(data, indent=2) + "\n" if args.format == "json" else to_text(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
