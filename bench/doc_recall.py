"""Doc recall on real histories (issue 32, "Measured"): of the doc text that a code change made
false, how much does the wiki flag, and how many needless marks does it cost?

Run (from a checkout with its venv active; every figure is a count but the two timings):

    python bench/doc_recall.py                              # every project's default windows, this checkout's code
    python bench/doc_recall.py --project uvicorn --show     # one project, with every missed truth item and why
    python bench/doc_recall.py --tree /work/wt/ground       # measure another branch's worktree
    python bench/doc_recall.py --tree DIR --python DIR_VENV/bin/python   # ... with its own venv (new dependencies)
    python bench/doc_recall.py --project typer --base REV --commits 40  # a window of your own
    python bench/doc_recall.py --json result.json           # the full result as JSON as well
    python bench/doc_recall.py --project attrs --keep       # keep each window's clone and hook log to look at
    python bench/doc_recall.py --scan uvicorn --from 1000 --to 1060     # truth items per first-parent commit

For each window (a base commit and the N first-parent commits after it) of `uvicorn`, `typer` or
`attrs` (`/work/shared/testdata/replay/*.bundle`, cloned once into /work/scratch/recall/cache/):

1. check out the base; `openwiki-git init --wiki-dir docs`; `ground --all` (again with
   `--add-front-matter` only if the first run exits 2: the result says which); commit; install
   the real pre-commit with a `repo: local` hook running `python -m openwiki_git hook` from a
   copy of the tree under test (bench/replay.py's Replay and HOOK_WRAPPER);
2. replay each first-parent commit's changes except the docs (`docs/`, release notes and
   changelogs anywhere, and a project's doc sources such as typer's `docs_src/`) through a real
   `git commit` with the hook (re-run once the hook stopped it, as a developer would);
3. after each commit, `check --format json`: a claim not fresh (stale, unresolved, broken) is
   flagged, and so is a broken reference that commit made; then a reviewer confirms every
   flagged claim (`claim confirm --by human:doc-recall`), so each commit is judged on its own
   change (a claim confirm refuses stays flagged, "held", and catches nothing later). Each window
   works in a folder of its own under /work/scratch/recall/runs/ (removed at the end unless
   `--keep`), so runs on several trees may go on at once.

The truth (bench/doc_recall_truth.py): the prose sentences and the fenced code examples of the
docs' Markdown pages (release notes excluded) that upstream removed or rewrote (a word, or a line
of code, differs; re-wrapping and markup do not count) in a commit of the window that also
changed the package's code. Such an item is **caught** when, after that commit, the paragraph,
list item or example holding it in the wiki (or its section's heading) carries a claim flagged by
that commit. Items that upstream added during the window are not in the wiki (the docs were held
back): counted as "not in the wiki", not scored. reST pages and included example files are
counted, not scored.

**Noise per catch**: flags whose sentence (or example) upstream kept word for word to the
window's end, per item caught (every flag counts: a claim flagged by three commits cost three
reviews). Also printed: claims made, sentences carrying two or more claims after `ground --all`,
`ground --all`'s wall time, the hook's median time per commit (first run), flags per commit (the
largest), and with `--show` each missed item with why (no claim on it, with what it names; or a
claim that was not flagged, with what it cites). Timings are noisy on a shared machine; the goals
are counts.

Exit 0 when every window meets the issue's goals (recall of sentences and of examples at least
0.9, noise per catch at most 3, no sentence with two claims), 1 when one does not (or a window
holds no truth item: nothing measured is no pass), 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.doc_recall_truth import (  # noqa: E402
    Block,
    Corpus,
    Item,
    block_at,
    blocks,
    guarded_by,
    home,
    is_notes,
    marker_line,
    padded,
    truth,
)
from bench.doc_recall_why import missed_reason, top_reasons  # noqa: E402
from bench.replay import Replay, _code_dir  # noqa: E402

SCRATCH = Path("/work/scratch/recall")
BUNDLES = Path("/work/shared/testdata/replay")
DOCS = "docs"
CAP = 3
GOAL_RECALL = 0.9
GOAL_NOISE = 3.0
REVIEWER = "human:doc-recall"


@dataclass(frozen=True)
class Window:
    base: str  # the commit grounded
    commits: int  # first-parent commits replayed after it
    why: str


@dataclass(frozen=True)
class Project:
    code: tuple[str, ...]  # the package: a commit changing a .py/.pyi under these changes its code
    held: tuple[str, ...]  # held back besides docs/ and the release notes: the docs' own sources
    windows: tuple[Window, ...]


# The default windows: first-parent stretches in which several commits change the package's code
# and rewrite sentences or examples of the docs together (found with --scan; counts as of the
# harness's truth rules, "in the wiki" = present in the docs at the base).
PROJECTS = {
    "uvicorn": Project(("uvicorn/",), (), (
        Window("70ef84ca55b8", 40, "2022-05..2022-07, 3 commits changing the code and rewriting doc text (`run` annotated, "
                                   "watchgod replaced by watchfiles, h11's max incomplete event size): 5 sentences, 2 examples "
                                   "(the --help output quoted twice)"),
        Window("12c9ee389825", 40, "2024-04..2024-10, 3 commits changing the code and rewriting doc text (the new multiprocess "
                                   "manager, 100% coverage, ProxyHeadersMiddleware reworked): 10 sentences, 2 examples (the --help "
                                   "output quoted twice)"),
    )),
    "typer": Project(("typer/",), ("docs_src/",), (
        Window("ffae793a141c", 40, "2026-02: typer-slim made a shallow wrapper around typer, tracebacks without locals by "
                                   "default: 2 commits, 41 sentences and 6 examples"),
    )),
    "attrs": Project(("src/",), ("changelog.d/",), (
        Window("52893141dbae", 40, "2024-07..08: faster __eq__, f-strings, the API docs inverted, __attrs_init_subclass__: "
                                   "4 commits, 4 sentences and 1 example"),
        Window("359c2db460f4", 55, "2023-04..07: `type` re-added to attrs.field, literal strings in include/exclude filters, "
                                   "typing.dataclass_transform: 3 commits, 4 sentences (3 in the docs at the base) and 4 examples"),
    )),
}


# -- the upstream history -------------------------------------------------------------------------
class Upstream:
    """A project's history, read from a bare clone of its bundle (made once, then reused)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.git_dir = SCRATCH / "cache" / f"{name}.git"
        self.project = PROJECTS[name]
        if not (self.git_dir / "HEAD").exists():
            self.git_dir.parent.mkdir(parents=True, exist_ok=True)
            made = Path(tempfile.mkdtemp(prefix=f"{name}.git.", dir=self.git_dir.parent))
            subprocess.run(["git", "init", "-q", "--bare", str(made)], check=True)
            subprocess.run(["git", "-C", str(made), "fetch", "-q", str(BUNDLES / f"{name}.bundle"), "HEAD:refs/heads/main"], check=True)
            subprocess.run(["git", "-C", str(made), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
            try:
                made.rename(self.git_dir)  # atomic: a run started at the same time uses one or the other
            except OSError:
                shutil.rmtree(made, ignore_errors=True)
        self._blobs: dict[str, str] = {}
        self._corpora: dict[tuple[str, bool], Corpus] = {}
        self._cat = subprocess.Popen(["git", "-C", str(self.git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)

    def git(self, *argv: str) -> str:
        return subprocess.run(["git", "-C", str(self.git_dir), *argv], capture_output=True, text=True, check=True).stdout

    def rev(self, name: str) -> str:
        return self.git("rev-parse", "--verify", f"{name}^{{commit}}").strip()

    def first_parents(self) -> list[str]:
        return self.git("rev-list", "--first-parent", "--reverse", "HEAD").split()

    def changed(self, commit: str) -> list[str]:
        return self.git("diff", "--no-renames", "--name-only", f"{commit}^1", commit).splitlines()

    def blob(self, oid: str) -> str:
        if oid not in self._blobs:
            assert self._cat.stdin is not None and self._cat.stdout is not None
            self._cat.stdin.write(oid.encode() + b"\n")
            self._cat.stdin.flush()
            size = int(self._cat.stdout.readline().split()[2])
            self._blobs[oid] = self._cat.stdout.read(size + 1)[:-1].decode(errors="replace")
        return self._blobs[oid]

    def pages(self, rev: str, suffix: str = ".md") -> dict[str, str]:
        """The docs folder's pages at `rev`."""
        out = {}
        for line in self.git("ls-tree", "-r", rev, "--", DOCS).splitlines():
            meta, path = line.split("\t", 1)
            if path.endswith(suffix) and meta.split()[1] == "blob":
                out[path] = self.blob(meta.split()[2])
        return out

    def corpus(self, rev: str, notes: bool = False) -> Corpus:
        """The docs at `rev` for the "still there?" tests (with the release notes: for the noise)."""
        if (rev, notes) not in self._corpora:
            self._corpora[(rev, notes)] = Corpus.of(self.pages(rev), notes)
        return self._corpora[(rev, notes)]

    def is_code(self, path: str) -> bool:
        return path.startswith(self.project.code) and path.endswith((".py", ".pyi"))

    def is_held(self, path: str) -> bool:
        return path.startswith((DOCS + "/", *self.project.held)) or is_notes(path)

    def truth(self, commit: str) -> tuple[list[Item], dict[str, int]]:
        """The truth items of one commit (none unless it changed the package's code), and what
        it changed that is counted but not scored."""
        changed = self.changed(commit)
        if not any(self.is_code(p) for p in changed):
            return [], {}
        before = self.pages(f"{commit}^1")
        items: list[Item] = []
        for path in changed:
            if path.endswith(".md") and path.startswith(DOCS + "/") and not is_notes(path) and path in before:
                items += truth(path, before[path], self.corpus(commit))
        info = {"rst pages changed (not scored)": sum(1 for p in changed if p.startswith(DOCS + "/") and p.endswith(".rst")),
                "doc source files changed (not scored)": sum(1 for p in changed if p.startswith(self.project.held))}
        return items, {k: v for k, v in info.items() if v}


# -- the replay ------------------------------------------------------------------------------------
CONFIRM = """\
import json, runpy, sys
repo, out, by, *ids = sys.argv[1:]
result = {}
for cid in ids:
    sys.argv = ["openwiki-git", "-C", repo, "claim", "confirm", cid, "--by", by]
    try:
        runpy.run_module("openwiki_git", run_name="__main__", alter_sys=True)
        result[cid] = 0
    except SystemExit as e:
        result[cid] = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
with open(out, "w") as f:
    json.dump(result, f)
"""


@dataclass
class Claim:
    id: str
    page: str  # repository path
    statement: str
    marker: str  # as `check --format json` spells it ([^c-1a2b3c4d], or a tree's own form)
    resources: list[str]
    line: int | None = None  # the 0-based page line of its marker
    block: Block | None = None  # the block it guards


@dataclass
class State:
    """What one `check --format json` says: the claims, the flagged ones, the broken references."""

    claims: dict[str, Claim]
    flagged: set[str]
    broken: dict[tuple[str, int, str], str]  # (page path, line, reference) -> statement

    @classmethod
    def of(cls, report: dict[str, Any]) -> State:
        if "error" in report:
            raise SystemExit(f"doc_recall: check failed: {report['error']}")
        claims = {}
        for c in report.get("claims", []):
            marker = c.get("marker") or f"[^c-{c['id'].removeprefix('claim_')[:8]}]"
            claims[c["id"]] = Claim(c["id"], c["page_path"], c["statement"], marker, [e["resource"] for e in c.get("evidence", [])])
        flagged = {c["id"] for c in report.get("claims", []) if c.get("status", "fresh") != "fresh"}
        broken = {(b.get("page_path", ""), int(b.get("line") or 0), b.get("reference", "")): b.get("statement", "")
                  for b in report.get("broken_references", [])}
        return cls(claims, flagged, broken)


_EXAMPLE_STATEMENT = re.compile(r"The [\w-]+ example starting `.*` \(\d+ lines?\) works with the code as it is\.")


def multi_claims(claims: dict[str, Claim]) -> dict[str, int]:
    """Sentences carrying two or more claims after `ground --all` (a claim's statement is its
    sentence): how many, and how many claims they carry. An example's claim is its example's,
    where its marker is: two examples of a page that start alike and are as long share a
    statement, not a sentence."""
    groups = Counter((c.page, padded(c.statement), c.line if _EXAMPLE_STATEMENT.fullmatch(c.statement) else None)
                     for c in claims.values())
    many = [n for n in groups.values() if n >= 2]
    return {"sentences": len(many), "claims_on_them": sum(many), "most": max(many, default=0)}


def ground_all(r: Replay) -> dict[str, Any]:
    """`init --wiki-dir docs` and `ground --all` as a new user runs them: `ground` again with
    `--add-front-matter` only if it refused (exit 2). Its time, exit code, and summary line."""
    r.tool("-C", str(r.repo), "init", "--wiki-dir", DOCS)
    t = time.perf_counter()
    p = r.tool("-C", str(r.repo), "ground", "--all", check=False)
    refused = p.stderr.decode(errors="replace").strip()[-400:] if p.returncode == 2 else None
    if refused is not None:
        p = r.tool("-C", str(r.repo), "ground", "--all", "--add-front-matter", check=False)
    if p.returncode not in (0, 1):
        raise SystemExit(f"doc_recall: ground --all failed ({p.returncode}): {p.stderr.decode(errors='replace')[-800:]}")
    summary = [ln for ln in p.stdout.decode(errors="replace").splitlines() if " references: " in ln]
    return {"seconds": round(time.perf_counter() - t, 2), "exit": p.returncode, "add_front_matter": refused is not None,
            "refused": refused, "summary": summary[-1] if summary else None}


def workdir(kind: str, label: str) -> Path:
    """A new folder of its own under SCRATCH/kind (runs of other trees may go on at the same time)."""
    (SCRATCH / kind).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{label}-", dir=SCRATCH / kind))


def replayer(name: str, up: Upstream, work: Path, args: argparse.Namespace) -> Replay:
    """In an empty folder, a copy of the tree under test's package, and bench/replay.py's Replay
    set to clone this project's history and run that copy."""
    code = _code_dir(None, work, root=args.tree)
    return Replay(work, code, [], bundle=up.git_dir, name=name, wiki=DOCS, python=args.python)


@dataclass
class Run:
    """One window's replay and its tallies."""

    name: str
    window: Window
    args: argparse.Namespace
    up: Upstream
    result: dict[str, Any] = field(default_factory=dict)
    claims: dict[str, Claim] = field(default_factory=dict)  # every claim seen, placed in its page
    scored: list[dict[str, Any]] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)
    per_commit: list[dict[str, Any]] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)
    info: Counter[str] = field(default_factory=Counter)

    def say(self, text: str) -> None:
        if not self.args.quiet:
            print(f"doc_recall {self.name}: {text}", file=sys.stderr, flush=True)

    def setup(self) -> tuple[Replay, list[str]]:
        work = workdir("runs", f"{self.name}-{self.window.base[:10]}-{self.window.commits}")
        self.result["work"] = str(work)
        r = replayer(self.name, self.up, work, self.args)
        r.clone(self.window.base)
        base = r.git("rev-parse", "HEAD").strip()
        commits = r.first_parents_after(base, self.window.commits)
        self.result.update({"base": base[:12], "commits": len(commits)})
        self.result["ground"] = ground_all(r)
        r.git("add", "-A")
        r.git("commit", "-q", "--no-verify", "-m", "docs: grounded by openwiki-git (doc_recall)")
        r.install_hook()
        return r, commits

    def check(self, r: Replay) -> State:
        """`check --format json`, every claim it names placed in its page (the block carrying
        its marker; the docs are held back, so a claim's block never moves)."""
        state = State.of(r.check())
        fresh = [c for cid, c in state.claims.items() if cid not in self.claims]
        for page in {c.page for c in fresh}:
            path = r.repo / page
            text = path.read_text(errors="replace") if path.exists() else ""
            page_blocks = blocks(text)
            for c in fresh:
                if c.page == page:
                    c.line = marker_line(text, c.marker)
                    c.block = block_at(page_blocks, c.line) if c.line is not None else None
        self.claims.update({c.id: c for c in fresh})
        state.claims = {cid: self.claims[cid] for cid in state.claims}
        return state


def run_window(name: str, window: Window, args: argparse.Namespace, up: Upstream) -> dict[str, Any]:
    run = Run(name, window, args, up)
    run.result.update({"project": name, "window": {"base": window.base, "commits": window.commits, "why": window.why}})
    r, commits = run.setup()
    run.say(f"{window.base[:10]} + {window.commits} commits, working in {r.work}")
    state = run.check(r)
    run.result["claims"] = len(state.claims)
    run.result["multi_claim_sentences"] = multi_claims(state.claims)
    run.say(f"grounded: {len(state.claims)} claims in {run.result['ground']['seconds']} s "
            f"(add_front_matter={run.result['ground']['add_front_matter']})")
    stuck: set[str] = set(state.flagged)
    broken_before = set(state.broken)
    for n, commit in enumerate(commits, 1):
        stuck, broken_before = replay_one(run, r, commit, f"[{n}/{len(commits)}]", stuck, broken_before)
    finish(run, commits)
    if not args.keep:
        shutil.rmtree(r.work, ignore_errors=True)
        del run.result["work"]
    return run.result


def replay_one(run: Run, r: Replay, commit: str, progress: str, stuck: set[str],
               broken_before: set[tuple[str, int, str]]) -> tuple[set[str], set[tuple[str, int, str]]]:
    """One commit's code through the hook, its flags recorded and its truth items scored, then
    the reviewer's confirmations: the claims still flagged after them, the broken references."""
    items, info = run.up.truth(commit)
    run.info.update(info)
    changed = run.up.changed(commit)
    paths = tuple(p for p in changed if not run.up.is_held(p))
    logged = len(r.log.read_text().splitlines()) if r.log.exists() else 0
    runs, gave_up, _ = r.replay(commit, CAP, paths or (":(exclude)*",))
    hook_runs = r.log.read_text().splitlines()[logged:] if r.log.exists() else []
    if hook_runs:
        run.walls.append(json.loads(hook_runs[0])["wall"])
    state = run.check(r)
    new = state.flagged - stuck
    new_broken = {k: v for k, v in state.broken.items() if k not in broken_before}
    for cid in sorted(new):
        c = run.claims[cid]
        run.flags.append({"commit": commit[:10], "claim": cid, "page": c.page, "statement": c.statement})
    for (page, line, ref), statement in sorted(new_broken.items()):
        run.flags.append({"commit": commit[:10], "claim": None, "page": page, "statement": statement, "reference": ref, "line": line})
    got = [score(r, run, item, commit, set(changed), state, new, stuck, new_broken) for item in items]
    run.scored += got
    run.per_commit.append({"commit": commit[:10], "git_commit_runs": runs, "gave_up": gave_up, "flags": len(new) + len(new_broken),
                           "truth_items": len(items), "caught": sum(1 for g in got if g["status"] == "caught")})
    if state.flagged:
        stuck = review(r, run, state.flagged)
        run.per_commit[-1]["held_after_review"] = len(stuck)
    run.say(f"{progress} {commit[:10]}: {len(new)} claims flagged, {len(new_broken)} new broken references; "
            f"truth {len(items)}, caught {run.per_commit[-1]['caught']}" + (f"; held after review {len(stuck)}" if stuck else ""))
    return stuck, set(state.broken)


def review(r: Replay, run: Run, flagged: set[str]) -> set[str]:
    """The reviewer confirms every flagged claim (one process, `claim confirm` per claim), and
    commits; the claims still flagged after it."""
    script = r.work / "confirm.py"
    script.write_text(CONFIRM)
    out = r.work / "confirm.json"
    r.run(run.args.python, str(script), str(r.repo), str(out), REVIEWER, *sorted(flagged), check=False)
    r.git("add", "-A", "--", DOCS)
    r.git("commit", "-q", "--allow-empty", "--no-verify", "-m", "review: the flagged claims confirmed (doc_recall)")
    return run.check(r).flagged


def score(r: Replay, run: Run, item: Item, commit: str, changed: set[str], state: State, new: set[str], stuck: set[str],
          new_broken: dict[tuple[str, int, str], str]) -> dict[str, Any]:
    """One truth item after its commit: caught, held (by a flag no review could clear), missed
    (why), or not in the wiki."""
    row: dict[str, Any] = {"kind": item.kind, "page": item.page, "line": item.line, "commit": commit[:10], "text": item.text}
    if item.lang:
        row["lang"] = item.lang
    path = r.repo / item.page
    page_blocks = blocks(path.read_text(errors="replace")) if path.exists() else []
    b = home(page_blocks, item)
    if b is None:
        return {**row, "status": "not in the wiki"}
    how = {cid: guarded_by(page_blocks, b, c.line) for cid, c in state.claims.items() if c.page == item.page and c.line is not None}
    mine = {cid for cid, h in how.items() if h == "own"}
    guarded = {cid for cid, h in how.items() if h is not None}
    if guarded & new:
        return {**row, "status": "caught", "by": "its paragraph's claim" if mine & new else "its section heading's claim"}
    if any(page == item.page and b.holds(line - 1) for page, line, _ in new_broken):
        return {**row, "status": "caught", "by": "a broken reference"}
    if guarded & stuck:
        return {**row, "status": "held", "why": "its claim was flagged earlier and no review could clear it"}
    reason, detail = missed_reason(item, [run.claims[c] for c in sorted(guarded)], changed)
    return {**row, "status": "missed", "why": reason, "detail": detail}


def kept(flag: dict[str, Any], claim: Claim | None, end: Corpus) -> bool:
    """Did upstream keep the flagged text word for word (line for line, an example) to the end?"""
    b = claim.block if claim is not None else None
    if b is not None and b.kind == "code":
        return end.holds_example(b.body)
    text = flag["statement"]
    if b is not None and padded(text) not in padded(b.body):
        text = b.body  # the tool's statement is not a sentence of its block: judge the whole block
    return end.holds_sentence(text)


def finish(run: Run, commits: list[str]) -> None:
    """The window's figures from its tallies."""
    end = run.up.corpus(commits[-1], notes=True) if commits else Corpus()
    noise = [f for f in run.flags if kept(f, run.claims.get(f["claim"] or ""), end)]
    caught = sum(1 for s in run.scored if s["status"] == "caught")
    res = run.result
    res["truth"] = {kind: tally([s for s in run.scored if s["kind"] == kind]) for kind in ("sentence", "example")}
    res["not_scored"] = dict(run.info)
    res["flags"] = {"total": len(run.flags), "on_text_upstream_kept": len(noise),
                    "claims_flagged_on_kept_text": len({f["claim"] for f in noise if f["claim"]}),
                    "largest_commit": max((p["flags"] for p in run.per_commit), default=0)}
    res["noise_per_catch"] = round(len(noise) / caught, 2) if caught else (None if noise else 0.0)
    res["hook"] = {"median_s": round(statistics.median(run.walls), 3) if run.walls else None, "runs": len(run.walls),
                   "commits_stopped": sum(1 for p in run.per_commit if p["git_commit_runs"] > 1)}
    res["goals"] = goals(res)
    res["caught"] = [s for s in run.scored if s["status"] == "caught"]
    res["missed"] = [s for s in run.scored if s["status"] != "caught"]
    res["missed_reasons"] = top_reasons(res["missed"])
    res["noise_examples"] = [{k: f[k] for k in ("commit", "page", "statement")} for f in noise[:40]]
    res["per_commit"] = run.per_commit


def tally(rows: list[dict[str, Any]]) -> dict[str, Any]:
    in_wiki = [r for r in rows if r["status"] != "not in the wiki"]
    caught = sum(1 for r in in_wiki if r["status"] == "caught")
    return {"upstream": len(rows), "in_wiki": len(in_wiki), "caught": caught,
            "held": sum(1 for r in in_wiki if r["status"] == "held"),
            "missed_no_claim": sum(1 for r in in_wiki if r.get("why") == "no claim on it"),
            "missed_claim_not_flagged": sum(1 for r in in_wiki if r.get("why") == "a claim not flagged"),
            "recall": round(caught / len(in_wiki), 3) if in_wiki else None}


def goals(res: dict[str, Any]) -> dict[str, bool]:
    """The issue's goals for one window (a window with nothing to score fails: no silent green)."""
    sentences, examples = res["truth"]["sentence"]["recall"], res["truth"]["example"]["recall"]
    noise = res["noise_per_catch"]
    return {
        "recall_sentences>=0.9": sentences is not None and sentences >= GOAL_RECALL,
        "recall_examples>=0.9": examples is not None and examples >= GOAL_RECALL,
        "noise_per_catch<=3": noise is not None and noise <= GOAL_NOISE,
        "multi_claim_sentences==0": res["multi_claim_sentences"]["sentences"] == 0,
    }


# -- output ----------------------------------------------------------------------------------------
def describe(tree: Path) -> dict[str, str]:
    """Which tree was measured: `git describe` of it, and its branch."""

    def git(*argv: str) -> str:
        p = subprocess.run(["git", "-C", str(tree), *argv], capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else "?"

    package = "with uncommitted changes" if git("status", "--porcelain", "--", "openwiki_git") else "as committed"
    return {"path": str(tree), "describe": git("describe", "--always", "--dirty", "--tags"),
            "branch": git("rev-parse", "--abbrev-ref", "HEAD"), "package": f"openwiki_git/ {package}"}


def pct(t: dict[str, Any]) -> str:
    return f"{t['caught']}/{t['in_wiki']} = {t['recall']:.2f}" if t["recall"] is not None else "nothing to score"


def to_text(data: dict[str, Any], show: bool) -> str:
    tree = data["tree"]
    out = [f"doc recall, tree {tree['describe']} ({tree['branch']}, {tree['path']}, {tree['package']}); "
           "timings are noisy on a shared machine"]
    head = f"{'window':<30} {'claims':>6} {'multi':>5} {'sentences caught':>18} {'examples caught':>17} {'noise/catch':>11} " \
           f"{'flags':>5} {'max':>4} {'ground s':>8} {'hook ms':>7}  goals"
    out.append(head)
    for w in data["windows"]:
        t = w["truth"]
        noise = "inf" if w["noise_per_catch"] is None else f"{w['noise_per_catch']:.1f}"
        hook = "-" if w["hook"]["median_s"] is None else f"{w['hook']['median_s'] * 1000:.0f}"
        met = "met" if all(w["goals"].values()) else "NOT met: " + ", ".join(k for k, v in w["goals"].items() if not v)
        out.append(f"{w['project'] + ' ' + w['base'][:10] + ' +' + str(w['commits']):<30} {w['claims']:>6} "
                   f"{w['multi_claim_sentences']['sentences']:>5} {pct(t['sentence']):>18} {pct(t['example']):>17} {noise:>11} "
                   f"{w['flags']['total']:>5} {w['flags']['largest_commit']:>4} {w['ground']['seconds']:>8} {hook:>7}  {met}")
    for w in data["windows"]:
        out.append(f"\n{w['project']} {w['base']} +{w['commits']}: {w['window']['why']}")
        g = w["ground"]
        out.append(f"  ground --all: exit {g['exit']}, {g['seconds']} s" + (", needed --add-front-matter" if g["add_front_matter"] else "")
                   + (f"; {g['summary']}" if g["summary"] else ""))
        for kind in ("sentence", "example"):
            t = w["truth"][kind]
            out.append(f"  {kind}s: {t['upstream']} rewritten upstream, {t['in_wiki']} in the wiki, caught {t['caught']}, "
                       f"held {t['held']}, missed {t['missed_no_claim']} with no claim + {t['missed_claim_not_flagged']} "
                       "with a claim not flagged")
        f = w["flags"]
        out.append(f"  flags: {f['total']} ({f['on_text_upstream_kept']} on text upstream kept, "
                   f"on {f['claims_flagged_on_kept_text']} claims); most in one commit {f['largest_commit']}; "
                   f"commits stopped by the hook {w['hook']['commits_stopped']}")
        if w["not_scored"]:
            out.append("  not scored: " + ", ".join(f"{k}: {v}" for k, v in w["not_scored"].items()))
        out.append("  why missed: " + "; ".join(f"{r} ({n})" for r, n in w["missed_reasons"][:8]))
        if show:
            for m in w["missed"]:
                text = " ".join(m["text"].split())[:150]
                why = m.get("why") or m["status"]
                out.append(f"    {m['status']:<15} {m['kind']:<8} {m['page']}:{m['line']} @{m['commit']} {why}"
                           + (f" [{m['detail']}]" if m.get("detail") else "") + f"\n        {text}")
    every = Counter[str]()
    for w in data["windows"]:
        every.update(dict(w["missed_reasons"]))
    out.append("\nmost common reasons truth items were missed, all windows: " + "; ".join(f"{r} ({n})" for r, n in every.most_common(5)))
    out.append("goals: " + ("met in every window" if data["goals_met"] else "NOT met"))
    return "\n".join(out) + "\n"


def scan(up: Upstream, start: int, stop: int, base: str | None) -> str:
    """Truth items per first-parent commit (index on the first-parent line), to choose windows;
    with a base, how many of them the docs at that base hold."""
    line = up.first_parents()
    at_base = up.corpus(up.rev(base)) if base else None
    out = []
    for i in range(max(start, 1), min(stop, len(line))):
        items, info = up.truth(line[i])
        if not items:
            continue
        kinds = Counter(x.kind for x in items)
        present = ""
        if at_base is not None:
            held = [x for x in items if (at_base.holds_sentence(x.text) if x.kind == "sentence" else at_base.holds_example(x.text))]
            present = f" (at the base: {len(held)})"
        subject = up.git("log", "-1", "--format=%cs %s", line[i]).strip()[:70]
        out.append(f"{i:>5} {line[i][:10]} sentences {kinds['sentence']:>3} examples {kinds['example']:>3}{present} {subject}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--project", choices=sorted(PROJECTS), action="append", help="a project (repeatable; default: all three)")
    p.add_argument("--base", help="with one --project: the commit grounded (default: the project's windows)")
    p.add_argument("--commits", type=int, default=40, help="with --base: first-parent commits replayed (default 40)")
    p.add_argument("--tree", type=Path, default=HERE.parent, help="the checkout whose openwiki_git is measured (default: this one)")
    p.add_argument("--python", default=sys.executable, help="the interpreter that runs the tool (default: this one)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the full result as JSON to FILE")
    p.add_argument("--show", action="store_true", help="list every truth item not caught, with why")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--keep", action="store_true", help=f"keep each window's clone and logs (under {SCRATCH}/runs/)")
    p.add_argument("--scan", choices=sorted(PROJECTS), help="print truth items per first-parent commit and exit")
    p.add_argument("--from", dest="start", type=int, default=1, help="with --scan: the first index on the first-parent line")
    p.add_argument("--to", dest="stop", type=int, default=10**9, help="with --scan: the index to stop before")
    args = p.parse_args(argv)
    args.tree = args.tree.resolve()
    if not (args.tree / "openwiki_git" / "__init__.py").is_file():
        print(f"doc_recall: --tree {args.tree}: no openwiki_git package there; give a checkout of openwiki-git", file=sys.stderr)
        return 2
    if args.scan:
        sys.stdout.write(scan(Upstream(args.scan), args.start, args.stop, args.base))
        return 0
    names = args.project or sorted(PROJECTS)
    if args.base and len(names) != 1:
        print("doc_recall: --base needs exactly one --project", file=sys.stderr)
        return 2
    data: dict[str, Any] = {"tree": describe(args.tree), "windows": []}
    for name in names:
        up = Upstream(name)
        windows = (Window(args.base, args.commits, "given on the command line"),) if args.base else PROJECTS[name].windows
        for w in windows:
            try:
                up.rev(w.base)
            except subprocess.CalledProcessError:
                print(f"doc_recall: --base {w.base}: not a commit of {name}'s history", file=sys.stderr)
                return 2
            data["windows"].append(run_window(name, w, args, up))
    data["goals_met"] = all(all(w["goals"].values()) for w in data["windows"])
    if args.json:
        args.json.write_text(json.dumps(data, indent=2) + "\n")
    sys.stdout.write(to_text(data, args.show))
    return 0 if data["goals_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
