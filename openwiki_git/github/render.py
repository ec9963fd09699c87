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

from openwiki_git.claims import causes
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, stored_kind
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
HUNKS_SHOWN = 3  # hunks an evidence line names; the rest are counted
_NOW_LINES = re.compile(r"\(((?:L\d+-L\d+(?:, )?)+) now\)")  # claims/part.at's spans, linked first to last


@dataclass(frozen=True)
class Links:
    """Where links point: `server`/`repo` at commit `sha`; `run_url` is this workflow run."""

    server: str = "https://github.com"
    repo: str = ""
    sha: str = ""
    run_url: str | None = None
    base_sha: str | None = None  # where the text of unresolved evidence was last seen

    def commit(self, sha: str) -> str:
        return f"{self.server.rstrip('/')}/{self.repo}/commit/{sha}"

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


def evidence_md(e: Mapping[str, Any], links: Links, wiki_dir: str) -> str:
    """`[src/app.py#L10-L12](…/blob/<head>/src/app.py#L10-L12) changed by @@ … @@`; a definition
    links to its file at head (at the lines its reason says it spans now); past HUNKS_SHOWN hunks,
    the first ones and how many more."""
    now = resource(e.get("current_resource"), wiki_dir)
    was = resource(e.get("resource"), wiki_dir)
    reason = e.get("reason") or e.get("status") or ""
    symbol = stored_kind(str(e.get("current_resource") or ""))
    if now is not None:
        text = f"[{md_text(label(now))}]({links.blob(now.path, now.start, now.end)})"
    elif was is not None:
        where = links.blob(was.path, was.start, was.end, sha=links.base_sha) if links.base_sha else None
        text = f"[{md_text(label(was))}]({where})" if where else code(label(was))
    elif isinstance(symbol, Symbol):
        lines = _NOW_LINES.search(reason)
        numbers = [int(n) for n in re.findall(r"\d+", lines.group(1))] if lines else []
        start, end = (numbers[0], numbers[-1]) if numbers else (None, None)
        text = f"[{md_text(str(e['current_resource']).removeprefix('repo://'))}]({links.blob(symbol.path, start, end)})"
    else:
        text = code(e.get("resource") or "?")
    if reason:
        text += f" {md_text(reason)}"
    if e.get("hunk"):
        hunks = str(e["hunk"]).split(", @@")
        shown = ", @@".join(hunks[:HUNKS_SHOWN])
        text += f" by {code(shown)}" + (f" and {len(hunks) - HUNKS_SHOWN} more hunks" if len(hunks) > HUNKS_SHOWN else "")
    return text


def bad_evidence(c: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    bad = [e for e in c.get("evidence", []) if e.get("status") != "fresh"]
    return bad or list(c.get("evidence", []))


def page_link(c: Mapping[str, Any], links: Links) -> str:
    """`[guide.md:12](…/guide.md#L12)`: the page, at the line of the claim's sentence when known."""
    path = c.get("page_path") or c.get("page") or "?"
    line = c.get("line")
    text = f"{c.get('page') or path}" + (f":{line}" if line else "")
    return f"[{md_text(text)}]({links.blob(path, line) if line else links.blob(path)})"


def counts(report: Mapping[str, Any]) -> str:
    s = report.get("summary", {})
    parts = [f"{s.get('total', 0)} claims checked", f"{s.get('fresh', 0)} fresh", f"{s.get('stale', 0)} stale"]
    if s.get("unresolved"):
        parts.append(f"{s['unresolved']} unresolved")
    return ", ".join(parts)


def range_md(report: Mapping[str, Any], links: Links) -> str:
    base, head = report.get("base"), report.get("head") or links.sha
    if base:
        return f"between {code(short_sha(base))} and {code(short_sha(head))}"
    return f"at {code(short_sha(head))}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def claim_cause(c: Mapping[str, Any]) -> causes.Cause:
    """The claim's cause: the one `github comment` found (`cause`: its kind and the commit of the
    range that made it), else its record's (claims/causes.of_record)."""
    found = c.get("cause")
    if found:
        return causes.Cause(found.get("commit"), found["kind"], bool(found.get("unresolved")), tuple(found.get("places") or ()))
    return causes.of_record(c)


def by_cause(claims: list[dict[str, Any]]) -> list[causes.Group[dict[str, Any]]]:
    """The claims grouped by cause (commit and kind of change), worst first (claims/causes.py)."""
    return causes.group(claims, claim_cause)


def cause_title(g: causes.Group[dict[str, Any]], links: Links) -> str:
    """`annotations changed in 40 definitions, in [abc1234](…) (its subject): 133 claims`."""
    head, _, count = g.describe().rpartition(": ")
    sha = g.cause.commit
    if sha:
        subject = next((str(c["cause"].get("subject") or "") for c in g.members if c.get("cause")), "")
        head += f", in [{code(short_sha(sha))}]({links.commit(sha)})" + (f" ({md_text(subject[:100])})" if subject else "")
    return f"{md_text(head)}: {count}" if not sha else f"{head}: {count}"


def size(lines: Iterable[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


# -- the step summary -----------------------------------------------------------------------------
def render_summary(report: Mapping[str, Any], links: Links, *, limit: int = SUMMARY_LIMIT) -> str:
    """The complete list of claims that are not fresh, for `$GITHUB_STEP_SUMMARY`: a table per
    cause (commit and kind of change), worst first, as the sticky comment groups them."""
    claims = not_fresh(report)
    wiki_dir = report.get("wiki_dir", ".openwiki")
    out = ["## openwiki-git: wiki claims", "", f"{counts(report)} {range_md(report, links)}.", ""]
    if not claims:
        out += ["All claims are fresh.", ""]
        return "\n".join(out)
    used = size(out) + 200
    i = 0
    for g in by_cause(claims):
        table = [f"#### {cause_title(g, links)}", "", "| # | Status | Page | Claim | Statement | Evidence |", "|---|---|---|---|---|---|"]
        out += table
        used += size(table)
        for c in g.members:
            i += 1
            evidence = "<br>".join(evidence_md(e, links, wiki_dir).replace("|", "\\|") for e in bad_evidence(c))
            row = (
                f"| {i} | {c.get('status')} | {page_link(c, links)} | {code(short_id(c['id']))} | "
                f"{md_cell(c.get('statement', ''))} | {evidence} |"
            )
            if used + size([row]) > limit:
                out.append(f"| … | | | | {len(claims) - i + 1} more do not fit in the summary; run `openwiki-git check` | |")
                out += ["", HOW_TO_CLEAR, ""]
                return "\n".join(out)
            out.append(row)
            used += size([row])
        out.append("")
    out += [HOW_TO_CLEAR, ""]
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
        for e in bad_evidence(c):
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
