"""The claims' statuses for a graph load: the sidecars read where their stat changed, and every
claim checked against the working tree (claims.freshness), reusing the results of cited files whose
stat and tracking are unchanged (`Parts`, cached as graph.parts.pickle by graph_build).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from openwiki_git.claims.freshness import EvidenceResolver, check_claim
from openwiki_git.errors import StoreError
from openwiki_git.graph.core import split_canonical
from openwiki_git.graph.inputs import Inputs, StatKey, cited_key
from openwiki_git.markdown.document import Document
from openwiki_git.model import ClaimResult, EvidenceResult, Sidecar
from openwiki_git.store.workspace import Workspace


@dataclass
class Parts:
    """graph.parts.pickle: what an incremental rebuild reuses for the claims (documents come from
    the graph): the sidecars by stat, the evidence results by cited file, the results by page."""

    index: StatKey = None
    tracked: frozenset[str] = frozenset()
    sidecars: dict[str, tuple[StatKey, Sidecar]] = field(default_factory=dict)
    evidence: dict[str, tuple[Any, dict[tuple[str, str], EvidenceResult]]] = field(default_factory=dict)
    results: dict[str, tuple[Any, dict[str, ClaimResult]]] = field(default_factory=dict)  # by page


def changed(old: Parts, new: Parts) -> bool:
    """Whether graph.parts.pickle must be written again."""
    if old.index != new.index or old.tracked != new.tracked:
        return True
    if {p: k for p, (k, _) in old.sidecars.items()} != {p: k for p, (k, _) in new.sidecars.items()}:
        return True
    if {p: k for p, (k, _) in old.results.items()} != {p: k for p, (k, _) in new.results.items()}:
        return True
    return {p: (k, set(r)) for p, (k, r) in old.evidence.items()} != {p: (k, set(r)) for p, (k, r) in new.evidence.items()}


def read_sidecars(ws: Workspace, now: Inputs, parts: Parts, new: Parts) -> tuple[dict[str, Sidecar], int]:
    """Every sidecar by page (the cached one where its stat is unchanged), and how many were read."""
    out: dict[str, Sidecar] = {}
    read = 0
    for page, key in now.sidecars.items():
        hit = parts.sidecars.get(page)
        if hit is not None and hit[0] == key and key is not None:
            sidecar = hit[1]
        else:
            loaded = ws.wiki.load(page)
            read += 1
            if loaded is None:
                continue
            sidecar = loaded
        new.sidecars[page] = (key, sidecar)
        out[page] = sidecar
    _unique_ids(ws, out)
    return out, read


def _unique_ids(ws: Workspace, sidecars: dict[str, Sidecar]) -> None:
    owner: dict[str, str] = {}
    for page in sorted(sidecars):
        for claim in sidecars[page].claims:
            if claim.id in owner:
                rel = ws.wiki.sidecar_path(page).relative_to(ws.repo.root).as_posix()
                raise StoreError(
                    f"{rel}: claim {claim.id} is also on page {owner[claim.id]}",
                    "claim ids must be unique across the wiki; retract one of them",
                )
            owner[claim.id] = page


def _cited_path(resource: str) -> str:
    """The decoded path of a canonical `repo://` resource (core.split_canonical's, without
    reading the line range)."""
    path = resource.partition("#")[0].partition("?")[0][len("repo://") :]  # a set's query is not its path
    return unquote(path) if "%" in path else path


class _CachedResolver(EvidenceResolver):
    """The checker's resolver, answering first from results cached per cited file."""

    def __init__(self, ws: Workspace, known: dict[tuple[str, str], EvidenceResult]) -> None:
        growth = (ws.config.range_growth_factor, ws.config.range_growth_lines)
        super().__init__(ws.reader("worktree"), max_growth=ws.config.max_growth, growth=growth)
        self.tracked = ws.tracked("worktree")  # a set over a folder lists the tracked files, as `check` does
        ws.configure(self)  # the config's cosmetic-edit rules and verified blobs, as `check` has them
        self.known = known
        self.fresh: dict[tuple[str, str], EvidenceResult] = {}

    def resolve(self, resource: str, version: str, blob: str | None = None) -> EvidenceResult:
        hit = self.known.get((resource, version))
        if hit is None:
            hit = self.known[(resource, version)] = self.fresh[(resource, version)] = super().resolve(resource, version, blob)
        return hit


def check(
    ws: Workspace,
    sidecars: dict[str, Sidecar],
    pages: dict[str, Document],
    now: Inputs,
    new: Parts,
    parts: Parts,
) -> tuple[dict[str, ClaimResult], int]:
    """Every claim's status (claims.freshness.check_claim), and how many cited files were checked
    again; evidence in files whose stat and tracking are unchanged is reused from `parts`."""
    by_file: dict[str, list[tuple[str, str]]] = {}
    path_of: dict[str, str] = {}  # resource -> the file it cites (core.split_canonical's path)
    for sc in sidecars.values():
        for claim in sc.claims:
            for ev in claim.evidence:
                path = path_of.get(ev.resource)
                if path is None:
                    path = path_of[ev.resource] = _cited_path(ev.resource)
                by_file.setdefault(path, []).append((ev.resource, ev.version))
    known: dict[tuple[str, str], EvidenceResult] = {}
    file_keys: dict[str, Any] = {}
    for path in sorted(by_file):
        key = (cited_key(ws.repo.root, path, now.started_ns), path in new.tracked or "*" in path)
        file_keys[path] = key
        hit = parts.evidence.get(path)
        if hit is not None and hit[0] == key and key[0] is not None:
            # The file is as it was: every result cached for it holds, whichever of its pairs are
            # new (a claim re-verified with a new token since) and are resolved below.
            known.update(hit[1])
    resolver = _CachedResolver(ws, known)
    results: dict[str, ClaimResult] = {}
    for page in sorted(sidecars):
        # A page's results stand while its sidecar, its text and the files it cites are unchanged.
        cited = sorted({path_of[e.resource] for c in sidecars[page].claims for e in c.evidence})
        page_key = (new.sidecars[page][0], now.pages.get(page), tuple(file_keys[f] for f in cited))
        page_hit = parts.results.get(page)
        if page_hit is not None and page_hit[0] == page_key and None not in page_key[:2]:
            new.results[page] = page_hit
            results.update(page_hit[1])
            _remember(sidecars[page], page_hit[1], known)
            continue
        d = pages.get(page)
        # check_claim only asks whether the page carries each marker: give it just the markers.
        text = None if d is None else " ".join(f"[^{m}]" for ms in d.markers.values() for m in ms)
        page_results = {c.id: check_claim(page, c, resolver, page_text=text) for c in sidecars[page].claims}
        new.results[page] = (page_key, page_results)
        results.update(page_results)
    for path, pairs in by_file.items():
        new.evidence[path] = (file_keys[path], {p: known[p] for p in dict.fromkeys(pairs) if p in known})
    return results, len({split_canonical(r)[1] for r, _ in resolver.fresh})


def _remember(sidecar: Sidecar, reused: dict[str, ClaimResult], known: dict[tuple[str, str], EvidenceResult]) -> None:
    """A reused page's evidence results, kept for its cited files' entries: the page stood while
    another page's claim on the same file was verified anew, so that file's entry no longer
    held every pair and was not reused (the KeyError of issue 33)."""
    for claim in sidecar.claims:
        got = reused.get(claim.id)
        if got is None or len(got.evidence) != len(claim.evidence):
            continue
        for ev, er in zip(claim.evidence, got.evidence, strict=True):
            known.setdefault((ev.resource, ev.version), er)
