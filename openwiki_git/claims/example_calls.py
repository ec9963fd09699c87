"""What a code example calls of the project's code. Pure: text in, records out.

- `uses`: the calls a Python or pycon example makes (and the names it imports), each under the
  dotted name it means through the example's own imports (`from pkg import Client` then
  `Client(...)` is `pkg.Client`; `client = pkg.Client()` then `client.get()` is `pkg.Client.get`;
  `pkg.x.Y(...)` is `pkg.x.Y`; a `from pkg import *` makes a bare name `pkg.name`), with the
  keywords it passes; what it calls without a call too (an operator's special method on an object
  it made, `__iter__`, `__enter__`, the exception of `raise X` and `except X`). Names the example
  defines itself are left out, and so is what it calls on objects it did not construct.
- `page_uses`: each of a page's examples read with the names the earlier ones bound.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass, replace

from openwiki_git.pages.examples import CONSOLE, PYCON, Example

# The special method a binary operator calls on its left operand, and how it is written.
_OPERATORS: dict[type[ast.operator], tuple[str, str]] = {
    ast.BitOr: ("__or__", "|"), ast.BitAnd: ("__and__", "&"), ast.BitXor: ("__xor__", "^"), ast.Add: ("__add__", "+"),
    ast.Sub: ("__sub__", "-"), ast.Mult: ("__mul__", "*"), ast.Div: ("__truediv__", "/"), ast.MatMult: ("__matmul__", "@"),
    ast.RShift: ("__rshift__", ">>"), ast.LShift: ("__lshift__", "<<"),
}
STAR = "*"  # the key under which the names an example binds keep a `from pkg import *` (pkg)
_BUILTINS = frozenset(dir(builtins))
SHOWN_ARGUMENT = "..."  # how a call's text shows a keyword's value: `Client(verify=...)`


@dataclass(frozen=True, slots=True)
class Call:
    name: str  # the dotted name it means, through the example's imports: `pkg.Client`, `pkg.Client.get`
    text: str  # as an error names it: `Client(verify=...)`, `client.get(...)`, `from pkg import X`
    keywords: tuple[str, ...]  # the keywords passed by name (not through `**mapping`)
    line: int  # 1-based line in the example's code
    imported: bool = False  # an imported name (`from pkg import X`), not a call
    starred: bool = False  # a bare name read through `from pkg import *`: the package may not define it
    coroutine: bool = False  # a decorator applied to an `async def`: how it handles a coroutine is in its body
    attribute: str = ""  # not a call: this attribute read on a function the decorator `name` returned (`f.statistics`)
    keyword: str = ""  # not a call: a function of the example's passed to `name` as this keyword (a callback), or
    # `__iter__`/`__anext__`: the elements of iterating what `name` made, or SUBCLASS: a class of the example's derives from `name` ...
    receives: tuple[str, ...] = ()  # ... and what is used on them: members (`retry_state.outcome.failed`), `__enter__`


@dataclass(frozen=True, slots=True)
class Uses:
    calls: tuple[Call, ...]
    parsed: bool  # whether the code parsed as Python (a pycon: its statements)


# -- an example's calls -------------------------------------------------------------------------
def python_source(ex: Example) -> str:
    """The Python an example runs: a pycon's statements without their prompts or output."""
    if ex.kind != PYCON:
        return ex.code
    out = []
    for ln in ex.code.splitlines():
        s = ln.lstrip()
        if s.startswith((">>> ", "... ")) or s in (">>>", "..."):
            out.append(s[4:])
    return "\n".join(out) + "\n"


def _trees(source: str) -> tuple[list[ast.Module], bool]:
    """The source parsed whole, else chunk by chunk between blank lines (a snippet with a
    placeholder line still shows its calls); whether it parsed whole."""
    try:
        return [ast.parse(source)], True
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile nesting too
        pass
    trees, line = [], 0
    for chunk in source.split("\n\n"):
        try:
            tree = ast.parse(chunk)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile nesting too
            tree = None
        if tree is not None:
            ast.increment_lineno(tree, line)
            trees.append(tree)
        line += chunk.count("\n") + 2
    return trees, False


def uses(ex: Example, imported: dict[str, str] | None = None) -> Uses:
    """The calls (and imported names) of a Python or pycon example, in order of their lines.
    `imported`: names the page's earlier examples imported (`page_uses`)."""
    return _read(ex, imported)[0]


def page_uses(found: list[Example]) -> list[Uses]:
    """The uses of each of a page's examples (a console's: none), each with what the page's
    earlier Python and pycon examples imported: a page's examples run in one namespace as a reader
    follows them (doctest's blocks on one page share theirs), so `@define` below `from attrs
    import define` is attrs'. One pass: each example is parsed once."""
    imported: dict[str, str] = {}
    out = []
    for ex in found:
        if ex.kind == CONSOLE:
            out.append(Uses((), True))
            continue
        got, own = _read(ex, imported)
        imported = {**imported, **own}
        out.append(got)
    return out


def _read(ex: Example, imported: dict[str, str] | None) -> tuple[Uses, dict[str, str]]:
    """The example's uses, and the names its own imports bind."""
    trees, parsed = _trees(python_source(ex))
    reader = _Reader(imported)
    try:
        for tree in trees:
            reader.read(tree)
    except RecursionError:  # nesting `ast` parsed but a walk of it cannot follow: what was read counts
        parsed = False
    once: dict[tuple[str, str, tuple[str, ...], bool, bool], Call] = {}  # a call written the same way twice is one use
    for _, c in sorted(reader.calls, key=lambda item: item[0]):  # in the order of the source
        once.setdefault((c.name, c.text, c.keywords, c.imported, c.coroutine), c)  # a callback's text names it
    return Uses(tuple(once.values()), parsed), reader.imports


class _Reader:
    """Reads statements in order: imports and constructions bind names, calls are recorded."""

    def __init__(self, imported: dict[str, str] | None = None) -> None:
        self.bound: dict[str, str] = dict(imported or {})  # local name -> the dotted name it means
        self.imports: dict[str, str] = {}  # what the example's own imports bind
        self.instances: dict[str, str] = {}  # local name -> the dotted name of the class it was made from
        self.local: set[str] = set()  # names the example defines (def, class, other assignments)
        self.decorated: dict[str, str] = {}  # a function the example defines -> the decorator of the project's it went through
        self.callbacks: dict[str, tuple[str, ...]] = {}  # a function the example defines -> attributes read on its first parameter
        self.calls: list[tuple[tuple[int, int], Call]] = []  # ((line, column), call)

    def read(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.local.add(node.name)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.args:
                self.callbacks[node.name] = _read_on(node, node.args.args[0].arg)
        for stmt in tree.body:
            self._statement(stmt)

    def _statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                local = a.asname or a.name.split(".")[0]
                self.bound[local] = self.imports[local] = a.name if a.asname else local
            return
        if isinstance(stmt, ast.ImportFrom):
            if stmt.level == 0 and stmt.module:
                for a in stmt.names:
                    if a.name == "*":  # `from pkg import *` (Sphinx docs' testsetup): bare names may be pkg's
                        self.bound[STAR] = self.imports[STAR] = stmt.module
                    else:
                        self.bound[a.asname or a.name] = self.imports[a.asname or a.name] = f"{stmt.module}.{a.name}"
                        call = Call(f"{stmt.module}.{a.name}", f"from {stmt.module} import {a.name}", (), stmt.lineno, True)
                        self.calls.append(((stmt.lineno, a.col_offset), call))
            return
        passed = {id(n.func): n for n in _in_order(stmt) if isinstance(n, ast.Call)}  # `f.retry_with(stop=...)`'s keywords
        further = self._further(stmt)
        for node in _in_order(stmt):
            if isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:  # `stop_a(1) | stop_b(2)`: its class's __or__
                dunder, symbol = _OPERATORS[type(node.op)]
                self._implicit(node.left, dunder, "{} " + symbol + " ...")
            elif isinstance(node, ast.ExceptHandler) and node.type is not None:
                for t in node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]:
                    self._named(t, "except")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.decorated:
                shown = f"{node.value.id}.{node.attr}"  # `raise_my_exception.statistics`: set by the decorator
                keywords = tuple(k.arg for k in passed[id(node)].keywords if k.arg is not None) if id(node) in passed else ()
                receives = tuple(dict.fromkeys(further.get(id(node), ())))  # `f.retry.wait`: `wait` on what `.retry` is
                read = Call(self.decorated[node.value.id], shown, keywords, node.lineno, attribute=node.attr, receives=receives)
                self.calls.append(((node.lineno, node.col_offset), read))
        self._implicit_in(stmt)
        if isinstance(stmt, ast.ClassDef):
            self._subclass(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._decorators(stmt)
        self._bind(stmt)
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                self._statement(child)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):  # their bodies are statements too
                for inner in child.body:
                    self._statement(inner)

    def _further(self, stmt: ast.stmt) -> dict[int, list[str]]:
        """What a statement reads beyond an attribute of a decorated function, by the id of that
        attribute's node: `f.retry.wait` -> `wait`; `mock.patch.object(f.retry, "wait", ...)`
        patches (so relies on) `wait` too."""
        out: dict[int, list[str]] = {}
        for node in _in_order(stmt):
            patched = isinstance(node, ast.Call) and ast.unparse(node.func).endswith("patch.object") and len(node.args) > 1
            at, extra = node, []
            if patched and isinstance(node, ast.Call) and isinstance(name := node.args[1], ast.Constant) and isinstance(name.value, str):
                at, extra = node.args[0], [name.value]
            names: list[str] = []
            while isinstance(at, ast.Attribute):
                names.append(at.attr)
                inner, at = at, at.value
            if isinstance(at, ast.Name) and at.id in self.decorated and names and (rest := [*reversed(names[:-1]), *extra]):
                out.setdefault(id(inner), []).append(".".join(rest[:MEMBER_DEPTH]))
        return out

    def _subclass(self, stmt: ast.ClassDef) -> None:
        """`class MyWorker(UvicornWorker): CONFIG_KWARGS = {...}`: what the subclass sets or
        defines again of what it inherits relies on the base's (ground cites the base's members)."""
        own = [t.id for n in stmt.body if isinstance(n, (ast.Assign, ast.AnnAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)]
        own += [n.name for n in stmt.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for base in stmt.bases if own else []:
            name = self._meaning(base) if isinstance(base, (ast.Name, ast.Attribute)) else None
            if name is not None:
                shown = f"class {stmt.name}({ast.unparse(base)})"
                call = Call(name, shown, (), stmt.lineno, starred=self._starred(base), keyword=SUBCLASS, receives=tuple(dict.fromkeys(own)))
                self.calls.append(((stmt.lineno, stmt.col_offset), call))

    def _decorators(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """A definition's decorators: `@app.command` without parentheses is called too; one applied
        to an `async def` is marked (`coroutine`); the function is remembered as one the outermost
        decorator of the project's returned, for the attributes the example reads on it."""
        coroutine = isinstance(stmt, ast.AsyncFunctionDef)
        for d in stmt.decorator_list:
            func = d.func if isinstance(d, ast.Call) else d
            name = self._meaning(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
            if name is None:
                continue
            key = (d.lineno, d.col_offset)
            if isinstance(d, ast.Call):  # recorded with the statement's calls: mark it
                self.calls = [(k, replace(c, coroutine=coroutine) if k == key and c.name == name else c) for k, c in self.calls]
            else:
                self.calls.append((key, Call(name, "@" + ast.unparse(d), (), d.lineno, starred=self._starred(d), coroutine=coroutine)))
            if not isinstance(stmt, ast.ClassDef) and stmt.name not in self.decorated:
                self.decorated[stmt.name] = name

    def _implicit_in(self, stmt: ast.stmt) -> None:
        """What a statement calls without a call: `raise X`, the iteration of `for x in X(...)`,
        the context manager of `with X(...)`."""
        if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, (ast.Name, ast.Attribute)):
            self._named(stmt.exc, "raise")
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            asynchronous = isinstance(stmt, ast.AsyncFor)
            self._implicit(stmt.iter, "__aiter__" if asynchronous else "__iter__", ("async for" if asynchronous else "for") + " ... in {}")
            self._element(stmt, "__anext__" if asynchronous else "__iter__")
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            asynchronous = isinstance(stmt, ast.AsyncWith)
            shown = ("async with" if asynchronous else "with") + " {}"
            for item in stmt.items:
                self._implicit(item.context_expr, "__aenter__" if asynchronous else "__enter__", shown)

    def _element(self, stmt: ast.For | ast.AsyncFor, method: str) -> None:
        """`for attempt in Retrying(...)`: what the loop's body does with each element (`with
        attempt:`, `attempt.retry_state`), for ground to read on the type `method` (`__iter__`'s
        `Generator[T, ...]`, `__anext__`'s T) gives."""
        if not isinstance(stmt.target, ast.Name) or not isinstance(stmt.iter, ast.Call):
            return
        made = self._meaning(stmt.iter.func)
        if made is None:
            return
        target = stmt.target.id
        used: list[str] = []
        for node in (n for part in stmt.body for n in ast.walk(part)):
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                isinstance(i.context_expr, ast.Name) and i.context_expr.id == target for i in node.items
            ):
                used += ["__aenter__", "__aexit__"] if isinstance(node, ast.AsyncWith) else ["__enter__", "__exit__"]
            elif isinstance(node, ast.Attribute) and (chain := _chain(node, target)):
                used.append(chain)
        if used:
            shown = f"for {target} in {ast.unparse(stmt.iter.func)}(...)"
            starred = self._starred(stmt.iter.func)
            element = Call(made, shown, (), stmt.lineno, starred=starred, keyword=method, receives=tuple(dict.fromkeys(used)))
            self.calls.append(((stmt.lineno, stmt.col_offset), element))

    def _implicit(self, obj: ast.expr, dunder: str, shown: str) -> None:
        """A special method called on an object the example made (`X(...)`, or a name bound to
        one): `pkg.X.__iter__` (ground follows it to the base class that defines it)."""
        if isinstance(obj, ast.Call):
            made, starred, text = self._meaning(obj.func), self._starred(obj.func), f"{ast.unparse(obj.func)}(...)"
        elif isinstance(obj, ast.Name) and obj.id in self.instances:
            made, starred, text = self.instances[obj.id], False, obj.id
        else:
            return
        if made is not None:
            call = Call(f"{made}.{dunder}", shown.format(text), (), obj.lineno, starred=starred)
            self.calls.append(((obj.lineno, obj.col_offset), call))

    def _named(self, node: ast.expr, verb: str) -> None:
        """A name used without a call: the exception of `raise X` or `except X`."""
        name = self._meaning(node)
        if name is not None:
            call = Call(name, f"{verb} {ast.unparse(node)}", (), node.lineno, starred=self._starred(node))
            self.calls.append(((node.lineno, node.col_offset), call))

    def _bind(self, stmt: ast.stmt) -> None:
        """`x = pkg.Client(...)`, `with pkg.Client() as x`: x is an instance of pkg.Client."""
        pairs: list[tuple[ast.expr, ast.expr | None]] = []
        if isinstance(stmt, ast.Assign):
            pairs = [(t, stmt.value) for t in stmt.targets]
        elif isinstance(stmt, ast.AnnAssign):
            pairs = [(stmt.target, stmt.value)]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            pairs = [(i.optional_vars, i.context_expr) for i in stmt.items if i.optional_vars is not None]
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            pairs = [(stmt.target, None)]
        for target, value in pairs:
            if not isinstance(target, ast.Name):
                continue
            made = self._meaning(value.func) if isinstance(value, ast.Call) else None
            self.bound.pop(target.id, None)
            if made is not None and made.rsplit(".", 1)[-1][:1].isupper():
                self.instances[target.id] = made
            else:
                self.instances.pop(target.id, None)
                self.local.add(target.id)

    def _meaning(self, func: ast.expr) -> str | None:
        """The dotted name a callee means, or None (a local name, an object of unknown class)."""
        parts: list[str] = []
        node = func
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Call):  # `pkg.Client().get()`: a method of what was made
            made = self._meaning(node.func)
            return ".".join([made, *reversed(parts)]) if made and parts else None
        if not isinstance(node, ast.Name):
            return None
        root = node.id
        if root in self.instances:  # a method of what was made; the object itself called: its __call__
            return ".".join([self.instances[root], *reversed(parts)]) if parts else f"{self.instances[root]}.__call__"
        if root in self.local and root not in self.bound:
            return None
        if self._starred(func):
            return ".".join([self.bound[STAR], root, *reversed(parts)])
        return ".".join([self.bound.get(root, root), *reversed(parts)])

    def _starred(self, func: ast.expr) -> bool:
        """Whether the callee's root is a bare name only a star import can have bound (not a
        builtin, not bound or defined by the example)."""
        node = func
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name) or STAR not in self.bound:
            return False
        root = node.id
        return root not in self.bound and root not in self.local and root not in self.instances and root not in _BUILTINS

    def _call(self, node: ast.Call) -> None:
        name = self._meaning(node.func)
        if name is None:
            return
        keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
        shown = [SHOWN_ARGUMENT] if node.args or len(keywords) < len(node.keywords) else []
        shown += [f"{k}={SHOWN_ARGUMENT}" for k in keywords]
        call = Call(name, f"{ast.unparse(node.func)}({', '.join(shown)})", keywords, node.lineno, starred=self._starred(node.func))
        self.calls.append(((node.lineno, node.col_offset), call))
        for k in node.keywords:  # `before_sleep=my_before_sleep`: what the callback reads on what it is given
            if k.arg is not None and isinstance(k.value, ast.Name) and self.callbacks.get(k.value.id) and k.value.id not in self.bound:
                passed = Call(name, f"{k.arg}={k.value.id}", (), k.value.lineno, keyword=k.arg, receives=self.callbacks[k.value.id])
                self.calls.append(((k.value.lineno, k.value.col_offset), passed))


def _read_on(func: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> tuple[str, ...]:
    """The attributes a function reads on its parameter `param`, in order, each as the chain read
    (`retry_state.outcome.failed`: `outcome`, `outcome.failed`)."""
    found = [chain for n in ast.walk(func) if isinstance(n, ast.Attribute) and (chain := _chain(n, param))]
    return tuple(dict.fromkeys(found))


SUBCLASS = "__subclass__"  # a Call's keyword: a class of the example's derives from `name`, and sets or defines `receives`
MEMBER_DEPTH = 3  # `attempt.retry_state.outcome.failed`: what a member's annotation types, read this far


def _chain(node: ast.Attribute, root: str) -> str:
    """`attempt.retry_state.attempt_number` with root `attempt`: `retry_state.attempt_number`
    (members from the root on, at most MEMBER_DEPTH); "" when the chain does not start at `root`."""
    names: list[str] = []
    at: ast.expr = node
    while isinstance(at, ast.Attribute):
        names.append(at.attr)
        at = at.value
    if not isinstance(at, ast.Name) or at.id != root or len(names) > MEMBER_DEPTH:
        return ""
    return ".".join(reversed(names))


def _in_order(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of one statement, nested statements excluded (they are read in their turn)."""
    todo: list[ast.AST] = [c for c in ast.iter_child_nodes(stmt) if not isinstance(c, ast.stmt)]
    while todo:
        node = todo.pop(0)
        yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt))
