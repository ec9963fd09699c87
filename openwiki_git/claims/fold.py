"""One claim per sentence: the claims that one sentence carries (their markers follow it) folded
into one. Pure: a page's text and its sidecar in, the folded sidecar and the page's new text out.
`lint --fix` folds; `lint` reports what it would fold.

The folded claim keeps the id of the sentence's first marker (the other ids become the sidecar's
`aliases`, so `claim show OLD`, an old marker met in a merge, the graph and the agents' tools
still find it); its statement is the sentence as the page says it, when one of the claims
stated it (else the first claim's statement, which `lint` then reports as differing from the
prose, for a person to restate); its evidence is every item of every claim, each resource once
(a resource two claims cite keeps the older token: the one of a marked claim, else of the earlier
verification). It is fresh only if all were (the marks are merged: the worst status, the
earliest `since`, every cause) and it keeps the earliest verification.
"""

from __future__ import annotations

from openwiki_git.claims.merge import merge_marks
from openwiki_git.formats.timestamps import instant
from openwiki_git.model import Claim, Evidence, Sidecar
from openwiki_git.pages import citations, rst_markers, sentences
from openwiki_git.pages.frontmatter_core import body_start


def shared(text: str, claims: tuple[Claim, ...]) -> list[list[Claim]]:
    """The groups of two or more claims whose markers follow one sentence of the prose, in the
    page's order; on a page without markers, claims with the same statement."""
    body = body_start(text)
    found = sentences.blocks(text, body)
    first = citations.first_markers(text, body)
    rst = ".. c-" in text and bool(rst_markers.labels_in(text))
    by_key: dict[object, list[Claim]] = {}
    for c in claims:
        at = first.get(citations.label(c.id))
        if rst:  # a marker line follows a paragraph (or a code example): one sentence of it, by its statement
            para = citations.rst_paragraph(text, c.id)
            key: object = ("alone", c.id) if para is None else ("paragraph", para[0], " ".join(c.statement.split()))
            first.setdefault(citations.label(c.id), para[0] if para is not None else len(text))
        elif at is None:
            key = ("statement", " ".join(c.statement.split())) if not first else ("alone", c.id)
        else:
            span = sentences.before(text, at, body, found)
            key = ("sentence", span.start if span is not None else at)
        by_key.setdefault(key, []).append(c)
    groups = [g for g in by_key.values() if len(g) > 1]
    return sorted(
        ([*sorted(g, key=lambda c: first.get(citations.label(c.id), len(text)))] for g in groups),
        key=lambda g: first.get(citations.label(g[0].id), len(text)),
    )


def fold(group: list[Claim], statement: str) -> Claim:
    """The group folded into its first claim (see the module docstring). `statement`: the
    sentence as the page says it (markers aside)."""
    kept = group[0]
    order = sorted(group, key=_verified_key)
    evidence: dict[str, Evidence] = {}
    for c in [*(c for c in order if c.mark is not None), *(c for c in order if c.mark is None)]:
        for e in c.evidence:
            evidence.setdefault(e.resource, e)
    resources = list(dict.fromkeys(e.resource for c in group for e in c.evidence))
    mark = None
    for c in group:
        mark = merge_marks(mark, c.mark)
    stated = any(" ".join(c.statement.split()) == statement for c in group)
    earliest = order[0]
    return kept.replace(
        statement=statement if stated else kept.statement, evidence=tuple(evidence[r] for r in resources), mark=mark,
        verified_at=earliest.verified_at, verified_by=earliest.verified_by,
    )


def fold_page(text: str, sidecar: Sidecar) -> tuple[Sidecar, str]:
    """Every group of the page folded: the sidecar (the folded claims in place of the first of
    each group, the others' ids as aliases) and the page without the others' markers."""
    claims = list(sidecar.claims)
    aliases = dict(sidecar.aliases)
    for group in shared(text, sidecar.claims):
        said = citations.prose_before(text, group[0].id)
        merged = fold(group, said or " ".join(group[0].statement.split()))
        gone = {c.id for c in group[1:]}
        claims = [merged if c.id == merged.id else c for c in claims if c.id not in gone]
        for old in gone:
            text = citations.remove_marker(text, old)
            aliases[old] = merged.id
        aliases = {old: (merged.id if new in gone else new) for old, new in aliases.items()}
    return sidecar.replace(claims=tuple(claims), aliases=tuple(aliases.items())), text


def _verified_key(c: Claim) -> tuple[int, float]:
    at = instant(c.verified_at)
    return (0, at.timestamp()) if at is not None else (1, 0.0)

