"""What a check report looks like on GitHub: **the sticky PR comment**, the job summary's table,
the workflow-command annotations, and the Markdown pieces every GitHub text is built of (links at
one commit, escaped prose and code). Pure: data in, text out; no environment, file system, clock
or network. (The refresh and ground pull requests' bodies are `pull_body.py`'s.)

The input is the check report of `check` (a dict, schemas/check-report.schema.json). Links point
at the exact lines at one commit: `{server}/{repo}/blob/{sha}/{path}#L10-L24`.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from openwiki_git.evidence.kinds import looks_like_kind
from openwiki_git.evidence.resource import Resource, ResourceError, parse_resource
from openwiki_git.redact import redact

STICKY_MARKER = "<!-- openwiki-git:stale-claims -->"
COMMENT_LIMIT = 60_000  # bytes; GitHub refuses comments over 65,536 characters
SUMMARY_LIMIT = 1_000_000  # bytes; the step summary upload fails beyond 1 MiB
MAX_WARNINGS = 10  # GitHub shows only 10 warning annotations per step
DIFF_LIMIT = 4_000  # characters of one evidence item's diff in a comment; longer ones are cut with a count
HOW_TO_CLEAR = (
    "**How to clear them**: in a checkout of this branch run `openwiki-git review`, which shows each claim's diff and "
    "takes one key per claim (confirm, restate, re-point, retract), then commit; or let your coding agent verify "
    "them with the `claims_for_change` and `verify_claim` tools of `openwiki-git mcp`."
)
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


def resource(text: str | None, wiki_dir: str) -> Resource | None:
    """A file or lines; None for a definition by name or a set (shown as the resource itself)."""
    if not text or looks_like_kind(text):
        return None
    try:
        return parse_resource(text, wiki_dir=wiki_dir)
    except ResourceError:
        return None


def label(r: Resource) -> str:
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
    now = resource(e.get("current_resource"), wiki_dir)
    was = resource(e.get("resource"), wiki_dir)
    if now is not None:
        text = f"[{md_text(label(now))}]({links.blob(now.path, now.start, now.end)})"
    elif was is not None:
        where = links.blob(was.path, was.start, was.end, sha=links.base_sha) if links.base_sha else None
        text = f"[{md_text(label(was))}]({where})" if where else code(label(was))
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


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# -- the sticky PR comment ------------------------------------------------------------------------
def render_comment(report: Mapping[str, Any], links: Links, *, limit: int = COMMENT_LIMIT) -> str:
    """The sticky comment listing each stale claim; cut well under GitHub's limit, with a link to
    the run summary for the rest."""
    claims = not_fresh(report)
    if not claims and not report.get("superseded_sources") and not report.get("policy_problems"):
        return render_all_clear(report, links)
    if not claims:
        return "\n".join([STICKY_MARKER, *_cited_documents_md(report), *policy_md(report)])
    wiki_dir = report.get("wiki_dir", ".openwiki")
    head = [
        STICKY_MARKER,
        f"### openwiki-git: {plural(len(claims), 'wiki claim')} no longer {'matches' if len(claims) == 1 else 'match'} the code",
        "",
        f"This pull request changes source lines that {'this claim cites' if len(claims) == 1 else 'these claims cite'} "
        f"({_range(report, links)}). Check each statement against the code (the diff from the text as verified "
        "to the text now is folded under each), then fix the page, or confirm the claim if it still holds.",
        "",
    ]
    foot = [
        HOW_TO_CLEAR, "",
        f"<sub>{_counts(report)}." + (f" [Run summary]({links.run_url})" if links.run_url else "") + "</sub>", "",
    ]
    sections = [_comment_section(i, c, links, wiki_dir) for i, c in enumerate(claims, 1)]
    body_parts = list(head)
    used = size(head) + size(foot) + 400  # room for the "N more" line
    shown = 0
    for section in sections:
        if used + size(section) > limit:
            break
        body_parts.extend(section)
        used += size(section)
        shown += 1
    if shown < len(sections):
        rest = len(sections) - shown
        where = f"[the run summary]({links.run_url})" if links.run_url else "the job summary"
        body_parts += [f"**…and {plural(rest, 'more claim')}**: the complete list is in {where}.", ""]
    return "\n".join(body_parts + _cited_documents_md(report)[:40] + policy_md(report)[:40] + foot)


def _cited_documents_md(report: Mapping[str, Any]) -> list[str]:
    """Claims whose cited document is superseded or was amended since (citestale), one bullet each."""
    cited = report.get("superseded_sources") or []
    if not cited:
        return []
    lines = [
        f"### openwiki-git: {plural(len(cited), 'wiki claim')} cite{'s' if len(cited) == 1 else ''} a replaced or amended document",
        "",
    ]
    lines += [f"- {code(short_id(n['id']))} ({md_text(n.get('page_path', ''))}): {md_text(n['note'])}" for n in cited[:30]]
    return [*lines, ""]


def policy_md(report: Mapping[str, Any]) -> list[str]:
    """Claims whose recorded verifier the verify policy forbids (claims/policy.py), one bullet each."""
    found = report.get("policy_problems") or []
    if not found:
        return []
    lines = [f"### openwiki-git: {plural(len(found), 'wiki claim')} verified by whom the verify policy forbids", ""]
    lines += [
        f"- {code(short_id(p['claim_id']))} ({md_text(p['page'])}): verified by {code(p['verified_by'])}; {md_text(p['rule'])}"
        for p in found[:30]
    ]
    return [*lines, ""]


def _comment_section(i: int, c: Mapping[str, Any], links: Links, wiki_dir: str) -> list[str]:
    status = c.get("status", "stale")
    lines = [
        f"**{i}. {_page_link(c, links)}** · {code(short_id(c['id']))} · {status}",
        f"> {md_text(c.get('statement', ''))}",
        "",
    ]
    bad = _bad_evidence(c)
    lines += [f"- {_evidence_md(e, links, wiki_dir)}" for e in bad]
    lines.append("")
    for e in bad:
        lines += diff_details(e, wiki_dir)
    return lines


def diff_details(e: Mapping[str, Any], wiki_dir: str, *, limit: int = DIFF_LIMIT) -> list[str]:
    """The evidence item's verified-to-now diff (`diff`, when the report carries one) folded in
    a `<details>` block, cut to `limit` characters; none without a diff."""
    diff = e.get("diff")
    if not diff:
        return []
    text = str(diff)
    if len(text) > limit:
        cut = text[:limit].rsplit("\n", 1)[0]
        text = cut + f"\n… {text.count(chr(10)) - cut.count(chr(10))} more lines (openwiki-git claim show)\n"
    now = resource(e.get("current_resource"), wiki_dir) or resource(e.get("resource"), wiki_dir)
    where = md_text(label(now)) if now is not None else "the cited lines"
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", text)), default=0))  # longer than any in it
    return [f"<details><summary>diff of {where}: as verified → now</summary>", "", f"{fence}diff", text.rstrip("\n"), fence,
            "", "</details>", ""]


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


def size(lines: Iterable[str]) -> int:
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
    used = size(out) + 200
    for i, c in enumerate(claims, 1):
        evidence = "<br>".join(_evidence_md(e, links, wiki_dir).replace("|", "\\|") for e in _bad_evidence(c))
        row = (
            f"| {i} | {c.get('status')} | {_page_link(c, links)} | {code(short_id(c['id']))} | "
            f"{md_cell(c.get('statement', ''))} | {evidence} |"
        )
        if used + size([row]) > limit:
            out.append(f"| … | | | | {len(claims) - i + 1} more do not fit in the summary; run `openwiki-git check` | |")
            break
        out.append(row)
        used += size([row])
    out += ["", HOW_TO_CLEAR, ""]
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
            now = resource(e.get("current_resource"), wiki_dir)
            was = resource(e.get("resource"), wiki_dir)
            why = one_line(e.get("reason") or e.get("status") or "changed")
            if e.get("hunk"):
                why += f" by {e['hunk']}"
            cited = label(now) if now else (label(was) if was else e.get("resource") or "?")
            fix = (
                f"fix the page, or if it still holds run: openwiki-git review (or claim confirm {short_id(c['id'])})"
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
