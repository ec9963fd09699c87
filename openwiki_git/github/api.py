"""The only module that imports PyGithub: the sticky PR comment and the refresh pull request.

Every function takes an injected `github.Github` client (tests build one against `responses`).
Every GitHub failure leaves here as a `GitHubError` whose message says what was being done and
what GitHub answered; a token that may not write (a fork's pull request, missing `permissions:`)
is a `ReadOnlyTokenError`, which callers may degrade to the step summary.

The refresh branch is written through the Git Data API (blobs, a tree on top of the base commit's
tree, a commit, the ref force-moved), so no push credentials or local git writes are needed, and
nothing is written when the result equals the base or the open pull request.

One cohesive thing: every call openwiki-git makes to GitHub, behind the one PyGithub import (no
other module may import it), so its errors are translated in one place.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import requests
from github import (
    Auth,
    Github,
    GithubException,
    InputGitTreeElement,
    UnknownObjectException,
)
from urllib3.util.retry import Retry

from openwiki_git import __version__
from openwiki_git.errors import GitHubError
from openwiki_git.git.repo import blob_id
from openwiki_git.github.pull_body import FINGERPRINT_TRAILER
from openwiki_git.github.render import STICKY_MARKER

Client = Github  # the client type callers name (they may not import PyGithub themselves)
DEFAULT_API_URL = "https://api.github.com"
FORBIDDEN_PREFIXES = (".github/workflows/",)
FILE_MODE = "100644"
COMPARE_FILE_LIMIT = 300  # the compare API lists at most 300 files

DEFAULT_BOT = "github-actions[bot]"  # the author of what GITHUB_TOKEN writes
# Only requests that can be repeated safely are retried: a POST that failed with a 502 may have
# been carried out (a second sticky comment, a second pull request), so it is never re-sent.
RETRY_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CREATE_PR_SETTING_HINT = (
    "let GitHub Actions open pull requests: Settings > Actions > General > Workflow permissions > "
    '"Allow GitHub Actions to create and approve pull requests" (in an organization, first allow it in the '
    "organization's Actions settings), or pass a GitHub App token as `github-token`"
)

PERMISSIONS_HINT = (
    "a pull request from a fork gets a read-only token; otherwise grant the job "
    "`permissions: pull-requests: write` (and `contents: write` for refresh-pr)"
)


class ReadOnlyTokenError(GitHubError):
    """The token may read but not write here (HTTP 403)."""


class CreatePullForbiddenError(GitHubError):
    """GitHub refused to let this token open the pull request (the repository's Actions setting)."""


def retry_policy() -> Retry:
    """Retries of idempotent requests only (GET, HEAD, OPTIONS) on a 502, 503 or 504; never a POST
    or PATCH, which may have been carried out before the error. The last answer is returned, not
    raised, so PyGithub reports GitHub's status and message."""
    return Retry(
        total=2,
        connect=2,
        read=2,
        status=2,
        allowed_methods=RETRY_METHODS,
        status_forcelist=(502, 503, 504),
        backoff_factor=0.5,
        raise_on_status=False,
        respect_retry_after_header=True,
    )


def connect(token: str, *, base_url: str | None = None) -> Github:
    """The one client configuration, for the Actions runner and the tests alike: the given token,
    the given API (GHES sets GITHUB_API_URL), `retry_policy()`, no client-side throttling (a run
    makes a handful of writes), a timeout per request."""
    return Github(
        auth=Auth.Token(token),
        base_url=(base_url or DEFAULT_API_URL).rstrip("/"),
        user_agent=f"openwiki-git/{__version__}",
        lazy=True,
        retry=retry_policy(),
        timeout=30,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


USER_TOKEN_PREFIXES = ("ghp_", "github_pat_", "gho_", "ghu_")  # tokens that act as a person


def comment_author(gh: Github, token: str | None) -> str | None:
    """Who this token writes comments as, when that is one known login: the user of a personal or
    OAuth token (read from /user). None for GITHUB_TOKEN and GitHub App installation tokens, which
    write as a bot (github-actions[bot], <app>[bot]) and may not read /user."""
    if not token or not token.startswith(USER_TOKEN_PREFIXES):
        return None
    try:
        login = gh.get_user().login
    except (GithubException, requests.RequestException):
        return None
    return str(login) if login else None


# -- errors ----------------------------------------------------------------------------------------
def _message(e: GithubException) -> str:
    data = e.data if isinstance(e.data, Mapping) else {}
    text = str(data.get("message") or e.message or "").strip()
    details = []
    for err in data.get("errors") or []:
        if isinstance(err, Mapping):
            details.append(str(err.get("message") or " ".join(str(err.get(k, "")) for k in ("resource", "field", "code")).strip()))
        else:
            details.append(str(err))
    details = [d for d in details if d]
    if details:
        text = f"{text}: {'; '.join(details)}" if text else "; ".join(details)
    return text or "no message"


def translate(e: GithubException, action: str) -> GitHubError:
    """A GithubException as the one-line error a person can act on."""
    status, msg = e.status, _message(e)
    if status == 401:
        return GitHubError(f"{action}: GitHub rejected the token (401 {msg})", "pass a valid token in `github-token`")
    if status == 403 and ("rate limit" in msg.lower() or (e.headers or {}).get("x-ratelimit-remaining") == "0"):
        return GitHubError(f"{action}: GitHub's rate limit was hit (403 {msg})", "run the job again later")
    if status == 403:
        return ReadOnlyTokenError(f"{action}: the token may not write here (403 {msg})", PERMISSIONS_HINT)
    if status == 404:
        return GitHubError(
            f"{action}: not found (404 {msg})",
            "check the repository, pull request and branch names, and that the token can see the repository",
        )
    if status == 422:
        return GitHubError(f"{action}: GitHub refused the request (422 {msg})", "see GitHub's message above")
    return GitHubError(f"{action}: GitHub answered {status} ({msg})", "retry; if it persists see githubstatus.com")


@contextmanager
def _api(action: str) -> Iterator[None]:
    try:
        yield
    except GithubException as e:
        raise translate(e, action) from None
    except requests.RequestException as e:
        raise GitHubError(f"{action}: cannot reach the GitHub API ({type(e).__name__})", "check GITHUB_API_URL") from None


# -- the sticky comment -----------------------------------------------------------------------------
@dataclass(frozen=True)
class CommentResult:
    operation: Literal["created", "updated", "unchanged", "none"]
    id: int | None = None
    url: str | None = None


def _is_sticky(body: str | None, marker: str) -> bool:
    return (body or "").lstrip().startswith(marker)


def _login(comment: Any) -> str | None:
    user = getattr(comment, "user", None)
    return getattr(user, "login", None) if user is not None else None


def _written_by(comment: Any, author: str | None) -> bool:
    """By `author`; with no author known, by a bot (a person's comment is never taken over)."""
    login = _login(comment) or ""
    if author is not None:
        return login == author
    user = getattr(comment, "user", None)
    return login.endswith("[bot]") or getattr(user, "type", None) == "Bot"


def _same_text(a: str | None, b: str | None) -> bool:
    def norm(s: str | None) -> str:
        return (s or "").replace("\r\n", "\n").strip()

    return norm(a) == norm(b)


def find_sticky_comment(
    gh: Github, repo_name: str, number: int, *, marker: str = STICKY_MARKER, author: str | None = None
) -> Any | None:
    """The first comment on the pull request whose body starts with `marker`, written by `author`
    (None: by a bot), across every page: a person's comment quoting the marker is never taken over."""
    with _api(f"listing the comments of {repo_name}#{number}"):
        issue = gh.get_repo(repo_name).get_issue(number)
        for comment in issue.get_comments():
            if _is_sticky(comment.body, marker) and _written_by(comment, author):
                return comment
    return None


def upsert_sticky_comment(
    gh: Github,
    repo_name: str,
    number: int,
    body: str,
    *,
    create: bool = True,
    marker: str = STICKY_MARKER,
    author: str | None = None,
) -> CommentResult:
    """Edit the one sticky comment (by `author`, None: by a bot) to `body`; create it only when `create` (so an
    all-clear note is never a new comment); write nothing when it already says `body`."""
    if not _is_sticky(body, marker):
        raise GitHubError(f"the comment body must start with the marker {marker}")
    existing = find_sticky_comment(gh, repo_name, number, marker=marker, author=author)
    if existing is None:
        if not create:
            return CommentResult("none")
        with _api(f"commenting on {repo_name}#{number}"):
            comment = gh.get_repo(repo_name).get_issue(number).create_comment(body)
            return CommentResult("created", comment.id, comment.html_url)
    if _same_text(existing.body, body):
        return CommentResult("unchanged", existing.id, existing.html_url)
    with _api(f"editing comment {existing.id} on {repo_name}#{number}"):
        existing.edit(body)
        return CommentResult("updated", existing.id, existing.html_url)


# -- the refresh pull request --------------------------------------------------------------------------
@dataclass(frozen=True)
class OpenPull:
    number: int
    url: str
    body: str
    head_sha: str


@dataclass(frozen=True)
class PullResult:
    operation: Literal["created", "updated", "unchanged", "closed", "none"]
    number: int | None = None
    url: str | None = None
    commit: str | None = None


def check_paths(paths: Any) -> None:
    """Refuse a path the refresh must never write: workflows, absolute paths, `..`, `.git`."""
    for path in paths:
        parts = path.split("/")
        lowered = path.lower()
        if any(lowered.startswith(p) for p in FORBIDDEN_PREFIXES) or lowered.rstrip("/") == ".github/workflows":
            raise GitHubError(f"{path}: refusing to change a workflow file", "the refresh only writes the wiki directory")
        if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts) or ".git" in (p.lower() for p in parts):
            raise GitHubError(f"{path!r}: refusing to write this path", "paths must be relative, inside the repository")


def find_open_pull(gh: Github, repo_name: str, *, branch: str, base: str | None = None) -> OpenPull | None:
    """The open pull request from `branch` (into `base`), if any."""
    owner = repo_name.split("/", 1)[0]
    with _api(f"looking for an open pull request from {branch}"):
        kwargs: dict[str, str] = {"state": "open", "head": f"{owner}:{branch}"}
        if base:
            kwargs["base"] = base
        for pr in gh.get_repo(repo_name).get_pulls(**kwargs):
            return OpenPull(pr.number, pr.html_url, pr.body or "", pr.head.sha)
    return None


def same_as_pull(
    gh: Github,
    repo_name: str,
    pull: OpenPull,
    parent_sha: str,
    changes: Mapping[str, bytes | None],
    *,
    equivalent: Callable[[bytes, bytes], bool] | None = None,
) -> bool:
    """Does the open pull request already make exactly these changes (reads only)? Files whose
    blobs differ are compared with `equivalent` (e.g. ignoring timestamps)."""
    repo = gh.get_repo(repo_name)
    with _api(f"comparing {parent_sha[:12]} with pull request #{pull.number}"):
        files = repo.compare(parent_sha, pull.head_sha).files
        theirs: dict[str, str | None] = {}
        for f in files:
            if f.status == "renamed" and f.previous_filename:
                theirs[f.previous_filename] = None
            theirs[f.filename] = None if f.status == "removed" else f.sha
    if len(files) >= COMPARE_FILE_LIMIT or set(theirs) != set(changes):
        return False
    for path, data in changes.items():
        sha = theirs[path]
        if data is None or sha is None:
            if data is not None or sha is not None:
                return False
            continue
        if blob_id(data) == sha:  # the id the API reports for a file
            continue
        if equivalent is None:
            return False
        with _api(f"reading {path} on pull request #{pull.number}"):
            blob = repo.get_git_blob(sha)
            their_data = base64.b64decode(blob.content) if blob.encoding == "base64" else blob.content.encode("utf-8")
        if not equivalent(data, their_data):
            return False
    return True


def publish_pull(
    gh: Github,
    repo_name: str,
    *,
    base: str,
    branch: str,
    parent_sha: str,
    changes: Mapping[str, bytes | None],
    title: str,
    body: str,
    message: str,
    existing: OpenPull | None = None,
    close_if_empty: bool = False,
    equivalent: Callable[[bytes, bytes], bool] | None = None,
) -> PullResult:
    """Put `changes` (path -> bytes, None to delete) on `branch` as one commit on `parent_sha` and
    open the pull request into `base`, or update the open one (`existing`).

    Writes nothing when there are no changes (closes `existing` if `close_if_empty`), or when
    `existing` already makes the same changes."""
    if not branch or branch == base:
        raise GitHubError(f"the refresh branch {branch!r} must differ from the base branch {base!r}")
    check_paths(changes)
    repo = gh.get_repo(repo_name)
    if not changes:
        if existing is not None and close_if_empty:
            with _api(f"closing pull request #{existing.number}, which nothing needs any more"):
                repo.get_pull(existing.number).edit(state="closed")
            return PullResult("closed", existing.number, existing.url)
        return PullResult("none", existing.number if existing else None, existing.url if existing else None)
    if existing is not None and same_as_pull(gh, repo_name, existing, parent_sha, changes, equivalent=equivalent):
        return PullResult("unchanged", existing.number, existing.url, existing.head_sha)

    with _api(f"reading commit {parent_sha[:12]}"):
        parent = repo.get_git_commit(parent_sha)
    elements = []
    for path, data in sorted(changes.items()):
        if data is None:
            elements.append(InputGitTreeElement(path, FILE_MODE, "blob", sha=None))
            continue
        with _api(f"uploading {path}"):
            blob = repo.create_git_blob(base64.b64encode(data).decode("ascii"), "base64")
        elements.append(InputGitTreeElement(path, FILE_MODE, "blob", sha=blob.sha))
    with _api("writing the tree"):
        tree = repo.create_git_tree(elements, base_tree=parent.tree)
    with _api("writing the commit"):
        commit = repo.create_git_commit(message, tree, [parent])
    _move_branch(repo, branch, commit.sha)

    if existing is not None:
        with _api(f"updating pull request #{existing.number}"):
            repo.get_pull(existing.number).edit(title=title, body=body)
        return PullResult("updated", existing.number, existing.url, commit.sha)
    return open_pull(gh, repo_name, base=base, branch=branch, title=title, body=body, commit=commit.sha)


def open_pull(gh: Github, repo_name: str, *, base: str, branch: str, title: str, body: str, commit: str) -> PullResult:
    """Open the pull request from `branch` (already holding `commit`) into `base`."""
    action = f"opening a pull request from {branch} into {base}"
    try:
        pr = gh.get_repo(repo_name).create_pull(base=base, head=branch, title=title, body=body)
    except GithubException as e:
        error = translate(e, action)
        if e.status == 403 and "rate limit" not in error.message.lower():
            raise CreatePullForbiddenError(
                f"{action}: GitHub refused (403 {_message(e)}); the decisions are saved on the branch {branch}",
                CREATE_PR_SETTING_HINT + f"; the next run opens the pull request from {branch} without calling the model again",
            ) from None
        raise error from None
    except requests.RequestException as e:
        raise GitHubError(f"{action}: cannot reach the GitHub API ({type(e).__name__})", "check GITHUB_API_URL") from None
    return PullResult("created", pr.number, pr.html_url, commit)


@dataclass(frozen=True)
class BranchCommit:
    sha: str
    message: str
    parents: tuple[str, ...]

    @property
    def fingerprint(self) -> str | None:
        for line in reversed(self.message.splitlines()):
            if line.startswith(FINGERPRINT_TRAILER):
                return line.removeprefix(FINGERPRINT_TRAILER).strip()
        return None


def branch_commit(gh: Github, repo_name: str, branch: str) -> BranchCommit | None:
    """The commit the branch points at (None when there is no such branch)."""
    repo = gh.get_repo(repo_name)
    with _api(f"reading branch {branch}"):
        try:
            sha = repo.get_git_ref(f"heads/{branch}").object.sha
        except UnknownObjectException:
            return None
        commit = repo.get_git_commit(sha)
        return BranchCommit(sha, commit.message or "", tuple(p.sha for p in commit.parents))


def files_at(gh: Github, repo_name: str, parent_sha: str, head_sha: str) -> dict[str, bytes | None] | None:
    """The files `head_sha` changes relative to `parent_sha`, with their bytes at head (None:
    deleted); None when the comparison is too large to trust."""
    repo = gh.get_repo(repo_name)
    out: dict[str, bytes | None] = {}
    with _api(f"comparing {parent_sha[:12]} with {head_sha[:12]}"):
        files = repo.compare(parent_sha, head_sha).files
        if len(files) >= COMPARE_FILE_LIMIT:
            return None
        for f in files:
            if f.status == "removed":
                out[f.filename] = None
                continue
            blob = repo.get_git_blob(f.sha)
            out[f.filename] = base64.b64decode(blob.content) if blob.encoding == "base64" else blob.content.encode("utf-8")
    return out


def _move_branch(repo: Any, branch: str, sha: str) -> None:
    """Point `refs/heads/<branch>` at `sha`: force-move it when it exists (create-pull-request
    semantics: the branch is rebuilt on the base every time), else create it."""
    with _api(f"reading branch {branch}"):
        ref = repo.get_git_ref(f"heads/{branch}")
        try:
            ref.object  # noqa: B018 - completes the lazy ref: a GET, 404 when the branch is missing
        except UnknownObjectException:
            ref = None
    if ref is None:
        with _api(f"creating branch {branch}"):
            repo.create_git_ref(f"refs/heads/{branch}", sha)
        return
    with _api(f"moving branch {branch}"):
        ref.edit(sha, force=True)

