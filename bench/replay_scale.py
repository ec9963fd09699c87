"""Readable at two hundred marks (issue 36): one real commit that marks over a hundred claims, and
what each surface shows a person then.

The data: `/work/shared/testdata/replay/uvicorn.bundle` (encode/uvicorn, BSD-3-Clause), cloned into
a work directory (the bundle is never written). At the parent of 32fa92f ("Use
__future__.annotations (#2199)", an annotation-only commit: `Optional[str]` -> `str | None` in 18
files), the harness writes the wiki a user would:

- `init --wiki-dir docs` and `ground --all` on uvicorn's own MkDocs pages (the claims `ground`
  makes of them);
- an API reference, `docs/reference/<module>.md`, as a maintainer writes one by hand: for every
  public function and method (and `__init__`) of the package, one sentence per parameter ("`run()`
  takes `ssl_keyfile` (default `None`).") cited on the definition's head (`#run:head`), and for
  every public class one sentence cited on the whole class (`#Config`); every claim through
  `claim add`, so ids and tokens are real. `cosmetic_annotations: false` (written into the config; the
  default weighs an annotation-only change against each sentence) keeps it a change.

It commits that (`--no-verify`), installs the real pre-commit with a `repo: local` hook running the
code under test (this checkout, copied, or `--code REV` of this repository), then replays 32fa92f
as a developer would (`git diff --binary C^1 C | git apply --index`, `git commit -C C`: the hook
stops the commit once, `git add docs`, commit again). Then, on the commit it left:

- the hook: the lines and the widest line of what `git commit` printed the first time (pre-commit's
  own lines included), and of the hook's part alone;
- the PR comment: `github comment --print` between the wiki's commit and the replayed one, as the
  Action renders it: its characters, the claims it names, and whether every other claim is one
  click away (the job summary, `github comment`'s `$GITHUB_STEP_SUMMARY`, lists them);
- `review`, driven in a real pseudo-terminal of --rows x --cols with `PAGER=cat` (so every line is
  counted): the tallest screen (the lines shown between two prompts, before any pager) and the
  lines to read to clear every mark (`c` per claim; where review offers a group of claims sharing
  one change, the key that confirms the group after reading its diff);
- the report: `report --format json` and `--html` against `check --format json`: which stale,
  unresolved and due claims its open list names (in the JSON, in the Markdown summary, and in the
  HTML as headless Chromium renders it).

Counts, not times: load cannot move them.

Run: python bench/replay_scale.py [--code REV] [--keep DIR] [--rows 24] [--cols 100] [--format json]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from replay import PRE_COMMIT_CONFIG, _code_dir  # noqa: E402  (the code under test, copied or exported, compiled; the hook's config)

from tests.support.pty_session import PtySession  # noqa: E402  (the tests' pty driver)

BUNDLE = Path("/work/shared/testdata/replay/uvicorn.bundle")
COMMIT = "32fa92fbdf539f02a26cdc34d155e4095020f309"  # "Use __future__.annotations (#2199)"
PACKAGE = "uvicorn"
WIKI = "docs"
ACTOR = "human:Ada Lovelace"
PROMPT = re.compile(r"\[[a-z?,]+\]\? $")



# -- the wiki ------------------------------------------------------------------------------------
def _default(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    text = ast.unparse(node)
    return text if len(text) <= 40 else None


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str | None]]:
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [(p.arg, _default(d)) for p, d in zip(positional, defaults, strict=True)]
    out += [(p.arg, _default(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    return [(name, d) for name, d in out if name not in ("self", "cls")]


def reference_pages(repo: Path) -> dict[str, list[tuple[str, str]]]:
    """Page -> its (sentence, evidence) pairs: the API reference a maintainer writes."""
    pages: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((repo / PACKAGE).rglob("*.py")):
        rel = path.relative_to(repo).as_posix()
        module = rel.removesuffix(".py").replace("/", ".")
        tree = ast.parse(path.read_text("utf-8"))
        rows: list[tuple[str, str]] = []

        def visit(body: list[ast.stmt], prefix: str, rows: list[tuple[str, str]] = rows, rel: str = rel) -> None:
            for node in body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    qual = prefix + node.name
                    rows.append((f"`{qual}` is defined in `{rel}`.", f"repo://{rel}#{qual}"))
                    visit(node.body, qual + ".")
                elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    not node.name.startswith("_") or node.name == "__init__"
                ):
                    qual = prefix + node.name
                    for name, default in _parameters(node):
                        tail = f" (default `{default}`)" if default is not None else ""
                        rows.append((f"`{qual}()` takes `{name}`{tail}.", f"repo://{rel}#{qual}:head"))

        visit(tree.body, "")
        if rows:
            pages[f"reference/{module.removeprefix(PACKAGE + '.')}.md"] = rows
    return pages


class Bench:
    def __init__(self, work: Path, code: Path) -> None:
        self.work = work
        self.repo = work / PACKAGE
        self.code = code
        home = work / "home"
        home.mkdir(exist_ok=True)
        self.env = {
            **os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "Ada Lovelace", "GIT_AUTHOR_EMAIL": "ada@example.invalid",
            "GIT_COMMITTER_NAME": "Ada Lovelace", "GIT_COMMITTER_EMAIL": "ada@example.invalid",
            "PRE_COMMIT_HOME": str(work / "pre-commit-home"), "PRE_COMMIT_COLOR": "never", "PYTHONPATH": str(code),
            "NO_COLOR": "1",
        }
        for name in ("SKIP", "GIT_INDEX_FILE", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_EVENT_PATH", "PAGER", "LESS"):
            self.env.pop(name, None)

    def run(self, *argv: str, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        p = subprocess.run(argv, cwd=self.repo, env={**self.env, **(env or {})}, capture_output=True, text=True, check=False)
        if check and p.returncode != 0:
            sys.exit(f"replay_scale: {' '.join(argv[:5])} failed ({p.returncode}): {p.stderr[-2000:]}")
        return p

    def tool(self, *argv: str, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return self.run(sys.executable, "-m", "openwiki_git", *argv, check=check, env=env)

    def build(self) -> dict[str, Any]:
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(BUNDLE), str(self.repo)], env=self.env, check=True)
        self.run("git", "checkout", "-q", "-B", "replay", f"{COMMIT}^")
        self.tool("init", "--wiki-dir", WIKI)
        config = self.repo / ".openwiki" / "config.yml"  # annotations are code here: the replay
        config.write_text(config.read_text("utf-8") + "cosmetic_annotations: false\n", "utf-8")
        grounded = self.tool("ground", "--all", check=False)
        pages = reference_pages(self.repo)
        for page, rows in pages.items():
            title = page.removeprefix("reference/").removesuffix(".md")
            text = f"# `{PACKAGE}.{title}`\n\n" + "".join(f"{sentence}\n\n" for sentence, _ in rows)
            target = self.repo / WIKI / page
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, "utf-8")
        self._add_claims(pages)
        self.run("git", "add", "-A")
        self.run("git", "commit", "-q", "--no-verify", "-m", "docs: uvicorn's docs grounded, and an API reference")
        config = self.repo / ".git" / "scale-pre-commit.yaml"
        config.write_text(PRE_COMMIT_CONFIG.format(python=sys.executable, wrapper="-m openwiki_git hook"))
        self.run(sys.executable, "-m", "pre_commit", "install", "-c", str(config))
        claims = json.loads(self.tool("check", "--format", "json", check=False).stdout)
        return {"claims": claims["summary"]["total"], "ground_exit": grounded.returncode,
                "reference_claims": sum(len(r) for r in pages.values()), "wiki_commit": self.head()}

    def _add_claims(self, pages: dict[str, list[tuple[str, str]]]) -> None:
        """Every reference claim through `claim add`, in this process (the code that builds the
        wiki is this checkout's: the sidecars it writes are the format every version reads)."""
        from openwiki_git.cli.main import main

        for page, rows in pages.items():
            for sentence, evidence in rows:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    code = main(["-C", str(self.repo), "claim", "add", "--page", page, "--statement", sentence,
                                 "--evidence", evidence, "--by", "human:replay"])
                if code != 0:
                    sys.exit(f"replay_scale: claim add {evidence} failed ({code})")

    def head(self) -> str:
        return self.run("git", "rev-parse", "HEAD").stdout.strip()

    # -- the hook ---------------------------------------------------------------------------------
    def replay(self) -> dict[str, Any]:
        diff = subprocess.run(["git", "diff", "--binary", f"{COMMIT}^1", COMMIT], cwd=self.repo, env=self.env,
                              capture_output=True, check=True).stdout
        subprocess.run(["git", "apply", "--index", "--whitespace=nowarn"], cwd=self.repo, env=self.env, input=diff, check=True)
        first = self.run("git", "commit", "-q", "--no-edit", "-C", COMMIT, check=False, env={"COLUMNS": "200"})
        output = first.stdout + first.stderr
        self.run("git", "add", "-A", "--", WIKI)
        second = self.run("git", "commit", "-q", "--no-edit", "-C", COMMIT, check=False)
        lines = output.splitlines()
        # pre-commit's own lines: its status line and `- hook id:`/`- exit code:`/`- files were modified`
        ours = [ln for ln in lines if not re.match(r"^(openwiki-git \(mark stale claims\)\.+|- hook id:|- exit code:|"
                                                     r"- files were modified by this hook)", ln)]
        ours = [ln for ln in ours if ln.strip()]
        return {
            "first_exit": first.returncode, "second_exit": second.returncode,
            "output_lines": len(lines), "output_bytes": len(output.encode()), "widest": max(map(len, lines), default=0),
            "hook_lines": len(ours), "hook_widest": max(map(len, ours), default=0), "output": output,
        }

    # -- the PR comment ---------------------------------------------------------------------------
    def comment(self, base: str, marked: list[dict[str, Any]]) -> dict[str, Any]:
        env = {"GITHUB_REPOSITORY": "encode/uvicorn", "GITHUB_SERVER_URL": "https://github.com",
               "GITHUB_RUN_ID": "1", "GITHUB_RUN_ATTEMPT": "1"}
        p = self.tool("github", "comment", "--print", "--base", base, "--head", "HEAD", check=False, env=env)
        body = p.stdout
        named = {c["id"] for c in marked if "c-" + c["id"].removeprefix("claim_")[:8] in body}
        summary_file = self.work / "step-summary.md"
        summary_file.write_text("")
        s = self.tool("github", "comment", "--no-comment", "--base", base, "--head", "HEAD", check=False,
                      env={**env, "GITHUB_STEP_SUMMARY": str(summary_file), "GITHUB_OUTPUT": os.devnull})
        summary = summary_file.read_text("utf-8") if s.returncode in (0, 1) else ""
        in_summary = {c["id"] for c in marked if "c-" + c["id"].removeprefix("claim_")[:8] in summary}
        links_summary = "run summary" in body or "job summary" in body
        return {"characters": len(body), "bytes": len(body.encode()), "claims": len(marked), "named": len(named),
                "in_summary": len(in_summary), "links_to_rest": links_summary,
                "reachable": len(named | (in_summary if links_summary else set())), "body": body}

    # -- review -----------------------------------------------------------------------------------
    def review(self, rows: int, cols: int, group_key: str | None) -> dict[str, Any]:
        env = {**self.env, "PAGER": "cat", "TERM": "xterm"}
        s = PtySession([sys.executable, "-m", "openwiki_git", "review", "--by", ACTOR, "--no-color"], cwd=self.repo, env=env,
                       size=(rows, cols))
        screens: list[int] = []
        decided = 0
        while True:
            try:
                shown = s.read_until("? ", timeout=120)
            except AssertionError:
                break
            if not PROMPT.search(shown):
                continue
            lines = shown.splitlines()
            screens.append(len(lines) - 1)  # the prompt's own line left out
            keys = PROMPT.search(shown).group(0)  # type: ignore[union-attr]
            if group_key and f"{group_key}," in keys.replace("[", ",") and "same change" in shown:
                s.send(f"{group_key}\n")
            else:
                s.send("c\n")
            decided += 1
        code = s.wait()
        tail = s.screen.strip().splitlines()[-1] if s.screen.strip() else ""
        return {"screens": len(screens), "tallest": max(screens, default=0), "lines": sum(screens),
                "taller_than_terminal": sum(1 for n in screens if n > rows - 1), "exit": code, "summary": tail}

    # -- the report -------------------------------------------------------------------------------
    def report(self) -> dict[str, Any]:
        check = json.loads(self.tool("check", "--format", "json", check=False).stdout)
        wanted = {c["id"] for c in check["claims"] if c["status"] != "fresh" or c["due"]}
        data = json.loads(self.tool("report", "--format", "json", check=False).stdout or "{}")
        listed_json = {c["id"] for c in data.get("open", [])}
        markdown = self.tool("report", "--markdown", check=False).stdout
        listed_md = {cid for cid in wanted if "c-" + cid.removeprefix("claim_")[:8] in markdown}
        html = self.work / "report.html"
        self.tool("report", "--html", str(html), check=False)
        from tests.support.browser import render

        dom, console = render(html, 1280)
        listed_html = {cid for cid in wanted if f'id="open-{cid}"' in dom or "c-" + cid.removeprefix("claim_")[:8] in dom}
        clearing = data.get("clearing", {})
        return {"open_in_check": len(wanted), "listed_json": len(listed_json & wanted), "listed_markdown": len(listed_md),
                "markdown_characters": len(markdown), "listed_html": len(listed_html), "console": console,
                "cleared": clearing.get("cleared"), "cleared_from_before": clearing.get("cleared_from_before")}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="openwiki-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        b = Bench(work, _code_dir(args.code, work))
        built = b.build()
        hook = b.replay()
        check = json.loads(b.tool("check", "--format", "json", check=False).stdout)
        marked = [c for c in check["claims"] if c["status"] != "fresh"]
        comment = b.comment(built["wiki_commit"], marked)
        report = b.report()
        review = b.review(args.rows, args.cols, args.group_key)
        after = json.loads(b.tool("check", "--format", "json", check=False).stdout)["summary"]
        return {"code": args.code or "working tree", "built": built, "marked": len(marked), "hook": hook,
                "comment": comment, "review": review, "report": report, "after_review": after}
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def to_text(d: dict[str, Any], rows: int, cols: int) -> str:
    h, c, r, p = d["hook"], d["comment"], d["review"], d["report"]
    return "\n".join([
        f"code: {d['code']}; uvicorn {COMMIT[:7]} replayed on a wiki of {d['built']['claims']} claims "
        f"({d['built']['reference_claims']} of them the API reference)",
        f"claims marked by the one commit: {d['marked']}",
        f"hook (git commit's output, pre-commit's lines included): {h['output_lines']} lines, widest {h['widest']} "
        f"characters, {h['output_bytes']} bytes; the hook's part: {h['hook_lines']} lines, widest {h['hook_widest']}; "
        f"exit {h['first_exit']} then {h['second_exit']}",
        f"PR comment: {c['characters']} characters, names {c['named']} of {c['claims']} claims; the job summary "
        f"names {c['in_summary']}; linked from the comment: {c['links_to_rest']}; reachable: {c['reachable']} of {c['claims']}",
        f"review ({rows}x{cols}, PAGER=cat): {r['screens']} screens, tallest {r['tallest']} lines, "
        f"{r['taller_than_terminal']} taller than the terminal, {r['lines']} lines to read in all ({r['summary']})",
        f"report: check lists {p['open_in_check']} open (stale, unresolved or due); listed in the JSON: "
        f"{p['listed_json']}, the Markdown summary: {p['listed_markdown']} ({p['markdown_characters']} characters), "
        f"the HTML in Chromium: {p['listed_html']}; console lines: {len(p['console'])}",
        f"after review: {d['after_review']}",
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--code", metavar="REV", help="run this repository's REV (e.g. main) instead of the working tree")
    p.add_argument("--keep", metavar="DIR", help="work in DIR and keep it")
    p.add_argument("--rows", type=int, default=24, help="review's terminal height (default 24)")
    p.add_argument("--cols", type=int, default=100, help="review's terminal width (default 100)")
    p.add_argument("--group-key", default="a", help="the key that confirms a group in review (default a)")
    p.add_argument("--show", action="store_true", help="print the hook's output and the PR comment too")
    p.add_argument("--format", choices=("text", "json"), default="text")
    args = p.parse_args(argv)
    if not BUNDLE.is_file():
        print(f"replay_scale: {BUNDLE} not found", file=sys.stderr)
        return 2
    d = measure(args)
    if args.show:
        sys.stdout.write(d["hook"]["output"] + "\n----\n" + d["comment"]["body"] + "\n----\n")
    for part in ("hook", "comment"):
        d[part].pop("output", None)
        d[part].pop("body", None)
    sys.stdout.write(json.dumps(d, indent=2) + "\n" if args.format == "json" else to_text(d, args.rows, args.cols))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
