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

from openwiki_git import editing, fixer, report
from openwiki_git.checker import check_all
from openwiki_git.commands import add_format, open_workspace
from openwiki_git.model import ClaimResult
from openwiki_git.workspace import SOURCES_HELP, Workspace, now_iso


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("check", help="report fresh, stale and unresolved claims", description=__doc__)
    add_format(p)
    p.add_argument("--fix", action="store_true", help="re-anchor moved ranges, mark stale claims, clear reverted marks")
    p.add_argument("--source", default="worktree", help=SOURCES_HELP)
    p.add_argument("--page", action="append", help="only claims on this page (repeatable)")
    p.add_argument("--all", action="store_true", help="list fresh claims too in text output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    results, extra = collect(ws, args)
    if args.fix:
        written = apply_fix(ws, results)
        for path in written:
            print(f"Rewriting {path}", file=sys.stderr)
        if written:  # report what is true after the fix
            results, extra = collect(ws, args)
    data = report.build(results, wiki_dir=ws.config.wiki_dir, source=args.source, extra=extra)
    out = report.to_json(data) if args.format == "json" else report.to_text(data, verbose=args.all)
    sys.stdout.write(out)
    return 0 if is_clean(data) else 1


def is_clean(data: dict[str, Any]) -> bool:
    s = data["summary"]
    return s["stale"] == 0 and s["unresolved"] == 0 and s["missing_markers"] == 0


def collect(ws: Workspace, args: argparse.Namespace) -> tuple[list[ClaimResult], dict[str, Any]]:
    sidecars = ws.wiki.load_all()
    if args.page:
        wanted = {ws.wiki.normalize_page(p) for p in args.page}
        sidecars = {p: sc for p, sc in sidecars.items() if p in wanted}
    results = check_all(
        sidecars,
        ws.resolver(args.source),
        ws.page_text,
        now=datetime.now(timezone.utc),
        reverify_after_seconds=ws.config.reverify_after_seconds,
    )
    if ws.config.strict_openwiki:
        results = _markers_optional(ws, results)
    return results, {}


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


def apply_fix(ws: Workspace, results: list[ClaimResult]) -> list[str]:
    written: list[str] = []
    now = now_iso()
    with ws.wiki.lock():
        sidecars = ws.wiki.load_all()
        todo = []
        for sidecar in sidecars.values():
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
