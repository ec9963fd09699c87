"""Where a cited piece of Python syntax is after an edit that rewrote the lines around it. Pure.

A range mapped through a diff's hunks (hunks.py) follows line numbers: when a hunk replaces the
lines of a function's signature, a range citing one parameter inside it lands wherever the hunk
starts on the new side, which is some other parameter's line. On typer's history one commit
rewrote every parameter of `Typer.__init__` from `x: bool = True,` to a 20-line
`x: Annotated[bool, Doc("...")] = True,`: the hook moved the claim citing
`pretty_exceptions_show_locals` onto `rich_markup_mode`'s first line, so the later commit that
changed that parameter's default marked nothing.

`follow` reads the cited lines as syntax on the old side: the whole lines of one or more
parameters of one function, of one module- or class-level assignment, of a `def` or `class`
statement (its signature, without its body), or of one whole definition;
it finds the same thing by name on the new side (the function by its qualified name, the
parameters by theirs) and gives its lines there, all of them: the extent is the syntax's, not a
guess, so the caller does not bound its growth. Anything else (a range that cuts a statement in
two, a name found twice, a file that does not parse) is None and the hunks decide as before.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterator

from openwiki_git.diff import cosmetic
from openwiki_git.diff.signatures import module_of
from openwiki_git.evidence.definitions import signature_end

__all__ = ["follow"]

Span = tuple[int, int]  # 1-based, inclusive
Key = tuple[str, ...]  # what a unit is, by name: ("param", "Typer.__init__", "help"), ("assign", "", "HAS_RICH"), ("def", "Typer")


def follow(path: str, old_text: str, new_text: str, start: int, end: int) -> Span | None:
    """The new-side lines of the syntax that old lines `start`-`end` hold exactly (see the module
    docstring), or None."""
    if not path.endswith(cosmetic.PYTHON_SUFFIXES):
        return None
    old_units = _units_of(old_text)
    keys = _cited(old_units, start, end) if old_units is not None else []
    new_units = _units_of(new_text) if keys else None
    if new_units is None:
        return None
    spans = [new_units.get(k) for k in keys]
    if any(s is None for s in spans):
        return None
    return min(s[0] for s in spans if s), max(s[1] for s in spans if s)


def _cited(units: dict[Key, Span | None], start: int, end: int) -> list[Key]:
    """The units the range holds whole and nothing but: one definition, one signature, one
    assignment, or parameters of one function (from the first one's first line to the last one's last line).
    A unit whose name is not unique (None in `units`) makes the answer empty."""
    inside = [(k, s) for k, s in units.items() if s is not None and start <= s[0] and s[1] <= end]
    if not inside:
        return []
    exact = [k for k, s in inside if s == (start, end) and k[0] != "param"]
    if exact:
        return exact[:1] if len(exact) == 1 else []
    params = [(k, s) for k, s in inside if k[0] == "param"]
    if len(params) != len(inside) or len({k[1] for k, _ in params}) != 1:
        return []
    if min(s[0] for _, s in params) != start or max(s[1] for _, s in params) != end:
        return []
    return [k for k, _ in params]


@functools.lru_cache(maxsize=4)
def _units_of(text: str) -> dict[Key, Span | None] | None:
    """Every unit of the file by its key (None for a key found more than once: ambiguous), or
    None when it does not parse: once per version of a file however many claims cite it (the
    hook follows every cited range a commit rewrote; callers never change the map)."""
    tree = module_of(text)
    if tree is None:
        return None
    found: dict[Key, Span | None] = {}
    try:
        for key, span in _walk(tree.body, ""):
            found[key] = None if key in found else span
    except RecursionError:  # nesting `ast` parsed but a walk cannot follow
        return None
    return found


def _walk(body: list[ast.stmt], scope: str) -> Iterator[tuple[Key, Span]]:
    defined = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    count = Counter(n.name for n in defined)
    seen: Counter[str] = Counter()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            seen[node.name] += 1
            # A name bound several times (typer's `@overload`ed `Argument`) is told apart by its
            # place among them, when both sides have as many.
            own = node.name if count[node.name] == 1 else f"{node.name}#{seen[node.name]}/{count[node.name]}"
            name = f"{scope}.{own}" if scope else own
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            yield ("def", name), (first, node.end_lineno or node.lineno)
            yield ("signature", name), (node.lineno, _signature_last(node))
            if isinstance(node, ast.ClassDef):
                yield from _walk(node.body, name)
            else:
                yield from _parameters(node, name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if names and len(names) == len(targets):
                yield ("assign", scope, *names), (node.lineno, node.end_lineno or node.lineno)


def _signature_last(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    """The `def`/`class` statement's last line, its body's first line when that shares it
    (`def f(a: int) -> int: ...`)."""
    parts: list[ast.AST] = [*node.decorator_list]
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *node.keywords]
    else:
        a = node.args
        parts += [*a.posonlyargs, *a.args, *a.kwonlyargs, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
        parts += [p for p in (a.vararg, a.kwarg, node.returns) if p is not None]
    return max([signature_end(node), *(getattr(p, "end_lineno", None) or 0 for p in parts)])


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> Iterator[tuple[Key, Span]]:
    """Each parameter's lines: its name and annotation through its default."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: dict[int, ast.expr] = {id(p): d for p, d in zip(positional[len(positional) - len(a.defaults) :], a.defaults)}
    defaults.update({id(p): d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    for p in [*positional, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]:
        last = defaults.get(id(p), p)
        yield ("param", name, p.arg), (p.lineno, max(p.end_lineno or p.lineno, last.end_lineno or last.lineno))
