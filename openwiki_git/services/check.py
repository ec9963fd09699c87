"""`check`'s judging: every claim judged (through the check cache when it can answer), the
page's and the wiki's findings added, `--fix` applied, and the CI report of a commit range. `run(CheckOptions)` is the
one entry: it returns the report as data (`Checked`), which `cli/report.py` renders.
A warm run with nothing changed is answered by `checkcache.answer()` from the standard library alone: this module
imports the model, the checker, git and pygit2 only when something must be judged (test_check_imports keeps it so).
"""

from __future__ import annotations

from openwiki_git import PRODUCER
from openwiki_git.caches import check as checkcache
from openwiki_git.claims import report
from openwiki_git.services.check_stream import Stream, items_of, sidecar_loader, stream

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from openwiki_git.caches.check_reuse import Judged
    from openwiki_git.model import ClaimResult
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
    """What `run` found: the whole report (`data`), or for a run of the cache, its `stream`; `ok`:
    exit 0; `written`: the files --fix rewrote; `site`: site mode (the markers' form)."""

    __slots__ = ("data", "stream", "ok", "written", "site")

    def __init__(self, data: dict[str, Any] | None, stream: Stream | None, ok: bool, written: tuple[str, ...] = (),
                 site: bool = False) -> None:
        self.data, self.stream, self.ok, self.written, self.site = data, stream, ok, written, site


def run(options: CheckOptions) -> Checked:
    uses_cache = not (options.base or options.fix or not options.use_cache)
    if not (uses_cache or options.base or options.fix or options.pages) and options.source == "worktree":
        from openwiki_git.services import check_unchanged

        lean = check_unchanged.judge(options.directory, options.wiki_dir)
        if lean is not None:  # every claim plainly fresh: the report follows from the sidecars (check_unchanged.py)
            return _streamed(options, lean.wiki_dir, lean.entries, lean.pages, lean.items, {}, {}, lean.site)
    loaded = checkcache.load(options.directory) if uses_cache else None  # the cache file, read once
    if uses_cache and not options.pages and options.source == "worktree":
        cached = checkcache.answer(options.directory, options.wiki_dir, loaded)
        if cached is not None:  # nothing changed since the last run: no git, no judging
            return _answered(options, cached)
    trusted = checkcache.trusted_location(options.directory, loaded) if uses_cache else None
    ws = _workspace(options) if trusted is None else _located_workspace(options, *trusted[:3])
    if options.base:
        data = ci_report(ws, options.base, options.head)
        return Checked(data, None, is_clean_change(data), site=ws.wiki.site is not None)
    if options.source != "worktree" or options.fix or not options.use_cache:
        return _run_uncached(ws, options)  # the reference the cache is tested against (test_check_differential)
    return _run_cached(ws, options, trusted[3] if trusted is not None else None)


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
    return _streamed(options, cached["wiki_dir"], entries, pages, loader, late, notices, site)


def _run_cached(ws: Workspace, options: CheckOptions, cached: dict[str, Any] | None) -> Checked:
    """Every page's entry reused while its keys hold, the others judged and cached again."""
    with checkcache.no_gc():  # tens of thousands of records and no cycles: skip the collector's passes
        judged = judge(ws, options, use_cache=True, cached=cached)
    wanted = _wanted(ws, options)
    pages, site = [p for p in judged.pages if wanted is None or p in wanted], ws.wiki.site is not None

    def items(page: str) -> Iterator[report.Item]:
        sc = judged.sidecars.get(page) or ws.wiki.load(page)
        yield from items_of(page, f"{ws.config.wiki_dir}/{page}", judged.entries[page], sc, site)

    late, notices = _wiki_findings(lambda: ws, judged.entries, pages, judged.sidecars)
    return _streamed(options, ws.config.wiki_dir, judged.entries, pages, items, late, notices, site)


def _streamed(
    options: CheckOptions, wiki_dir: str, entries: dict[str, Any], pages: list[str], items: Callable[[str], Iterable[report.Item]],
    late: dict[str, list[Any]], notices: dict[str, list[Any]], site: bool = False,
) -> Checked:
    """The streamed report of `pages` (check_stream.stream), with the head of this run."""
    head = {"$schema": report.REPORT_SCHEMA_ID, "tool": PRODUCER, "wiki_dir": wiki_dir, "source": options.source}
    out = stream(head, entries, pages, items, every=options.every, only_problems=options.only_problems, late=late,
                 notices=notices, site=site)
    return Checked(None, out, is_clean(out.tail), site=site)


def judge(ws: Workspace, options: CheckOptions, *, use_cache: bool, cached: dict[str, Any] | None = None) -> Judged:
    from datetime import UTC, datetime

    from openwiki_git.caches import check_reuse

    site = ws.wiki.site is not None  # the records' markers' form
    return check_reuse.judge(
        ws, cached=cached, wiki_dir_arg=options.wiki_dir, use_cache=use_cache,
        record=lambda r: None if report.is_plain(r) or report.is_plain_unmarked(r) else report.claim_data(r, ws.config.wiki_dir, site),
        findings=lambda page, text, sc: page_findings(ws, page, text, sc), now=datetime.now(UTC),
    )


def page_findings(ws: Workspace, page: str, text: str | None, sidecar: Any = None) -> dict[str, list[Any]]:
    """THE place for a page's extra findings (beyond its claims' verdicts), e.g. broken references
    in its prose or claims citing superseded documents: `{report key: [JSON-able records]}`.

    They are computed only when the page is judged (its sidecar, page or a cited file changed),
    kept with the page's entry in the check cache, and merged into the report by check_stream.stream(): each
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
    workspace: Callable[[], Workspace], entries: dict[str, Any], pages: list[str], sidecars: dict[str, Any] | None = None
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
        broken = ground.broken_references(ws, {p: loaded[p] for p in grounded if loaded[p] is not None})
        if broken:
            out["broken_references"] = broken
    claims = {c.id: (p, c) for p in citing if loaded[p] is not None for c in loaded[p].claims}
    notices = _stale_citations(ws, [c for _, c in claims.values()]) if claims else {}
    if notices:
        shell: dict[str, Any] = {"claims": [], "summary": {}}
        report.add_cited_documents(shell, notices, {cid: ws.wiki.repo_path(p) for cid, (p, _) in claims.items()})
        out["superseded_sources"] = shell["superseded_sources"]
    return out, notices


def _wanted(ws: Workspace, options: CheckOptions) -> set[str] | None:
    return {ws.wiki.normalize_page(p) for p in options.pages} if options.pages else None


def _run_uncached(ws: Workspace, options: CheckOptions) -> Checked:
    """--fix, --no-cache and sources other than the working tree: every claim judged, the report
    built whole."""
    results, extra = collect(ws, options)
    written: list[str] = []
    if options.fix:
        written = apply_fix(ws, results, pages=_wanted(ws, options))
        if written:  # report what is true after the fix
            results, extra = collect(ws, options)
    data = report.build(results, wiki_dir=ws.config.wiki_dir, source=options.source, extra=extra, site=(site := ws.wiki.site is not None))
    report.add_cited_documents(
        data, _stale_citations(ws, [r.claim for r in results]), {r.claim.id: ws.wiki.repo_path(r.page) for r in results}
    )
    if data.get("policy_problems"):
        data["summary"]["policy_problems"] = len(data["policy_problems"])
    if options.only_problems:
        data["claims"] = [c for c in data["claims"] if report.is_problem(c)]
        data["only_problems"] = True
    return Checked(data, None, is_clean(data), tuple(written), site)


def _stale_citations(ws: Workspace, claims: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """Claims citing a superseded or later-amended document (citestale): nothing read unless one cites Markdown outside the wiki."""
    from openwiki_git.graph import citestale

    if not citestale.cited_documents(claims, ws.config.wiki_dir):
        return {}
    from openwiki_git.graph.doc_standing import stale_citations

    return stale_citations(ws, claims)


def ci_report(ws: Workspace, base: str, head: str | None) -> dict[str, Any]:
    """The claims that the changes from merge-base(BASE, HEAD) to HEAD touched, judged on the
    commits (never the working tree): the same report as `check --format json`, each evidence item
    with the `hunk` that changed it, plus `base` (the merge base), `head` and `base_rev`."""
    from openwiki_git.caches.cites import CiteIndex
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
    extra = {"base": merge_base, "head": head_id, "base_rev": base_rev}
    data = report.build(results, wiki_dir=ws.config.wiki_dir, source=head_id, extra=extra, site=ws.wiki.site is not None)
    # Every claim of the head commit whose cited document is superseded or amended since.
    citing = engine.sidecars_at(ws, head_id, index.sidecars_mentioning(head_id))
    claims = {c.id: (p, c) for p, sc in citing.items() for c in sc.claims}
    pages = {cid: ws.wiki.repo_path(p) for cid, (p, _) in claims.items()}
    report.add_cited_documents(data, _stale_citations(ws, [c for _, c in claims.values()]), pages)
    found = engine.policy_problems(ws, evaluation)  # e.g. a verifiedBy set by hand where the policy forbids it
    if found:
        data["policy_problems"] = found
        data["summary"]["policy_problems"] = len(found)
    return data


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


def collect(ws: Workspace, options: CheckOptions) -> tuple[list[ClaimResult], dict[str, Any]]:
    """Every claim's result (of the `pages`), judged from `options.source` without the cache,
    and the pages' findings (page_findings) as the report's extra keys."""
    from datetime import UTC, datetime

    from openwiki_git.claims.check import check_all, markers_optional

    with checkcache.no_gc():  # tens of thousands of records and no cycles: skip the collector's passes
        sidecars = ws.wiki.load_all()
        wanted = _wanted(ws, options)
        if wanted is not None:
            sidecars = {p: sc for p, sc in sidecars.items() if p in wanted}
        texts: dict[str, str | None] = {}

        def page_text(page: str) -> str | None:  # read once: by the check, then by page_findings
            if page not in texts:
                texts[page] = ws.page_text(page)
            return texts[page]

        results = check_all(
            sidecars,
            ws.resolver(options.source),
            page_text,
            now=datetime.now(UTC),
            reverify_after=ws.config.reverify_policy,
        )
    if ws.config.strict_openwiki:
        by_page: dict[str, list[ClaimResult]] = {}
        for r in results:
            by_page.setdefault(r.page, []).append(r)
        results = [r for page, rs in by_page.items() for r in markers_optional(rs, page_text(page))]
    return results, _collected_findings(ws, sidecars, page_text, options.source)


def _collected_findings(ws: Workspace, sidecars: dict[str, Any], page_text: Callable[[str], str | None], source: str) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    for page in sorted(sidecars):  # each page's findings, in the order check_stream adds them from the cache
        for key, found in page_findings(ws, page, page_text(page), sidecars[page]).items():
            if not key.startswith("_"):
                extra.setdefault(key, []).extend(found)
    from openwiki_git.ground import deterministic as ground  # wiki-wide: broken code references, on pages `ground` grounded only

    broken = ground.broken_references(ws, sidecars, source)
    if broken:
        extra.setdefault("broken_references", []).extend(broken)
    return extra


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
