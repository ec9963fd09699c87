"""A deterministic Markdown splitter: front matter, sections by heading, paragraphs, references.

Pure: text in, records out (no file system). Used by the evidence graph (`graph.py`).

Paragraph keys survive edits elsewhere in the document. A key is
`<section key>~<hash>` where the section key is the slug path of the headings above it
(`install/linux`, empty before the first heading), and the hash is the first 8 hex digits of
CRC-32 over the paragraph's normalised text (white space collapsed, claim markers `[^c-…]`
removed, so adding a citation does not rename the paragraph). A second identical paragraph in the
same section gets `.2`, a third `.3`, in document order. Line numbers are kept as attributes, never
used in keys, so inserting or removing text elsewhere leaves every other key unchanged.

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
import itertools
import operator
import re
import zlib
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Document", "Paragraph", "Ref", "Relation", "Section", "normalize", "slugify", "split"]

RELATION_TYPES = ("supersedes", "superseded_by", "amends", "amended_by", "attaches_to")


class Ref(NamedTuple):
    """One explicit reference as written. kind: "link", "id", "see"."""

    kind: str
    target: str


class Relation(NamedTuple):
    """A typed relation declared by the document: `type` is one of RELATION_TYPES, seen from this
    document ("superseded_by ADR-0012" means ADR-0012 supersedes this one). `source` is the index
    of the paragraph that states it, or -1 for front matter."""

    type: str
    ref: Ref
    source: int


class Section(NamedTuple):
    key: str  # slug path, e.g. "install/linux"
    heading: str  # the heading's text, inline markup removed
    level: int  # 1-6
    anchor: str  # GitHub's anchor, unique in the document
    parent: str  # the parent section's key, "" for top level
    line: int  # 1-based line of the heading
    refs: tuple[Ref, ...] = ()


class Paragraph(NamedTuple):
    key: str  # "<section key>~<hash8>[.n]"
    section: str  # the section key ("" before the first heading)
    text: str  # as written (lines joined with "\n")
    start: int  # 1-based first line
    end: int  # 1-based last line (inclusive)
    code: bool = False  # a fenced code block
    markers: tuple[str, ...] = ()  # claim labels ("c-1a2b3c4d") carried by the paragraph
    refs: tuple[Ref, ...] = ()


class Document:
    """A split document. Paragraphs are stored column-wise (`texts`, `starts`, `ends`) and known
    by index; their keys are computed lazily, one section at a time (a section's own paragraphs
    are contiguous: a run that starts at its heading), so a large corpus is split without
    hashing paragraphs nobody asks about. `markers` and `refs` map paragraph indexes to what they
    carry."""

    __slots__ = (
        "_by_key",
        "_children",
        "_keys",
        "_sections",
        "code",
        "ends",
        "h1",
        "markers",
        "meta",
        "path",
        "refs",
        "relations",
        "run_starts",
        "runs",
        "sections",
        "starts",
        "texts",
        "title",
    )

    def __init__(
        self,
        path: str,
        title: str,
        meta: dict[str, str | list[str]],
        sections: tuple[Section, ...] = (),
        relations: tuple[Relation, ...] = (),
        h1: str | None = None,
        *,
        texts: list[str] | None = None,
        starts: list[int] | None = None,
        ends: list[int] | None = None,
        code: frozenset[int] = frozenset(),
        markers: dict[int, tuple[str, ...]] | None = None,
        refs: dict[int, tuple[Ref, ...]] | None = None,
        runs: list[tuple[int, str]] | None = None,
    ) -> None:
        self.path, self.title, self.meta, self.h1 = path, title, meta, h1
        self.sections, self.relations = sections, relations
        self.texts, self.starts, self.ends = texts or [], starts or [], ends or []
        self.code, self.markers, self.refs = code, markers or {}, refs or {}
        self.runs = runs or [(0, "")]
        self.run_starts = [r[0] for r in self.runs]
        self._reset()

    def _reset(self) -> None:
        self._keys: dict[int, list[str]] = {}
        self._by_key: dict[str, int] = {}
        self._sections: dict[str, Section] | None = None
        self._children: dict[str, list[tuple[str, str]]] | None = None

    def __getstate__(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__ if not k.startswith("_")}

    def __setstate__(self, state: dict[str, object]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self._reset()

    def __len__(self) -> int:
        return len(self.texts)

    def _run(self, i: int) -> int:
        return bisect.bisect_right(self.run_starts, i) - 1

    def _run_keys(self, r: int) -> list[str]:
        keys = self._keys.get(r)
        if keys is None:
            lo, section = self.runs[r]
            hi = self.runs[r + 1][0] if r + 1 < len(self.runs) else len(self.texts)
            keys = self._keys[r] = _keys(section, self.texts[lo:hi])
            self._by_key.update(zip(keys, range(lo, hi)))
        return keys

    def key(self, i: int) -> str:
        """Paragraph i's key."""
        r = self._run(i)
        return self._run_keys(r)[i - self.runs[r][0]]

    def section_of(self, i: int) -> str:
        return self.runs[self._run(i)][1]

    def paragraph(self, i: int) -> Paragraph:
        return Paragraph(
            self.key(i),
            self.section_of(i),
            self.texts[i],
            self.starts[i],
            self.ends[i],
            i in self.code,
            self.markers.get(i, ()),
            self.refs.get(i, ()),
        )

    @property
    def paragraphs(self) -> tuple[Paragraph, ...]:
        return tuple(self.paragraph(i) for i in range(len(self.texts)))

    def find(self, key: str) -> int | None:
        """The index of the paragraph with this key, or None."""
        hit = self._by_key.get(key)
        if hit is not None:
            return hit
        section = key.rpartition("~")[0]
        for r, (_, name) in enumerate(self.runs):
            if name == section and r not in self._keys:
                self._run_keys(r)
                return self._by_key.get(key)
        return None

    def section(self, key: str) -> Section | None:
        if self._sections is None:
            self._sections = {s.key: s for s in self.sections}
        return self._sections.get(key)

    def children(self, key: str) -> list[tuple[str, str]]:
        """("section" | "paragraph", key) of what section `key` ("" = the document) directly
        contains, in document order."""
        if self._children is None:
            self._children = _children(self)
        out = self._children.get(key, [])
        for r, (lo, name) in enumerate(self.runs):
            if name == key:
                hi = self.runs[r + 1][0] if r + 1 < len(self.runs) else len(self.texts)
                paras = [("paragraph", k) for k in self._run_keys(r)] if hi > lo else []
                return paras + out
        return out


def _children(d: Document) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for s in d.sections:
        out.setdefault(s.parent, []).append(("section", s.key))
    return out


def _keys(section: str, texts: list[str]) -> list[str]:
    """Keys of one section's paragraphs: `<section>~<crc32 of the normalised text>`, `.2`, `.3`
    for repeats."""
    out = []
    seen: dict[str, int] = {}
    for text in texts:
        flat = text.replace("\n", " ") if "\n" in text else text
        if "  " in flat or "\t" in flat or "[^c-" in flat or flat[:1] == " " or flat[-1:] == " ":
            flat = normalize(text)
        base = section + "~" + "%08x" % zlib.crc32(flat.encode())
        n = seen.get(base, 0) + 1
        seen[base] = n
        out.append(base if n == 1 else f"{base}.{n}")
    return out


# --------------------------------------------------------------------------------------------
# Inline patterns
# --------------------------------------------------------------------------------------------

_MARKER = re.compile(r"\[\^(c-[0-9a-f]{8,32})\](?!:)")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_ATX_AT = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")  # match(text, start, end)
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# Inline links (not images), optional <...> target and title.
# Starts with a literal `[` (the regex engine then skips ahead fast); an image's `!` is checked by hand.
_LINK = re.compile(r'\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)')
_LINK_DEF = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
_ID = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9]*)-([0-9]+)(?![\w-])")
_ID_TAIL = re.compile(r"-[0-9]+(?![\w-])")
_TARGET = re.compile(
    r"""\s*(?:
      (?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*(?P<link><[^>]*>|[^)\s]+)[^)]*\)
    | `(?P<code>[^`\n]+)`
    | "(?P<dq>[^"\n]+)" | “(?P<cq>[^”\n]+)”
    | (?P<uri>repo://[^\s)\]>,;`"]+)
    | (?P<id>(?<![\w/.-])[A-Z][A-Z0-9]*-[0-9]+(?![\w-]))
    | (?P<path>(?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)+(?:\#[\w-]+)?|[\w.-]+\.md(?:\#[\w-]+)?)
    )""",
    re.X,
)
_SEE_REST = re.compile(r"(?:\s+also)?\b[:\s]*(?:the\s+)?", re.I)
_SEP = re.compile(r"\s*(?:,|;|&|\band\b|\bor\b)\s*", re.I)
_VERBS = (
    ("superseded_by", r"superseded\s+by"),
    ("supersedes", r"supersedes"),
    ("amended_by", r"amended\s+by"),
    ("amends", r"amends"),
    ("attaches_to", r"attache[sd]\s+to|attachment\s+(?:to|of)"),
)
_STATUS_LINE = re.compile(
    r"^[ \t]*(?:[-*+>][ \t]*)*(?:\*\*|__)?(?:status|state)?(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*"
    r"(?:(?:accepted|proposed|deprecated|rejected|draft|active|final)(?:\*\*|__)?[ \t]*[,;.:\u2014-]+[ \t]*)?"
    r"(?:this\s+(?:adr|rfc|decision|document|doc|page|record|note|guide|runbook)\s+)?"
    r"(?P<verb>" + "|".join(f"(?P<{name}>{pat})" for name, pat in _VERBS) + r")\b[ \t]*:?",
    re.I | re.M,
)
_INLINE_LINK_TEXT = re.compile(r"!?\[((?:[^\]\[]|\[[^\]]*\])*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # an underscore inside a word is not emphasis
_SLUG_DROP = re.compile(r"[^\w\- ]", re.U)
_FM_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_FM_ITEM = re.compile(r"^[ \t]+-[ \t]+(.*?)[ \t]*$")
_EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")
_FM_RELATION_KEYS = {
    "supersedes": "supersedes",
    "superseded_by": "superseded_by",
    "supersededby": "superseded_by",
    "amends": "amends",
    "amended_by": "amended_by",
    "amendedby": "amended_by",
    "attaches_to": "attaches_to",
    "attached_to": "attaches_to",
    "attachment_of": "attaches_to",
    "attachment_to": "attaches_to",
}


def normalize(text: str) -> str:
    """The text a paragraph's hash is taken over: claim markers removed, white space collapsed."""
    if "[^c-" in text:
        text = _MARKER.sub("", text)
    return " ".join(text.split())


def plain(text: str) -> str:
    """Inline Markdown reduced to its words: links to their text, emphasis and code marks dropped."""
    if "[" in text:
        text = _INLINE_LINK_TEXT.sub(r"\1", text)
        text = _MARKER.sub("", text)
    if "*" in text or "_" in text or "`" in text:
        text = _EMPHASIS.sub("", text)
    return text.strip()


def slugify(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    lower = heading.strip().lower()
    if not lower.replace(" ", "").isalnum():  # the common case (words and spaces) needs no regex
        lower = _SLUG_DROP.sub("", lower)
    return lower.replace(" ", "-") or "section"


# --------------------------------------------------------------------------------------------
# Front matter
# --------------------------------------------------------------------------------------------


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def front_matter(text: str) -> tuple[dict[str, str | list[str]], int]:
    """Flat front matter (`key: value`, `key: [a, b]`, `key:` + `- a` items) and the number of
    lines it takes. Nested mappings and other YAML are skipped: only flat keys matter here."""
    if not text.startswith("---"):
        return {}, 0
    lines = text.split("\n", 400)
    if lines[0].rstrip() != "---":
        return {}, 0
    meta: dict[str, str | list[str]] = {}
    key: str | None = None
    for n in range(1, len(lines)):
        line = lines[n].rstrip("\r")
        if line.rstrip() in ("---", "..."):
            return meta, n + 1
        item = _FM_ITEM.match(line)
        if item and key is not None:
            current = meta.get(key)
            meta[key] = [*(current if isinstance(current, list) else []), _scalar(item.group(1))]
            continue
        m = _FM_KEY.match(line)
        if not m:
            key = None
            continue
        key, value = m.group(1), m.group(2)
        if value.startswith("[") and value.endswith("]"):
            meta[key] = [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
        elif value and not value.startswith(("|", ">", "{")):
            meta[key] = _scalar(value)
        else:
            meta[key] = []
    return {}, 0  # no closing line: not front matter


# --------------------------------------------------------------------------------------------
# References
# --------------------------------------------------------------------------------------------


def _link_target(raw: str) -> str | None:
    target = raw[1:-1] if raw.startswith("<") else raw
    if not target or _EXTERNAL.match(target) and not target.startswith("repo://"):
        return None
    return target


def _target_ref(m: re.Match[str]) -> Ref | None:
    kind = m.lastgroup
    value = m.group(kind) if kind else None
    if not value:
        return None
    if kind == "link":
        target = _link_target(value)
        return Ref("link", target) if target else None
    if kind == "id":
        return Ref("id", value)
    if kind == "code":
        value = value.strip()
        if _ID.fullmatch(value):
            return Ref("id", value)
        if value.startswith("repo://") or "/" in value or value.endswith(".md"):
            return Ref("see", value)
        return None
    if kind == "path":
        value = value.rstrip(".")
    return Ref("see", value.strip())


def targets(text: str, pos: int = 0) -> list[Ref]:
    """The references listed at `pos`: one target, then more separated by `,`, `;`, `and`, `or`."""
    out: list[Ref] = []
    while True:
        m = _TARGET.match(text, pos)
        if not m:
            return out
        ref = _target_ref(m)
        if ref is not None:
            out.append(ref)
        pos = m.end()
        sep = _SEP.match(text, pos)
        if not sep:
            return out
        pos = sep.end()


def may_refer(text: str) -> bool:
    """Whether `text` can hold a reference: a link has `](` or `]:`, an identifier `-<digit>`,
    a "see" reference its "see". Substring tests (and one regex with a literal prefix, which the
    engine scans for quickly) are much cheaper than the reference regexes over every paragraph."""
    return (
        "](" in text
        or "]:" in text
        or "see" in text
        or "See" in text
        or "SEE" in text
        or _ID_TAIL.search(text) is not None
    )


def _notable(text: str) -> bool:
    """May carry a claim marker, a link (both have `]`), an identifier, a "see" or a relation.
    Seven substring scans: on a large corpus, scanning the text is most of the splitter's cost."""
    return (
        "]" in text
        or "see" in text
        or "See" in text
        or ("-" in text and _ID_TAIL.search(text) is not None)
        or "upersed" in text
        or "mend" in text
        or "ttach" in text
        or "SEE" in text
    )


def refs_in(text: str) -> tuple[Ref, ...]:
    """Every explicit reference in a piece of prose, in order, without duplicates."""
    if not may_refer(text):
        return ()
    found: list[tuple[int, Ref]] = []
    spans: list[tuple[int, int]] = []  # an identifier inside a link's text is the link's business
    if "](" in text:
        for m in _LINK.finditer(text):
            spans.append(m.span())
            if m.start() and text[m.start() - 1] == "!":
                continue  # an image
            target = _link_target(m.group(1))
            if target:
                found.append((m.start(), Ref("link", target)))
    if "]:" in text:
        for m in _LINK_DEF.finditer(text):
            target = _link_target(m.group(1))
            if target:
                found.append((m.start(), Ref("link", target)))
    if "-" in text:
        for at, ident in _ids(text):
            if not any(a <= at < b for a, b in spans):
                found.append((at, Ref("id", ident)))
    if "see" in text or "See" in text or "SEE" in text:
        for at in _sees(text):
            if _see_target_at(text, at):
                found.extend((at, r) for r in targets(text, at) if r.kind == "see")
    if len(found) == 1:
        return (found[0][1],)
    found.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(r for _, r in found))


def _see_target_at(text: str, at: int) -> bool:
    """Whether a "see" target (quoted title, code span, path, repo:// resource) may start at
    `at`; links and identifiers after "see" are found on their own."""
    c = text[at : at + 1]
    if c in ('"', "\u201c", "`", "["):
        return True
    words = text[at : at + 400].split(maxsplit=2)
    if not words:
        return False
    listed = words[0][-1] in ",;" or (len(words) > 1 and words[1].lower() in ("and", "or", "&"))
    return listed or "/" in words[0] or ".md" in words[0]


def _sees(text: str) -> list[int]:
    """Where the target of each "see" / "see also" starts."""
    lower = text.lower()
    out = []
    i = lower.find("see")
    while i >= 0:
        before = lower[i - 1] if i else " "
        after = lower[i + 3 : i + 4]
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            m = _SEE_REST.match(text, i + 3)
            if m:
                out.append(m.end())
        i = lower.find("see", i + 3)
    return out


def _ids(text: str) -> list[tuple[int, str]]:
    """Identifiers (`ADR-0012`): found from their `-<digits>` (a literal-prefixed regex, fast),
    then the upper-case prefix is read backwards."""
    out = []
    for m in _ID_TAIL.finditer(text):
        i = m.start()
        j = i
        while j > 0 and (text[j - 1].isupper() or text[j - 1].isdigit()) and text[j - 1].isascii():
            j -= 1
        while j < i and not text[j].isupper():
            j += 1  # the prefix starts with a letter
        if j < i and (j == 0 or not (text[j - 1].isalnum() or text[j - 1] in "_/.-")):
            out.append((j, text[j : m.end()]))
    return out


def relations_in(text: str, source: int) -> list[Relation]:
    """Status lines: "Superseded by ADR-0012", "Amends [ADR-0003](0003-x.md)", ..."""
    out = []
    for m in _STATUS_LINE.finditer(text):
        kind = next(name for name, _ in _VERBS if m.group(name))
        out.extend(Relation(kind, ref, source) for ref in targets(text, m.end()))
    return out


def _meta_relations(meta: dict[str, str | list[str]]) -> list[Relation]:
    out = []
    for key in sorted(meta):
        kind = _FM_RELATION_KEYS.get(key.lower().replace("-", "_"))
        if kind is None:
            continue
        value = meta[key]
        for item in value if isinstance(value, list) else [value]:
            refs = targets(item) or ([Ref("see", item.strip())] if item.strip() else [])
            out.extend(Relation(kind, ref, -1) for ref in refs)
    return out


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
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        parent = self.stack[-1][1] if self.stack else ""
        siblings = self.children.setdefault(parent, {})
        n = siblings.get(slug, 0)
        siblings[slug] = n + 1
        key = (f"{parent}/" if parent else "") + (f"{slug}-{n}" if n else slug)
        anchor = f"{slug}-{a}" if a else slug
        self.sections.append(Section(key, text, level, anchor, parent, line, refs_in(raw) if "[" in raw else ()))
        self.stack.append((level, key))
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
        elif _notable(text):
            self._extras(i, text)

    def _extras(self, i: int, text: str) -> None:
        """Paragraph i's claim markers, references and relations."""
        if "[^c-" in text:
            self.markers[i] = tuple(dict.fromkeys(_MARKER.findall(text)))
        if may_refer(text):
            refs = refs_in(text)
            if refs:
                self.refs[i] = refs
        if "upersed" in text or "mend" in text or "ttach" in text:
            self.relations.extend(relations_in(text, i))

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
        if _notable(body):
            for i, blk in enumerate(blocks, first):
                if _notable(blk):
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
            if c == "#" and (m := _ATX.match(line)):
                self._flush(block, start)
                block = []
                self.heading(len(m.group(1)), m.group(2) or "", i)
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
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    meta, skip = front_matter(text)
    body = text.split("\n", skip)[-1] if skip else text
    try:
        b = _scan(body, skip + 1, allow_title=True)
    except _Retry:
        b = _scan(body, skip + 1, allow_title=False)
    return _finish(path, meta, b)


def _scan(body: str, first: int, *, allow_title: bool) -> _Builder:
    """Fenced code first (it may hold blank lines), then the prose between, block by block."""
    b = _Builder(allow_title)
    line, pos = first, 0
    fences = _FENCED.finditer(body) if ("```" in body or "~~~" in body) else ()
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
    title = meta.get("title")
    if not isinstance(title, str) or not title:
        first = b.sections[0].heading if b.sections and b.sections[0].level == 1 else None
        title = b.title or first or _stem(path)
    return Document(
        path,
        title,
        meta,
        tuple(b.sections),
        tuple(_meta_relations(meta) + b.relations),
        b.title,
        texts=b.texts,
        starts=b.starts,
        ends=b.ends,
        code=frozenset(b.code),
        markers=b.markers,
        refs=b.refs,
        runs=b.runs,
    )


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name
