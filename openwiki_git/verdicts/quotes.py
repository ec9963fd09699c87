"""A quote as models give it, found in a file's current lines. Pure: text in, line spans out.

A model or an agent copies lines from the context it was shown: with or without the numbering
column (`   574 | ` or `+   574 | `, as claims/part.py numbers them, or `   574>| `), re-indented,
or cut mid-line at a parameter (`port: int = 8000` out of `    port: int = 8000,`). A quote is
found where its lines are an unbroken run of the file's lines, white space collapsed: its first
line may be the end of a line and its last the start of one, each cut at a token's edge (so
`TAX_RATE = 0.2` is not found in `TAX_RATE = 0.20`), and a quote cut mid-line says something
(a word, four characters). Rows the context marked `-` are the text as verified, not current:
a quote of them is refused by the caller with `verified_rows`.

`prose_lines`: a file's comment and docstring lines, which prove no code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["Span", "find", "prose_lines", "quote_lines", "verified_rows"]

Span = tuple[int, int]  # 1-based, inclusive

_ROW = re.compile(r"^[+ ]?\s*\d+\s*>?\s*\|\s?")  # a numbered row of the context: `   574 | `, `+   574 | `, `   574>| `
_VERIFIED_ROW = re.compile(r"^-\s*\d*\s*\|\s?")  # a row of the text as verified: `-   570 | `
_JUMP_ROW = re.compile(r"^\s*\.\.\.\s*\|\s*$")  # `   ... |`: the numbering jumps
_EDGE = re.compile(r"[\w.]")  # what continues a token: a quote cut next to one is cut inside it
_WORD = re.compile(r"[A-Za-z0-9_]{2,}")
_COMMENT = re.compile(r"^\s*(?:#|//|/\*|\*|--|<!--|;|%|REM\b|')")  # outside Python
_PY_COMMENT = re.compile(r"^\s*#")
_STRING_ONLY = re.compile(r"""^\s*[rbfuRBFU]{0,2}(["'`]).*\1[,;]?\s*$""")
MIN_CUT = 4  # non-space characters a quote cut mid-line has at least


def _norm(line: str) -> str:
    return " ".join(line.split())


def verified_rows(quote: str) -> bool:
    """Whether the quote copies rows the context marked `-` (the text as verified)."""
    return any(_VERIFIED_ROW.match(ln) for ln in quote.splitlines())


def quote_lines(quote: str) -> list[str]:
    """The quote's lines, white space collapsed, without the context's numbering column (when
    every non-empty line has it), `...` rows and blank edges."""
    lines = quote.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [ln for ln in lines if not _JUMP_ROW.match(ln)]
    if lines and all(_ROW.match(ln) for ln in lines if ln.strip()):
        lines = [_ROW.sub("", ln, count=1) for ln in lines]
    out = [_norm(ln) for ln in lines]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def _cut_ok(line: str, at: int, end: int) -> bool:
    """A piece `line[at:end]` cut at tokens' edges: no token runs on past either end."""
    left = at == 0 or not (_EDGE.match(line[at - 1]) and _EDGE.match(line[at]))
    right = end == len(line) or not (_EDGE.match(line[end - 1]) and _EDGE.match(line[end]))
    return left and right


def _says_something(piece: str) -> bool:
    return len(piece.replace(" ", "")) >= MIN_CUT and bool(_WORD.search(piece))


def _within(line: str, piece: str) -> bool:
    """`piece` is `line`, or a part of it cut at tokens' edges that says something."""
    if piece == line:
        return True
    if not _says_something(piece):
        return False
    at = line.find(piece)
    while at >= 0:
        if _cut_ok(line, at, at + len(piece)):
            return True
        at = line.find(piece, at + 1)
    return False


def _starts(line: str, piece: str) -> bool:
    return line == piece or (line.startswith(piece) and _cut_ok(line, 0, len(piece)) and bool(piece))


def _ends(line: str, piece: str) -> bool:
    return line == piece or (line.endswith(piece) and _cut_ok(line, len(line) - len(piece), len(line)) and bool(piece))


def find(quote: Sequence[str], lines: Sequence[str], allowed: Iterable[Span]) -> list[Span]:
    """Every place where `quote` (as `quote_lines` gives it) is an unbroken run of `lines` (the
    file's, with or without terminators) inside one of the `allowed` spans; 1-based spans."""
    if not quote or not any(quote):
        return []
    found: list[Span] = []
    k = len(quote)
    for a, b in sorted(set(allowed)):
        b = min(b, len(lines))
        norm = {n: _norm(lines[n - 1]) for n in range(max(1, a), b + 1)}
        for start in range(max(1, a), b - k + 2):
            span = (start, start + k - 1)
            if span not in found and _run(quote, [norm[n] for n in range(start, start + k)]):
                found.append(span)
    return sorted(found)


def _run(quote: Sequence[str], got: Sequence[str]) -> bool:
    if len(quote) == 1:
        return _within(got[0], quote[0])
    if not (_ends(got[0], quote[0]) and _starts(got[-1], quote[-1])):
        return False
    if not (got[0] == quote[0] or _says_something(quote[0])) or not (got[-1] == quote[-1] or _says_something(quote[-1])):
        return False
    return list(got[1:-1]) == list(quote[1:-1])


def _annotated_prose(text: str, lines: Sequence[str]) -> set[int]:
    """The lines that hold nothing but an `Annotated[T, ...]` parameter's prose metadata (typer's
    `Doc("Show the values of local variables.")`, a bare string): documentation, as a docstring
    is, now that a cited parameter runs over them (diff/units.py follows it whole)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    out: set[int] = set()
    for node in ast.walk(tree):
        named = node.value if isinstance(node, ast.Subscript) else None
        if not (isinstance(named, (ast.Name, ast.Attribute)) and (getattr(named, "id", "") or getattr(named, "attr", "")) == "Annotated"):
            continue
        assert isinstance(node, ast.Subscript)
        meta = node.slice.elts[1:] if isinstance(node.slice, ast.Tuple) else []
        for m in meta:
            strings = [m] if isinstance(m, ast.Constant) else m.args if isinstance(m, ast.Call) and not m.keywords else []
            if not strings or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in strings):
                continue
            first, last = m.lineno, m.end_lineno or m.lineno
            if lines[first - 1][: m.col_offset].strip() or lines[last - 1][m.end_col_offset or 0 :].strip() not in ("", ",", "),", "],"):
                continue  # the line holds code too (`x: Annotated[int, Doc("n")] = 1`)
            out.update(range(first, last + 1))
    return out


def prose_lines(path: str, text: str, lines: Sequence[str]) -> set[int]:
    """The file's lines that are comments or docstrings (Python: its docstrings by `ast`; a line
    that is only a string outside Python), and blank ones: what a quote of proves no code."""
    from openwiki_git.evidence.definitions import docstring_lines

    python = path.endswith((".py", ".pyi"))
    out = {n for a, b in docstring_lines(path, text) for n in range(a, b + 1)}
    if python and "Annotated" in text:
        out |= _annotated_prose(text, lines)
    for n, line in enumerate(lines, 1):
        comment = _PY_COMMENT.match(line) if python else _COMMENT.match(line) or _STRING_ONLY.match(line)
        if not line.strip() or comment:
            out.add(n)
    return out
