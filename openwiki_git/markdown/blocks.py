"""The block scanner: a document's body cut into fenced code, headings and paragraphs, fed to a
`Builder` (builder.py). Pure. Scanning the text is most of the cost of a large build, so the
prose between fences is cut at its blank lines at once and only the chunks that may hold a
heading, an underline, a break or a list are read line by line (`_prose`); `_prose_by_region`
is the plain reading it must agree with (a test compares them).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterator

from openwiki_git.markdown.builder import ATX_AT, SEPARATOR, Builder, atx_heading
from openwiki_git.markdown.keys import odd_space
from openwiki_git.markdown.refs import ID_TAIL
from openwiki_git.markdown.refscan import notable

__all__ = ["read_blocks"]

_FENCED = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[^\n]*"  # the opening line
    r"(?:\n(?:.*?\n)?? {0,3}\1[`~]*[ \t]*(?:\n|\Z)"  # the code, then the closing line
    r"|.*\Z)",  # never closed: the code runs to the end of the document
    re.M | re.S,
)
_SLOW_LINE = re.compile(r"\n {0,3}[#=*_-]")
_SLOW_FIRST = frozenset("#=*_- \t")


def read_blocks(body: str, first: int, *, allow_title: bool) -> Builder:
    """Fenced code first (it may hold blank lines), then the prose between, block by block."""
    b = Builder(allow_title)
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


def _prose(b: Builder, prose: str, line: int) -> None:
    """Prose without fenced code. The whole piece is cut at its blank lines at once (a C-level
    regex split); runs of plain chunks (one paragraph each) are taken in bulk, and only the chunks
    that hold a heading, a setext underline, a thematic break or a list are read line by line.
    This gives what `_prose_by_region` gives (a test compares them) except with white space other
    than space, tab and newline, which str.isspace and str.strip see and the blank-line regex does
    not: such text takes `_prose_by_region`."""
    if odd_space(prose):
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


def _special(b: Builder, c: _Chunks, k: int) -> None:
    """Chunk k, one that `_Chunks.special` picked: what `b.lines` gives it, with fast paths for
    the common cases (`lines` would read them line by line): a heading alone, also after the
    blank line that opens a piece (where front matter ends), and a plain paragraph, such as the
    last one with its final newline. A chunk's lines after the first hold no heading, underline,
    break or list item unless `_SLOW_LINE` finds one, and no line of white space only (the
    blank-line split saw to that) but for the first."""
    text = c.texts[k]
    if text[:1] in ("#", "\n"):
        line = text.lstrip("\n")
        if line[:1] == "#" and "\n" not in line and (h := atx_heading(line)):
            b.heading(*h, c.first[k] + len(text) - len(line))
            return
    if text[-1:] in " \t\n" and c.ends_region(k):
        text = text.rstrip()
    if text and text[0] not in _SLOW_FIRST and text[0] != "\n" and not _SLOW_LINE.search(text):
        b.paragraph(text, c.first[k], c.first[k] + text.count("\n"))
    else:
        b.lines(text.split("\n"), c.first[k])


def _plain_run(b: Builder, c: _Chunks, k0: int, k1: int, candidates: list[int], todo: int) -> int:
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
            b.extras(i0 + k - k0, texts[k - k0])
    return todo


class _Chunks:
    """A prose piece cut at blank lines: `texts` (the chunks), the 1-based `first` and `last`
    line of each, and `at`, each chunk's offset in the piece."""

    def __init__(self, prose: str, line: int) -> None:
        parts = SEPARATOR.split(prose)  # chunk, separator, chunk, ...
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
        return ATX_AT.match(nxt, 0, len(nxt) if end < 0 else end) is not None

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
        # The other wordings of a relation or status open a line (relations.py: _STATUS_LINE,
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


_WORDS = ("]", "<!--", "see", "See", "SEE", "upersed", "mend", "ttach", "ADR", "RFC")  # substrings `notable` tests
_WORDS_LOWER = ("]", "<!--", "see", "upersed", "mend", "ttach", "adr", "rfc")
# A line that may state a relation or a status in a wording the words above miss: it opens
# (after bullets, quotes, pipes, emphasis) with a status label or word, "this", "was"/"is"/
# "has"/"now", or one of the other verbs (relations.may_relate's substrings).
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


def _prose_by_region(b: Builder, prose: str, line: int) -> None:
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
        m = ATX_AT.match(text, start, end)
        if m:
            yield start, end, m
        i = text.find("#", end)


def _region(b: Builder, text: str, line: int) -> None:
    body = text.lstrip("\n")
    line += len(text) - len(body)
    body = body.rstrip()
    if not body:
        return
    if body[0] in _SLOW_FIRST or _SLOW_LINE.search(body):
        b.lines(body.split("\n"), line)  # setext underlines, thematic breaks, lists: line by line
    else:
        b.bulk(body, line)
