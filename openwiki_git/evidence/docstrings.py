"""A docstring read as prose: the one owner of what a docstring's markup is. Pure: text in,
text out.

- `summary_prose`: a head's summary (`repo-head-v2`): its quotes, inline markup (backticks,
  asterisks, a Sphinx role's `:func:` prefix) and line wrapping left out, the words kept.
- `docstring_prose`: a whole docstring (`repo-def-v2`, a whole definition's token): the same,
  and its field lists read by what they say whichever style writes them (Sphinx's
  `:param x: ...`, `:returns: ...`, `:raises E: ...` and Google's `Args:` / `x: ...`,
  `Returns:`, `Raises:` sections give the same text), and the version a `versionadded`,
  `versionchanged` or `deprecated` directive names read as a release (`18.1` and `18.1.0` are
  one release). Every other word, a parameter's name and its description among them, is
  compared: structlog 23.2.0 rewrote its docstrings from Sphinx field lists to Google sections
  and its versions from `18.1` to `18.1.0` without changing what one of them says.
"""

from __future__ import annotations

import re

__all__ = ["docstring_prose", "summary_prose"]

_QUOTES = re.compile(r"""^\s*[rRuUbB]{0,2}(\"\"\"|\'\'\')|(\"\"\"|\'\'\')\s*$""")
_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)?:(?=`)")  # :func:`x`, :py:meth:`x`
_MARKUP = re.compile(r"[`*]+")
_PARAMS = re.compile(r"(?:Args|Arguments|Parameters|Params|Keyword Arguments|Keyword Args|Other Parameters):")
_SECTION = re.compile(r"(Returns?|Yields?|Raises|Warns):")
_ENTRY = re.compile(r"(\*{0,2}[A-Za-z_][\w.]*)(?:\s*\([^)]*\))?:(?:\s+|$)(.*)")  # `name:`, `name (int):`
_FIELD = re.compile(
    r":(param|parameter|arg|argument|key|keyword|raises?|except|exception|returns?|yields?)((?:\s+[^:]+?)?)\s*:(?:\s+|$)(.*)"
)
_FIELD_KIND = {
    "parameter": "param", "arg": "param", "argument": "param", "key": "param", "keyword": "param", "raise": "raises",
    "except": "raises", "exception": "raises", "return": "returns", "yield": "yields", "returns": "returns",
    "yields": "yields", "raises": "raises", "param": "param", "warns": "warns",
}
_VERSION = re.compile(r"(\.\.\s+(?:versionadded|versionchanged|deprecated)::?\s+)(\d+(?:\.\d+)*)")


def summary_prose(text: str) -> str:
    """A docstring summary as prose: its quotes, inline markup (backticks, asterisks, a Sphinx
    role's prefix) and line wrapping left out."""
    words = " ".join(_QUOTES.sub("", line) for line in text.splitlines())
    return " ".join(_MARKUP.sub("", _ROLE.sub("", words)).split())


def docstring_prose(text: str) -> str:
    """A whole docstring as prose: `summary_prose` of its lines with each field written one way
    (`param x: ...`, `returns: ...`, `raises E: ...`) and each directive's version as a release."""
    out: list[str] = []
    section: str | None = None
    header_indent = 0
    entry_indent: int | None = None  # a section's entries are its lines indented the least
    for raw in text.splitlines():
        line = _QUOTES.sub("", raw)
        words = line.strip()
        if not words:
            continue
        indent = len(line) - len(line.lstrip())
        if section is not None and indent <= header_indent:
            section = None  # a Google section ends at the first line not indented under it
        header = "param" if _PARAMS.fullmatch(words) else _section(words)
        if header is not None:
            section, header_indent, entry_indent = header, indent, None
            if header in ("returns", "yields"):
                out.append(header + ":")
            continue
        if section is not None and entry_indent is None:
            entry_indent = indent
        listed = section in ("param", "raises", "warns") and indent == entry_indent
        entry = _ENTRY.fullmatch(words) if listed else None
        field = None if entry is not None else _FIELD.fullmatch(words)
        if entry is not None:
            words = f"{section} {entry.group(1)}: {entry.group(2)}"
        elif field is not None:
            kind, name, rest = field.groups()
            name = name.split()[-1] if name.strip() else ""  # `:param int x:`: the name, not its type
            words = f"{_FIELD_KIND[kind]} {name}: {rest}" if name else f"{_FIELD_KIND[kind]}: {rest}"
        out.append(words)
    return _VERSION.sub(_release, summary_prose("\n".join(out)))


def _section(words: str) -> str | None:
    m = _SECTION.fullmatch(words)
    return None if m is None else _FIELD_KIND[m.group(1).lower()]


def _release(m: re.Match[str]) -> str:
    """`.. versionadded:: 18.1.0` as `.. versionadded:: 18.1` (a release's trailing zeros)."""
    parts = m.group(2).split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return m.group(1) + ".".join(parts)
