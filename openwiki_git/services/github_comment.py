"""`github comment` (on `pull_request`): the claims made stale between the pull request's base
and head, as at most 10 `::warning` annotations, the complete table in the job summary, the
`stale-count` output, and one sticky comment (created when the first claim goes stale, edited on
each push, turned into an all-clear note once fixed). A read-only token (a fork's pull request)
only loses the comment."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwiki_git.errors import GitError, UsageError
from openwiki_git.github import comment as comment_md
from openwiki_git.github import render
from openwiki_git.github.actions import ActionsEnv, Step
from openwiki_git.redact import redact
from openwiki_git.services.github_publish import is_shallow

if TYPE_CHECKING:
    from openwiki_git.github.api import Client
    from openwiki_git.store.workspace import Workspace


PREVIEW_REPOSITORY = "OWNER/REPO"  # where `--print`'s links point when GITHUB_REPOSITORY is unset


@dataclass(frozen=True)
class CommentOptions:
    base: str | None = None  # default: the event's base commit
    head: str | None = None  # default: the event's head commit if present, else HEAD
    pr: int | None = None  # default: from the event
    fail_on_stale: bool = False  # exit 1 when a claim is stale or unresolved
    post: bool = True  # False: annotations and summary only, no API call
    author: str | None = None  # who writes the sticky comment (None: as the token tells)
    report_html: Path | None = None  # also the health report: Markdown in the summary, HTML here (report-path)


def comment(ws: Workspace, step: Step, gh: Client | None, options: CommentOptions) -> int:
    """The claims made stale between merge-base(base, head) and head: annotations, the step
    summary, the `stale-count` output, then (with a client and `post`) the sticky comment."""
    event = step.env.event()
    pull = event.get("pull_request") or {}
    number = options.pr or pull.get("number")
    base, head = _revisions(ws, pull, options)
    data = _report(ws, base, head)
    add_diffs(ws, data)
    add_causes(ws, data)
    repo_name = step.env.repository_name(event)
    head_sha = data.get("head") or ws.repo.commit_id(head or "HEAD")
    links = render.Links(step.env.server_url, repo_name, head_sha, step.env.run_url, base_sha=data.get("base"))
    stale = render.not_fresh(data)

    for line in render.annotations(data):
        step.command(line)
    # The summary and the count first: whatever happens to the comment, they are there.
    summary = render.render_summary(data, links)
    if number is None:
        summary += "\n_No pull request in this event: no comment was posted._\n"
    step.summary(summary)
    step.outputs({"stale-count": len(stale)})

    if number is None or not options.post:
        pass
    elif gh is None:
        step.command("::notice title=openwiki-git::no GitHub token: the stale claims are in the job summary only")
    else:
        _post(step, gh, repo_name, int(number), redact(comment_md.render_comment(data, links)), stale=bool(stale), author=options.author)
    if options.report_html is not None:
        from openwiki_git.services import report

        report.publish(step, ws, options.report_html)
    n = len(stale)
    step.say(f"openwiki-git: {n} claim{'s' if n != 1 else ''} stale or unresolved")
    return 1 if options.fail_on_stale and (stale or data.get("policy_problems")) else 0


def preview(ws: Workspace, env: ActionsEnv, options: CommentOptions) -> tuple[str, int]:
    """The sticky comment's Markdown as `comment` would post it, and how many claims are stale or
    unresolved: no annotation, no summary, no API call, so it runs outside Actions (`--print`).
    Links point at GITHUB_REPOSITORY, `OWNER/REPO` when it is unset."""
    event = env.event()
    base, head = _revisions(ws, event.get("pull_request") or {}, options)
    data = _report(ws, base, head)
    add_diffs(ws, data)
    add_causes(ws, data)
    repo_name = env.repository or (event.get("repository") or {}).get("full_name") or PREVIEW_REPOSITORY
    head_sha = data.get("head") or ws.repo.commit_id(head or "HEAD")
    links = render.Links(env.server_url, repo_name, head_sha, env.run_url, base_sha=data.get("base"))
    return redact(comment_md.render_comment(data, links)), len(render.not_fresh(data))


def _revisions(ws: Workspace, pull: Mapping[str, Any], options: CommentOptions) -> tuple[str, str | None]:
    """The base (given, else the event's) and the head (given, else the event's when this checkout
    has it, else None: HEAD)."""
    base = options.base or (pull.get("base") or {}).get("sha")
    if not base:
        raise UsageError(
            "github comment: no base revision: the event has no pull_request",
            "run it on pull_request events, or pass --base REV",
        )
    head = options.head
    if head is None:
        event_head = (pull.get("head") or {}).get("sha")
        head = event_head if _resolvable(ws, event_head) else None
    return base, head


def _resolvable(ws: Workspace, rev: str | None) -> bool:
    if not rev:
        return False
    try:
        ws.repo.commit_id(rev)
    except GitError:
        return False
    return True


def add_diffs(ws: Workspace, data: dict[str, Any]) -> None:
    """Each not-fresh evidence item of the report gets `diff`: its cited part as verified (the blob
    the sidecar recorded) against its text at the report's head, as `claim show` and `review`
    show it (a few lines around each change, numbered as the file is)."""
    from openwiki_git.model import EvidenceResult
    from openwiki_git.services import claims

    wanted = {c["id"]: c for c in render.not_fresh(data)}
    if not wanted:
        return
    found = {c.id: c for sc in ws.wiki.load_all().values() for c in sc.claims if c.id in wanted}
    resolver = ws.resolver(data.get("head") or "HEAD")
    for cid, record in wanted.items():
        claim = found.get(cid)
        for item in record["evidence"] if claim is not None else ():
            ev = next((e for e in claim.evidence if e.resource == item["resource"]), None)  # type: ignore[union-attr]
            if ev is None or item["status"] == "fresh":
                continue
            result = EvidenceResult(item["resource"], item["status"], item["current_resource"], item.get("reason", ""))
            seen = claims.evidence_view(ws, resolver, claim, ev, result)  # type: ignore[arg-type]
            if seen["diff"]:  # the cited part's diff (claims/part.py: a few lines around each change), when it has one
                item["diff"] = seen.get("part_diff") or seen["diff"]


def add_causes(ws: Workspace, data: dict[str, Any]) -> None:
    """Each claim of the report that is not fresh gets `cause`: the kind of change its mark's
    causes or its evidence's reasons name (claims/causes.of_record), the places it cites that
    changed, and the commit of the range that made the change with its subject: the one whose
    first parent the hook's mark names (the hook marked it in that commit), else the one commit
    of the range that changed its cited files (None when several did and no mark says which)."""
    from openwiki_git.claims import causes
    from openwiki_git.formats.sidecar import resource_path
    from openwiki_git.git import history

    wanted = render.not_fresh(data)
    if not wanted or not data.get("base") or not data.get("head"):
        return
    commits = history.commits_between(ws.repo, data["base"], data["head"])
    after = {c.parent: c for c in commits if c.parent}
    for record in wanted:
        cause = causes.of_record(record)
        made = after.get((record.get("mark") or {}).get("commit") or "")
        if made is None:
            paths = {resource_path(e["resource"]) for e in record["evidence"] if e["status"] != "fresh"}
            touching = [c for c in commits if paths & c.paths]
            made = touching[0] if len(touching) == 1 else None
        record["cause"] = {"kind": cause.kind, "unresolved": cause.unresolved, "places": list(cause.places),
                           "commit": made.id if made else None, "subject": made.subject if made else None}


def _report(ws: Workspace, base: str, head: str | None) -> dict[str, Any]:
    """check's CI report between base and head; a missing base commit names the shallow checkout."""
    from openwiki_git.services.check_chain import ci_report

    try:
        return ci_report(ws, base, head)
    except GitError as e:
        if is_shallow(ws):
            raise GitError(
                f"{e.message} (the checkout is shallow: the pull request's base commit is not in it)",
                "check out the full history: actions/checkout with `fetch-depth: 0`",
            ) from None
        raise GitError(e.message, e.hint or "check out the full history: actions/checkout with fetch-depth: 0") from None


def _post(step: Step, gh: Client, repo_name: str, number: int, body: str, *, stale: bool, author: str | None) -> None:
    """The sticky comment, created only when a claim is stale; a read-only token loses it alone."""
    from openwiki_git.github import api as github_api

    try:
        who = author or github_api.comment_author(gh, step.env.token)
        result = github_api.upsert_sticky_comment(gh, repo_name, number, body, create=stale, author=who)
    except github_api.ReadOnlyTokenError as e:
        step.command(render.workflow_command("warning", f"{e.message}. {e.hint}", title="openwiki-git: no comment"))
        step.summary(
            "> [!NOTE]\n> The token of this run may not comment (a pull request from a fork gets a read-only "
            "token), so the claims are listed in this summary only.",
        )
        step.outputs({"comment-operation": "skipped"})
        return
    step.outputs({"comment-operation": result.operation, "comment-id": result.id or "", "comment-url": result.url or ""})
    if result.operation != "none":
        step.say(f"openwiki-git: sticky comment {result.operation}: {result.url}")
