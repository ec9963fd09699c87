"""The health report in Markdown, for `$GITHUB_STEP_SUMMARY` and PR comments: the counts, the
trend as sparklines of Unicode blocks, the clearing times, the open claims (oldest mark first:
page, statement, age, cause), and short tables. It stays under `LIMIT` characters however large
the wiki: each list shows its head and summarises the tail (`report --format json` has them all).
Escaping is github/render.py's (one owner for Markdown text); data in, text out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openwiki_git.claims.health import VERIFIERS, duration
from openwiki_git.claims.trend import STATUSES
from openwiki_git.github.render import code, md_cell, md_text, plural

LIMIT = 60_000  # characters; GitHub refuses a comment over 65,536
BLOCKS = "▁▂▃▄▅▆▇█"
PAGE_ROWS, LIST_ROWS = 25, 15
OPEN_SHARE = 0.5  # of LIMIT, the open claims' table at most


def sparkline(values: Sequence[int]) -> str:
    """One block per value, scaled from 0 to the largest (a flat zero line is all lowest blocks)."""
    top = max(values, default=0)
    if top <= 0:
        return BLOCKS[0] * len(values)
    return "".join(BLOCKS[min(len(BLOCKS) - 1, round(v / top * (len(BLOCKS) - 1)))] for v in values)


def render(data: Mapping[str, Any], *, limit: int = LIMIT) -> str:
    s = data["summary"]
    out = ["## Wiki health", ""]
    out.append(
        f"**{plural(s['claims'], 'claim')}** on {plural(s['pages'], 'page')}: {s['fresh']} fresh, {s['stale']} stale, "
        f"{s['unresolved']} unresolved; {s['due']} due for re-verification, {plural(s['policy_problems'], 'policy problem')}."
    )
    out += ["", *_trend(data), ""]
    sections = [_open(data["open"], OPEN_SHARE * limit), _pages(data["pages"]), _hot_spots(data["hot_spots"]), _due(data["due"]),
                _listed("Pages with no claims", [code(p) for p in data["pages_without_claims"]]),
                _listed("Broken references", [f"{code(str(b.get('page_path')) + ':' + str(b.get('line')))} "
                                             f"{code(str(b.get('reference')))}: {md_text(str(b.get('reason')))}"
                                             for b in data["broken_references"]]),
                _listed("Claims citing superseded documents", [f"{code(str(x.get('page_path')))} {code(str(x.get('id')))} "
                                                               f"cites {code(str(x.get('source')))} ({md_text(str(x.get('kind')))})"
                                                               for x in data["superseded_sources"]]),
                _listed("Policy problems", [f"{code(str(x.get('claim_id')))} on {code(str(x.get('page')))}: "
                                            f"{md_text(str(x.get('verified_by')))} ({md_text(str(x.get('rule')))})"
                                            for x in data["policy_problems"]])]
    used = sum(len(line) + 1 for line in out)
    for lines in sections:
        size = sum(len(line) + 1 for line in lines)
        if used + size > limit - 200:
            out.append(f"_{len(sections)} sections do not all fit; run `openwiki-git report` for the rest._")
            break
        out += lines
        used += size
    return "\n".join(out).rstrip("\n") + "\n"


def _trend(data: Mapping[str, Any]) -> list[str]:
    points = data["trend"]
    lines = []
    if points:
        lines += [f"Trend over the last {plural(len(points), 'commit')} (oldest to newest):", ""]
        lines += [f"- {k}: `{sparkline([p[k] for p in points])}` {points[0][k]} → {points[-1][k]}" for k in STATUSES]
        lines.append("")
    lines.append(cleared_sentence(data))
    return lines


def cleared_sentence(data: Mapping[str, Any]) -> str:
    """How many marks the window cleared, which window, how many of them predate it, and how long
    the others waited."""
    c, first = data["clearing"], (data.get("history") or {}).get("first")
    n = len(data["trend"])
    window = f"the last {plural(n, 'commit')}" + (f" (since {code(str(first['commit'])[:7])})" if first else "")
    if not c["cleared"]:
        return f"No mark was cleared in {window}; {c['open']} still open."
    before = c.get("cleared_from_before", 0)
    known = c["cleared"] - before
    text = f"Marks cleared in {window}: {c['cleared']}"
    if before:
        text += f" ({before} of them marked before the window, so their wait is not known)"
    if known:
        text += (f"; {'they' if not before else f'the other {known}'} waited {duration(c['median_seconds'])} (median), "
                 f"{duration(c['p90_seconds'])} (90th percentile)")
    return text + f"; {c['open']} still open."


def _open(rows: Sequence[Mapping[str, Any]], budget: float) -> list[str]:
    """The open claims, oldest mark first, as many as fit in `budget` characters."""
    if not rows:
        return []
    out = [f"### Open claims ({len(rows)}): stale, unresolved or due, oldest mark first", "",
           *_table(["Age", "Status", "Page", "Claim", "Statement", "Cause"], [])]
    used = sum(len(line) + 1 for line in out)
    shown = 0
    for r in rows:
        where = f"{r['page_path']}:{r['line']}" if r.get("line") else r["page_path"]
        page = f"[{_cell_code(where)}]({r['url']})" if r.get("url") else _cell_code(where)
        status = "due" if r["status"] == "fresh" else r["status"]
        row = "| " + " | ".join([duration(r["age_seconds"]) if r["age_seconds"] is not None else "—", status, page,
                                 _cell_code(r["label"]), md_cell(r["statement"][:200]), md_cell(cause_text(r["cause"]))]) + " |"
        if used + len(row) + 1 > budget:
            break
        out.append(row)
        used += len(row) + 1
        shown += 1
    if shown < len(rows):
        out.append(f"\n…and {len(rows) - shown} more: `openwiki-git report --format json` (or the report artifact) lists them all.")
    return [*out, ""]


def cause_text(cause: Mapping[str, Any] | None) -> str:
    """`annotations changed in abc1234`; `after abc1234` when the window does not hold the commit."""
    if not cause:
        return "due for re-verification"
    if cause.get("commit"):
        return f"{cause['kind']} in {str(cause['commit'])[:7]}"
    return f"{cause['kind']}" + (f" after {str(cause['after'])[:7]}" if cause.get("after") else "")


def _cell_code(text: str) -> str:
    """A code span in a table cell: GitHub reads `\\|` there as a pipe, and a bare one as a new cell."""
    return code(text).replace("|", "\\|")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers), *("| " + " | ".join(r) + " |" for r in rows)]


def _pages(pages: Sequence[Mapping[str, Any]]) -> list[str]:
    ranked = sorted(pages, key=lambda p: (-(p["stale"] + p["unresolved"]), -p["due"], p["page"]))
    rows = [
        [_cell_code(p["page_path"]), str(p["claims"]), *(str(p[k]) for k in STATUSES), str(p["due"]),
         duration(p["oldest_mark_age_seconds"]), md_cell(p["last_human_verified_at"] or "never"),
         md_cell(", ".join(f"{k} {p['verified_by'][k]}" for k in VERIFIERS if p["verified_by"][k]))]
        for p in ranked[:PAGE_ROWS]
    ]
    out = ["### Pages", ""]
    out += _table(["Page", "Claims", "Fresh", "Stale", "Unresolved", "Due", "Oldest mark", "Last verified by a person",
                   "Verified by"], rows)
    rest = ranked[PAGE_ROWS:]
    if rest:
        counts = ", ".join(f"{sum(p[k] for p in rest)} {k}" for k in (*STATUSES, "due"))
        out.append(f"\n…and {plural(len(rest), 'more page')} ({sum(p['claims'] for p in rest)} claims: {counts}).")
    return [*out, ""]


def _hot_spots(spots: Sequence[Mapping[str, Any]]) -> list[str]:
    if not spots:
        return []
    rows = [[f"[{_cell_code(s['path'])}]({s['url']})", str(s["claims"])] for s in spots[:LIST_ROWS]]
    return ["### Hot spots: the cited files that marked the most claims", "", *_table(["File", "Claims marked"], rows), ""]


def _due(due: Sequence[Mapping[str, Any]]) -> list[str]:
    if not due:
        return []
    rows = [[_cell_code(c["page"]), md_cell(c["statement"][:200]), md_cell(c.get("verified_at") or "never")] for c in due[:LIST_ROWS]]
    out = [f"### Claims due for re-verification ({len(due)})", "", *_table(["Page", "Claim", "Last verified"], rows)]
    if len(due) > LIST_ROWS:
        out.append(f"\n…and {len(due) - LIST_ROWS} more.")
    return [*out, ""]


def _listed(title: str, items: Sequence[str]) -> list[str]:
    if not items:
        return []
    out = [f"### {title} ({len(items)})", "", *(f"- {i}" for i in items[:LIST_ROWS])]
    if len(items) > LIST_ROWS:
        out.append(f"- …and {len(items) - LIST_ROWS} more")
    return [*out, ""]
