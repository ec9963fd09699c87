"""What the refresh and ground pull requests share: the branch they target and the one they are
built on, the wiki's changed files they publish (compared without their volatile parts), the
client, and the `pr-*` outputs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openwiki_git.errors import GitError, GitHubError, UsageError
from openwiki_git.github.actions import ActionsEnv, Step

if TYPE_CHECKING:
    from openwiki_git.github.api import Client
    from openwiki_git.store.workspace import Workspace


def client(env: ActionsEnv) -> Client:
    """The GitHub client of this run (its token and API), as github/api.py configures it."""
    from openwiki_git.github import api as github_api

    assert env.token
    return github_api.connect(env.token, base_url=env.api_url)


def base_branch(env: ActionsEnv, event: Mapping[str, Any], given: str | None, command: str, hint: str) -> str:
    """The branch the pull request targets: given, else the one the workflow runs on, else the
    repository's default branch."""
    base = given or env.ref_name or (event.get("repository") or {}).get("default_branch")
    if not base:
        raise UsageError(f"github {command}: no base branch", hint)
    return str(base)


def check_branch(branch: str, base: str, default: str) -> str:
    """The pull request's branch, when it is a plain branch name other than the base."""
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
            f"use a plain branch name other than the base {base!r}, e.g. {default}",
        )
    return branch


def head_commit(ws: Workspace, what: str) -> str:
    """The commit the pull request's branch is built on (the checked-out base)."""
    parent = ws.repo.head()
    if parent is None:
        raise GitError(f"the repository has no commit to {what}", "check out the base branch first")
    return parent


def is_shallow(ws: Workspace) -> bool:
    """A shallow clone (actions/checkout's default `fetch-depth: 1`)."""
    return (ws.repo.git_dir / "shallow").exists()


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


def pr_outputs(
    step: Step, operation: str, number: int | None, url: str | None, more: Mapping[str, object] | None = None
) -> None:
    """The `pr-*` outputs (and the workflow's own, `more`), in one write."""
    step.outputs({"pr-operation": operation, "pr-number": number or "", "pr-url": url or "", **(more or {})})


_TIMESTAMP = re.compile(rb"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")


def without_timestamps(data: bytes) -> bytes:
    """The bytes with every ISO 8601 date-time masked: two refreshes that differ only in when they
    ran are the same change (no churn from timestamps)."""
    return _TIMESTAMP.sub(b"<time>", data)


_PAGE_VERSION = re.compile(rb'("pageVersion"\s*:\s*")sha256:[0-9a-f]{64}(")')


def without_volatile(data: bytes) -> bytes:
    """`without_timestamps`, and the sidecar's pageVersion masked too (it hashes the page's bytes,
    which hold the timestamps): the same decisions made at another time compare equal."""
    return _PAGE_VERSION.sub(rb"\1<page-version>\2", without_timestamps(data))
