"""The broken references `check` and `lint` report: code references that name nothing in the
code, on the pages `ground` has grounded (they hold a claim it made), so a wiki that never ran
`ground` sees no new findings; history pages (scope.py) are never checked. A reference whose
sentence a claim grounds is left to the claim (a renamed function makes its claim stale)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from typing import Any

from openwiki_git import PRODUCER
from openwiki_git.caches import statkey
from openwiki_git.errors import StoreError
from openwiki_git.ground import pageformat, scope
from openwiki_git.ground.sources import source_index, tracked
from openwiki_git.model import Sidecar
from openwiki_git.store.workspace import Workspace

GROUND_BY = "tool:openwiki-git-ground"


def grounded_pages(sidecars: dict[str, Sidecar]) -> list[str]:
    """Pages `ground` has grounded: they hold a claim its deterministic pass made. Not every
    `model:` claim: the refresher records its confirmations that way too, and a page a nightly
    refresh touched has not opted in to the broken-reference check."""
    return sorted(p for p, sc in sidecars.items() if any(c.verified_by == GROUND_BY for c in sc.claims))


CACHE_NAME = "ground-broken-v2.json"  # under <git dir>/openwiki-git/: derived data


def broken_references(ws: Workspace, sidecars: dict[str, Sidecar], source: str = "worktree") -> list[dict[str, Any]]:
    """The check/lint entry point: broken references on grounded pages, each
    `{page, page_path, line, reference, kind, statement, reason}`. References whose sentence a
    claim already grounds are left to the claim (check reports it stale when the code changes).

    On the working tree the answer is cached, keyed by the grounded pages' text and claims and by
    the stat of every tracked file: an unchanged repository costs a stat per file, no parse."""
    exclude = excluded(ws)
    pages = [p for p in grounded_pages(sidecars) if scope.history(p, exclude) is None]
    if not pages:
        return []
    texts = {p: ws.page_text(p) for p in pages}
    texts = {p: t for p, t in texts.items() if t is None or not scope.opted_out(t)}
    key, racy = _cache_key(ws, texts, sidecars, exclude) if source == "worktree" else (None, True)
    cache = ws.cache_path(CACHE_NAME)
    if key is not None:
        try:
            stored = json.loads(cache.read_bytes())
            if stored.get("key") == key:
                return list(stored["broken"])
        except (OSError, ValueError, AttributeError, KeyError):
            pass
    out = _broken(ws, sidecars, texts, source)
    if key is not None and not racy:
        from openwiki_git.store.wiki import atomic_write

        with contextlib.suppress(OSError, StoreError):  # a read-only git dir: no cache, same answer
            atomic_write(cache, json.dumps({"key": key, "broken": out}).encode("utf-8"), root=ws.repo.git_dir)
    return out


def excluded(ws: Workspace) -> tuple[str, ...]:
    """The config's `ground.exclude`: page globs `ground` leaves alone besides the history pages."""
    settings = ws.config.raw.get("ground") or {}
    return tuple(str(g) for g in settings.get("exclude") or ())


def _cache_key(ws: Workspace, texts: dict[str, str | None], sidecars: dict[str, Sidecar], exclude: tuple[str, ...]) -> tuple[str, bool]:
    h = hashlib.sha256(PRODUCER.encode("utf-8"))
    h.update(json.dumps(exclude).encode("utf-8"))
    for page, text in sorted(texts.items()):
        h.update(json.dumps([page, text, sorted(c.statement for c in sidecars[page].claims)]).encode("utf-8"))
    started = time.time_ns()
    racy = False
    for path in sorted(tracked(ws)):
        try:
            st = os.stat(ws.repo.root / path)
        except OSError:
            h.update(f"{path}\0-\n".encode())
            continue
        racy = racy or statkey.racy(started, statkey.stat_key(st))  # written just now: a change within the tick is unseen
        h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_size}\0{st.st_ino}\n".encode())
    return h.hexdigest(), racy


def _broken(ws: Workspace, sidecars: dict[str, Sidecar], texts: dict[str, str | None], source: str) -> list[dict[str, Any]]:
    from openwiki_git.ground import resolve as gr

    index = None
    out = []
    for page, text in texts.items():
        if text is None:
            continue
        found = pageformat.refs_of(page, text)
        covered = {c.statement for c in sidecars[page].claims}
        todo = [r for r in found.refs if r.sentence.text not in covered]
        if not todo:
            continue
        index = index or source_index(ws, source)
        for ref in todo:
            res = gr.resolve(ref, index, page_repo_path=ws.wiki.repo_path(page), local_names=found.local_names)
            if res.outcome == gr.BROKEN:
                out.append({"page": page, "page_path": ws.wiki.repo_path(page), "line": ref.sentence.line,
                            "reference": ref.raw, "kind": ref.kind, "statement": ref.sentence.text, "reason": res.reason})
    return out
