"""The health report as one self-contained HTML page: inline CSS and SVG only (no script, font,
style or image from anywhere, which the page's Content-Security-Policy also forbids), readable
without JavaScript, light and dark by `prefers-color-scheme`, tables that scroll at phone width.
The open claims' list sorts by age (oldest or newest first) or by page without a script: radio
buttons and CSS `order` over rows that carry their rank in each order.
Every text from the wiki (page names, statements, paths) is escaped. Pure: the report's data
(claims/health.py's build) in, the page out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from openwiki_git.claims.health import VERIFIERS, duration
from openwiki_git.claims.trend import STATUSES
from openwiki_git.github.health_markdown import cause_text

LIST_LIMIT = 500  # rows of one list; the rest is counted (the JSON has them all)
COLORS = {"fresh": "var(--fresh)", "stale": "var(--stale)", "unresolved": "var(--unresolved)"}

CSS = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;
--fresh:#1a7f37;--stale:#bc4c00;--unresolved:#cf222e;--due:#8250df;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;
--card:#151b23;--fresh:#3fb950;--stale:#f0883e;--unresolved:#f85149;--due:#ab7df8;--link:#4493f8}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
main{max-width:1100px;margin:0 auto;padding:16px}h1{font-size:1.6em;margin:.2em 0}
h2{font-size:1.15em;margin:1.6em 0 .5em;border-bottom:1px solid var(--line);padding-bottom:.2em}
a{color:var(--link)}.muted{color:var(--muted)}code{font-size:.9em;overflow-wrap:anywhere}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .n{display:block;font-size:1.8em;font-weight:600;line-height:1.2}
.fresh .n{color:var(--fresh)}.stale .n{color:var(--stale)}.unresolved .n{color:var(--unresolved)}
.due .n,.policy .n{color:var(--due)}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
svg{display:block;margin:0 auto;width:100%;height:auto;max-height:300px}svg text{fill:var(--muted);font-size:12px}
td:first-child{white-space:nowrap}
table.open tbody{display:flex;flex-direction:column}table.open tr{display:grid;
grid-template-columns:5.5em 6.5em minmax(11em,1fr) 7.5em minmax(16em,2fr) minmax(11em,1fr);min-width:58em}
#sort-newest:checked~.scroll table.open tbody tr{order:var(--newest)}
#sort-page:checked~.scroll table.open tbody tr{order:var(--page)}
.sorter{margin:.3em 0}.sorter label{margin-right:12px}
.legend span{margin-right:14px;white-space:nowrap}.sw{display:inline-block;width:10px;height:10px;
border-radius:2px;margin-right:4px}ul.plain{padding-left:1.2em}
"""


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def render(data: Mapping[str, Any], *, page_root: str | None = None) -> str:
    """The page. `page_root`: where the repository's root is from the page's own folder (a
    relative link to each open claim's page when the report has no GitHub link for it)."""
    s = data["summary"]
    title = f"Wiki health: {s['claims']} claims"
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>",
        "<h1>Wiki health</h1>",
        f'<p class="muted">{_e(data.get("wiki_dir"))} at <code>{_e((data.get("head") or "no commit")[:12])}</code>, '
        f'{_e(data["generated_at"])} · {_e(data["tool"])}</p>',
        _cards(s),
        _trend(data),
        _open(data["open"], page_root),
        _pages(data["pages"]),
        _hot_spots(data["hot_spots"]),
        _due(data["due"]),
        _simple_list("Pages with no claims", "no-claims", [f"<code>{_e(p)}</code>" for p in data["pages_without_claims"]]),
        _simple_list("Broken references", "broken", [_broken(b) for b in data["broken_references"]]),
        _simple_list("Claims citing superseded documents", "superseded", [_superseded(x) for x in data["superseded_sources"]]),
        _simple_list("Policy problems", "policy", [_policy(x) for x in data["policy_problems"]]),
        "</main></body></html>",
    ]
    return "\n".join(parts) + "\n"


def _cards(s: Mapping[str, Any]) -> str:
    cards = [("claims", "claims", s["claims"]), *((k, k, s[k]) for k in STATUSES), ("due", "due", s["due"]),
             ("policy", "policy problems", s["policy_problems"])]
    body = "".join(
        f'<div class="card {k}" id="count-{k}"><span class="n">{int(n)}</span>{_e(label)}</div>' for k, label, n in cards
    )
    return f'<section aria-label="Counts by status"><div class="cards">{body}</div></section>'


def _trend(data: Mapping[str, Any]) -> str:
    points = data["trend"]
    c, first = data["clearing"], (data.get("history") or {}).get("first")
    before = c.get("cleared_from_before", 0)
    window = f"the last {len(points)} commits" + (f" (since <code>{_e(str(first['commit'])[:7])}</code>)" if first else "")
    if not c["cleared"]:
        waited = (f'No mark was cleared in {window} (<strong id="cleared">0</strong>). '
                  f'Still open: <span id="open-marks">{c["open"]}</span>.')
    else:
        waited = (
            f'Marks cleared in {window}: <strong id="cleared">{c["cleared"]}</strong>'
            + (f' (<span id="cleared-from-before">{before}</span> of them marked before the window: their wait is not known)'
               if before else "")
            + f'; waited <strong id="median-wait">{_e(duration(c["median_seconds"]))}</strong> (median), '
            f'<strong id="p90-wait">{_e(duration(c["p90_seconds"]))}</strong> (90th percentile). '
            f'Still open: <span id="open-marks">{c["open"]}</span>.'
        )
    head = f"<h2>Trend over the last {len(points)} commits</h2>"
    if not points:
        return f'<section id="trend">{head}<p class="muted">No commit history.</p><p>{waited}</p></section>'
    legend = "".join(f'<span><i class="sw" style="background:{COLORS[k]}"></i>{k}</span>' for k in STATUSES)
    return f'<section id="trend">{head}{chart(points)}<p class="legend">{legend}</p><p>{waited}</p></section>'


def chart(points: Sequence[Mapping[str, Any]], width: int = 640, height: int = 220) -> str:
    """Counts by status at each commit: one line per status, the axis from 0 to the largest count."""
    pad_l, pad_b, pad_t = 40, 20, 10
    top = max([1, *(p[k] for p in points for k in STATUSES)])
    step = (width - pad_l - 10) / max(1, len(points) - 1)

    def xy(i: int, v: int) -> str:
        return f"{pad_l + i * step:.1f},{pad_t + (height - pad_t - pad_b) * (1 - v / top):.1f}"

    last = points[-1]
    label = (f"Claims by status at each of the last {len(points)} commits; at the newest: "
             + ", ".join(f"{last[k]} {k}" for k in STATUSES))
    lines = []
    for k in STATUSES:
        pts = " ".join(xy(i, p[k]) for i, p in enumerate(points))
        lines.append(f'<polyline fill="none" stroke="{COLORS[k]}" stroke-width="2" points="{pts}"><title>{k}</title></polyline>')
    dots = "".join(
        f'<circle cx="{xy(i, p[k]).split(",")[0]}" cy="{xy(i, p[k]).split(",")[1]}" r="2.5" fill="{COLORS[k]}">'
        f'<title>{_e(p["commit"][:7])}: {p[k]} {k}</title></circle>'
        for i, p in enumerate(points) for k in STATUSES if len(points) <= 60
    )
    axis = (f'<line x1="{pad_l}" y1="{height - pad_b}" x2="{width - 10}" y2="{height - pad_b}" stroke="currentColor" '
            f'stroke-opacity=".3"/><text x="{pad_l - 6}" y="{pad_t + 4}" text-anchor="end">{top}</text>'
            f'<text x="{pad_l - 6}" y="{height - pad_b}" text-anchor="end">0</text>'
            f'<text x="{pad_l}" y="{height - 4}">{_e(points[0]["commit"][:7])}</text>'
            f'<text x="{width - 10}" y="{height - 4}" text-anchor="end">{_e(last["commit"][:7])}</text>')
    return (f'<svg viewBox="0 0 {width} {height}" role="img" aria-labelledby="trend-title">'
            f'<title id="trend-title">{_e(label)}</title>{axis}{"".join(lines)}{dots}</svg>')


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: set[int]) -> str:
    th = "".join(f'<th{" class=num" if i in numeric else ""} scope="col">{h}</th>' for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f'<td{" class=num" if i in numeric else ""}>{cell}</td>' for i, cell in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f'<div class="scroll"><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def _more(total: int) -> str:
    return f'<p class="muted">and {total - LIST_LIMIT} more (see <code>report --format json</code>)</p>' if total > LIST_LIMIT else ""


def _pages(pages: Sequence[Mapping[str, Any]]) -> str:
    ranked = sorted(pages, key=lambda p: (-(p["stale"] + p["unresolved"]), -p["due"], p["page"]))
    rows = [
        [f"<code>{_e(p['page_path'])}</code>", str(p["claims"]), *(str(p[k]) for k in STATUSES), str(p["due"]),
         _e(duration(p["oldest_mark_age_seconds"])), _e(p["last_human_verified_at"] or "never"),
         _e(" ".join(f"{k} {p['verified_by'][k]}" for k in VERIFIERS if p["verified_by"][k]))]
        for p in ranked[:LIST_LIMIT]
    ]
    headers = ["Page", "Claims", "Fresh", "Stale", "Unresolved", "Due", "Oldest mark", "Last verified by a person", "Verified by"]
    return f'<section id="pages"><h2>Pages</h2>{_table(headers, rows, {1, 2, 3, 4, 5})}{_more(len(pages))}</section>'


def _open(rows: Sequence[Mapping[str, Any]], page_root: str | None) -> str:
    """The open claims, oldest mark first (each row's rank newest first and by page in its style,
    for the sort buttons), their pages linked."""
    head = f'<section id="open"><h2>Open claims ({len(rows)})</h2>'
    if not rows:
        return head + '<p class="muted">None: no claim is stale, unresolved or due.</p></section>'
    shown = list(rows[:LIST_LIMIT])
    by_page = {id(r): n for n, r in enumerate(sorted(shown, key=lambda r: (r["page_path"], r.get("line") or 0)))}
    body = []
    for n, r in enumerate(shown):
        where = f"{r['page_path']}:{r['line']}" if r.get("line") else r["page_path"]
        href = r.get("url") or (f"{page_root}{quote(r['page_path'])}" if page_root is not None else None)
        page = f'<a href="{_e(href)}"><code>{_e(where)}</code></a>' if href else f"<code>{_e(where)}</code>"
        age = _e(duration(r["age_seconds"])) if r["age_seconds"] is not None else "—"
        when = f'<time datetime="{_e(r["marked_at"])}">{age}</time>' if r.get("marked_at") else age
        status = "due" if r["status"] == "fresh" else r["status"]
        cells = [when, _e(status), page, f"<code>{_e(r['label'])}</code>", _e(r["statement"]), _e(cause_text(r["cause"]))]
        body.append(f'<tr id="open-{_e(r["id"])}" style="--newest:{len(shown) - n};--page:{by_page[id(r)]}">'
                    + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    th = "".join(f'<th scope="col">{h}</th>' for h in ("Age", "Status", "Page", "Claim", "Statement", "Cause"))
    sorter = ('<input type="radio" name="open-sort" id="sort-oldest" checked><label for="sort-oldest">oldest first</label>'
              '<input type="radio" name="open-sort" id="sort-newest"><label for="sort-newest">newest first</label>'
              '<input type="radio" name="open-sort" id="sort-page"><label for="sort-page">by page</label>')
    return (f'{head}<p class="muted">Stale, unresolved or due for re-verification; <code>openwiki-git review</code> '
            f'clears them.</p><div class="sorter">{sorter}<div class="scroll"><table class="open"><thead><tr>{th}</tr>'
            f'</thead><tbody>{"".join(body)}</tbody></table></div></div>{_more(len(rows))}</section>')


def _hot_spots(spots: Sequence[Mapping[str, Any]]) -> str:
    if not spots:
        return '<section id="hot-spots"><h2>Hot spots</h2><p class="muted">No cited file marked a claim.</p></section>'
    rows = [[f'<a href="{_e(s["url"])}"><code>{_e(s["path"])}</code></a>', str(s["claims"])] for s in spots]
    return (f'<section id="hot-spots"><h2>Hot spots: the cited files that marked the most claims</h2>'
            f'{_table(["File", "Claims marked"], rows, {1})}</section>')


def _due(due: Sequence[Mapping[str, Any]]) -> str:
    rows = [[f"<code>{_e(c['page'])}</code>", _e(c["statement"]), _e(c.get("verified_at") or "never")] for c in due[:LIST_LIMIT]]
    table = _table(["Page", "Claim", "Last verified"], rows, set()) if due else '<p class="muted">None.</p>'
    return f'<section id="due-list"><h2>Claims due for re-verification ({len(due)})</h2>{table}{_more(len(due))}</section>'


def _simple_list(title: str, ident: str, items: Sequence[str]) -> str:
    body = "".join(f"<li>{i}</li>" for i in items[:LIST_LIMIT]) if items else ""
    shown = f'<ul class="plain">{body}</ul>{_more(len(items))}' if items else '<p class="muted">None.</p>'
    return f'<section id="{ident}"><h2>{_e(title)} ({len(items)})</h2>{shown}</section>'


def _broken(b: Mapping[str, Any]) -> str:
    """One of ground's broken references, as check reports it ({page_path, line, reference, kind, reason})."""
    line = f":{b['line']}" if b.get("line") else ""
    return (f"<code>{_e(b.get('page_path') or b.get('page'))}{_e(line)}</code> <code>{_e(b.get('reference'))}</code> "
            f"{_e(b.get('kind'))}: {_e(b.get('reason'))}")


def _superseded(x: Mapping[str, Any]) -> str:
    by = f" by <code>{_e(x['by'])}</code>" if x.get("by") else ""
    return f"<code>{_e(x.get('page_path'))}</code> {_e(x.get('id'))} cites <code>{_e(x.get('source'))}</code> ({_e(x.get('kind'))}{by})"


def _policy(x: Mapping[str, Any]) -> str:
    return f"<code>{_e(x.get('page'))}</code> {_e(x.get('claim_id'))}: {_e(x.get('verified_by'))} ({_e(x.get('rule'))})"
