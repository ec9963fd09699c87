"""The one owner of definition extents: where a named definition starts and ends in a file's
text (decorators included), and where its head is. Python through `ast`; JavaScript,
TypeScript, Go and Rust through the tree-sitter adapter (treesitter.py, lazily). Pure: text in,
extents out. `ground`'s index and the claim check (a `repo://p.py#Cart.add` resource) read
definitions here, so the two agree on what a name covers.

A head is what a caller sees of a definition: a function's decorators, signature and docstring;
a class's decorators, `class` line(s), docstring and its `__init__`'s signature. Elsewhere (the
tree-sitter languages) it is the definition's lines up to where its body starts.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Extent", "definitions", "find", "python_extent", "unsupported"]

Span = tuple[int, int]  # 1-based, inclusive


@dataclass(frozen=True, slots=True)
class Extent:
    """A definition: its qualified name in the file, its lines, its head's line spans."""

    name: str
    start: int
    end: int
    kind: str  # class, function, method (and what tree-sitter calls its definitions)
    head: tuple[Span, ...]

    def text(self, lines: list[str], *, head: bool = False) -> str:
        """The definition's text (or its head's), from the file's lines (with terminators)."""
        spans = self.head if head else ((self.start, self.end),)
        return "".join("".join(lines[s - 1 : e]) for s, e in spans)


def python_extent(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Span:
    """A definition's lines: from its first decorator to its last line."""
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return start, node.end_lineno or node.lineno


def unsupported(path: str) -> str | None:
    """Why definitions cannot be read in `path` (no parser for the language, or the extra that
    brings it is not installed); None when they can."""
    if path.endswith((".py", ".pyi")):
        return None
    from openwiki_git.evidence import treesitter

    if not treesitter.handles(path):
        return "definitions are read in Python, JavaScript, TypeScript, Go and Rust files only"
    return treesitter.missing(path)


def definitions(path: str, text: str) -> list[Extent]:
    """Every definition in the file, in source order (an unparseable file has none)."""
    if path.endswith((".py", ".pyi")):
        try:
            tree = ast.parse(text, filename=path)
        except (SyntaxError, ValueError, RecursionError):
            return []
        return list(_python(tree.body, ""))
    from openwiki_git.evidence import treesitter

    return [Extent(n, s, e, k, ((s, h),)) for n, s, e, k, h in treesitter.extents(path, text)]


def find(path: str, text: str, name: str) -> Extent | None:
    """The definition named `name` (the last one, as Python binds it, when there are several)."""
    found = [d for d in definitions(path, text) if d.name == name]
    return found[-1] if found else None


def _python(body: list[ast.stmt], prefix: str) -> Iterator[Extent]:
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        name = f"{prefix}{node.name}"
        start, end = python_extent(node)
        if isinstance(node, ast.ClassDef):
            head = [(start, _signature_end(node)), *_docstring(node)]
            init = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"), None)
            if init is not None:
                head.append((python_extent(init)[0], _signature_end(init)))
            yield Extent(name, start, end, "class", _merged(head))
            yield from _python(node.body, name + ".")
        else:
            kind = "method" if prefix else "function"  # only classes' bodies are walked
            yield Extent(name, start, end, kind, _merged([(start, _signature_end(node)), *_docstring(node)]))


def _signature_end(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    """The last line of the `def`/`class` statement itself (before its body starts)."""
    first = node.body[0]
    first_line = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
    return max(node.lineno, first_line - 1)


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[Span]:
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return [(first.lineno, first.end_lineno or first.lineno)]
    return []


def _merged(spans: list[Span]) -> tuple[Span, ...]:
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return tuple(out)
