"""Where an option takes effect: the code a branch on its value runs. Pure: the files come in
through the index.

A sentence about what a CLI option does ("Uvicorn provides a lightweight way to run multiple
worker processes, for example `--workers 4`, but does not provide any process monitoring")
is true of the code the option switches on, not of the line declaring it: uvicorn's `run` reads
`elif config.workers > 1:` and runs `Multiprocess(config, ...).run()`. `dispatched` finds, in the
package's own code, each outermost `if` whose test reads the option's value (`x.workers`, or a
name `workers` where it is a parameter of the function testing it: elsewhere a bare name is a
local that happens to share it, like a loop's `host`) and, in that statement (its `elif`s and
`else` are the other values' effect), the project's classes and functions it calls: a method
called on an object made there (`Multiprocess(...).run()`: `Multiprocess.run`), else the class
or function called. uvicorn's new multiprocess manager rewrote `Multiprocess.run`.

Where no branch calls the project's code, the branches hold the effect themselves: "This option
is ignored if the `--log-config` CLI option is used" is true of `configure_logging`'s `if
self.log_config is not None:` statement. Their lines are cited, each statement up to
MAX_BRANCH_LINES, when the value is tested in no more than MAX_BRANCH_SITES places and read
nowhere else (but passed on under its own name): uvicorn's `reload` is tested by a Windows warning
and an import-string check, and read by `should_reload`, which decides the reloading.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from openwiki_git.ground.index import SECONDARY, Definition, SourceIndex

MAX_BRANCHES = 8  # an option tested in more places than this is read everywhere: no one place holds it
MAX_CITED = 3
MAX_BRANCH_LINES = 25  # a longer block is a procedure, not the option's effect: a change anywhere in it would mark
# A value tested in more places than this is threaded through the code, as is one read outside
# its branches (_read_elsewhere): no few lines hold its effect.
MAX_BRANCH_SITES = 4


@dataclass(frozen=True, slots=True)
class Effect:
    """Where an option takes effect: the definitions its branches call, else the branches' lines."""

    definitions: tuple[Definition, ...] = ()
    lines: tuple[tuple[str, int, int], ...] = ()  # (path, first line, last line)

    @property
    def resources(self) -> list[str]:
        """The branches' lines, as evidence."""
        return [f"repo://{path}#L{start}-L{end}" for path, start, end in self.lines]


def dispatched(index: SourceIndex, option: str, parse: Callable[[str], ast.Module | None]) -> Effect:
    """Where a branch on `--option`'s value takes effect (see the module docstring); empty when
    nowhere, or when the value is tested in more than MAX_BRANCHES places. `parse`: a file's
    tree, parsed once a run (proves.Prover.tree)."""
    dest = option.lstrip("-").split("=", 1)[0].replace("-", "_")
    if not dest.isidentifier():
        return Effect()
    key = ("dispatch", dest)  # an option named in several sentences is looked up once a run
    if key not in index.mentions:
        index.mentions[key] = _dispatched(index, dest, parse)
    return index.mentions[key]  # type: ignore[return-value]


def _dispatched(index: SourceIndex, dest: str, parse: Callable[[str], ast.Module | None]) -> Effect:
    tested = re.compile(rf"^[ \t]*(?:el)?if\b.*\b{dest}\b", re.M)  # a file is parsed only when a test's first line names it
    branches: list[tuple[str, ast.If]] = []
    for path in index.paths:
        if not path.endswith(".py") or SECONDARY.search(path):
            continue
        text = index.text(path)
        tree = parse(path) if text and dest in text and tested.search(text) else None
        if tree is None:
            continue
        try:
            branches += [(path, node) for node in _tests(tree, dest, frozenset())]
        except RecursionError:  # an expression nested deeper than the walk can follow: no branch read there
            continue
    if not branches or len(branches) > MAX_BRANCHES:
        return Effect()
    found: dict[tuple[str, int], Definition] = {}
    for path, node in branches:
        for d in _called(index, path, [node]):
            found.setdefault((d.path, d.start), d)
    if found:
        return Effect(definitions=tuple(list(found.values())[:MAX_CITED]))
    if len(branches) > MAX_BRANCH_SITES or _read_elsewhere(index, dest, branches, parse):
        return Effect()
    spans = [(path, node.lineno, node.end_lineno or node.lineno) for path, node in branches]
    return Effect(lines=tuple(s for s in spans if s[2] - s[1] < MAX_BRANCH_LINES))


def _read_elsewhere(index: SourceIndex, dest: str, branches: list[tuple[str, ast.If]], parse: Callable[[str], ast.Module | None]) -> bool:
    """Whether the package reads the value outside the branches: then they are not all its effect
    (uvicorn's `reload` is read by `should_reload`, which decides the reloading; the branches
    testing it only warn). Passing it on under its own name (`run(log_config=...)`, `self.x =
    config.x`) is no use of it."""
    inside: dict[str, list[tuple[int, int]]] = {}
    for path, node in branches:
        inside.setdefault(path, []).append((node.lineno, node.end_lineno or node.lineno))
    word = re.compile(rf"\b{dest}\b")
    for path in index.paths:
        text = index.text(path) if path.endswith(".py") and not SECONDARY.search(path) else None
        tree = parse(path) if text and word.search(text) else None
        try:
            uses = _uses(tree, dest, frozenset(), False) if tree is not None else []
        except RecursionError:
            return True  # nested deeper than the walk can follow: it may read the value anywhere
        if any(not any(a <= line <= z for a, z in inside.get(path, ())) for line in uses):
            return True
    return False


def _uses(node: ast.AST, dest: str, parameters: frozenset[str], passed: bool) -> list[int]:
    """The lines reading the value under `node`, but for passing it on under its own name (a
    keyword argument, a dict's key, an attribute or variable of that name)."""
    out: list[int] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            out += _uses(child, dest, _parameters(child), False)
            continue
        if isinstance(child, ast.Dict):  # `{"log_config": log_config, ...}`: passed on under its name
            for key, value in zip(child.keys, child.values, strict=True):
                named = passed or isinstance(key, ast.Constant) and key.value == dest
                out += [*(_uses(key, dest, parameters, passed) if key is not None else []), *_uses(_wrap(value), dest, parameters, named)]
            continue
        copy = isinstance(child, ast.Assign) and all(_named(t, dest) for t in child.targets)
        here = passed or copy or isinstance(child, ast.keyword) and child.arg == dest
        if not here and isinstance(getattr(child, "ctx", None), ast.Load) and (
            isinstance(child, ast.Attribute) and child.attr == dest
            or isinstance(child, ast.Name) and child.id == dest and dest in parameters
        ):
            out.append(child.lineno)
        out += _uses(child, dest, parameters, here)
    return out


def _wrap(node: ast.expr) -> ast.AST:
    """`node` under a parent, so that _uses, which reads children, reads it too."""
    return ast.Expr(value=node, lineno=node.lineno, col_offset=node.col_offset)


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """The names a function takes: a bare name among them is a value handed in."""
    args = fn.args
    return frozenset(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])


def _named(target: ast.expr, dest: str) -> bool:
    return isinstance(target, ast.Attribute) and target.attr == dest or isinstance(target, ast.Name) and target.id == dest


def _tests(node: ast.AST, dest: str, parameters: frozenset[str]) -> list[ast.If]:
    """The outermost `if`s under `node` whose test reads the value (an `elif` on it is inside its
    `if`), with the parameters of the function each is in: a bare name reads the value only there."""
    out: list[ast.If] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            out += _tests(child, dest, _parameters(child))
        elif isinstance(child, ast.If) and _reads(child.test, dest, parameters):
            out.append(child)
        else:
            out += _tests(child, dest, parameters)
    return out


def _reads(test: ast.expr, dest: str, parameters: frozenset[str]) -> bool:
    """Whether a condition reads the value: `config.workers > 1`, `self.workers`, or `workers`
    where `workers` is a parameter of the function testing it."""
    return any(
        isinstance(n, ast.Attribute) and n.attr == dest or isinstance(n, ast.Name) and n.id == dest and dest in parameters
        for n in ast.walk(test)
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
