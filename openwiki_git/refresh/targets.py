"""The claims a refresh run works on: checked, selected (stale and unresolved ones, with --due the
due ones, --claim the named ones, --shard one shard's pages), each with what is known about its
evidence (verdicts/sources.py: the current file and the cited text as last verified, searched for
in git), and grouped by sentence: one request decides a sentence's claims (`requests`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from openwiki_git.claims import freshness as checker
from openwiki_git.model import Claim, ClaimResult
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from openwiki_git.verdicts.drift import Source, trivial_drift
from openwiki_git.verdicts.sources import sentences, sources_of


@dataclass
class Target:
    result: ClaimResult
    sources: list[Source]
    trivial: str | None = None
    companion: bool = False  # not selected itself: another claim of a selected claim's sentence

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
    found = [Target(r, sources_of(ws, r, resolver)) for r in chosen]
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




def requests(ws: Workspace, targets: Sequence[Target]) -> list[list[Target]]:
    """The targets grouped by the sentence their markers follow, in order, each group with the
    sentence's other claims (companions, checked now): one request decides a sentence and all
    its claims (a sentence carrying three claims is decided once, not three ways)."""
    by_page: dict[str, list[Target]] = {}
    for t in targets:
        by_page.setdefault(t.page, []).append(t)
    out: list[list[Target]] = []
    resolver = ws.resolver()
    for page, ts in by_page.items():
        sidecar = ws.wiki.load(page)
        text = ws.page_text(page)
        of = {t.claim.id: t for t in ts}
        for group in sentences(text, list(sidecar.claims) if sidecar is not None else [t.claim for t in ts]):
            if not any(c.id in of for c in group):
                continue
            mine = [of[c.id] for c in group if c.id in of]
            for c in group:
                if c.id not in of:
                    r = checker.check_claim(page, c, resolver, page_text=text)
                    mine.append(Target(r, sources_of(ws, r, resolver), companion=True))
            out.append(mine)
    order = {t.claim.id: n for n, t in enumerate(targets)}
    return sorted(out, key=lambda g: order[g[0].claim.id])
