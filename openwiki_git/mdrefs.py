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
from typing import NamedTuple

__all__ = ["RELATION_TYPES", "Ref", "Relation", "markers_in", "may_refer", "notable", "refs_in", "relations_in", "scan", "targets"]

RELATION_TYPES = ("supersedes", "superseded_by", "amends", "amended_by", "attaches_to")
_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)


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


MARKER = re.compile(r"\[\^(c-[0-9a-f]{8,32})\](?!:)")
# Inline links (not images), optional <...> target and title.
# Starts with a literal `[` (the regex engine then skips ahead fast); an image's `!` is checked by hand.
_LINK = re.compile(r'\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)')
_LINK_DEF = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
_ID = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9]*)-([0-9]+)(?![\w-])")
ID_TAIL = re.compile(r"-[0-9]+(?![\w-])")
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
        or ID_TAIL.search(text) is not None
    )


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


def relations_in(text: str, source: int) -> list[Relation]:
    """Status lines: "Superseded by ADR-0012", "Amends [ADR-0003](0003-x.md)", ..."""
    out = []
    for m in _STATUS_LINE.finditer(text):
        kind = next(name for name, _ in _VERBS if m.group(name))
        out.extend(Relation(kind, ref, source) for ref in targets(text, m.end()))
    return out


def meta_relations(meta: dict[str, str | list[str]]) -> list[Relation]:
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
        hits = zip(list(itertools.accumulate(map(len, parts)))[0::2], parts[1::2])
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
