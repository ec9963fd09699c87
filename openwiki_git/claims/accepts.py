"""What a definition accepts by keyword, read from its file's text: a function's or method's
parameters (a method's `self` or `cls` is bound, not passed; positional-only ones cannot be named;
every `@overload` counts), a class's `__init__` (or `__new__`), or a dataclass's or attrs class's
fields; and whether it takes `**kwargs`. Also what a parameter, a return or a member is
annotated to be, and where a local function hands its `*args, **kwargs` on to. Pure: text in, a
record out. claims/examples.py judges an example's calls with it; ground/example_evidence.py cites
with it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Signature:
    keywords: frozenset[str]  # the parameters a caller may pass by name
    var_keyword: bool  # takes `**kwargs`: every keyword is accepted


@functools.lru_cache(maxsize=64)
def _tree(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile nesting too
        return None


def signature(source: str, name: str) -> Signature | None:
    """What the definition `name` (a qualified name inside the file: `Client`, `Client.get`)
    accepts by keyword; None when the file does not define it or its signature cannot be told
    (a class with neither `__init__` nor fields it knows)."""
    tree = _tree(source)
    if tree is None:
        return None
    found = _find(tree.body, name.split("."))
    if not found:
        return None
    if isinstance(found[-1], ast.ClassDef):
        return _class_signature(found[-1])
    method = "." in name
    return _merged([_function_signature(f, method) for f in _callable(found)])


def _callable(found: list[ast.stmt]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The definitions a caller is held to: the `@overload`s when there are some (the
    implementation's `**kwargs` behind them accepts what they declare, as a type checker reads
    it: tenacity's `retry(*dargs, **dkw)`), else every definition of the name."""
    funcs = [f for f in found if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    overloads = [f for f in funcs if _is_overload(f)]
    return overloads or funcs


def _is_overload(f: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(ast.unparse(d).rsplit(".", 1)[-1] == "overload" for d in f.decorator_list)


def parameter_annotation(source: str, name: str, keyword: str) -> str | None:
    """The annotation of parameter `keyword` of the function `name` (its `@overload`s first, or
    a class's `__init__`), as written: `t.Callable[["RetryCallState"], None]`; None when none
    declares it with one."""
    tree = _tree(source)
    found = _find(tree.body, name.split(".")) if tree is not None else []
    if found and isinstance(found[-1], ast.ClassDef):
        found = [n for n in _flat(found[-1].body) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"]
    for f in _callable(found):
        a = f.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            if arg.arg == keyword and arg.annotation is not None:
                return ast.unparse(arg.annotation)
    return None


def return_annotation(source: str, name: str) -> str | None:
    """The return annotation of the function `name` as written (`t.Generator[AttemptManager, None,
    None]`), or None."""
    tree = _tree(source)
    found = _callable(_find(tree.body, name.split(".")) if tree is not None else [])
    return ast.unparse(found[-1].returns) if found and found[-1].returns is not None else None


def member_annotation(source: str, name: str, kind: str, line: int) -> str | None:
    """What member `name` (`RetryCallState.outcome`) is annotated to be: a method's or property's
    return; an attribute's own annotation at `line` (`self.outcome: Future | None = None`), or that
    of the `__init__` parameter it is set from (`self.retry_state = retry_state`); None else."""
    if kind in ("function", "method"):
        return return_annotation(source, name)
    tree = _tree(source)
    owner = name.rpartition(".")[0]
    found = _find(tree.body, owner.split(".")) if tree is not None and owner else []
    if not found or not isinstance(found[-1], ast.ClassDef):
        return None
    for node in ast.walk(found[-1]):
        if isinstance(node, ast.AnnAssign) and node.lineno == line:
            return ast.unparse(node.annotation)
        if isinstance(node, ast.Assign) and node.lineno == line and isinstance(node.value, ast.Name):
            return parameter_annotation(source, owner, node.value.id)
    return None


def forwarded_to(source: str, line: int) -> str | None:
    """What takes the arguments of the local function that line `line` sets as an attribute, when
    it hands its `*args, **kwargs` on: `wrapped_f.retry_with = retry_with`, with `def
    retry_with(*args, **kwargs): return self.copy(*args, **kwargs).wraps(f)` in the same method of
    `BaseRetrying` -> `BaseRetrying.copy` (a top-level function's name when it calls one); None else."""
    found = _assigned_at(source, line)
    if found is None:
        return None
    owner, func, value = found
    local = [n for n in ast.walk(func) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == value]
    for call in (n for f in local[:1] for n in ast.walk(f) if isinstance(n, ast.Call) and _forwards(n, f)):
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "self" and owner:
            return f"{owner}.{call.func.attr}"
        if isinstance(call.func, ast.Name) and not owner:
            return call.func.id
    return None


def set_to_self(source: str, line: int) -> str | None:
    """The class whose method sets an attribute to the object itself at `line`
    (`wrapped_f.retry = self` in BaseRetrying.wraps -> `BaseRetrying`); None else."""
    found = _assigned_at(source, line)
    return found[0] if found is not None and found[0] and found[2] == "self" else None


def _assigned_at(source: str, line: int) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, str] | None:
    """(the class holding it or "", the function, the name assigned) for an assignment of a plain
    name at `line` inside one of the file's functions or methods (`wrapped_f.retry_with = retry_with`)."""
    tree = _tree(source)
    for owner, func in _functions(tree.body if tree is not None else [], ""):
        if func.lineno <= line <= (func.end_lineno or func.lineno):
            for n in ast.walk(func):
                if isinstance(n, ast.Assign) and n.lineno == line and isinstance(n.value, ast.Name):
                    return owner, func, n.value.id
    return None


def _functions(body: list[ast.stmt], owner: str) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(the class holding it or "", function) for a file's top-level functions and its classes' methods."""
    for node in _flat(body):
        if isinstance(node, ast.ClassDef) and not owner:
            yield from _functions(node.body, node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield owner, node


def _forwards(call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`g(*args, **kwargs)` inside `def f(*args, **kwargs)`: every argument f got, handed on."""
    a = func.args
    starred = a.vararg is None or any(isinstance(x, ast.Starred) and ast.unparse(x.value) == a.vararg.arg for x in call.args)
    return a.kwarg is not None and starred and any(k.arg is None and ast.unparse(k.value) == a.kwarg.arg for k in call.keywords)


def overload_accepting(source: str, name: str, keywords: tuple[str, ...]) -> tuple[int, int] | None:
    """The lines (first, last) of the last `@overload` of function `name` that declares every one
    of `keywords`: what tells a caller the keywords are accepted; None when it has no overloads,
    or none declares them all."""
    tree = _tree(source)
    found = _find(tree.body, name.split(".")) if tree is not None and keywords else []
    method = "." in name
    for f in reversed([f for f in _callable(found) if _is_overload(f)]):
        if set(keywords) <= _function_signature(f, method).keywords:
            return f.lineno if not f.decorator_list else min(d.lineno for d in f.decorator_list), f.end_lineno or f.lineno
    return None


def _find(body: list[ast.stmt], parts: list[str]) -> list[ast.stmt]:
    """The definitions of `parts[0]` in `body` (every `@overload` too), then of the rest inside it."""
    hits: list[ast.stmt] = []
    for node in _flat(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == parts[0]:
            hits.append(node)
    if len(parts) == 1 or not hits:
        return hits
    inner = hits[-1]
    return _find(inner.body, parts[1:]) if isinstance(inner, ast.ClassDef) else []


def _flat(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A body's statements, those under `if`/`try`/`with` at its level included."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                yield from _flat(block)
            for h in getattr(node, "handlers", []):
                yield from _flat(h.body)


def _function_signature(f: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> Signature:
    """A function's keywords; a method's first parameter (`self`, `cls`) is bound, not passed."""
    a = f.args
    positional = a.args
    static = any(ast.unparse(d) in ("staticmethod", "builtins.staticmethod") for d in f.decorator_list)
    if method and not static and positional and not a.posonlyargs:
        positional = positional[1:]
    return Signature(frozenset(p.arg for p in (*positional, *a.kwonlyargs)), a.kwarg is not None)


def _merged(sigs: list[Signature]) -> Signature | None:
    if not sigs:
        return None
    return Signature(frozenset().union(*(s.keywords for s in sigs)), any(s.var_keyword for s in sigs))


_FIELD_DECORATORS = ("dataclass", "define", "frozen", "mutable", "attrs", "s", "dataclasses.dataclass")


def _class_signature(cls: ast.ClassDef) -> Signature | None:
    inits = [n for n in _flat(cls.body) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in ("__init__", "__new__")]
    if inits:
        own = [n for n in inits if n.name == "__init__"] or inits
        return _merged([_function_signature(n, True) for n in own])
    named = (ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in cls.decorator_list)
    decorated = any(n.rsplit(".", 1)[-1] in _FIELD_DECORATORS for n in named)
    if not decorated or cls.bases:
        return None  # fields inherited, or an __init__ from a base: not told here
    names: set[str] = set()
    for n in cls.body:
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and "ClassVar" not in ast.unparse(n.annotation):
            names.add(n.target.id)
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and ast.unparse(n.value.func).endswith(("ib", "field", "attrib")):
            names.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return Signature(frozenset(names | {x.lstrip("_") for x in names}), False)
