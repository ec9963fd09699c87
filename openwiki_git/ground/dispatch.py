"""Where an option takes effect: the code a branch on its value runs. Pure: the files come in
through the index.

A sentence about what a CLI option does ("Uvicorn provides a lightweight way to run multiple
worker processes, for example `--workers 4`, but does not provide any process monitoring")
is true of the code the option switches on, not of the line declaring it: uvicorn's `run` reads
`elif config.workers > 1:` and runs `Multiprocess(config, ...).run()`. `dispatched` finds, in the
package's own code, each `if`/`elif` whose test reads the option's value (`x.workers`, or a name
`workers`) and, in the branch it guards, the project's classes and functions it calls: a
method called on an object made there (`Multiprocess(...).run()`: `Multiprocess.run`), else
the class or function called. uvicorn's new multiprocess manager rewrote `Multiprocess.run`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from openwiki_git.ground.index import SECONDARY, Definition, SourceIndex

MAX_BRANCHES = 8  # an option tested in more places than this is read everywhere: no one place holds it
MAX_CITED = 3


def dispatched(index: SourceIndex, option: str, parse: Callable[[str], ast.Module | None]) -> list[Definition]:
    """The project's definitions a branch on `--option`'s value calls (see the module docstring);
    [] when none, or when the value is tested in more than MAX_BRANCHES places. `parse`: a file's
    tree, parsed once a run (proves.Prover.tree)."""
    dest = option.lstrip("-").split("=", 1)[0].replace("-", "_")
    if not dest.isidentifier():
        return []
    key = ("dispatch", dest)  # an option named in several sentences is looked up once a run
    if key not in index.mentions:
        index.mentions[key] = _dispatched(index, dest, parse)
    return list(index.mentions[key])  # type: ignore[call-overload]


def _dispatched(index: SourceIndex, dest: str, parse: Callable[[str], ast.Module | None]) -> list[Definition]:
    tested = re.compile(rf"^[ \t]*(?:el)?if\b.*\b{dest}\b", re.M)  # a file is parsed only when a test's first line names it
    branches: list[tuple[str, ast.If]] = []
    for path in index.paths:
        if not path.endswith(".py") or SECONDARY.search(path):
            continue
        text = index.text(path)
        tree = parse(path) if text and dest in text and tested.search(text) else None
        if tree is None:
            continue
        branches += [(path, node) for node in ast.walk(tree) if isinstance(node, ast.If) and _reads(node.test, dest)]
    if not branches or len(branches) > MAX_BRANCHES:
        return []
    found: dict[tuple[str, int], Definition] = {}
    for path, node in branches:
        for d in _called(index, path, node.body):
            found.setdefault((d.path, d.start), d)
    return list(found.values())[:MAX_CITED]


def _reads(test: ast.expr, dest: str) -> bool:
    """Whether a condition reads the value: `config.workers > 1`, `self.workers`, `workers`."""
    return any(
        isinstance(n, ast.Attribute) and n.attr == dest or isinstance(n, ast.Name) and n.id == dest for n in ast.walk(test)
    )


def _called(index: SourceIndex, path: str, body: list[ast.stmt]) -> list[Definition]:
    """The project's definitions a branch calls, by the name its module binds them to."""
    module = index.modules.get(index.module_name(path))
    out: list[Definition] = []
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if not isinstance(node, ast.Call):
            continue
        func: ast.expr = node.func
        member = None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):  # `Multiprocess(...).run()`
            member = func.attr
            func = func.value.func
        if not isinstance(func, ast.Name) or module is None:
            continue
        target = module.aliases.get(func.id, f"{module.name}.{func.id}")
        defs = [d for d in index.expand(f"{target}.{member}" if member else target) if d.kind in ("class", "function", "method")]
        if len(defs) == 1:
            out.append(defs[0])
    return out
