"""Why claims were marked, grouped: the kind of change an evidence item's reason names
("annotations changed", "code changed", "lines deleted", ...), and the claims of one change
grouped by (commit, kind), worst first. Every surface that shows many marks at once (the hook's
message, the PR comment, `review`, the health report) groups through here, so they agree.

Kinds are data: a reason this module has no rule for (a rule added later, "its sentence changed")
is its own kind, named by the reason's first clause with its particulars (line numbers, counts,
quoted code) left out, so new causes group without a change here. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from openwiki_git.evidence.kinds import Symbol, stored_kind

T = TypeVar("T")

ANNOTATIONS_ONLY = "annotations only"  # what a reason says of an edit that changed type annotations alone
# (pattern, kind): the first that matches a reason names its kind. Order matters: particular first.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), k) for p, k in (
    (r"^cosmetic: .*\bdocstring rewritten\b", "docstring rewritten"),  # marks a sentence: not mild
    (r"^cosmetic: .*\bdefaults changed\b", "defaults changed"),
    (r"^cosmetic: parameters added\b", "parameters added"),
    (r"^cosmetic: version bounds\b", "version bounds changed"),  # marks a sentence about versions
    (rf"\b{ANNOTATIONS_ONLY}\b|^cosmetic: annotations", "annotations changed"),
    (r"^cosmetic: comments", "comments changed"),
    (r"^cosmetic: ", "whitespace changed"),
    (r"lines deleted", "lines deleted"),
    (r"^deleted$|: deleted$|^\S+ deleted\b", "file deleted"),
    (r"^no definition named|: missing$|not tracked by git|: missing at ", "cited code gone"),
    (r"does not parse as Python", "cited file unreadable"),
    (r"lines inserted next to it", "lines inserted next to it"),
    (r"keeps its size|changed text grew", "cited text grew"),
    (r"^renamed to .*: ", "file renamed and changed"),
    (r"^new: |^gone: |members changed", "members changed"),
    (r"^definition \S+ changed|^(renamed and |still )?changed\b|^text changed|^changed since", "code changed"),
))
# Kinds that rarely make a statement false: listed after the others (worst first).
MILD = ("annotations changed", "comments changed", "whitespace changed")
_PARTICULARS = re.compile(r"\([^()]*\)|`[^`]*`|'[^']*'|\"[^\"]*\"|\bL\d+(-L\d+)?\b|\d+")


def annotations_only(reason: str) -> str:
    """`reason` for an edit that changed the cited code's type annotations alone (stale all the
    same, with `cosmetic_annotations: false`)."""
    return f"{reason}: {ANNOTATIONS_ONLY}"


def kind(reason: str) -> str:
    """The kind of change a reason names. "marked earlier: X" is X's kind."""
    reason = reason.strip()
    while reason.startswith("marked earlier: "):
        reason = reason.removeprefix("marked earlier: ")
    for pattern, name in _RULES:
        if pattern.search(reason):
            return name
    first = reason.split(":", 1)[0] if ":" in reason else reason
    return " ".join(_PARTICULARS.sub(" ", first).split()) or "changed"


def place_noun(resources: Iterable[str], n: int) -> str:
    """"definitions", "ranges" or "places" for the cited things a group's claims share."""
    kinds = {"definition" if isinstance(stored_kind(r), Symbol) else "range" if "#L" in r else "place" for r in resources}
    noun = kinds.pop() if len(kinds) == 1 else "place"
    return noun + ("" if n == 1 else "s")


@dataclass(frozen=True, slots=True)
class Cause:
    """One claim's cause as surfaces group it: the commit that made the change (None: not known,
    or the commit being made), the kind of change, and the cited things it changed."""

    commit: str | None
    kind: str
    unresolved: bool = False
    places: tuple[str, ...] = ()  # the cited resources it changed (as they are now, where known)

    @property
    def key(self) -> tuple[str | None, str, bool]:
        return (self.commit, self.kind, self.unresolved)


def cause_of(items: Sequence[tuple[str, str, str | None]]) -> Cause:
    """A claim's cause from its evidence items that are not fresh, as (status, reason, where):
    the worst item's kind (an unresolved item before a stale one), every item's place."""
    bad = [i for i in items if i[0] != "fresh"] or list(items)
    worst = next((i for i in bad if i[0] == "unresolved"), bad[0] if bad else ("stale", "changed", None))
    places = tuple(dict.fromkeys(w for _, _, w in bad if w))
    return Cause(None, kind(worst[1]), worst[0] == "unresolved", places)


def of_record(c: Mapping[str, Any]) -> Cause:
    """A check record's cause (claims/records.py's `claim_data`): its mark's causes, which say what
    the change that marked it was, else its evidence's reasons now."""
    mark = c.get("mark") or {}
    items = [(mark.get("status", "stale"), x.get("reason") or "", x.get("resource")) for x in mark.get("causes") or ()]
    if not items:
        items = [(e.get("status", "stale"), e.get("reason") or "", e.get("current_resource") or e.get("resource"))
                 for e in c.get("evidence", ())]
    return cause_of(items)


@dataclass(slots=True)
class Group(Generic[T]):
    """Claims with one cause: their records in the order given, and the places they cite."""

    cause: Cause
    members: list[T] = field(default_factory=list)
    places: dict[str, None] = field(default_factory=dict)  # ordered set

    def describe(self) -> str:
        """`annotations changed in 40 definitions: 133 claims`."""
        n, m = len(self.places), len(self.members)
        where = f" in {n} {place_noun(self.places, n)}" if n else ""
        lost = ", not found now" if self.cause.unresolved else ""
        return f"{self.cause.kind}{where}{lost}: {m} claim{'s' if m != 1 else ''}"


def group(records: Iterable[T], cause: Callable[[T], Cause]) -> list[Group[T]]:
    """`records` grouped by cause (commit, kind, unresolved), worst first: unresolved groups, then
    groups of a kind other than MILD, then the mild ones; within each, the largest first, then in
    the order the records came. Members keep the order given."""
    groups: dict[Hashable, Group[T]] = {}
    for r in records:
        c = cause(r)
        g = groups.get(c.key)
        if g is None:
            g = groups[c.key] = Group(Cause(c.commit, c.kind, c.unresolved))
        g.members.append(r)
        g.places.update(dict.fromkeys(c.places))
    order = {k: i for i, k in enumerate(groups)}
    return sorted(groups.values(), key=lambda g: (not g.cause.unresolved, g.cause.kind in MILD, -len(g.members), order[g.cause.key]))
