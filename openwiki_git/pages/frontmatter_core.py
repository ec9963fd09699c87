"""Where a page's front matter is, and a fast reader for flat front matter: pure, standard library only.

The one boundary rule (`boundary`), used by every module that needs to know where the body starts:

- an optional BOM (U+FEFF) is skipped, and every offset counts it (the body of a BOM page starts
  one character later than on the same page without it);
- the front matter opens only on the first line (after the BOM), which is exactly `---`
  (trailing spaces or tabs allowed); `----`, `--- x` or a `---` further down open nothing;
- it closes at the next line that is `---` or `...` (YAML's document end markers), trailing
  spaces or tabs allowed;
- opened and never closed: `boundary` returns None; `frontmatter.split` reports it as an error,
  readers that only look for the body treat the page as having no front matter.

`read_fast` reads the common flat front matter (`key: scalar`, `key: [a, b]`, `key:` + `- a`
items, a one-line `{k: v}` mapping, comments) without a YAML parser. It gives exactly the values
frontmatter.parse (ruamel.yaml) gives, or declines: UNREAD for a value it leaves to YAML, None
for a block it does not read at all (tests/pages/test_frontmatter_fast.py checks this differentially).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

BOM = "\ufeff"
_OPEN = re.compile(r"---[ \t]*(\r?\n)")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.M)


@dataclass(frozen=True, slots=True)
class Split:
    """A page cut in four: `head` (BOM and opening fence), `yaml`, `close` (closing fence) and
    `body`. `head + yaml + close + body` is the page, byte for byte."""

    head: str
    yaml: str
    close: str
    body: str
    newline: str = "\n"
    first_line: int = 2  # 1-based page line of the first YAML line

    @property
    def present(self) -> bool:
        return bool(self.head)

    @property
    def body_start(self) -> int:
        """The offset of the body in the page (BOM included)."""
        return len(self.head) + len(self.yaml) + len(self.close)

    def join(self, yaml: str | None = None) -> str:
        return self.head + (self.yaml if yaml is None else yaml) + self.close + self.body


def boundary(text: str) -> Split | None:
    """The page cut at its front matter (`present` False: it has none), or None when a first line
    `---` opens front matter that is never closed."""
    start = 1 if text.startswith(BOM) else 0
    opening = _OPEN.match(text, start)
    if opening is None:
        if text[start:].rstrip(" \t\r\n") == "---":
            return None
        return Split("", "", "", text)
    close = _CLOSE.search(text, opening.end())
    if close is None:
        return None
    return Split(
        text[: opening.end()],
        text[opening.end() : close.start()],
        text[close.start() : close.end()],
        text[close.end() :],
        opening.group(1),
        2,
    )


def body_start(text: str) -> int:
    """Where the page's body starts: after its front matter, else 0 (also when never closed)."""
    sp = boundary(text)
    return 0 if sp is None else sp.body_start


def opens(text: str) -> bool:
    """Whether the page's first line opens front matter (closed or not)."""
    sp = boundary(text)
    return sp is None or sp.present


_TYPE_KEY = re.compile(r"^type[ \t]*:", re.MULTILINE)


def uses_okf(text: str, *, site: bool) -> bool:
    """Is this page an OKF page: its front matter checked by the OKF rules (`type:` required) and
    `sources`/`verified` projected into it? Every page of a plain wiki is. A docs site's page
    (store/site.py) only when its front matter already declares a `type`: a site renders pages
    whose front matter is the generator's (MkDocs' `title`, `hide`) or none, and the tool's
    bookkeeping stays in the sidecars. The one predicate validate, lint, check and the writers ask."""
    if not site:
        return True
    sp = boundary(text)
    return sp is None or (sp.present and _TYPE_KEY.search(sp.yaml) is not None)


# -- the fast reader -----------------------------------------------------------------------------

UNREAD: Any = type("Unread", (), {"__repr__": lambda self: "UNREAD"})()  # a value left to the YAML parser

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ ]*:(?:[ ]+(.*?))?[ ]*")
_ITEM = re.compile(r"([ ]*)-(?:[ ]+(.*?))?[ ]*")
_DOUBLE = re.compile(r'"([^"\\]*)"(?:[ ]+#.*)?')
_SINGLE = re.compile(r"'((?:[^']|'')*)'(?:[ ]+#.*)?")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?"
)
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_./()-]*(?: [A-Za-z0-9_./()-]+)*")
_MAYBE_NUMBER = re.compile(r"[-+.0-9_:A-Za-z]*")
_NULLS = {"", "~", "null", "Null", "NULL"}
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INDICATORS = "-?:,[]{}#&*!|>'\"%@`<="


def _plain(text: str, *, flow: bool) -> Any:
    """A plain scalar's value as ruamel gives it, or UNREAD."""
    if " #" in text:
        text = text[: text.index(" #")].rstrip(" ")
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    if _WORDS.fullmatch(text):
        return text  # the common case: words, paths, file names
    if text[0] in _INDICATORS or text.endswith(":") or ": " in text or "\t" in text or not text.isprintable():
        return UNREAD
    if flow and any(c in text for c in ",[]{}:?"):
        return UNREAD
    if re.fullmatch(r"0|[1-9][0-9]{0,17}", text):
        return int(text)
    if _TIMESTAMP.fullmatch(text):
        return text  # timestamps load as their text (frontmatter._yaml)
    if text[0] in "-+.0123456789" and _MAYBE_NUMBER.fullmatch(text):
        return UNREAD  # floats, .inf, octal, hex...: left to YAML ("2024 review" is text)
    return text


def _scalar(text: str, *, flow: bool = False) -> Any:
    if text.startswith('"'):
        m = _DOUBLE.fullmatch(text) if not flow else re.fullmatch(r'"([^"\\,\[\]{}]*)"', text)
        return m.group(1) if m and m.group(1).isprintable() else UNREAD
    if text.startswith("'"):
        m = _SINGLE.fullmatch(text) if not flow else re.fullmatch(r"'([^',\[\]{}]*)'", text)
        return m.group(1).replace("''", "'") if m and m.group(1).isprintable() else UNREAD
    return _plain(text, flow=flow)


def _flow_items(inner: str) -> list[str] | None:
    inner = inner.strip(" ")
    if not inner:
        return []
    items = [part.strip(" ") for part in inner.split(",")]
    return None if any(not item for item in items) else items


def _value(text: str | None) -> Any:
    """The value written after `key:` on its line (None: nothing there)."""
    if text is None or text.startswith("#"):
        return None
    if text.startswith("["):
        m = re.fullmatch(r"\[([^\[\]{}#]*)\](?:[ ]+#.*)?", text)
        items = _flow_items(m.group(1)) if m else None
        if items is None:
            return UNREAD
        values = [_scalar(item, flow=True) for item in items]
        return UNREAD if any(v is UNREAD for v in values) else values
    return _scalar(text)


def _flow_mapping(line: str) -> dict[str, Any] | None:
    """A one-line `{key: value, ...}` front matter of simple scalars, or None."""
    m = re.fullmatch(r"\{([^\[\]{}#]*)\}[ ]*(?:[ ]#.*)?", line)
    items = _flow_items(m.group(1)) if m else None
    if items is None:
        return None
    out: dict[str, Any] = {}
    for item in items:
        kv = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(.+)", item)
        if kv is None or kv.group(1) in out or kv.group(1) in _NULLS or kv.group(1) in _BOOLS:
            return None
        value = _scalar(kv.group(2), flow=True)
        if value is UNREAD:
            return None
        out[kv.group(1)] = value
    return out


def read_fast(yaml: str) -> dict[str, Any] | None:
    """The top-level keys of a flat front matter (`Split.yaml`) and their values as ruamel reads
    them; a value this reader leaves to YAML is UNREAD; None when it does not read the block."""
    if "\t" in yaml or "\r" in yaml.replace("\r\n", "\n"):
        return None
    out: dict[str, Any] = {}
    key: str | None = None  # the key whose indented or `- ` lines may follow
    items: list[Any] | None = None  # its block list so far
    lines = [line.rstrip("\r") for line in yaml.split("\n")]
    if not all(line.isprintable() for line in lines):
        return None
    items_indent = ""
    content = [line for line in lines if line.strip(" ") and not line.lstrip(" ").startswith("#")]
    if len(content) == 1 and content[0].startswith("{"):
        return _flow_mapping(content[0])
    for line in content:
        if line.startswith(" ") or line.startswith("-"):
            if key is None:
                return None
            item = _ITEM.fullmatch(line)
            if items is not None and item is not None and (not items or item.group(1) == items_indent):
                value = UNREAD if item.group(2) is None else _value(item.group(2))
                if isinstance(value, list) or value is None:
                    value = UNREAD
                items.append(value)
                out[key] = UNREAD if any(v is UNREAD for v in items) else list(items)
                items_indent = item.group(1)
                continue
            out[key], items = UNREAD, None  # a nested mapping, a block scalar, a multi-line value...
            continue
        m = _KEY_LINE.fullmatch(line)
        if m is None:
            return None
        key = m.group(1)
        if key in out or key in _NULLS or key in _BOOLS:
            return None
        value = _value(m.group(2))
        out[key] = value
        items = [] if value is None else None
        items_indent = ""
    return out
