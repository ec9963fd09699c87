"""`ground`'s service: the deterministic pass over pages, the claims it writes, and the broken
references `check` and `lint` report.

A page's references (refs.py) are resolved against the tracked files' definitions (index.py, resolve.py); each
unique resolution not already grounded becomes a claim (statement: the sentence; evidence: the
definition's lines) verified by `tool:openwiki-git-ground`, its marker put after the sentence.
Nothing else in the prose changes; existing claims are never touched. A page is written whole
(page, then sidecar, each atomically, under the wiki lock), one page at a time.

`check` and `lint` report broken references only on pages that `ground` has grounded (they hold
a claim it made), so a wiki that never ran `ground` sees no new findings.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from openwiki_git import PRODUCER
from openwiki_git.claims import policy
from openwiki_git.errors import StoreError
from openwiki_git.formats import pagenames
from openwiki_git.ground import refs as ground_refs
from openwiki_git.ground.refs import Sentence
from openwiki_git.model import Claim, Sidecar
from openwiki_git.pages import citations, rst_markers
from openwiki_git.pages.frontmatter_core import opens
from openwiki_git.store.workspace import Workspace

GROUND_BY = "tool:openwiki-git-ground"
MINIMAL_FRONT_MATTER = "---\ntype: Reference\n---\n\n"


@dataclass(frozen=True, slots=True)
class Proposal:
    page: str
    sentence: Sentence
    resource: str
    reference: str
    kind: str
    target: str  # what was found: a qualified name, a file, a flag

    @property
    def statement(self) -> str:
        return self.sentence.text


@dataclass
class PageReport:
    page: str
    proposals: list[Proposal] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)
    already: int = 0
    broken: list[dict[str, Any]] = field(default_factory=list)
    ambiguous: list[dict[str, Any]] = field(default_factory=list)
    unknown: int = 0
    no_claim: int = 0  # resolved, in a heading, table, HTML or a sentence of references only
    repeated: int = 0  # resolved to lines its sentence cites already in this run (a link beside its path)
    references: int = 0
    front_matter_added: bool = False
    refused: str | None = None  # the verify_policy rule that forbids ground's claims on this page


def source_index(ws: Workspace, source: str = "worktree") -> Any:
    from openwiki_git.ground.index import SourceIndex

    def read(path: str) -> str | None:
        try:
            return ws.repo.read(path, source).text
        except OSError:
            return None

    wiki_prefix = ws.config.wiki_dir.rstrip("/") + "/"
    tracked = _tracked(ws)
    paths = [p for p in tracked if not p.startswith(wiki_prefix)]
    return SourceIndex(paths, read, files=tracked)  # a link to the docs' own image is no code, but it exists


def _tracked(ws: Workspace) -> list[str]:
    return [entry.path for entry in ws.repo.index]


def plan_page(ws: Workspace, page: str, index: Any, sidecar: Sidecar | None, text: str) -> PageReport:
    """What grounding `page` would add, and its broken and ambiguous references. Reads only."""
    from openwiki_git.ground import resolve as gr

    rep = PageReport(page)
    found = ground_refs.page_refs(text, page_blocks(page))
    rep.references = len(found.refs)
    claims = sidecar.claims if sidecar else ()
    grounded = {(c.statement, _span(e.resource)) for c in claims for e in c.evidence}
    by_label = {citations.label(c.id): c for c in claims}
    seen: set[tuple[str, tuple[str, int, int]]] = set()
    page_repo = ws.wiki.repo_path(page)
    for ref in found.refs:
        res = gr.resolve(ref, index, page_repo_path=page_repo, local_names=found.local_names)
        where = {"reference": ref.raw, "kind": ref.kind, "line": ref.sentence.line, "statement": ref.sentence.text}
        if res.outcome == gr.BROKEN:
            rep.broken.append({**where, "reason": res.reason})
        elif res.outcome == gr.AMBIGUOUS:
            rep.ambiguous.append({**where, "candidates": list(res.candidates)})
        elif res.outcome == gr.UNKNOWN:
            rep.unknown += 1
        else:
            assert res.target is not None
            if not ref.sentence.claimable:
                rep.no_claim += 1
                continue
            span = _span(res.target.resource)
            marked = {_span(e.resource) for lab in ref.sentence.markers if lab in by_label for e in by_label[lab].evidence}
            if any(_overlap(span, s) for st, s in grounded if st == ref.sentence.text) or any(_overlap(span, s) for s in marked):
                rep.already += 1  # the sentence cites these lines already (perhaps moved since)
                continue
            if (ref.sentence.text, span) in seen:
                rep.repeated += 1
                continue
            seen.add((ref.sentence.text, span))
            cited = gr.named_resource(index, res.target, ref.sentence.text)  # the name, not only its lines
            rep.proposals.append(Proposal(page, ref.sentence, cited, ref.raw, ref.kind, res.target.qualname))
    return rep


def _span(resource: str) -> tuple[str, int, int]:
    path, _, lines = resource.removeprefix("repo://").partition("#")
    if not lines.startswith("L"):
        return path, 0, 10**9
    start, _, end = lines.partition("-")
    return path, int(start[1:]), int(end[1:] or start[1:])


def _overlap(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    return a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


def apply_page(
    ws: Workspace, rep: PageReport, *, add_front_matter: bool, taken: set[str], labels: set[str], source: str = "worktree"
) -> None:
    """Write the page's proposals as claims (the caller holds the wiki lock). `taken`, `labels`:
    the wiki's claim ids and their marker labels, read once per run and kept up to date here."""
    from openwiki_git.store import editing
    from openwiki_git.store.editing import new_claim_id, resolve_new_evidence
    from openwiki_git.store.workspace import now_iso

    text = ws.page_text(rep.page) or ""
    needs_fm = add_front_matter and not opens(text)
    if not rep.proposals and not needs_fm:
        return
    sidecar = ws.wiki.load(rep.page) or editing.new_sidecar(rep.page)
    now = now_iso()
    new: list[tuple[Proposal, Claim]] = []
    for prop in rep.proposals:
        evidence = resolve_new_evidence(ws, [prop.resource], source)
        cid = stable_id(rep.page, prop.statement, [prop.resource], taken, labels) or new_claim_id(taken)
        claim = Claim(cid, prop.statement, tuple(evidence), now, GROUND_BY)
        taken.add(claim.id)
        labels.add(citations.label(claim.id))
        new.append((prop, claim))
    editing.preflight(ws.wiki, [rep.page])

    def edit(current: str) -> str:
        out = insert_markers(current, [(p.sentence, c.id) for p, c in new], rst=pagenames.is_rst(rep.page))
        return MINIMAL_FRONT_MATTER + out if needs_fm and not opens(out) else out

    editing.save_page(ws.wiki, sidecar.replace(claims=(*sidecar.claims, *(c for _, c in new))), edit=edit)
    rep.front_matter_added = needs_fm
    for prop, claim in new:
        rep.added.append({"id": claim.id, "statement": prop.statement, "evidence": claim.evidence[0].resource,
                          "reference": prop.reference, "kind": prop.kind, "target": prop.target, "line": prop.sentence.line})


def stable_id(page: str, statement: str, resources: list[str], taken: set[str], labels: set[str] | None = None) -> str | None:
    """The claim id `ground` gives a sentence and its evidence: the same on every run and machine
    (a nightly pull request rebuilt from the base branch changes nothing but timestamps); None
    when that id or its marker label is taken (`labels`: the labels of `taken`, when known)."""
    digest = hashlib.sha256("\0".join([page, statement, *resources]).encode("utf-8")).hexdigest()[:32]
    cid = "claim_" + digest
    if labels is None:
        labels = {citations.label(t) for t in taken}
    if cid in taken or citations.label(cid) in labels:
        return None
    return cid


def ground_pages(
    ws: Workspace, pages: list[str], index: Any, *, add_front_matter: bool, plan: bool, source: str = "worktree",
    progress: Callable[[int, int], None] | None = None,
) -> list[PageReport]:
    """The deterministic pass over `pages`: each page planned and (unless `plan`) written under
    the wiki lock, one page at a time; `progress(done, total)` after each."""
    reports = []
    taken = {c.id for sc in ws.wiki.load_all().values() for c in sc.claims}
    labels = {citations.label(t) for t in taken}
    for done, page in enumerate(pages):  # `progress` before each page (0/N first) and once after the last
        if progress is not None:
            progress(done, len(pages))
        if plan:
            reports.append(plan_page(ws, page, index, ws.wiki.load(page), ws.page_text(page) or ""))
            continue
        rule = policy.forbidding(ws.config.verify_policy, page, GROUND_BY)
        if rule is not None:  # ground's claims verify the page: where the policy forbids the tool, nothing is written
            rep = plan_page(ws, page, index, ws.wiki.load(page), ws.page_text(page) or "")
            rep.refused = rule.describe()
            reports.append(rep)
            continue
        with ws.wiki.lock():  # a killed run leaves whole pages, grounded or not
            rep = plan_page(ws, page, index, ws.wiki.load(page), ws.page_text(page) or "")
            apply_page(ws, rep, add_front_matter=add_front_matter, taken=taken, labels=labels, source=source)
        reports.append(rep)
    if progress is not None and pages:
        progress(len(pages), len(pages))
    return reports


def proposed(reports: Iterable[PageReport]) -> frozenset[tuple[str, str]]:
    """(page, statement) of every sentence the pass grounds: the model pass skips them (a plan has
    not written them)."""
    return frozenset((r.page, p.statement) for r in reports for p in r.proposals)


def report_data(ws: Workspace, reports: list[PageReport], *, plan: bool, model: dict[str, Any] | None = None) -> dict[str, Any]:
    """`ground`'s report: per page what was (or, in a plan, would be) added, already grounded,
    broken, ambiguous, not this project's; the summary; the model pass's report when it ran."""
    pages: list[dict[str, Any]] = []
    for r in reports:
        added = r.added if not plan and not r.refused else [
            {"statement": p.statement, "evidence": p.resource, "reference": p.reference, "kind": p.kind, "target": p.target,
             "line": p.sentence.line}
            for p in r.proposals
        ]
        pages.append({
            "page": r.page, "page_path": ws.wiki.repo_path(r.page), "added": added, "already_grounded": r.already,
            "broken": r.broken, "ambiguous": r.ambiguous, "unknown": r.unknown, "references": r.references,
            "front_matter_added": r.front_matter_added,
            **({"refused_by_policy": r.refused} if r.refused else {}),
        })
        pages[-1].update(no_claim=r.no_claim, repeated=r.repeated)
    summary = {k: sum(len(p[k]) if isinstance(p[k], list) else int(p[k]) for p in pages)
               for k in ("references", "added", "already_grounded", "broken", "ambiguous", "unknown")}
    summary["refused_by_policy"] = sum(1 for r in reports if r.refused)
    out: dict[str, Any] = {"tool": PRODUCER, "wiki_dir": ws.config.wiki_dir, "plan": plan, "pages": pages, "summary": summary}
    # every reference is counted once: references == added + already_grounded + broken + ambiguous
    # + unknown + no_claim (headings, tables, bare lists of code spans) + repeated
    summary.update({k: sum(p[k] for p in pages) for k in ("no_claim", "repeated")})
    if model is not None:
        out["model"] = model
    return out


def page_blocks(page: str) -> ground_refs.Blocks | None:
    """How a page is read when it is not Markdown: a reStructuredText page through docutils."""
    if pagenames.is_rst(page):
        from openwiki_git.pages import rst

        return rst.blocks
    return None


def insert_markers(text: str, items: Iterable[tuple[Sentence, str]], *, rst: bool = False) -> str:
    """`text` with each claim's marker after its sentence (found again by its statement, the
    occurrence nearest the line it was read on); nothing else changes. In reStructuredText
    (`rst`) the marker is a comment line after the sentence's paragraph (rst_markers.py)."""
    ends: dict[int, list[str]] = {}
    blocks = page_blocks("page.rst") if rst else None
    sentences = ground_refs.all_sentences(text, blocks)
    for sentence, claim_id in items:
        same = [s for s in sentences if s.text == sentence.text]
        if not same:
            raise StoreError(f"{sentence.text[:60]!r}: the sentence is no longer in the page", "run ground again")
        at = min(same, key=lambda s: abs(s.line - sentence.line)).end
        ends.setdefault(at, []).append(citations.label(claim_id) if rst else citations.marker(claim_id))
    starts = {end: start for _, start, end in blocks(text)} if blocks is not None else {}
    for at in sorted(ends, reverse=True):
        if rst:
            text = rst_markers.insert(text, at, ends[at], rst_markers.indent_of(text, starts.get(at, at)))
        else:
            text = text[:at] + "".join(ends[at]) + text[at:]
    return text


def grounded_pages(sidecars: dict[str, Sidecar]) -> list[str]:
    """Pages `ground` has grounded: they hold a claim its deterministic pass made. Not every
    `model:` claim: the refresher records its confirmations that way too, and a page a nightly
    refresh touched has not opted in to the broken-reference check."""
    return sorted(p for p, sc in sidecars.items() if any(c.verified_by == GROUND_BY for c in sc.claims))


CACHE_NAME = "ground-broken-v1.json"  # under <git dir>/openwiki-git/: derived data
RACY_NS = 2_000_000_000  # as checkcache: a file changed within 2 s of the run may change unseen


def broken_references(ws: Workspace, sidecars: dict[str, Sidecar], source: str = "worktree") -> list[dict[str, Any]]:
    """The check/lint entry point: broken references on grounded pages, each
    `{page, page_path, line, reference, kind, statement, reason}`. References whose sentence a
    claim already grounds are left to the claim (check reports it stale when the code changes).

    On the working tree the answer is cached, keyed by the grounded pages' text and claims and by
    the stat of every tracked file: an unchanged repository costs a stat per file, no parse."""
    pages = grounded_pages(sidecars)
    if not pages:
        return []
    texts = {p: ws.page_text(p) for p in pages}
    key, racy = _cache_key(ws, texts, sidecars) if source == "worktree" else (None, True)
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


def _cache_key(ws: Workspace, texts: dict[str, str | None], sidecars: dict[str, Sidecar]) -> tuple[str, bool]:
    h = hashlib.sha256(PRODUCER.encode("utf-8"))
    for page, text in sorted(texts.items()):
        h.update(json.dumps([page, text, sorted(c.statement for c in sidecars[page].claims)]).encode("utf-8"))
    limit = time.time_ns() - RACY_NS
    racy = False
    for path in sorted(_tracked(ws)):
        try:
            st = os.stat(ws.repo.root / path)
        except OSError:
            h.update(f"{path}\0-\n".encode())
            continue
        racy = racy or st.st_mtime_ns >= limit  # written just now: a change within the tick is unseen
        h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_size}\0{st.st_ino}\n".encode())
    return h.hexdigest(), racy


def _broken(ws: Workspace, sidecars: dict[str, Sidecar], texts: dict[str, str | None], source: str) -> list[dict[str, Any]]:
    from openwiki_git.ground import resolve as gr

    index = None
    out = []
    for page, text in texts.items():
        if text is None:
            continue
        found = ground_refs.page_refs(text, page_blocks(page))
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
