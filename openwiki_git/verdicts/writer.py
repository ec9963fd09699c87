"""Where a refresh run's decisions are saved: one at a time, under the wiki lock, on the sidecar
and page as they are on disk now; a dry run keeps them in memory and renders them as a diff.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Callable, Sequence
from typing import Any

from openwiki_git import PRODUCER
from openwiki_git.claims import freshness as checker
from openwiki_git.claims import policy
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.model import Claim, ClaimResult, Sidecar, Verification
from openwiki_git.pages import citations
from openwiki_git.store import editing
from openwiki_git.store.wiki import page_version
from openwiki_git.store.workspace import Workspace
from openwiki_git.verdicts.edits import VerdictError


class Writer:
    """Applies one decision at a time: under the wiki lock, on the sidecar and page as they are on
    disk now, saved atomically before the next claim. In a dry run the decisions accumulate in
    memory (the sidecar, and the prose edits replayed on the page as it is on disk)."""

    def __init__(self, ws: Workspace, dry_run: bool, now: str) -> None:
        self.ws = ws
        self.dry_run = dry_run
        self.now = now
        self.written: list[str] = []
        self.sidecars: dict[str, Sidecar] = {}
        self.edits: dict[str, list[Callable[[str], str]]] = {}

    def _edited(self, page: str, text: str | None) -> str | None:
        if text is None:
            return None
        for edit in self.edits.get(page, ()):
            text = edit(text)
        return text

    def _composed(self, page: str) -> Callable[[str], str]:
        return lambda text: self._edited(page, text) or text

    def apply(
        self, page: str, asked: Claim | Sequence[Claim],
        decide: Callable[[Sidecar, str | None, dict[str, ClaimResult]], tuple[Sidecar, Any]],
        *, by: str | None = None,
    ) -> None:
        """Apply one decision made by `by` about the claims `asked` (one sentence's), each checked
        again as it is on disk now (refused with PolicyError, nothing written, when the config's
        verify_policy forbids it that page)."""
        if by is not None:
            policy.enforce(self.ws.config.verify_policy, page, by)
        claims = [asked] if isinstance(asked, Claim) else list(asked)
        lock = contextlib.nullcontext() if self.dry_run else self.ws.wiki.lock()
        with lock:
            sidecar = self.sidecars.get(page) if self.dry_run else None
            sidecar = sidecar or self.ws.wiki.load(page)
            text = self.ws.page_text(page)
            if self.dry_run:
                text = self._edited(page, text)
            resolver = self.ws.resolver()
            results = {}
            for one in claims:
                current = sidecar.claim(one.id) if sidecar is not None else None
                if sidecar is None or current is None:
                    raise VerdictError(f"{one.id} is no longer on {page} (changed while the model was answering)")
                if current.statement != one.statement or [e.version for e in current.evidence] != [e.version for e in one.evidence]:
                    raise VerdictError(f"{one.id} was changed while the model was answering; run refresh again")
                results[one.id] = checker.check_claim(page, current, resolver, page_text=text)
            assert sidecar is not None
            new, edit = decide(sidecar, text, results)
            new = self._stamp(new, text, resolver)
            if self.dry_run:
                self.sidecars[page] = new
                self.edits.setdefault(page, []).append(edit)
            else:
                self.written.extend(p for p in editing.save_page(self.ws.wiki, new, edit=edit) if p not in self.written)

    def _stamp(self, sidecar: Sidecar, text: str | None, resolver: checker.EvidenceResolver) -> Sidecar:
        """The page's verification is the run's when every claim left on it is fresh."""
        if not sidecar.claims:
            return sidecar
        for claim in sidecar.claims:
            if claim.mark is not None:
                return sidecar
            if checker.check_claim(sidecar.page, claim, resolver, page_text=text).status != "fresh":
                return sidecar
        return sidecar.replace(verification=Verification(PRODUCER, self.now))

    def diff(self) -> str:
        """A dry run's decisions as a unified diff of the pages and sidecars they would write."""
        out: list[str] = []
        wiki = self.ws.wiki
        for page in sorted(self.sidecars):
            new_sc = self.sidecars[page]
            edit = self._composed(page)
            render = getattr(editing, "render_page", None)
            if render is not None:
                old_bytes, new_bytes = render(wiki, new_sc, edit=edit)
            else:  # pragma: no cover - before the OKF projection landed
                old_text = self.ws.page_text(page)
                old_bytes = None if old_text is None else old_text.encode("utf-8")
                new_bytes = None if old_text is None else citations.sync(
                    edit(old_text), wiki.repo_path(page), new_sc.claims
                ).encode("utf-8")
            repo_page = wiki.repo_path(page)
            if old_bytes is not None and new_bytes is not None and old_bytes != new_bytes:
                out += difflib.unified_diff(
                    old_bytes.decode("utf-8", "replace").splitlines(keepends=True),
                    new_bytes.decode("utf-8", "replace").splitlines(keepends=True),
                    f"a/{repo_page}",
                    f"b/{repo_page}",
                )
            old_sc = wiki.load(page)
            new_sc = new_sc.replace(page_version=page_version(new_bytes or b""))
            if wiki.config.strict_openwiki:
                new_sc = new_sc.for_openwiki()
            old_json = sidecar_codec.dumps(old_sc) if old_sc is not None else ""
            new_json = sidecar_codec.dumps(new_sc)
            if old_json != new_json:
                rel = wiki.sidecar_path(page).relative_to(wiki.root).as_posix()
                out += difflib.unified_diff(
                    old_json.splitlines(keepends=True), new_json.splitlines(keepends=True), f"a/{rel}", f"b/{rel}"
                )
        return "".join(line if line.endswith("\n") else line + "\n" for line in out)

