"""Claims and a diff in, per-evidence outcomes out: what the hook marks and CI reports. Pure.

One cohesive thing: the judging of an evidence item, whose old-side and new-side paths call each
other and share the engine's options and the diff's sides (diff_texts.py reads those; outcomes.py
holds the records it returns).

The evidence of a claim is read on one of two bases:

- **old side** (the claim is as it was on the old side of the diff, e.g. unchanged since HEAD):
  its `#Lx-Ly` are old-side line numbers, so the range is mapped through the file's hunks
  (diffmap). An untouched file is fresh and never read; a rename is followed; a hunk over the
  range makes it stale with that hunk as the cause; a deleted file is unresolved. Before the
  diff is trusted, the range is checked against the old blob: when it does not hash to the
  stored version (the sidecar was edited by hand, or committed without the hook), the evidence
  is judged on the new side instead. A marked claim's stale range is ours (it has followed its
  text since it went stale), so it is mapped without that check.
- **new side** (the item is new, or cites other text than on the old side: a person re-pointed
  it, `claim confirm` verified changed text): the range is located on the new side with
  evidence/relocation.py's `relocate`.

Which basis an evidence item takes is decided by what it cites, not by who last wrote it: an item
whose verified text (the content hash of its token; a whole file's token) is the one its
old-side counterpart cites is judged through the diff *from the old side*, whatever its current
line numbers. An earlier run of the hook on the same diff, or `check --fix`, only re-anchored it
or followed its changed text; judging it again from the old side gives the same answer, so a
second run writes nothing (the hook converges in one run). A mark written by an earlier run on
the same base (`mark.commit` is the diff's old side) is recomputed the same way, keeping its
`since`, so a re-run leaves it as it is and a revert staged since drops it.

A changed range never grows past `range_limit()` (evidence/relocation.py) of its cited size:
beyond it, the range keeps its cited size (starting where its first line is now) and the reason
says that the new extent needs a person or the refresher.

Cited text that a hunk removed is followed when it appears unchanged in exactly one place among
the lines the diff adds (same file or another: a function moved between modules, a file split
in two, a rename git's similarity misses); with several such places, the stored context anchors
must single one out.

A claim found stale or unresolved is marked (`model.Mark`) with one cause per evidence item; an
existing mark is never cleared here (only verification or `check --fix` on a revert do that).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from openwiki_git.claims import causes, kinds, relevance, signature_edits
from openwiki_git.claims import freshness as checker
from openwiki_git.claims.diff_texts import MODE_GITLINK, MODE_LINK, DiffTexts, Reader
from openwiki_git.claims.outcomes import ClaimOutcome, EvidenceOutcome
from openwiki_git.claims.symbols import for_claim
from openwiki_git.diff import cosmetic, units
from openwiki_git.diff import hunks as diffmap
from openwiki_git.diff.hunks import FileChange, Hunk, context_kept
from openwiki_git.evidence.kinds import Kind, looks_like_kind, parse_kind
from openwiki_git.evidence.relocation import GROWTH_FACTOR, GROWTH_LINES, bounded, relocate
from openwiki_git.evidence.resolver import LineIndex
from openwiki_git.evidence.resource import REPO_PREFIX, Resource, ResourceError, canonical_parts, parse_resource
from openwiki_git.evidence.tokens import Anchors, decode_anchors, lines_version
from openwiki_git.model import Claim, Evidence, FileText, Mark, Status, worst

__all__ = ["Engine", "Options"]


@dataclass(frozen=True, slots=True)
class Options:
    now: str  # ISO 8601 with offset: a new mark's `since`
    adjacent_insert: str = "fresh"
    max_growth: int = 200
    commit: str | None = None  # the old side's commit, recorded in new marks
    wiki_dir: str = ".openwiki"
    cosmetic_edits: str = "fresh"  # a cosmetic edit (cosmetic.py): "fresh" (re-anchored), "mark" (stale, reason cosmetic), "stale"
    cosmetic_annotations: bool | None = None  # None: by each claim's sentence (claims/relevance.py)
    cosmetic_parameters_added: bool | None = None  # a head's parameters added or defaults changed (kinds.py); None: by sentence
    growth_factor: int = GROWTH_FACTOR  # a changed range's bound: range_limit()
    growth_lines: int = GROWTH_LINES


def _lines(res: Resource) -> tuple[int, int] | None:
    return (res.start, res.end) if res.start is not None and res.end is not None else None


class Engine:
    """Judges claims against one diff, whose sides (diff_texts.py) read each file at most once,
    lazily: a file the diff does not touch is never read on the old-side basis."""

    def __init__(self, changes: Sequence[FileChange], read_old: Reader, read_new: Reader, options: Options) -> None:
        self.options = options
        self.sides = DiffTexts(changes, read_old, read_new, options.wiki_dir)

    # -- claims ------------------------------------------------------------------------------
    def claim_outcome(self, page: str, prev: Claim | None, cur: Claim) -> ClaimOutcome:
        """`cur` as stored now; `prev` the claim with the same id on the old side (None: new)."""
        outcomes: list[EvidenceOutcome] = []
        affected = prev is None or prev.evidence != cur.evidence or prev.mark != cur.mark
        trusted = prev is not None and prev.mark is not None
        ours = self._ours(prev, cur)
        marked = cur.replace(mark=prev.mark) if ours and prev is not None else cur  # the mark as it stands
        options = self.options

        def marks(reason: str) -> bool:  # a cosmetic edit that still matters to this claim's sentence
            return relevance.marks(
                cur.statement, reason, edits=options.cosmetic_edits, annotations=options.cosmetic_annotations,
                parameters=options.cosmetic_parameters_added,
            )

        for i, ev in enumerate(cur.evidence):
            kind = _kind(ev)
            if kind is not None:  # a definition or a set (claims/kinds.py)
                edits = self.options.cosmetic_edits if cur.mark is None else "stale"
                got = kinds.through_diff(
                    kind, ev, self.sides, cosmetic_edits=edits, annotations=self.options.cosmetic_annotations,
                    parameters=self.options.cosmetic_parameters_added, marks=marks,
                )
                got = None if got is None else for_claim(got, cur.id, [e.resource for e in cur.evidence])  # a moved hint's command
                outcomes.append(got if got is not None else self._untouched(ev, marked))
                affected = affected or got is not None
                continue
            base = _old_counterpart(prev, cur, i)
            if base is not None:
                o, touched = self._through_diff(base, marked, trusted)
                o = self._settle(ev, base, o)
                affected = affected or touched
            else:
                o = self._on_new_side(ev, cur.mark is not None)
            recognise = cur.mark is None and self.options.cosmetic_edits != "stale"
            if o.status == "stale" and (recognise or o.hunks):  # a marked claim's edit read only when the diff touched it
                o = self._cosmetic(o, marks, recognise=recognise)
            outcomes.append(o)
        evidence = tuple(o.after for o in outcomes)
        mark = self._mark(marked.mark, cur.mark if ours else None, outcomes)
        after = cur if evidence == cur.evidence and mark == cur.mark else cur.replace(evidence=evidence, mark=mark)
        return ClaimOutcome(page, cur, after, self.decide(outcomes, after), tuple(outcomes), affected)

    def unaffected(self, prev: Claim | None, cur: Claim) -> bool:
        """Whether `claim_outcome(page, prev, cur)` would find the claim unaffected, known without judging
        it: the claim is as on the old side, and no item of it is a definition or a set or cites a
        file the diff changes (claim_outcome's own tests, reading nothing). The hook skips these claims of
        the pages it loads: most claims of a page cite files the diff leaves alone."""
        if prev is None or (prev is not cur and prev != cur):
            return False
        for ev in cur.evidence:
            if _kind(ev) is not None:
                return False
            plain = canonical_parts(ev.resource)  # the path parse_resource gives, without the grammar
            res = _parse(ev.resource) if plain is None else None
            path = plain[0] if plain is not None else res.path if res is not None else None
            if path is not None and path in self.sides.by_old:
                return False
        return True

    # -- the one place where a claim's status is decided ---------------------------------------
    def decide(self, outcomes: Sequence[EvidenceOutcome], after: Claim) -> Status:
        """The claim's status from its evidence outcomes. Each item's outcome is decided in one
        place, the loop of `claim_outcome` (old side: `_through_diff` then `_settle`; new side:
        `_on_new_side`); a check that re-decides a stale outcome (cosmetic edits) goes right after
        it, in that loop. A mark stays until something verifies the claim."""
        status = worst([o.status for o in outcomes])
        if status == "fresh" and after.mark is not None:
            status = "stale"
        return status

    def _settle(self, ev: Evidence, base: Evidence, o: EvidenceOutcome) -> EvidenceOutcome:
        """The old-side outcome `o` of `base`, reported for the item as stored now (`ev`). When `ev`
        was re-anchored since the old side (by an earlier run, `check --fix`) and still points at
        its verified text on the new side, it is kept as it is: re-anchoring twice is a no-op."""
        if ev == base and o.cited is None:
            return o  # the item is stored as the old side cites it: `o` is already about it
        after = o.after
        if ev != base and o.status == "fresh" and after != ev and self._holds(ev):
            after = ev
        return dataclasses.replace(o, before=ev, after=after, cited=base.resource if base != ev else None)

    def _holds(self, ev: Evidence) -> bool:
        """Whether the new side has the item's verified text at its own lines."""
        res = _parse(ev.resource)
        if res is None:
            return False
        _, idx = self.sides.new_file(res.path)
        if idx is None:
            return False
        if not res.is_range:
            return idx.file_version == ev.version
        parsed = decode_anchors(ev.version)
        assert res.start is not None and res.end is not None
        return parsed is not None and res.end <= len(idx) and idx.span_hash(res.start - 1, res.end) == parsed[0]

    def _ours(self, prev: Claim | None, cur: Claim) -> bool:
        """Whether `cur`'s mark was written by an earlier run on this same base (the old side
        does not have it): then it is recomputed from the old side's."""
        mark = cur.mark
        return mark is not None and prev is not None and mark != prev.mark and mark.commit == self.options.commit

    def _mark(self, mark: Mark | None, earlier: Mark | None, outcomes: list[EvidenceOutcome]) -> Mark | None:
        """The mark to store, from the mark as it stands (`mark`). `earlier`: the mark an earlier
        run on this base wrote, kept as it is (its `since`) when it says the same."""
        bad = [o for o in outcomes if o.status != "fresh"]
        if not bad:
            return mark
        status: Literal["stale", "unresolved"] = "unresolved" if any(o.status == "unresolved" for o in bad) else "stale"
        if mark is None:
            new = Mark(status, self.options.now, tuple(o.cause() for o in bad), self.options.commit)
            if earlier is not None and (earlier.status, earlier.causes) == (new.status, new.causes):
                return earlier
            return new
        if status == "unresolved" and mark.status != "unresolved":
            return Mark("unresolved", mark.since, mark.causes, mark.commit)
        return mark

    def _cosmetic(self, o: EvidenceOutcome, marks: Callable[[str], bool], *, recognise: bool) -> EvidenceOutcome:
        """A stale range whose edit leaves the code's tokens the same is fresh at its new lines,
        re-anchored there, with the reason (`cosmetic: comments`), when `recognise` (a marked
        claim stays marked), unless the edit still marks the claim (`marks`: claims/relevance.py):
        then it stays stale, with that reason; one whose edit changed its type annotations alone,
        with annotations compared (`cosmetic_annotations: false`), stays stale and its reason says
        so. The verified text is read on the old side, where the stored version locates it."""
        ev = o.before
        try:
            old = parse_resource(o.cited or ev.resource, wiki_dir="\0")
            new = parse_resource(o.current_resource or "", wiki_dir="\0")
        except ResourceError:
            return o
        if not (old.is_range and new.is_range and new.start and new.end):
            return o
        old_ft, old_idx = self.sides.old_file(old.path)
        new_ft, new_idx = self.sides.new_file(new.path)
        if old_ft.text is None or old_idx is None or new_idx is None:
            return o
        verified = checker.verified_span(old, old_ft.text, old_idx, ev.version)
        if verified is None:
            return o
        span = (new.start, new.end)
        reason = signature_edits.range_cosmetic(
            new.path, old_idx.lines, new_idx.lines, verified, span,
            annotations=self.options.cosmetic_annotations, parameters=self.options.cosmetic_parameters_added,
        )
        if reason is None:
            if not self.options.cosmetic_annotations and cosmetic.compare(
                new.path, old_idx.lines, new_idx.lines, old_span=verified, new_span=span, annotations=True
            ):  # stale all the same: the reason says the annotations alone changed
                return dataclasses.replace(o, reason=causes.annotations_only(o.reason))
            return o
        if marks(reason):  # stale, with the reason the refresher confirms on
            return dataclasses.replace(o, reason=reason)
        if not recognise:
            return o
        return self._fresh_at(ev, new.path, span, new_ft, new_idx, o.old_lines, o.hunks, reason)

    # -- old-side basis: through the diff ----------------------------------------------------
    def _through_diff(self, ev: Evidence, claim: Claim, trusted: bool) -> tuple[EvidenceOutcome, bool]:
        """`ev` as cited on the old side, through the diff (`claim`: with the mark as it stands).
        `trusted`: the old side's claim is marked, so its ranges have followed their (changed)
        text since it went stale: they are old-side line numbers even though the verified version
        no longer hashes there."""
        try:
            res = parse_resource(ev.resource, wiki_dir="\0")
        except ResourceError as e:
            return EvidenceOutcome(ev, ev, "unresolved", str(e), None), False
        change = self.sides.by_old.get(res.path)
        if change is None:
            return self._untouched(ev, claim), False
        return self._changed(ev, res, change, trusted), True

    def _untouched(self, ev: Evidence, claim: Claim | None) -> EvidenceOutcome:
        """The diff does not touch the file: nothing to read; a marked item stays as it was."""
        cause = checker.cause_for(claim, ev.resource) if claim is not None else None
        if claim is not None and claim.mark is not None and cause is not None:
            return EvidenceOutcome(ev, ev, claim.mark.status, f"marked earlier: {cause.reason}", ev.resource)
        return EvidenceOutcome(ev, ev, "fresh", "not changed", ev.resource)

    def _changed(self, ev: Evidence, res: Resource, change: FileChange, trusted: bool) -> EvidenceOutcome:
        new_path = change.new_path
        if new_path is None or change.status == "deleted":
            return self._gone(ev, res, change, "deleted")
        if change.new_mode == MODE_GITLINK:
            return self._gone(ev, res, change, "replaced by a submodule")
        if change.new_mode == MODE_LINK:
            return self._gone(ev, res, change, "replaced by a symlink (refused)")
        new_ft, new_idx = self.sides.new_file(new_path)
        if new_ft.text is None or new_idx is None:
            return self._gone(ev, res, change, new_ft.problem or "unreadable")
        old_ft, old_idx = self.sides.old_file(res.path)
        if old_ft.text is None or old_idx is None:
            return self._on_new_side(ev, trusted, path=new_path, note="the old side is unreadable; ")
        if not res.is_range:
            return self._whole_file(ev, res, change, old_idx, new_ft, new_idx, trusted)
        assert res.start is not None and res.end is not None
        parsed = decode_anchors(ev.version)
        if parsed is None:
            return self._on_new_side(ev, trusted, path=new_path)
        content_hash = parsed[0]
        in_range = res.end <= len(old_idx)
        matches = in_range and old_idx.span_hash(res.start - 1, res.end) == content_hash
        if not matches and not (trusted and in_range):
            note = "the sidecar's range did not match the old side; "
            return self._on_new_side(ev, trusted, path=new_path, note=note)
        m = diffmap.map_range(res.start, res.end, change.hunks, adjacent_insert=self.options.adjacent_insert)
        old_lines = (res.start, res.end)
        renamed = new_path != res.path
        if m.status == "fresh" or (m.status == "stale" and m.adjacent):
            assert m.start is not None and m.end is not None
            now_same = new_idx.span_hash(m.start - 1, m.end) == content_hash if m.end <= len(new_idx) else False
            if now_same and m.status == "fresh":
                keep = matches and context_kept(res.start, res.end, len(old_idx), (m.start, m.end), len(new_idx), change.hunks)
                return self._fresh_at(
                    ev, new_path, (m.start, m.end), new_ft, new_idx, old_lines, m.hunks, same_context=keep, cited_path=res.path
                )
            if now_same and not matches:  # a marked range whose text is back to the verified one
                return self._fresh_at(ev, new_path, (m.start, m.end), new_ft, new_idx, old_lines, m.hunks, cited_path=res.path)
            # An adjacent insert makes the range stale only under `adjacent_insert: stale`; under
            # `fresh` a range that does not hash is stale because its text still differs.
            if m.status == "stale" and m.adjacent:
                reason = f"lines inserted next to it (adjacent_insert: {self.options.adjacent_insert})"
            else:
                reason = "still changed"
            blob = change.old_blob if matches else None
            return self._stale_at(ev, new_path, (m.start, m.end), old_lines, m.hunks, reason, renamed, blob, len(new_idx))
        moved = self._moved(ev, content_hash, parsed[1])
        if moved is not None:
            return moved
        blob = change.old_blob if matches else None
        if m.status == "deleted":
            return EvidenceOutcome(
                ev, ev, "unresolved", "lines deleted", None, m.hunks, old_lines, None, new_path if renamed else None,
                verified_blob=blob,
            )
        followed = units.follow(new_path, old_ft.text, new_ft.text, res.start, res.end) if matches else None
        return self._rewritten(ev, new_path, m, followed, old_lines, renamed, blob, len(new_idx))

    def _rewritten(
        self, ev: Evidence, path: str, m: diffmap.Mapped, followed: tuple[int, int] | None, old_lines: tuple[int, int],
        renamed: bool, blob: str | None, n_lines: int,
    ) -> EvidenceOutcome:
        """A hunk changed the cited lines: stale where the hunks put them, or (`followed`) where the
        same parameters, assignment or definition are now by name (diff/units.py), all of its lines."""
        reason = "renamed and changed" if renamed else "changed"
        if followed is not None:
            return self._stale_at(ev, path, followed, old_lines, m.hunks, reason, renamed, blob, syntax=True)
        assert m.start is not None and m.end is not None
        return self._stale_at(ev, path, (m.start, m.end), old_lines, m.hunks, reason, renamed, blob, n_lines)

    def _whole_file(
        self,
        ev: Evidence,
        res: Resource,
        change: FileChange,
        old_idx: LineIndex,
        new_ft: FileText,
        new_idx: LineIndex,
        trusted: bool,
    ) -> EvidenceOutcome:
        new_path = change.new_path
        assert new_path is not None
        renamed = new_path != res.path
        resource = Resource(new_path).canonical
        if new_idx.file_version == ev.version:
            after = ev if not renamed else Evidence(resource, ev.version, new_ft.blob)
            reason = f"renamed from {res.path}" if renamed else "unchanged"
            moved_to = new_path if renamed else None
            return EvidenceOutcome(ev, after, "fresh", reason, resource, (), None, None, moved_to, ev.version, new_ft.blob)
        if old_idx.file_version != ev.version and not trusted:
            return self._on_new_side(ev, trusted, path=new_path, note="the sidecar's version did not match the old side; ")
        after = ev if not renamed else Evidence(resource, ev.version, ev.blob)
        reason = "renamed and changed" if renamed else "changed"
        return EvidenceOutcome(
            ev, after, "stale", reason, resource, change.hunks, None, None, new_path if renamed else None,
            new_idx.file_version, new_ft.blob,
        )

    def _fresh_at(
        self,
        ev: Evidence,
        path: str,
        span: tuple[int, int],
        ft: FileText,
        idx: LineIndex,
        old_lines: tuple[int, int] | None,
        hunks: tuple[Hunk, ...] = (),
        reason: str | None = None,
        *,
        same_context: bool = False,
        cited_path: str | None = None,
    ) -> EvidenceOutcome:
        """The verified text is unchanged at `span` of `path` on the new side: re-anchor it there
        (`same_context`: its 3-line contexts are known unchanged too, so is the token; `cited_path`:
        the path `ev` cites, when the caller has parsed it)."""
        resource = Resource(path, span[0], span[1]).canonical
        token = ev.version if same_context else lines_version(idx.lines, span[0] - 1, span[1])
        after = ev if (resource, token) == (ev.resource, ev.version) else Evidence(resource, token, ft.blob)
        if reason is None:
            reason = "unchanged" if resource == ev.resource else f"moved to {resource.removeprefix(REPO_PREFIX)}"
        if cited_path is None:
            cited_path = parse_resource(ev.resource, wiki_dir="\0").path
        moved_path = path if path != cited_path else None
        return EvidenceOutcome(ev, after, "fresh", reason, resource, (), old_lines, span, moved_path, token, ft.blob)

    def _stale_at(
        self,
        ev: Evidence,
        path: str,
        span: tuple[int, int],
        old_lines: tuple[int, int],
        hunks: tuple[Hunk, ...],
        reason: str,
        renamed: bool,
        verified_blob: str | None = None,
        n_lines: int | None = None,
        *,
        syntax: bool = False,
    ) -> EvidenceOutcome:
        """Changed text: the range follows it to `span` of `path`; the verified version is kept.
        A span past the growth bound keeps the cited size instead (from its first line); with
        `syntax`, `span` is the extent of the cited syntax (diff/units.py) and is not bounded."""
        note = ""
        if not syntax:
            cited = old_lines[1] - old_lines[0] + 1
            parsed = decode_anchors(ev.version)
            if parsed is not None:
                cited = int(parsed[1]["selectedLineCount"])
            span, note = bounded(span, cited, self.options.growth_factor, self.options.growth_lines, n_lines)
        resource = Resource(path, span[0], span[1]).canonical
        after = ev if resource == ev.resource else Evidence(resource, ev.version, ev.blob)
        return EvidenceOutcome(
            ev, after, "stale", reason + note, resource, hunks, old_lines, span, path if renamed else None,
            verified_blob=verified_blob,
        )

    def _gone(self, ev: Evidence, res: Resource, change: FileChange, reason: str) -> EvidenceOutcome:
        """The file is deleted or unreadable on the new side: follow a move, else unresolved."""
        parsed = decode_anchors(ev.version) if res.is_range else None
        if parsed is not None:
            moved = self._moved(ev, parsed[0], parsed[1])
            if moved is not None:
                return moved
        if change.new_path and change.new_path != res.path and reason != "deleted":
            reason = f"renamed to {change.new_path}: {reason}"
        return EvidenceOutcome(ev, ev, "unresolved", reason, None, change.hunks[:1], _lines(res), None, change.new_path)

    def _moved(self, ev: Evidence, content_hash: str, anchors: Anchors) -> EvidenceOutcome | None:
        """The verified text, unchanged, in exactly one place among the lines the diff adds."""
        found = self.sides.moved(content_hash, anchors)
        if found is None:
            return None
        path, idx, s0, blob = found
        old = parse_resource(ev.resource, wiki_dir="\0")
        ft = FileText(path, idx.text, blob)
        return self._fresh_at(ev, path, (s0 + 1, s0 + int(anchors["selectedLineCount"])), ft, idx, _lines(old))

    # -- new-side basis: relocate ------------------------------------------------------------
    def _on_new_side(self, ev: Evidence, marked: bool, *, path: str | None = None, note: str = "") -> EvidenceOutcome:
        """Locate the verified text on the new side (`relocate`); a marked item keeps its range."""
        try:
            res = parse_resource(ev.resource, wiki_dir="\0")
        except ResourceError as e:
            return EvidenceOutcome(ev, ev, "unresolved", str(e), None)
        if path is not None and path != res.path:
            res = Resource(path, res.start, res.end)
        ft, idx = self.sides.new_file(res.path)
        if ft.text is None or idx is None:
            return EvidenceOutcome(ev, ev, "unresolved", note + f"{res.path}: {ft.problem}", None, blob=ft.blob)
        r = relocate(res, ft.text, ev.version, lines=idx, max_growth=self.options.max_growth)
        moved_path = res.path if res.path != parse_resource(ev.resource, wiki_dir="\0").path else None
        if r.status == "fresh" and r.resource is not None and r.version is not None:
            current = r.resource.canonical
            after = ev if (current, r.version) == (ev.resource, ev.version) else Evidence(current, r.version, ft.blob)
            return EvidenceOutcome(
                ev, after, "fresh", note + r.reason, current, (), _lines(res), _lines(r.resource), moved_path, r.version, ft.blob
            )
        if r.status == "stale" and r.resource is not None:
            span = _lines(r.resource)
            bound_note = ""
            parsed = decode_anchors(ev.version)
            if span is not None and parsed is not None:
                cited = int(parsed[1]["selectedLineCount"])
                span, bound_note = bounded(span, cited, self.options.growth_factor, self.options.growth_lines, len(idx))
            current = Resource(res.path, *span).canonical if span is not None else r.resource.canonical
            hunks = self.sides.hunks_over(res.path, span)
            keep = marked or current == ev.resource
            after = ev if keep else Evidence(current, ev.version, ev.blob)
            reason = note + ("changed" if hunks else r.reason) + bound_note
            return EvidenceOutcome(
                ev, after, "stale", reason, after.resource, hunks, _lines(res), span, moved_path, r.version, ft.blob
            )
        return EvidenceOutcome(ev, ev, "unresolved", note + r.reason, None, (), _lines(res), None, moved_path, blob=ft.blob)

def _kind(ev: Evidence) -> Kind | None:
    """The item's kind when it is a definition or a set (a malformed one counts as lines: the
    resource's own parse then says what is wrong)."""
    if not looks_like_kind(ev.resource):
        return None
    try:
        return parse_kind(ev.resource, wiki_dir="\0")
    except ResourceError:
        return None


def _parse(resource: str) -> Resource | None:
    try:
        return parse_resource(resource, wiki_dir="\0")
    except ResourceError:
        return None


def _text_id(ev: Evidence) -> str:
    """What an item cites, independent of where: the content hash of a range token (anchors and
    line numbers aside), a whole file's token as it is."""
    parsed = decode_anchors(ev.version) if ev.version.startswith("repo-lines-v1:") else None
    return parsed[0] if parsed is not None else ev.version


def _old_counterpart(prev: Claim | None, cur: Claim, i: int) -> Evidence | None:
    """The old side's item that `cur.evidence[i]` stands for, when it cites the same verified text
    (then the item is judged from the old side); None: judge it on the new side."""
    if prev is None or len(prev.evidence) != len(cur.evidence):
        return None
    base, ev = prev.evidence[i], cur.evidence[i]
    if base == ev or base.version == ev.version:  # the same token cites the same text (no decoding)
        return base
    return base if _text_id(base) == _text_id(ev) else None
