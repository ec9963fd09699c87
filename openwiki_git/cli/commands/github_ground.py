"""`openwiki-git github ground-pr` (`schedule`, `workflow_dispatch`): ground the docs' new or
changed sentences and open one pull request.

Runs `ground --all` (and `--model` when given) in the checkout of the base branch, then commits
the wiki directory's changes on one fixed branch on top of the base and opens the pull request, or
updates the open one, through the refresh pull request's machinery (commands/github.py,
github_api.py). `ground` is idempotent and its claim ids are stable (a hash of the page, the
sentence and the evidence), so a nightly run whose result the open pull request already holds
writes nothing. Broken references become `::warning` annotations (at most 10) and a table in
the job summary; outputs: pr-operation, pr-number, pr-url, grounded-count, broken-count.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import GitError, UsageError

if TYPE_CHECKING:
    from github import Github

    from openwiki_git.cli.commands.github import ActionsEnv
    from openwiki_git.store.workspace import Workspace

DEFAULT_BRANCH = "openwiki-git/ground"
PR_TITLE = "openwiki-git: ground the docs' code references"
MARKER = "<!-- openwiki-git:ground -->"
MAX_ANNOTATIONS = 10


def add_parser(gsub: argparse._SubParsersAction) -> None:
    g = gsub.add_parser(
        "ground-pr", help="ground the docs' code references and open or update one pull request",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g.add_argument("--base", help="the branch the pull request targets (default: the branch the workflow runs on)")
    g.add_argument("--branch", default=DEFAULT_BRANCH, help=f"the pull request's branch (default: {DEFAULT_BRANCH})")
    g.add_argument("--add-front-matter", action="store_true", help="give pages without front matter the minimal OKF one")
    g.add_argument("--model", help="also ground sentences without references with this model (refresh's client)")
    g.add_argument("--base-url", help="with --model: an OpenAI-compatible endpoint")
    g.add_argument("--api-key-env", metavar="NAME", help="with --model: the environment variable holding the API key")
    g.add_argument("--max-sentences", type=int, metavar="N", help="with --model: send at most N sentences")
    g.set_defaults(run=cmd_ground_pr)


def cmd_ground_pr(args: argparse.Namespace) -> int:
    """Ground the docs, then open or update one pull request with the wiki's changes."""
    from openwiki_git.cli.commands import github as gh_cmd

    ws = open_workspace(args)
    env = gh_cmd.ActionsEnv.read()
    if not env.token:
        raise UsageError("github ground-pr: GITHUB_TOKEN is not set", "pass `github-token` to the action")
    return ground_pr(ws, env, gh_cmd._client(env), args, client=new_client(args))


def new_client(args: argparse.Namespace) -> Any:
    """The model client for --model; None lets the refresher build the configured one. Tests replace it."""
    return None


def ground_pr(ws: Workspace, env: ActionsEnv, gh: Github, args: argparse.Namespace, client: Any = None) -> int:
    from openwiki_git.cli.commands import github as gh_cmd
    from openwiki_git.github import api as github_api
    from openwiki_git.github import render as ghactions
    from openwiki_git.ground import deterministic as ground
    from openwiki_git.services import ground as grounding

    event = env.event()
    repo_name = gh_cmd._repository(env, event)
    base = args.base or env.ref_name or (event.get("repository") or {}).get("default_branch")
    if not base:
        raise UsageError("github ground-pr: no base branch", "pass --base BRANCH")
    branch = gh_cmd._check_branch(args.branch or DEFAULT_BRANCH, base)
    parent = ws.repo.head()
    if parent is None:
        raise GitError("the repository has no commit to ground on", "check out the base branch first")
    if not args.model and (args.base_url or args.api_key_env or args.max_sentences is not None):
        raise UsageError("--base-url, --api-key-env and --max-sentences need --model", "add --model NAME")

    args.plan, args.source = False, "worktree"
    pages = ws.wiki.pages()
    index = ground.source_index(ws)
    reports = ground.ground_pages(ws, pages, index, add_front_matter=args.add_front_matter, plan=False)
    model = None
    if args.model:
        options = grounding.ModelOptions(
            args.model, base_url=args.base_url, api_key_env=args.api_key_env, max_sentences=args.max_sentences,
            timeout=getattr(args, "timeout", None), max_retries=getattr(args, "max_retries", None), endpoint_from_config=False,
        )
        model = grounding.model_pass(ws, options, pages, index, reports, plan=False, source="worktree", client=client)
    data = grounding.report_data(ws, reports, plan=False, model=model)
    broken = [{**b, "page_path": p["page_path"]} for p in data["pages"] for b in p["broken"]]
    for b in broken[:MAX_ANNOTATIONS]:
        print(ghactions.workflow_command(
            "warning", f"`{b['reference']}` names nothing in the code: {b['reason']}",
            file=b["page_path"], line=b["line"], title="openwiki-git: broken reference",
        ))
    if len(broken) > MAX_ANNOTATIONS:
        print(ghactions.workflow_command("notice", f"{len(broken) - MAX_ANNOTATIONS} more in the job summary", title="openwiki-git"))

    changes = gh_cmd.wiki_changes(ws)
    existing = github_api.find_open_pull(gh, repo_name, branch=branch, base=base)
    body = render_body(data)
    s = data["summary"]
    message = f"openwiki-git: ground the docs' code references\n\n{s['added']} claims added, {s['broken']} broken references.\n"
    pull = github_api.publish_pull(
        gh, repo_name, base=base, branch=branch, parent_sha=parent, changes=changes, title=PR_TITLE,
        body=body, message=message, existing=existing,
        equivalent=lambda a, b: ghactions.without_timestamps(a) == ghactions.without_timestamps(b),
    )
    print(f"openwiki-git: ground pull request {pull.operation}" + (f": {pull.url}" if pull.url else ""), file=sys.stderr)
    gh_cmd.write_outputs(env, {
        "pr-operation": pull.operation, "pr-number": pull.number or "", "pr-url": pull.url or "",
        "grounded-count": s["added"], "broken-count": s["broken"],
    })
    where = f"[#{pull.number}]({pull.url})" if pull.number else ""
    note = {
        "created": f"Opened {where}.", "updated": f"Updated {where}.",
        "unchanged": f"{where} already holds these changes: nothing was written.",
        "closed": f"Closed {where}.", "none": "No wiki file changed, so no pull request was opened.",
    }[pull.operation]
    gh_cmd.write_summary(env, body.removeprefix(MARKER + "\n").rstrip() + f"\n\n**{note}**\n")
    return 0


def render_body(data: dict[str, Any]) -> str:
    """The pull request's description: what was grounded, broken, ambiguous, ungrounded."""
    s = data["summary"]
    lines = [
        MARKER, "## openwiki-git: grounding the docs", "",
        (
            f"{s['added']} claims added from {s['references']} code references: {s['already_grounded']} already grounded, "
            f"{s['broken']} broken, {s['ambiguous']} ambiguous. Each claim cites the definition its reference names; "
            "its marker follows the sentence, and nothing else in the prose changed."
        ),
        "",
    ]
    added = [(p["page_path"], a) for p in data["pages"] for a in p["added"]]
    if added:
        lines += ["| page | reference | cites |", "|---|---|---|"]
        lines += [f"| {pp}:{a['line']} | `{_cell(a['reference'])}` | {a['evidence'].removeprefix('repo://')} |" for pp, a in added]
        lines.append("")
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
    return "\n".join(lines).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")
