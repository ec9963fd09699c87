"""References written in one text of Markdown prose: links, identifiers, "see" targets and claim
markers. Pure: text in, records out; nothing here resolves a reference. What each kind of
reference is: split.py's docstring.

`refs_in` reads one text; `refscan.scan` reads many at once and gives what `refs_in` gives one by
one. Relations and statuses, which are read with the targets found here: relations.py.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from openwiki_git.pages.markers import ANY

__all__ = [
    "BARE_ID", "ID_TAIL", "LINK", "Ref", "ids_in", "link_target", "link_targets", "markers_in", "may_hold_bare_id", "may_refer",
    "refs_in", "see_target_at", "targets", "targets_with_text",
]


class Ref(NamedTuple):
    """One explicit reference as written. kind: "link", "id", "see"."""

    kind: str
    target: str


# Inline links (not images), optional <...> target and title.
# Starts with a literal `[` (the regex engine then skips ahead fast); an image's `!` is checked by hand.
# A link's `](target "title")`, the part link_targets looks for (images' too, any text before).
_LINK_TAIL = r'\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)'
LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*" + _LINK_TAIL)
_LINK_ENDS = re.compile(_LINK_TAIL)
_LINK_DEF = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
_ID = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9]*)-([0-9]+)(?![\w-])")
# Identifiers written without a separator ("ADR036", "RFC1234"): only with the prefixes of the
# series written that way (a bare capitals-and-digits word is too often a name: H2, UTF8,
# SHA256; PEPs are written "PEP 8"). Found with substring tests first ("ADR" in text): each
# prefix costs the splitter one more search over all text.
BARE_PREFIXES = ("ADR", "RFC")
BARE_ID = re.compile(r"(?<![\w/.-])(?:ADR|RFC)[0-9]+(?![\w-])")
_ISSUE = re.compile(r"[\w.-]+/[\w.-]+#[0-9]+")  # owner/repo#12: an issue elsewhere, not a file
_GITHUB = re.compile(r"^https?://github\.com/[^/\s]+/[^/\s]+/(?:blob|tree|raw)/[^/\s]+/\S+$")
ID_TAIL = re.compile(r"-[0-9]+(?![\w-])")
_TARGET = re.compile(
    r"""\s*(?:
      (?<!!)\[(?P<ltext>(?:[^\]\[]|\[[^\]]*\])*)\]\(\s*(?P<link><[^>]*>|[^)\s]+)[^)]*\)
    | (?<!!)\[(?P<rtext>[^\]\[\n]+)\]\[(?P<reflink>[^\]\[\n]*)\]
    | `(?P<code>[^`\n]+)`
    | "(?P<dq>[^"\n]+)" | “(?P<cq>[^”\n]+)”
    | (?P<uri>repo://[^\s)\]>,;`"]+)
    | (?P<id>(?<![\w/.-])[A-Z][A-Z0-9]*-[0-9]+(?![\w-]))
    | (?P<rid>(?<![\w/.-])[A-Z]{2,}[ _]?[0-9]+(?![\w-]))
    | (?P<path>(?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)+(?:\#[\w-]+)?|[\w.-]+\.md(?:\#[\w-]+)?)
    | (?P<num>(?<![\w.-])[0-9]+(?![\w-]))
    )""",
    re.X,
)
_SEE_REST = re.compile(r"(?:\s+also)?\b[:\s]*(?:the\s+)?", re.I)
_SEP = re.compile(r"\s*(?:,|;|&|\band\b|\bor\b)\s*", re.I)
_EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


def link_target(raw: str) -> str | None:
    target = raw[1:-1] if raw.startswith("<") else raw
    if not target or _EXTERNAL.match(target) and not target.startswith("repo://") and not _GITHUB.match(target):
        return None
    return target


def _target_ref(m: re.Match[str]) -> Ref | None:
    kind = m.lastgroup
    value = m.group(kind) if kind else None
    if kind == "reflink":  # [text][label], [label][]: resolved against the document's definitions
        return Ref("reflink", (value or m.group("rtext")).strip())
    if not value:
        return None
    if kind == "link":
        target = link_target(value)
        return Ref("link", target) if target else None
    if kind == "id":
        return Ref("id", value)
    if kind in ("num", "rid"):  # read by relations only ("Obsoletes: 1234", "Replaced by ADR014")
        return Ref(kind, value)
    if kind == "code":
        value = value.strip()
        if _ID.fullmatch(value):
            return Ref("id", value)
        if value.startswith("repo://") or "/" in value or value.endswith(".md"):
            return Ref("see", value)
        return None
    if kind == "path":
        value = value.rstrip(".")
        if _ISSUE.fullmatch(value):
            return None
    return Ref("see", value.strip())


def targets(text: str, pos: int = 0) -> list[Ref]:
    """The references listed at `pos`: one target, then more separated by `,`, `;`, `and`, `or`.
    The list ends at a bare number or a reference-style link (only relations read those)."""
    out = []
    for ref, _ in targets_with_text(text, pos):
        if ref.kind in ("num", "reflink", "rid"):
            break
        out.append(ref)
    return out


def targets_with_text(text: str, pos: int = 0) -> list[tuple[Ref, str]]:
    """`targets` with each link's text (else ""), bare numbers ("Obsoletes: 1234", kind
    `num`), identifiers without a dash ("ADR014", "RFC 1234", kind `rid`) and reference-style
    links (`[ADR043][]`, kind `reflink`)."""
    out: list[tuple[Ref, str]] = []
    while True:
        m = _TARGET.match(text, pos)
        if not m:
            return out
        ref = _target_ref(m)
        if ref is not None:
            out.append((ref, m.group("ltext") or m.group("rtext") or ""))
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
        or ID_TAIL.search(text) is not None
        or may_hold_bare_id(text)
    )


def may_hold_bare_id(text: str) -> bool:
    """Whether `text` may hold an identifier written without a separator (`ADR036`)."""
    return "ADR" in text or "RFC" in text


def refs_in(text: str) -> tuple[Ref, ...]:
    """Every explicit reference in a piece of prose, in order, without duplicates."""
    return _refs(text) if may_refer(text) else ()


def _refs(text: str) -> tuple[Ref, ...]:
    """refs_in for a text that passed `may_refer`."""
    found: list[tuple[int, Ref]] = []
    spans: list[tuple[int, int]] = []  # an identifier inside a link's text is the link's business
    if "](" in text:
        for m in LINK.finditer(text):
            spans.append(m.span())
            if m.start() and text[m.start() - 1] == "!":
                continue  # an image
            target = link_target(m.group(1))
            if target:
                found.append((m.start(), Ref("link", target)))
    if "]:" in text:
        for m in _LINK_DEF.finditer(text):
            target = link_target(m.group(1))
            if target:
                found.append((m.start(), Ref("link", target)))
    if "-" in text:
        for at, ident in ids_in(text):
            if not spans or not any(a <= at < b for a, b in spans):
                found.append((at, Ref("id", ident)))
    if may_hold_bare_id(text):
        for m in BARE_ID.finditer(text):
            if not spans or not any(a <= m.start() < b for a, b in spans):
                found.append((m.start(), Ref("id", m.group())))
    if "see" in text or "See" in text or "SEE" in text:
        for at in _sees(text):
            if see_target_at(text, at):
                found.extend((at, r) for r in targets(text, at) if r.kind == "see")
    if len(found) == 1:
        return (found[0][1],)
    found.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(r for _, r in found))


def see_target_at(text: str, at: int) -> bool:
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


def ids_in(text: str) -> list[tuple[int, str]]:
    """Identifiers (`ADR-0012`): found from their `-<digits>` (a literal-prefixed regex, fast),
    then the upper-case prefix is read backwards."""
    out = []
    for m in ID_TAIL.finditer(text):
        i = m.start()
        j = _id_start(text, i)
        if j < i and (j == 0 or not (text[j - 1].isalnum() or text[j - 1] in "_/.-")):
            out.append((j, text[j : m.end()]))
    return out


_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _id_start(text: str, i: int) -> int:
    """Where the identifier whose `-` is at i starts: the run of ASCII capitals and digits before
    it, less its leading digits (i when there is no capital). str.rstrip/lstrip do the reading."""
    lo = max(0, i - 64)
    run = text[lo:i]
    rest = run.rstrip(_ID_CHARS)
    if not rest and lo > 0:  # the run may go on beyond the window: read it char by char
        j = lo
        while j > 0 and text[j - 1] in _ID_CHARS:
            j -= 1
    else:
        j = lo + len(rest)
    return i - len(text[j:i].lstrip("0123456789"))


def markers_in(text: str) -> tuple[str, ...]:
    """The claim labels ("c-1a2b3c4d") of the markers in `text` (either form), in order, without duplicates."""
    return tuple(dict.fromkeys(ANY.findall(text)))


_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def link_targets(body: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline link, image and link reference definition of a
    page's body, outside fenced code and code spans, line by line (what `lint` checks)."""
    out: list[tuple[int, str]] = []
    fence: str | None = None
    for n, line in enumerate(body.splitlines(), 1):
        stripped = line.lstrip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        line = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        found = [m.group(1) for m in _LINK_ENDS.finditer(line)]
        ref = _LINK_DEF.match(line)
        if ref:
            found.append(ref.group(1))
        out.extend((n, t.strip("<>")) for t in found)
    return out
