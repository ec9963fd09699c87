"""Has a Python signature only gained parameters with defaults, or changed defaults? Two versions
of a file read with `ast`, one definition's signature compared. Pure. What `cosmetic_parameters_added: true` counts
as cosmetic in a head (claims/kinds.py owns the head comparisons; cosmetic.py the token rules):
a library adding keyword options (typer's Rich parameters) leaves every sentence about the
existing ones true.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from openwiki_git.diff import cosmetic


def parameters_changed(
    path: str, old_text: str, new_text: str, name: str, *, annotations: bool | None = False
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(added, defaults changed): the parameters a signature gained with defaults and those whose
    default changed, when that is all that changed (as parameters_added reads it otherwise: names,
    kinds, order, annotations, decorators, the return annotation the same); None else, or when
    nothing did."""
    params = _compared(path, old_text, new_text, name, annotations)
    if params is None:
        return None
    old, new = params
    was = {p[1]: p[3] for p in old}
    changed = tuple(p[1] for p in new if p[3] is not None and was.get(p[1]) is not None and was[p[1]] != p[3])
    added = _added(old, [(p[0], p[1], p[2], was[p[1]]) if p[1] in changed else p for p in new])  # the rest compared as before
    if added is None or not (added or changed):
        return None
    return tuple(added), changed


def annotations_of(text: str, name: str) -> dict[str, str] | None:
    """The definition `name`'s annotations as written (a class: its `__init__`'s), by parameter
    and `->` for the return; None when it is not one function of that name."""
    import ast

    node = _named(text, name)
    if isinstance(node, ast.ClassDef):
        node = _named_in(node.body, "__init__")
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    a = node.args
    every = [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]
    found = {p.arg: ast.unparse(p.annotation) for p in every if p.annotation is not None}
    if node.returns is not None:
        found["->"] = ast.unparse(node.returns)
    return found


def parameters_added(path: str, old_text: str, new_text: str, name: str, *, annotations: bool = False) -> tuple[str, ...] | None:
    """The parameters the definition `name` (dotted; a class: its `__init__`'s) gained between two
    versions of its file when that is its signature's only change: each new one with a default
    (positional-or-keyword ones after the existing ones, keyword-only ones anywhere among those; a
    new `*args`/`**kwargs`), the rest (existing parameters' names, kinds, order, defaults and
    annotations, return annotation, decorators, a class's bases) the same, annotations aside with
    `annotations=True`; `@overload` declarations before it are not compared (the head does not
    cover them). Else None (nothing added, an ambiguous name, a side not parsing)."""
    params = _compared(path, old_text, new_text, name, annotations)
    added = _added(*params) if params is not None else None
    return tuple(added) if added else None


def _compared(
    path: str, old_text: str, new_text: str, name: str, annotations: bool | None
) -> tuple[list[Param], list[Param]] | None:
    """Both sides' parameters, when the rest of the signature (decorators, a class's bases, the
    return annotation) is the same; None when it is not, or a side does not parse."""
    import ast

    if not path.endswith(cosmetic.PYTHON_SUFFIXES):
        return None
    old, new = _named(old_text, name), _named(new_text, name)
    if old is None or new is None or type(old) is not type(new):
        return None
    if isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef):
        if ast_key(old.decorator_list, old.bases, old.keywords, getattr(old, "type_params", [])) != ast_key(
            new.decorator_list, new.bases, new.keywords, getattr(new, "type_params", [])
        ):
            return None
        old, new = _named_in(old.body, "__init__"), _named_in(new.body, "__init__")
        if not isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef)) or type(old) is not type(new):
            return None
    assert isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(new, (ast.FunctionDef, ast.AsyncFunctionDef))
    returns = (None, None) if annotations else (_metadata_out(old.returns, annotations), _metadata_out(new.returns, annotations))
    old_rest, new_rest = (ast_key(n.decorator_list, r, getattr(n, "type_params", [])) for n, r in ((old, returns[0]), (new, returns[1])))
    if old_rest != new_rest:
        return None
    return _params(old.args, annotations), _params(new.args, annotations)


def same_body(path: str, old_text: str, new_text: str, name: str, handed_on: Sequence[str]) -> bool:
    """Whether function `name` (dotted; a class: its `__init__`) has the same body in both
    versions (its docstring included, compared through `ast`; one added where there was none, or
    one that only gained words, is prose, no code: typer's `command` documented with its
    parameters, attrs' `field` noting when its `type` came), but for the parameters `handed_on`
    passed on by keyword under their own name (`h11_max_incomplete_event_size=h11_max_incomplete_event_size`
    in a call): uvicorn's `run` gaining an option it hands to `Config` does nothing else."""
    import ast
    import copy

    if not path.endswith(cosmetic.PYTHON_SUFFIXES):
        return False
    old, new = _named(old_text, name), _named(new_text, name)
    if isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef):
        old, new = _named_in(old.body, "__init__"), _named_in(new.body, "__init__")
    if not isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef)) or type(old) is not type(new):
        return False
    passed = set(handed_on)
    old_body, new_body = old.body, new.body
    if _docstring(new.body) and not _docstring(old.body):  # a docstring added: prose, no code
        new_body = new.body[1:]
    elif _docstring(new.body) and _docstring(old.body) and _extended(old.body[0], new.body[0]):
        old_body, new_body = old.body[1:], new.body[1:]  # attrs' `field` given `.. versionadded::` for its new `type`

    class _HandedOnOut(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            node.keywords = [k for k in node.keywords if not (k.arg in passed and isinstance(k.value, ast.Name) and k.value.id == k.arg)]
            return node

    try:
        body = [_HandedOnOut().visit(copy.deepcopy(stmt)) for stmt in new_body] if passed else new_body
        return ast_key(old_body) == ast_key(body)
    except RecursionError:  # nesting `ast` parsed but a walk cannot follow: not known to be the same
        return False


def _extended(old: object, new: object) -> bool:
    """Whether a docstring (an `Expr` of a string) only gained words: every word of the old one is
    in the new one (prose added, none taken out)."""
    import re

    words = [re.findall(r"\w+", str(getattr(getattr(d, "value", None), "value", "")).lower()) for d in (old, new)]
    return set(words[0]) <= set(words[1])


def _docstring(body: Sequence[object]) -> bool:
    """Whether a function's body starts with its docstring."""
    import ast

    first = body[0] if body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


Param = tuple[str, str, str, str | None]  # kind, name, annotation (dumped), default (dumped; None: none)


def only_function(text: str) -> str | None:
    """The name of the one function `text` defines at its top level and nothing else (a cited
    `@overload` declaration), or None."""
    import ast

    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return body[0].name


@functools.lru_cache(maxsize=4)
def module_of(text: str):  # type: ignore[no-untyped-def]
    """`text` parsed, or None: one parse per version of a file while the hook or `check` judges
    every claim citing it (a commit marking many claims on one file asks for the same two texts
    for each). Callers never change the tree (same_body edits a copy)."""
    import ast

    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _named(text: str, name: str):  # type: ignore[no-untyped-def]
    """The one class or function `name` (dotted through classes) in `text`, or None."""
    node: object = module_of(text)
    if node is None:
        return None
    for part in name.split("."):
        node = _named_in(getattr(node, "body", []), part)
        if node is None:
            return None
    return node


def _named_in(body: Sequence[object], name: str):  # type: ignore[no-untyped-def]
    """The definition `name` binds in `body`: the only one, or the implementation after its
    `@overload` declarations (typer 0.8.0's `Argument` and `Option`; the one definitions.find
    reads and a head covers: the declarations are not part of it); a declaration alone (one cited
    by its lines: kinds.lines_parameters_changed). None when ambiguous."""
    import ast

    found = [n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    implementations = [n for n in found if not any(_is_overload(d) for d in getattr(n, "decorator_list", []))]
    return found[-1] if found and (implementations == [found[-1]] or len(found) == 1) else None


def _is_overload(decorator: object) -> bool:
    """`@overload`, `@typing.overload` (or any module's `overload`)."""
    import ast

    return (isinstance(decorator, ast.Name) and decorator.id == "overload") or (
        isinstance(decorator, ast.Attribute) and decorator.attr == "overload"
    )


def ast_key(*parts: object) -> str:
    """A text that is equal for equal AST parts (nodes, lists of them, plain values): what the
    signature comparison compares (and bench/ground_replay_why.py's categories)."""
    import ast

    def one(p: object) -> str:
        if isinstance(p, list):
            return "[" + ",".join(one(x) for x in p) + "]"
        return ast.dump(p) if isinstance(p, ast.AST) else repr(p)

    return "|".join(one(p) for p in parts)


def _metadata_out(node: object, annotations: bool | None) -> object:
    """An annotation as compared: `annotations=None` reads `Annotated[T, ...]` as T (its metadata,
    `Doc("...")`, is documentation); False compares it as written."""
    import ast
    import copy

    if annotations is not None or not isinstance(node, ast.AST):
        return node

    class _Strip(ast.NodeTransformer):
        def visit_Subscript(self, n: ast.Subscript) -> ast.AST:
            self.generic_visit(n)
            base = n.value
            named = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            if named == "Annotated" and isinstance(n.slice, ast.Tuple) and n.slice.elts:
                return n.slice.elts[0]
            return n

    return _Strip().visit(copy.deepcopy(node))


def _params(args: object, annotations: bool | None) -> list[Param]:
    """The signature's parameters in order, each with its kind, annotation and default."""
    import ast

    assert isinstance(args, ast.arguments)
    positional = [("posonly", a) for a in args.posonlyargs] + [("pos", a) for a in args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    rows: list[tuple[str, ast.arg, ast.expr | None]] = [(k, a, d) for (k, a), d in zip(positional, defaults, strict=True)]
    if args.vararg is not None:
        rows.append(("*", args.vararg, None))
    rows += [("kw", a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg is not None:
        rows.append(("**", args.kwarg, None))
    return [
        (k, a.arg, "" if annotations else ast_key(_metadata_out(a.annotation, annotations)), None if d is None else ast_key(d))
        for k, a, d in rows
    ]


def _added(old: list[Param], new: list[Param]) -> list[str] | None:
    """The names `new` adds to `old` by the rules of parameters_added, or None."""
    if len({p[1] for p in old} - {p[1] for p in new}):
        return None  # one removed or renamed
    order = {"posonly": 0, "pos": 1, "*": 2, "kw": 3, "**": 4}
    kept = [p for p in new if p[1] in {q[1] for q in old}]
    if kept != old:
        return None  # a kind, an order, an annotation or a default changed
    added: list[str] = []
    last_positional = max((i for i, p in enumerate(new) if p in old and order[p[0]] <= 1), default=-1)
    for i, p in enumerate(new):
        if p in old:
            continue
        if p[0] == "posonly" or (p[0] in ("pos", "kw") and p[3] is None):
            return None  # positional-only, or without a default
        if p[0] == "pos" and i < last_positional:
            return None  # not appended after the existing positional ones
        added.append(p[1])
    return added
