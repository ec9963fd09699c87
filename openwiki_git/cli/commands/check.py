"""`openwiki-git check`: is every claim still true to the lines it cites?

Each claim is fresh, stale or unresolved, with where its text is now and why. Exit 0 when every
claim is fresh and carries its marker, 1 when any is not, 2 on a usage or input error.
`--fix` rewrites line numbers that merely moved, refreshes their anchors, marks stale claims and
clears the mark of a claim whose text was reverted to what was verified.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from openwiki_git.caches import check as checkcache
from openwiki_git.cli import report
from openwiki_git.cli.args import add_format, open_workspace
from openwiki_git.errors import UsageError

# A warm check with nothing changed is answered by checkcache.answer() from the standard library
# alone: the model, the checker, git and pygit2 are imported only when something must be judged.
if TYPE_CHECKING:
    from openwiki_git.model import ClaimResult
    from openwiki_git.store.workspace import Workspace

SOURCE_HELP = "where evidence is read: worktree (the default, which the cache answers), index, or a revision such as HEAD"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="report fresh, stale and unresolved claims", description=__doc__)
    add_format(p)
    p.add_argument("--fix", action="store_true", help="re-anchor moved ranges, mark stale claims, clear reverted marks")
    p.add_argument("--source", default="worktree", help=SOURCE_HELP)
    p.add_argument("--page", action="append", help="only claims on this page (repeatable)")
    p.add_argument("--all", action="store_true", help="list fresh claims too in text output")
    p.add_argument(
        "--only-problems",
        action="store_true",
        help="JSON: list only the claims that are not fresh, lack their marker or are due (the summary still "
        "counts every claim; the report says \"only_problems\": true)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither use nor update the check cache (<git dir>/openwiki-git/check-cache-v2.pickle): parse every "
        "sidecar and read every cited file (--fix never uses the cache)",
    )
    p.add_argument(
        "--base",
        metavar="REV",
        help="CI: report the claims made stale between the merge base of REV and --head (evidence read from commits)",
    )
    p.add_argument("--head", metavar="REV", help="with --base: the head commit (default HEAD)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if (args.base or args.head) and not args.base:
        raise UsageError("--head needs --base", "e.g. check --base origin/main --head HEAD")
    if args.base and args.fix:
        raise UsageError("--fix cannot be combined with --base", "--base reads commits; it changes nothing")
    if not (args.base or args.fix or args.no_cache or args.page) and args.source == "worktree":
        cached = checkcache.answer(getattr(args, "directory", None), getattr(args, "wiki_dir", None))
        if cached is not None:  # nothing changed since the last run: no git, no judging
            entries = cached["pages"]
            loader = _sidecar_loader(cached["root"], cached["wiki_dir"], entries)
            pages = sorted(entries)
            late, notices = _wiki_findings(lambda: open_workspace(args), entries, pages)
            return emit(args, cached["wiki_dir"], entries, pages, loader, late, notices)
    trusted = None if (args.base or args.fix or args.no_cache) else checkcache.trusted_location(getattr(args, "directory", None))
    ws = open_workspace(args) if trusted is None else _located_workspace(args, *trusted[:3])
    if args.base:
        data = ci_report(ws, args.base, args.head)
        out = report.to_json(data) if args.format == "json" else report.to_text(data, verbose=args.all)
        sys.stdout.write(out)
        s = data["summary"]
        return 0 if s["stale"] == 0 and s["unresolved"] == 0 and not data.get("superseded_sources") else 1
    if args.source != "worktree" or args.fix or args.no_cache:
        return _run_uncached(ws, args)  # the reference the cache is tested against (test_check_differential)
    with checkcache.no_gc():  # tens of thousands of records and no cycles: skip the collector's passes
        judged = judge(ws, args, use_cache=True, cached=trusted[3] if trusted is not None else None)
    wanted = _wanted(ws, args)
    pages = [p for p in judged.pages if wanted is None or p in wanted]

    def items(page: str) -> Iterator[report.Item]:
        sc = judged.sidecars.get(page) or ws.wiki.load(page)
        yield from _items(page, f"{ws.config.wiki_dir}/{page}", judged.entries[page], sc)

    late, notices = _wiki_findings(lambda: ws, judged.entries, pages, judged.sidecars)
    return emit(args, ws.config.wiki_dir, judged.entries, pages, items, late, notices)


def _located_workspace(args: argparse.Namespace, root: str, git_dir: str, tracked: frozenset[str]) -> Workspace:
    """Workspace.open() for a repository the cache vouches for: git (pygit2) is opened only if
    this run needs it (a file not known to be tracked, line-ending rules, another source)."""
    from pathlib import Path

    from openwiki_git.git.repo import Repo
    from openwiki_git.store.workspace import Workspace

    repo = Repo.located(root, git_dir, tracked)
    return Workspace.on(repo, wiki_dir=getattr(args, "wiki_dir", None), git_dir=Path(git_dir))


def judge(ws: Workspace, args: argparse.Namespace, *, use_cache: bool, cached: dict[str, Any] | None = None) -> checkcache.Judged:
    return checkcache.judge(
        ws,
        cached=cached,
        wiki_dir_arg=getattr(args, "wiki_dir", None),
        use_cache=use_cache,
        record=lambda r: None if report.is_plain(r) else report.claim_data(r, ws.config.wiki_dir),
        findings=lambda page, text, sc: page_findings(ws, page, text, sc),
        now=datetime.now(UTC),
    )


def page_findings(ws: Workspace, page: str, text: str | None, sidecar: Any = None) -> dict[str, list[Any]]:
    """THE place for a page's extra findings (beyond its claims' verdicts), e.g. broken references
    in its prose or claims citing superseded documents: `{report key: [JSON-able records]}`.

    They are computed only when the page is judged (its sidecar, page or a cited file changed),
    kept with the page's entry in the check cache, and merged into the report by emit(): each key
    becomes a top-level list of the report (pages in order), after `summary`. Add the key to
    schemas/check-report.schema.json. A finding that depends on a file other than the page and
    its cited files must make the cache key depend on it too (checkcache.cache_key), or be a
    wiki-wide finding (_wiki_findings). Keys starting with "_" are flags for those, never reported."""
    from openwiki_git.graph import citestale
    from openwiki_git.ground import deterministic as ground

    found: dict[str, list[Any]] = {}
    if sidecar is not None and ground.grounded_pages({page: sidecar}):
        found["_grounded"] = [True]  # broken references depend on every tracked file: _wiki_findings
    if sidecar is not None and citestale.cited_documents(sidecar.claims, ws.config.wiki_dir):
        found["_cites_documents"] = [True]  # a document's standing is decided by other documents too
    return found


def _wiki_findings(
    workspace: Any, entries: dict[str, Any], pages: list[str], sidecars: dict[str, Any] | None = None
) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """Findings that depend on more than a page and the files it cites, so that the per-page
    cache cannot keep them: broken code references on the pages `ground` grounded (they depend
    on every tracked file; ground.broken_references keeps its own cache, keyed on them all).
    Claims citing a superseded or later-amended document likewise: what replaces a document is
    said in other documents (graph_build.document_standing caches it, keyed on every document).
    Only a wiki with such pages pays for it (and opens git for it on the fast path). Returns the
    report's extra keys, and the notices by claim id (for the claims' own records)."""
    grounded = [p for p in pages if entries[p]["findings"].get("_grounded")]
    citing = [p for p in pages if entries[p]["findings"].get("_cites_documents")]
    if not (grounded or citing):
        return {}, {}
    from openwiki_git.ground import deterministic as ground

    ws = workspace()
    known = sidecars or {}
    loaded = {p: known.get(p) or ws.wiki.load(p) for p in {*grounded, *citing}}
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


def emit(
    args: argparse.Namespace, wiki_dir: str, entries: dict[str, Any], pages: list[str], items: Any,
    late: dict[str, list[Any]] | None = None, notices: dict[str, list[Any]] | None = None,
) -> int:
    """Write the report of `pages` (their entries give the summary and the notable claims;
    `items(page)` every claim, read only when every claim is listed), as it is produced. `late`
    and `notices`: the wiki-wide findings and the claims they flag (_wiki_findings)."""
    every = args.all if args.format == "text" else not args.only_problems
    summary = _summary([entries[p]["summary"] for p in pages])
    findings: dict[str, list[Any]] = {}
    for p in pages:
        for key, found in entries[p]["findings"].items():
            if not key.startswith("_"):
                findings.setdefault(key, []).extend(found)
    notices = notices or {}
    for key, found in (late or {}).items():
        findings.setdefault(key, []).extend(found)
    if "superseded_sources" in findings:
        summary = {**summary, "superseded_sources": len(findings["superseded_sources"])}

    def listed() -> Iterator[report.Item]:
        for p in pages:
            if every:
                yield from items(p)
            else:
                yield from (c for c in entries[p]["notable"] if args.format == "text" or report.is_problem(c))

    def claims() -> Iterator[report.Item]:
        for c in listed():
            cid = c["id"] if isinstance(c, dict) else c[2]
            if cid in notices:  # rare: a claim citing a replaced document gets its record in full
                import json

                c = dict(c) if isinstance(c, dict) else json.loads(report.plain_claim_json(*c))
                c["cited_documents"] = notices[cid]
            yield c

    write = sys.stdout.write
    if args.format == "json":
        head = {"$schema": report.REPORT_SCHEMA_ID, "tool": report.PRODUCER, "wiki_dir": wiki_dir, "source": args.source}
        if args.only_problems:
            findings["only_problems"] = True  # type: ignore[assignment]
        report.write_json(write, head, (_json(c) for c in claims()), lambda: {"summary": summary, **findings})
    else:
        for c in claims():
            if isinstance(c, dict):
                lines = report.claim_text(c, verbose=args.all)
            else:
                lines = [f"{c[1]}: {c[2]}: fresh: {c[3]}"]  # a plain claim's claim_line
            if lines:
                write("\n".join(lines) + "\n")
        for line in report.findings_text({"summary": summary, **findings}):
            write(line + "\n")
        write(report.summary_line(summary) + "\n")
    return 0 if is_clean({"summary": summary, **findings}) else 1


def _json(c: report.Item) -> str:
    return report.claim_json(c) if isinstance(c, dict) else report.plain_claim_json(*c)


def _items(page: str, page_path: str, entry: dict[str, Any], sc: Any) -> Iterator[report.Item]:
    """Every claim of a page in order: its notable record, else the plain claim."""
    notable = {c["id"]: c for c in entry["notable"]}
    for claim in sc.claims if sc is not None else ():
        yield notable.get(claim.id) or report.plain(page, page_path, claim)


def _sidecar_loader(root: str, wiki_dir: str, entries: dict[str, Any]) -> Any:
    """items(page) for the fast answer, read only when every claim is listed. The sidecar is the
    one the cached run parsed (its stat is unchanged), which the careful reader accepted only
    with canonical resources and exact strings: its JSON fields are the claims' fields, so
    json.loads stands in for sidecar.loads."""
    import json
    import os

    def items(page: str) -> Iterator[report.Item]:
        path, page_path = os.path.join(root, wiki_dir, ".claims", page[: -len(".md")] + ".json"), f"{wiki_dir}/{page}"
        with open(path, "rb") as fh:
            claims = json.loads(fh.read())["claims"]
        notable = {c["id"]: c for c in entries[page]["notable"]}
        for raw in claims:
            cid = raw["id"]
            yield notable.get(cid) or (
                page, page_path, cid, raw["statement"], tuple(e["resource"] for e in raw["evidence"]), raw.get("verifiedAt")
            )

    return items


def _summary(parts: list[dict[str, int]]) -> dict[str, int]:
    if not parts:
        from openwiki_git.claims.check import summarize

        return summarize([])
    out = dict.fromkeys(parts[0], 0)
    for part in parts:
        for key, n in part.items():
            out[key] = out.get(key, 0) + n
    return out


def _wanted(ws: Workspace, args: argparse.Namespace) -> set[str] | None:
    return {ws.wiki.normalize_page(p) for p in args.page} if args.page else None


def _run_uncached(ws: Workspace, args: argparse.Namespace) -> int:
    """--fix, --no-cache and sources other than the working tree: every claim judged, the report
    built whole."""
    results, extra = collect(ws, args)
    if args.fix:
        written = apply_fix(ws, results, pages=_wanted(ws, args))
        for path in written:
            print(f"Rewriting {path}", file=sys.stderr)
        if written:  # report what is true after the fix
            results, extra = collect(ws, args)
    data = report.build(results, wiki_dir=ws.config.wiki_dir, source=args.source, extra=extra)
    report.add_cited_documents(
        data, _stale_citations(ws, [r.claim for r in results]), {r.claim.id: ws.wiki.repo_path(r.page) for r in results}
    )
    if args.format == "json" and args.only_problems:
        data["claims"] = [c for c in data["claims"] if report.is_problem(c)]
        data["only_problems"] = True
    out = report.to_json(data) if args.format == "json" else report.to_text(data, verbose=args.all)
    sys.stdout.write(out)
    return 0 if is_clean(data) else 1


def _stale_citations(ws: Workspace, claims: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """Claims citing a superseded or later-amended document (citestale); the documents are read
    only when some claim cites a Markdown file outside the wiki."""
    from openwiki_git.graph import citestale

    if not citestale.cited_documents(claims, ws.config.wiki_dir):
        return {}
    from openwiki_git.graph.doc_standing import stale_citations

    return stale_citations(ws, claims)


def ci_report(ws: Workspace, base: str, head: str | None) -> dict[str, Any]:
    """The claims that the changes from merge-base(BASE, HEAD) to HEAD touched, judged on the
    commits (never the working tree): the same report as `check --format json`, each evidence item
    with the `hunk` that changed it, plus `base` (the merge base), `head` and `base_rev`."""
    from openwiki_git.cli.commands import hook
    from openwiki_git.git import diff as gitdiff
    from openwiki_git.model import ClaimResult
    from openwiki_git.pages import citations

    head_id = ws.repo.commit_id(head or "HEAD")
    base_rev = ws.repo.commit_id(base)
    merge_base = gitdiff.merge_base(ws.repo, base_rev, head_id)
    diff = gitdiff.between(ws.repo, merge_base, head_id, rename_threshold=ws.config.rename_threshold)
    evaluation = hook.evaluate(ws, diff, current=head_id)
    results = []
    for o in evaluation.outcomes:
        page_file = gitdiff.read(ws.repo, head_id, ws.wiki.repo_path(o.page))
        notes: list[str] = []
        if page_file.text is None:
            notes.append("the page does not exist")
        if o.before.mark is not None:
            notes.extend(f"{c.resource}: {c.reason}" + (f" by {c.hunk}" if c.hunk else "") for c in o.before.mark.causes)
        present = page_file.text is not None and citations.has_marker(page_file.text, o.before.id)
        if ws.config.strict_openwiki and page_file.text is not None and not citations.markers_in(page_file.text):
            present = True  # OpenWiki's pages carry no markers: none is missing
        evidence = tuple(e.result() for e in o.evidence)
        results.append(ClaimResult(o.page, o.before, o.status, evidence, present, False, tuple(notes)))
    extra = {"base": merge_base, "head": head_id, "base_rev": base_rev}
    data = report.build(results, wiki_dir=ws.config.wiki_dir, source=head_id, extra=extra)
    # Every claim of the checked-out tree whose cited document is superseded or amended since.
    claims = {c.id: (p, c) for p, sc in ws.wiki.load_all().items() for c in sc.claims}
    pages = {cid: ws.wiki.repo_path(p) for cid, (p, _) in claims.items()}
    report.add_cited_documents(data, _stale_citations(ws, [c for _, c in claims.values()]), pages)
    return data


def is_clean(data: dict[str, Any]) -> bool:
    s = data["summary"]
    return (s["stale"] == 0 and s["unresolved"] == 0 and s["missing_markers"] == 0
            and not data.get("broken_references") and not data.get("superseded_sources"))


def collect(ws: Workspace, args: argparse.Namespace) -> tuple[list[ClaimResult], dict[str, Any]]:
    """Every claim's result (of the --page pages), judged from `args.source` without the cache,
    and the pages' findings (page_findings) as the report's extra keys."""
    from openwiki_git.claims.check import check_all, markers_optional

    with checkcache.no_gc():  # tens of thousands of records and no cycles: skip the collector's passes
        sidecars = ws.wiki.load_all()
        wanted = _wanted(ws, args)
        if wanted is not None:
            sidecars = {p: sc for p, sc in sidecars.items() if p in wanted}
        texts: dict[str, str | None] = {}

        def page_text(page: str) -> str | None:  # read once: by the check, then by page_findings
            if page not in texts:
                texts[page] = ws.page_text(page)
            return texts[page]

        results = check_all(
            sidecars,
            ws.resolver(args.source),
            page_text,
            now=datetime.now(UTC),
            reverify_after_seconds=ws.config.reverify_after_seconds,
        )
    if ws.config.strict_openwiki:
        by_page: dict[str, list[ClaimResult]] = {}
        for r in results:
            by_page.setdefault(r.page, []).append(r)
        results = [r for page, rs in by_page.items() for r in markers_optional(rs, page_text(page))]
    extra: dict[str, Any] = {}
    for page in sorted(sidecars):  # each page's findings, in the order emit() adds them from the cache
        for key, found in page_findings(ws, page, page_text(page), sidecars[page]).items():
            if not key.startswith("_"):
                extra.setdefault(key, []).extend(found)
    from openwiki_git.ground import deterministic as ground  # wiki-wide: broken code references, on pages `ground` grounded only

    broken = ground.broken_references(ws, sidecars, args.source)
    if broken:
        extra["broken_references"] = broken
    return results, extra


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
