"""The claims a refresh run works on: checked, selected (stale and unresolved ones, with --due the
due ones, --claim the named ones, --shard one shard's pages), each with what is known about its
evidence: the current file and the cited text as last verified, searched for in git.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from openwiki_git.claims import check as checker
from openwiki_git.errors import OpenwikiError
from openwiki_git.evidence.kinds import Symbol, kind_scope, looks_like_kind, parse_kind
from openwiki_git.evidence.resource import Resource, ResourceError
from openwiki_git.model import Claim, ClaimResult
from openwiki_git.refresh.drift import Source, parse_or_none, trivial_drift, verified_text
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace

HISTORY_DEPTH = 50  # commits searched for the text as last verified when no blob id is recorded


@dataclass
class Target:
    result: ClaimResult
    sources: list[Source]
    trivial: str | None = None

    @property
    def page(self) -> str:
        return self.result.page

    @property
    def claim(self) -> Claim:
        return self.result.claim


def targets(ws: Workspace, options: RefreshOptions, trivial_mode: str) -> list[Target]:
    """The claims the run works on, in order, each with its sources and (when it needs no model)
    why its drift is trivial."""
    now = datetime.now(UTC)
    sidecars = ws.wiki.load_all()
    resolver = ws.resolver()
    results = checker.check_all(
        sidecars, resolver, ws.page_text, now=now, reverify_after=ws.config.reverify_policy
    )
    chosen = select(ws, options, results)
    if options.shard is not None:
        i, n = options.shard
        chosen = [r for r in chosen if shard_of(r.page, n) == i]
    found = [target_of(ws, r, resolver) for r in chosen]
    for t in found:
        t.trivial = trivial_drift(t.result, t.sources, trivial_mode)
    return found


def select(ws: Workspace, options: RefreshOptions, results: list[ClaimResult]) -> list[ClaimResult]:
    """The claims to refresh, in order: stale and unresolved ones in page order, then (with
    --due) the due ones, least recently verified first. --claim names claims whatever their state."""
    named: set[str] = set()
    if options.claims:
        all_sidecars = ws.wiki.load_all()
        named = {ws.wiki.find_claim(c, all_sidecars)[2].id for c in options.claims}
    pages = {ws.wiki.normalize_page(p) for p in options.pages} if options.pages else None
    stale, due = [], []
    for r in results:
        if pages is not None and r.page not in pages:
            continue
        if named and r.claim.id not in named:
            continue
        if r.status != "fresh" or (named and r.claim.id in named):
            stale.append(r)
        elif options.due and r.due:
            due.append(r)
    due.sort(key=lambda r: (r.claim.verified_at or "", r.page, r.claim.id))
    return stale + due


def shard_of(page: str, n: int) -> int:
    """The shard (1..n) a page belongs to: stable across runs and machines (a hash of its name)."""
    digest = hashlib.sha256(page.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n + 1


def target_of(ws: Workspace, r: ClaimResult, resolver: checker.EvidenceResolver) -> Target:
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
        old_text, old_from = None, None
        if er.status != "fresh":
            old_text, old_from = _verified_text(ws, r.claim, ev) or (None, None)
        sources.append(Source(ev, er, path, text, old_text, old_from))
    return Target(r, sources)


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
    return Source(ev, er, kind_scope(kind)[0], now, then, where if then is not None else None, named=True)


def _verified_text(ws: Workspace, claim: Claim, ev: Any) -> tuple[str, str] | None:
    """The cited text as last verified: from the recorded blob, the mark's commit, the index, or
    the first-parent history of HEAD (at most HISTORY_DEPTH commits)."""
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
        found = verified_text(ev.resource, ft.text, ev.version)
        if found is None and ft.path != res.path:
            moved = Resource(ft.path, res.start, res.end).canonical
            found = verified_text(moved, ft.text, ev.version)
        if found is not None:
            return found, label
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

