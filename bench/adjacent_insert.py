"""Measure what `adjacent_insert` should default to, on real edits.

The corpus is what this machine holds: consecutive releases of the Python standard library
(pyenv's 3.9 -> 3.10 -> 3.11 -> 3.12 -> 3.13, tests excluded) and of pip and setuptools
(the wheels bundled with ensurepip and virtualenv). Each pair is committed to a temporary git
repository and diffed by openwiki-git's own engine (gitdiff: zero context, indent heuristic,
rename detection). Every function and class of the old release is a cited range (`def`/`class`
line to its last line, as a claim about it would cite), mapped through the hunks (diffmap).

For each range that only an insertion right at its edge touched (nothing inside it changed),
the definition is looked up by qualified name in the new release and its AST compared:

- unchanged: the insertion was a neighbour (a new function after it, a comment, a blank line):
  `adjacent_insert: stale` would be a false alarm;
- changed: the edge insertion changed what the range means (a statement appended to the body, a
  decorator added above): `adjacent_insert: fresh` misses it.

Run: python bench/adjacent_insert.py   (a few minutes; prints a table)
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openwiki_git.diff.hunks import map_range  # noqa: E402
from openwiki_git.git import diff as gitdiff  # noqa: E402
from openwiki_git.git.repo import Repo  # noqa: E402

PYENV = Path.home() / ".pyenv" / "versions"
SKIP_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__", "lib2to3", "_vendor"}


def stdlib(version: str) -> Path | None:
    found = sorted(PYENV.glob(f"{version}.*/lib/python{version}"))
    return found[-1] if found else None


def wheel(pattern: str) -> Path | None:
    found = sorted(Path("/").glob(pattern.lstrip("/")))
    return found[0] if found else None


def copy_py(src: Path, dest: Path, *, from_wheel: bool) -> None:
    if from_wheel:
        with zipfile.ZipFile(src) as z:
            for name in z.namelist():
                parts = name.split("/")
                if name.endswith(".py") and not SKIP_DIRS & set(parts) and ".dist-info" not in name:
                    out = dest / name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(z.read(name))
        return
    for p in src.rglob("*.py"):
        rel = p.relative_to(src)
        if SKIP_DIRS & set(rel.parts):
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, out)


def git(root: Path, *args: str) -> str:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin"}
    ident = ["-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *ident, *args], cwd=root, env=env, capture_output=True, text=True, check=True).stdout


def definitions(tree: ast.AST) -> dict[str, ast.AST]:
    out: dict[str, ast.AST] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                out.setdefault(name, child)
                walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


def parse(text: str) -> ast.AST | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def measure(label: str, old: Path, new: Path, *, from_wheel: bool, stats: Counter[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "-b", "main")
        copy_py(old, root, from_wheel=from_wheel)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "old")
        for p in root.iterdir():
            if p.name != ".git":
                shutil.rmtree(p) if p.is_dir() else p.unlink()
        copy_py(new, root, from_wheel=from_wheel)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "new")
        repo = Repo(root)
        old_id, new_id = repo.commit_id("HEAD~1"), repo.commit_id("HEAD")
        diff = gitdiff.between(repo, old_id, new_id)
        local: Counter[str] = Counter()
        for change in diff.changes:
            if change.old_path is None or change.new_path is None or not change.hunks:
                continue
            old_text, new_text = repo.read(change.old_path, old_id).text, repo.read(change.new_path, new_id).text
            if old_text is None or new_text is None:
                continue
            old_tree, new_tree = parse(old_text), parse(new_text)
            if old_tree is None or new_tree is None:
                continue
            new_defs = definitions(new_tree)
            for name, node in definitions(old_tree).items():
                start, end = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
                m = map_range(start, end, change.hunks, adjacent_insert="stale")
                local["ranges in changed files"] += 1
                if not m.adjacent:
                    local[f"{m.status} (no edge insertion)" if m.status != "fresh" else "fresh"] += 1
                    continue
                local["edge insertion only"] += 1
                twin = new_defs.get(name)
                if twin is None:
                    local["  definition gone (renamed?)"] += 1
                    continue
                same = ast.dump(node) == ast.dump(twin)
                if same:
                    local["  unchanged: a neighbour was inserted"] += 1
                    continue
                decorators = [ast.dump(d) for d in getattr(node, "decorator_list", [])]
                new_decorators = [ast.dump(d) for d in getattr(twin, "decorator_list", [])]
                kind = "decorator added above" if decorators != new_decorators else "body extended"
                local[f"  changed: {kind}"] += 1
        print(f"\n{label}: {len(diff.changes)} files changed")
        for key, n in sorted(local.items()):
            print(f"  {key:45} {n:7}")
        stats.update(local)


def main() -> int:
    pairs: list[tuple[str, Path | None, Path | None, bool]] = []
    versions = ["3.9", "3.10", "3.11", "3.12", "3.13"]
    for a, b in zip(versions, versions[1:]):
        pairs.append((f"stdlib {a} -> {b}", stdlib(a), stdlib(b), False))
    home = Path.home()
    pip = [
        wheel(f"{PYENV}/3.7.*/lib/python3.7/ensurepip/_bundled/pip-*.whl"),
        wheel(f"{PYENV}/3.12.*/lib/python3.12/ensurepip/_bundled/pip-*.whl"),
        wheel(f"{PYENV}/3.13.*/lib/python3.13/ensurepip/_bundled/pip-*.whl"),
        wheel(f"{home}/.cache/virtualenv/wheel/house/pip-*.whl"),
    ]
    pip = [p for p in pip if p is not None]
    for a, b in zip(pip, pip[1:]):
        pairs.append((f"{a.name.split('-py')[0]} -> {b.name.split('-py')[0]}", a, b, True))
    setuptools = [
        wheel(f"{PYENV}/3.11.*/lib/python3.11/ensurepip/_bundled/setuptools-*.whl"),
        wheel(f"{PYENV}/3.12.*/lib/python3.12/test/setuptools-*.whl"),
    ]
    setuptools = [p for p in setuptools if p is not None]
    for a, b in zip(setuptools, setuptools[1:]):
        pairs.append((f"{a.name.split('-py')[0]} -> {b.name.split('-py')[0]}", a, b, True))
    stats: Counter[str] = Counter()
    for label, old, new, from_wheel in pairs:
        if old is None or new is None:
            print(f"{label}: not on this machine, skipped")
            continue
        measure(label, old, new, from_wheel=from_wheel, stats=stats)
    print("\nall pairs:")
    for key, n in sorted(stats.items()):
        print(f"  {key:45} {n:7}")
    edge = stats["edge insertion only"]
    if edge:
        unchanged = stats["  unchanged: a neighbour was inserted"]
        changed = stats["  changed: body extended"] + stats["  changed: decorator added above"]
        print(f"\nof {edge} ranges touched only at an edge: {unchanged} ({100 * unchanged / edge:.0f}%) unchanged "
              f"(false alarms under `stale`), {changed} ({100 * changed / edge:.0f}%) changed (missed under `fresh`)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
