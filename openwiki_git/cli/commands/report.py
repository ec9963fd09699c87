"""`openwiki-git report`: the wiki's health at a glance, for people.

The counts by status now (fresh, stale, unresolved, due, policy problems), each page's claims and
who verified them, the cited files that mark the most claims, the claims due, pages with no
claims, broken references and claims citing superseded documents: all from the same check
`check` runs. Then the trend: the counts at each of the last N first-parent commits, read from
the sidecars' history in git (no state of its own), and how long marks waited to be cleared.

Output: a short text summary (default), `--markdown` (for $GITHUB_STEP_SUMMARY and PR comments,
at most 60,000 characters), `--format json` (the numbers, schemas/report.schema.json), and
`--html FILE` (one self-contained page). Exit 0 whenever it reported, even with stale claims
(it is a report, not a gate: `check` is the gate), 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

from openwiki_git.cli.args import add_format
from openwiki_git.errors import UsageError
from openwiki_git.services import report


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="the wiki's health: counts, pages, hot spots, trend (HTML, Markdown, JSON)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_format(p)
    p.add_argument("--html", metavar="FILE", help="write the report as one self-contained HTML file (atomically)")
    p.add_argument("--markdown", action="store_true",
                   help="print the report as Markdown (tables and sparklines; at most 60,000 characters)")
    p.add_argument("--history", metavar="N", type=int,
                   help=f"the trend covers the last N first-parent commits (default {report.DEFAULT_HISTORY}; "
                   "with --since, every commit back to it)")
    p.add_argument("--since", metavar="REV",
                   help="the trend starts at this commit, which must be on HEAD's first-parent line")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.markdown and args.format == "json":
        raise UsageError("--markdown and --format json both print the report", "choose one of them")
    from openwiki_git.github import health_markdown

    data = report.run(report.ReportOptions(
        directory=getattr(args, "directory", None), wiki_dir=getattr(args, "wiki_dir", None),
        history=args.history, since=args.since,
    ))
    if args.html:
        written = report.write_html(args.html, data, getattr(args, "directory", None))
        print(f"Wrote {written}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    elif args.markdown:
        sys.stdout.write(health_markdown.render(data))
    elif not args.html:
        sys.stdout.write(text(data))
    return 0


OPEN_SHOWN = 5  # open claims the text summary names


def text(data: dict) -> str:
    """The summary in a few lines, for a terminal."""
    from openwiki_git.claims.health import duration
    from openwiki_git.github.health_markdown import cause_text, sparkline
    from openwiki_git.github.render import plural

    s, c = data["summary"], data["clearing"]
    lines = [
        f"{plural(s['claims'], 'claim')} on {plural(s['pages'], 'page')}: "
        f"{s['fresh']} fresh, {s['stale']} stale, {s['unresolved']} unresolved, "
        f"{s['due']} due, {s['policy_problems']} policy problems",
        f"{s['pages_without_claims']} pages without claims, {s['broken_references']} broken references, "
        f"{s['superseded_sources']} claims citing superseded documents",
    ]
    n = len(data["trend"])
    for k in ("fresh", "stale", "unresolved") if n else ():
        lines.append(f"{k:>10} {sparkline([p[k] for p in data['trend']])} (last {n} commit{'s' if n != 1 else ''})")
    before = c.get("cleared_from_before", 0)
    lines.append(f"marks cleared in the last {n} commit{'s' if n != 1 else ''}: {c['cleared']}"
                 + (f" ({before} marked before them)" if before else "")
                 + f", median wait {duration(c['median_seconds'])}, 90th percentile {duration(c['p90_seconds'])}; {c['open']} open")
    for spot in data["hot_spots"][:5]:
        lines.append(f"hot spot: {spot['path']} ({spot['claims']} claims marked)")
    rows = data.get("open") or []
    if rows:
        lines.append(f"open claims, oldest mark first ({len(rows)}; all of them: report --format json, or review):")
    for r in rows[:OPEN_SHOWN]:
        age = duration(r["age_seconds"]) if r["age_seconds"] is not None else "due"
        where = f"{r['page_path']}:{r['line']}" if r.get("line") else r["page_path"]
        why = cause_text(r["cause"])
        statement = r["statement"] if len(r["statement"]) <= 80 else r["statement"][:79] + "…"
        lines.append(f"  {age:>7}  {where} {r['label']}: {statement} ({why})")
    return "\n".join(lines) + "\n"
