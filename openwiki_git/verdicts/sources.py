"""What is known of a claim's evidence, read from the working tree and git: per item the current
file, the cited text as last verified and the file it was verified in (from the recorded blob,
the mark's commit, the index or the first-parent history), for the context a model or an agent
is shown (verdicts/context.py); and which claims of a page share one sentence (`sentences`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from openwiki_git.claims import freshness as checker
from openwiki_git.errors import OpenwikiError
from openwiki_git.evidence.kinds import Symbol, kind_scope, looks_like_kind, parse_kind
from openwiki_git.evidence.resource import Resource, ResourceError
from openwiki_git.model import Claim, ClaimResult
from openwiki_git.store.workspace import Workspace
from openwiki_git.verdicts.drift import Source, parse_or_none, verified_at

HISTORY_DEPTH = 50  # commits searched for the text as last verified when no blob id is recorded


def sources_of(ws: Workspace, r: ClaimResult, resolver: checker.EvidenceResolver) -> list[Source]:
    """Every evidence item of the claim with its current file and its text as last verified."""
    sources = []
    renamed = {c.resource: c.path for c in (r.claim.mark.causes if r.claim.mark else ()) if c.path}
    for ev, er in zip(r.claim.evidence, r.evidence, strict=True):
        if looks_like_kind(ev.resource):
            sources.append(_named_source(ws, ev, er, resolver))
            continue
        res = parse_or_none(er.current_resource) or parse_or_none(ev.resource)
        path = res.path if res is not None else None
        ft, _ = resolver.file(path) if path is not None else (None, None)
        if (ft is None or ft.text is None) and ev.resource in renamed:
            path = renamed[ev.resource]
            ft, _ = resolver.file(path)
        text = ft.text if ft is not None else None
        found = _verified(ws, r.claim, ev) if er.status != "fresh" else None
        if found is None:
            sources.append(Source(ev, er, path, text))
            continue
        old_text, old_from, old_file, old_span = found
        sources.append(Source(ev, er, path, text, old_text, old_from, old_file=old_file, old_span=old_span))
    return sources


def _named_source(ws: Workspace, ev: Any, er: Any, resolver: checker.EvidenceResolver) -> Source:
    """A definition (its text as verified, from its blob, and now) or a set (its members as
    verified, listed in its token, and now), shown under the scope it names."""
    from openwiki_git.claims import kinds

    try:
        kind = parse_kind(ev.resource, wiki_dir="\0")
    except ResourceError:
        return Source(ev, er, None, None)
    assert kind is not None
    verified = ws.repo.blob_text(kind.path, ev.blob) if isinstance(kind, Symbol) and ev.blob else None
    then, now = kinds.texts(kind, ev.version, resolver.read, resolver.tracked, verified)
    where = "the definition as verified" if isinstance(kind, Symbol) else "the members as verified"
    if not isinstance(kind, Symbol):
        return Source(ev, er, kind_scope(kind)[0], now, then, where if then is not None else None, named=True)
    old_file = verified.text if verified is not None and then is not None else None
    file_text = resolver.read(kind.path).text
    return Source(
        ev, er, kind.path, now, then, where if then is not None else None, named=True, old_file=old_file, file_text=file_text
    )


def _verified(ws: Workspace, claim: Claim, ev: Any) -> tuple[str, str, str, tuple[int, int] | None] | None:
    """(the cited text as last verified, where it was found, the file it was found in, its lines
    there): from the recorded blob, the mark's commit, the index, or the first-parent history
    of HEAD (at most HISTORY_DEPTH commits)."""
    res = parse_or_none(ev.resource)
    if res is None:
        return None
    paths = [res.path]
    for cause in claim.mark.causes if claim.mark else ():
        old = parse_or_none(cause.resource)
        if old is not None and old.path not in paths:
            paths.append(old.path)
    seen: set[str] = set()
    for label, read in _old_copies(ws, ev, claim, paths):
        try:
            ft = read()
        except OpenwikiError:
            break
        if ft is None or ft.text is None or (ft.blob is not None and ft.blob in seen):
            continue
        if ft.blob:
            seen.add(ft.blob)
        found = verified_at(ev.resource, ft.text, ev.version)
        if found is None and ft.path != res.path:
            moved = Resource(ft.path, res.start, res.end).canonical
            found = verified_at(moved, ft.text, ev.version)
        if found is not None:
            return found[0], label, ft.text, found[1]
    return None


def _old_copies(ws: Workspace, ev: Any, claim: Claim, paths: list[str]) -> Iterator[tuple[str, Callable[[], Any]]]:
    repo = ws.repo
    for path in paths:
        if ev.blob:
            yield f"blob {ev.blob[:12]}", functools.partial(repo.blob_text, path, ev.blob)
    commit = claim.mark.commit if claim.mark else None
    for path in paths:
        if commit:
            yield f"commit {commit[:12]}", functools.partial(repo.read, path, commit)
        yield "the index", functools.partial(repo.read, path, "index")
    if repo.head() is None:
        return
    for k in range(HISTORY_DEPTH):
        rev = "HEAD" if k == 0 else f"HEAD~{k}"
        for path in paths:
            yield rev, functools.partial(repo.read, path, rev)


def sentences(page_text: str | None, claims: Sequence[Claim]) -> list[list[Claim]]:
    """The claims grouped by the sentence their markers follow (`[^c-a][^c-b]` after one
    sentence: one group), in page order; a claim whose marker is not found is a group alone."""
    from openwiki_git.verdicts.prose import sentence_key

    groups: dict[object, list[Claim]] = {}
    for claim in claims:
        key = sentence_key(page_text, claim.id) if page_text is not None else None
        groups.setdefault(key if key is not None else ("alone", claim.id), []).append(claim)
    return list(groups.values())
