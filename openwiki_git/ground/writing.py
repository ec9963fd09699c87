"""`ground`'s run: the pages planned (deterministic.py), checked, then written, all or nothing.

Every page is planned first and every page the run would write is rendered as it would be
written (the citations block, the projected front matter) without writing: a page that cannot be
written (front matter without `type:`, malformed front matter) stops the run with exit 2 naming
it and the fix, before any page is written. `--add-front-matter` gives a page without front
matter the minimal OKF one and adds `type: Reference` to front matter that lacks it. `--plan`
runs the same planning and the same check, and writes nothing: what it shows is what the run
writes. Pages are then written one at a time (page, then sidecar, each atomically), the whole
run under the wiki lock: a killed run leaves whole pages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from openwiki_git.claims import policy
from openwiki_git.errors import SchemaError, StoreError
from openwiki_git.formats import pagenames
from openwiki_git.ground import deterministic as planning
from openwiki_git.ground import pageformat, scope
from openwiki_git.ground.broken import GROUND_BY, excluded
from openwiki_git.ground.deterministic import PageReport
from openwiki_git.ground.planned import Context, Proposal
from openwiki_git.model import Claim, Sidecar
from openwiki_git.pages import citations
from openwiki_git.pages.frontmatter_core import opens
from openwiki_git.store.workspace import Workspace

MINIMAL_FRONT_MATTER = "---\ntype: Reference\n---\n\n"
Planner = Callable[[Context, str, Sidecar | None, str], PageReport]


@dataclass(frozen=True)
class Run:
    """What `ground` was asked: the pages (`named`: named on the command line, not found by --all)."""

    pages: tuple[str, ...]
    named: bool = False
    plan: bool = False
    add_front_matter: bool = False
    source: str = "worktree"
    reground: bool = False  # ground sentences whose claim was retracted, too
    progress: Callable[[int, int], None] | None = None


def ground_pages(ws: Workspace, run: Run, index: Any, planner: Planner = planning.plan_page) -> list[PageReport]:
    """Every page planned, the pages to write checked, then (unless a plan) written; under the
    wiki lock from the first read to the last write. `progress(done, total)` while planning."""
    if run.plan:
        return _planned(ws, run, index, planner)
    with ws.wiki.lock():
        reports = _planned(ws, run, index, planner)
        for rep in reports:
            if rep.proposals and not rep.refused or _front_matter_edit(ws, rep, run) is not None:
                apply_page(ws, rep, run)
    return reports


def _planned(ws: Workspace, run: Run, index: Any, planner: Planner) -> list[PageReport]:
    sidecars = ws.wiki.load_all()
    taken = {c.id for sc in sidecars.values() for c in sc.claims}
    ctx = Context(ws, index, taken, {citations.label(t) for t in taken}, run.source, run.reground)
    exclude = excluded(ws)
    reports = []
    for done, page in enumerate(run.pages):
        if run.progress is not None:
            run.progress(done, len(run.pages))
        text = ws.page_text(page) or ""
        why = scope.left_alone(page, text, exclude, named=run.named)
        if why is not None:
            reports.append(PageReport(page, left_alone=why))
            continue
        rep = planner(ctx, page, sidecars.get(page), text)
        rule = policy.forbidding(ws.config.verify_policy, page, GROUND_BY)
        if rule is not None:  # ground's claims verify the page: where the policy forbids the tool, nothing is written
            rep.refused = rule.describe()
        reports.append(rep)
    if run.progress is not None and run.pages:
        run.progress(len(run.pages), len(run.pages))
    preflight(ws, reports, run)
    return reports


def preflight(ws: Workspace, reports: list[PageReport], run: Run) -> None:
    """Render every page the run would write, writing nothing; raise SchemaError (exit 2) naming
    every page that could not be written, and the fix."""
    from openwiki_git.store import editing

    failed: list[str] = []
    for rep in reports:
        fm = _front_matter_edit(ws, rep, run)
        if rep.refused or not rep.proposals and fm is None:
            continue
        sidecar = _updated(ws, rep)
        try:
            editing.render_page(ws.wiki, sidecar, edit=_page_edit(rep, fm))
        except (SchemaError, StoreError) as e:
            failed.append(e.message)
    if failed:
        more = f" (and {len(failed) - 1} more page(s))" if len(failed) > 1 else ""
        raise SchemaError(
            f"{failed[0]}{more}; nothing was written",
            "fix the front matter, or run again with --add-front-matter (adds `type: Reference` where it is missing)"
            + ("" if len(failed) == 1 else ": " + "; ".join(failed[1:6])),
        )


def apply_page(ws: Workspace, rep: PageReport, run: Run) -> None:
    """Write the page's proposals (the caller holds the wiki lock)."""
    from openwiki_git.store import editing

    fm = _front_matter_edit(ws, rep, run)
    writing = rep if not rep.refused else PageReport(rep.page)
    if not writing.proposals and fm is None:
        return
    editing.save_page(ws.wiki, _updated(ws, writing), edit=_page_edit(writing, fm))
    rep.front_matter_added = fm is not None


def _updated(ws: Workspace, rep: PageReport) -> Sidecar:
    """The page's sidecar with the proposals: new claims appended, extended ones given their new
    evidence; the tombstones of sentences grounded again dropped."""
    from openwiki_git.store import editing
    from openwiki_git.store.workspace import now_iso

    sidecar = ws.wiki.load(rep.page) or editing.new_sidecar(rep.page)
    now = now_iso()
    claims = list(sidecar.claims)
    for prop in rep.proposals:
        if prop.extends:
            claims = [c.replace(evidence=(*c.evidence, *prop.evidence)) if c.id == prop.claim_id else c for c in claims]
        else:
            claims.append(Claim(prop.claim_id, prop.statement, prop.evidence, now, GROUND_BY))
    grounded = {p.statement for p in rep.proposals}
    return sidecar.replace(claims=tuple(claims), retracted=tuple(t for t in sidecar.retracted if t.statement not in grounded))


def _page_edit(rep: PageReport, front_matter: Callable[[str], str] | None) -> Callable[[str], str]:
    new = [p for p in rep.proposals if not p.extends]

    def edit(text: str) -> str:
        out = pageformat.insert_markers(text, [(s, p.claim_id) for p in new if p.place is None for s in (p.sentence, *p.also)], rep.page)
        for p in new:
            if p.place is not None:
                out = p.place(out, p.claim_id)
        return front_matter(out) if front_matter is not None else out

    return edit


def _front_matter_edit(ws: Workspace, rep: PageReport, run: Run) -> Callable[[str], str] | None:
    """With --add-front-matter: the edit that gives the page the minimal OKF front matter, or
    `type: Reference` in front matter without one; None when the page needs neither."""
    if not run.add_front_matter or rep.left_alone or rep.refused or pagenames.is_rst(rep.page):
        return None  # a reStructuredText page has no Markdown front matter
    text = ws.page_text(rep.page) or ""
    if not opens(text):
        return lambda out: MINIMAL_FRONT_MATTER + out if not opens(out) else out
    from openwiki_git.pages import frontmatter

    try:
        fm = frontmatter.parse(text, filename=ws.wiki.repo_path(rep.page))
    except SchemaError:
        return None  # malformed: the preflight names it
    if fm is None or fm.data.get("type"):
        return None
    return lambda out: frontmatter.edit(out, {"type": "Reference"}, filename=ws.wiki.repo_path(rep.page))


def proposals_of(reports: Iterable[PageReport]) -> list[Proposal]:
    return [p for r in reports if not r.refused for p in r.proposals]
