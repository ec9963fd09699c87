"""doc_recall's reading of Markdown pages and its ground truth (issue 32, "Measured").

Its own reader, not the tool's: the truth and the page positions must not move when the tree under
test changes how it splits sentences or where it puts markers.

- `blocks(text)`: a page as blocks: prose (a paragraph, a list item, an admonition's body), code
  (a fenced block; MyST's code directives too, its other directives are containers of prose),
  headings, and other lines (tables, HTML, include directives, admonition headers) that hold no
  sentences. Each block knows its section (the headings above it) for the rule "a name in a
  section heading guards the sentences of its section".
- `sentences(prose)`: a paragraph's sentences, split at `.`/`!`/`?` before a capital, a code span,
  a digit or a link; `e.g.`-style abbreviations do not end one.
- `words(text)`: the comparison key: lower-case words, so that re-wrapping a line or restyling
  markup (`` `x` `` to `*x*`) is no rewrite, while any changed word is.
- `truth(old, new_docs)`: the sentences and examples of a page's old text that the docs at the
  commit no longer hold (removed or rewritten).
- `markers(text)`: the claim labels a text holds as markers: `[^c-1a2b3c4d]` footnotes and any
  HTML comment naming `c-<hex>` (site mode's invisible marker); `marker_line` finds a claim's own
  marker (as `check --format json` spells it) in a page, `guarded_by` says whether it guards a block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NOTES = re.compile(r"(^|/)(CHANGELOG|CHANGES|HISTORY|NEWS)[^/]*$|(^|/)release-notes[^/]*$|(^|/)changelog(\.d)?/|(^|/)changelog\.md$",
                   re.I)
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})\s*(\{?[\w+-]*\}?)?(.*)$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
OTHER_LINE = re.compile(
    r"^\s*(\||<(?:/?[a-zA-Z][^>]*|!--.*)>\s*$|\{[*!].*[*!]\}\s*$|--8<--|!!!|\?\?\?|///|:\w[\w-]*:|\[[^\]]+\]:\s|\.\. |\+\+\+"
    r"|={3,}\s*$|-{3,}\s*$|\*{3,}\s*$|\(\S+\)=\s*$)"
)
MYST_CODE = {"{code-block}", "{code}", "{sourcecode}", "{doctest}", "{testcode}", "{testoutput}", "{literalinclude}", "{eval-rst}",
             "{math}", "{mermaid}", "{graphviz}"}
WORD = re.compile(r"[A-Za-z0-9_]+")
FOOTNOTE = re.compile(r"\[\^(c-[0-9a-f]{8,32})\](?!:)")
COMMENT = re.compile(r"<!--(.*?)-->", re.S)
LABEL = re.compile(r"\b(c-[0-9a-f]{8,32}|claim_[0-9a-f]{8,64})\b")
CITATIONS = re.compile(r"<!-- openwiki-git:citations:begin.*?<!-- openwiki-git:citations:end -->", re.S)
ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|eg|ie|etc|vs|cf|approx|incl|resp|Mr|Dr|St|No|Fig|esp)|\b[A-Z]|\bv?\d+(?:\.\d+)*)\.$", re.I)
SPLIT = re.compile(r"(?<=[.!?])[\"')\]*_]*\s+(?=[A-Z`\[0-9*_\"(])")


def words(text: str) -> str:
    """The comparison key of a text: its words, lower case, one space apart."""
    return " ".join(w.lower() for w in WORD.findall(text))


def is_notes(path: str) -> bool:
    """Release notes, changelogs and history pages: never truth, never "kept" context."""
    return bool(NOTES.search(path))


def markers(text: str) -> list[str]:
    """The claim labels (`c-1a2b3c4d` or a claim id) a text carries as markers."""
    found = [m.group(1) for m in FOOTNOTE.finditer(text)]
    for m in COMMENT.finditer(text):
        found += LABEL.findall(m.group(1))
    return found


def strip_markers(text: str) -> str:
    text = FOOTNOTE.sub("", text)
    return COMMENT.sub(lambda m: "" if LABEL.search(m.group(1)) else m.group(0), text)


@dataclass
class Block:
    kind: str  # "prose", "code", "heading", "other"
    start: int  # 0-based first line
    end: int  # 0-based line after the last
    text: str  # the lines as written (markers included)
    lang: str = ""  # a code block's fence info
    section: tuple[int, ...] = ()  # indexes of the heading blocks above it, outermost first
    lo: int = -1  # the lines whose markers guard it: a code block's reach the marker-only comment lines around its fences
    hi: int = -1

    def __post_init__(self) -> None:
        self.lo = self.start if self.lo < 0 else self.lo
        self.hi = self.end if self.hi < 0 else self.hi

    def holds(self, line: int) -> bool:
        """Whether a marker on 0-based `line` guards this block."""
        return self.lo <= line < self.hi

    @property
    def body(self) -> str:
        """A code block's code (fence lines dropped, each line stripped), or a prose block's
        text (markers, list bullets and quote marks dropped, lines joined)."""
        lines = self.text.split("\n")
        if self.kind == "code":
            return "\n".join(ln.strip() for ln in lines[1:-1] if ln.strip())
        out = []
        for ln in lines:
            ln = LIST_ITEM.sub("", ln.strip().lstrip("> ").strip())
            out.append(ln)
        return strip_markers(" ".join(out)).strip()


def _is_fence_close(line: str, fence: str) -> bool:
    s = line.strip()
    return s.startswith(fence) and set(s) <= {fence[0]}


def blocks(text: str) -> list[Block]:
    """A Markdown page's blocks (see the module docstring); front matter and the generated
    citations block hold none."""
    text = CITATIONS.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.split("\n")
    out: list[Block] = []
    i = 0
    if lines and lines[0].strip() == "---":
        close = next((j for j in range(1, len(lines)) if lines[j].strip() in ("---", "...")), None)
        i = close + 1 if close is not None else 0
    heads: list[tuple[int, int]] = []  # (level, block index) of the open sections
    para: list[int] = []
    directives: list[str] = []  # the fences of the open MyST directives that hold prose

    def section() -> tuple[int, ...]:
        return tuple(b for _, b in heads)

    def flush() -> None:
        if para:
            out.append(Block("prose", para[0], para[-1] + 1, "\n".join(lines[para[0] : para[-1] + 1]), section=section()))
            para.clear()

    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        info = ((fence.group(3) or "") + fence.group(4)).strip() if fence else ""
        if fence and directives and not info and _is_fence_close(line, directives[-1]):
            flush()  # the end of a MyST directive holding prose
            directives.pop()
            out.append(Block("other", i, i + 1, line, section=section()))
            i += 1
            continue
        if fence and (fence.group(2)[0] in "`~" or info):
            if info.startswith("{") and (fence.group(3) or "") not in MYST_CODE:
                flush()  # a MyST directive holding prose (note, warning, admonition): its body is read on
                directives.append(fence.group(2))
                out.append(Block("other", i, i + 1, line, section=section()))
                i += 1
                continue
            flush()
            mark = fence.group(2)
            j = i + 1
            while j < len(lines) and not _is_fence_close(lines[j], mark):
                j += 1
            end = min(j + 1, len(lines))
            code = Block("code", i, end, "\n".join(lines[i:end]), lang=info, section=section())
            k = end
            while k < len(lines) and markers(lines[k]) and not strip_markers(lines[k]).strip():
                k += 1
            code.hi = k
            if i > 0 and markers(lines[i - 1]) and not strip_markers(lines[i - 1]).strip():
                code.lo = i - 1
            out.append(code)
            i = k
            continue
        if fence:
            flush()  # a stray closing line (`:::` of a directive)
            out.append(Block("other", i, i + 1, line, section=section()))
            i += 1
            continue
        heading = HEADING.match(line)
        if not line.strip():
            flush()
        elif heading:
            flush()
            level = len(heading.group(1))
            while heads and heads[-1][0] >= level:
                heads.pop()
            out.append(Block("heading", i, i + 1, line, section=section()))
            heads.append((level, len(out) - 1))
        elif OTHER_LINE.match(line):
            flush()
            out.append(Block("other", i, i + 1, line, section=section()))
        elif LIST_ITEM.match(line):
            flush()
            para.append(i)
        else:
            para.append(i)
        i += 1
    flush()
    return out


def sentences(prose: str) -> list[str]:
    """A paragraph's sentences (markers already stripped)."""
    parts: list[str] = []
    for piece in SPLIT.split(prose):
        if parts and ABBREV.search(parts[-1]):
            parts[-1] += " " + piece
        else:
            parts.append(piece)
    return [p.strip() for p in parts if words(p)]


def padded(text: str) -> str:
    return f" {words(text)} "


@dataclass(frozen=True)
class Item:
    """A truth item: a sentence or an example of the old side that the new docs no longer hold."""

    kind: str  # "sentence" or "example"
    page: str  # the page's path in the repository
    text: str  # the sentence, or the example's code
    line: int  # 1-based line of its block on the old side
    lang: str = ""

    @property
    def key(self) -> str:
        return words(self.text) if self.kind == "sentence" else code_key(self.text)


def code_key(code: str) -> str:
    """An example's comparison key: its lines stripped, blank ones dropped."""
    return "\n".join(ln.strip() for ln in code.split("\n") if ln.strip())


@dataclass
class Corpus:
    """The docs at one commit, as the "still there?" tests read them. For the truth, release notes
    are left out (a sentence a guide dropped is gone even if a release note quotes it); for the
    noise they are in (a flagged claim on a release note upstream kept is noise like any other)."""

    prose: str = " "  # every prose block's words, padded, "|" between blocks
    code: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, pages: dict[str, str], notes: bool) -> Corpus:
        c = cls()
        parts = []
        for path, text in pages.items():
            if is_notes(path) and not notes:
                continue
            for b in blocks(text):
                if b.kind in ("prose", "heading"):
                    parts.append(padded(b.body if b.kind == "prose" else strip_markers(b.text).lstrip("# ")))
                elif b.kind == "code":
                    c.code.add(b.body)
        c.prose = "|".join(parts)
        return c

    def holds_sentence(self, sentence: str) -> bool:
        return padded(sentence) in self.prose

    def holds_example(self, code: str) -> bool:
        return code_key(code) in self.code


def truth(page: str, old: str, new_docs: Corpus) -> list[Item]:
    """The sentences and examples of `old` (the page before the commit) that the docs after it
    no longer hold, word for word (prose) or line for line (code)."""
    items: list[Item] = []
    seen: set[tuple[str, str]] = set()
    for b in blocks(old):
        if b.kind == "prose":
            for s in sentences(b.body):
                if not new_docs.holds_sentence(s) and ("sentence", words(s)) not in seen:
                    seen.add(("sentence", words(s)))
                    items.append(Item("sentence", page, s, b.start + 1))
        elif b.kind == "code" and b.body and not new_docs.holds_example(b.body) and ("example", b.body) not in seen:
            seen.add(("example", b.body))
            items.append(Item("example", page, b.body, b.start + 1, b.lang))
    return items


def home(page_blocks: list[Block], item: Item) -> Block | None:
    """The block of a wiki page holding a truth item (None: the page never held it, e.g. upstream
    added it during the window, while the replay held the docs back)."""
    for b in page_blocks:
        if item.kind == "sentence" and b.kind == "prose" and padded(item.text) in padded(b.body):
            return b
        if item.kind == "example" and b.kind == "code" and b.body == code_key(item.text):
            return b
    return None


def block_at(page_blocks: list[Block], line: int) -> Block | None:
    """The block a marker on 0-based `line` guards."""
    return next((b for b in page_blocks if b.holds(line)), None)


def guarded_by(page_blocks: list[Block], b: Block, line: int) -> str | None:
    """Whether a marker on `line` guards block `b`: "own" (in it, or around a code block's
    fences), "section" (in the heading of a section holding it), or None."""
    if b.holds(line):
        return "own"
    return "section" if any(page_blocks[h].holds(line) for h in b.section) else None


def marker_line(text: str, marker: str) -> int | None:
    """The 0-based line of the first use of `marker`'s label (`c-1a2b3c4d`) in a page, outside the
    generated citations block, in any of the forms a page may carry it: a footnote `[^c-…]` (a plain
    wiki), an HTML comment `<!-- c-… -->` (a docs site's Markdown, a code example) or a reST comment
    line `.. c-…`. By the label, not by the report's spelling: the bench reads pages as they are."""
    label = re.search(r"c-[0-9a-f]{8,32}", marker)
    if label is None:
        return None
    name = re.escape(label.group(0))
    forms = re.compile(rf"\[\^{name}\](?!:)|<!--\s*{name}\s*-->|^[ \t]*\.\.[ \t]+{name}[ \t]*$", re.M)
    skip = [(m.start(), m.end()) for m in CITATIONS.finditer(text)]
    for m in forms.finditer(text):
        if not any(a <= m.start() < z for a, z in skip):
            return text.count("\n", 0, m.start())
    return None
