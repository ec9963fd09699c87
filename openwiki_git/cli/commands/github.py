"""`openwiki-git github`: the GitHub Action's jobs.

`github comment` (on `pull_request`): the claims made stale between the pull request's base and
head, as at most 10 `::warning` annotations, the complete table in $GITHUB_STEP_SUMMARY, and one
sticky comment (created when the first claim goes stale, edited on each push, turned into an
all-clear note once fixed). A read-only token (a fork's pull request) only loses the comment.
Exit 0, or 1 with --fail-on-stale when a claim is stale or unresolved.

`github refresh-pr` (`schedule`, `workflow_dispatch`): runs the refresher, then commits the wiki's
changes on one fixed branch on top of the base branch and opens the pull request, or updates the
open one. Nothing is written when nothing changed. `github refresh-shard` runs one shard of it.

`github ground-pr` (`schedule`, `workflow_dispatch`): grounds the docs' new or changed sentences
and opens one pull request the same way.

The token comes from GITHUB_TOKEN. Outputs (stale-count, pr-number, pr-url, pr-operation, ...)
go to $GITHUB_OUTPUT. The workflows are services/github_comment.py, github_refresh.py and
github_ground.py; this module parses their arguments and prints what they report.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwiki_git.cli.args import open_workspace, parse_shard
from openwiki_git.errors import UsageError

if TYPE_CHECKING:
    from openwiki_git.github.actions import Step
    from openwiki_git.refresh.settings import RefreshOptions

GROUND_PR_DESCRIPTION = """\
Ground the docs' new or changed sentences and open one pull request (`schedule`, `workflow_dispatch`).

Runs `ground --all` (and `--model` when given) in the checkout of the base branch, then commits
the wiki directory's changes on one fixed branch on top of the base and opens the pull request, or
updates the open one, through the refresh pull request's machinery. `ground` is idempotent and its
claim ids are stable (a hash of the page, the sentence and the evidence), so a nightly run whose
result the open pull request already holds writes nothing. Broken references become `::warning`
annotations (at most 10) and a table in the job summary; outputs: pr-operation, pr-number,
pr-url, grounded-count, broken-count.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "github", help="GitHub Actions: the stale-claims PR comment and the refresh PR", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gsub = p.add_subparsers(dest="github_command", metavar="ACTION", parser_class=type(p))
    gsub.required = True
    _add_comment(gsub)
    _add_refresh_pr(gsub)
    _add_refresh_shard(gsub)
    _add_ground_pr(gsub)


def _add_comment(gsub: argparse._SubParsersAction) -> None:
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
        "--print", dest="print_comment", action="store_true",
        help="print the sticky comment's Markdown and nothing else: no annotation, summary, output or API call, "
        "so it runs outside Actions (links point at $GITHUB_REPOSITORY, else OWNER/REPO); needs --base outside a "
        "pull_request event",
    )
    c.add_argument(
        "--comment-author", metavar="LOGIN",
        help="who writes the sticky comment (default: a personal token's user, else any bot account, as "
        "GITHUB_TOKEN and App tokens write); comments by anyone else are never edited",
    )
    c.add_argument(
        "--report-html", type=Path, metavar="FILE",
        help="also the health report (`openwiki-git report`): its Markdown appended to the job summary, its HTML "
        "written to FILE, and FILE the step's report-path output",
    )
    c.set_defaults(run=cmd_comment)


def _add_refresh_pr(gsub: argparse._SubParsersAction) -> None:
    from openwiki_git.github.pull_body import REFRESH_BRANCH
    r = gsub.add_parser(
        "refresh-pr", help="refresh stale claims with the model and open or update one pull request",
        description=cmd_refresh_pr.__doc__,
    )
    r.add_argument("--base", help="the branch the pull request targets (default: the branch the workflow runs on)")
    r.add_argument("--branch", default=REFRESH_BRANCH, help=f"the pull request's branch (default: {REFRESH_BRANCH})")
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
    r.add_argument(
        "--report-html", type=Path, metavar="FILE",
        help="also the health report (`openwiki-git report`): its Markdown appended to the job summary, its HTML "
        "written to FILE, and FILE the step's report-path output",
    )
    r.set_defaults(run=cmd_refresh_pr)


def _add_refresh_shard(gsub: argparse._SubParsersAction) -> None:
    from openwiki_git.github.pull_body import REFRESH_BRANCH
    sh = gsub.add_parser(
        "refresh-shard", help="refresh the pages of one shard and save the decisions for `refresh-pr --from-shards`",
        description=cmd_refresh_shard.__doc__,
    )
    sh.add_argument("--shard", required=True, type=parse_shard, metavar="I/N", help="this job's shard, e.g. 2/4")
    sh.add_argument("--out", required=True, type=Path, metavar="DIR", help="where to save the decisions and files")
    for flag in ("--model", "--base-url", "--api-key-env"):
        sh.add_argument(flag, help=f"as for refresh-pr {flag}")
    sh.add_argument("--max-claims", type=int, metavar="N", help="refresh at most N claims (as for refresh-pr)")
    sh.add_argument("--branch", default=REFRESH_BRANCH, help="the refresh pull request's branch (to skip when it is up to date)")
    sh.add_argument("--timeout", type=float, metavar="SECONDS", help="deadline of one model call (default 60)")
    sh.add_argument("--deadline", type=float, metavar="SECONDS", help="deadline of the shard's model calls")
    sh.add_argument("--max-concurrency", type=int, metavar="N", help="claims sent to the model at once (default 4)")
    sh.set_defaults(run=cmd_refresh_shard)


def _add_ground_pr(gsub: argparse._SubParsersAction) -> None:
    from openwiki_git.github.pull_body import GROUND_BRANCH
    g = gsub.add_parser(
        "ground-pr", help="ground the docs' code references and open or update one pull request",
        description=GROUND_PR_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g.add_argument("--base", help="the branch the pull request targets (default: the branch the workflow runs on)")
    g.add_argument("--branch", default=GROUND_BRANCH, help=f"the pull request's branch (default: {GROUND_BRANCH})")
    g.add_argument("--add-front-matter", action="store_true", help="give pages without front matter the minimal OKF one")
    g.add_argument("--model", help="also ground sentences without references with this model (refresh's client)")
    g.add_argument("--base-url", help="with --model: an OpenAI-compatible endpoint")
    g.add_argument("--api-key-env", metavar="NAME", help="with --model: the environment variable holding the API key")
    g.add_argument("--max-sentences", type=int, metavar="N", help="with --model: send at most N sentences")
    g.set_defaults(run=cmd_ground_pr)


# -- what a step prints --------------------------------------------------------------------------------
class _Console:
    """A step's lines: workflow commands (and the summary outside Actions) on stdout, the rest on stderr."""

    def out(self, text: str) -> None:
        print(text)

    def err(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)


def _step(*secret_names: str | None, register: bool = True) -> Step:
    """The step of this run; `register`: redact the token and the secrets named (and secret-named)."""
    from openwiki_git.github.actions import ActionsEnv, Step

    env = ActionsEnv.read()
    if register:
        env.register_secrets(*secret_names)
    return Step(env, _Console())


def _token_required(step: Step, command: str) -> None:
    if not step.env.token:
        raise UsageError(f"github {command}: GITHUB_TOKEN is not set", "pass `github-token` to the action")


# -- the commands ----------------------------------------------------------------------------------------
def cmd_comment(args: argparse.Namespace) -> int:
    """The claims this pull request made stale: annotations, the step summary, one sticky comment."""
    from openwiki_git.services import github_comment, github_publish

    ws = open_workspace(args)
    if args.print_comment:
        return _print_comment(ws, args)
    step = _step()
    gh = None if args.no_comment or not step.env.token else github_publish.client(step.env)
    options = github_comment.CommentOptions(
        base=args.base, head=args.head, pr=args.pr, fail_on_stale=args.fail_on_stale, post=not args.no_comment,
        author=args.comment_author, report_html=args.report_html,
    )
    return github_comment.comment(ws, step, gh, options)


def _print_comment(ws: Any, args: argparse.Namespace) -> int:
    """`github comment --print`: the comment's Markdown on stdout; exit 1 with --fail-on-stale when a claim is stale."""
    from openwiki_git.github.actions import ActionsEnv
    from openwiki_git.services import github_comment

    options = github_comment.CommentOptions(base=args.base, head=args.head, fail_on_stale=args.fail_on_stale)
    env = ActionsEnv.read()
    env.register_secrets()  # the token is redacted from what is printed, as from what is posted
    markdown, stale = github_comment.preview(ws, env, options)
    print(markdown.rstrip("\n"))
    return 1 if args.fail_on_stale and stale else 0


def _refresh_options(args: argparse.Namespace, **more: Any) -> RefreshOptions:
    """The model, endpoint and budgets of refresh-pr and refresh-shard (`more`: --plan, --shard)."""
    from openwiki_git.refresh.settings import RefreshOptions

    return RefreshOptions(
        model=args.model, base_url=args.base_url, api_key_env=args.api_key_env, max_claims=args.max_claims,
        timeout=args.timeout, deadline=args.deadline, max_concurrency=args.max_concurrency, **more,
    )


def cmd_refresh_pr(args: argparse.Namespace) -> int:
    """Refresh stale claims with the model, then open or update one pull request with the wiki's changes."""
    from openwiki_git.services import github_publish, github_refresh

    ws = open_workspace(args)
    step = _step(args.api_key_env or "OPENAI_API_KEY")
    _token_required(step, "refresh-pr")
    options = github_refresh.RefreshPrOptions(
        refresh=_refresh_options(args, dry_run=args.plan), base=args.base, branch=args.branch,
        from_shards=tuple(args.from_shards or ()), report_html=args.report_html,
    )
    refresher = None if args.plan else new_refresher(args)
    return github_refresh.refresh_pr(ws, step, github_publish.client(step.env), options, refresher)


def cmd_refresh_shard(args: argparse.Namespace) -> int:
    """One job of a sharded refresh: the stale claims on the pages of shard I of N (stable by
    page), decided by the model and saved to --out (decisions.json, the changed wiki files) for a
    final `github refresh-pr --from-shards` job. Writes nothing to GitHub. Exit 2 when the model
    cannot be used."""
    from openwiki_git.services import github_refresh

    ws = open_workspace(args)
    step = _step(args.api_key_env or "OPENAI_API_KEY")
    options = github_refresh.ShardOptions(refresh=_refresh_options(args, shard=args.shard), out=args.out, branch=args.branch)
    return github_refresh.refresh_shard(ws, step, options, new_refresher(args))


def new_refresher(args: argparse.Namespace) -> Any:
    """The refresher to use; None lets `run_refresh` build the configured one. Tests replace it."""
    return None


def cmd_ground_pr(args: argparse.Namespace) -> int:
    """Ground the docs, then open or update one pull request with the wiki's changes."""
    from openwiki_git.services import github_ground, github_publish

    ws = open_workspace(args)
    step = _step(register=False)
    _token_required(step, "ground-pr")
    options = github_ground.GroundPrOptions(
        base=args.base, branch=args.branch, add_front_matter=args.add_front_matter, model=args.model,
        base_url=args.base_url, api_key_env=args.api_key_env, max_sentences=args.max_sentences,
    )
    return github_ground.ground_pr(ws, step, github_publish.client(step.env), options, client=new_client(args))


def new_client(args: argparse.Namespace) -> Any:
    """The model client of `ground-pr --model`; None lets the refresher build the configured one. Tests replace it."""
    return None
