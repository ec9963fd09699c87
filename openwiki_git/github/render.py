"""Renderers for GitHub: the sticky PR comment, the step summary, workflow-command annotations and
the refresh PR's body. Pure: data in, text out; no environment, file system, clock or network.

Inputs are the check report of `check` (a dict, schemas/check-report.schema.json) and the refresh
result's `to_dict()`. Links point at the exact lines at one commit:
`{server}/{repo}/blob/{sha}/{path}#L10-L24`.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from openwiki_git.evidence.resource import Resource, ResourceError, parse_resource
from openwiki_git.redact import redact

STICKY_MARKER = "<!-- openwiki-git:stale-claims -->"
REFRESH_MARKER = "<!-- openwiki-git:refresh"
COMMENT_LIMIT = 60_000  # bytes; GitHub refuses comments over 65,536 characters
SUMMARY_LIMIT = 1_000_000  # bytes; the step summary upload fails beyond 1 MiB
MAX_WARNINGS = 10  # GitHub shows only 10 warning annotations per step
NOT_FRESH = ("stale", "unresolved")


@dataclass(frozen=True)
class Links:
    """Where links point: `server`/`repo` at commit `sha`; `run_url` is this workflow run."""

    server: str = "https://github.com"
    repo: str = ""
    sha: str = ""
    run_url: str | None = None
    base_sha: str | None = None  # where the text of unresolved evidence was last seen

    def blob(self, path: str, start: int | None = None, end: int | None = None, *, sha: str | None = None) -> str:
        url = f"{self.server.rstrip('/')}/{self.repo}/blob/{sha or self.sha}/{quote(path)}"
        if start is not None:
            url += f"#L{start}" if end in (None, start) else f"#L{start}-L{end}"
        return url


# -- report helpers ----------------------------------------------------------------------------
def not_fresh(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The claims a person must look at: stale or unresolved, in report order."""
    return [c for c in report.get("claims", []) if c.get("status") in NOT_FRESH]


def short_id(claim_id: str) -> str:
    return "c-" + claim_id.removeprefix("claim_")[:8]


def short_sha(sha: str | None) -> str:
    return (sha or "")[:7] or "?"


def _resource(text: str | None, wiki_dir: str) -> Resource | None:
    if not text:
        return None
    try:
        return parse_resource(text, wiki_dir=wiki_dir)
    except ResourceError:
        return None


def _label(r: Resource) -> str:
    if r.start is None:
        return r.path
    return f"{r.path}#L{r.start}" + (f"-L{r.end}" if r.end != r.start else "")


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def md_text(text: str) -> str:
    """Text for Markdown prose: one line, no raw HTML (a statement cannot hide or fake a marker)."""
    return one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_cell(text: str) -> str:
    return md_text(text).replace("|", "\\|")


def code(text: str) -> str:
    text = one_line(text)
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _evidence_md(e: Mapping[str, Any], links: Links, wiki_dir: str) -> str:
    """`[src/app.py#L10-L12](…/blob/<head>/src/app.py#L10-L12) changed by @@ … @@`"""
    now = _resource(e.get("current_resource"), wiki_dir)
    was = _resource(e.get("resource"), wiki_dir)
    if now is not None:
        text = f"[{md_text(_label(now))}]({links.blob(now.path, now.start, now.end)})"
    elif was is not None:
        where = links.blob(was.path, was.start, was.end, sha=links.base_sha) if links.base_sha else None
        text = f"[{md_text(_label(was))}]({where})" if where else code(_label(was))
    else:
        text = code(e.get("resource") or "?")
    reason = e.get("reason") or e.get("status") or ""
    if reason:
        text += f" {md_text(reason)}"
    if e.get("hunk"):
        text += f" by {code(e['hunk'])}"
    return text


def _bad_evidence(c: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    bad = [e for e in c.get("evidence", []) if e.get("status") != "fresh"]
    return bad or list(c.get("evidence", []))


def _page_link(c: Mapping[str, Any], links: Links) -> str:
    path = c.get("page_path") or c.get("page") or "?"
    return f"[{md_text(c.get('page') or path)}]({links.blob(path)})"


def _counts(report: Mapping[str, Any]) -> str:
    s = report.get("summary", {})
    parts = [f"{s.get('total', 0)} claims checked", f"{s.get('fresh', 0)} fresh", f"{s.get('stale', 0)} stale"]
    if s.get("unresolved"):
        parts.append(f"{s['unresolved']} unresolved")
    return ", ".join(parts)


def _range(report: Mapping[str, Any], links: Links) -> str:
    base, head = report.get("base"), report.get("head") or links.sha
    if base:
        return f"between {code(short_sha(base))} and {code(short_sha(head))}"
    return f"at {code(short_sha(head))}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# -- the sticky PR comment ------------------------------------------------------------------------
def render_comment(report: Mapping[str, Any], links: Links, *, limit: int = COMMENT_LIMIT) -> str:
    """The sticky comment listing each stale claim; cut well under GitHub's limit, with a link to
    the run summary for the rest."""
    claims = not_fresh(report)
    if not claims and not report.get("superseded_sources"):
        return render_all_clear(report, links)
    if not claims:
        return "\n".join([STICKY_MARKER, *_cited_documents_md(report)])
    wiki_dir = report.get("wiki_dir", ".openwiki")
    head = [
        STICKY_MARKER,
        f"### openwiki-git: {_plural(len(claims), 'wiki claim')} no longer {'matches' if len(claims) == 1 else 'match'} the code",
        "",
        f"This pull request changes source lines that {'this claim cites' if len(claims) == 1 else 'these claims cite'} "
        f"({_range(report, links)}). Check each statement against the code, then fix the page or run "
        "`openwiki-git claim confirm <id>` if it still holds.",
        "",
    ]
    foot = [f"<sub>{_counts(report)}." + (f" [Run summary]({links.run_url})" if links.run_url else "") + "</sub>", ""]
    sections = [_comment_section(i, c, links, wiki_dir) for i, c in enumerate(claims, 1)]
    body_parts = list(head)
    used = _size(head) + _size(foot) + 400  # room for the "N more" line
    shown = 0
    for section in sections:
        if used + _size(section) > limit:
            break
        body_parts.extend(section)
        used += _size(section)
        shown += 1
    if shown < len(sections):
        rest = len(sections) - shown
        where = f"[the run summary]({links.run_url})" if links.run_url else "the job summary"
        body_parts += [f"**…and {_plural(rest, 'more claim')}**: the complete list is in {where}.", ""]
    return "\n".join(body_parts + _cited_documents_md(report)[:40] + foot)


def _cited_documents_md(report: Mapping[str, Any]) -> list[str]:
    """Claims whose cited document is superseded or was amended since (citestale), one bullet each."""
    cited = report.get("superseded_sources") or []
    if not cited:
        return []
    lines = [
        f"### openwiki-git: {_plural(len(cited), 'wiki claim')} cite{'s' if len(cited) == 1 else ''} a replaced or amended document",
        "",
    ]
    lines += [f"- {code(short_id(n['id']))} ({md_text(n.get('page_path', ''))}): {md_text(n['note'])}" for n in cited[:30]]
    return [*lines, ""]


def _comment_section(i: int, c: Mapping[str, Any], links: Links, wiki_dir: str) -> list[str]:
    status = c.get("status", "stale")
    lines = [
        f"**{i}. {_page_link(c, links)}** · {code(short_id(c['id']))} · {status}",
        f"> {md_text(c.get('statement', ''))}",
        "",
    ]
    lines += [f"- {_evidence_md(e, links, wiki_dir)}" for e in _bad_evidence(c)]
    lines.append("")
    return lines


def render_all_clear(report: Mapping[str, Any], links: Links) -> str:
    """The sticky comment once nothing is stale any more: short, so the thread stays readable."""
    head = report.get("head") or links.sha
    return "\n".join(
        [
            STICKY_MARKER,
            "### openwiki-git: all claims are fresh ✅",
            "",
            f"All claims are fresh at {code(short_sha(head))}: the claims this pull request had made stale "
            "match the code again.",
            "",
        ]
    )


def _size(lines: Iterable[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


# -- the step summary -----------------------------------------------------------------------------
def render_summary(report: Mapping[str, Any], links: Links, *, limit: int = SUMMARY_LIMIT) -> str:
    """The complete table of claims that are not fresh, for `$GITHUB_STEP_SUMMARY`."""
    claims = not_fresh(report)
    wiki_dir = report.get("wiki_dir", ".openwiki")
    out = ["## openwiki-git: wiki claims", "", f"{_counts(report)} {_range(report, links)}.", ""]
    if not claims:
        out += ["All claims are fresh.", ""]
        return "\n".join(out)
    out += ["| # | Status | Page | Claim | Statement | Evidence |", "|---|---|---|---|---|---|"]
    used = _size(out) + 200
    for i, c in enumerate(claims, 1):
        evidence = "<br>".join(_evidence_md(e, links, wiki_dir).replace("|", "\\|") for e in _bad_evidence(c))
        row = (
            f"| {i} | {c.get('status')} | {_page_link(c, links)} | {code(c['id'])} | "
            f"{md_cell(c.get('statement', ''))} | {evidence} |"
        )
        if used + _size([row]) > limit:
            out.append(f"| … | | | | {len(claims) - i + 1} more do not fit in the summary; run `openwiki-git check` | |")
            break
        out.append(row)
        used += _size([row])
    out.append("")
    return "\n".join(out)


# -- annotations -----------------------------------------------------------------------------------
def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as a message, plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(kind: str, message: str, **props: str | int | None) -> str:
    """One workflow command (`::warning file=F,line=L,title=T::message`), secrets masked."""
    given = [(k, v) for k, v in props.items() if v is not None]
    head = f"::{kind}"
    if given:
        head += " " + ",".join(f"{k}={escape_property(redact(str(v)))}" for k, v in given)
    return f"{head}::{escape_data(redact(message))}"


def annotations(report: Mapping[str, Any], *, limit: int = MAX_WARNINGS) -> list[str]:
    """`::warning` lines on the cited lines (as they are at head), those whose lines the diff
    touched first; at most `limit`, then one `::notice` with how many more are in the summary."""
    wiki_dir = report.get("wiki_dir", ".openwiki")
    touched: list[str] = []
    others: list[str] = []
    for c in not_fresh(report):
        title = f"{'Stale' if c.get('status') == 'stale' else 'Unresolved'} wiki claim {short_id(c['id'])}"
        page = c.get("page_path") or c.get("page") or "?"
        for e in _bad_evidence(c):
            now = _resource(e.get("current_resource"), wiki_dir)
            was = _resource(e.get("resource"), wiki_dir)
            why = one_line(e.get("reason") or e.get("status") or "changed")
            if e.get("hunk"):
                why += f" by {e['hunk']}"
            cited = _label(now) if now else (_label(was) if was else e.get("resource") or "?")
            fix = (
                f"fix the page, or if it still holds run: openwiki-git claim confirm {c['id']}"
                if now is not None
                else "fix the page and the claim's evidence (claim retract, then claim add)"
            )
            message = f"{page} says: {one_line(c.get('statement', ''))}\nIt cites {cited} ({why}). Check it, then {fix}"
            if now is not None:
                line = workflow_command("warning", message, file=now.path, line=now.start, endLine=now.end, title=title)
            else:
                line = workflow_command("warning", message, file=page, title=title)
            (touched if e.get("hunk") else others).append(line)
    ordered = touched + others
    out = ordered[:limit]
    if len(ordered) > limit:
        out.append(workflow_command("notice", f"{len(ordered) - limit} more in the job summary", title="openwiki-git"))
    return out


# -- the refresh PR ---------------------------------------------------------------------------------
VERDICTS = {"confirm": "Confirmed", "revise": "Revised", "retract": "Retracted"}


def _cost(value: Any) -> str:
    """USD, or "n/a" when the model has no price in the config's price table."""
    if value is None:
        return "n/a"
    return f"${float(value):.4f}"


def _usage_cell(d: Mapping[str, Any]) -> str:
    if d.get("trivial"):
        return "no model call"
    return f"{int(d.get('tokens_in') or 0):,} / {int(d.get('tokens_out') or 0):,}"


def _page_cell(d: Mapping[str, Any], links: Links, wiki_dir: str) -> str:
    page = d.get("page")
    if not page:
        return "?"
    return f"[{md_cell(page)}]({links.blob(f'{wiki_dir}/{page}')})"


def fenced(text: str, info: str = "") -> list[str]:
    """`text` as a fenced code block whose fence no line of it can close."""
    longest = max((len(m) for m in re.findall(r"`{3,}|~{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), fence]


def _quote_link(resource: str, links: Links, wiki_dir: str, sha: str) -> str:
    r = _resource(resource, wiki_dir)
    if r is None:
        return code(resource)
    return f"[{md_text(_label(r))}]({links.blob(r.path, r.start, r.end, sha=sha)})"


def _decision_md(d: Mapping[str, Any], links: Links, wiki_dir: str, checked_at: str) -> list[str]:
    """One decision as a reviewer checks it: the statement before and after, the model's rationale,
    the lines it quoted (linked at the commit it read), the new evidence, and anything to look at."""
    verdict = d.get("verdict")
    head = f"**{_page_cell(d, links, wiki_dir)}** · {code(short_id(d['claim_id']))} · {_usage_cell(d)} tokens · {_cost(d.get('cost'))}"
    if d.get("trivial"):
        head = f"**{_page_cell(d, links, wiki_dir)}** · {code(short_id(d['claim_id']))} · no model call ({md_text(d['trivial'])})"
    out = [head, ""]
    old, new = d.get("old_statement") or "", d.get("new_statement")
    if verdict == "revise" and new and new != old:
        out += [f"- Before: {md_text(old)}", f"- After: {md_text(new)}"]
    elif verdict == "revise":
        out += [f"- Statement (kept, with new evidence): {md_text(old)}"]
    elif verdict == "retract":
        out += [f"- Removed: {md_text(old)}"]
    else:
        out += [f"- Statement: {md_text(old)}"]
    if d.get("rationale"):
        out.append(f"- Rationale (the model's): {md_text(d['rationale'])}")
    for note in d.get("notes") or []:
        out.append(f"- ⚠️ {md_text(note)}")
    if verdict == "revise" and d.get("evidence_after") and d.get("evidence_after") != d.get("evidence_before"):
        out.append("- New evidence: " + ", ".join(_quote_link(e, links, wiki_dir, checked_at) for e in d["evidence_after"]))
    out.append("")
    for q in d.get("quotes") or []:
        out += [f"Quoted from {_quote_link(q['resource'], links, wiki_dir, checked_at)} at {code(short_sha(checked_at))}:", ""]
        out += fenced(str(q.get("quote") or ""))
        out.append("")
    return out


def render_plan(result: Mapping[str, Any], *, wiki_dir: str = ".openwiki", limit: int = SUMMARY_LIMIT) -> str:
    """A dry run (`--plan`) for the step summary: each claim that would be sent, with its estimated
    tokens and cost, the ones that would not and why, then the estimate's totals."""
    plan = result.get("plan") or {}
    out = [
        "## openwiki-git: refresh plan (no model was called)",
        "",
        f"{_plural(int(plan.get('claims_to_send') or 0), 'claim')} would be sent to {code(result.get('model') or 'none')}: "
        f"~{int(plan.get('tokens_in') or 0):,} tokens in, ~{int(plan.get('tokens_out') or 0):,} out, "
        f"~{_cost(plan.get('cost'))} (estimates).",
        "",
        "| Page | Claim | Sent? | Tokens in / out (est.) | Cost (est.) |",
        "|---|---|---|---|---|",
    ]
    used = _size(out) + 200
    for d in result.get("decisions", []):
        p = d.get("planned")
        page = md_cell(f"{wiki_dir}/{d.get('page')}")
        if d.get("verdict"):
            trivial = md_cell(d.get("trivial") or "")
            row = f"| {page} | {code(short_id(d['claim_id']))} | confirmed without a model ({trivial}) | 0 | $0.0000 |"
        elif p is not None and p.get("send"):
            row = (f"| {page} | {code(short_id(d['claim_id']))} | yes | ~{int(p['tokens_in']):,} / ~{int(p['tokens_out']):,} "
                   f"| ~{_cost(p.get('cost'))} |")
        else:
            row = f"| {page} | {code(short_id(d['claim_id']))} | no: {md_cell(d.get('skipped') or d.get('error') or '')} | | |"
        if used + _size([row]) > limit:
            out.append("| … | | more than fit in the summary | | |")
            break
        out.append(row)
        used += _size([row])
    return "\n".join(out + [""])


def refresh_counts(result: Mapping[str, Any]) -> dict[str, int]:
    """confirm / revise / retract / stale (left as it was) counts of a refresh result."""
    counts = {"confirm": 0, "revise": 0, "retract": 0, "stale": 0}
    for d in result.get("decisions", []):
        counts[d.get("verdict") if d.get("verdict") in VERDICTS else "stale"] += 1
    return counts


def render_refresh_body(
    result: Mapping[str, Any],
    links: Links,
    *,
    fingerprint: str,
    checked_at: str,
    wiki_dir: str = ".openwiki",
    limit: int = COMMENT_LIMIT,
) -> str:
    """The refresh PR's body (from `RefreshResult.to_dict()`): each decision as a reviewer checks
    it (revisions and retractions first: the statement before and after, the rationale, the quoted
    lines linked at `checked_at`, the new evidence, notes), the left-stale claims in a table, then
    the totals. `links` point at the refresh branch; `checked_at` is the base commit the code was
    read at. A hidden fingerprint lets the next run see that nothing is new."""
    ds = list(result.get("decisions", []))
    n = refresh_counts(result)
    head = [
        f"{REFRESH_MARKER} fingerprint={fingerprint} -->",
        "## openwiki-git: wiki refresh",
        "",
        f"A model checked {_plural(len(ds), 'wiki claim')} that no longer matched the code at "
        f"{code(short_sha(checked_at))}: **{n['confirm']} confirmed, {n['revise']} revised, {n['retract']} retracted**"
        + (f", {n['stale']} left stale" if n["stale"] else "")
        + ". Only decisions whose quotes match the current code were applied. Review the wiki changes like "
        "any other change.",
        "",
    ]
    sections: list[list[str]] = []
    # Revisions and retractions first: they change what the wiki says.
    for key, title in (("revise", "Revised"), ("retract", "Retracted"), ("confirm", "Confirmed")):
        group = [d for d in ds if d.get("verdict") == key]
        if group:
            sections.append([f"### {title}", ""])
            sections += [_decision_md(d, links, wiki_dir, checked_at) for d in group]
    left = [d for d in ds if d.get("verdict") not in VERDICTS]
    if left:
        rows = ["### Left stale", "", "| Page | Claim | Why | Tokens in / out | Cost |", "|---|---|---|---|---|"]
        for d in left:
            why = d.get("error") or d.get("skipped") or "no decision"
            rows.append(
                f"| {_page_cell(d, links, wiki_dir)} | {code(short_id(d['claim_id']))} | {md_cell(why)} "
                f"| {_usage_cell(d)} | {_cost(d.get('cost'))} |"
            )
        sections.append(rows + [""])
    t = result.get("totals") or {}
    usage = [
        "### Usage",
        "",
        "| Model | Claims | Model calls | Tokens in | Tokens out | Cost |",
        "|---|---|---|---|---|---|",
        f"| {code(result.get('model') or 'none')} | {len(ds)} | {int(t.get('model_calls') or 0)} "
        f"| {int(t.get('tokens_in') or 0):,} | {int(t.get('tokens_out') or 0):,} | {_cost(t.get('cost', 0))} |",
        "",
    ]
    if result.get("stopped"):
        usage += [f"The run stopped early: {md_text(result['stopped'])}. The rest stays stale until the next run.", ""]
    run = f" in [this run]({links.run_url})" if links.run_url else ""
    foot = [
        f"<sub>Opened by openwiki-git{run}. The next refresh rebuilds this branch on the base branch; "
        "push edits you want to keep to another branch.</sub>",
        "",
    ]
    out = list(head)
    used = _size(head) + _size(usage) + _size(foot) + 300
    for section in sections:
        if used + _size(section) > limit:
            where = f"[the run summary]({links.run_url})" if links.run_url else "the job summary"
            out += [f"**…more decisions than fit here**: see {where}.", ""]
            break
        out += section
        used += _size(section)
    return "\n".join(out + usage + foot)


_TIMESTAMP = re.compile(rb"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")


def without_timestamps(data: bytes) -> bytes:
    """The bytes with every ISO 8601 date-time masked: two refreshes that differ only in when they
    ran are the same change (no churn from timestamps)."""
    return _TIMESTAMP.sub(b"<time>", data)


_PAGE_VERSION = re.compile(rb'("pageVersion"\s*:\s*")sha256:[0-9a-f]{64}(")')


def without_volatile(data: bytes) -> bytes:
    """`without_timestamps`, and the sidecar's pageVersion masked too (it hashes the page's bytes,
    which hold the timestamps): the same decisions made at another time compare equal."""
    return _PAGE_VERSION.sub(rb"\1<page-version>\2", without_timestamps(data))
