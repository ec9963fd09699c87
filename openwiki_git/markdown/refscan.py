"""The claim markers and references of many paragraphs at once, and the cheap test of which
paragraphs need reading at all (`notable`). Pure.

`scan` gives, for each text, what refs.py's `markers_in` and `refs_in` give it alone (a test
compares them on random texts): each regex runs once over the texts joined by NUL, and its
matches are dealt out by offset. A document's paragraphs are scanned this way (split.py).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable

from openwiki_git.markdown.refs import (
    BARE_ID,
    ID_TAIL,
    Ref,
    ids_in,
    link_target,
    markers_in,
    may_hold_bare_id,
    refs_in,
    see_target_at,
    targets,
)
from openwiki_git.markdown.relations import may_relate
from openwiki_git.pages.markers import ANY, COMMENT_OPENING, MARKER, may_hold

__all__ = ["notable", "scan"]

_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)


def notable(text: str) -> bool:
    """May carry a claim marker (a footnote has `]`, a comment `<!--`), a link (`]`), an
    identifier, a "see" or a relation. Eight substring scans: on a large corpus, scanning the
    text is most of the splitter's cost."""
    return (
        "]" in text
        or COMMENT_OPENING in text
        or "see" in text
        or "See" in text
        or ("-" in text and ID_TAIL.search(text) is not None)
        or "upersed" in text
        or "mend" in text
        or "ttach" in text
        or "SEE" in text
        or may_hold_bare_id(text)
        or may_relate(text)
    )


def scan(texts: list[str]) -> tuple[list[tuple[str, ...] | None], list[tuple[Ref, ...]]]:
    """For each text: `markers_in(text)` if it may hold a marker (markers.may_hold: "[^c-" or
    "<!--"; None otherwise), and `refs_in(text)`.

    A paragraph costs a dozen regex and function calls when read alone, more than its text's
    length does: here each regex runs once over the texts joined by NUL, and its matches are
    dealt out by offset. The patterns used on the joined text (`_LINK_JOINED`, `_LINK_DEF_JOINED`,
    `_ID_AT`, `_SEE_AT`) are those of `refs_in` with a NUL read as a text's end, so each text
    gives what `refs_in` gives (a test compares them on random texts). A text holding a NUL,
    or whose lower-casing changes its length (refs.py's `_sees` reads "see" in the lower-cased text), is
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
            target = link_target(m.group(1))
            if target:
                k = bisect.bisect_right(at, m.start()) - 1
                found[k].append((m.start() - at[k], _new(Ref, ("link", target))))
    if "-" in joined:
        _ids_joined(joined, at, spans, found)
    if may_hold_bare_id(joined):
        starts, ends = spans
        for m in BARE_ID.finditer(joined):
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
    less than dealing out the matches of the joined text by offset; most texts carry one. Texts
    that may hold a comment marker are read with the pattern of either form."""
    if COMMENT_OPENING in joined:
        return [(tuple(dict.fromkeys(found)) if found else ()) if may_hold(t) else None
                for found, t in zip(map(ANY.findall, texts), texts)]
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
        markers[k] = markers_in(texts[k]) if may_hold(texts[k]) else None
        refs[k] = refs_in(texts[k])
    return markers, refs


# refs.py's `LINK` and `_LINK_DEF` with a NUL read as a text's end: no class matches a NUL, and a line
# (`^`) also starts after one. Their matches in the joined text are those in each text.
_LINK_JOINED = re.compile(
    r"\[(?:[^\]\[\0]|\[[^\]\0]*\])*\]\(\s*(<[^>\0]*>|[^)\s\0]+)"
    r"(?:\s+(?:\"[^\"\0]*\"|'[^'\0]*'|\([^)\0]*\)))?\s*\)"
)
_LINK_DEF_JOINED = re.compile(r"(?<![^\n\0]) {0,3}\[(?!\^)[^\]\0]+\]:\s*(<[^>\0]*>|[^\s\0]+)")


def _links_joined(joined: str, at: list[int], found: list[list[tuple[int, Ref]]]) -> tuple[list[int], list[int]]:
    """The inline links of `scan` (refs.py's `_refs`' first step); returns the (starts, ends) of all link
    and image spans, in order: an identifier inside one is not a reference."""
    starts, ends = [], []
    for m in _LINK_JOINED.finditer(joined):
        s = m.start()
        starts.append(s)
        ends.append(m.end())
        if s and joined[s - 1] == "!":
            continue  # an image (a text's first character is preceded by a NUL, never "!")
        target = link_target(m.group(1))
        if target:
            k = bisect.bisect_right(at, s) - 1
            found[k].append((s - at[k], _new(Ref, ("link", target))))
    return starts, ends


# refs.py's `_ID` with its look behind after the first capital: the engine then skips to capital letters
# quickly (a pattern opening with a look behind is tried at every character).
_ID_AT = re.compile(r"[A-Z](?<![\w/.-][A-Z])[A-Z0-9]*+-[0-9]++(?![\w-])")
_ID_AT_SPLIT = re.compile(f"({_ID_AT.pattern})")


def _ids_joined(joined: str, at: list[int], spans: tuple[list[int], list[int]], found: list[list[tuple[int, Ref]]]) -> None:
    """The identifiers of `scan`, except those inside a link's or image's span. Two readings
    give the same identifiers (a test compares them): `_ID_AT` over the whole text (in C, but it
    stops at every capital) or `ids_in` (a fast search for each `-<digits>`, then some Python for
    each): the first where dashes are dense, such as in short paragraphs that cite an ADR."""
    if len(joined) < 100 * joined.count("-"):
        # `split` with the whole match as a group gives text, identifier, text, ... with no
        # Match object per hit: each identifier starts where the parts before it end.
        parts = _ID_AT_SPLIT.split(joined)
        hits: Iterable[tuple[int, str]] = zip(list(itertools.accumulate(map(len, parts)))[0::2], parts[1::2])
    else:
        hits = ids_in(joined)
    starts, ends = spans
    for pos, ident in hits:
        if starts:
            s = bisect.bisect_right(starts, pos) - 1
            if s >= 0 and pos < ends[s]:
                continue
        k = bisect.bisect_right(at, pos) - 1
        found[k].append((pos - at[k], _new(Ref, ("id", ident))))


# Where a "see" target may start, in the lower-cased joined text: "see" as a word, then
# refs.py's `_SEE_REST` (atomic: never re-read to make the rest match), then a look ahead that accepts
# every start where `see_target_at` holds and `targets` may list a "see" reference, and rejects
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
    refs.py's `_refs` reads it."""
    for m in _SEE_AT.finditer(lower):
        pos = m.end()
        k = bisect.bisect_right(at, pos) - 1
        text, local = texts[k], pos - at[k]
        if ("see" in text or "See" in text or "SEE" in text) and see_target_at(text, local):
            found[k].extend((local, r) for r in targets(text, local) if r.kind == "see")


def _sorted_refs(found: list[tuple[int, Ref]]) -> tuple[Ref, ...]:
    """refs_in's last step: by offset (stably), without duplicates."""
    if len(found) < 2:
        return (found[0][1],) if found else ()
    found.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(r for _, r in found))
