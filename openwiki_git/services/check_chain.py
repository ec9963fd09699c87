"""`check`'s judging: every claim judged (through the check cache when it can answer), the
page's and the wiki's findings added, `--fix` applied, and the CI report of a commit range. `run(CheckOptions)` is the
one entry: it returns the report as data (`Checked`), which `cli/check_output.py` renders.
A warm run with nothing changed is answered by `checkcache.answer()` from the standard library alone: this module
imports the model, the checker, git and pygit2 only when something must be judged (test_check_imports keeps it so).
"""

from __future__ import annotations

from openwiki_git import PRODUCER
from openwiki_git.caches import check_entries as checkcache
from openwiki_git.claims import records
from openwiki_git.services.check_report import Report, assemble, items_of, sidecar_loader

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from openwiki_git.caches.check_reuse import Judged
    from openwiki_git.model import ClaimResult
    from openwiki_git.services.check_unchanged import UnchangedAnswer
    from openwiki_git.store.workspace import Workspace


class CheckOptions:
    """What to check and what to report. A plain class with slots, not a dataclass (which imports
    inspect) nor a NamedTuple (whose class costs about half a millisecond to build): the warm
    answer's every import counts (tests/caches/test_check_imports.py)."""

    __slots__ = ("directory", "wiki_dir", "source", "pages", "fix", "use_cache", "base", "head", "every", "only_problems")

    def __init__(
        self, *,
        directory: str | None = None,  # where the repository is found (-C); None: the current directory
        wiki_dir: str | None = None,  # --wiki-dir; None: the config's
        source: str = "worktree",  # where evidence is read: worktree, index or a revision
        pages: tuple[str, ...] = (),  # only these pages' claims (none: every page)
        fix: bool = False,  # re-anchor, mark and clear marks first (never through the cache)
        use_cache: bool = True,  # False: neither use nor update the check cache
        base: str | None = None,  # CI: the claims made stale between merge-base(base, head) and head
        head: str | None = None,  # with base: the head commit (None: HEAD)
        every: bool = True,  # list every claim, fresh ones too (else the notable ones)
        only_problems: bool = False,  # list only the problems and say so (`"only_problems": true`)
    ) -> None:
        self.directory, self.wiki_dir, self.source, self.pages = directory, wiki_dir, source, pages
        self.fix, self.use_cache, self.base, self.head = fix, use_cache, base, head
        self.every, self.only_problems = every, only_problems


class Checked:
    """What `run` found: the `report` (check_report.Report: text, JSON and the hook's view are
    rendered from it); `ok`: exit 0; `written`: the files --fix rewrote."""

    __slots__ = ("report", "ok", "written")

    def __init__(self, report: Report, ok: bool, written: tuple[str, ...] = ()) -> None:
        self.report, self.ok, self.written = report, ok, written


def run(options: CheckOptions) -> Checked:
    """Every page of the wiki through one chain of stages, each giving the same per-page entry
    (caches/check_entries.py's: summary, notable records, unmarked ids, findings), then one report
    assembled from the entries (check_report.assemble):

    1. the cache entry, while it still holds (caches/check_entries.py; `--no-cache`, `--fix` and another
       `--source` turn this stage off);
    2. else the quick judge, when every cited range's bytes are unchanged (check_unchanged.py;
       on with the cache off; `--fix` and `--page` turn it off);
    3. else the full rule (claims/freshness.py, through caches/check_reuse.py's _FullRule).

    Stages 1 and 2 first try the whole wiki from the standard library, before git is opened (a
    warm check, CI's plainly fresh wiki); otherwise the Workspace is opened and each page keeps
    its held cache entry or the quick judge's answer, or is judged by the full rule.
    `--base` is another rule (the claims a commit range touched, hook/engine.py), whose entries
    go through the same assembler."""
    if options.base:
        return _range(options)
    cache = options.use_cache and not options.fix and options.source == "worktree"  # stage 1
    quick = not (cache or options.fix or options.pages) and options.source == "worktree"  # stage 2
    loaded = checkcache.load(options.directory) if cache else None  # the cache file, read once
    if cache and not options.pages:
        cached = checkcache.answer(options.directory, options.wiki_dir, loaded)
        if cached is not None:  # stage 1 for every page: nothing changed since the last run, no git
            return _answered(options, cached)
    lean = None
    if quick:
        from openwiki_git.services import check_unchanged

        lean = check_unchanged.answer_unchanged(options.directory, options.wiki_dir)
        if lean is not None and not lean.rest:  # stage 2 for every page: each claim plainly fresh, no git
            return _assemble(options, lean.wiki_dir, lean.entries, lean.pages, lean.items, {}, {}, lean.site)
    trusted = checkcache.trusted_location(options.directory, loaded) if cache else None
    ws = _workspace(options) if trusted is None else _located_workspace(options, *trusted[:3])
    return _judged(ws, options, cache, trusted[3] if trusted is not None else None, lean)


def _workspace(options: CheckOptions) -> Workspace:
    from pathlib import Path

    from openwiki_git.store.workspace import Workspace

    return Workspace.open(Path(options.directory) if options.directory else None, wiki_dir=options.wiki_dir)


def _located_workspace(options: CheckOptions, root: str, git_dir: str, tracked: frozenset[str]) -> Workspace:
    """Workspace.open() for a repository the cache vouches for: git (pygit2) is opened only if
    this run needs it (a file not known to be tracked, line-ending rules, another source)."""
    from pathlib import Path

    from openwiki_git.git.repo import Repo
    from openwiki_git.store.workspace import Workspace

    repo = Repo.located(root, git_dir, tracked)
    return Workspace.on(repo, wiki_dir=options.wiki_dir, git_dir=Path(git_dir))


def _answered(options: CheckOptions, cached: dict[str, Any]) -> Checked:
    """The report of the cache's fast answer (checkcache.answer)."""
    entries = cached["pages"]
    site = bool(cached.get("site"))  # what the run that wrote it found (checkcache.answer: still so)
    loader = sidecar_loader(cached["root"], cached["wiki_dir"], entries, site)
    pages = sorted(entries)
    late, notices = _wiki_findings(lambda: _workspace(options), entries, pages)
    return _assemble(options, cached["wiki_dir"], entries, pages, loader, late, notices, site)


def _judged(ws: Workspace, options: CheckOptions, cache: bool, cached: dict[str, Any] | None,
            lean: UnchangedAnswer | None = None) -> Checked:
    """The chain page by page (caches/check_reuse.reuse_or_judge): each page's entry reused while its keys
    hold (`cache`), or the quick judge's (`lean`), else the page judged by the full rule; `--fix`
    rewrites the pages from the judged results first, and what is true after the fix is reported."""
    wanted = {ws.wiki.normalize_page(p) for p in options.pages} if options.pages else None
    if lean is not None and (lean.wiki_dir != ws.config.wiki_dir or lean.site != (ws.wiki.site is not None)):
        lean = None  # the quick judge read the wiki otherwise than the Workspace does: the full rule judges
    with checkcache.no_gc():  # tens of thousands of records and no cycles: skip the collector's passes
        judged = page_entries(ws, options, use_cache=cache, cached=cached, wanted=wanted, known=lean.entries if lean is not None else None)
        written: list[str] = []
        if options.fix:
            written = apply_fix(ws, judged.results, pages=wanted)
            if written:  # report what is true after the fix
                judged = page_entries(ws, options, use_cache=False, wanted=wanted)
    pages, site = [p for p in judged.pages if p in judged.entries and (wanted is None or p in wanted)], ws.wiki.site is not None

    def items(page: str) -> Iterator[records.Item]:
        if lean is not None and page in lean.claims:
            yield from lean.items(page)
            return
        sc = judged.sidecars.get(page) or ws.wiki.load(page)
        yield from items_of(page, f"{ws.config.wiki_dir}/{page}", judged.entries[page], sc, site)

    late, notices = _wiki_findings(lambda: ws, judged.entries, pages, judged.sidecars, options.source)
    return _assemble(options, ws.config.wiki_dir, judged.entries, pages, items, late, notices, site, tuple(written))


def _assemble(
    options: CheckOptions, wiki_dir: str, entries: dict[str, Any], pages: list[str], items: Callable[[str], Iterable[records.Item]],
    late: dict[str, list[Any]], notices: dict[str, list[Any]], site: bool = False, written: tuple[str, ...] = (),
) -> Checked:
    """The report of `pages` (check_report.assemble), with the head of this run."""
    head = {"$schema": records.REPORT_SCHEMA_ID, "tool": PRODUCER, "wiki_dir": wiki_dir, "source": options.source}
    out = assemble(head, entries, pages, items, every=options.every, only_problems=options.only_problems, late=late,
                   notices=notices, site=site)
    return Checked(out, is_clean(out.tail), written)


def page_entries(ws: Workspace, options: CheckOptions, *, use_cache: bool, cached: dict[str, Any] | None = None,
          wanted: set[str] | None = None, known: dict[str, Any] | None = None) -> Judged:
    from datetime import UTC, datetime

    from openwiki_git.caches import check_reuse

    site = ws.wiki.site is not None  # the records' markers' form
    return check_reuse.reuse_or_judge(
        ws, cached=cached, wiki_dir_arg=options.wiki_dir, use_cache=use_cache, source=options.source, wanted=wanted,
        keep_results=options.fix, known=known,
        record=lambda r: (None if records.is_plainly_fresh(r) or records.is_plainly_fresh_unmarked(r)
                          else records.claim_data(r, ws.config.wiki_dir, site)),
        findings=lambda page, text, sc: page_findings(ws, page, text, sc), now=datetime.now(UTC),
    )


def page_findings(ws: Workspace, page: str, text: str | None, sidecar: Any = None) -> dict[str, list[Any]]:
    """THE place for a page's extra findings (beyond its claims' verdicts), e.g. broken references
    in its prose or claims citing superseded documents: `{report key: [JSON-able records]}`.

    They are computed only when the page is judged (its sidecar, page or a cited file changed),
    kept with the page's entry in the check cache, and merged into the report by check_report.assemble(): each
    key becomes a top-level list of the report (pages in order), after `summary`. Add the key to
    schemas/check-report.schema.json. A finding that depends on a file other than the page and
    its cited files must make the cache key depend on it too (checkcache.cache_key), or be a
    wiki-wide finding (_wiki_findings). Keys starting with "_" are flags for those, never reported."""
    from openwiki_git.graph import citestale
    from openwiki_git.ground import deterministic as ground
    from openwiki_git.services import check_examples

    found: dict[str, list[Any]] = {}
    if sidecar is not None and ws.config.verify_policy:  # the config is a key of the check cache
        from openwiki_git.claims import policy

        problems = policy.problems(ws.config.verify_policy, page, sidecar.claims)
        if problems:
            found["policy_problems"] = problems
    if sidecar is not None and ground.grounded_pages({page: sidecar}):
        found["_grounded"] = [True]  # broken references depend on every tracked file: _wiki_findings
    found.update(check_examples.findings(ws, page, text, sidecar))  # its guarded code examples' broken calls
    if sidecar is not None and citestale.cited_documents(sidecar.claims, ws.config.wiki_dir):
        found["_cites_documents"] = [True]  # a document's standing is decided by other documents too
    return found


def _wiki_findings(
    workspace: Callable[[], Workspace], entries: dict[str, Any], pages: list[str], sidecars: dict[str, Any] | None = None,
    source: str = "worktree",
) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """Findings that depend on more than a page and the files it cites, so that the per-page
    cache cannot keep them: broken code references on the pages `ground` grounded (they depend
    on every tracked file; ground.broken_references keeps its own cache, keyed on them all).
    Claims citing a superseded or later-amended document likewise: what replaces a document is
    said in other documents (graph/doc_standing.py's document_standing caches it, keyed on every document).
    Only a wiki with such pages pays for it (and opens git for it on the fast path). Returns the
    report's extra keys, and the notices by claim id (for the claims' own records)."""
    grounded = [p for p in pages if entries[p]["findings"].get("_grounded")]
    citing = [p for p in pages if entries[p]["findings"].get("_cites_documents")]
    if not (grounded or citing):
        return {}, {}
    from openwiki_git.ground import deterministic as ground

    ws = workspace()
    known = sidecars or {}
    loaded: dict[str, Any] = {p: known.get(p) or ws.wiki.load(p) for p in {*grounded, *citing}}
    out: dict[str, Any] = {}
    if grounded:
        broken = ground.broken_references(ws, {p: loaded[p] for p in grounded if loaded[p] is not None}, source)
        if broken:
            out["broken_references"] = broken
    claims = {c.id: (p, c) for p in citing if loaded[p] is not None for c in loaded[p].claims}
    notices = _stale_citations(ws, [c for _, c in claims.values()]) if claims else {}
    if notices:
        shell: dict[str, Any] = {"claims": [], "summary": {}}
        records.add_cited_documents(shell, notices, {cid: ws.wiki.repo_path(p) for cid, (p, _) in claims.items()})
        out["superseded_sources"] = shell["superseded_sources"]
    return out, notices


def _stale_citations(ws: Workspace, claims: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """Claims citing a superseded or later-amended document (citestale): nothing read unless one cites Markdown outside the wiki."""
    from openwiki_git.graph import citestale

    if not citestale.cited_documents(claims, ws.config.wiki_dir):
        return {}
    from openwiki_git.graph.doc_standing import stale_citations

    return stale_citations(ws, claims)


def _range(options: CheckOptions) -> Checked:
    """`check --base`: the claims the commit range touched (ci_report's), through the same
    assembler. Every claim it touched is listed (`--only-problems` lists them all too)."""
    ws = _workspace(options)
    out = range_report(ws, options.base or "", options.head, every=options.every or options.only_problems)
    return Checked(out, is_clean_change(out.tail))


def ci_report(ws: Workspace, base: str, head: str | None) -> dict[str, Any]:
    """check --base's report as one dict (range_report's, every claim listed): the GitHub comment's input."""
    return range_report(ws, base, head).whole()


def range_report(ws: Workspace, base: str, head: str | None, *, every: bool = True) -> Report:
    """The claims that the changes from merge-base(BASE, HEAD) to HEAD touched, judged on the
    commits (never the working tree): the same report as `check --format json`, each evidence item
    with the `hunk` that changed it, plus `base` (the merge base), `head` and `base_rev`. Each
    page's touched claims make its entry (every record listed, in the range's order)."""
    from openwiki_git.caches.cites import CiteIndex
    from openwiki_git.claims.freshness import summarize
    from openwiki_git.git import diff as gitdiff
    from openwiki_git.graph import citestale
    from openwiki_git.hook import engine
    from openwiki_git.services.check_unchanged import sidecars_split

    head_id = ws.repo.commit_id(head or "HEAD")
    base_rev = ws.repo.commit_id(base)
    merge_base = gitdiff.merge_base(ws.repo, base_rev, head_id)
    diff = gitdiff.between(ws.repo, merge_base, head_id, rename_threshold=ws.config.rename_threshold)
    # A one-shot run (CI's fresh runner): no cited-path index is built; one scan of the sidecars
    # (on two CPUs for a large wiki) finds those citing the changed paths and those naming a document.
    split = sidecars_split()
    index = CiteIndex(ws.repo, engine.claims_dir(ws), persist=False, mention=citestale.DOCUMENT_MENTION, split=split)
    evaluation = engine.evaluate(ws, diff, current=head_id, index=index)
    results = _range_results(ws, head_id, evaluation.outcomes)
    site, wiki_dir = ws.wiki.site is not None, ws.config.wiki_dir
    by_page: dict[str, list[ClaimResult]] = {}
    for r in results:  # the outcomes come page by page (engine.evaluate)
        by_page.setdefault(r.page, []).append(r)
    entries: dict[str, dict[str, Any]] = {
        page: {"summary": summarize(rs), "notable": [records.claim_data(r, wiki_dir, site) for r in rs], "unmarked": "", "findings": {}}
        for page, rs in by_page.items()
    }
    late: dict[str, list[Any]] = {}
    # Every claim of the head commit whose cited document is superseded or amended since.
    citing = engine.sidecars_at(ws, head_id, index.sidecars_mentioning(head_id))
    claims = {c.id: (p, c) for p, sc in citing.items() for c in sc.claims}
    notices = _stale_citations(ws, [c for _, c in claims.values()])
    if notices:
        shell: dict[str, Any] = {"claims": [], "summary": {}}
        records.add_cited_documents(shell, notices, {cid: ws.wiki.repo_path(p) for cid, (p, _) in claims.items()})
        late["superseded_sources"] = shell["superseded_sources"]
    found = engine.policy_problems(ws, evaluation)  # e.g. a verifiedBy set by hand where the policy forbids it
    if found:
        late["policy_problems"] = found
    head_fields = {"$schema": records.REPORT_SCHEMA_ID, "tool": PRODUCER, "wiki_dir": wiki_dir, "source": head_id}
    return assemble(head_fields, entries, list(entries), lambda page: entries[page]["notable"], every=every, only_problems=False,
                    late=late, notices=notices, site=site, fields={"base": merge_base, "head": head_id, "base_rev": base_rev})


def _range_results(ws: Workspace, head_id: str, outcomes: list[Any]) -> list[ClaimResult]:
    """The claims the commit range touched, as check's results at the head (each page read once)."""
    from openwiki_git.formats import pagenames
    from openwiki_git.git import diff as gitdiff
    from openwiki_git.model import ClaimResult
    from openwiki_git.pages import citations

    by_page: dict[str, dict[str, str]] = {}  # page -> claim id -> statement
    for o in outcomes:
        by_page.setdefault(o.page, {})[o.before.id] = o.before.statement
    texts = {page: gitdiff.read(ws.repo, head_id, ws.wiki.repo_path(page)).text for page in by_page}
    strict = ws.config.strict_openwiki
    marked = {p: citations.marker_lines(t, ids, unmarked_page_ok=strict, statements=ids) if (t := texts[p]) is not None else {}
              for p, ids in by_page.items()}
    results = []
    for o in outcomes:
        notes = ([pagenames.page_gone(o.page)] if texts[o.page] is None else []) + o.notes()
        evidence, lines = tuple(e.result() for e in o.evidence), marked[o.page]
        results.append(ClaimResult(o.page, o.before, o.status, evidence, o.before.id in lines, False, tuple(notes), lines.get(o.before.id)))
    return results


def is_clean_change(data: dict[str, Any]) -> bool:
    """`check --base` passes: no claim the change touched is stale or unresolved, and no claim
    cites a superseded or amended document (missing markers and broken references do not count)."""
    s = data["summary"]
    return s["stale"] == 0 and s["unresolved"] == 0 and not data.get("superseded_sources") and not data.get("policy_problems")


def is_clean(data: dict[str, Any]) -> bool:
    """`check`: every claim fresh with its marker, no broken reference, nothing superseded cited."""
    s = data["summary"]
    return (s["stale"] == 0 and s["unresolved"] == 0 and s["missing_markers"] == 0
            and not data.get("broken_references") and not data.get("superseded_sources") and not data.get("policy_problems"))


def apply_fix(ws: Workspace, results: list[ClaimResult], *, pages: set[str] | None = None) -> list[str]:
    """Fix every sidecar (or only those of `pages`, from --page) and re-render its page."""
    from openwiki_git.claims import fix as fixer
    from openwiki_git.store import editing
    from openwiki_git.store.workspace import now_iso

    written: list[str] = []
    now = now_iso()
    with ws.wiki.lock():
        sidecars = ws.wiki.load_all()
        todo = []
        for sidecar in sidecars.values():
            if pages is not None and sidecar.page not in pages:
                continue
            fixed = fixer.fix_sidecar(sidecar, results, now)
            if fixed != sidecar or _needs_render(ws, fixed):
                todo.append(fixed)
        editing.preflight(ws.wiki, [f.page for f in todo])  # a malformed front matter: exit 2, nothing written
        for fixed in todo:
            written.extend(editing.save_page(ws.wiki, fixed))
    return written


def _needs_render(ws: Workspace, sidecar: Any) -> bool:
    from openwiki_git.pages import citations
    from openwiki_git.store import editing

    text = ws.page_text(sidecar.page)
    if text is None:
        return False
    claims = editing.rendered_claims(ws.wiki, text, sidecar)
    return citations.sync(text, ws.wiki.repo_path(sidecar.page), claims) != text
