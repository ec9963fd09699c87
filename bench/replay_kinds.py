"""Closed-world and enumeration claims on a real history: line ranges against the new kinds
(issue 23: a set of files by glob, a set of matching lines by `?grep=`).

The data: `/work/shared/testdata/replay/attrs.bundle` (python-attrs, MIT), cloned into a temporary
directory. At the base commit, the claims of CLAIMS below (the names a module exports, the
exception classes a module defines, the subclasses of a base, the places that raise an exception,
the files of a directory) are added twice with `openwiki-git claim add`: once with the line range
a person would cite at the base (where the enumerated things are), once with the new kind that
says what the claim ranges over. Then the next first-parent commits are checked out one at a
time and `check` run on each.

The sets name what the sentence enumerates: a query with a group (`^def ([a-z]\\w*)`) covers the
names it captures, not whole lines, so a changed signature is not a change of the set.

Labels: each claim has an oracle, the set the sentence enumerates computed from the commit's tree
with `ast` (names, not lines: a reworded docstring or a changed base class does not change "the
exceptions are A, B, C"); a claim becomes false at the first commit where its oracle differs from
the base's. The oracle is independent of both kinds of evidence (the grep matches line texts, the
oracle compares names), and `--show-flips` prints each flip's commit and oracle change so that it
can be read against the history.

Counted per evidence kind, over the claims' lifetimes (a claim is followed until it first goes
false; a flag while it still holds is a false alarm, confirmed with `claim confirm` as a person
would, and the replay goes on):
- caught: flagged (stale or unresolved) at the commit where it went false;
- missed: still fresh at that commit;
- false alarms: flags while the statement still held (one that `claim confirm` cannot clear,
  unresolved evidence, needs a person to re-point it: counted once, then no longer followed).

Run: python bench/replay_kinds.py [--commits 600] [--rev BASE] [--show-flips] [--format json]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import fnmatch
import io
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openwiki_git.cli.main import main  # noqa: E402

BUNDLE = Path("/work/shared/testdata/replay/attrs.bundle")
BASE = "f6ffab7be059c251cede240e237c0adee07220b5"


def _tree(root: Path, path: str) -> ast.Module | None:
    try:
        return ast.parse((root / path).read_text("utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None


def public_defs(path: str) -> Callable[[Path], frozenset[str]]:
    """The public top-level functions a module defines."""

    def oracle(root: Path) -> frozenset[str]:
        tree = _tree(root, path)
        return frozenset(n.name for n in (tree.body if tree else []) if isinstance(n, ast.FunctionDef) and not n.name.startswith("_"))

    return oracle


def classes(path: str, base: str | None = None) -> Callable[[Path], frozenset[str]]:
    """The top-level classes a module defines (those subclassing `base`, when given)."""

    def oracle(root: Path) -> frozenset[str]:
        tree = _tree(root, path)
        out = set()
        for n in tree.body if tree else []:
            if isinstance(n, ast.ClassDef) and (base is None or base in {ast.unparse(b) for b in n.bases}):
                out.add(n.name)
        return frozenset(out)

    return oracle


def exported(root: Path) -> frozenset[str]:
    """The names attr/__init__.py's `__all__` lists (and extends it with)."""
    tree = _tree(root, "src/attr/__init__.py")
    names: set[str] = set()
    for n in ast.walk(tree) if tree else []:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets):
            names.update(e.value for e in getattr(n.value, "elts", []) if isinstance(e, ast.Constant))
        if isinstance(n, ast.Call) and ast.unparse(n.func) in ("__all__.extend", "__all__.append"):
            for a in n.args:
                names.update(ast.unparse(e).strip("'\"") for e in getattr(a, "elts", [a]))
    return frozenset(names)


def files(pattern: str) -> Callable[[Path], frozenset[str]]:
    def oracle(root: Path) -> frozenset[str]:
        listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
        return frozenset(p for p in listed if fnmatch.fnmatchcase(p, pattern) and "/" not in p[len(pattern.rsplit("/", 1)[0]) + 1 :])

    return oracle


def raisers(exc: str) -> Callable[[Path], frozenset[str]]:
    """The functions (file:qualname) under src/ that raise `exc`."""

    def oracle(root: Path) -> frozenset[str]:
        out = set()
        for p in sorted((root / "src").rglob("*.py")):
            tree = _tree(root, p.relative_to(root).as_posix())
            for fn in ast.walk(tree) if tree else []:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for r in ast.walk(fn):
                        if isinstance(r, ast.Raise) and r.exc is not None and exc in ast.unparse(r.exc).split("(")[0]:
                            out.add(f"{p.name}:{fn.name}")
        return frozenset(out)

    return oracle


# key, statement, oracle, line-range evidence at the base, the new kind's evidence
CLAIMS: list[tuple[str, str, Callable[[Path], frozenset[str]], str, str]] = [
    ("exports", "`attr` exports exactly the names its `__all__` lists.", exported,
     "repo://src/attr/__init__.py#L44-L76", "repo://src/attr/__init__.py?grep=%5E%5Cs%2B%22(%5Cw%2B)%22%2C%24"),
    ("public-modules", "attr's public modules are converters, exceptions, filters, setters and validators.",
     files("src/attr/[!_]*.py"), "repo://src/attr/__init__.py#L7-L7", "repo://src/attr/[!_]*.py"),
    ("stubs", "Every module of attr has a .pyi stub beside it.", files("src/attr/*.pyi"),
     "repo://src/attr/__init__.pyi#L17-L23", "repo://src/attr/*.pyi"),
    ("exceptions", "attr.exceptions defines exactly nine exception classes.", classes("src/attr/exceptions.py"),
     "repo://src/attr/exceptions.py#L4-L92", "repo://src/attr/exceptions.py?grep=%5Eclass%20(%5Cw%2B)"),
    ("value-errors", "AttrsAttributeNotFoundError and NotAnAttrsClassError are attr's only ValueError subclasses.",
     classes("src/attr/exceptions.py", "ValueError"), "repo://src/attr/exceptions.py#L35-L50",
     "repo://src/attr/exceptions.py?grep=%5Eclass%20(%5Cw%2B)%5C(ValueError%5C)"),
    ("runtime-errors", "DefaultAlreadySetError, UnannotatedAttributeError and PythonTooOldError are the RuntimeError subclasses.",
     classes("src/attr/exceptions.py", "RuntimeError"), "repo://src/attr/exceptions.py#L51-L77",
     "repo://src/attr/exceptions.py?grep=%5Eclass%20(%5Cw%2B)%5C(RuntimeError%5C)"),
    ("too-old", "Only `_make.py` raises PythonTooOldError.", raisers("PythonTooOldError"),
     "repo://src/attr/_make.py#L1249-L1251", "repo://src/**/*.py?grep=(raise%20PythonTooOldError)%5Cb"),
    ("not-attrs", "NotAnAttrsClassError is raised by `fields` and `fields_dict` only.", raisers("NotAnAttrsClassError"),
     "repo://src/attr/_make.py#L1748-L1750", "repo://src/**/*.py?grep=(raise%20NotAnAttrsClassError)%5Cb"),
    ("validators",
     "attr.validators provides instance_of, matches_re, provides, optional, in_, is_callable, deep_iterable and deep_mapping.",
     public_defs("src/attr/validators.py"), "repo://src/attr/validators.py#L13-L23", "repo://src/attr/validators.py?grep=%5Edef%20(%5Ba-z%5D%5Cw*)"),
    ("converters", "attr.converters provides optional and default_if_none.", public_defs("src/attr/converters.py"),
     "repo://src/attr/converters.py#L17-L17", "repo://src/attr/converters.py?grep=%5Edef%20(%5Ba-z%5D%5Cw*)"),
    ("setters", "attr.setters provides pipe, frozen, validate and convert.", public_defs("src/attr/setters.py"),
     "repo://src/attr/setters.py#L11-L11", "repo://src/attr/setters.py?grep=%5Edef%20(%5Ba-z%5D%5Cw*)"),
    ("filters", "attr.filters provides include and exclude.", public_defs("src/attr/filters.py"),
     "repo://src/attr/filters.py#L21-L21", "repo://src/attr/filters.py?grep=%5Edef%20(%5Ba-z%5D%5Cw*)"),
    ("funcs", "attr._funcs defines asdict, assoc, astuple, evolve, has and resolve_types.", public_defs("src/attr/_funcs.py"),
     "repo://src/attr/_funcs.py#L10-L10", "repo://src/attr/_funcs.py?grep=%5Edef%20(%5Ba-z%5D%5Cw*)"),
]


def run(root: Path, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["-C", str(root), *argv])
    return rc, out.getvalue()


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def setup(root: Path, base: str) -> dict[tuple[str, str], str]:
    """The wiki at the base: each claim on lines.md (line range) and on kinds.md (the new kind)."""
    git(root, "checkout", "-q", base)
    run(root, "init")
    ids = {}
    for page, col in (("lines.md", 3), ("kinds.md", 4)):
        text = "---\ntype: Reference\ntitle: Claims\n---\n\n# Claims\n\n" + "\n\n".join(c[1] for c in CLAIMS) + "\n"
        (root / ".openwiki" / page).write_text(text)
        for c in CLAIMS:
            rc, out = run(root, "claim", "add", "--page", page, "--statement", c[1], "--evidence", c[col])
            if rc != 0:
                raise SystemExit(f"claim add {c[0]} {c[col]}: exit {rc}")
            ids[(page, c[0])] = out.split()[0]
    return ids


def statuses(root: Path) -> dict[str, str]:
    _, out = run(root, "check", "--format", "json")
    return {c["id"]: c["status"] for c in json.loads(out)["claims"]}


def replay(root: Path, base: str, commits: int, show: bool) -> dict[str, Any]:
    tip = git(root, "rev-parse", "HEAD").strip()
    ids = setup(root, base)
    oracle0 = {c[0]: c[2](root) for c in CLAIMS}
    live = {key: True for key in ids}  # followed until it first goes false
    tally = {page: {"caught": 0, "missed": 0, "false_alarms": 0, "went_false": 0, "dead": 0} for page in ("lines.md", "kinds.md")}
    flips: list[dict[str, Any]] = []
    alarms: list[dict[str, Any]] = []
    todo = git(root, "rev-list", "--first-parent", "--reverse", f"{base}..{tip}").split()[:commits]
    for sha in todo:
        git(root, "checkout", "-q", sha)
        truth = {c[0]: c[2](root) == oracle0[c[0]] for c in CLAIMS}
        now = statuses(root)
        for (page, key), cid in ids.items():
            if not live[(page, key)]:
                continue
            flagged = now.get(cid, "fresh") != "fresh"
            t = tally[page]
            if not truth[key]:
                live[(page, key)] = False
                t["went_false"] += 1
                t["caught" if flagged else "missed"] += 1
                if page == "kinds.md":
                    gone, new = sorted(oracle0[key] - CLAIMS_BY_KEY[key](root)), sorted(CLAIMS_BY_KEY[key](root) - oracle0[key])
                    subject = git(root, "log", "-1", "--format=%h %ad %s", "--date=short", sha).strip()
                    flips.append({"claim": key, "commit": subject, "added": new, "removed": gone})
            elif flagged:
                t["false_alarms"] += 1
                rc, _ = run(root, "claim", "confirm", cid, "--by", "human:bench", "--keep-statement")
                subject = git(root, "log", "-1", "--format=%h %s", sha).strip()
                alarms.append({"evidence": page, "claim": key, "commit": subject, "status": now.get(cid)})
                if rc != 0:  # unresolved: nothing to confirm; a person must re-point it, and it is no longer followed
                    live[(page, key)] = False
                    t["dead"] += 1
    if show:
        for f in flips:
            print(f"{f['claim']}: false at {f['commit']}: +{f['added']} -{f['removed']}")
        for a in alarms:
            print(f"false alarm ({a['evidence']}, {a['status']}): {a['claim']} at {a['commit']}")
    return {"base": base, "commits": len(todo), "claims": len(CLAIMS), "by_evidence": tally, "flips": flips, "false_alarms": alarms}


CLAIMS_BY_KEY = {c[0]: c[2] for c in CLAIMS}


def main_() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=600)
    ap.add_argument("--rev", default=BASE)
    ap.add_argument("--show-flips", action="store_true")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="replay-kinds-") as tmp:
        root = Path(tmp) / "attrs"
        subprocess.run(["git", "clone", "-q", str(BUNDLE), str(root)], check=True)
        res = replay(root, args.rev, args.commits, args.show_flips)
    if args.format == "json":
        print(json.dumps(res, indent=2))
        return 0
    print(f"{res['claims']} closed-world claims, {res['commits']} first-parent commits from {res['base'][:7]}")
    for page, name in (("lines.md", "line ranges"), ("kinds.md", "sets (glob, ?grep=)")):
        t = res["by_evidence"][page]
        recall = t["caught"] / t["went_false"] if t["went_false"] else 1.0
        print(f"{name:>20}: went false {t['went_false']}, caught {t['caught']}, missed {t['missed']} "
              f"(recall {recall:.2f}), false alarms {t['false_alarms']} ({t['dead']} unresolved: re-pointing needed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main_())
