"""`github refresh-pr` and `github refresh-shard` (`schedule`, `workflow_dispatch`): the refresher
run on the stale claims, then the wiki's changes committed on one fixed branch on top of the base
branch and the pull request opened, or the open one updated. Nothing is written when nothing
changed; a fingerprint of what a refresh starts from lets a run that has nothing new call no
model. A sharded refresh runs `refresh-shard` jobs, each saving its decisions, and one
`refresh-pr --from-shards` job that merges and publishes them."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwiki_git import PRODUCER
from openwiki_git.errors import UsageError
from openwiki_git.github import pull_body, render
from openwiki_git.github.actions import Step
from openwiki_git.redact import redact
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.services import github_publish as publish

if TYPE_CHECKING:
    from openwiki_git.github.api import BranchCommit, Client, OpenPull
    from openwiki_git.store.workspace import Workspace

TITLE = "openwiki-git refresh"


@dataclass(frozen=True)
class RefreshPrOptions:
    refresh: RefreshOptions = dataclasses.field(default_factory=RefreshOptions)  # the model, endpoint, budgets; `dry_run` is --plan
    base: str | None = None  # the branch the pull request targets (default: the workflow's)
    branch: str = pull_body.REFRESH_BRANCH
    from_shards: tuple[Path, ...] = ()  # no model call: merge what refresh-shard jobs saved here
    report_html: Path | None = None  # also the health report of the wiki before the refresh (report-path)


@dataclass(frozen=True)
class ShardOptions:
    refresh: RefreshOptions  # with `shard` (i, n)
    out: Path  # where the decisions and the changed files are saved
    branch: str = pull_body.REFRESH_BRANCH  # the refresh pull request's (to skip when it is up to date)


def refresh_pr(ws: Workspace, step: Step, gh: Client, options: RefreshPrOptions, refresher: Any = None) -> int:
    """Exit 0 when the pull request holds the run's decisions; 2 when the model cannot be used
    (a wrong key, model or endpoint: whatever was decided first is still published) or GitHub
    would not let the token open the pull request (the decisions are kept on the branch).
    With `report_html`, first the health report of the wiki as the base branch has it."""
    from openwiki_git.github import api as github_api

    if options.report_html is not None:
        from openwiki_git.services import report

        report.publish(step, ws, options.report_html)

    event = step.env.event()
    repo_name = step.env.repository_name(event)
    base = publish.base_branch(step.env, event, options.base, "refresh-pr", "pass --base BRANCH (the action's `base` input)")
    branch = publish.check_branch(options.branch or pull_body.REFRESH_BRANCH, base, pull_body.REFRESH_BRANCH)
    parent = publish.head_commit(ws, "build the refresh on")
    if options.refresh.dry_run:
        plan = _run_refresh(ws, step, options.refresh, None).to_dict()
        step.summary(pull_body.render_plan(plan, wiki_dir=ws.config.wiki_dir))
        step.say(f"openwiki-git: plan: {plan['plan']['claims_to_send']} claims would be sent; no model call, nothing written")
        return 0

    before = check_worktree(ws)
    fingerprint = _fingerprint(ws, before, options.refresh)
    existing = github_api.find_open_pull(gh, repo_name, branch=branch, base=base)
    if existing is not None and f"fingerprint={fingerprint} " in existing.body:
        step.say(f"openwiki-git: nothing new since pull request #{existing.number}; no model call, nothing written")
        publish.pr_outputs(step, "unchanged", existing.number, existing.url)
        step.summary(pull_body.refresh_unchanged_summary(existing.number, existing.url))
        return 0
    on_branch = None if existing is not None else github_api.branch_commit(gh, repo_name, branch)
    if on_branch is not None and on_branch.fingerprint == fingerprint and on_branch.parents == (parent,):
        # A previous run paid for these decisions but could not open the pull request.
        body = pull_body.body_from_message(on_branch.message) or f"{pull_body.REFRESH_MARKER} fingerprint={fingerprint} -->\n"
        step.say(f"openwiki-git: the branch {branch} already holds the decisions for this wiki; no model call")
        return _open_saved(step, gh, repo_name, base, branch, body, on_branch.sha)

    result = _decide(ws, step, options, refresher)
    return _publish(ws, step, gh, result, _Publish(repo_name, base, branch, parent, fingerprint, before, existing, on_branch))


def _decide(ws: Workspace, step: Step, options: RefreshPrOptions, refresher: Any) -> dict[str, Any]:
    """The decisions: merged from the shards' saved ones, else the refresher's; a warning when
    some claims stay stale or the checkout is shallow."""
    if options.from_shards:
        from openwiki_git.refresh import shards

        result = shards.merge(ws, list(options.from_shards), lambda *parts: merge_sidecar(ws, *parts))
    else:
        result = _run_refresh(ws, step, options.refresh, refresher).to_dict()
    failed = [d for d in result["decisions"] if d.get("error")]
    if failed or result.get("stopped"):
        why = f" (the run stopped: {result['stopped']})" if result.get("stopped") else ""
        step.command(render.workflow_command(
            "warning", f"{len(failed)} claims could not be refreshed and stay stale{why}; see the job summary", title=TITLE,
        ))
    if publish.is_shallow(ws):
        step.command(render.workflow_command(
            "warning", "the checkout is shallow: the cited text as last verified may not be found in its history; "
            "use actions/checkout with `fetch-depth: 0`", title=TITLE,
        ))
    return result


@dataclass(frozen=True)
class _Publish:
    """Where the decisions go: the repository, the base and branch, the commit they are built on."""

    repo_name: str
    base: str
    branch: str
    parent: str
    fingerprint: str
    before: Mapping[str, Any]  # the check report before the refresh
    existing: OpenPull | None
    on_branch: BranchCommit | None


def _publish(ws: Workspace, step: Step, gh: Client, result: Mapping[str, Any], to: _Publish) -> int:
    """The wiki's changes as one commit on the branch, and the pull request opened or updated."""
    from openwiki_git.github import api as github_api

    changes = publish.wiki_changes(ws)
    head_sha = to.existing.head_sha if to.existing is not None else (to.on_branch.sha if to.on_branch is not None else None)
    if changes and head_sha is not None:
        changes = keep_unchanged(ws, changes, github_api.files_at(gh, to.repo_name, to.parent, head_sha))
    after = check_worktree(ws)
    links = render.Links(step.env.server_url, to.repo_name, to.branch, step.env.run_url)
    body = redact(pull_body.render_refresh_body(
        result, links, fingerprint=to.fingerprint, checked_at=to.parent, wiki_dir=ws.config.wiki_dir
    ))
    try:
        pull = github_api.publish_pull(
            gh, to.repo_name, base=to.base, branch=to.branch, parent_sha=to.parent, changes=changes, title=pull_body.REFRESH_TITLE,
            body=body, message=pull_body.refresh_commit_message(result, body, to.fingerprint), existing=to.existing,
            close_if_empty=not render.not_fresh(to.before) and not render.not_fresh(after),
            equivalent=lambda a, b: publish.without_volatile(a) == publish.without_volatile(b),
        )
    except github_api.CreatePullForbiddenError as e:
        return _blocked(step, e, body, to.branch)
    step.say(f"openwiki-git: refresh pull request {pull.operation}" + (f": {pull.url}" if pull.url else ""))
    publish.pr_outputs(step, pull.operation, pull.number, pull.url, model_outputs(step, result))
    step.summary(pull_body.refresh_summary(body, result, pull))
    unusable = result.get("unusable")
    if unusable:
        step.command(render.workflow_command(
            "error", f"the model cannot be used: {unusable}. Check the api-key secret, model and base-url inputs", title=TITLE,
        ))
        return 2
    return 0


def model_outputs(step: Step, result: Mapping[str, Any]) -> dict[str, object]:
    """The model's pass in the open, in the log and as the step's outputs: calls, claims decided,
    the first answers accepted and the retries (the nightly refresh's cost, run after run)."""
    t = result.get("totals") or {}
    if t.get("requests"):
        step.say(
            f"openwiki-git: model: {t['requests']} requests decided {t.get('model_decided')} claims; "
            f"{t.get('calls_per_claim')} calls and {t.get('tokens_per_claim')} tokens per claim; "
            f"first answers accepted {t.get('first_accepted')}/{t['requests']}; {t.get('retries')} retries"
        )
    return {
        "model-calls": int(t.get("model_calls") or 0),
        "claims-decided": int(t.get("model_decided") or 0),
        "first-accepted": int(t.get("first_accepted") or 0),
        "retries": int(t.get("retries") or 0),
    }


def _open_saved(step: Step, gh: Client, repo_name: str, base: str, branch: str, body: str, sha: str) -> int:
    from openwiki_git.github import api as github_api

    try:
        pull = github_api.open_pull(gh, repo_name, base=base, branch=branch, title=pull_body.REFRESH_TITLE, body=body, commit=sha)
    except github_api.CreatePullForbiddenError as e:
        return _blocked(step, e, body, branch)
    step.say(f"openwiki-git: refresh pull request created from the saved branch: {pull.url}")
    publish.pr_outputs(step, pull.operation, pull.number, pull.url)
    step.summary(pull_body.refresh_saved_summary(body, pull, branch))
    return 0


def _blocked(step: Step, e: Any, body: str, branch: str) -> int:
    """GitHub would not let the token open the pull request: the summary shows the decisions and
    the fix; the branch keeps them, so the next run does not pay for them again. Exit 2."""
    step.command(render.workflow_command("error", f"{e.message}. {e.hint}", title="openwiki-git: no pull request"))
    publish.pr_outputs(step, "branch-only", None, None)
    step.summary(pull_body.refresh_blocked_summary(body, e.message, e.hint, branch))
    return 2


def refresh_shard(ws: Workspace, step: Step, options: ShardOptions, refresher: Any = None) -> int:
    """One job of a sharded refresh: the stale claims on the pages of shard I of N (stable by
    page), decided by the model and saved to `out` (decisions.json, the changed wiki files) for a
    final `github refresh-pr --from-shards` job. Writes nothing to GitHub. Exit 2 when the model
    cannot be used."""
    from openwiki_git.github import api as github_api
    from openwiki_git.refresh import shards

    env = step.env
    if env.token and env.repository:
        # Nothing new since the open refresh pull request: no shard pays for the model again.
        branch = publish.check_branch(options.branch or pull_body.REFRESH_BRANCH, env.ref_name or "", pull_body.REFRESH_BRANCH)
        existing = github_api.find_open_pull(publish.client(env), env.repository, branch=branch, base=env.ref_name)
        if existing is not None and f"fingerprint={_fingerprint(ws, check_worktree(ws), options.refresh)} " in existing.body:
            shards.save(ws, {"decisions": [], "totals": {}, "unchanged": existing.number}, {}, options.out)
            step.say(f"openwiki-git: nothing new since pull request #{existing.number}; no model call")
            return 0
    result = _run_refresh(ws, step, options.refresh, refresher)
    data = result.to_dict()
    shards.save(ws, json.loads(redact(json.dumps(data))), publish.wiki_changes(ws), options.out)
    assert options.refresh.shard is not None
    t, (i, n) = data["totals"], options.refresh.shard
    step.say(
        f"openwiki-git: shard {i}/{n}: {t['claims']} claims, {t['confirmed']} confirmed, "
        f"{t['revised']} revised, {t['retracted']} retracted; saved to {options.out}"
    )
    if result.unusable:
        step.command(render.workflow_command("error", f"the model cannot be used: {result.unusable}", title=TITLE))
        return 2
    return 0


def merge_sidecar(ws: Workspace, path: str, base: bytes | None, ours: bytes, theirs: bytes) -> bytes:
    """A sidecar two shards changed, merged claim by claim as the merge driver merges branches."""
    from openwiki_git.claims.merge import merge
    from openwiki_git.formats import sidecar as sidecar_codec

    def load(data: bytes | None) -> Any:
        if data is None:
            return None
        return sidecar_codec.loads(data.decode("utf-8"), filename=path, page=path, wiki_dir=ws.config.wiki_dir)

    merged, conflicts = merge(load(base), load(ours), load(theirs))
    if conflicts:
        raise UsageError(f"{path}: two shards decided the same claims differently: {'; '.join(conflicts)}")
    return str(sidecar_codec.dumps(merged)).encode("utf-8")


def keep_unchanged(
    ws: Workspace, changes: Mapping[str, bytes | None], theirs: Mapping[str, bytes | None] | None
) -> dict[str, bytes | None]:
    """`changes` with the bytes of the open pull request (or saved branch) wherever a page's
    decisions are the same: a page and its sidecar are taken together when both differ from the
    branch's copies only in timestamps and the page version hashing them, so identical decisions
    give an identical tree (no new commit, no force-push, no PR edit)."""
    if not theirs:
        return dict(changes)
    root = ws.repo.root
    group: dict[str, str] = {}
    for page in ws.wiki.pages():
        key = ws.wiki.repo_path(page)
        group[key] = key
        group[ws.wiki.sidecar_path(page).relative_to(root).as_posix()] = key
    members: dict[str, set[str]] = {}
    for path in set(changes) | set(theirs):
        members.setdefault(group.get(path, path), set()).add(path)
    out = dict(changes)
    for paths in members.values():
        if paths & set(changes) and all(_same(changes, theirs, p) for p in paths):
            out.update({p: theirs[p] for p in paths})
    return out


def _same(changes: Mapping[str, bytes | None], theirs: Mapping[str, bytes | None], path: str) -> bool:
    if (path in changes) != (path in theirs):
        return False
    mine, other = changes[path], theirs[path]
    if mine is None or other is None:
        return mine is other
    return publish.without_volatile(mine) == publish.without_volatile(other)


def check_worktree(ws: Workspace) -> dict[str, Any]:
    """The plain check report of the working tree (the claims the refresher would take)."""
    from datetime import datetime

    from openwiki_git.claims import records
    from openwiki_git.claims.freshness import check_all

    results = check_all(
        ws.wiki.load_all(),
        ws.resolver("worktree"),
        ws.page_text,
        now=datetime.now(UTC),
        reverify_after=ws.config.reverify_policy,
    )
    return records.build(results, wiki_dir=ws.config.wiki_dir, source="worktree", site=ws.wiki.site is not None)


def _fingerprint(ws: Workspace, data: Mapping[str, Any], options: RefreshOptions) -> str:
    """What a refresh would start from: the wiki's bytes, the claims to refresh, the text of the
    files they cite, and the options. Equal fingerprints need no new model call."""
    from openwiki_git.evidence.resource import ResourceError, parse_resource

    h = hashlib.sha256()

    def add(*parts: object) -> None:
        h.update(json.dumps(parts, default=str).encode("utf-8") + b"\n")

    add(PRODUCER, options.model, options.base_url, options.max_claims)
    wiki = ws.repo.root / ws.config.wiki_dir
    for path in sorted(p for p in wiki.rglob("*") if p.is_file() and not p.is_symlink()):
        add(path.relative_to(ws.repo.root).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest())
    cited: set[str] = set()
    for c in render.not_fresh(data):
        add(c["id"], c["status"], [(e.get("resource"), e.get("current_resource"), e.get("status")) for e in c["evidence"]])
        for e in c["evidence"]:
            for text in filter(None, (e.get("resource"), e.get("current_resource"))):
                try:
                    cited.add(parse_resource(text, wiki_dir=ws.config.wiki_dir).path)
                except ResourceError:
                    continue
    for cited_path in sorted(cited):
        add(cited_path, ws.repo.read(cited_path, "worktree").blob)
    return h.hexdigest()[:24]


def _run_refresh(ws: Workspace, step: Step, options: RefreshOptions, refresher: Any) -> Any:
    """The refresher's run. Under `github ...` the endpoint and key variable come from the command
    line only, never from the repository's config (which a pull request can change)."""
    from openwiki_git.refresh.run import run_refresh

    progress: Callable[[str], None] = step.say
    return run_refresh(ws, dataclasses.replace(options, endpoint_from_config=False, progress=progress), refresher=refresher)
