"""Relations and statuses a Markdown document declares: supersedes, amends, attaches to, and a
status such as "Accepted". Pure: text in, records out; nothing here resolves a target. The
wordings each is read in: split.py's docstring.

`relations_in` reads a text's status lines, `section_status` a "Status" section (Nygard's
layout), `meta_relations` the front-matter keys. Targets are read as refs.py reads them.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from openwiki_git.markdown.refs import LINK, Ref, link_target, targets_with_text

__all__ = ["RELATION_TYPES", "STATUS_WORDS", "Relation", "may_relate", "meta_relations", "relations_in", "section_status", "status_of"]

RELATION_TYPES = ("supersedes", "superseded_by", "amends", "amended_by", "attaches_to")


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


def _relation_targets(text: str, pos: int = 0) -> list[tuple[Ref, str]]:
    """`targets_with_text` as a relation reads them: an identifier without a dash is an identifier."""
    return [(Ref("id", ref.target) if ref.kind == "rid" else ref, label) for ref, label in targets_with_text(text, pos)]


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
    for m in LINK.finditer(text):
        target = link_target(m.group(1))
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
