"""`github ground-pr` (`schedule`, `workflow_dispatch`): `ground --all` (and its model pass with a
model) in the checkout of the base branch, then the wiki directory's changes committed on one
fixed branch on top of the base and the pull request opened, or the open one updated, as the
refresh pull request is (github_publish.py, github/api.py). `ground` is idempotent and its claim
ids are stable (a hash of the page, the sentence and the evidence), so a nightly run whose result
the open pull request already holds writes nothing. Broken references become `::warning`
annotations (at most 10) and a table in the job summary; outputs: pr-operation, pr-number,
pr-url, grounded-count, broken-count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openwiki_git.errors import UsageError
from openwiki_git.github import pull_body, render
from openwiki_git.github.actions import Step
from openwiki_git.services import github_publish as publish

if TYPE_CHECKING:
    from openwiki_git.github.api import Client
    from openwiki_git.store.workspace import Workspace

MAX_ANNOTATIONS = 10


@dataclass(frozen=True)
class GroundPrOptions:
    base: str | None = None  # the branch the pull request targets (default: the workflow's)
    branch: str = pull_body.GROUND_BRANCH
    add_front_matter: bool = False  # give pages without front matter the minimal OKF one
    model: str | None = None  # also ground sentences without references with this model
    base_url: str | None = None  # with `model`: an OpenAI-compatible endpoint
    api_key_env: str | None = None  # with `model`: the variable holding the key
    max_sentences: int | None = None  # with `model`: send at most N sentences


def ground_pr(ws: Workspace, step: Step, gh: Client, options: GroundPrOptions, client: Any = None) -> int:
    """Ground the docs, then open or update one pull request with the wiki's changes. `client`:
    the model client of the model pass (None: the refresher's configured one)."""
    from openwiki_git.github import api as github_api

    event = step.env.event()
    repo_name = step.env.repository_name(event)
    base = publish.base_branch(step.env, event, options.base, "ground-pr", "pass --base BRANCH")
    branch = publish.check_branch(options.branch or pull_body.GROUND_BRANCH, base, pull_body.GROUND_BRANCH)
    parent = publish.head_commit(ws, "ground on")
    if not options.model and (options.base_url or options.api_key_env or options.max_sentences is not None):
        raise UsageError("--base-url, --api-key-env and --max-sentences need --model", "add --model NAME")

    data = _ground(ws, options, client)
    _annotate(step, data)
    changes = publish.wiki_changes(ws)
    existing = github_api.find_open_pull(gh, repo_name, branch=branch, base=base)
    body = pull_body.render_ground_body(data)
    pull = github_api.publish_pull(
        gh, repo_name, base=base, branch=branch, parent_sha=parent, changes=changes, title=pull_body.GROUND_TITLE,
        body=body, message=pull_body.ground_commit_message(data), existing=existing,
        equivalent=lambda a, b: publish.without_timestamps(a) == publish.without_timestamps(b),
    )
    step.say(f"openwiki-git: ground pull request {pull.operation}" + (f": {pull.url}" if pull.url else ""))
    s = data["summary"]
    publish.pr_outputs(step, pull.operation, pull.number, pull.url, {"grounded-count": s["claims"], "broken-count": s["broken"]})
    step.summary(pull_body.ground_summary(body, pull))
    return 0


def _ground(ws: Workspace, options: GroundPrOptions, client: Any) -> dict[str, Any]:
    """`ground --all` on the working tree, then the model pass when a model is given; the report.
    The endpoint and key variable come from the command line only, never from the repository's
    config (as for `github refresh-pr`)."""
    from openwiki_git.services import ground

    model = None
    if options.model:
        model = ground.ModelOptions(
            model=options.model, base_url=options.base_url, api_key_env=options.api_key_env,
            max_sentences=options.max_sentences, endpoint_from_config=False,
        )
    every = tuple(ws.wiki.pages())
    return ground.ground(ws, ground.GroundOptions(pages=every, add_front_matter=options.add_front_matter, model=model), client)


def _annotate(step: Step, data: dict[str, Any]) -> None:
    """The broken references as `::warning` annotations, at most MAX_ANNOTATIONS."""
    broken = [{**b, "page_path": p["page_path"]} for p in data["pages"] for b in p["broken"]]
    for b in broken[:MAX_ANNOTATIONS]:
        step.command(render.workflow_command(
            "warning", f"`{b['reference']}` names nothing in the code: {b['reason']}",
            file=b["page_path"], line=b["line"], title="openwiki-git: broken reference",
        ))
    if len(broken) > MAX_ANNOTATIONS:
        step.command(render.workflow_command("notice", f"{len(broken) - MAX_ANNOTATIONS} more in the job summary", title="openwiki-git"))
