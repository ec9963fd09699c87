"""The pull requests openwiki-git opens: their branches and titles, the refresh PR's body (each
decision as a reviewer checks it), the refresh plan, the ground PR's body, their commit messages
and the job summary's note on what happened to the pull request. Pure: data in, text out.

Inputs are the refresh result's `to_dict()` and `ground`'s report data. The Markdown pieces
(links, escaping) are render.py's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

from openwiki_git.github.render import (
    COMMENT_LIMIT,
    SUMMARY_LIMIT,
    Links,
    code,
    label,
    md_cell,
    md_text,
    plural,
    resource,
    short_id,
    short_sha,
    size,
)

REFRESH_BRANCH = "openwiki-git/refresh"
REFRESH_TITLE = "openwiki-git: refresh stale wiki claims"
GROUND_BRANCH = "openwiki-git/ground"
GROUND_TITLE = "openwiki-git: ground the docs' code references"
REFRESH_MARKER = "<!-- openwiki-git:refresh"
GROUND_MARKER = "<!-- openwiki-git:ground -->"
FINGERPRINT_TRAILER = "Openwiki-Git-Fingerprint:"
VERDICTS = {"confirm": "Confirmed", "revise": "Revised", "retract": "Retracted"}


class Pull(Protocol):
    """What happened to a pull request (github/api.py's `PullResult`)."""

    @property
    def operation(self) -> str: ...

    @property
    def number(self) -> int | None: ...

    @property
    def url(self) -> str | None: ...


# -- cells -------------------------------------------------------------------------------------------
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


def _quote_link(text: str, links: Links, wiki_dir: str, sha: str) -> str:
    r = resource(text, wiki_dir)
    if r is None:
        return code(text)
    return f"[{md_text(label(r))}]({links.blob(r.path, r.start, r.end, sha=sha)})"


# -- the refresh pull request ------------------------------------------------------------------------
def _statement_md(d: Mapping[str, Any]) -> list[str]:
    """The statement before and after, as the verdict changed it."""
    verdict = d.get("verdict")
    old, new = d.get("old_statement") or "", d.get("new_statement")
    if verdict == "revise" and new and new != old:
        return [f"- Before: {md_text(old)}", f"- After: {md_text(new)}"]
    if verdict == "revise":
        return [f"- Statement (kept, with new evidence): {md_text(old)}"]
    if verdict == "retract":
        return [f"- Removed: {md_text(old)}"]
    return [f"- Statement: {md_text(old)}"]


def _decision_md(d: Mapping[str, Any], links: Links, wiki_dir: str, checked_at: str) -> list[str]:
    """One decision as a reviewer checks it: the statement before and after, the model's rationale,
    the lines it quoted (linked at the commit it read), the new evidence, and anything to look at."""
    head = f"**{_page_cell(d, links, wiki_dir)}** · {code(short_id(d['claim_id']))} · {_usage_cell(d)} tokens · {_cost(d.get('cost'))}"
    if d.get("trivial"):
        head = f"**{_page_cell(d, links, wiki_dir)}** · {code(short_id(d['claim_id']))} · no model call ({md_text(d['trivial'])})"
    out = [head, "", *_statement_md(d)]
    if d.get("rationale"):
        out.append(f"- Rationale (the model's): {md_text(d['rationale'])}")
    for note in d.get("notes") or []:
        out.append(f"- ⚠️ {md_text(note)}")
    if d.get("verdict") == "revise" and d.get("evidence_after") and d.get("evidence_after") != d.get("evidence_before"):
        out.append("- New evidence: " + ", ".join(_quote_link(e, links, wiki_dir, checked_at) for e in d["evidence_after"]))
    out.append("")
    for q in d.get("quotes") or []:
        out += [f"Quoted from {_quote_link(q['resource'], links, wiki_dir, checked_at)} at {code(short_sha(checked_at))}:", ""]
        out += fenced(str(q.get("quote") or ""))
        out.append("")
    return out


def _plan_row(d: Mapping[str, Any], wiki_dir: str) -> str:
    p = d.get("planned")
    page = md_cell(f"{wiki_dir}/{d.get('page')}")
    if d.get("verdict"):
        trivial = md_cell(d.get("trivial") or "")
        return f"| {page} | {code(short_id(d['claim_id']))} | confirmed without a model ({trivial}) | 0 | $0.0000 |"
    if p is not None and p.get("send"):
        return (f"| {page} | {code(short_id(d['claim_id']))} | yes | ~{int(p['tokens_in']):,} / ~{int(p['tokens_out']):,} "
                f"| ~{_cost(p.get('cost'))} |")
    return f"| {page} | {code(short_id(d['claim_id']))} | no: {md_cell(d.get('skipped') or d.get('error') or '')} | | |"


def render_plan(result: Mapping[str, Any], *, wiki_dir: str = ".openwiki", limit: int = SUMMARY_LIMIT) -> str:
    """A dry run (`--plan`) for the step summary: each claim that would be sent, with its estimated
    tokens and cost, the ones that would not and why, then the estimate's totals."""
    plan = result.get("plan") or {}
    out = [
        "## openwiki-git: refresh plan (no model was called)",
        "",
        f"{plural(int(plan.get('claims_to_send') or 0), 'claim')} would be sent to {code(result.get('model') or 'none')}: "
        f"~{int(plan.get('tokens_in') or 0):,} tokens in, ~{int(plan.get('tokens_out') or 0):,} out, "
        f"~{_cost(plan.get('cost'))} (estimates).",
        "",
        "| Page | Claim | Sent? | Tokens in / out (est.) | Cost (est.) |",
        "|---|---|---|---|---|",
    ]
    used = size(out) + 200
    for d in result.get("decisions", []):
        row = _plan_row(d, wiki_dir)
        if used + size([row]) > limit:
            out.append("| … | | more than fit in the summary | | |")
            break
        out.append(row)
        used += size([row])
    return "\n".join(out + [""])


def refresh_counts(result: Mapping[str, Any]) -> dict[str, int]:
    """confirm / revise / retract / stale (left as it was) counts of a refresh result."""
    counts = {"confirm": 0, "revise": 0, "retract": 0, "stale": 0}
    for d in result.get("decisions", []):
        counts[d.get("verdict") if d.get("verdict") in VERDICTS else "stale"] += 1
    return counts


def _decision_sections(ds: list[Mapping[str, Any]], links: Links, wiki_dir: str, checked_at: str) -> list[list[str]]:
    """Revisions and retractions first (they change what the wiki says), then confirmations, then
    the claims left stale in a table."""
    sections: list[list[str]] = []
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
    return sections


def _usage_md(result: Mapping[str, Any], claims: int) -> list[str]:
    t = result.get("totals") or {}
    usage = [
        "### Usage",
        "",
        "| Model | Claims | Model calls | Tokens in | Tokens out | Cost |",
        "|---|---|---|---|---|---|",
        f"| {code(result.get('model') or 'none')} | {claims} | {int(t.get('model_calls') or 0)} "
        f"| {int(t.get('tokens_in') or 0):,} | {int(t.get('tokens_out') or 0):,} | {_cost(t.get('cost', 0))} |",
        "",
    ]
    if t.get("requests"):
        rate = t.get("first_acceptance")
        usage += [
            f"The model decided {int(t.get('model_decided') or 0)} claims in {int(t['requests'])} requests (one per sentence): "
            f"{t.get('calls_per_claim')} calls and {t.get('tokens_per_claim')} tokens per claim; its first answer was "
            f"accepted {int(t.get('first_accepted') or 0)} times of {int(t['requests'])}"
            + (f" ({float(rate):.0%})" if isinstance(rate, (int, float)) else "")
            + f", with {int(t.get('retries') or 0)} retries.",
            "",
        ]
    if result.get("stopped"):
        usage += [f"The run stopped early: {md_text(result['stopped'])}. The rest stays stale until the next run.", ""]
    return usage


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
        f"A model checked {plural(len(ds), 'wiki claim')} that no longer matched the code at "
        f"{code(short_sha(checked_at))}: **{n['confirm']} confirmed, {n['revise']} revised, {n['retract']} retracted**"
        + (f", {n['stale']} left stale" if n["stale"] else "")
        + ". Only decisions whose quotes match the current code were applied. Review the wiki changes like "
        "any other change.",
        "",
    ]
    usage = _usage_md(result, len(ds))
    run = f" in [this run]({links.run_url})" if links.run_url else ""
    foot = [
        f"<sub>Opened by openwiki-git{run}. The next refresh rebuilds this branch on the base branch; "
        "push edits you want to keep to another branch.</sub>",
        "",
    ]
    out = list(head)
    used = size(head) + size(usage) + size(foot) + 300
    for section in _decision_sections(ds, links, wiki_dir, checked_at):
        if used + size(section) > limit:
            where = f"[the run summary]({links.run_url})" if links.run_url else "the job summary"
            out += [f"**…more decisions than fit here**: see {where}.", ""]
            break
        out += section
        used += size(section)
    return "\n".join(out + usage + foot)


def refresh_commit_message(result: Mapping[str, Any], body: str, fingerprint: str) -> str:
    """The summary line and counts, the pull request's body (so a run that could not open the pull
    request can open it later without the model) and the fingerprint trailer."""
    n = refresh_counts(result)
    return (
        "openwiki-git: refresh stale wiki claims\n\n"
        f"{n['confirm']} confirmed, {n['revise']} revised, {n['retract']} retracted"
        + (f", {n['stale']} left stale" if n["stale"] else "")
        + ".\n\n"
        + body.rstrip()
        + f"\n\n{FINGERPRINT_TRAILER} {fingerprint}\n"
    )


def body_from_message(message: str) -> str | None:
    """The pull request body a refresh commit carries (between the marker and the trailer)."""
    at = message.find(REFRESH_MARKER)
    end = message.rfind("\n" + FINGERPRINT_TRAILER)
    if at < 0 or end <= at:
        return None
    return message[at:end].rstrip() + "\n"


def visible(body: str) -> str:
    """The pull request body without its hidden marker line (for the step summary)."""
    return body.split("\n", 1)[1] if body.startswith(REFRESH_MARKER) else body


# -- the job summary: what happened to the pull request -----------------------------------------------
def _outcome_note(pull: Pull, *, closed: str) -> str:
    where = f"[#{pull.number}]({pull.url})" if pull.number else ""
    return {
        "created": f"Opened {where}.",
        "updated": f"Updated {where}.",
        "unchanged": f"{where} already holds these changes: nothing was written.",
        "closed": f"Closed {where}{closed}",
        "none": "No wiki file changed, so no pull request was opened.",
    }[pull.operation]


def refresh_summary(body: str, result: Mapping[str, Any], pull: Pull) -> str:
    """The step summary: the PR body without its hidden marker, and what happened to the PR."""
    if not result.get("decisions") and pull.operation in ("none", "closed"):
        text = "## openwiki-git: wiki refresh\n\nNothing to refresh: no claim is stale."
        if pull.operation == "closed":
            text += f" The open pull request [#{pull.number}]({pull.url}) is no longer needed and was closed."
        return text + "\n"
    return f"{visible(body).rstrip()}\n\n**{_outcome_note(pull, closed=': nothing is left to change.')}**\n"


def refresh_unchanged_summary(number: int, url: str) -> str:
    return (
        f"## openwiki-git: wiki refresh\n\nNothing new since [#{number}]({url}), which was built "
        "from the same wiki and cited files: no model call, nothing written. Merge it to refresh the rest.\n"
    )


def refresh_saved_summary(body: str, pull: Pull, branch: str) -> str:
    """The pull request opened from the decisions a previous run saved on the branch."""
    return f"{visible(body).rstrip()}\n\n**Opened [#{pull.number}]({pull.url}) from the decisions saved on `{branch}`.**\n"


def refresh_blocked_summary(body: str, message: str, hint: str | None, branch: str) -> str:
    """GitHub refused to open the pull request: the decisions, the fix, where they are kept."""
    return (
        f"{visible(body).rstrip()}\n\n> [!WARNING]\n> GitHub refused to open the pull request: {md_text(message)}.\n"
        f"> Fix: {md_text(hint or '')}.\n> The decisions above are saved on the branch `{branch}`.\n"
    )


# -- the ground pull request -------------------------------------------------------------------------
def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")


def _ground_findings(data: Mapping[str, Any]) -> list[str]:
    """The broken and ambiguous references, and the model pass's findings."""
    lines: list[str] = []
    broken = [(p["page_path"], b) for p in data["pages"] for b in p["broken"]]
    if broken:
        lines += [
            "### Broken references (the docs name something the code no longer has)",
            "",
            "| page | reference | why |",
            "|---|---|---|",
        ]
        lines += [f"| {pp}:{b['line']} | `{_cell(b['reference'])}` | {_cell(b['reason'])} |" for pp, b in broken]
        lines.append("")
    ambiguous = [(p["page_path"], a) for p in data["pages"] for a in p["ambiguous"]]
    if ambiguous:
        lines += ["### Ambiguous references (not cited; name them fully)", ""]
        lines += [f"- {pp}:{a['line']}: `{_cell(a['reference'])}`: {len(a['candidates'])} definitions" for pp, a in ambiguous]
        lines.append("")
    m = data.get("model")
    if m:
        lines += [f"### Model pass ({m['model']})", "", m["summary_line"], ""]
        lines += [f"- ungrounded (possibly false): {u['page_path']}:{u['line']}: {_cell(u['statement'])}" for u in m["ungrounded"]]
        lines.append("")
    return lines


def render_ground_body(data: Mapping[str, Any]) -> str:
    """The ground pull request's description: what was grounded, broken, ambiguous, ungrounded."""
    s = data["summary"]
    lines = [
        GROUND_MARKER, "## openwiki-git: grounding the docs", "",
        (
            f"{s['claims']} claims added ({s['extended']} more given evidence) from {s['references']} code references: "
            f"{s['added']} grounded, {s['already_grounded']} already grounded, {s['broken']} broken, {s['ambiguous']} ambiguous. "
            "One claim per sentence, citing the code that proves it; its marker follows the sentence, and nothing else in "
            "the prose changed."
        ),
        "",
    ]
    added = [(p["page_path"], a) for p in data["pages"] for a in p["added"]]
    if added:
        lines += ["| page | reference | cites |", "|---|---|---|"]
        lines += [f"| {pp}:{a['line']} | `{_cell(a['reference'])}` | {a['evidence'].removeprefix('repo://')} |" for pp, a in added]
        lines.append("")
    lines += _ground_findings(data)
    return "\n".join(lines).rstrip() + "\n"


def ground_commit_message(data: Mapping[str, Any]) -> str:
    s = data["summary"]
    return f"openwiki-git: ground the docs' code references\n\n{s['claims']} claims added, {s['broken']} broken references.\n"


def ground_summary(body: str, pull: Pull) -> str:
    """The step summary: the PR body without its marker, and what happened to the PR."""
    return body.removeprefix(GROUND_MARKER + "\n").rstrip() + f"\n\n**{_outcome_note(pull, closed='.')}**\n"
