"""References written in Markdown prose: links, identifiers, "see" targets, claim markers and
relations (supersedes, amends, attaches to). Pure: text in, records out. Used by `mdsplit.py`,
which documents what each kind of reference is; nothing here resolves a reference.

`refs_in` and `relations_in` read one text. `scan` reads the markers and references of many
paragraphs at once (one pass of each regex over their joined text) and gives what `refs_in` and
`markers_in` give one by one: a document's paragraphs are scanned that way.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable
from typing import NamedTuple

from openwiki_git.pages.markers import MARKER

__all__ = [
    "RELATION_TYPES", "Ref", "Relation", "link_targets", "markers_in", "may_refer", "may_relate", "notable", "refs_in", "relations_in",
    "scan", "section_status", "targets",
]

RELATION_TYPES = ("supersedes", "superseded_by", "amends", "amended_by", "attaches_to")
_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)


class Ref(NamedTuple):
    """One explicit reference as written. kind: "link", "id", "see"."""

    kind: str
    target: str


class Relation(NamedTuple):
    """A typed relation declared by the document: `type` is one of RELATION_TYPES, seen from this
    document ("superseded_by ADR-0012" means ADR-0012 supersedes this one). `source` is the index
    of the paragraph that states it, or -1 for front matter. `text` is a link's text: when the
    link's target names nothing, the text may still name the document ("[ADR028](wrong.md)").

    Two more types carry no target: `status` (a declared status word, such as "accepted", in
    `ref.target`) and `unknown_status` (a status whose wording is not recognised, as written:
    reported, never ignored)."""

    type: str
    ref: Ref
    source: int
    text: str = ""


# Inline links (not images), optional <...> target and title.
# Starts with a literal `[` (the regex engine then skips ahead fast); an image's `!` is checked by hand.
# A link's `](target "title")`, the part link_targets looks for (images' too, any text before).
_LINK_TAIL = r'\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)'
_LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*" + _LINK_TAIL)
_LINK_ENDS = re.compile(_LINK_TAIL)
_LINK_DEF = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
_ID = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9]*)-([0-9]+)(?![\w-])")
# Identifiers written without a separator ("ADR036", "RFC1234"): only with the prefixes of the
# series written that way (a bare capitals-and-digits word is too often a name: H2, UTF8,
# SHA256; PEPs are written "PEP 8"). Found with substring tests first ("ADR" in text): each
# prefix costs the splitter one more search over all text.
BARE_PREFIXES = ("ADR", "RFC")
_BARE_ID = re.compile(r"(?<![\w/.-])(?:ADR|RFC)[0-9]+(?![\w-])")
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
# Each wording a relation is written in, and the relation it declares ("superseded in part by"
# leaves the document partly in force: an amendment). Tried in this order.
_VERBS = (
    ("amended_by", r"superseded[ \t]+in[ \t]+part[ \t]+by|partially[ \t]+superseded[ \t]+by|partly[ \t]+superseded[ \t]+by"),
    (
        "superseded_by",
        r"supers?[sc]e+ded[\s-]+by|replaced[\s-]+by|obsoleted[\s-]+by|deprecated[ \t]+in[ \t]+fav(?:ou|o)r[ \t]+of"
        r"|deprecated[\s-]+by",
    ),  # (also the common misspellings "superceded", "superseeded")
    ("supersedes", r"supers?[sc]e+des|replaces|obsoletes"),
    ("amended_by", r"amended[\s-]+by|updated[\s-]+by|supplemented[\s-]+by|extended[\s-]+by|clarified[\s-]+by"),
    ("amends", r"amends|updates|supplements|extends|clarifies"),
    ("attaches_to", r"attache[sd]\s+to|attachment\s+(?:to|of)"),
)
_VERB_TYPE = {f"v{i}": name for i, (name, _) in enumerate(_VERBS)}
# Status words that declare no relation (and the ones that need a target, reported without one).
STATUS_WORDS = frozenset(
    "accepted proposed deprecated rejected draft active final approved implemented withdrawn obsolete "
    "superseded amended replaced abandoned postponed deferred experimental stable living informational "
    "standard adopted done open closed discussing review".split()
)
_STATUS_WORD = r"(?:accepted|proposed|deprecated|rejected|draft|active|final|approved|implemented)"
_STATUS_LINE = re.compile(
    r"^[ \t]*(?:[-*+>|][ \t]*)*(?:\*\*|__)?(?:status|state)?(?:\*\*|__)?[ \t]*[:|]?[ \t]*(?:\*\*|__)?[ \t]*"
    r"(?:~~[^~\n]*~~[ \t]*[,;.:\u2014-]*[ \t]*)?"
    r"(?:" + _STATUS_WORD + r"(?:\*\*|__)?[ \t]*(?:[,;.:\u2014(-]+|[ \t]+and)[ \t]*)?"
    r"(?:this\s+(?:adr|rfc|decision|document|doc|page|record|note|guide|runbook)\s+)?"
    r"(?:(?:was|is|has\s+been|now)\s+)?"
    r"(?P<verb>" + "|".join(f"(?P<v{i}>{pat})" for i, (_, pat) in enumerate(_VERBS)) + r")\b[ \t]*(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?",
    re.I | re.M,
)
# A line that declares a status: "Status: Accepted", "**Status:** ~~Accepted~~ Superseded by …",
# "| Status | Superseded by … |" (a table row), "- status: draft".
_STATUS_DECL = re.compile(
    r"^[ \t]*(?:[-*+>][ \t]*)*\|?[ \t]*(?:\*\*|__)?(?:status)(?:\*\*|__)?[ \t]*(?::|\|)[ \t]*(?:\*\*|__)?[ \t]*(?P<value>[^\n]*)$",
    re.I | re.M,
)
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
    "replaces": "supersedes",
    "obsoletes": "supersedes",
    "replaced_by": "superseded_by",
    "obsoleted_by": "superseded_by",
    "updates": "amends",
    "extends": "amends",
    "supplements": "amends",
    "updated_by": "amended_by",
    "extended_by": "amended_by",
    "supplemented_by": "amended_by",
}



def _link_target(raw: str) -> str | None:
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
        target = _link_target(value)
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
    for ref, _ in _targets(text, pos):
        if ref.kind in ("num", "reflink", "rid"):
            break
        out.append(ref)
    return out


def _targets(text: str, pos: int = 0) -> list[tuple[Ref, str]]:
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
        or _bare(text)
    )


def _bare(text: str) -> bool:
    """Whether `text` may hold an identifier written without a separator (`ADR036`)."""
    return "ADR" in text or "RFC" in text


def notable(text: str) -> bool:
    """May carry a claim marker, a link (both have `]`), an identifier, a "see" or a relation.
    Seven substring scans: on a large corpus, scanning the text is most of the splitter's cost."""
    return (
        "]" in text
        or "see" in text
        or "See" in text
        or ("-" in text and ID_TAIL.search(text) is not None)
        or "upersed" in text
        or "mend" in text
        or "ttach" in text
        or "SEE" in text
        or _bare(text)
        or may_relate(text)
    )


def refs_in(text: str) -> tuple[Ref, ...]:
    """Every explicit reference in a piece of prose, in order, without duplicates."""
    return _refs(text) if may_refer(text) else ()


def _refs(text: str) -> tuple[Ref, ...]:
    """refs_in for a text that passed `may_refer`."""
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
            if not spans or not any(a <= at < b for a, b in spans):
                found.append((at, Ref("id", ident)))
    if _bare(text):
        for m in _BARE_ID.finditer(text):
            if not spans or not any(a <= m.start() < b for a, b in spans):
                found.append((m.start(), Ref("id", m.group())))
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


def _relation_targets(text: str, pos: int = 0) -> list[tuple[Ref, str]]:
    """`_targets` as a relation reads them: an identifier without a dash is an identifier."""
    return [(Ref("id", ref.target) if ref.kind == "rid" else ref, label) for ref, label in _targets(text, pos)]


def may_relate(text: str) -> bool:
    """Whether `text` may state a relation or a status (substring tests, as `notable`)."""
    return (
        "upersed" in text
        or "uperced" in text
        or "upersee" in text
        or "mend" in text
        or "ttach" in text
        or "eplace" in text
        or "bsolete" in text
        or "precated" in text
        or "pdate" in text
        or "upplement" in text
        or "xtend" in text
        or "larifi" in text
        or "tatus" in text
        or "TATUS" in text
    )


def relations_in(text: str, source: int) -> list[Relation]:
    """Status lines: "Superseded by ADR-0012", "Amends [ADR-0003](0003-x.md)", "Obsoletes: 1234",
    a status table row, "Status: Accepted" (a `status` relation), or a status whose wording is
    not recognised (`unknown_status`, so that it is reported)."""
    out: list[Relation] = []
    seen_lines: set[int] = set()
    for m in _STATUS_LINE.finditer(text):
        kind = next(_VERB_TYPE[name] for name in _VERB_TYPE if m.group(name))
        found = _relation_targets(text, m.end())
        if found:
            seen_lines.add(text.count("\n", 0, m.start()))
        out.extend(Relation(kind, ref, source, label) for ref, label in found)
    if "tatus" in text or "TATUS" in text:
        for m in _STATUS_DECL.finditer(text):
            if text.count("\n", 0, m.start()) not in seen_lines:
                out.extend(status_of(m.group("value"), source))
    return out


def status_of(value: str, source: int) -> list[Relation]:
    """A declared status with no relation in it (those are read by `relations_in`): a known
    status word gives a `status` relation, anything else an `unknown_status` one."""
    plain = re.sub(r"~~[^~]*~~", " ", value)
    plain = re.sub(r"[*_`|]+", " ", plain).strip(" \t.:;,-\u2014")
    if not plain:
        return []
    first = re.split(r"[\s,;.:(\u2014-]+", plain.lower(), maxsplit=1)[0]
    if first in STATUS_WORDS:
        out = [Relation("status", Ref("status", first), source)]
        if first in _REPLACED:  # "Superseded (see ADR-0012)", "Superseded: [ADR-9](x.md)"
            out += [Relation("superseded_by", ref, source, label) for ref, label in _named_in(value)]
        return out
    if _STATUS_LINE.match(plain):
        return []  # a relation written with no target: its targets were reported by relations_in
    return [Relation("unknown_status", Ref("status", " ".join(plain.split())[:120]), source)]


_REPLACED = frozenset({"superseded", "replaced", "obsolete", "obsoleted"})


def _named_in(text: str) -> list[tuple[Ref, str]]:
    """The documents a status line names anywhere in it: links (with their text) and identifiers."""
    out: list[tuple[Ref, str]] = []
    for m in _LINK.finditer(text):
        target = _link_target(m.group(1))
        if target:
            label = text[m.start() + 1 : text.index("](", m.start())]
            out.append((Ref("link", target), label))
    if not out:
        out = [(Ref("id", m.group(0)), "") for m in re.finditer(r"(?<![\w/.-])[A-Z]{2,}[-_ ]?[0-9]+(?![\w-])", text)]
    return out


def section_status(texts: list[str], source: int) -> list[Relation]:
    """A "Status" section (Nygard's layout): its first paragraph's relations, or its status word,
    or an unrecognised wording; "Superseded" alone takes the documents the section's next
    paragraphs name ("Superseded\n\nSee [ADR-0012](…)")."""
    text = texts[0]
    found = relations_in(text, source)
    if any(r.type not in ("status", "unknown_status") for r in found):
        return found
    found = found or status_of(text.split("\n", 1)[0], source)
    words = {r.ref.target for r in found if r.type == "status"}
    if words & _REPLACED and not any(r.type == "superseded_by" for r in found):
        for k, more in enumerate(texts[1:3], 1):
            named = _named_in(more)
            if named:
                found += [Relation("superseded_by", ref, source + k, label) for ref, label in named]
                break
    return found


def meta_relations(meta: dict[str, str | list[str]]) -> list[Relation]:
    out = []
    for key in sorted(meta):
        lower = key.lower().replace("-", "_")
        kind = _FM_RELATION_KEYS.get(lower)
        value = meta[key]
        if kind is None:
            if lower == "status" and isinstance(value, str):  # MADR: `status: superseded by ADR-0005`
                out.extend(relations_in(value, -1) or status_of(value, -1))
            continue
        for item in value if isinstance(value, list) else [value]:
            found = _relation_targets(item)
            if found:
                out.extend(Relation(kind, ref, -1, label) for ref, label in found)
            elif item.strip():
                out.append(Relation(kind, Ref("see", item.strip()), -1))
    return out




def markers_in(text: str) -> tuple[str, ...]:
    """The claim labels ("c-1a2b3c4d") of the markers in `text`, in order, without duplicates."""
    return tuple(dict.fromkeys(MARKER.findall(text)))


def scan(texts: list[str]) -> tuple[list[tuple[str, ...] | None], list[tuple[Ref, ...]]]:
    """For each text: `markers_in(text)` if it holds "[^c-" (None otherwise), and `refs_in(text)`.

    A paragraph costs a dozen regex and function calls when read alone, more than its text's
    length does: here each regex runs once over the texts joined by NUL, and its matches are
    dealt out by offset. The patterns used on the joined text (`_LINK_JOINED`, `_LINK_DEF_JOINED`,
    `_ID_AT`, `_SEE_AT`) are those of `refs_in` with a NUL read as a text's end, so each text
    gives what `refs_in` gives (a test compares them on random texts). A text holding a NUL,
    or whose lower-casing changes its length (`_sees` reads "see" in the lower-cased text), is
    read alone by `refs_in`."""
    if not texts:
        return [], []
    joined = "\0".join(texts)
    lower = joined.lower()
    if joined.count("\0") != len(texts) - 1 or len(lower) != len(joined):
        return _scan_apart(texts)
    at = list(itertools.accumulate([len(t) + 1 for t in texts], initial=0))  # where each text starts
    found: list[list[tuple[int, Ref]]] = [[] for _ in texts]
    # Each kind in refs_in's order (links, definitions, identifiers, "see"): the stable sort
    # by offset then orders equal offsets as refs_in does.
    spans = _links_joined(joined, at, found) if "](" in joined else ([], [])
    if "]:" in joined:
        for m in _LINK_DEF_JOINED.finditer(joined):
            target = _link_target(m.group(1))
            if target:
                k = bisect.bisect_right(at, m.start()) - 1
                found[k].append((m.start() - at[k], _new(Ref, ("link", target))))
    if "-" in joined:
        _ids_joined(joined, at, spans, found)
    if _bare(joined):
        starts, ends = spans
        for m in _BARE_ID.finditer(joined):
            pos = m.start()
            if starts:
                s = bisect.bisect_right(starts, pos) - 1
                if s >= 0 and pos < ends[s]:
                    continue
            k = bisect.bisect_right(at, pos) - 1
            found[k].append((pos - at[k], _new(Ref, ("id", m.group()))))
    if "see" in lower:
        _see_refs(texts, lower, at, found)
    return _markers(texts, joined), [_sorted_refs(f) for f in found]


def _markers(texts: list[str], joined: str) -> list[tuple[str, ...] | None]:
    """The markers of `scan`: `findall` on each text (mapped, no Python frame per text) costs
    less than dealing out the matches of the joined text by offset; most texts carry one."""
    if "^" not in joined or "[^c-" not in joined:  # a one-character search first: it is faster
        return [None] * len(texts)
    counts = list(map(str.count, texts, itertools.repeat("[^c-")))
    if max(counts) == 1:
        found = MARKER.findall(joined)  # a match holds one "[^c-" and no NUL: it is in one text
        if len(found) == sum(counts):  # every "[^c-" opens a marker: one per text that has one
            if len(found) == len(texts):
                return list(zip(found))
            labels = iter(found)
            return [(next(labels),) if n else None for n in counts]
    return [
        (tuple(found) if len(found) == 1 else tuple(dict.fromkeys(found))) if found else (() if "[^c-" in t else None)
        for found, t in zip(map(MARKER.findall, texts), texts)
    ]


def _scan_apart(texts: list[str]) -> tuple[list[tuple[str, ...] | None], list[tuple[Ref, ...]]]:
    """`scan` when some texts hold a NUL or change length when lower-cased: those are read alone
    (`markers_in`, `refs_in`), the others still together."""
    alone = {k for k, t in enumerate(texts) if "\0" in t or len(t.lower()) != len(t)}
    markers, refs = scan(["" if k in alone else t for k, t in enumerate(texts)])
    for k in alone:
        markers[k] = markers_in(texts[k]) if "[^c-" in texts[k] else None
        refs[k] = refs_in(texts[k])
    return markers, refs


# `_LINK` and `_LINK_DEF` with a NUL read as a text's end: no class matches a NUL, and a line
# (`^`) also starts after one. Their matches in the joined text are those in each text.
_LINK_JOINED = re.compile(
    r"\[(?:[^\]\[\0]|\[[^\]\0]*\])*\]\(\s*(<[^>\0]*>|[^)\s\0]+)"
    r"(?:\s+(?:\"[^\"\0]*\"|'[^'\0]*'|\([^)\0]*\)))?\s*\)"
)
_LINK_DEF_JOINED = re.compile(r"(?<![^\n\0]) {0,3}\[(?!\^)[^\]\0]+\]:\s*(<[^>\0]*>|[^\s\0]+)")


def _links_joined(joined: str, at: list[int], found: list[list[tuple[int, Ref]]]) -> tuple[list[int], list[int]]:
    """The inline links of `scan` (`_refs`' first step); returns the (starts, ends) of all link
    and image spans, in order: an identifier inside one is not a reference."""
    starts, ends = [], []
    for m in _LINK_JOINED.finditer(joined):
        s = m.start()
        starts.append(s)
        ends.append(m.end())
        if s and joined[s - 1] == "!":
            continue  # an image (a text's first character is preceded by a NUL, never "!")
        target = _link_target(m.group(1))
        if target:
            k = bisect.bisect_right(at, s) - 1
            found[k].append((s - at[k], _new(Ref, ("link", target))))
    return starts, ends


# `_ID` with its look behind after the first capital: the engine then skips to capital letters
# quickly (a pattern opening with a look behind is tried at every character).
_ID_AT = re.compile(r"[A-Z](?<![\w/.-][A-Z])[A-Z0-9]*+-[0-9]++(?![\w-])")
_ID_AT_SPLIT = re.compile(f"({_ID_AT.pattern})")


def _ids_joined(joined: str, at: list[int], spans: tuple[list[int], list[int]], found: list[list[tuple[int, Ref]]]) -> None:
    """The identifiers of `scan`, except those inside a link's or image's span. Two readings
    give the same identifiers (a test compares them): `_ID_AT` over the whole text (in C, but it
    stops at every capital) or `_ids` (a fast search for each `-<digits>`, then some Python for
    each): the first where dashes are dense, such as in short paragraphs that cite an ADR."""
    if len(joined) < 100 * joined.count("-"):
        # `split` with the whole match as a group gives text, identifier, text, ... with no
        # Match object per hit: each identifier starts where the parts before it end.
        parts = _ID_AT_SPLIT.split(joined)
        hits: Iterable[tuple[int, str]] = zip(list(itertools.accumulate(map(len, parts)))[0::2], parts[1::2])
    else:
        hits = _ids(joined)
    starts, ends = spans
    for pos, ident in hits:
        if starts:
            s = bisect.bisect_right(starts, pos) - 1
            if s >= 0 and pos < ends[s]:
                continue
        k = bisect.bisect_right(at, pos) - 1
        found[k].append((pos - at[k], _new(Ref, ("id", ident))))


# Where a "see" target may start, in the lower-cased joined text: "see" as a word, then
# `_SEE_REST` (atomic: never re-read to make the rest match), then a look ahead that accepts
# every start where `_see_target_at` holds and `targets` may list a "see" reference, and rejects
# most others in C: a quote or backtick; a link followed by a separator (a link alone is found
# as a link); a word with "/", ",", ";" or ".md"; a word followed by "and", "or" or "&".
# Lower-casing keeps "see", word characters, white space and `_SEE_REST`'s matches as they were
# (checked over all of Unicode); a NUL reads as the text's end.
_SEE_AT = re.compile(
    r"see(?<!\wsee)(?!\w)"
    r"(?>(?i:(?:\s+also)?\b[:\s]*(?:the\s+)?))"
    r"(?=[\"“`]"
    r"|\[(?:[^\]\[\0]|\[[^\]\0]*\])*\]\(\s*(?:<[^>\0]*>|[^)\s\0]+)[^)\0]*\)\s*(?:[,;&]|and|or)"
    r"|(?!\[)(?:[^\s\0]*?(?:[/,;]|\.md)|[^\s\0]++\s++(?:and|or|&)))"
)


def _see_refs(texts: list[str], lower: str, at: list[int], found: list[list[tuple[int, Ref]]]) -> None:
    """The "see" references of `scan`: each possible target (`_SEE_AT`) read in its own text as
    `_refs` reads it."""
    for m in _SEE_AT.finditer(lower):
        pos = m.end()
        k = bisect.bisect_right(at, pos) - 1
        text, local = texts[k], pos - at[k]
        if ("see" in text or "See" in text or "SEE" in text) and _see_target_at(text, local):
            found[k].extend((local, r) for r in targets(text, local) if r.kind == "see")


def _sorted_refs(found: list[tuple[int, Ref]]) -> tuple[Ref, ...]:
    """refs_in's last step: by offset (stably), without duplicates."""
    if len(found) < 2:
        return (found[0][1],) if found else ()
    found.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(r for _, r in found))


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
