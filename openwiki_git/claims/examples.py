"""What a code example uses of the project's code, and when it is broken. Pure: text in, records
out (files come in through a reader).

- `uses`: the calls a Python or pycon example makes (and the names it imports), each under the
  dotted name it means through the example's own imports (`from pkg import Client` then
  `Client(...)` is `pkg.Client`; `client = pkg.Client()` then `client.get()` is `pkg.Client.get`;
  `pkg.x.Y(...)` is `pkg.x.Y`), with the keywords it passes. Names the example defines itself are
  left out, and so is what it calls on objects it did not construct.
- (claims/accepts.py reads what a definition accepts: `signature`, `Signature`.)
- `judge`: one call against what its name means now: broken when the name is no longer defined,
  or when it passes a keyword the signature no longer accepts and takes no `**kwargs`.
- `broken_calls`: THE check-side rule, the one function every route calls for a claim that
  guards an example (its comment marker closes the example): the example's calls matched to the
  definitions the claim cites, each judged against the cited file's text now.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from openwiki_git.claims.accepts import Signature, signature
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.resource import ResourceError
from openwiki_git.model import Claim, FileText
from openwiki_git.pages import citations
from openwiki_git.pages import examples as page_examples
from openwiki_git.pages.examples import CONSOLE, PYCON, Example
from openwiki_git.pages.markers import COMMENT

SHOWN_ARGUMENT = "..."  # how a call's text shows a keyword's value: `Client(verify=...)`
KIND = "example"  # the `kind` of a broken example call in `broken_references`


@dataclass(frozen=True, slots=True)
class Call:
    name: str  # the dotted name it means, through the example's imports: `pkg.Client`, `pkg.Client.get`
    text: str  # as an error names it: `Client(verify=...)`, `client.get(...)`, `from pkg import X`
    keywords: tuple[str, ...]  # the keywords passed by name (not through `**mapping`)
    line: int  # 1-based line in the example's code
    imported: bool = False  # an imported name (`from pkg import X`), not a call


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
    once: dict[tuple[str, str, tuple[str, ...], bool], Call] = {}  # a call written the same way twice is one use
    for _, c in sorted(reader.calls, key=lambda item: item[0]):  # in the order of the source
        once.setdefault((c.name, c.text, c.keywords, c.imported), c)
    return Uses(tuple(once.values()), parsed), reader.imports


class _Reader:
    """Reads statements in order: imports and constructions bind names, calls are recorded."""

    def __init__(self, imported: dict[str, str] | None = None) -> None:
        self.bound: dict[str, str] = dict(imported or {})  # local name -> the dotted name it means
        self.imports: dict[str, str] = {}  # what the example's own imports bind
        self.instances: dict[str, str] = {}  # local name -> the dotted name of the class it was made from
        self.local: set[str] = set()  # names the example defines (def, class, other assignments)
        self.calls: list[tuple[tuple[int, int], Call]] = []  # ((line, column), call)

    def read(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.local.add(node.name)
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
                    if a.name != "*":
                        self.bound[a.asname or a.name] = self.imports[a.asname or a.name] = f"{stmt.module}.{a.name}"
                        call = Call(f"{stmt.module}.{a.name}", f"from {stmt.module} import {a.name}", (), stmt.lineno, True)
                        self.calls.append(((stmt.lineno, a.col_offset), call))
            return
        for node in _in_order(stmt):
            if isinstance(node, ast.Call):
                self._call(node)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in stmt.decorator_list:  # `@app.command` without parentheses is called too
                if isinstance(d, (ast.Name, ast.Attribute)):
                    name = self._meaning(d)
                    if name is not None:
                        self.calls.append(((d.lineno, d.col_offset), Call(name, "@" + ast.unparse(d), (), d.lineno)))
        self._bind(stmt)
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                self._statement(child)

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
        return ".".join([self.bound.get(root, root), *reversed(parts)])

    def _call(self, node: ast.Call) -> None:
        name = self._meaning(node.func)
        if name is None:
            return
        keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
        shown = [SHOWN_ARGUMENT] if node.args or len(keywords) < len(node.keywords) else []
        shown += [f"{k}={SHOWN_ARGUMENT}" for k in keywords]
        call = Call(name, f"{ast.unparse(node.func)}({', '.join(shown)})", keywords, node.lineno)
        self.calls.append(((node.lineno, node.col_offset), call))


def _in_order(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of one statement, nested statements excluded (they are read in their turn)."""
    todo: list[ast.AST] = [c for c in ast.iter_child_nodes(stmt) if not isinstance(c, ast.stmt)]
    while todo:
        node = todo.pop(0)
        yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt))


# -- the rule -----------------------------------------------------------------------------------
def judge(call: Call, shown: str, defined: bool, sig: Signature | None, *, now: bool = True) -> str | None:
    """Why `call` is broken, or None: `shown` names what it means (`pkg.Client`); `defined`:
    whether the project still defines it; `sig`: what it accepts (None: unknown). `now`: say
    "no longer" (a claim's example, judged after a change) rather than "not". The call itself
    is named beside the reason by the caller: `Client(verify=...)`."""
    if not defined:
        return f"{shown} is {'no longer' if now else 'not'} defined"
    if call.imported or sig is None or sig.var_keyword:
        return None
    bad = [k for k in call.keywords if k not in sig.keywords]
    if not bad:
        return None
    which = ", ".join(f"`{k}`" for k in bad)
    verb = "is" if len(bad) == 1 else "are"
    return f"{which} {verb} {'no longer ' if now else 'not '}a parameter of {shown}"


def broken_calls(
    page_text: str | None, claim: Claim, read: Callable[[str], FileText], page: tuple[list[Example], list[Uses]] | None = None
) -> tuple[tuple[str, str], ...]:
    """The calls of the example the claim guards that are broken now, each (the call as written,
    why: `judge`), each said once;
    () when the claim guards no example (its marker closes no code example) or nothing broke.
    `read(path)` reads a cited file now (its text None: the file is gone). Each call is matched to
    the definition the claim cites by name: its dotted name ends with the cited one's
    (`pkg.Client` with `#Client:head`), or, failing that, their last parts are the same and only
    one cited definition has it (a method a base class defines). `page`: the page's examples and
    their uses (`read_page`), when the caller judges several claims of one page."""
    if page_text is None or not COMMENT.search(page_text):
        return ()
    at = citations.own_marker(claim.id).search(page_text)
    if at is None or not at.group(0).startswith("<!--"):
        return ()
    cited = _cited(claim)
    found, used = page or read_page(page_text)
    ex = page_examples.closed_by(page_text, at.start(), found)
    if ex is None or ex.kind == CONSOLE or not cited:
        return ()
    out: list[tuple[str, str]] = []
    gone: set[Symbol] = set()
    for call in used[found.index(ex)].calls:
        sym = _match(call.name, cited)
        if sym is None or sym in gone:
            continue
        text = read(sym.path).text
        defined = text is not None and definitions.find(sym.path, text, sym.name) is not None
        if not defined:
            gone.add(sym)
        why = judge(call, call.name, defined, signature(text, sym.name) if text and defined else None)
        if why is not None and (call.text, why) not in out:
            out.append((call.text, why))
    return tuple(out)


def read_page(page_text: str) -> tuple[list[Example], list[Uses]]:
    """A page's examples and their uses, read once for all of its claims."""
    found = page_examples.examples(page_text)
    return found, page_uses(found)


def _cited(claim: Claim) -> list[Symbol]:
    out = []
    for ev in claim.evidence:
        if not looks_like_kind(ev.resource):
            continue
        try:
            kind = parse_kind(ev.resource, wiki_dir="\0")
        except ResourceError:
            continue
        if isinstance(kind, Symbol) and definitions.unsupported(kind.path) is None and kind.path.endswith((".py", ".pyi")):
            out.append(kind)
    return out


def _match(name: str, cited: list[Symbol]) -> Symbol | None:
    exact = [s for s in cited if name == s.name or name.endswith("." + s.name)]
    if len(exact) == 1:
        return exact[0]
    if exact:
        return None
    last = name.rsplit(".", 1)[-1]
    same = [s for s in cited if s.name.rsplit(".", 1)[-1] == last]
    return same[0] if len(same) == 1 else None


def broken_records(
    page: str, page_path: str, text: str | None, claims: Iterable[Claim], read: Callable[[str], FileText]
) -> list[dict[str, Any]]:
    """The broken calls of the page's guarded examples (`broken_calls`), as `broken_references`
    entries of kind `example` (`check` and `lint` report them), each naming the claim that guards
    it. Nothing is read unless the page carries a comment marker."""
    if text is None or not COMMENT.search(text):
        return []
    out = []
    read_once = functools.cache(read)
    page_read = read_page(text)
    for claim in claims:
        found = broken_calls(text, claim, read_once, page_read)
        line = citations.sentence_line(text, claim.id) if found else None
        for call, reason in found:
            out.append({"page": page, "page_path": page_path, "line": line or 1, "reference": call, "kind": KIND,
                        "statement": claim.statement, "reason": reason, "claim_id": claim.id})
    return out
