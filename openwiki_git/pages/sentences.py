"""The one sentence splitter: a page's prose blocks and the sentences in them. Pure: text in,
offsets out. `ground` (its statements and marker places), `claim add` (where a marker goes),
`lint`'s prose-differs and `claim show` (the sentence before a marker) and the refresher's
rewrites (the sentence a marker closes) all split here.

Blocks: prose paragraphs and list items; headings, tables, HTML, MyST directives and MkDocs
admonition headers (`!!! note "TL;DR"`, `??? warning`) are `other`; fenced and indented code is
`code`. An admonition's indented body is prose.

A sentence ends at `.`, `!` or `?` (closing quotes, brackets and emphasis and any claim markers
after it, of either form, belong to it), or at a run of markers, when whitespace (line breaks included) and then
a new sentence's opening follow: a code span, a capital, a digit, a link or a reST role. Not boundaries:
dots inside code spans and link targets, abbreviations (`e.g.`, `i.e.`, `vs.`, `cf.`, an
initial `J.`), versions (`v1.2.`). `etc.` is an ending only when a new sentence follows it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from openwiki_git.pages.markers import ANY_PATTERN

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_BOUNDARY = re.compile(
    r"(?:[.!?][)\"'\]*_]*(?:[ \t]*" + ANY_PATTERN + r")*|(?:[ \t]*" + ANY_PATTERN + r")+)"
    r"(?=\s+[\"'(*_]*(?:`|\[(?!\^)|[A-Z0-9]|:[a-z][\w:.+-]*:`))"  # ...or a reST role: :class:`Cart`
)
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|vs|cf|al|approx|incl|resp|esp|viz|Mr|Mrs|Ms|Dr|St|No|Fig|Figs|Eq|Sec|Ch|Vol)"
    r"|(?<![^\s(\[\"'])[A-Za-z]|\bv\d+(?:\.\d+)*)\.$"  # an initial stands alone: `J.`, not `field`s.
)
# What opens a block's first line without being its sentence: a bullet, a number, a quote.
_PREFIX = re.compile(r"[ \t]*(?:(?:[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d{1,9}[.)][ \t]+|>[ \t]?)[ \t]*)*")

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_LIST = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")  # a thematic break, `---` or `----`
_ADMONITION = re.compile(r"^ {0,3}(?:!!!|\?\?\?\+?)[ \t]+[A-Za-z][\w-]*(?:[ \t]+\S[^\n]*)?$")


class Span(NamedTuple):
    start: int  # the sentence's first character (after a bullet or a quote mark)
    stop: int  # after its closing punctuation, before the markers that follow it
    end: int  # after those markers: where a new marker goes


def split(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The sentences of one block, `text[start:end]`, in order; offsets refer to `text`."""
    end = len(text) if end is None else end
    chunk = text[start:end]
    shielded = _CODE_SPAN.sub(lambda m: m.group(1) + "x" * (len(m.group(0)) - 2 * len(m.group(1))) + m.group(1), chunk)
    shielded = _LINK_TARGET.sub(lambda m: "]" + "x" * (len(m.group(0)) - 1), shielded)
    cuts = []
    for m in _BOUNDARY.finditer(shielded):
        if shielded[m.start()] == "." and _ABBREVIATION.search(shielded, max(0, m.start() - 12), m.start() + 1):
            continue
        cuts.append(m.end())
    out: list[Span] = []
    s = 0
    for cut in [*cuts, len(chunk)]:
        piece = chunk[s:cut]
        prefix = _PREFIX.match(piece) if s == 0 else None  # a bullet or quote opens only the block
        lead = prefix.end() if prefix else 0
        lead += len(piece[lead:]) - len(piece[lead:].lstrip())
        body = piece.rstrip()
        if len(body) > lead:
            stop = len(body)
            while True:  # the markers after the punctuation are not the sentence's text
                tail = _TRAILING_MARKER.search(body, lead, stop)
                if not tail:
                    break
                stop = tail.start()
            out.append(Span(start + s + lead, start + s + stop, start + s + len(body)))
        s = cut
    return out


_TRAILING_MARKER = re.compile(r"[ \t]*" + ANY_PATTERN + r"$")


def blocks(text: str, start: int = 0) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the blocks of `text[start:]`: `prose` (paragraphs, list items, an
    admonition's body), `other` (headings, tables, HTML, directives, admonition headers) and
    `code` (fenced or indented)."""
    out: list[tuple[str, int, int]] = []
    pos = start
    fence: str | None = None
    fence_start = 0
    para: tuple[int, int] | None = None
    admonition = False  # inside an admonition: its indented lines are prose, not code

    def close() -> None:
        nonlocal para
        if para is not None:
            out.append(("prose", para[0], para[1]))
            para = None

    for line in text[start:].splitlines(keepends=True):
        lstart, lend = pos, pos + len(line.rstrip("\r\n"))
        pos += len(line)
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence) and stripped.strip(fence[0]) == "":
                out.append(("code", fence_start, lend))
                fence = None
            continue
        m = _FENCE.match(line)
        if m:
            close()
            fence, fence_start = m.group(1), lstart
            continue
        if stripped and admonition and not line.startswith((" ", "\t")):
            admonition = False
        if not stripped:
            close()
        elif _ADMONITION.match(line.rstrip("\r\n")):
            close()
            out.append(("other", lstart, lend))
            admonition = True
        elif _HEADING.match(line) or stripped.startswith(("|", "<", ":::", "```{", ".. ", "% ")) or _BREAK.match(line):
            close()
            out.append(("other", lstart, lend))
        elif _LIST.match(line):
            close()
            para = (lstart, lend)
        elif line.startswith("    ") and para is None and not admonition:
            out.append(("code", lstart, lend))  # an indented code block
        else:
            para = (para[0], lend) if para is not None else (lstart, lend)
    close()
    if fence is not None:
        out.append(("code", fence_start, pos))
    return out


def without_code(text: str) -> str:
    """`text` with its code blanked, fenced and indented blocks and code spans alike (every
    character but a line break a space: offsets and line numbers hold), so that what a page
    shows as code (a marker quoted in a guide: `` `[^c-1a2b3c4d]` ``) is not read as prose."""
    chars = list(text)
    for kind, start, end in blocks(text):
        if kind == "code":
            chars[start:end] = [c if c in "\r\n" else " " for c in text[start:end]]
    blanked = "".join(chars)
    return _CODE_SPAN.sub(lambda m: "".join(c if c in "\r\n" else " " for c in m.group(0)), blanked)


def prose(text: str, start: int = 0) -> list[Span]:
    """Every sentence of the prose blocks of `text[start:]`, in order."""
    return [s for kind, b_start, b_end in blocks(text, start) if kind == "prose" for s in split(text, b_start, b_end)]


def before(text: str, at: int, start: int = 0, found: list[tuple[str, int, int]] | None = None) -> Span | None:
    """The sentence that ends right before offset `at` (where a claim's marker stands), split
    within its prose block; None when `at` is in no prose block of `text[start:]`. `found`: the
    blocks of `text[start:]` already split (a caller asking for many markers of one page)."""
    for kind, b_start, b_end in blocks(text, start) if found is None else found:
        if b_start <= at <= b_end and kind == "prose":
            spans = split(text, b_start, at)
            return spans[-1] if spans else None
    return None
