"""`ground`'s work: the deterministic pass over the pages, then (with a model) the sentences the
references did not ground, as one report of data. `github ground-pr` runs the same passes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openwiki_git.errors import UsageError
from openwiki_git.store.workspace import Workspace


@dataclass(frozen=True)
class ModelOptions:
    """`--model`: the model that grounds what the references did not, and its client's settings
    (None: the config's `refresh:` section). `endpoint_from_config=False` (`github ground-pr`):
    the endpoint and key variable come from the command line only, never from the repository."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    max_sentences: int | None = None
    timeout: float | None = None
    max_retries: int | None = None
    endpoint_from_config: bool = True


@dataclass(frozen=True)
class GroundOptions:
    pages: tuple[str, ...] = ()  # the pages to ground (resolve_pages)
    plan: bool = False  # what would be written (and sent); write and call nothing
    add_front_matter: bool = False  # give pages without front matter (or without `type:`) the minimal OKF one
    source: str = "worktree"
    model: ModelOptions | None = None
    progress: Callable[[int, int], None] | None = None  # (pages done, total) after each page of the first pass
    named: bool = False  # the pages were named (not --all): history globs and ground.exclude do not apply
    reground: bool = False  # --reground-retracted: ground sentences whose claim was retracted, too


def resolve_pages(ws: Workspace, names: list[str], *, every: bool = False) -> tuple[str, ...]:
    """The pages named (or every page of the wiki); a page that does not exist is a usage error."""
    pages = ws.wiki.pages() if every else [ws.wiki.normalize_page(p) for p in names]
    for page in pages:
        if not ws.wiki.page_path(page).is_file():
            raise UsageError(f"{ws.wiki.repo_path(page)}: no such page", "name a page of the wiki directory")
    return tuple(pages)


def ground(ws: Workspace, options: GroundOptions, client: Any = None) -> dict[str, Any]:
    """Ground the pages; the report (report_data). `client`: the model client (None: refresh's)."""
    from openwiki_git.ground import run_summary, writing
    from openwiki_git.ground.sources import source_index

    index = source_index(ws, options.source)
    run = writing.Run(
        options.pages, named=options.named, plan=options.plan, add_front_matter=options.add_front_matter,
        source=options.source, reground=options.reground, progress=options.progress,
    )
    reports = writing.ground_pages(ws, run, index)
    model = None
    if options.model is not None:
        pages = [r.page for r in reports if not r.left_alone]
        model = model_pass(ws, options.model, pages, index, reports, plan=options.plan, source=options.source, client=client)
    data = run_summary.report_data(ws, reports, plan=options.plan, model=model)
    site = site_notice(ws)
    if site is not None:
        data["site"] = site
    return data


def site_notice(ws: Workspace) -> dict[str, Any] | None:
    """The docs site the wiki is the source of (site mode: invisible markers), or, for a plain
    wiki kept in a site folder (`site: none`), whether the site would render its footnote markers
    as text; `ground` and `init` say so."""
    from openwiki_git.formats import siteconf
    from openwiki_git.ground import site

    found = ws.wiki.site
    if found is not None:
        return site.described(found.generator, found.config)
    configs = {}
    for path in siteconf.candidates(ws.config.wiki_dir):
        try:
            configs[path] = (ws.repo.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:  # no such file (or unreadable): no site configured there
            continue
    return site.notice(configs, ws.config.wiki_dir)


def model_pass(
    ws: Workspace, options: ModelOptions, pages: list[str], index: Any, reports: list[Any], *, plan: bool, source: str,
    client: Any = None,
) -> dict[str, Any]:
    """The sentences the references did not ground, shown to the model (ground/model_pass.py)."""
    from openwiki_git.ground import deterministic as grounding
    from openwiki_git.ground import model_pass as ground_model
    from openwiki_git.refresh.settings import RefreshOptions

    refresh = RefreshOptions(
        model=options.model, base_url=options.base_url, api_key_env=options.api_key_env, max_claims=options.max_sentences,
        timeout=options.timeout, max_retries=options.max_retries, endpoint_from_config=options.endpoint_from_config,
    )
    skip = grounding.proposed(reports)  # a plan wrote nothing
    return ground_model.run(ws, pages, index, options=refresh, plan=plan, source=source, skip=skip, client=client, reports=reports)
