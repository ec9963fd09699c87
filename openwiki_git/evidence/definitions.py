"""The one owner of definition extents: where a named definition starts and ends in a file's
text (decorators included), and where its head is. Python through `ast`; JavaScript,
TypeScript, Go and Rust through the tree-sitter adapter (treesitter.py, lazily). Pure: text in,
extents out. `ground`'s index and the claim check (a `repo://p.py#Cart.add` resource) read
definitions here, so the two agree on what a name covers.

A head is what a caller sees of a definition and what a sentence naming it is about: its
decorators, its signature and its docstring's summary (the docstring's first paragraph, its
documented role); for a class its decorators, `class` line(s), docstring summary and its
`__init__`'s signature; for a property its getter's (`@property`, signature, summary), its lines
running through its setter and deleter (`@total.setter`), which Python binds under the same name.
The rest of a docstring (parameter docs, notes, version history) is
body-level detail, like the code: on attrs' history its long docstrings were edited within
40 commits (markup, a new paragraph, a renamed reference) with every summary's words unchanged.
The head's token text (`head_token_text`) reads the summary as prose: inline markup (backticks,
asterisks, a Sphinx role's `:func:` prefix) and line wrapping are not part of it, so
``` ``attrs`` ``` becoming `*attrs*` leaves a head as it was. Elsewhere (the tree-sitter
languages) a head is the definition's lines up to where its body starts.

A whole definition's token text (`whole_token_text`, `repo-def-v2`) is its lines with every
docstring in it (its own and its methods') read as prose the same way (docstrings.py:
markup, wrapping, field-list style, a directive's release spelling), so a reflowed or
restyled docstring leaves it as it was while a changed word, signature or line of code does
not. A docstring is read so only when it has its lines to itself (a one-line `def f(): 'x'` is code).

`head_v1` keeps the first head (the whole docstring): tokens written by it (`repo-def-v1` on a
`:head` resource) are still read the way they were written (claims/kinds.py).
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from openwiki_git.evidence.docstrings import docstring_prose, summary_prose
from openwiki_git.evidence.tokens import split_lines

__all__ = [
    "Extent", "definitions", "docstring_lines", "find", "merged_spans", "python_extent", "signature_end", "summary_prose",
    "unsupported",
]

Span = tuple[int, int]  # 1-based, inclusive


@dataclass(frozen=True, slots=True)
class Extent:
    """A definition: its qualified name in the file, its lines, its head's line spans (and the
    docstring summary's lines among them), the first head's spans (the whole docstring)."""

    name: str
    start: int
    end: int
    kind: str  # class, function, method (and what tree-sitter calls its definitions)
    head: tuple[Span, ...]
    summary: Span | None = None
    head_v1: tuple[Span, ...] | None = None  # None: the same as `head`
    docstrings: tuple[Span, ...] = ()  # every docstring in it on lines of its own, its nested definitions' too

    def text(self, lines: list[str], *, head: bool = False, v1: bool = False) -> str:
        """The definition's text (or its head's, or its first head's), from the file's lines
        (with terminators)."""
        spans = ((self.head_v1 or self.head) if v1 else self.head) if head else ((self.start, self.end),)
        return "".join("".join(lines[s - 1 : e]) for s, e in spans)

    def head_code(self, lines: list[str]) -> str:
        """The head's lines outside its docstring summary: decorators and signature(s)."""
        first, last = self.summary or (0, -1)
        return "".join(lines[n - 1] for s, e in self.head for n in range(s, e + 1) if not first <= n <= last)

    def head_summary(self, lines: list[str]) -> str:
        """The head's docstring summary as prose (`summary_prose`); "" without a docstring."""
        return summary_prose("".join(lines[self.summary[0] - 1 : self.summary[1]])) if self.summary else ""

    def body_text(self, lines: list[str]) -> str:
        """The definition's lines outside its head (its code and the rest of its docstring),
        whole-line comments (`#`, `//`) left out: a comment is not something the code has."""
        in_head = {n for s, e in self.head for n in range(s, e + 1)}
        body = (lines[n - 1] for n in range(self.start, self.end + 1) if n not in in_head)
        return "".join(line for line in body if not line.lstrip().startswith(("#", "//")))

    def docstring_proses(self, lines: list[str]) -> list[str]:
        """Each of its docstrings as prose (`docstring_prose`), in source order."""
        return [docstring_prose("".join(lines[s - 1 : e])) for s, e in self.docstrings]

    def code_lines(self, lines: list[str], dropped: frozenset[int] = frozenset()) -> list[str]:
        """The file's lines with its docstrings' taken out (each one's first line an indented
        `...`, the others blank): its code, as a cosmetic comparison reads it, line numbers kept.
        `dropped`: the docstrings (indexes into `docstrings`) taken out whole, every line blank:
        docstrings an edit added, which the other side holds no `...` for."""
        out = list(lines)
        for i, (s, e) in enumerate(self.docstrings):
            first = lines[s - 1]
            out[s - 1] = "\n" if i in dropped else first[: len(first) - len(first.lstrip())] + "...\n"
            out[s : e] = ["\n"] * (e - s)
        return out

    def whole_token_text(self, lines: list[str]) -> str:
        """What a whole definition's `repo-def-v2` token covers: its lines, each docstring's as prose."""
        if not self.docstrings:
            return self.text(lines)
        starts = {s: e for s, e in self.docstrings}
        out: list[str] = []
        n = self.start
        while n <= self.end:
            if n in starts:
                out.append("\0doc: " + docstring_prose("".join(lines[n - 1 : starts[n]])) + "\n")
                n = starts[n] + 1
            else:
                out.append(lines[n - 1])
                n += 1
        return "".join(out)

    def head_token_text(self, lines: list[str]) -> str:
        """What a head's token covers: its code lines as they are, then its summary as prose."""
        if self.summary is None:
            return self.text(lines, head=True)
        return self.head_code(lines) + "\0summary: " + self.head_summary(lines)


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
    """Every definition in the file, in source order (an unparseable file has none). The last
    files read are kept (`ground` asks for one file's definitions once per reference to it)."""
    return list(_definitions(path, text))


@functools.lru_cache(maxsize=512)  # ground reads a package's files in any order, each many times
def _definitions(path: str, text: str) -> tuple[Extent, ...]:
    return tuple(_read_definitions(path, text))


PARSE_FAILURES = (SyntaxError, ValueError, RecursionError, MemoryError)  # hostile nesting too


def parse_python(text: str, path: str = "<unknown>") -> ast.Module | None:
    """The file's tree; None when it does not parse (a syntax error, a null byte, an expression
    nested deeper than the parser or memory can follow)."""
    try:
        return ast.parse(text, filename=path)
    except PARSE_FAILURES:
        return None


def _read_definitions(path: str, text: str) -> list[Extent]:
    if path.endswith((".py", ".pyi")):
        tree = parse_python(text, path)
        if tree is None:
            return []
        text_lines = split_lines(text)
        return list(_python(tree.body, "", text_lines, _docstring_spans(tree, text_lines)))
    from openwiki_git.evidence import treesitter

    return [Extent(n, s, e, k, ((s, h),)) for n, s, e, k, h in treesitter.extents(path, text)]


def docstring_lines(path: str, text: str) -> list[Span]:
    """The lines of every docstring of a Python file that has its lines to itself, the module's
    included: prose, not code (a quote of them proves no code). Other languages: none known."""
    if not path.endswith((".py", ".pyi")):
        return []
    tree = parse_python(text, path)
    if tree is None:
        return []
    text_lines = split_lines(text)
    found = _docstring_spans(tree, text_lines)
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        span = _own_lines(first.value, text_lines)
        if span is not None:
            found.append(span)
    return sorted(found)


def parse_problem(path: str, text: str) -> str | None:
    """Why a Python file has no definitions to read: where it does not parse (a keyword of a
    later Python used as a name, a syntax error), or None when it parses (or is no Python)."""
    if not path.endswith((".py", ".pyi")):
        return None
    try:
        ast.parse(text, filename=path)
    except SyntaxError as e:
        return f"{path} does not parse as Python (line {e.lineno}: {e.msg})"
    except (ValueError, RecursionError, MemoryError):
        return f"{path} does not parse as Python"
    return None


def find(path: str, text: str, name: str) -> Extent | None:
    """The definition named `name` (the last one, as Python binds it, when there are several; a
    property's setter or deleter is part of the property's, not one of its own)."""
    found = [d for d in definitions(path, text) if d.name == name]
    return found[-1] if found else None


def _python(body: list[ast.stmt], prefix: str, text_lines: list[str], docs: list[Span]) -> Iterator[Extent]:
    accessors, property_ends = _accessors(body)
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or id(node) in accessors:
            continue
        name = f"{prefix}{node.name}"
        start, end = python_extent(node)
        end = property_ends.get(id(node), end)
        signature = (start, signature_end(node))
        docstring = _docstring(node)
        summary = _summary(docstring, text_lines) if docstring else None
        extra = []
        if isinstance(node, ast.ClassDef):
            init = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"), None)
            if init is not None:
                extra.append((python_extent(init)[0], signature_end(init)))
        kind = "class" if isinstance(node, ast.ClassDef) else "method" if prefix else "function"  # only classes' bodies are walked
        head = merged_spans([signature, *([summary] if summary else []), *extra])
        head_v1 = merged_spans([signature, *docstring, *extra])
        inside = tuple(docs[bisect.bisect_left(docs, (start, 0)) : bisect.bisect_right(docs, (end, end))])
        yield Extent(name, start, end, kind, head, summary, head_v1 if head_v1 != head else None, inside)
        if isinstance(node, ast.ClassDef):
            yield from _python(node.body, name + ".", text_lines, docs)


def _accessors(body: list[ast.stmt]) -> tuple[set[int], dict[int, int]]:
    """A property's accessors in `body` (`@total.setter`, `.deleter`, `.getter` after a `total`):
    their ids, which are no definitions of their own, and each property's last line (its last
    accessor's), by the id of the definition that named it."""
    accessors: set[int] = set()
    ends: dict[int, int] = {}
    named: dict[str, ast.stmt] = {}  # a name -> the definition that bound it first
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first = named.get(node.name)
        if first is not None and any(
            isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter", "getter") and isinstance(d.value, ast.Name)
            and d.value.id == node.name for d in node.decorator_list
        ):
            accessors.add(id(node))
            ends[id(first)] = node.end_lineno or node.lineno
        else:
            named[node.name] = node
    return accessors, ends


def signature_end(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    """The last line of the `def`/`class` statement itself (before its body starts)."""
    first = node.body[0]
    first_line = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
    return max(node.lineno, first_line - 1)


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[Span]:
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return [(first.lineno, first.end_lineno or first.lineno)]
    return []


def _docstring_spans(tree: ast.Module, text_lines: list[str]) -> list[Span]:
    """The lines of every definition's docstring in the file that has its lines to itself, in
    source order (one walk of the statements: a definition's are those within its extent)."""
    found = []
    stack: list[ast.AST] = list(tree.body)
    while stack:  # statements only: an expression holds no definition with a docstring
        n = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(x for x in getattr(n, field, ()) if isinstance(x, (ast.stmt, ast.excepthandler, ast.match_case)))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                span = _own_lines(first.value, text_lines)
                if span is not None:
                    found.append(span)
    return sorted(found)


def _own_lines(doc: ast.expr, text_lines: list[str]) -> Span | None:
    """The docstring's lines when it has them to itself (nothing but space before it on its first
    line, nothing but space or a comment after it on its last), else None."""
    last = doc.end_lineno or doc.lineno
    before = text_lines[doc.lineno - 1].encode("utf-8")[: doc.col_offset]
    after = text_lines[last - 1].encode("utf-8")[doc.end_col_offset or 0 :].strip()
    if before.strip() or (after and not after.startswith(b"#")):
        return None
    return doc.lineno, last


_QUOTE_LINE = re.compile(r"""^\s*[rRuUbB]{0,2}(\"\"\"|\'\'\')|(\"\"\"|\'\'\')\s*$""")


def _summary(docstring: list[Span], text_lines: list[str]) -> Span:
    """The lines of the docstring's first paragraph: from its first line through the line
    before the first blank one after its first words (or its closing quotes)."""
    first, last = docstring[0]
    seen_words = False
    for n in range(first, last + 1):
        words = _QUOTE_LINE.sub("", text_lines[n - 1]).strip()
        if words:
            seen_words = True
        elif seen_words and n != last:
            return first, n - 1
    return first, last




def merged_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """`spans` sorted, those that overlap or touch joined: the one merge of line spans (a
    definition's head; the lines a context shows, claims/part.py, verdicts/context.py)."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return tuple(out)
