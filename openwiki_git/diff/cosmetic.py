"""Is an edit of cited lines cosmetic? Old and new text compared as token streams. Pure.

A change that leaves the code's tokens the same (whitespace, blank lines, line wrapping,
comments, and with `annotations=True` Python type annotations) does not change what the code
does, so a claim about it still holds. `compare` answers with the reason (`cosmetic: comments`,
`cosmetic: whitespace, line wrapping`, ...) or None when the tokens differ.

Python (`.py`, `.pyi`) is tokenized with the standard library's `tokenize`, on the whole file when
it is given (`old_file`/`new_file` with the cited 1-based ranges), so that a range starting inside a
string or a block tokenizes as it does in the file; indentation is kept (INDENT/DEDENT, and the
column the range starts at), since it is syntax there. Other languages go through Pygments'
lexer for the file name (imported lazily: the hook pays for it only when a cited non-Python range
changed); comments and whitespace tokens are dropped, except leading whitespace in languages
where indentation is syntax. A file type no lexer knows is never cosmetic.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tokenize

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
# Pygments lexer names whose languages make leading whitespace syntax.
_INDENTED = {
    "YAML", "Haskell", "Makefile", "CoffeeScript", "Nim", "F#", "Sass", "Pug", "Slim", "Haml", "reStructuredText", "Markdown",
    "Cython", "Starlark", "Python", "Python 2.x", "Text only",
}


def compare(
    path: str,
    old: Sequence[str],
    new: Sequence[str],
    *,
    old_span: tuple[int, int] | None = None,
    new_span: tuple[int, int] | None = None,
    annotations: bool = False,
) -> str | None:
    """`old`/`new`: the lines (terminators kept) of the cited text, or, with `old_span`/`new_span`
    (1-based inclusive), of the whole file the span is cut from. The reason, or None."""
    old_cut = list(old[old_span[0] - 1 : old_span[1]]) if old_span else list(old)
    new_cut = list(new[new_span[0] - 1 : new_span[1]]) if new_span else list(new)
    if old_cut == new_cut:
        return None  # not an edit (the caller asks about changed text only)
    if path.endswith(PYTHON_SUFFIXES):
        a = _python(old, old_span, annotations)
        b = _python(new, new_span, annotations)
    else:
        a = _other(path, "".join(old_cut))
        b = _other(path, "".join(new_cut))
    if a is None or b is None or a.tokens != b.tokens:
        return None
    kinds = []
    if a.comments != b.comments:
        kinds.append("comments")
    if a.rows != b.rows or a.commas != b.commas:
        kinds.append("line wrapping")
    if a.annotations != b.annotations:
        kinds.append("annotations" + types_changed(a.annotations, b.annotations))
    return "cosmetic: " + ", ".join(kinds or ["whitespace"])


# -- the types an annotation-only edit added or removed ------------------------------------------
# typing's aliases of builtins and of `X | None`: `List[int]` becoming `list[int]` names no new type.
_ALIASES = {
    "List": "list", "Dict": "dict", "Set": "set", "FrozenSet": "frozenset", "Tuple": "tuple", "Type": "type",
    "Optional": "None", "NoneType": "None", "Text": "str", "DefaultDict": "defaultdict", "Deque": "deque",
}
_SPELLING = {"Union", "Annotated"}  # `Union[A, B]` is `A | B`, `Annotated[A, ...]` is A: they name no type
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*")
_TYPES = re.compile(r"annotations \(((?:added|removed) [^;)]*(?:; (?:added|removed) [^;)]*)?)\)")


def type_names(tokens: Sequence[str]) -> frozenset[str]:
    """The types an annotation names, by their last dotted part (`typing.Any` is `Any`), typing's
    aliases as what they alias (`List` is `list`, `Optional[X]` is `X | None`), forward references
    (`"Cart"`, which the stream holds as its value, `s'Cart'`) read inside their quotes.
    `Annotated[T, ...]` names T: its metadata (`Doc("The name of the app.")`, `Field(gt=0)`)
    names no type, and a string that is prose, not a type expression, names none either."""
    kept = []
    for t in _outside_metadata(tokens):
        quote = min((i for i in (t.find("'"), t.find('"')) if i >= 0), default=-1)
        if quote < 0:
            kept.append(t)
        elif _FORWARD_REF.fullmatch(t[quote:].strip("'\"")) and not _PROSE.search(t[quote:]):
            kept.append(t[quote:])
    names = set()
    for m in _IDENTIFIER.finditer(" ".join(kept)):
        last = m.group(0).rsplit(".", 1)[-1].strip()
        if last in _SPELLING or not last.isidentifier():
            continue
        names.add(_ALIASES.get(last, last))
    return frozenset(names)


_FORWARD_REF = re.compile(r"[\w.\[\], |]+")  # "Cart", "list[Cart] | None"; not "The name of the app."
_PROSE = re.compile(r"\w \w")  # words side by side: a type expression spaces only around `,` and `|`


def _outside_metadata(tokens: Sequence[str]) -> list[str]:
    """The tokens, less what `Annotated[T, ...]` holds after T."""
    out: list[str] = []
    frames: list[list[bool]] = []  # per open bracket: [an Annotated's, past its first argument]
    previous = ""
    for t in tokens:
        if t in ("(", "[", "{"):
            frames.append([t == "[" and previous.rsplit(".", 1)[-1] == "Annotated", False])
        elif t in (")", "]", "}") and frames:
            frames.pop()
        elif t == "," and frames and frames[-1][0]:
            frames[-1][1] = True
        if not any(meta for _, meta in frames):
            out.append(t)
        previous = t
    return out


def types_changed(old: Sequence[tuple[object, Sequence[str]]], new: Sequence[tuple[object, Sequence[str]]]) -> str:
    """` (removed int; added str)`: the types named at each annotation site (the same place in the
    code, annotations aside) on one side and not the other; "" when every site names the same
    types (`typing.Callable[P, typing.Any]` becoming `Callable[P, Any]`). A site is any key: a
    place in the token stream here, a parameter's name in claims/signature_edits.py."""
    before, after = dict(old), dict(new)
    removed: set[str] = set()
    added: set[str] = set()
    for site in set(before) | set(after):
        was, now = type_names(before.get(site, ())), type_names(after.get(site, ()))
        removed |= was - now
        added |= now - was
    parts = [f"{word} {', '.join(sorted(names))}" for word, names in (("removed", removed), ("added", added)) if names]
    return f" ({'; '.join(parts)})" if parts else ""


def annotation_types(reason: str) -> frozenset[str] | None:
    """The types a cosmetic reason says an annotation-only edit added or removed (empty: it named
    the same types, only spelled otherwise); None when the reason is not an annotation edit."""
    if not reason.startswith("cosmetic:") or "annotations" not in reason:
        return None
    m = _TYPES.search(reason)
    if m is None:
        return frozenset()
    return frozenset(n for part in m.group(1).split("; ") for n in part.split(" ", 1)[1].split(", "))


@dataclass(frozen=True, slots=True)
class Stream:
    tokens: tuple[tuple[object, str], ...]  # what the code is: compared for equality
    rows: tuple[int, ...]  # each token's line, from the first token's
    comments: tuple[str, ...] = ()
    annotations: tuple[tuple[int, tuple[str, ...]], ...] = ()  # per annotation dropped (annotations=True): where, its tokens
    commas: int = 0  # trailing commas dropped


Tok = tuple[int, str, int]  # token type, string (or value), line (-1: INDENT/DEDENT)


# -- Python ------------------------------------------------------------------------------------
def _python(lines: Sequence[str], span: tuple[int, int] | None, annotations: bool) -> Stream | None:
    import tokenize

    first, last = span if span else (1, len(lines))
    toks = _python_tokens(tuple(lines))
    if toks is None:
        return None
    sig: list[Tok] = []
    comments: list[str] = []
    start_col: int | None = None
    for t in toks:
        row = t.start[0]
        if row < first or row > last or t.type in (tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        if t.type == tokenize.COMMENT:
            comments.append(t.string.rstrip())
        elif t.type in (tokenize.INDENT, tokenize.DEDENT):
            sig.append((t.type, "", -1))
        else:
            if start_col is None:
                start_col = t.start[1]  # a block re-indented as a whole is not cosmetic
            text = "" if t.type == tokenize.NEWLINE else _string_value(t.string) if t.type == tokenize.STRING else t.string
            sig.append((t.type, text, row))
    sig, commas = _drop_trailing_commas(sig)
    removed: list[tuple[int, tuple[str, ...]]] = []
    if annotations:
        sig, removed = _drop_annotations(sig)
    return Stream(
        ((None, str(start_col)), *((k, s) for k, s, _ in sig)),
        _wrapping(sig),
        tuple(comments),
        tuple(removed),
        commas,
    )


@functools.lru_cache(maxsize=8)
def _python_tokens(lines: tuple[str, ...]) -> tuple[tokenize.TokenInfo, ...] | None:
    """A whole file's tokens, None when it does not tokenize. Kept for the last few files: the
    hook asks about every changed claim of a file, each time with the same two sides."""
    import tokenize

    try:
        it = iter(lines)
        return tuple(tokenize.generate_tokens(lambda: next(it, "")))
    except (tokenize.TokenError, SyntaxError):
        return None


def _wrapping(sig: list[Tok]) -> tuple[int, ...]:
    """Each token's line relative to its logical line's first: how statements are wrapped
    (blank lines between statements are not wrapping)."""
    import tokenize

    out: list[int] = []
    first: int | None = None
    for kind, _, row in sig:
        if row == -1:
            continue
        if first is None:
            first = row
        out.append(row - first)
        if kind == tokenize.NEWLINE:
            first = None
    return tuple(out)


def _string_value(text: str) -> str:
    """A plain string literal by its value (quote style is formatting); others as written."""
    import ast

    prefix = text[: len(text) - len(text.lstrip("rRbBuUfF"))].lower()
    if "f" in prefix:
        return text
    try:
        return ("b" if "b" in prefix else "s") + repr(ast.literal_eval(text))
    except (ValueError, SyntaxError):
        return text


_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = (")", "]", "}")
# Names after which `(` opens a parenthesised expression, not a call's arguments.
_KEYWORDS = {"in", "not", "and", "or", "is", "return", "yield", "if", "else", "elif", "while", "for",
             "lambda", "assert", "await", "del", "import", "from", "with", "as", "print", "except"}


def _drop_trailing_commas(sig: list[Tok]) -> tuple[list[Tok], int]:
    """Drop a comma right before a closing bracket, where it changes nothing: always before `]`
    and `}`, before `)` only in a call or a signature (`f(a,)`), never in `(a,)`, a tuple."""
    import tokenize

    out: list[Tok] = []
    stack: list[bool] = []  # per open bracket: a call/signature paren (or [ {)
    dropped = 0
    for tok in sig:
        kind, s, _ = tok
        if kind == tokenize.OP and s in _OPEN:
            prev = out[-1] if out else None
            call = s != "(" or (prev is not None and ((prev[0] == tokenize.NAME and prev[1] not in _KEYWORDS) or prev[1] in _CLOSE))
            stack.append(call)
        elif kind == tokenize.OP and s in _CLOSE:
            call = stack.pop() if stack else False
            if out and out[-1][:2] == (tokenize.OP, ",") and call:
                out.pop()
                dropped += 1
        out.append(tok)
    return out, dropped


def _skip(sig: list[Tok], i: int, stops: tuple[str, ...]) -> int:
    """The index of the first token from `i` on that is one of `stops` at bracket depth 0 (or
    closes the enclosing bracket, or ends the logical line)."""
    import tokenize

    depth = 0
    while i < len(sig):
        kind, s, _ = sig[i]
        if kind == tokenize.NEWLINE or (depth == 0 and s in stops):
            return i
        if kind == tokenize.OP and s in _OPEN:
            depth += 1
        elif kind == tokenize.OP and s in _CLOSE:
            depth -= 1
            if depth < 0:
                return i
        i += 1
    return i


def _drop_annotations(sig: list[Tok]) -> tuple[list[Tok], list[tuple[int, tuple[str, ...]]]]:
    """Remove parameter annotations (`x: int` in a `def`'s parentheses), return annotations
    (`-> T`), and the annotation of an annotated assignment with a value (`x: T = v`); each one
    removed is kept with where it stood in what is left (the same place on both sides of a
    cosmetic edit) and its tokens, `:` and `->` left out."""
    import tokenize

    out: list[Tok] = []
    removed: list[tuple[int, tuple[str, ...]]] = []
    i, n = 0, len(sig)
    in_def, depth, line_start = False, 0, True
    while i < n:
        kind, s, _ = sig[i]
        if kind == tokenize.NAME and s == "def":
            in_def, depth = True, 0
        elif in_def and kind == tokenize.OP and s in _OPEN:
            depth += 1
        elif in_def and kind == tokenize.OP and s in _CLOSE:
            depth -= 1
        if in_def and depth == 1 and s == ":" and kind == tokenize.OP and out and out[-1][0] == tokenize.NAME:
            j = _skip(sig, i + 1, (",", "="))
            removed.append((len(out), tuple(t[1] for t in sig[i + 1 : j])))
            i = j
            continue
        if in_def and depth == 0 and kind == tokenize.OP and s == "->":
            j = _skip(sig, i + 1, (":",))
            removed.append((len(out), tuple(t[1] for t in sig[i + 1 : j])))
            i = j
            continue
        if not in_def and line_start and kind == tokenize.NAME and i + 1 < n and sig[i + 1][:2] == (tokenize.OP, ":"):
            j = _skip(sig, i + 2, ("=",))
            if j < n and sig[j][1] == "=":
                out.append(sig[i])
                removed.append((len(out), tuple(t[1] for t in sig[i + 2 : j])))
                i, line_start = j, False
                continue
        if kind == tokenize.NEWLINE:
            in_def = False
        line_start = kind in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        out.append(sig[i])
        i += 1
    return out, removed


# -- other languages (Pygments) ----------------------------------------------------------------
def _other(path: str, text: str) -> Stream | None:
    cls = _lexer_class(path)
    if cls is None:
        return None
    from pygments.token import Comment, Text, Whitespace

    lexer = cls(stripnl=False, ensurenl=False)
    indented = cls.name in _INDENTED
    sig: list[tuple[object, str]] = []
    rows: list[int] = []
    comments: list[str] = []
    row = 0
    at_line_start = True
    for ttype, value in lexer.get_tokens(text):
        if ttype in Comment:
            comments.append(value.strip())
        elif (ttype in Whitespace or ttype in Text) and not value.strip():
            if indented and at_line_start and value.strip("\n"):
                sig.append(("indent", value.rsplit("\n", 1)[-1]))
                rows.append(row)
        else:
            sig.append((str(ttype), value))
            rows.append(row)
        row += value.count("\n")
        at_line_start = value.endswith("\n")
    base = rows[0] if rows else 0
    return Stream(tuple(sig), tuple(r - base for r in rows), tuple(comments))


def _lexer_class(path: str):  # type: ignore[no-untyped-def]
    """Pygments' lexer class for the file name, from its built-in table (no plugin lookup: that
    reads installed packages' metadata), or None. Ambiguous patterns (`*.h`) take the first."""
    import fnmatch

    try:
        from pygments.lexers import _mapping, get_lexer_by_name
    except ImportError:  # pragma: no cover - a dependency; without it nothing is cosmetic
        return None
    name = path.rsplit("/", 1)[-1]
    for _module, _name, aliases, patterns, _mimes in _mapping.LEXERS.values():
        if aliases and any(fnmatch.fnmatchcase(name, p) for p in patterns):
            return type(get_lexer_by_name(aliases[0]))
    return None
