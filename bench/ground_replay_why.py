"""Why a definition's evidence changed between two versions of its file: the categories
`bench/ground_replay.py --why` counts for every stale claim whose sentence is still true.

A head (`#Name:head`) or a whole definition (`#Name`) is read at the base and at the window's end
and what differs is named, one category per kind of change (a claim may have several):

- `not found` (no definition of that name at the end: moved, renamed or deleted; the file gone);
- `summary reworded` (a head's docstring summary, read as prose, has other words);
- `docstring words` (a whole definition: one of its docstrings, read as prose, has other words);
- `parameter added with default`, `parameter added without default`, `parameter removed or
  renamed`, `default added` (an existing parameter that had none gained one), `default changed`
  (or removed), `annotation changed` (a parameter's or the return's), `parameter kind or order`;
- `decorator changed`, `bases changed` (a class's bases or keywords), `@overload added` (the
  name gained `typing.overload` declarations);
- `body code` (a whole definition: its code outside the head changed, docstrings aside) or
  `body annotations` (only annotations in it: a method's signature);
- `formatting only` (what changed is whitespace, wrapping or comments: the cosmetic rules should
  have kept it fresh, so it is a bug of ours) and `unexplained` (none of the above found).

The bench owns this reading (it is not a product rule): it only explains figures.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from openwiki_git.diff import cosmetic
from openwiki_git.diff.signatures import ast_key
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol
from openwiki_git.evidence.tokens import split_lines

Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def causes(sym: Symbol, old_text: str | None, new_text: str | None) -> list[str]:
    """The categories of change of `sym` between `old_text` (the base) and `new_text` (the end)."""
    if old_text is None:
        return ["unexplained"]
    new = definitions.find(sym.path, new_text, sym.name) if new_text is not None else None
    old = definitions.find(sym.path, old_text, sym.name)
    if new is None or old is None or new_text is None:
        return ["not found"]
    old_lines, new_lines = split_lines(old_text), split_lines(new_text)
    found: list[str] = []
    if sym.head and old.head_summary(old_lines) != new.head_summary(new_lines):
        found.append("summary reworded")
    if not sym.head and old.docstring_proses(old_lines) != new.docstring_proses(new_lines):
        found.append("docstring words")
    found += _signature(sym.name, old_text, new_text)
    if not sym.head:
        old_body = split_lines(old.body_text(old.code_lines(old_lines)))
        new_body = split_lines(new.body_text(new.code_lines(new_lines)))
        if old_body != new_body and cosmetic.compare(sym.path, old_body, new_body) is None:
            annotations_only = cosmetic.compare(sym.path, old_body, new_body, annotations=True) is not None
            found.append("body annotations" if annotations_only else "body code")
    if not found:
        old_code, new_code = split_lines(old.head_code(old_lines)), split_lines(new.head_code(new_lines))
        found.append("formatting only" if old_code != new_code and cosmetic.compare(sym.path, old_code, new_code) else "unexplained")
    return found


def _signature(name: str, old_text: str, new_text: str) -> list[str]:
    old_all, new_all = _named(old_text, name), _named(new_text, name)
    if not old_all or not new_all:
        return []
    found = ["@overload added"] if len(_overloads(new_all)) > len(_overloads(old_all)) else []
    old, new = old_all[-1], new_all[-1]  # the one Python binds, as definitions.find reads it
    if ast_key(old.decorator_list) != ast_key(new.decorator_list):
        found.append("decorator changed")
    if isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef):
        if ast_key(old.bases, old.keywords) != ast_key(new.bases, new.keywords):
            found.append("bases changed")
        inits = [_init(old), _init(new)]
        if inits[0] is None or inits[1] is None:
            return found + (["parameter removed or renamed"] if inits[0] is not inits[1] else [])
        old, new = inits[0], inits[1]
    assert not isinstance(old, ast.ClassDef) and not isinstance(new, ast.ClassDef)
    if ast_key(old.returns) != ast_key(new.returns):
        found.append("annotation changed")
    return found + _parameters(_params(old.args), _params(new.args))


def _parameters(old: list[tuple[str, str, str, str | None]], new: list[tuple[str, str, str, str | None]]) -> list[str]:
    found: set[str] = set()
    old_by, new_by = {p[1]: p for p in old}, {p[1]: p for p in new}
    if set(old_by) - set(new_by):
        found.add("parameter removed or renamed")
    for added in (new_by[n] for n in set(new_by) - set(old_by)):
        found.add("parameter added with default" if added[3] is not None or added[0] in ("*", "**") else "parameter added without default")
    for n in set(old_by) & set(new_by):
        (k0, _, a0, d0), (k1, _, a1, d1) = old_by[n], new_by[n]
        if a0 != a1:
            found.add("annotation changed")
        if d0 != d1:
            found.add("default added" if d0 is None else "default changed")
        if k0 != k1:
            found.add("parameter kind or order")
    if [p[1] for p in old if p[1] in new_by] != [p[1] for p in new if p[1] in old_by]:
        found.add("parameter kind or order")
    return sorted(found)


def _named(text: str, name: str) -> list[Def]:
    """Every definition `name` (dotted through classes) at its level, in source order."""
    try:
        body: list[ast.stmt] = ast.parse(text).body
    except (SyntaxError, ValueError):
        return []
    found: list[Def] = []
    for i, part in enumerate(name.split(".")):
        found = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part]
        if not found:
            return []
        if i < len(name.split(".")) - 1:
            body = found[-1].body
    return found


def _overloads(defs: Iterable[Def]) -> list[Def]:
    """The `@overload` (or `@typing.overload`) declarations among `defs`."""
    def is_overload(x: ast.expr) -> bool:
        return (isinstance(x, ast.Name) and x.id == "overload") or (isinstance(x, ast.Attribute) and x.attr == "overload")

    return [d for d in defs if any(is_overload(x) for x in d.decorator_list)]


def _init(cls: ast.ClassDef) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    inits = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"]
    return inits[-1] if inits else None


def _params(args: ast.arguments) -> list[tuple[str, str, str, str | None]]:
    """(kind, name, annotation, default) of each parameter, in order."""
    positional = [("posonly", a) for a in args.posonlyargs] + [("pos", a) for a in args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    rows: list[tuple[str, ast.arg, ast.expr | None]] = [(k, a, d) for (k, a), d in zip(positional, defaults, strict=True)]
    rows += [("*", args.vararg, None)] if args.vararg else []
    rows += [("kw", a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    rows += [("**", args.kwarg, None)] if args.kwarg else []
    return [(k, a.arg, ast_key(a.annotation), None if d is None else ast_key(d)) for k, a, d in rows]
