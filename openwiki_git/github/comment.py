"""The sticky PR comment `github comment` posts: the claims a pull request made stale, grouped by
cause (the commit of the range and the kind of change: claims/causes.py), worst first; under each
cause, each cited place with its diff folded, and one line per claim with its page link; under
GitHub's limit however many claims, every cause keeping its heading and first claims and saying
how many more the run summary lists. The all-clear note once nothing is stale. Pure: the check
report (with `github comment`'s `cause` and `diff` per claim) in, Markdown out; the pieces it is
built of (links, escaping, evidence lines) are render.py's.
"""

import re
from collections.abc import Mapping
from typing import Any

from openwiki_git.claims import causes
from openwiki_git.github.render import (
    COMMENT_LIMIT,
    DIFF_LIMIT,
    HOW_TO_CLEAR,
    STICKY_MARKER,
    Links,
    bad_evidence,
    by_cause,
    cause_title,
    code,
    counts,
    evidence_md,
    label,
    md_text,
    not_fresh,
    one_line,
    page_link,
    plural,
    range_md,
    resource,
    short_id,
    short_sha,
    size,
)

STATEMENT_CHARS = 160  # of a statement in the comment's one line per claim (the summary has it whole)
GROUP_FLOOR = 3  # claims each cause shows at least, however many causes share the comment


def render_comment(report: Mapping[str, Any], links: Links, *, limit: int = COMMENT_LIMIT) -> str:
    """The sticky comment: the claims grouped by cause (commit and kind of change), worst first;
    under each cause, each cited place with its diff folded, and one line per claim with its page
    link. Cut well under GitHub's limit: every cause keeps its heading and its first claims, and
    says how many more the run summary lists."""
    claims = not_fresh(report)
    if not claims and not report.get("superseded_sources") and not report.get("policy_problems"):
        return render_all_clear(report, links)
    if not claims:
        return "\n".join([STICKY_MARKER, *_cited_documents_md(report), *policy_md(report)])
    wiki_dir = report.get("wiki_dir", ".openwiki")
    groups = by_cause(claims)
    head = [
        STICKY_MARKER,
        f"### openwiki-git: {plural(len(claims), 'wiki claim')} no longer {'matches' if len(claims) == 1 else 'match'} the code",
        "",
        f"This pull request changes source lines that {'this claim cites' if len(claims) == 1 else 'these claims cite'} "
        f"({range_md(report, links)}){', by cause, worst first' if len(groups) > 1 else ''}. Check each statement against the "
        "code (the diff of each cited place, from the text as verified to the text now, is folded under it), then fix the "
        "page, or confirm the claim if it still holds.",
        "",
    ]
    if len(groups) > 1:
        head += [f"{n}. {cause_title(g, links)}" for n, g in enumerate(groups, 1)] + [""]
    extra = _cited_documents_md(report)[:40] + policy_md(report)[:40]
    foot = [
        HOW_TO_CLEAR, "",
        f"<sub>{counts(report)}." + (f" [Run summary]({links.run_url})" if links.run_url else "") + "</sub>", "",
    ]
    room = limit - size(head) - size(extra) - size(foot) - 200
    blocks = [_Cause(n + 1 if len(groups) > 1 else 0, g, links, wiki_dir) for n, g in enumerate(groups[:MAX_CAUSES])]
    _plan(blocks, room - size(_more_causes(groups, links)))
    body = [line for b in blocks for line in b.lines()] + _more_causes(groups, links)
    return "\n".join(head + body + extra + foot)


MAX_CAUSES = 30  # causes the comment shows; the rest are counted (the run summary has them all)


class _Cause:
    """One cause's part of the comment: its heading, then per cited place the evidence line, its
    diff folded (when planned), and its claims one line each (the first `shown` of them, in
    place order); the claims left out counted, with where the complete list is."""

    def __init__(self, n: int, g: causes.Group[dict[str, Any]], links: Links, wiki_dir: str) -> None:
        places: dict[str, list[dict[str, Any]]] = {}
        for c in g.members:
            places.setdefault(_first_place(c), []).append(c)
        self.heading = [f"#### {f'{n}. ' if n else ''}{cause_title(g, links)}", ""]
        self.places = list(places)
        self.evidence = {p: [f"**{evidence_md(bad_evidence(m[0])[0], links, wiki_dir)}** · {plural(len(m), 'claim')}", ""]
                         for p, m in places.items()}
        self.diff = {p: diff_details(bad_evidence(m[0])[0], wiki_dir) for p, m in places.items()}
        self.members = [(p, _claim_line(c, links, wiki_dir)) for p, m in places.items() for c in m]
        self.where = f"[the run summary]({links.run_url})" if links.run_url else "the job summary"
        self.shown = 0
        self.diffs: set[str] = set()

    def lines(self) -> list[str]:
        out = list(self.heading)
        last = None
        for place, line in self.members[: self.shown]:
            if place != last:
                if last is not None:
                    out.append("")
                out += self.evidence[place] + (self.diff[place] if place in self.diffs else [])
                last = place
            out.append(line)
        out.append("")
        rest = len(self.members) - self.shown
        if rest:
            out += [f"**…and {plural(rest, 'more claim')}** of this cause: the complete list is in {self.where}.", ""]
        return out

    def size(self) -> int:
        return size(self.lines())

    def cost_of_next(self) -> int:
        """What showing one more claim adds (its line, and its place's evidence line when new)."""
        place, line = self.members[self.shown]
        new_place = self.shown == 0 or self.members[self.shown - 1][0] != place
        return len(line.encode("utf-8")) + 1 + (size(self.evidence[place]) + 1 if new_place else 0)


def _plan(blocks: list[_Cause], room: int) -> None:
    """What each cause shows within `room` bytes: first, every cause its first GROUP_FLOOR claims
    and its first place's diff; then more claims, worst cause first; then more diffs, in order."""
    for b in blocks:
        b.shown = min(GROUP_FLOOR, len(b.members))
        if b.places and b.diff[b.places[0]]:
            b.diffs.add(b.places[0])
    used = sum(b.size() for b in blocks)
    for b in reversed(blocks):  # over budget even so (many causes, long diffs): their diffs go first
        if used > room and b.diffs:
            b.diffs.clear()
            used = sum(x.size() for x in blocks)
    for b in blocks:
        while b.shown < len(b.members) and used + b.cost_of_next() <= room:
            used += b.cost_of_next()
            b.shown += 1
        used = sum(x.size() for x in blocks)  # the estimate made exact (the count of the rest, blank lines)
    for b in blocks:
        shown_places = dict.fromkeys(p for p, _ in b.members[: b.shown])
        for place in shown_places:
            if place in b.diffs or not b.diff[place] or used + size(b.diff[place]) > room:
                continue
            b.diffs.add(place)
            used += size(b.diff[place])


def _more_causes(groups: list[causes.Group[dict[str, Any]]], links: Links) -> list[str]:
    rest = groups[MAX_CAUSES:]
    if not rest:
        return []
    where = f"[the run summary]({links.run_url})" if links.run_url else "the job summary"
    return [f"**…and {plural(len(rest), 'more cause')}** ({plural(sum(len(g.members) for g in rest), 'claim')}): "
            f"the complete list is in {where}.", ""]


def _first_place(c: Mapping[str, Any]) -> str:
    e = bad_evidence(c)[0]
    return str(e.get("current_resource") or e.get("resource") or "?")


def _claim_line(c: Mapping[str, Any], links: Links, wiki_dir: str) -> str:
    """`- [guide.md:12](…#L12) · `c-1a2b3c4d` · stale: the statement` (its other places too)."""
    statement = one_line(c.get("statement", ""))
    if len(statement) > STATEMENT_CHARS:
        statement = statement[: STATEMENT_CHARS - 1].rstrip() + "…"
    tail = "".join(f"; also {evidence_md(e, links, wiki_dir)}" for e in bad_evidence(c)[1:3])
    return f"- {page_link(c, links)} · {code(short_id(c['id']))} · {c.get('status', 'stale')}: {md_text(statement)}{tail}"


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
