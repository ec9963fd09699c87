"""A deterministic Markdown splitter: front matter, sections by heading, paragraphs, references.

Pure: text in, records out (no file system). Used by the evidence graph (`graph.py`). The
records (`Document`, `Section`, `Paragraph`) and the paragraph keys, which survive edits
elsewhere in the document, are in `mddoc.py`.

A lone level-1 heading that opens the document is its title, not a section (so renaming the title
renames nothing). Sibling headings with the same slug get `-1`, `-2` (GitHub's convention); the
GitHub anchor (unique over the whole document) is kept for resolving `#anchor` links.

References are extracted as written, never resolved here (the graph resolves them):
- `link`: Markdown inline links `[text](target)` and link reference definitions `[x]: target`
  (images, external URLs and footnotes are not references);
- `id`: identifiers such as `ADR-0012` or `RFC-3` (the graph keeps those whose prefix names
  documents it knows);
- `see`: the target of "see …"/"see also …" when it is a quoted title, a backticked or bare path
  (with a `/` or a `.md`), or a `repo://` resource;
- relations: front-matter keys (`supersedes`, `superseded_by`, `amends`, `amended_by`,
  `attaches_to`) and status lines such as "Superseded by ADR-0012", "Status: Accepted; amends
  ADR-0003" or "This ADR supersedes [ADR-0004](0004-x.md)" (the phrase must open a line, after an
  optional bullet, "Status:" label, status word or "This <ADR|document|…>").
Nothing inside fenced code blocks is a reference.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterator
from typing import Any

from openwiki_git.markdown.document import (  # noqa: F401 (Paragraph, normalize: re-exported)
    Document,
    Paragraph,
    Section,
    _hashes,
    _new,
    _numbered,
    _odd_space,
    normalize,
)
from openwiki_git.markdown.refs import (  # noqa: F401 (RELATION_TYPES, may_refer, targets: re-exported)
    ID_TAIL,
    MARKER,
    RELATION_TYPES,
    Ref,
    Relation,
    may_refer,
    may_relate,
    meta_relations,
    notable,
    refs_in,
    relations_in,
    scan,
    section_status,
    status_of,
    targets,
)
from openwiki_git.pages.frontmatter_core import UNREAD, boundary, read_fast

__all__ = ["Document", "Paragraph", "Ref", "Relation", "Section", "normalize", "slugify", "split", "split_batch"]


# --------------------------------------------------------------------------------------------
# Inline patterns
# --------------------------------------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")  # read by `_atx`
_ATX_AT = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")  # match(text, start, end)
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_INLINE_LINK_TEXT = re.compile(r"!?\[((?:[^\]\[]|\[[^\]]*\])*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # an underscore inside a word is not emphasis
_SLUG_DROP = re.compile(r"[^\w\- ]", re.U)
def plain(text: str) -> str:
    """Inline Markdown reduced to its words: links to their text, emphasis and code marks dropped."""
    if "[" in text:
        text = _INLINE_LINK_TEXT.sub(r"\1", text)
        text = MARKER.sub("", text)
    if "*" in text or "_" in text or "`" in text:
        text = _EMPHASIS.sub("", text)
    return text.strip()


def slugify(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    lower = heading.strip().lower()
    if not lower.replace(" ", "").isalnum():  # the common case (words and spaces) needs no regex
        lower = _SLUG_DROP.sub("", lower)
    return lower.replace(" ", "-") or "section"


def _atx(line: str) -> tuple[int, str] | None:
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


# --------------------------------------------------------------------------------------------
# Front matter
# --------------------------------------------------------------------------------------------


def front_matter(text: str) -> tuple[dict[str, str | list[str]], int]:
    """Flat front matter (`key: value`, `key: [a, b]`, `key:` + `- a` items) and the number of
    lines it takes (frontmatter_core: the one boundary and the one fast reader). Values are their
    text; a value the fast reader leaves to YAML (nested, block scalars...) is `[]`: only flat keys
    matter here."""
    sp = boundary(text)
    if sp is None or not sp.present:
        return {}, 0
    read = read_fast(sp.yaml)
    meta = {} if read is None else {key: _text(value) for key, value in read.items()}
    return meta, sp.body_start and text.count("\n", 0, sp.body_start) + (0 if sp.close.endswith("\n") else 1)


def _text(value: Any) -> str | list[str]:
    if value is UNREAD or value is None:
        return []
    if isinstance(value, list):
        return [_item_text(v) for v in value]
    return _item_text(value)


def _item_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


# --------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------


class _Retry(Exception):
    """A second level-1 heading: the first one was not the title after all."""


class _Builder:
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
            raise _Retry
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
            self._extras(i, text)

    def _extras(self, i: int, text: str) -> None:
        """Paragraph i may carry a marker, a reference or a relation. Relations are read now (in
        document order); markers and references all at once when the document ends (`scan_refs`)."""
        self.pending.append(i)
        if may_relate(text):
            self.relations.extend(relations_in(text, i))

    def scan_refs(self) -> None:
        """The markers and references of the paragraphs `_extras` saw (mdrefs.scan)."""
        self.take_refs(*scan(self.pending_texts()))

    def pending_texts(self) -> list[str]:
        return list(map(self.texts.__getitem__, self.pending))

    def take_refs(self, markers: list[tuple[str, ...] | None], refs: list[tuple[Ref, ...]]) -> None:
        """What `mdrefs.scan` found in `pending_texts()`."""
        for i, found, r in zip(self.pending, markers, refs):
            if found is not None:
                self.markers[i] = found
            if r:
                self.refs[i] = r

    def bulk(self, body: str, line: int) -> None:
        """Plain paragraphs (no heading, fence, setext underline or thematic break among them),
        `body` starting at `line`: split and numbered with C-level string operations; only the
        paragraphs that may carry a marker, a reference or a relation get a Python look."""
        parts = _SEPARATOR.split(body)
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
                    self._extras(i, blk)

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
            if c == "#" and (h := _atx(line)):
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


_SEPARATOR = re.compile(r"(\n(?:[ \t]*\n)+)")
_FENCED = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[^\n]*"  # the opening line
    r"(?:\n(?:.*?\n)?? {0,3}\1[`~]*[ \t]*(?:\n|\Z)"  # the code, then the closing line
    r"|.*\Z)",  # never closed: the code runs to the end of the document
    re.M | re.S,
)
_SLOW_LINE = re.compile(r"\n {0,3}[#=*_-]")
_SLOW_FIRST = frozenset("#=*_- \t")


def split(text: str, path: str = "") -> Document:
    """Split a Markdown document. Deterministic: the same text always gives the same records."""
    meta, b = _parse(text)
    b.scan_refs()
    d = _finish(path, meta, b)
    d.warm_keys()
    return d


def split_batch(items: list[tuple[str, str]]) -> list[Document]:
    """`[split(text, path) for text, path in items]`: the same documents, keys warmed alike.
    For many small texts: what costs `split` most on a short page is per call (each regex pass
    over a few paragraphs, hashing a few keys), so here the markers and references of all the
    texts are read by one `mdrefs.scan`, and the keys `warm_keys` computes hashed in one pass."""
    parsed = [_parse(text) for text, _ in items]
    _scan_refs_together([b for _, b in parsed])
    docs = [_finish(path, meta, b) for (_, path), (meta, b) in zip(items, parsed)]
    _warm_keys_together(docs)
    return docs


def _parse(text: str) -> tuple[dict[str, str | list[str]], _Builder]:
    """Front matter and blocks; markers and references are not read yet (`scan_refs`)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    meta, skip = front_matter(text)
    body = text.split("\n", skip)[-1] if skip else text
    try:
        return meta, _scan(body, skip + 1, allow_title=True)
    except _Retry:
        return meta, _scan(body, skip + 1, allow_title=False)


def _scan_refs_together(builders: list[_Builder]) -> None:
    """`scan_refs` of each builder, with one `mdrefs.scan` over all their pending texts (it gives
    each text what it gives the text alone)."""
    texts = [t for b in builders for t in b.pending_texts()]
    markers, refs = scan(texts)
    at = 0
    for b in builders:
        n = len(b.pending)
        if n:
            b.take_refs(markers[at : at + n], refs[at : at + n])
            at += n


def _warm_keys_together(docs: list[Document]) -> None:
    """`warm_keys` of each document (the same keys, stored in the same order), the paragraphs of
    all of them hashed by one `_hashes` and their keys made by one C-level `map`. Repeats are
    numbered run by run (`_numbered`) only when some key occurs twice in the whole batch."""
    jobs, texts, prefixes = [], [], []
    for d in docs:
        runs = d._wanted_runs()
        if runs:
            bounds = d._bounds(runs)
            jobs.append((d, runs, bounds))
            for r, (lo, hi) in zip(runs, bounds):
                texts += d.texts[lo:hi]
                prefixes += [d.runs[r][1] + "~"] * (hi - lo)
    keys = list(map(operator.add, prefixes, _hashes(texts)))
    unique = len(set(keys)) == len(keys)
    at = 0
    for d, runs, bounds in jobs:
        for r, (lo, hi) in zip(runs, bounds):
            run_keys = keys[at : at + hi - lo] if unique else _numbered(keys[at : at + hi - lo])
            d._keys[r] = run_keys
            d._by_key.update(zip(run_keys, range(lo, hi)))
            at += hi - lo


def _scan(body: str, first: int, *, allow_title: bool) -> _Builder:
    """Fenced code first (it may hold blank lines), then the prose between, block by block."""
    b = _Builder(allow_title)
    line, pos = first, 0
    # A one-character test first: `memchr` is many times faster than a three-character search.
    fenced = ("`" in body and "```" in body) or ("~" in body and "~~~" in body)
    fences = _FENCED.finditer(body) if fenced else ()
    for m in fences:
        prose = body[pos : m.start()]
        _prose(b, prose, line)
        line += prose.count("\n")
        code = m.group(0)
        code_lines = code.count("\n") + (0 if code.endswith("\n") else 1)
        if code.strip():
            b.paragraph(code.rstrip("\n"), line, line + code_lines - 1, code=True)
        line += code.count("\n")
        pos = m.end()
    _prose(b, body[pos:], line)
    return b


def _prose(b: _Builder, prose: str, line: int) -> None:
    """Prose without fenced code. The whole piece is cut at its blank lines at once (a C-level
    regex split); runs of plain chunks (one paragraph each) are taken in bulk, and only the chunks
    that hold a heading, a setext underline, a thematic break or a list are read line by line.
    This gives what `_prose_by_region` gives (a test compares them) except with white space other
    than space, tab and newline, which str.isspace and str.strip see and the blank-line regex does
    not: such text takes `_prose_by_region`."""
    if _odd_space(prose):
        _prose_by_region(b, prose, line)
        return
    c = _Chunks(prose, line)
    candidates = c.notable()
    todo = 0  # index into `candidates`
    k0 = 0  # the first chunk not yet taken
    for k in c.special():
        if k > k0:
            todo = _plain_run(b, c, k0, k, candidates, todo)
        _special(b, c, k)
        k0 = k + 1
    if k0 < len(c.texts):
        _plain_run(b, c, k0, len(c.texts), candidates, todo)


def _special(b: _Builder, c: _Chunks, k: int) -> None:
    """Chunk k, one that `_Chunks.special` picked: what `b.lines` gives it, with fast paths for
    the common cases (`lines` would read them line by line): a heading alone, also after the
    blank line that opens a piece (where front matter ends), and a plain paragraph, such as the
    last one with its final newline. A chunk's lines after the first hold no heading, underline,
    break or list item unless `_SLOW_LINE` finds one, and no line of white space only (the
    blank-line split saw to that) but for the first."""
    text = c.texts[k]
    if text[:1] in ("#", "\n"):
        line = text.lstrip("\n")
        if line[:1] == "#" and "\n" not in line and (h := _atx(line)):
            b.heading(*h, c.first[k] + len(text) - len(line))
            return
    if text[-1:] in " \t\n" and c.ends_region(k):
        text = text.rstrip()
    if text and text[0] not in _SLOW_FIRST and text[0] != "\n" and not _SLOW_LINE.search(text):
        b.paragraph(text, c.first[k], c.first[k] + text.count("\n"))
    else:
        b.lines(text.split("\n"), c.first[k])


def _plain_run(b: _Builder, c: _Chunks, k0: int, k1: int, candidates: list[int], todo: int) -> int:
    """Chunks k0..k1-1, one paragraph each, appended with list slices; only the `candidates`
    (chunks that may carry a marker, reference or relation) get a Python look. Returns the new
    `todo`, the first candidate not yet looked at."""
    i0 = len(b.texts)
    texts = c.texts[k0:k1]
    if texts[-1][-1:] in " \t\n" and c.ends_region(k1 - 1):
        texts[-1] = texts[-1].rstrip()
    b.texts.extend(texts)
    b.starts.extend(c.first[k0:k1])
    b.ends.extend(c.last[k0:k1])
    while todo < len(candidates) and candidates[todo] < k1:
        k = candidates[todo]
        todo += 1
        if k >= k0 and notable(texts[k - k0]):
            b._extras(i0 + k - k0, texts[k - k0])
    return todo


class _Chunks:
    """A prose piece cut at blank lines: `texts` (the chunks), the 1-based `first` and `last`
    line of each, and `at`, each chunk's offset in the piece."""

    def __init__(self, prose: str, line: int) -> None:
        parts = _SEPARATOR.split(prose)  # chunk, separator, chunk, ...
        self.prose = prose
        self.texts = texts = parts[0::2]
        self.at = list(itertools.accumulate(map(len, parts), initial=0))[0::2]
        n = len(texts)
        head, tail = texts[0].count("\n"), texts[-1].count("\n") if n > 1 else 0
        if prose.count("\n") == head + 2 * (n - 1) + tail:
            # Every separator is one blank line and every chunk but the first and last one line
            # (each separator has two newlines at least): the line numbers are arithmetic.
            self.first = [line, *range(line + head + 2, line + head + 2 * n, 2)]
            self.last = self.first[:]
            self.last[0] += head
            self.last[-1] += tail
            return
        newlines = list(map(str.count, parts, itertools.repeat("\n")))
        lines = list(itertools.accumulate(newlines, initial=line))
        self.first = lines[0::2]
        self.last = list(map(operator.add, self.first, newlines[0::2]))

    def chunk_at(self, pos: int) -> int:
        return bisect.bisect_right(self.at, pos) - 1

    def special(self) -> list[int]:
        """Chunks to read line by line: the first (it may open with blank lines), the last (it
        may end with one), and every chunk with a line that may be a heading, a setext
        underline, a thematic break or a list item (`_SLOW_LINE`)."""
        found = {0, len(self.texts) - 1}
        found.update(self.chunk_at(m.start() + 1) for m in _SLOW_LINE.finditer(self.prose))
        return sorted(found)

    def ends_region(self, k: int) -> bool:
        """Whether chunk k is the last before an ATX heading or the end of the piece: the old
        regions were cut there, and their trailing white space dropped."""
        if k + 1 >= len(self.texts):
            return True
        nxt = self.texts[k + 1]
        if k + 2 == len(self.texts) and not nxt.strip():
            return True  # only blank lines follow (the piece's end)
        if nxt[:1] not in ("#", " "):
            return False
        end = nxt.find("\n")
        return _ATX_AT.match(nxt, 0, len(nxt) if end < 0 else end) is not None

    def notable(self) -> list[int]:
        """Chunks that may carry a marker, a link, an identifier, a "see" or a relation: a
        superset of those `notable` accepts, found with one substring search over the whole
        piece per pattern (scanning the text is most of the splitter's cost)."""
        if len(self.texts) < 32:  # a short piece: testing each chunk costs less than the searches
            return list(range(len(self.texts)))
        prose = self.prose
        found: set[int] = set()
        # Lower-cased ASCII text keeps its offsets: one search finds "see", "See" and "SEE".
        ascii_ = prose.isascii()
        text, words = (prose.lower(), _WORDS_LOWER) if ascii_ else (prose, _WORDS)
        for word in words:
            found.update(self._hits(functools.partial(text.find, word)))
        # The other wordings of a relation or status open a line (mdrefs: _STATUS_LINE,
        # _STATUS_DECL): one regex over the line starts, not a search per word over all text.
        line = _RELATION_LINE if ascii_ else _RELATION_LINE_I
        found.update(self._hits(lambda pos: _relation_line_at(text, pos, line)))
        if "-" in prose:
            found.update(self._hits(lambda pos: _tail_at(prose, pos)))
        return sorted(found)

    def _hits(self, find: Callable[[int], int]) -> Iterator[int]:
        """The chunks where `find(pos)` (the next hit at or after pos, or -1) hits; after a hit
        the search resumes at the next chunk."""
        pos = find(0)
        while pos >= 0:
            k = self.chunk_at(pos)
            yield k
            if k + 1 >= len(self.at):
                return
            pos = find(self.at[k + 1])


_WORDS = ("]", "see", "See", "SEE", "upersed", "mend", "ttach", "ADR", "RFC")  # substrings `notable` tests
_WORDS_LOWER = ("]", "see", "upersed", "mend", "ttach", "adr", "rfc")
# A line that may state a relation or a status in a wording the words above miss: it opens
# (after bullets, quotes, pipes, emphasis) with a status label or word, "this", "was"/"is"/
# "has"/"now", or one of the other verbs (mdrefs.may_relate's substrings).
_LINE_OPENING = (
    r"[ \t>*+|_~-]*(?:status|accepted|proposed|deprecated|rejected|draft|active|final|approved|implemented"
    r"|this|was|is|has|now|replace|obsolete|update|supplement|extend|clarifi|superc|supersee)"
)
# A literal "\n" first: the engine then skips from newline to newline quickly. Lower-cased
# ASCII text takes the case-sensitive pattern; other text the case-insensitive one.
_RELATION_LINE = re.compile("\n" + _LINE_OPENING)
_RELATION_LINE_I = re.compile("\n" + _LINE_OPENING, re.I)
_FIRST_LINE_I = re.compile(_LINE_OPENING, re.I)


def _relation_line_at(text: str, pos: int, pattern: re.Pattern[str]) -> int:
    """Where the next line at or after `pos` that opens like a relation or status line has its
    word (`_LINE_OPENING`, `pattern` one of the two above), or -1."""
    if pos == 0 and (first := _FIRST_LINE_I.match(text)):
        return first.end() - 1
    m = pattern.search(text, max(pos - 1, 0))
    return m.end() - 1 if m else -1


def _tail_at(text: str, pos: int) -> int:
    m = ID_TAIL.search(text, pos)
    return m.start() if m else -1


def _prose_by_region(b: _Builder, prose: str, line: int) -> None:
    """Prose without fenced code: ATX headings cut it into regions, each split by `_region`."""
    pos = 0
    for start, end, m in _atx_lines(prose):
        _region(b, prose[pos:start], line)
        line += prose.count("\n", pos, start)
        b.heading(len(m.group(1)), m.group(2) or "", line)
        pos = end
    _region(b, prose[pos:], line)


def _atx_lines(text: str) -> Iterator[tuple[int, int, re.Match[str]]]:
    """(line start, line end, match) of each ATX heading line. Found from its `#` with str.find:
    `#` is rare in prose, and a regex scanning every position is several times slower."""
    i = text.find("#")
    while i >= 0:
        start = text.rfind("\n", 0, i) + 1
        if i - start > 3 or (i > start and text[start:i].strip(" ")):
            i = text.find("#", i + 1)
            continue
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        m = _ATX_AT.match(text, start, end)
        if m:
            yield start, end, m
        i = text.find("#", end)


def _region(b: _Builder, text: str, line: int) -> None:
    body = text.lstrip("\n")
    line += len(text) - len(body)
    body = body.rstrip()
    if not body:
        return
    if body[0] in _SLOW_FIRST or _SLOW_LINE.search(body):
        b.lines(body.split("\n"), line)  # setext underlines, thematic breaks, lists: line by line
    else:
        b.bulk(body, line)


def _is_list(line: str) -> bool:
    s = line.lstrip()
    return s[:2] in ("- ", "* ", "+ ") or s[:1] == ">"


def _finish(path: str, meta: dict[str, str | list[str]], b: _Builder) -> Document:
    if b.sections:
        _status_sections(b)
    if b.refs or b.relations:
        _reference_links(b)
    title = meta.get("title")
    if not isinstance(title, str) or not title:
        first = b.sections[0].heading if b.sections and b.sections[0].level == 1 else None
        title = b.title or first or _stem(path)
    return Document(
        path,
        title,
        meta,
        tuple(b.sections),
        tuple(meta_relations(meta) + b.relations),
        b.title,
        texts=b.texts,
        starts=b.starts,
        ends=b.ends,
        code=frozenset(b.code),
        markers=b.markers,
        refs=b.refs,
        runs=b.runs,
    )


def _status_sections(b: _Builder) -> None:
    """Nygard's layout: a "Status" heading, then the status ("Accepted", "Superseded by
    ADR-0012") as its first paragraph: read unless that paragraph already stated a relation."""
    stated = {r.source for r in b.relations}
    for s in b.sections:
        lower = s.heading.lower()
        if lower != "status" and may_relate(s.heading):
            # "## Status: Superseded by ADR-0005": a heading's relation is its document's
            found = relations_in(s.heading, -1)
            if not found and lower.startswith("status:"):
                found = status_of(s.heading.split(":", 1)[1], -1)
            b.relations.extend(found)
        if s.heading.strip().lower().rstrip(":") not in ("status", "decision status"):
            continue
        k = next((n for n, (_, key) in enumerate(b.runs) if key == s.key), None)
        i = b.runs[k][0] if k is not None else None
        end = b.runs[k + 1][0] if k is not None and k + 1 < len(b.runs) else len(b.texts)
        if i is None or i >= end or i in b.code or i in stated:
            continue
        b.relations.extend(section_status([t for n, t in enumerate(b.texts[i:end], i) if n not in b.code], i))


_REF_DEF = re.compile(r"^ {0,3}\[(?!\^)([^\]]+)\]:\s*(<[^>]*>|\S+)", re.M)
_REF_USE = re.compile(r"(?<![!\]])\[([^\]\[\n]+)\](?:\[([^\]\[\n]*)\])?(?![(:\[])")


def _reference_links(b: _Builder) -> None:
    """Reference-style links (`[ADR043][]`, `[text][label]`, `[label]`): the reference belongs
    to the paragraph that uses the link, not to the block of definitions; relations written
    with them get the definition's target (and keep the label as the link's text)."""
    defs: dict[str, str] = {}
    def_at: dict[str, int] = {}
    for i, _refs in b.refs.items():
        text = b.texts[i]
        if "]:" in text:
            for m in _REF_DEF.finditer(text):
                label = " ".join(m.group(1).lower().split())
                if label not in defs:
                    raw = m.group(2)
                    defs[label], def_at[label] = raw[1:-1] if raw.startswith("<") else raw, i
    if any(r.ref.kind == "reflink" for r in b.relations):
        b.relations[:] = [_relation_link(r, defs) if r.ref.kind == "reflink" else r for r in b.relations]
    if not defs:
        return
    used: set[str] = set()
    used_labels: set[str] = set()
    for i in sorted(set(b.pending)):
        text = b.texts[i]
        if "[" not in text or i in b.code:
            continue
        more = []
        for m in _REF_USE.finditer(text):
            label = " ".join((m.group(2) or m.group(1)).lower().split())
            target = defs.get(label)
            if target is None or def_at[label] == i:
                continue
            ref = refs_in(f"[x]({target})")
            if ref:
                more.append(ref[0])
                used.add(target)
                used_labels.add(label)
        if more:
            b.refs[i] = tuple(dict.fromkeys([*b.refs.get(i, ()), *more]))
    if used:  # the definitions block keeps only the references no paragraph uses
        for i in set(def_at.values()):
            kept = tuple(
                r for r in b.refs.get(i, ())
                if not (r.kind == "link" and r.target in used or r.kind == "id" and r.target.lower() in used_labels)
            )
            if kept:
                b.refs[i] = kept
            else:
                b.refs.pop(i, None)


def _relation_link(r: Relation, defs: dict[str, str]) -> Relation:
    label = r.ref.target
    target = defs.get(" ".join(label.lower().split()))
    if target is not None:
        ref = refs_in(f"[x]({target})")
        if ref:
            return r._replace(ref=ref[0], text=label)
    if ID_LIKE.fullmatch(label.strip()):
        return r._replace(ref=Ref("id", label.strip()), text=label)
    return r


ID_LIKE = re.compile(r"[A-Z][A-Z0-9]*[-_ ]?[0-9]+")


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name
