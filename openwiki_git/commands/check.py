"""`openwiki-git check`: is every claim still true to the lines it cites?

Each claim is fresh, stale or unresolved, with where its text is now and why. Exit 0 when every
claim is fresh and carries its marker, 1 when any is not, 2 on a usage or input error.
`--fix` rewrites line numbers that merely moved, refreshes their anchors, marks stale claims and
clears the mark of a claim whose text was reverted to what was verified.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from datetime import datetime, timezone
from typing import Any

from openwiki_git import checkcache, editing, fixer, report
from openwiki_git.checker import check_all
from openwiki_git.commands import add_format, open_workspace
from openwiki_git.errors import UsageError
from openwiki_git.model import ClaimResult
from openwiki_git.workspace import SOURCES_HELP, Workspace, now_iso


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("check", help="report fresh, stale and unresolved claims", description=__doc__)
    add_format(p)
    p.add_argument("--fix", action="store_true", help="re-anchor moved ranges, mark stale claims, clear reverted marks")
    p.add_argument("--source", default="worktree", help=SOURCES_HELP)
    p.add_argument("--page", action="append", help="only claims on this page (repeatable)")
    p.add_argument("--all", action="store_true", help="list fresh claims too in text output")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither use nor update the check cache (<git dir>/openwiki-git/check-cache-v1.pickle): parse every "
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
    ws = open_workspace(args)
    if args.base or args.head:
        if not args.base:
            raise UsageError("--head needs --base", "e.g. check --base origin/main --head HEAD")
        if args.fix:
            raise UsageError("--fix cannot be combined with --base", "--base reads commits; it changes nothing")
        data = ci_report(ws, args.base, args.head)
        out = report.to_json(data) if args.format == "json" else report.to_text(data, verbose=args.all)
        sys.stdout.write(out)
        s = data["summary"]
        return 0 if s["stale"] == 0 and s["unresolved"] == 0 else 1
    results, extra = collect(ws, args)
    if args.fix:
        written = apply_fix(ws, results, pages={ws.wiki.normalize_page(p) for p in args.page} if args.page else None)
        for path in written:
            print(f"Rewriting {path}", file=sys.stderr)
        if written:  # report what is true after the fix
            results, extra = collect(ws, args)
    data = report.build(results, wiki_dir=ws.config.wiki_dir, source=args.source, extra=extra)
    out = report.to_json(data) if args.format == "json" else report.to_text(data, verbose=args.all)
    sys.stdout.write(out)
    return 0 if is_clean(data) else 1


def ci_report(ws: Workspace, base: str, head: str | None) -> dict[str, Any]:
    """The claims that the changes from merge-base(BASE, HEAD) to HEAD touched, judged on the
    commits (never the working tree): the same report as `check --format json`, each evidence item
    with the `hunk` that changed it, plus `base` (the merge base), `head` and `base_rev`."""
    from openwiki_git import citations, gitdiff
    from openwiki_git.commands import hook

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
    return report.build(results, wiki_dir=ws.config.wiki_dir, source=head_id, extra=extra)


def is_clean(data: dict[str, Any]) -> bool:
    s = data["summary"]
    return s["stale"] == 0 and s["unresolved"] == 0 and s["missing_markers"] == 0 and not data.get("broken_references")


def collect(ws: Workspace, args: argparse.Namespace) -> tuple[list[ClaimResult], dict[str, Any]]:
    with checkcache.no_gc():  # tens of thousands of records and no cycles: skip the collector's passes
        return _collect(ws, args)


def _collect(ws: Workspace, args: argparse.Namespace) -> tuple[list[ClaimResult], dict[str, Any]]:
    # The cache answers for unchanged sidecars and cited files (checkcache.py); --fix, a writer,
    # keeps reading everything.
    cache = None if args.no_cache or args.fix else checkcache.CheckCache(ws)
    sidecars = ws.wiki.load_all(cache.load_sidecar if cache is not None else None)
    if args.page:
        wanted = {ws.wiki.normalize_page(p) for p in args.page}
        sidecars = {p: sc for p, sc in sidecars.items() if p in wanted}
    results = check_all(
        sidecars,
        cache.resolver(args.source) if cache is not None else ws.resolver(args.source),
        ws.page_text,
        now=datetime.now(timezone.utc),
        reverify_after_seconds=ws.config.reverify_after_seconds,
    )
    if cache is not None:
        cache.save(partial=bool(args.page))
    if ws.config.strict_openwiki:
        results = _markers_optional(ws, results)
    from openwiki_git import ground  # broken code references, on pages `ground` grounded only

    broken = ground.broken_references(ws, sidecars, args.source)
    return results, ({"broken_references": broken} if broken else {})


def _markers_optional(ws: Workspace, results: list[ClaimResult]) -> list[ClaimResult]:
    """OpenWiki's pages carry no claim markers: on a page that uses none, none is missing."""
    from openwiki_git import citations

    uses: dict[str, bool] = {}
    out = []
    for r in results:
        if r.page not in uses:
            uses[r.page] = bool(citations.markers_in(ws.page_text(r.page) or ""))
        out.append(r if r.marker_present or uses[r.page] else dataclasses.replace(r, marker_present=True))
    return out


def apply_fix(ws: Workspace, results: list[ClaimResult], *, pages: set[str] | None = None) -> list[str]:
    """Fix every sidecar (or only those of `pages`, from --page) and re-render its page."""
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
    from openwiki_git import citations

    text = ws.page_text(sidecar.page)
    if text is None:
        return False
    claims = editing.rendered_claims(ws.wiki, text, sidecar)
    return citations.sync(text, ws.wiki.repo_path(sidecar.page), claims) != text
