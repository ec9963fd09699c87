"""The three-way merge of a sidecar and of a page: claim by claim, field by field; pages with
their generated parts merged apart from the prose. Pure: the merge driver (`merge-driver`, set up
by `install`) and the sharded refresh's merge call it with what they read. The rules (which side
wins a field both changed, sticky marks, retractions, true conflicts, the citations block and
the front matter of a page) are the merge driver's help: cli/commands/merge_driver.py.
"""

from __future__ import annotations

from collections.abc import Callable

from openwiki_git.formats.timestamps import instant
from openwiki_git.model import Claim, Mark, Sidecar
from openwiki_git.pages import citations
from openwiki_git.pages.frontmatter_core import boundary


def _newer(a: str | None, b: str | None) -> bool:
    """Is time stamp `a` later than `b`? (an unreadable or missing stamp is the oldest)"""
    ta, tb = instant(a), instant(b)
    if ta is None:
        return False
    return tb is None or ta > tb


def merge_marks(a: Mark | None, b: Mark | None) -> Mark | None:
    """Two marks of one claim as one: the worse status, the earlier `since`, every cause."""
    if a is None or b is None or a == b:
        return a or b
    causes = list(a.causes)
    causes.extend(c for c in b.causes if c not in causes)
    status = "unresolved" if "unresolved" in (a.status, b.status) else "stale"
    since, commit = (a.since, a.commit) if not _newer(a.since, b.since) else (b.since, b.commit)
    return Mark(status, since, tuple(causes), commit)  # type: ignore[arg-type]


def _three(o: object, a: object, b: object) -> tuple[object, bool]:
    """(merged value, whether both sides changed it differently)."""
    if a == b or b == o:
        return a, False
    if a == o:
        return b, False
    return a, True


def merge_claim(o: Claim | None, a: Claim, b: Claim) -> tuple[Claim, list[str]]:
    """Both sides kept the claim; returns the merged claim and the fields in true conflict."""
    conflicts: list[str] = []
    get = (lambda f: getattr(o, f)) if o is not None else (lambda f: None)
    statement, clash = _three(get("statement"), a.statement, b.statement)
    if clash:
        conflicts.append("statement")
    verification_a, verification_b = (a.verified_at, a.verified_by), (b.verified_at, b.verified_by)
    verification_o = (get("verified_at"), get("verified_by"))
    winner = a
    if verification_a != verification_b:
        if verification_a == verification_o:
            winner = b
        elif verification_b != verification_o and _newer(b.verified_at, a.verified_at):
            winner = b
    evidence, clash = _three(get("evidence"), a.evidence, b.evidence)
    if clash:
        evidence = winner.evidence
        same_items = [e.resource.split("#")[0] for e in a.evidence] == [e.resource.split("#")[0] for e in b.evidence]
        if verification_a == verification_b and not same_items:
            conflicts.append("evidence")
    mark, clash = _three(get("mark"), a.mark, b.mark)
    if clash:
        mark = merge_marks(a.mark, b.mark)
    merged = a.replace(
        statement=statement,
        evidence=evidence,
        verified_at=winner.verified_at,
        verified_by=winner.verified_by,
        mark=mark,
    )
    return merged, conflicts


def _mechanical(o: Claim, changed: Claim) -> bool:
    """Did this side only re-anchor or mark the claim (no edit, no verification)?"""
    same_items = [e.version for e in o.evidence] == [e.version for e in changed.evidence]
    return changed.statement == o.statement and changed.verified_at == o.verified_at and same_items


def merge(o: Sidecar | None, a: Sidecar, b: Sidecar) -> tuple[Sidecar, list[str]]:
    """The merged sidecar and a description of each true conflict (empty: clean)."""
    base = {c.id: c for c in (o.claims if o is not None else ())}
    ours = {c.id: c for c in a.claims}
    theirs = {c.id: c for c in b.claims}
    order = [c.id for c in a.claims] + [c.id for c in b.claims if c.id not in ours]
    out: list[Claim] = []
    conflicts: list[str] = []
    aliases = {**dict(b.aliases), **dict(a.aliases)}
    for cid in order:
        co, ca, cb = base.get(cid), ours.get(cid), theirs.get(cid)
        if ca == cb or cb == co:
            chosen = ca
        elif ca == co:
            chosen = cb
        elif ca is None or cb is None:
            kept = ca or cb
            assert kept is not None
            if cid in aliases:
                chosen = kept  # folded into another claim on one side (one claim per sentence): _folded takes it there
            elif co is not None and _mechanical(co, kept):
                chosen = None  # retracted on one side, only re-anchored or marked on the other
            else:
                chosen = kept
                side = "ours" if ca is None else "theirs"
                conflicts.append(f"{cid}: retracted on {side} side, edited or verified on the other; kept")
        else:
            chosen, fields = merge_claim(co, ca, cb)
            if fields:
                conflicts.append(f"{cid}: both sides changed its {' and '.join(fields)}; kept ours")
        if chosen is not None:
            out.append(chosen)
    verification, _ = _three(o.verification if o else None, a.verification, b.verification)
    out = _folded(out, aliases)
    live = {c.id for c in out}
    merged = a.replace(
        claims=tuple(out), verification=verification if out else None,
        aliases=tuple((old, new) for old, new in aliases.items() if old not in live),
        retracted=tuple(dict.fromkeys((*a.retracted, *b.retracted))),
    )
    return merged, conflicts


def _folded(claims: list[Claim], aliases: dict[str, str]) -> list[Claim]:
    """A claim one side folded into another (`lint --fix`: one claim per sentence) that the other
    side still has goes into the folded claim: its mark joins the folded claim's (stale if either
    was), its evidence the folded claim lacks is added."""
    by_id = {c.id: c for c in claims}
    for c in claims:
        target = by_id.get(aliases.get(c.id, ""))
        if target is None or target.id == c.id:
            continue
        have = {e.resource for e in target.evidence}
        by_id[target.id] = target.replace(
            mark=merge_marks(target.mark, c.mark), evidence=(*target.evidence, *(e for e in c.evidence if e.resource not in have))
        )
        del by_id[c.id]
    return [by_id[c.id] for c in claims if c.id in by_id]


# -- pages ------------------------------------------------------------------------------------

Merge3 = Callable[[str, str, str], tuple[str, bool]]


def split_page(text: str) -> tuple[str, str, str]:
    """(front matter with its fences, the prose, the generated citations block)."""
    sp = boundary(text)  # the one front-matter rule (frontmatter_core)
    front = "" if sp is None else text[: sp.body_start]
    text = text[len(front) :]
    begin = text.find(citations.BEGIN.split(" (", 1)[0])
    if begin < 0:
        return front, text, ""
    stop = text.find(citations.END, begin)
    if stop < 0:
        return front, text, ""
    stop += len(citations.END)
    if text[stop : stop + 1] == "\n":
        stop += 1
    return front, text[:begin] + text[stop:], text[begin:stop]


def _ours_on_conflict(merged: str) -> str:
    """Resolve every conflict hunk of a merge result to our side."""
    out: list[str] = []
    state = None
    for line in merged.splitlines(keepends=True):
        if line.startswith("<<<<<<< ") or line.rstrip("\n") == "<<<<<<<":
            state = "ours"
        elif state == "ours" and line.startswith("|||||||"):
            state = "base"
        elif state in ("ours", "base") and line.rstrip("\n") == "=======":
            state = "theirs"
        elif state == "theirs" and (line.startswith(">>>>>>> ") or line.rstrip("\n") == ">>>>>>>"):
            state = None
        elif state in (None, "ours"):
            out.append(line)
    return "".join(out)


def _footnotes(block: str) -> dict[str, str]:
    return {line.split("]:", 1)[0]: line for line in block.splitlines() if line.startswith("[^c-")}


def _merge_block(o: str, a: str, b: str) -> str:
    """Footnote by footnote: a line changed on one side takes it; changed on both, its links come
    from the side that changed them and its stale warning from the side that added it."""
    fo, fa, fb = _footnotes(o), _footnotes(a), _footnotes(b)
    labels = list(fa) + [k for k in fb if k not in fa]
    lines = []
    for label in labels:
        lo, la, lb = fo.get(label), fa.get(label), fb.get(label)
        line, clash = _three(lo, la, lb)
        if clash and la is not None and lb is not None:
            parts = [x.partition(" (\u26a0") if x is not None else (None, "", "") for x in (lo, la, lb)]
            links, _ = _three(parts[0][0], parts[1][0], parts[2][0])
            warn, _ = _three(parts[0][1] + parts[0][2], parts[1][1] + parts[1][2], parts[2][1] + parts[2][2])
            line = f"{links}{warn}"
        if line is not None:
            lines.append(str(line))
    if not lines:
        return ""
    return "\n".join([citations.BEGIN, *lines, citations.END]) + "\n"


def merge_page(o: str, a: str, b: str, merge3: Merge3) -> tuple[str, bool]:
    """The merged page and whether its prose conflicts (see the module docstring)."""
    (fo, po, bo), (fa, pa, ba), (fb, pb, bb) = split_page(o), split_page(a), split_page(b)
    prose, conflicted = merge3(po, pa, pb)
    front, clash = merge3(fo, fa, fb)
    if clash:
        front = _ours_on_conflict(front)
    block = _merge_block(bo, ba, bb)
    if block:
        prose = prose.rstrip("\n") + "\n\n" if prose.strip() else prose
    return front + prose + block, conflicted
