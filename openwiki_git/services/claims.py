"""What `claim` does to one claim: add, show (the data), edit, confirm, retract. Each writes
the page and its sidecar together under the wiki's lock; the command renders what they return."""

from __future__ import annotations

import dataclasses
from typing import Any

from openwiki_git.claims import policy
from openwiki_git.errors import EvidenceError, StoreError, UsageError
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.resolver import LineIndex
from openwiki_git.evidence.resource import REPO_PREFIX, ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import Claim, ClaimResult, Evidence, Sidecar
from openwiki_git.pages import citations
from openwiki_git.pages.labels import marker_text
from openwiki_git.store import editing
from openwiki_git.store.editing import resolve_new_evidence
from openwiki_git.store.workspace import Workspace, now_iso


def add(ws: Workspace, page: str, statement: str, evidence: list[str], *, by: str | None, source: str) -> tuple[str, Claim, bool, bool]:
    """Resolve the evidence, allocate a claim_<32 hex> id, write it to the page's sidecar and its
    marker after the statement; (the page, the claim, whether the marker was placed, whether the
    sentence carried the claim already: one claim per sentence, so the evidence went to it)."""
    page = ws.wiki.normalize_page(page)
    if not ws.wiki.page_path(page).is_file():
        raise StoreError(f"{ws.wiki.repo_path(page)}: no such page", "write the page first, then add claims to it")
    statement = statement.strip()
    if not statement:
        raise UsageError("--statement is empty", "write the proposition the evidence supports")
    if by is not None:  # a claim added with its verifier is a verification
        policy.enforce(ws.config.verify_policy, page, by)
    resolved = resolve_new_evidence(ws, evidence, source)
    before = ws.wiki.load(page)
    claim, placed = editing.add_claim(ws.wiki, page, statement, resolved, by, now_iso())
    return page, claim, placed, before is not None and before.claim(claim.id) is not None


def rows(ws: Workspace, page: str | None) -> list[tuple[str, Claim]]:
    """Every claim (of `page`), page by page."""
    sidecars = ws.wiki.load_all()
    if page is not None:
        page = ws.wiki.normalize_page(page)
        sidecars = {page: sidecars[page]} if page in sidecars else {}
    return [(p, c) for p in sorted(sidecars) for c in sidecars[p].claims]


def claim_json(page: str, c: Claim) -> dict[str, Any]:
    return {
        "id": c.id,
        "page": page,
        "statement": c.statement,
        "evidence": [{"resource": e.resource, "version": e.version} for e in c.evidence],
        "verified_at": c.verified_at,
        "verified_by": c.verified_by,
        "marked": c.mark.status if c.mark else None,
    }


@dataclasses.dataclass(frozen=True)
class Shown:
    """One claim as `claim show` presents it."""

    page: str
    claim: Claim
    result: ClaimResult
    items: list[dict[str, Any]]  # per evidence item: where it is now, the verified and current texts (evidence_view)
    states: bool | None  # whether the page's sentence still states it (None: no page, no marker)
    prose: str | None  # the page's sentence, when it differs

    def to_json(self) -> dict[str, Any]:
        data = claim_json(self.page, self.claim)
        data.update(
            label=citations.label(self.claim.id),
            status=self.result.status,
            notes=list(self.result.notes),
            cause=[dataclasses.asdict(c) for c in self.claim.mark.causes] if self.claim.mark else [],
            evidence_status=self.items,
            prose_states_statement=self.states,
            prose=self.prose,
        )
        return data


def find(ws: Workspace, claim_id: str, page: str | None = None) -> tuple[str, Sidecar, Claim]:
    """The claim's (page, sidecar, claim): looked up in `page`'s sidecar alone when the caller
    knows the page (review, one claim after another), else across the wiki."""
    if page is None:
        return ws.wiki.find_claim(claim_id)
    sidecar = ws.wiki.load(page)
    return ws.wiki.find_claim(claim_id, {page: sidecar} if sidecar is not None else {})


def show(ws: Workspace, claim_id: str, source: str, *, page: str | None = None) -> Shown:
    """The claim's status and cause, and per evidence item where the cited text is now and the
    text as verified against the text now (read from the blob recorded when it was verified)."""
    from openwiki_git.claims import freshness as checker

    page, _, claim = find(ws, claim_id, page)
    resolver = ws.resolver(source)
    text = ws.page_text(page)
    result = checker.check_claim(page, claim, resolver, page_text=text)
    items = [evidence_view(ws, resolver, claim, ev, r) for ev, r in zip(claim.evidence, result.evidence, strict=True)]
    states = citations.states(text, claim.id, claim.statement) if text is not None else None
    prose = citations.prose_before(text, claim.id) if text is not None and states is False else None
    return Shown(page, claim, result, items, states, prose)


def evidence_view(ws: Workspace, resolver, claim: Claim, ev: Evidence, r) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """One evidence item for `claim show`: where it is now, and the verified and current texts."""
    from openwiki_git.claims import freshness as checker

    out: dict[str, Any] = {
        "resource": ev.resource, "status": r.status, "current_resource": r.current_resource, "reason": r.reason,
        "verified_text": None, "verified_from": None, "current_text": None, "current_lines": None, "diff": None,
    }
    if looks_like_kind(ev.resource):
        _kind_texts(ws, resolver, ev, out)
        _with_part(out, ev.resource, r.current_resource, resolver, out.pop("_then", None))
        return _with_diff(out, r.current_resource or ev.resource)
    try:
        res = parse_resource(ev.resource, wiki_dir="\0")
    except ResourceError:
        return out
    verified_in: tuple[str, tuple[int, int]] | None = None  # the file as verified, and where the verified text is in it
    if r.current_resource:
        cur = parse_resource(r.current_resource, wiki_dir="\0")
        _, index = resolver.file(cur.path)
        if index is not None and cur.is_range and cur.start and cur.end:
            out["current_text"] = "".join(index.lines[cur.start - 1 : cur.end])
            out["current_lines"] = [cur.start, cur.end]
        elif index is not None:
            out["current_text"] = index.text
    if ev.blob and res.is_range:
        then = ws.repo.blob_text(res.path, ev.blob)
        if then.text is not None:
            idx = LineIndex(then.text)
            span = checker.verified_span(res, then.text, idx, ev.version)
            if span is not None:
                out["verified_text"] = "".join(idx.lines[span[0] - 1 : span[1]])
                out["verified_from"] = f"blob {ev.blob[:12]} L{span[0]}-L{span[1]}"
                verified_in = (then.text, span)
    cause = checker.cause_for(claim, ev.resource) if claim.mark is not None else None
    if out["verified_text"] is None and cause is not None and cause.blob and cause.old_lines:
        then = ws.repo.blob_text(res.path, cause.blob)  # the mark names the blob and lines it was verified at
        if then.text is not None:
            a, b = cause.old_lines
            out["verified_text"] = "".join(split_lines(then.text)[a - 1 : b])
            out["verified_from"] = f"blob {cause.blob[:12]} L{a}-L{b}"
            verified_in = (then.text, (a, b))
    _with_part(out, ev.resource, r.current_resource, resolver, verified_in)
    return _with_diff(out, r.current_resource or ev.resource)


def _with_part(out: dict[str, Any], resource: str, current: str | None, resolver: Any, then: Any) -> None:
    """`now_at` (the cited part's lines now) and `part_diff` (its verified text against its
    current text, a few lines around each change, numbered as the file is: claims/part.py, the
    one owner review, the PR comment and the model's context share); `then`: the file as
    verified and where the verified text is in it (a definition is found in it by name)."""
    from openwiki_git.claims import part

    path = part.path_of(current)
    now = resolver.read(path).text if path is not None else None
    then_text, then_span = then if isinstance(then, tuple) else (then, None)
    got = part.cited(
        resource, current, now, then_text, then_span,
        then_part=out["verified_text"] if then_text is None else None, whole_below=part.WHOLE_BELOW,
    )
    out["now_at"] = got.at
    out["part_diff"] = got.shown.text if got.shown is not None else None


def _kind_texts(ws: Workspace, resolver: Any, ev: Evidence, out: dict[str, Any]) -> None:
    """A definition's text as verified and now; a set's members then and now (its diff: the
    members added and removed)."""
    from openwiki_git.claims import kinds

    try:
        kind = parse_kind(ev.resource, wiki_dir="\0")
    except ResourceError:
        return
    assert kind is not None
    verified = ws.repo.blob_text(kind.path, ev.blob) if isinstance(kind, Symbol) and ev.blob else None
    then, now = kinds.texts(kind, ev.version, resolver.read, resolver.tracked, verified)
    out["verified_text"], out["current_text"] = then, now
    out["_then"] = verified.text if verified is not None and then is not None else None  # the file as verified
    if then is not None:
        out["verified_from"] = f"blob {ev.blob[:12]}" if isinstance(kind, Symbol) and ev.blob else "the members as verified"


def _with_diff(out: dict[str, Any], current: str) -> dict[str, Any]:
    """`out` with the unified diff of its verified text against its text now, when they differ."""
    import difflib

    if out["verified_text"] is not None and out["current_text"] is not None and out["verified_text"] != out["current_text"]:
        now = current.removeprefix(REPO_PREFIX)
        out["diff"] = "".join(
            difflib.unified_diff(
                str(out["verified_text"]).splitlines(keepends=True),
                str(out["current_text"]).splitlines(keepends=True),
                f"verified ({out['verified_from']})",
                f"now ({now})",
                n=max(len(str(out["current_text"]).splitlines()), 3),
            )
        )
    return out


def edit(
    ws: Workspace, claim_id: str, *, evidence: list[str] | None, statement: str | None, by: str | None, source: str,
    page: str | None = None, add: tuple[str, ...] = (), drop: tuple[str, ...] = (),
) -> tuple[str, Claim, bool]:
    """Re-point the claim's evidence and/or restate it, keeping its id, marker and place (new
    evidence is a verification: the mark is cleared); (the page, the claim as it was, whether
    the page's sentence states the new statement: False when it does not yet). `add`, `drop`:
    items added to and taken from its evidence (or from `evidence`), the others kept."""
    if add or drop:
        evidence = _changed_evidence(ws, claim_id, page, evidence, add, drop)
    resolved = resolve_new_evidence(ws, evidence, source) if evidence else None
    with ws.wiki.lock():
        page, sidecar, claim = find(ws, claim_id, page)
        if resolved is not None or by is not None:  # new evidence verifies the claim (the policy decides who may)
            policy.enforce(ws.config.verify_policy, page, by)
        new = claim.replace(statement=statement or claim.statement)
        if resolved is not None:
            new = new.replace(evidence=tuple(resolved), mark=None, verified_at=now_iso(), verified_by=by or claim.verified_by)
        editing.save_page(ws.wiki, sidecar.with_claim(new))
    text = ws.page_text(page)
    return page, claim, not (text is not None and citations.states(text, claim.id, new.statement) is False)


def _changed_evidence(
    ws: Workspace, claim_id: str, page: str | None, evidence: list[str] | None, add: tuple[str, ...], drop: tuple[str, ...]
) -> list[str]:
    """The claim's evidence (or `evidence`) with `add` appended and `drop` taken out; a drop that
    names no item, or one that leaves nothing, is a usage error naming the items there are."""
    _, _, claim = find(ws, claim_id, page)
    base = list(evidence) if evidence else [e.resource for e in claim.evidence]
    missing = [r for r in drop if r not in base]
    if missing:
        raise UsageError(f"--drop-evidence {missing[0]}: not among the evidence of {claim.id}",
                         "name an item as `claim show` lists it: " + ", ".join(base))
    out = [r for r in dict.fromkeys([*base, *add]) if r not in drop]
    if not out:
        raise UsageError(f"--drop-evidence takes every item of {claim.id}: a claim cites something",
                         f"re-point it with --add-evidence, or retract it: openwiki-git claim retract {claim.id}")
    return out


def confirm(
    ws: Workspace, claim_id: str, *, by: str | None, statement: str | None, keep_statement: bool, source: str,
    page: str | None = None, restate_prose: bool = False,
) -> tuple[str, Claim, ClaimResult]:
    """A person re-read the cited lines and the statement (or `statement`) holds: the evidence is
    re-established where its text is now and the mark cleared; (the page, the claim, its check).
    With `restate_prose` the page's sentence carrying the marker is rewritten to `statement`
    (review's restatement: the person wrote the new sentence once, for both)."""
    from openwiki_git.claims import fix as fixer
    from openwiki_git.claims import freshness as checker

    with ws.wiki.lock():
        page, sidecar, claim = find(ws, claim_id, page)
        policy.enforce(ws.config.verify_policy, page, by)
        text = ws.page_text(page)
        if statement is None and not keep_statement and text is not None and citations.states(text, claim.id, claim.statement) is False:
            said, marker = citations.prose_before(text, claim.id), marker_text(claim.id, page, ws.wiki.site is not None)
            raise UsageError(
                f"{ws.wiki.repo_path(page)}: {claim.id}: the page's sentence before {marker} "
                f"no longer states the claim (it says {said!r}; the claim says {claim.statement!r})",
                "confirm what the page says with --statement '...', or the stored statement with --keep-statement",
            )
        result = checker.check_claim(page, claim, ws.resolver(source), page_text=text)
        confirmed = fixer.verify_claim(claim, result, by=by, now=now_iso())
        if confirmed is None:
            gone = "; ".join(f"{r.resource}: {r.reason}" for r in result.evidence if r.current_resource is None)
            raise EvidenceError(
                f"{claim.id}: cannot confirm: {gone}",
                f"re-point the evidence (claim edit {citations.label(claim.id)} --evidence repo://...) or restore the cited file",
            )
        prose = None
        if statement is not None:
            confirmed = confirmed.replace(statement=statement.strip())
            if restate_prose:
                from openwiki_git.verdicts.prose import rewrite_sentence

                def prose(text: str) -> str:
                    return rewrite_sentence(text, claim.id, claim.statement, confirmed.statement)

        editing.save_page(ws.wiki, sidecar.with_claim(confirmed), edit=prose)
    return page, claim, result


def retract(ws: Workspace, claim_id: str, *, by: str | None, page: str | None = None) -> tuple[str, Claim]:
    """Remove the claim from its sidecar and its marker from the page, recording its tombstone
    (the sidecar's `retracted`: `ground` leaves the sentence alone). Retracting decides the
    claim as verifying it does, so the config's verify_policy decides who may (`by`), as it does
    for a model's or an agent's retract verdict."""
    with ws.wiki.lock():
        page, sidecar, claim = find(ws, claim_id, page)
        policy.enforce(ws.config.verify_policy, page, by)
        editing.save_page(  # its tombstone keeps `ground` from grounding the sentence again
            ws.wiki, sidecar.retracting(claim, by=by, at=now_iso()), edit=lambda text: citations.remove_marker(text, claim.id)
        )
    return page, claim
