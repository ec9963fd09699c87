"""`openwiki-git github`: the GitHub Action's two jobs.

`github comment` (on `pull_request`): the claims made stale between the pull request's base and
head, as at most 10 `::warning` annotations, the complete table in $GITHUB_STEP_SUMMARY, and one
sticky comment (created when the first claim goes stale, edited on each push, turned into an
all-clear note once fixed). A read-only token (a fork's pull request) only loses the comment.
Exit 0, or 1 with --fail-on-stale when a claim is stale or unresolved.

`github refresh-pr` (`schedule`, `workflow_dispatch`): runs the refresher, then commits the wiki's
changes on one fixed branch on top of the base branch and opens the pull request, or updates the
open one. Nothing is written when nothing changed.

The GITHUB_* variables of the Actions runner are read here and nowhere else; the token comes from
GITHUB_TOKEN. Outputs (stale-count, pr-number, pr-url, pr-operation, ...) go to $GITHUB_OUTPUT.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwiki_git import PRODUCER
from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import GitError, GitHubError, UsageError
from openwiki_git.github import render as ghactions
from openwiki_git.redact import add_secret, redact

if TYPE_CHECKING:
    from github import Github

    from openwiki_git.store.workspace import Workspace

DEFAULT_BRANCH = "openwiki-git/refresh"
PR_TITLE = "openwiki-git: refresh stale wiki claims"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "github", help="GitHub Actions: the stale-claims PR comment and the refresh PR", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gsub = p.add_subparsers(dest="github_command", metavar="ACTION", parser_class=type(p))
    gsub.required = True

    c = gsub.add_parser(
        "comment", help="annotate, summarise and comment on the claims a pull request made stale",
        description=cmd_comment.__doc__,
    )
    c.add_argument("--base", help="the revision the pull request is measured against (default: the event's base commit)")
    c.add_argument("--head", help="the pull request's head (default: the event's head commit if present, else HEAD)")
    c.add_argument("--pr", type=int, metavar="N", help="the pull request number (default: from the event)")
    c.add_argument("--fail-on-stale", action="store_true", help="exit 1 when any claim is stale or unresolved")
    c.add_argument("--no-comment", action="store_true", help="annotations and summary only; no API call")
    c.add_argument(
        "--comment-author", metavar="LOGIN",
        help="who writes the sticky comment (default: a personal token's user, else any bot account, as "
        "GITHUB_TOKEN and App tokens write); comments by anyone else are never edited",
    )
    c.set_defaults(run=cmd_comment)

    r = gsub.add_parser(
        "refresh-pr", help="refresh stale claims with the model and open or update one pull request",
        description=cmd_refresh_pr.__doc__,
    )
    r.add_argument("--base", help="the branch the pull request targets (default: the branch the workflow runs on)")
    r.add_argument("--branch", default=DEFAULT_BRANCH, help=f"the pull request's branch (default: {DEFAULT_BRANCH})")
    r.add_argument("--model", help="the chat model (default: the config's refresh.model)")
    r.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: the config's refresh.base_url)")
    r.add_argument("--api-key-env", metavar="NAME", help="the environment variable holding the API key")
    r.add_argument("--max-claims", type=int, metavar="N", help="refresh at most N claims in this run")
    r.add_argument("--timeout", type=float, metavar="SECONDS", help="deadline of one model call (default 60)")
    r.add_argument(
        "--deadline", type=float, metavar="SECONDS", help="deadline of the model calls of the run: then what is decided is published"
    )
    r.add_argument("--max-concurrency", type=int, metavar="N", help="claims sent to the model at once (default 4)")
    r.add_argument(
        "--plan", "--dry-run", dest="plan", action="store_true",
        help="call no model and write nothing: the job summary lists what would be sent, with estimated tokens and cost",
    )
    r.add_argument(
        "--from-shards", nargs="+", type=Path, metavar="DIR",
        help="no model call: merge what `github refresh-shard` jobs saved in these directories, then publish",
    )
    r.set_defaults(run=cmd_refresh_pr)

    sh = gsub.add_parser(
        "refresh-shard", help="refresh the pages of one shard and save the decisions for `refresh-pr --from-shards`",
        description=cmd_refresh_shard.__doc__,
    )
    sh.add_argument("--shard", required=True, type=_parse_shard, metavar="I/N", help="this job's shard, e.g. 2/4")
    sh.add_argument("--out", required=True, type=Path, metavar="DIR", help="where to save the decisions and files")
    for flag in ("--model", "--base-url", "--api-key-env"):
        sh.add_argument(flag, help=f"as for refresh-pr {flag}")
    sh.add_argument("--max-claims", type=int, metavar="N", help="refresh at most N claims (as for refresh-pr)")
    sh.add_argument("--branch", default=DEFAULT_BRANCH, help="the refresh pull request's branch (to skip when it is up to date)")
    sh.add_argument("--timeout", type=float, metavar="SECONDS", help="deadline of one model call (default 60)")
    sh.add_argument("--deadline", type=float, metavar="SECONDS", help="deadline of the shard's model calls")
    sh.add_argument("--max-concurrency", type=int, metavar="N", help="claims sent to the model at once (default 4)")
    sh.set_defaults(run=cmd_refresh_shard)

    from openwiki_git.cli.commands import github_ground  # `github ground-pr`, on the same machinery

    github_ground.add_parser(gsub)


# -- the runner's environment ------------------------------------------------------------------------
@dataclass(frozen=True)
class ActionsEnv:
    """What the Actions runner tells a step, read once from the environment."""

    repository: str | None = None
    event_name: str | None = None
    event_path: str | None = None
    sha: str | None = None
    ref_name: str | None = None
    step_summary: str | None = None
    output: str | None = None
    api_url: str | None = None
    server_url: str = "https://github.com"
    run_id: str | None = None
    token: str | None = None

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> ActionsEnv:
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            return env.get(name) or None

        return cls(
            repository=get("GITHUB_REPOSITORY"),
            event_name=get("GITHUB_EVENT_NAME"),
            event_path=get("GITHUB_EVENT_PATH"),
            sha=get("GITHUB_SHA"),
            ref_name=get("GITHUB_REF_NAME"),
            step_summary=get("GITHUB_STEP_SUMMARY"),
            output=get("GITHUB_OUTPUT"),
            api_url=get("GITHUB_API_URL"),
            server_url=get("GITHUB_SERVER_URL") or "https://github.com",
            run_id=get("GITHUB_RUN_ID"),
            token=get("GITHUB_TOKEN"),
        )

    @property
    def run_url(self) -> str | None:
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"

    def event(self) -> dict[str, Any]:
        if not self.event_path:
            return {}
        try:
            data = json.loads(Path(self.event_path).read_text("utf-8"))
        except (OSError, ValueError) as e:
            raise UsageError(f"GITHUB_EVENT_PATH {self.event_path}: cannot read the event ({e})") from None
        return data if isinstance(data, dict) else {}


def write_summary(env: ActionsEnv, markdown: str) -> None:
    """Append to $GITHUB_STEP_SUMMARY; outside Actions, print it."""
    markdown = redact(markdown)
    if env.step_summary:
        with open(env.step_summary, "a", encoding="utf-8") as fh:
            fh.write(markdown.rstrip("\n") + "\n\n")
    else:
        sys.stdout.write(markdown.rstrip("\n") + "\n")


def write_outputs(env: ActionsEnv, values: Mapping[str, object]) -> None:
    """Append step outputs to $GITHUB_OUTPUT (multi-line values in the heredoc form)."""
    if not env.output:
        return
    with open(env.output, "a", encoding="utf-8") as fh:
        for name, value in values.items():
            text = "" if value is None else redact(value)
            if "\n" in text or "\r" in text:
                delimiter = f"owg_{uuid.uuid4().hex}"
                fh.write(f"{name}<<{delimiter}\n{text}\n{delimiter}\n")
            else:
                fh.write(f"{name}={text}\n")


def _register_secrets(env: ActionsEnv, *names: str | None) -> None:
    """Every published string is redacted: the token, the model key, any secret-named variable."""
    from openwiki_git import redact as redaction

    add_secret(env.token)
    redaction.secrets_from_env(os.environ, [n for n in names if n])


def _client(env: ActionsEnv) -> Github:
    from openwiki_git.github import api as github_api

    assert env.token
    return github_api.connect(env.token, base_url=env.api_url)


def _repository(env: ActionsEnv, event: Mapping[str, Any]) -> str:
    repo = env.repository or (event.get("repository") or {}).get("full_name")
    if not repo or "/" not in repo:
        raise UsageError("GITHUB_REPOSITORY is not set", "run inside GitHub Actions or set GITHUB_REPOSITORY=owner/name")
    return str(repo)


# -- github comment -------------------------------------------------------------------------------------
def cmd_comment(args: argparse.Namespace) -> int:
    """The claims this pull request made stale: annotations, the step summary, one sticky comment."""
    ws = open_workspace(args)
    env = ActionsEnv.read()
    _register_secrets(env)
    gh = None if args.no_comment or not env.token else _client(env)
    return comment(
        ws, env, gh, base=args.base, head=args.head, pr=args.pr, fail_on_stale=args.fail_on_stale,
        post=not args.no_comment, author=args.comment_author,
    )


def _resolvable(ws: Workspace, rev: str | None) -> bool:
    if not rev:
        return False
    try:
        ws.repo.commit_id(rev)
    except GitError:
        return False
    return True


def comment(
    ws: Workspace,
    env: ActionsEnv,
    gh: Github | None,
    *,
    base: str | None = None,
    head: str | None = None,
    pr: int | None = None,
    fail_on_stale: bool = False,
    post: bool = True,
    author: str | None = None,
) -> int:
    """The claims made stale between merge-base(base, head) and head: annotations, the step
    summary, the `stale-count` output, then (with a client and `post`) the sticky comment."""
    from openwiki_git.services.check import ci_report

    event = env.event()
    pull = event.get("pull_request") or {}
    number = pr or pull.get("number")
    base = base or (pull.get("base") or {}).get("sha")
    if not base:
        raise UsageError(
            "github comment: no base revision: the event has no pull_request",
            "run it on pull_request events, or pass --base REV",
        )
    if head is None:
        event_head = (pull.get("head") or {}).get("sha")
        head = event_head if _resolvable(ws, event_head) else None
    try:
        data = ci_report(ws, base, head)
    except GitError as e:
        if is_shallow(ws):
            raise GitError(
                f"{e.message} (the checkout is shallow: the pull request's base commit is not in it)",
                "check out the full history: actions/checkout with `fetch-depth: 0`",
            ) from None
        raise GitError(e.message, e.hint or "check out the full history: actions/checkout with fetch-depth: 0") from None
    repo_name = _repository(env, event)
    head_sha = data.get("head") or ws.repo.commit_id(head or "HEAD")
    links = ghactions.Links(env.server_url, repo_name, head_sha, env.run_url, base_sha=data.get("base"))
    stale = ghactions.not_fresh(data)

    for line in ghactions.annotations(data):
        print(line)
    # The summary and the count first: whatever happens to the comment, they are there.
    summary = ghactions.render_summary(data, links)
    if number is None:
        summary += "\n_No pull request in this event: no comment was posted._\n"
    write_summary(env, summary)
    write_outputs(env, {"stale-count": len(stale)})

    if number is None or not post:
        pass
    elif gh is None:
        print("::notice title=openwiki-git::no GitHub token: the stale claims are in the job summary only")
    else:
        from openwiki_git.github import api as github_api

        body = redact(ghactions.render_comment(data, links))
        try:
            who = author or github_api.comment_author(gh, env.token)
            result = github_api.upsert_sticky_comment(gh, repo_name, int(number), body, create=bool(stale), author=who)
        except github_api.ReadOnlyTokenError as e:
            print(ghactions.workflow_command("warning", f"{e.message}. {e.hint}", title="openwiki-git: no comment"))
            write_summary(
                env,
                "> [!NOTE]\n> The token of this run may not comment (a pull request from a fork gets a read-only "
                "token), so the claims are listed in this summary only.",
            )
            write_outputs(env, {"comment-operation": "skipped"})
        else:
            write_outputs(
                env, {"comment-operation": result.operation, "comment-id": result.id or "", "comment-url": result.url or ""}
            )
            if result.operation != "none":
                _say(f"openwiki-git: sticky comment {result.operation}: {result.url}")
    n = len(stale)
    _say(f"openwiki-git: {n} claim{'s' if n != 1 else ''} stale or unresolved")
    return 1 if fail_on_stale and stale else 0


# -- github refresh-pr ------------------------------------------------------------------------------------
def cmd_refresh_pr(args: argparse.Namespace) -> int:
    """Refresh stale claims with the model, then open or update one pull request with the wiki's changes."""
    ws = open_workspace(args)
    env = ActionsEnv.read()
    _register_secrets(env, args.api_key_env or "OPENAI_API_KEY")
    if not env.token:
        raise UsageError("github refresh-pr: GITHUB_TOKEN is not set", "pass `github-token` to the action")
    return refresh_pr(ws, env, _client(env), args)


def merge_sidecar(ws: Workspace, path: str, base: bytes | None, ours: bytes, theirs: bytes) -> bytes:
    """A sidecar two shards changed, merged claim by claim as the merge driver merges branches."""
    from openwiki_git.claims import merge as claims_merge
    from openwiki_git.formats import sidecar as sidecar_codec

    def load(data: bytes | None) -> Any:
        if data is None:
            return None
        return sidecar_codec.loads(data.decode("utf-8"), filename=path, page=path, wiki_dir=ws.config.wiki_dir)

    merged, conflicts = claims_merge.merge(load(base), load(ours), load(theirs))
    if conflicts:
        raise UsageError(f"{path}: two shards decided the same claims differently: {'; '.join(conflicts)}")
    return str(sidecar_codec.dumps(merged)).encode("utf-8")


def _parse_shard(text: str) -> tuple[int, int]:
    from openwiki_git.cli.commands.refresh import parse_shard

    return parse_shard(text)


def cmd_refresh_shard(args: argparse.Namespace) -> int:
    """One job of a sharded refresh: the stale claims on the pages of shard I of N (stable by
    page), decided by the model and saved to --out (decisions.json, the changed wiki files) for a
    final `github refresh-pr --from-shards` job. Writes nothing to GitHub. Exit 2 when the model
    cannot be used."""
    from openwiki_git.github import api as github_api
    from openwiki_git.refresh import shards

    ws = open_workspace(args)
    env = ActionsEnv.read()
    _register_secrets(env, args.api_key_env or "OPENAI_API_KEY")
    if env.token and env.repository:
        # Nothing new since the open refresh pull request: no shard pays for the model again.
        branch = _check_branch(getattr(args, "branch", None) or DEFAULT_BRANCH, env.ref_name or "")
        existing = github_api.find_open_pull(_client(env), env.repository, branch=branch, base=env.ref_name)
        if existing is not None and f"fingerprint={_fingerprint(ws, _check(ws), args)} " in existing.body:
            shards.save(ws, {"decisions": [], "totals": {}, "unchanged": existing.number}, {}, args.out)
            _say(f"openwiki-git: nothing new since pull request #{existing.number}; no model call")
            return 0
    result = _run_refresh(ws, args, new_refresher(args))
    data = result.to_dict()
    shards.save(ws, json.loads(redact(json.dumps(data))), wiki_changes(ws), args.out)
    t = data["totals"]
    _say(
        f"openwiki-git: shard {args.shard[0]}/{args.shard[1]}: {t['claims']} claims, {t['confirmed']} confirmed, "
        f"{t['revised']} revised, {t['retracted']} retracted; saved to {args.out}"
    )
    if result.unusable:
        print(ghactions.workflow_command("error", f"the model cannot be used: {result.unusable}", title="openwiki-git refresh"))
        return 2
    return 0


def is_shallow(ws: Workspace) -> bool:
    """A shallow clone (actions/checkout's default `fetch-depth: 1`)."""
    return (ws.repo.git_dir / "shallow").exists()


def new_refresher(args: argparse.Namespace) -> Any:
    """The refresher to use; None lets `run_refresh` build the configured one. Tests replace it."""
    return None


def refresh_pr(ws: Workspace, env: ActionsEnv, gh: Github, args: argparse.Namespace, refresher: Any = None) -> int:
    """Exit 0 when the pull request holds the run's decisions; 2 when the model cannot be used
    (a wrong key, model or endpoint: whatever was decided first is still published) or GitHub
    would not let the token open the pull request (the decisions are kept on the branch)."""
    from openwiki_git.github import api as github_api

    event = env.event()
    repo_name = _repository(env, event)
    base = args.base or env.ref_name or (event.get("repository") or {}).get("default_branch")
    if not base:
        raise UsageError("github refresh-pr: no base branch", "pass --base BRANCH (the action's `base` input)")
    branch = _check_branch(args.branch or DEFAULT_BRANCH, base)
    parent = ws.repo.head()
    if parent is None:
        raise GitError("the repository has no commit to build the refresh on", "check out the base branch first")

    if getattr(args, "plan", False):
        plan = _run_refresh(ws, args, None).to_dict()
        write_summary(env, ghactions.render_plan(plan, wiki_dir=ws.config.wiki_dir))
        totals = plan["plan"]
        _say(f"openwiki-git: plan: {totals['claims_to_send']} claims would be sent; no model call, nothing written")
        return 0

    before = _check(ws)
    fingerprint = _fingerprint(ws, before, args)
    existing = github_api.find_open_pull(gh, repo_name, branch=branch, base=base)
    if existing is not None and f"fingerprint={fingerprint} " in existing.body:
        _say(f"openwiki-git: nothing new since pull request #{existing.number}; no model call, nothing written")
        _pr_outputs(env, "unchanged", existing.number, existing.url)
        write_summary(
            env,
            f"## openwiki-git: wiki refresh\n\nNothing new since [#{existing.number}]({existing.url}), which was built "
            "from the same wiki and cited files: no model call, nothing written. Merge it to refresh the rest.\n",
        )
        return 0
    on_branch = None if existing is not None else github_api.branch_commit(gh, repo_name, branch)
    if on_branch is not None and on_branch.fingerprint == fingerprint and on_branch.parents == (parent,):
        # A previous run paid for these decisions but could not open the pull request.
        body = _body_from_message(on_branch.message) or f"{ghactions.REFRESH_MARKER} fingerprint={fingerprint} -->\n"
        _say(f"openwiki-git: the branch {branch} already holds the decisions for this wiki; no model call")
        return _open_saved(env, gh, repo_name, base, branch, body, on_branch.sha)

    from_shards = getattr(args, "from_shards", None)
    if from_shards:
        from openwiki_git.refresh import shards

        result_data = shards.merge(ws, from_shards, lambda *parts: merge_sidecar(ws, *parts))
    else:
        result_data = _run_refresh(ws, args, refresher if refresher is not None else new_refresher(args)).to_dict()
    unusable = result_data.get("unusable")
    failed = [d for d in result_data["decisions"] if d.get("error")]
    if failed or result_data.get("stopped"):
        why = f" (the run stopped: {result_data['stopped']})" if result_data.get("stopped") else ""
        print(ghactions.workflow_command(
            "warning", f"{len(failed)} claims could not be refreshed and stay stale{why}; see the job summary",
            title="openwiki-git refresh",
        ))
    if is_shallow(ws):
        print(ghactions.workflow_command(
            "warning", "the checkout is shallow: the cited text as last verified may not be found in its history; "
            "use actions/checkout with `fetch-depth: 0`", title="openwiki-git refresh",
        ))
    changes = wiki_changes(ws)
    head_sha = existing.head_sha if existing is not None else (on_branch.sha if on_branch is not None else None)
    if changes and head_sha is not None:
        changes = keep_unchanged(ws, changes, github_api.files_at(gh, repo_name, parent, head_sha))
    after = _check(ws)
    links = ghactions.Links(env.server_url, repo_name, branch, env.run_url)
    body = redact(ghactions.render_refresh_body(
        result_data, links, fingerprint=fingerprint, checked_at=parent, wiki_dir=ws.config.wiki_dir
    ))
    message = _commit_message(result_data, body, fingerprint)
    try:
        pull = github_api.publish_pull(
            gh,
            repo_name,
            base=base,
            branch=branch,
            parent_sha=parent,
            changes=changes,
            title=PR_TITLE,
            body=body,
            message=message,
            existing=existing,
            close_if_empty=not ghactions.not_fresh(before) and not ghactions.not_fresh(after),
            equivalent=lambda a, b: ghactions.without_volatile(a) == ghactions.without_volatile(b),
        )
    except github_api.CreatePullForbiddenError as e:
        return _blocked(env, e, body, branch)
    _say(f"openwiki-git: refresh pull request {pull.operation}" + (f": {pull.url}" if pull.url else ""))
    _pr_outputs(env, pull.operation, pull.number, pull.url)
    write_summary(env, _refresh_summary(body, result_data, pull))
    if unusable:
        print(ghactions.workflow_command(
            "error", f"the model cannot be used: {unusable}. Check the api-key secret, model and base-url inputs",
            title="openwiki-git refresh",
        ))
        return 2
    return 0


def _say(text: str) -> None:
    print(redact(text), file=sys.stderr)


def _open_saved(env: ActionsEnv, gh: Github, repo_name: str, base: str, branch: str, body: str, sha: str) -> int:
    from openwiki_git.github import api as github_api

    try:
        pull = github_api.open_pull(gh, repo_name, base=base, branch=branch, title=PR_TITLE, body=body, commit=sha)
    except github_api.CreatePullForbiddenError as e:
        return _blocked(env, e, body, branch)
    _say(f"openwiki-git: refresh pull request created from the saved branch: {pull.url}")
    _pr_outputs(env, pull.operation, pull.number, pull.url)
    text = _visible(body)
    write_summary(env, f"{text.rstrip()}\n\n**Opened [#{pull.number}]({pull.url}) from the decisions saved on `{branch}`.**\n")
    return 0


def _blocked(env: ActionsEnv, e: Any, body: str, branch: str) -> int:
    """GitHub would not let the token open the pull request: the summary shows the decisions and
    the fix; the branch keeps them, so the next run does not pay for them again. Exit 2."""
    print(ghactions.workflow_command("error", f"{e.message}. {e.hint}", title="openwiki-git: no pull request"))
    _pr_outputs(env, "branch-only", None, None)
    text = _visible(body)
    write_summary(
        env,
        f"{text.rstrip()}\n\n> [!WARNING]\n> GitHub refused to open the pull request: {ghactions.md_text(e.message)}.\n"
        f"> Fix: {ghactions.md_text(e.hint or '')}.\n> The decisions above are saved on the branch `{branch}`.\n",
    )
    return 2


def _visible(body: str) -> str:
    """The pull request body without its hidden marker line (for the step summary)."""
    return body.split("\n", 1)[1] if body.startswith(ghactions.REFRESH_MARKER) else body


def _body_from_message(message: str) -> str | None:
    """The pull request body a refresh commit carries (between the marker and the trailer)."""
    from openwiki_git.github import api as github_api

    at = message.find(ghactions.REFRESH_MARKER)
    end = message.rfind("\n" + github_api.FINGERPRINT_TRAILER)
    if at < 0 or end <= at:
        return None
    return message[at:end].rstrip() + "\n"


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
        if not paths & set(changes):
            continue

        def same(path: str) -> bool:
            if (path in changes) != (path in theirs):
                return False
            mine, other = changes[path], theirs[path]
            if mine is None or other is None:
                return mine is other
            return ghactions.without_volatile(mine) == ghactions.without_volatile(other)

        if all(same(p) for p in paths):
            out.update({p: theirs[p] for p in paths})
    return out


def _refresh_summary(body: str, result: Mapping[str, Any], pull: Any) -> str:
    """The step summary: the PR body without its hidden marker, and what happened to the PR."""
    if not result.get("decisions") and pull.operation in ("none", "closed"):
        text = "## openwiki-git: wiki refresh\n\nNothing to refresh: no claim is stale."
        if pull.operation == "closed":
            text += f" The open pull request [#{pull.number}]({pull.url}) is no longer needed and was closed."
        return text + "\n"
    text = _visible(body)
    where = f"[#{pull.number}]({pull.url})" if pull.number else ""
    note = {
        "created": f"Opened {where}.",
        "updated": f"Updated {where}.",
        "unchanged": f"{where} already holds these changes: nothing was written.",
        "closed": f"Closed {where}: nothing is left to change.",
        "none": "No wiki file changed, so no pull request was opened.",
    }[pull.operation]
    return f"{text.rstrip()}\n\n**{note}**\n"


def _pr_outputs(env: ActionsEnv, operation: str, number: int | None, url: str | None) -> None:
    write_outputs(env, {"pr-operation": operation, "pr-number": number or "", "pr-url": url or ""})


def _check_branch(branch: str, base: str) -> str:
    branch = branch.strip().removeprefix("refs/heads/")
    bad = (
        not branch
        or branch == base
        or branch.startswith(("-", "/"))
        or branch.endswith(("/", ".lock", "."))
        or ".." in branch
        or any(ch in branch for ch in " ~^:?*[\\\t\n@{")
    )
    if bad:
        raise UsageError(
            f"--branch {branch!r}: not a usable branch for the refresh pull request",
            f"use a plain branch name other than the base {base!r}, e.g. {DEFAULT_BRANCH}",
        )
    return branch


def _check(ws: Workspace) -> dict[str, Any]:
    """The plain check report of the working tree (the claims the refresher would take)."""
    from datetime import datetime

    from openwiki_git.claims import report
    from openwiki_git.claims.check import check_all

    results = check_all(
        ws.wiki.load_all(),
        ws.resolver("worktree"),
        ws.page_text,
        now=datetime.now(UTC),
        reverify_after_seconds=ws.config.reverify_after_seconds,
    )
    return report.build(results, wiki_dir=ws.config.wiki_dir, source="worktree")


def _fingerprint(ws: Workspace, data: Mapping[str, Any], args: argparse.Namespace) -> str:
    """What a refresh would start from: the wiki's bytes, the claims to refresh, the text of the
    files they cite, and the options. Equal fingerprints need no new model call."""
    from openwiki_git.evidence import openwiki as compat

    h = hashlib.sha256()

    def add(*parts: object) -> None:
        h.update(json.dumps(parts, default=str).encode("utf-8") + b"\n")

    add(PRODUCER, args.model, args.base_url, args.max_claims)
    wiki = ws.repo.root / ws.config.wiki_dir
    for path in sorted(p for p in wiki.rglob("*") if p.is_file() and not p.is_symlink()):
        add(path.relative_to(ws.repo.root).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest())
    cited: set[str] = set()
    for c in ghactions.not_fresh(data):
        add(c["id"], c["status"], [(e.get("resource"), e.get("current_resource"), e.get("status")) for e in c["evidence"]])
        for e in c["evidence"]:
            for text in filter(None, (e.get("resource"), e.get("current_resource"))):
                try:
                    cited.add(compat.parse_resource(text, wiki_dir=ws.config.wiki_dir).path)
                except compat.ResourceError:
                    continue
    for cited_path in sorted(cited):
        add(cited_path, ws.repo.read(cited_path, "worktree").blob)
    return h.hexdigest()[:24]


def wiki_changes(ws: Workspace) -> dict[str, bytes | None]:
    """The wiki directory's files that differ from HEAD (new bytes, or None when deleted), by git."""
    from openwiki_git.github import api as github_api

    wiki_dir = ws.config.wiki_dir.rstrip("/")
    changes: dict[str, bytes | None] = {}
    for path in ws.repo.changed_paths(wiki_dir):
        if not (path == wiki_dir or path.startswith(wiki_dir + "/")):
            raise GitHubError(f"{path}: outside the wiki directory {wiki_dir}; refusing to commit it")
        full = ws.repo.root / path
        if full.is_symlink():
            raise GitHubError(f"{path}: a symlink; refusing to commit it")
        changes[path] = full.read_bytes() if full.is_file() else None
    github_api.check_paths(changes)
    return changes


def _commit_message(result: Mapping[str, Any], body: str, fingerprint: str) -> str:
    """The summary line and counts, the pull request's body (so a run that could not open the pull
    request can open it later without the model) and the fingerprint trailer."""
    from openwiki_git.github import api as github_api

    n = ghactions.refresh_counts(result)
    return (
        "openwiki-git: refresh stale wiki claims\n\n"
        f"{n['confirm']} confirmed, {n['revise']} revised, {n['retract']} retracted"
        + (f", {n['stale']} left stale" if n["stale"] else "")
        + ".\n\n"
        + body.rstrip()
        + f"\n\n{github_api.FINGERPRINT_TRAILER} {fingerprint}\n"
    )


# -- the refresher (openwiki_git/refresh/runner.py) ------------------------------------------------------------
def _run_refresh(ws: Workspace, args: argparse.Namespace, refresher: Any) -> Any:
    from openwiki_git.refresh.runner import RefreshOptions, run_refresh

    options = RefreshOptions(
        model=args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        max_claims=args.max_claims,
        timeout=getattr(args, "timeout", None),
        deadline=getattr(args, "deadline", None),
        max_concurrency=getattr(args, "max_concurrency", None),
        shard=getattr(args, "shard", None),
        dry_run=bool(getattr(args, "plan", False)),
        endpoint_from_config=False,  # the repository's config may not pick where the key goes
        progress=lambda line: print(redact(line), file=sys.stderr, flush=True),
    )
    return run_refresh(ws, options, refresher=refresher)
