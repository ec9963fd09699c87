"""A document's records accumulated while its blocks are read (`Builder`): sections from
headings (slugs, GitHub anchors, section keys, the title), paragraphs with their lines, and
which paragraphs carry markers, references or relations; and the line grammar of headings,
setext underlines and thematic breaks. Pure. blocks.py drives it; split.py finishes it.
"""

from __future__ import annotations

import itertools
import operator
import re

from openwiki_git.markdown.document import Section
from openwiki_git.markdown.refs import Ref, refs_in
from openwiki_git.markdown.refscan import notable, scan
from openwiki_git.markdown.relations import Relation, may_relate, relations_in
from openwiki_git.pages.markers import ANY, COMMENT_OPENING

__all__ = ["ATX_AT", "SEPARATOR", "Builder", "NotTheTitle", "atx_heading", "plain", "slugify"]

_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")  # read by `atx_heading`
ATX_AT = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")  # match(text, start, end)
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_INLINE_LINK_TEXT = re.compile(r"!?\[((?:[^\]\[]|\[[^\]]*\])*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # an underscore inside a word is not emphasis
_SLUG_DROP = re.compile(r"[^\w\- ]", re.U)


def plain(text: str) -> str:
    """Inline Markdown reduced to its words: links to their text, emphasis and code marks dropped."""
    if "[" in text:
        text = _INLINE_LINK_TEXT.sub(r"\1", text)
        text = ANY.sub("", text)
    elif COMMENT_OPENING in text:
        text = ANY.sub("", text)
    if "*" in text or "_" in text or "`" in text:
        text = _EMPHASIS.sub("", text)
    return text.strip()


def slugify(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    lower = heading.strip().lower()
    if not lower.replace(" ", "").isalnum():  # the common case (words and spaces) needs no regex
        lower = _SLUG_DROP.sub("", lower)
    return lower.replace(" ", "-") or "section"


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line (no newline in it), or None: what `_ATX` gives
    (`len(group(1))`, `group(2) or ""`), read with string methods. `_ATX`'s lazy `(.*?)` tries
    the closing sequence at every character, several times slower; a test compares the two."""
    s = line.lstrip(" ")
    body = s.lstrip("#")
    level = len(s) - len(body)
    if len(line) - len(s) > 3 or not 0 < level <= 6 or body[:1] not in ("", " ", "\t"):
        return None
    text = body.strip(" \t")
    if text[-1:] == "#":  # a closing sequence, if white space comes before it
        rest = text.rstrip("#")
        if rest[-1:] in (" ", "\t"):
            text = rest.rstrip(" \t")
    return level, text


def _is_list(line: str) -> bool:
    s = line.lstrip()
    return s[:2] in ("- ", "* ", "+ ") or s[:1] == ">"


SEPARATOR = re.compile(r"(\n(?:[ \t]*\n)+)")  # the blank lines between blocks


class NotTheTitle(Exception):
    """A second level-1 heading: the first one was not the title after all."""


class Builder:
    """Accumulates sections and paragraphs while the blocks are scanned."""

    def __init__(self, allow_title: bool) -> None:
        self.sections: list[Section] = []
        self.texts: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.code: set[int] = set()
        self.markers: dict[int, tuple[str, ...]] = {}
        self.refs: dict[int, tuple[Ref, ...]] = {}
        self.relations: list[Relation] = []
        self.pending: list[int] = []  # paragraphs whose markers and references are to be read
        self.runs: list[tuple[int, str]] = [(0, "")]
        self.stack: list[tuple[int, str]] = []  # (level, key) of open sections
        self.children: dict[str, dict[str, int]] = {}  # parent key -> slug -> count
        self.anchors: dict[str, int] = {}
        self.allow_title = allow_title
        self.title: str | None = None

    def heading(self, level: int, raw: str, line: int) -> None:
        text = plain(raw)
        slug = slugify(text)
        a = self.anchors.get(slug, 0)
        self.anchors[slug] = a + 1
        if level == 1 and self.title is not None:
            raise NotTheTitle
        if level == 1 and self.allow_title and not self.sections and not self.texts:
            self.title = text  # the document's title: not a section, so keys do not carry it
            return
        stack = self.stack
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        siblings = self.children.get(parent)
        if siblings is None:
            siblings = self.children[parent] = {}
        n = siblings.get(slug, 0)
        siblings[slug] = n + 1
        name = f"{slug}-{n}" if n else slug
        key = f"{parent}/{name}" if parent else name
        refs = refs_in(raw) if "[" in raw else ()
        # tuple.__new__ skips NamedTuple's Python-level __new__: a heading is a hot path.
        self.sections.append(_new(Section, (key, text, level, f"{slug}-{a}" if a else slug, parent, line, refs)))
        stack.append((level, key))
        self.runs.append((len(self.texts), key))  # an empty run is harmless: bisect skips it

    def paragraph(self, text: str, start: int, end: int, code: bool = False) -> None:
        """One paragraph: `text` as written, lines `start`..`end` (1-based, inclusive). The hot
        path of a large corpus: substring tests decide whether any regex runs at all."""
        i = len(self.texts)
        self.texts.append(text)
        self.starts.append(start)
        self.ends.append(end)
        if code:
            self.code.add(i)
        elif notable(text):
            self.extras(i, text)

    def extras(self, i: int, text: str) -> None:
        """Paragraph i may carry a marker, a reference or a relation. Relations are read now (in
        document order); markers and references all at once when the document ends (`scan_refs`)."""
        self.pending.append(i)
        if may_relate(text):
            self.relations.extend(relations_in(text, i))

    def scan_refs(self) -> None:
        """The markers and references of the paragraphs `extras` saw (refscan.scan)."""
        self.take_refs(*scan(self.pending_texts()))

    def pending_texts(self) -> list[str]:
        return list(map(self.texts.__getitem__, self.pending))

    def take_refs(self, markers: list[tuple[str, ...] | None], refs: list[tuple[Ref, ...]]) -> None:
        """What `refscan.scan` found in `pending_texts()`."""
        for i, found, r in zip(self.pending, markers, refs):
            if found is not None:
                self.markers[i] = found
            if r:
                self.refs[i] = r

    def bulk(self, body: str, line: int) -> None:
        """Plain paragraphs (no heading, fence, setext underline or thematic break among them),
        `body` starting at `line`: split and numbered with C-level string operations; only the
        paragraphs that may carry a marker, a reference or a relation get a Python look."""
        parts = SEPARATOR.split(body)
        blocks = parts[0::2]
        first = len(self.texts)
        self.texts.extend(blocks)
        spans = [blk.count("\n") for blk in blocks]
        steps = [n + sep.count("\n") for n, sep in zip(spans, parts[1::2])]
        starts = list(itertools.accumulate(steps, initial=line))
        self.starts.extend(starts)
        self.ends.extend(map(operator.add, starts, spans))
        if notable(body):
            for i, blk in enumerate(blocks, first):
                if notable(blk):
                    self.extras(i, blk)

    def lines(self, lines: list[str], first: int) -> None:
        """The slow path, line by line: headings, setext underlines and thematic breaks inside a
        block. `first` is the 1-based number of lines[0]."""
        block: list[str] = []
        start = first
        for i, line in enumerate(lines, first):
            if not line or line.isspace():
                self._flush(block, start)
                block = []
                continue
            c = line.lstrip(" ")[:1]
            if c == "#" and (h := atx_heading(line)):
                if block:  # the heading ends a region, and a region's trailing white space is dropped
                    block[-1] = block[-1].rstrip()
                self._flush(block, start)
                block = []
                self.heading(*h, i)
                continue
            if block and c in "=-" and (u := _SETEXT.match(line)) and not _is_list(block[0]):
                self.heading(1 if u.group(1)[0] == "=" else 2, " ".join(x.strip() for x in block), start)
                block = []
                continue
            if c in "-*_" and _BREAK.match(line):
                self._flush(block, start)
                block = []
                continue
            if not block:
                start = i
            block.append(line)
        self._flush(block, start)

    def _flush(self, block: list[str], start: int) -> None:
        if block:
            self.paragraph("\n".join(block), start, start + len(block) - 1)

