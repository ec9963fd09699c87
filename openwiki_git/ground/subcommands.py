"""The commands a console example runs of one of the project's programs, found where the
program's module declares them (ground/examples.py cites them beside the program's line). Pure:
the files come in through the index.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from openwiki_git.ground import example_evidence
from openwiki_git.ground.index import SourceIndex


def declared(index: SourceIndex, target: str, words: Iterable[str]) -> dict[str, str]:
    """Where the module of the program running `target` (dotted: `typer.cli.main`) declares the
    commands a console example runs (`typer main.py run`, `typer pkg.main utils docs`): a function of the word's name that a `.command()`
    decorates (its head: it declares the command's options), else the code passing the word as
    a string (`add_typer(utils_app, name="utils")`; `if "run" not in cli.commands:`): the
    function holding it, whole up to a screen, else its line. Only that module is read: a word
    the program takes as a value (a name, a path) is nothing there. {resource: what it is}."""
    defs = [d for d in index.expand(target) if d.kind == "function"]
    tree = index.tree(defs[0].path) if len(defs) == 1 else None
    if tree is None:
        return {}
    module = index.module_name(defs[0].path)
    out: dict[str, str] = {}
    for word in words:
        found = _command_function(tree, word.replace("-", "_")) or _passing(tree, word)
        if found is None:
            continue
        node, line = found
        named = index.expand(f"{module}.{node.name}") if node is not None else []
        d = named[0] if len(named) == 1 else None
        head = example_evidence.head_resource(index, d) if d is not None else None
        if line is None:  # the command's function
            resource = head
        else:  # the function passing the word, when short; else the line
            short = example_evidence.whole_if_short(index, d, "") if d is not None and head else ""
            resource = short or f"repo://{defs[0].path}#L{line}-L{line}"
        if resource:
            out.setdefault(resource, f"{target.rsplit('.', 1)[0]} {word}")
    return out


_Found = tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, int | None]


def _command_function(tree: ast.Module, name: str) -> _Found | None:
    """A top-level function `name` decorated by a `.command(...)` call: the command itself."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name and any(
            isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "command"
            for dec in node.decorator_list
        ):
            return node, None
    return None


def _passing(tree: ast.Module, word: str) -> _Found | None:
    """The first string constant equal to `word`: the top-level function holding it, and its line."""
    for top in tree.body:
        for node in ast.walk(top):
            if isinstance(node, ast.Constant) and node.value == word:
                holder = top if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
                return holder, node.lineno
    return None
