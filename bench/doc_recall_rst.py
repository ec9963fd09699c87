"""Doc recall on a reStructuredText site's history (issue 35, "Measured"): tenacity's Sphinx docs
(`doc/source/*.rst`), every first-parent commit that changed the package's code and rewrote its
docs together.

For each such commit C (or those given): clone the bundle (read-only data) at C's parent;
`init --wiki-dir doc/source`; `ground --all`; commit; then apply C's changes except the docs
(`git diff C^1 C -- . ':!doc'`: the docs held back) to the index, run `openwiki-git hook` (the
command pre-commit runs) and read `check --format json`.

The truth: the prose sentences of the parent's `.rst` pages (the changelog excluded) that C
removed or rewrote (a word differs; re-wrapping, inline markup and role prefixes do not count),
read through the tool's own reST reader (pages/rst.py) and splitter. A sentence is **caught**
when a claim that C flagged (not fresh) stands on its paragraph (its marker line follows it).
The code examples (`testcode`, `code-block`, literal and doctest blocks, as pages/rst_examples.py
reads them) that C removed or rewrote are scored too: one is caught when a flagged claim's
marker line follows it. **Noise**: flagged claims whose sentence (or example) C kept.

Also printed per commit: claims made by `ground --all`, references and how they resolved.

Run: python bench/doc_recall_rst.py [--commit REV ...] [--scratch DIR] [--format json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openwiki_git.pages import rst, rst_examples, rst_markers, sentences  # noqa: E402

BUNDLE = Path("/work/shared/testdata/replay/tenacity.bundle")
WIKI = "doc/source"
CODE = "tenacity/"
_MARKUP = re.compile(r":[a-z:]+:`|[`*]|\\")


def sh(argv: list[str], cwd: Path, check: bool = True, **kw: Any) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({p.returncode}):\n{p.stdout[-1500:]}\n{p.stderr[-1500:]}")
    return p


def owg(repo: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return sh([sys.executable, "-m", "openwiki_git", "-C", str(repo), *argv], repo, check=False, env=env)


def norm(text: str) -> str:
    """A sentence as the truth compares it: markup and role prefixes out, white space collapsed."""
    return " ".join(_MARKUP.sub("", text).split())


def prose(text: str) -> list[tuple[str, tuple[int, int]]]:
    """Each prose sentence of a page (normalised) with its paragraph's span."""
    out = []
    for kind, start, end in rst.blocks(text):
        if kind == "prose":
            out += [(norm(text[s.start : s.stop]), (start, end)) for s in sentences.split(text, start, end)]
    return [(s, span) for s, span in out if len(s.split()) >= 3]


def examples(text: str) -> set[str]:
    """A page's code examples, each as its code with white space collapsed."""
    return {" ".join(ex.code.split()) for ex in rst_examples.examples(text)}


def pages_at(repo: Path, rev: str) -> dict[str, str]:
    names = sh(["git", "ls-tree", "-r", "--name-only", rev, "--", WIKI], repo).stdout.split()
    return {p: sh(["git", "show", f"{rev}:{p}"], repo).stdout for p in names if p.endswith(".rst") and "changelog" not in p}


def co_changes(repo: Path) -> list[str]:
    out = []
    for c in sh(["git", "rev-list", "--first-parent", "HEAD"], repo).stdout.split():
        files = sh(["git", "diff", "--name-only", f"{c}^1", c], repo, check=False).stdout.split()
        if any(f.startswith(CODE) and f.endswith(".py") for f in files) and any(
            f.startswith(WIKI) and f.endswith(".rst") and "changelog" not in f for f in files
        ):
            out.append(c)
    return out[::-1]


def measure(cache: Path, work: Path, commit: str) -> dict[str, Any]:
    repo = work / commit[:10]
    shutil.rmtree(repo, ignore_errors=True)
    sh(["git", "clone", "-q", "--no-checkout", str(cache), str(repo)], work)
    sh(["git", "checkout", "-q", "-B", "replay", f"{commit}^1"], repo)
    before, after = pages_at(repo, f"{commit}^1"), pages_at(repo, commit)
    kept = {s for text in after.values() for s, _ in prose(text)}
    truth = [(page, s, span) for page, text in before.items() for s, span in prose(text) if s not in kept]
    truth_examples = {(p, code) for p, t in before.items() for code in examples(t) - examples(after.get(p, ""))}
    kept_examples = {code for t in after.values() for code in examples(t)}
    owg(repo, "init", "--wiki-dir", WIKI)
    grounded = json.loads(owg(repo, "ground", "--all", "--format", "json").stdout)
    ident = ["-c", "user.name=R", "-c", "user.email=r@example.invalid"]
    sh(["git", "add", "-A"], repo)
    sh(["git", *ident, "commit", "-q", "--no-verify", "-m", "grounded"], repo)
    diff = sh(["git", "diff", "--binary", f"{commit}^1", commit, "--", ".", ":!doc"], repo).stdout
    applied = subprocess.run(["git", "apply", "--index"], input=diff, cwd=repo, text=True, capture_output=True)
    hook = owg(repo, "hook")
    report = json.loads(owg(repo, "check", "--format", "json").stdout)
    flagged = [c for c in report["claims"] if c["status"] != "fresh"]
    caught, caught_examples, noise = set(), set(), 0
    for c in flagged:
        text = (repo / c["page_path"]).read_text()
        at = rst_markers.marker_at(text, "c-" + c["id"][6:14])
        ex = rst_examples.closed_by(text, at) if at >= 0 else None
        if ex is not None:
            code = " ".join(ex.code.split())
            caught_examples.update({(c["page_path"], code)} & truth_examples)
            noise += code in kept_examples
            continue
        para = rst_markers.paragraph_before(text, at) if at >= 0 else None
        said = norm(text[para[0] : para[1]]) if para else ""
        hits = [t for t in truth if t[0] == c["page_path"] and t[1] in said]
        caught.update((t[0], t[1]) for t in hits)
        noise += norm(c["statement"]) in kept
    return {
        "commit": commit[:12], "subject": sh(["git", "log", "-1", "--format=%s", commit], repo).stdout.strip()[:70],
        "applied": applied.returncode == 0, "hook_exit": hook.returncode, "claims": len(report["claims"]),
        "ground": {k: grounded["summary"][k] for k in ("references", "added", "ambiguous", "broken", "unknown")},
        "truth_sentences": len(truth), "caught": len(caught), "flagged": len(flagged), "noise": noise,
        "truth_examples": len(truth_examples), "examples_caught": len(caught_examples),
        "missed": [s for _, s, _ in truth if (_, s) not in caught][:10],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commit", action="append")
    ap.add_argument("--scratch", type=Path, default=Path("/work/scratch/site/recall"))
    ap.add_argument("--format", choices=["text", "json"], default="text")
    args = ap.parse_args(argv)
    args.scratch.mkdir(parents=True, exist_ok=True)
    cache = args.scratch / "tenacity.git"
    if not cache.exists():
        sh(["git", "clone", "-q", "--bare", str(BUNDLE), str(cache)], args.scratch)
    commits = args.commit or co_changes(cache)
    rows = [measure(cache, args.scratch, c) for c in commits]
    total = {k: sum(r[k] for r in rows) for k in ("truth_sentences", "caught", "flagged", "noise", "truth_examples", "examples_caught")}
    if args.format == "json":
        print(json.dumps({"commits": rows, "total": total}, indent=2))
        return 0
    for r in rows:
        print(f"{r['commit']} {r['subject']}: {r['claims']} claims ({r['ground']}); truth {r['truth_sentences']}, "
              f"caught {r['caught']}, flagged {r['flagged']}, noise {r['noise']}, examples {r['examples_caught']}/{r['truth_examples']}")
    recall = total["caught"] / total["truth_sentences"] if total["truth_sentences"] else float("nan")
    print(f"total over {len(rows)} commits: {total}; sentence recall {recall:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
