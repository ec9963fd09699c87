"""`report`: the wiki's health at a glance. The current numbers are check's own report (the same
`services/check_chain.run` the `check` command runs, every claim listed), the past is the sidecars'
history along the first-parent line (git/history.py, claims/trend.py); claims/health.py makes the
numbers, github/health_html.py and github/health_markdown.py render them.
It is a report, not a gate: the caller exits 0 whenever it reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwiki_git.claims import health, trend
from openwiki_git.errors import ConfigError, OpenwikiError, StoreError, UsageError
from openwiki_git.formats import pagenames
from openwiki_git.services import check_chain
from openwiki_git.store.config import CONFIG_DIR, CONFIG_NAME, config_settings, configured_wiki_dir
from openwiki_git.store.workspace import Workspace

if TYPE_CHECKING:
    from collections.abc import Callable

    from openwiki_git.git.history import Commit
    from openwiki_git.github.actions import Step

DEFAULT_HISTORY = 30
_GITHUB_REMOTE = re.compile(r"(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
                            r"([\w.-]+/[\w.-]+?)(?:\.git)?/?")


@dataclass(frozen=True)
class ReportOptions:
    directory: str | None = None  # -C
    wiki_dir: str | None = None  # --wiki-dir
    history: int | None = None  # --history N (None: DEFAULT_HISTORY, or every commit back to `since`)
    since: str | None = None  # --since REV: the trend starts at this first-parent commit


def run(options: ReportOptions) -> dict[str, Any]:
    """The report's data (schemas/report.schema.json)."""
    if options.history is not None and options.history < 1:
        raise UsageError(f"--history {options.history}: must be at least 1", "e.g. --history 30")
    ws = Workspace.open(Path(options.directory) if options.directory else None, wiki_dir=options.wiki_dir)
    head = ws.repo.head()
    stop = ws.repo.commit_id(options.since) if options.since else None
    checked = check_chain.run(check_chain.CheckOptions(directory=str(ws.repo.root), wiki_dir=options.wiki_dir, every=True))
    data = checked.report.whole()
    limit = options.history if options.history is not None else (None if stop else DEFAULT_HISTORY)
    history = _history(ws, head, limit, stop, options.wiki_dir)
    return health.build(
        data, _verifiers(ws), ws.wiki.pages(), history,
        now=datetime.now(UTC), head=head, link_base=_link_base(ws, head), since=stop,
    )


def _history(ws: Workspace, head: str | None, limit: int | None, stop: str | None, wiki_dir: str | None) -> trend.History:
    if head is None:
        return trend.History()
    from openwiki_git.git import history

    commits = history.first_parent(ws.repo, head, limit=limit, stop=stop)
    folder = pagenames.claims_folder(ws.config.wiki_dir) if wiki_dir is not None else _claims_folder_at(ws)
    snapshots = ((s.commit.id, s.commit.time, s.changed, s.whole) for s in history.folder_history(ws.repo, commits, folder))
    return trend.walk(snapshots)


def _claims_folder_at(ws: Workspace) -> Callable[[Commit], str]:
    """The sidecars' folder at each commit, as that commit's config names the wiki directory: a
    wiki moved (`wiki_dir: docs`) keeps its trend from before the move. A commit whose config
    cannot be read counts with today's folder (the report is about now; history is context)."""
    from openwiki_git.git import diff as gitdiff

    settings: dict[str, dict[str, Any] | None] = {}  # config blob id -> its settings (None: unreadable)

    def folder(commit: Commit) -> str:
        blob = gitdiff.blob_at(ws.repo, commit.id, f"{CONFIG_DIR}/{CONFIG_NAME}")
        data: dict[str, Any] | None = {}
        if blob is not None:
            if blob[0] not in settings:
                settings[blob[0]] = _settings_or_none(blob[1], f"{commit.id[:12]}:{CONFIG_DIR}/{CONFIG_NAME}")
            data = settings[blob[0]]
        if data is None:
            return pagenames.claims_folder(ws.config.wiki_dir)

        def is_dir(path: str) -> bool:
            entry = gitdiff.tree_entry_id(ws.repo, commit.id, path)
            return entry is not None and gitdiff.is_tree(ws.repo, entry)

        return pagenames.claims_folder(configured_wiki_dir(data, is_dir))

    return folder


def _settings_or_none(raw: bytes, place: str) -> dict[str, Any] | None:
    """A past config's settings, None when it is too large or invalid (as load_config refuses it)."""
    from openwiki_git.formats.yamlio import MAX_BYTES

    if len(raw) > MAX_BYTES:
        return None
    try:
        return config_settings(raw.decode("utf-8"), place)
    except (UnicodeDecodeError, ConfigError):
        return None


def _verifiers(ws: Workspace) -> dict[str, str | None]:
    """Claim id -> verifiedBy, from the working tree's sidecars (the one field check does not report)."""
    from openwiki_git.formats import sidecar as codec

    out: dict[str, str | None] = {}
    for page in ws.wiki.sidecar_pages():
        try:
            out.update((cid, by) for cid, by, *_ in codec.glance(ws.wiki.sidecar_path(page).read_bytes()))
        except (OSError, ValueError):
            continue  # check reports a sidecar it cannot read; here its claims count as verified by no one
    return out


def _link_base(ws: Workspace, head: str | None) -> str | None:
    """Where a cited file links to: its GitHub page at HEAD when `origin` is on GitHub, else
    None (the path itself, relative)."""
    url = ws.repo.config_value("remote.origin.url") or ""
    m = _GITHUB_REMOTE.fullmatch(url.strip())
    if m is None or head is None:
        return None
    return f"https://github.com/{m.group(1)}/blob/{head}/"


def write_file(path: str, text: str) -> Path:
    """The rendered report written at once (readers never see half of it); exit 2 when the path
    cannot take a file, and nothing is written."""
    from openwiki_git.store.wiki import atomic_write

    target = Path(path).absolute()
    if target.is_dir():
        raise StoreError(f"{path}: a directory where the report file belongs", "name a file, e.g. --html report.html")
    parent = target.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise StoreError(f"{path}: {parent} is not a directory", "name a file in a directory")
    try:
        atomic_write(target, text.encode("utf-8"), root=target.parent if target.parent.exists() else parent)
    except OSError as e:
        raise StoreError(f"{path}: cannot write: {e.strerror or e}", "name a writable path") from None
    return target


def write_html(path: str, data: dict[str, Any], directory: str | None = None) -> Path:
    """The report's HTML written to `path` (write_file), each open claim's page linked relative to
    the page's folder when the report has no GitHub link for it (`directory`: the repository's, -C)."""
    import os

    from openwiki_git.git.repo import Repo
    from openwiki_git.github import health_html

    root = Repo(Path(directory) if directory else None).root
    page_root = Path(os.path.relpath(root, Path(path).absolute().parent)).as_posix() + "/"
    return write_file(path, health_html.render(data, page_root=page_root))


def publish(step: Step, ws: Workspace, html_path: Path) -> None:
    """The Action's health report (comment and refresh modes): the Markdown appended to the job
    summary, the HTML written to `html_path`, its path the `report-path` output (for
    actions/upload-artifact). A report that cannot be made is a warning, never the job's failure."""
    from openwiki_git.github import health_markdown
    from openwiki_git.github.render import workflow_command

    try:
        data = run(ReportOptions(directory=str(ws.repo.root), wiki_dir=ws.config.wiki_dir))
        written = write_html(str(html_path), data, str(ws.repo.root))
    except OpenwikiError as e:
        step.command(workflow_command("warning", f"{e.message}. {e.hint or ''}".strip(), title="openwiki-git: no health report"))
        return
    step.summary(health_markdown.render(data))
    step.outputs({"report-path": str(written)})
    step.say(f"openwiki-git: health report written to {written}")
