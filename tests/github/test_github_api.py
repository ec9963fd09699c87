"""Every GitHub API interaction of github/api.py against `responses`: no network.

PyGithub sends requests to `https://<host>:443/...`; payload URLs (and Link headers) carry no port,
as GitHub's do.
"""

from __future__ import annotations

import base64

import github
import pytest
import responses
from responses import matchers

from openwiki_git.errors import GitHubError
from openwiki_git.git.repo import blob_id
from openwiki_git.github import api as github_api
from openwiki_git.github import render as ghactions
from openwiki_git.services import github_publish

API = "https://api.github.test"  # what payloads say
MOCK = API + ":443"  # what PyGithub requests
REPO = "octo/wiki"
R = f"{MOCK}/repos/{REPO}"
MARKER = github_api.STICKY_MARKER
PARENT = "a" * 40


@pytest.fixture
def gh() -> github.Github:
    return github_api.connect("t", base_url=API)  # exactly as production configures it


@pytest.fixture
def rs():
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


def comment(cid: int, body: str, login: str = "github-actions[bot]") -> dict:
    return {
        "id": cid,
        "body": body,
        "url": f"{API}/repos/{REPO}/issues/comments/{cid}",
        "html_url": f"https://github.com/{REPO}/pull/7#issuecomment-{cid}",
        "user": {"login": login, "type": "Bot"},
    }


def writes(rs: responses.RequestsMock) -> list[tuple[str, str]]:
    return [(c.request.method, c.request.url) for c in rs.calls if c.request.method != "GET"]


def test_the_marker_is_the_renderers_marker() -> None:
    assert github_api.STICKY_MARKER == ghactions.STICKY_MARKER == "<!-- openwiki-git:stale-claims -->"


# -- sticky comment --------------------------------------------------------------------------------
def test_comment_created_when_none_exists(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", json=[comment(1, "LGTM", "alice")])
    body = f"{MARKER}\nstale"
    rs.post(
        f"{R}/issues/7/comments",
        json=comment(99, body),
        status=201,
        match=[matchers.json_params_matcher({"body": body})],
    )
    result = github_api.upsert_sticky_comment(gh, REPO, 7, body)
    assert (result.operation, result.id) == ("created", 99)
    assert result.url.endswith("#issuecomment-99")


def test_comment_updated_in_place(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", json=[comment(1, "LGTM", "alice"), comment(5, f"{MARKER}\nold")])
    rs.patch(
        f"{R}/issues/comments/5",
        json=comment(5, f"{MARKER}\nnew"),
        match=[matchers.json_params_matcher({"body": f"{MARKER}\nnew"})],
    )
    result = github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nnew")
    assert (result.operation, result.id) == ("updated", 5)
    assert writes(rs) == [("PATCH", f"{R}/issues/comments/5")]


def test_comment_unchanged_is_a_no_op(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", json=[comment(5, f"{MARKER}\r\nsame\n")])
    result = github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nsame")
    assert result.operation == "unchanged"
    assert writes(rs) == []


def test_all_clear_never_creates_a_comment(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", json=[])
    result = github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nall fresh", create=False)
    assert result.operation == "none"
    assert writes(rs) == []


def test_sticky_comment_found_on_a_later_page(gh, rs) -> None:
    """Comments are paginated (Link: rel="next"); the marker is looked for on every page."""
    rs.get(
        f"{R}/issues/7/comments",
        json=[comment(i, f"comment {i}", "alice") for i in range(1, 4)],
        headers={"Link": f'<{API}/repositories/1/issues/7/comments?page=2>; rel="next", '
                 f'<{API}/repositories/1/issues/7/comments?page=3>; rel="last"'},
    )
    rs.get(
        f"{MOCK}/repositories/1/issues/7/comments?page=2",
        json=[comment(4, "> quoting\n> " + MARKER, "bob"), comment(5, "more", "bob")],
        headers={"Link": f'<{API}/repositories/1/issues/7/comments?page=3>; rel="next"'},
    )
    rs.get(f"{MOCK}/repositories/1/issues/7/comments?page=3", json=[comment(6, f"{MARKER}\nold")])
    rs.patch(f"{R}/issues/comments/6", json=comment(6, f"{MARKER}\nnew"))
    result = github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nnew")
    assert (result.operation, result.id) == ("updated", 6)  # not comment 4, which only quotes the marker


def test_a_forks_read_only_token_is_a_read_only_error(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", json=[])
    rs.post(
        f"{R}/issues/7/comments",
        status=403,
        json={"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com"},
    )
    with pytest.raises(github_api.ReadOnlyTokenError) as err:
        github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nstale")
    assert "403 Resource not accessible by integration" in err.value.message
    assert "fork" in err.value.hint


def test_rate_limit_403_is_not_mistaken_for_read_only(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", status=403, json={"message": "API rate limit exceeded for installation"})
    with pytest.raises(GitHubError) as err:
        github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nx")
    assert not isinstance(err.value, github_api.ReadOnlyTokenError)
    assert "rate limit" in err.value.message


def test_422_names_githubs_reason(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", json=[comment(5, f"{MARKER}\nold")])
    rs.patch(
        f"{R}/issues/comments/5",
        status=422,
        json={"message": "Validation Failed", "errors": [{"resource": "IssueComment", "code": "custom",
                                                         "field": "body", "message": "body is too long (maximum is 65536 characters)"}]},
    )
    with pytest.raises(GitHubError) as err:
        github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nnew")
    assert "422 Validation Failed: body is too long" in err.value.message
    assert "editing comment 5" in err.value.message


def test_404_and_401(gh, rs) -> None:
    rs.get(f"{R}/issues/7/comments", status=404, json={"message": "Not Found"})
    with pytest.raises(GitHubError, match="not found"):
        github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nx")
    rs.replace(responses.GET, f"{R}/issues/7/comments", status=401, json={"message": "Bad credentials"})
    with pytest.raises(GitHubError, match="rejected the token"):
        github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nx")


def test_body_without_marker_is_refused(gh, rs) -> None:
    with pytest.raises(GitHubError, match="marker"):
        github_api.upsert_sticky_comment(gh, REPO, 7, "no marker")


# -- refresh pull request -------------------------------------------------------------------------------
def pull(number: int = 12, body: str = "old body", head_sha: str = "c" * 40) -> dict:
    return {
        "number": number,
        "url": f"{API}/repos/{REPO}/pulls/{number}",
        "html_url": f"https://github.com/{REPO}/pull/{number}",
        "body": body,
        "state": "open",
        "head": {"sha": head_sha, "ref": "openwiki-git/refresh"},
        "base": {"ref": "main"},
    }


PAGE = b"# Guide\n\nRevised.\n"
SIDE = b'{"schemaVersion": 1, "verifiedAt": "2026-12-01T04:17:00Z"}\n'
CHANGES = {".openwiki/guide.md": PAGE, ".openwiki/.claims/guide.json": SIDE, ".openwiki/old.md": None}


def register_write_path(rs, *, ref_exists: bool = False) -> None:
    rs.get(
        f"{R}/git/commits/{PARENT}",
        json={"sha": PARENT, "url": f"{API}/repos/{REPO}/git/commits/{PARENT}",
              "tree": {"sha": "b" * 40, "url": f"{API}/repos/{REPO}/git/trees/{'b' * 40}"}, "parents": []},
    )
    for data in (SIDE, PAGE):  # sorted by path: .claims/guide.json, guide.md
        rs.post(
            f"{R}/git/blobs",
            json={"sha": blob_id(data), "url": "x"},
            status=201,
            match=[matchers.json_params_matcher({"content": base64.b64encode(data).decode(), "encoding": "base64"})],
        )
    rs.post(
        f"{R}/git/trees",
        status=201,
        json={"sha": "d" * 40, "url": f"{API}/repos/{REPO}/git/trees/{'d' * 40}", "tree": []},
        match=[matchers.json_params_matcher({
            "base_tree": "b" * 40,
            "tree": [
                {"path": ".openwiki/.claims/guide.json", "mode": "100644", "type": "blob", "sha": blob_id(SIDE)},
                {"path": ".openwiki/guide.md", "mode": "100644", "type": "blob", "sha": blob_id(PAGE)},
                {"path": ".openwiki/old.md", "mode": "100644", "type": "blob", "sha": None},
            ],
        })],
    )
    rs.post(
        f"{R}/git/commits",
        status=201,
        json={"sha": "e" * 40, "url": f"{API}/repos/{REPO}/git/commits/{'e' * 40}"},
        match=[matchers.json_params_matcher({"message": "msg", "tree": "d" * 40, "parents": [PARENT]})],
    )
    ref_url = f"{API}/repos/{REPO}/git/refs/heads/openwiki-git/refresh"
    if ref_exists:
        rs.get(
            f"{R}/git/ref/heads/openwiki-git/refresh",
            json={"ref": "refs/heads/openwiki-git/refresh", "url": ref_url, "object": {"sha": "c" * 40, "type": "commit"}},
        )
        rs.patch(
            f"{R}/git/refs/heads/openwiki-git/refresh",
            json={"ref": "refs/heads/openwiki-git/refresh", "url": ref_url, "object": {"sha": "e" * 40, "type": "commit"}},
            match=[matchers.json_params_matcher({"sha": "e" * 40, "force": True})],
        )
    else:
        rs.get(f"{R}/git/ref/heads/openwiki-git/refresh", status=404, json={"message": "Not Found"})
        rs.post(
            f"{R}/git/refs",
            status=201,
            json={"ref": "refs/heads/openwiki-git/refresh", "url": ref_url, "object": {"sha": "e" * 40}},
            match=[matchers.json_params_matcher({"ref": "refs/heads/openwiki-git/refresh", "sha": "e" * 40})],
        )


def publish(gh, existing=None, changes=CHANGES, **kw):
    return github_api.publish_pull(
        gh, REPO, base="main", branch="openwiki-git/refresh", parent_sha=PARENT, changes=changes,
        title="T", body="B", message="msg", existing=existing, **kw,
    )


def test_find_open_pull_asks_for_the_branch(gh, rs) -> None:
    rs.get(
        f"{R}/pulls",
        json=[pull()],
        match=[matchers.query_param_matcher({"state": "open", "head": "octo:openwiki-git/refresh", "base": "main"})],
    )
    found = github_api.find_open_pull(gh, REPO, branch="openwiki-git/refresh", base="main")
    assert found == github_api.OpenPull(12, f"https://github.com/{REPO}/pull/12", "old body", "c" * 40)


def test_find_open_pull_none(gh, rs) -> None:
    rs.get(f"{R}/pulls", json=[])
    assert github_api.find_open_pull(gh, REPO, branch="openwiki-git/refresh") is None


def test_pr_created_through_the_git_data_api(gh, rs) -> None:
    register_write_path(rs)
    rs.post(
        f"{R}/pulls",
        status=201,
        json=pull(13, "B", "e" * 40),
        match=[matchers.json_params_matcher({"base": "main", "head": "openwiki-git/refresh", "title": "T", "body": "B"})],
    )
    result = publish(gh)
    assert (result.operation, result.number, result.commit) == ("created", 13, "e" * 40)
    assert result.url == f"https://github.com/{REPO}/pull/13"


def test_pr_created_when_the_branch_is_left_from_a_closed_pr(gh, rs) -> None:
    register_write_path(rs, ref_exists=True)
    rs.post(f"{R}/pulls", status=201, json=pull(13, "B", "e" * 40))
    assert publish(gh).operation == "created"
    assert ("POST", f"{R}/git/refs") not in writes(rs)


def test_pr_updated_force_moves_the_branch_and_edits_the_body(gh, rs) -> None:
    existing = github_api.OpenPull(12, f"https://github.com/{REPO}/pull/12", "old", "c" * 40)
    rs.get(f"{R}/compare/{PARENT}...{'c' * 40}", json={"files": [
        {"filename": ".openwiki/guide.md", "status": "modified", "sha": "0" * 40},
    ]})
    register_write_path(rs, ref_exists=True)
    rs.patch(f"{R}/pulls/12", json=pull(12, "B", "e" * 40), match=[matchers.json_params_matcher({"title": "T", "body": "B"})])
    result = publish(gh, existing)
    assert (result.operation, result.number, result.commit) == ("updated", 12, "e" * 40)
    assert [m for m, _ in writes(rs)] == ["POST", "POST", "POST", "POST", "PATCH", "PATCH"]  # 2 blobs, tree, commit, ref, pull


def compare_files(changes: dict) -> list[dict]:
    out = []
    for path, data in changes.items():
        if data is None:
            out.append({"filename": path, "status": "removed", "sha": "f" * 40})
        else:
            out.append({"filename": path, "status": "modified", "sha": blob_id(data)})
    return out


def test_pr_no_op_when_the_open_pr_has_the_same_changes(gh, rs) -> None:
    existing = github_api.OpenPull(12, f"https://github.com/{REPO}/pull/12", "old", "c" * 40)
    rs.get(f"{R}/compare/{PARENT}...{'c' * 40}", json={"files": compare_files(CHANGES)})
    result = publish(gh, existing)
    assert result.operation == "unchanged"
    assert writes(rs) == []


def test_pr_no_op_when_only_timestamps_differ(gh, rs) -> None:
    """No churn: a rerun whose only difference is when it ran writes nothing."""
    older = SIDE.replace(b"2026-12-01T04:17:00Z", b"2026-11-30T04:17:00Z")
    theirs = dict(CHANGES, **{".openwiki/.claims/guide.json": older})
    existing = github_api.OpenPull(12, f"https://github.com/{REPO}/pull/12", "old", "c" * 40)
    rs.get(f"{R}/compare/{PARENT}...{'c' * 40}", json={"files": compare_files(theirs)})
    rs.get(
        f"{R}/git/blobs/{blob_id(older)}",
        json={"sha": blob_id(older), "encoding": "base64", "content": base64.b64encode(older).decode()},
    )
    same = lambda a, b: github_publish.without_timestamps(a) == github_publish.without_timestamps(b)  # noqa: E731
    assert publish(gh, existing, equivalent=same).operation == "unchanged"
    assert writes(rs) == []


def test_pr_not_equal_when_the_pr_touches_other_files(gh, rs) -> None:
    existing = github_api.OpenPull(12, "u", "old", "c" * 40)
    extra = compare_files(CHANGES) + [{"filename": ".openwiki/x.md", "status": "added", "sha": "1" * 40}]
    rs.get(f"{R}/compare/{PARENT}...{'c' * 40}", json={"files": extra})
    assert not github_api.same_as_pull(gh, REPO, existing, PARENT, CHANGES)


def test_nothing_changed_and_no_pr_makes_no_call(gh, rs) -> None:
    result = publish(gh, None, changes={})
    assert result.operation == "none"
    assert len(rs.calls) == 0  # not even a read


def test_pr_closed_when_nothing_needs_it_any_more(gh, rs) -> None:
    existing = github_api.OpenPull(12, f"https://github.com/{REPO}/pull/12", "old", "c" * 40)
    rs.patch(f"{R}/pulls/12", json=dict(pull(12), state="closed"), match=[matchers.json_params_matcher({"state": "closed"})])
    assert publish(gh, existing, changes={}, close_if_empty=True).operation == "closed"
    assert publish(gh, existing, changes={}, close_if_empty=False).operation == "none"
    assert len(writes(rs)) == 1


def test_pr_403_is_read_only(gh, rs) -> None:
    rs.get(
        f"{R}/git/commits/{PARENT}",
        json={"sha": PARENT, "url": "x", "tree": {"sha": "b" * 40, "url": "x"}, "parents": []},
    )
    rs.post(f"{R}/git/blobs", status=403, json={"message": "Resource not accessible by integration"})
    with pytest.raises(github_api.ReadOnlyTokenError, match="uploading .openwiki/guide.md"):
        publish(gh, changes={".openwiki/guide.md": PAGE})


def test_pr_422_when_github_refuses_the_pull(gh, rs) -> None:
    register_write_path(rs)
    rs.post(
        f"{R}/pulls",
        status=422,
        json={"message": "Validation Failed", "errors": [{"resource": "PullRequest", "code": "custom",
                                                         "message": "A pull request already exists for octo:openwiki-git/refresh."}]},
    )
    with pytest.raises(GitHubError, match="422 Validation Failed: A pull request already exists"):
        publish(gh)


@pytest.mark.parametrize(
    "path",
    [".github/workflows/ci.yml", ".GitHub/Workflows/x.yml", "../x", "/etc/passwd", "a/./b", ".git/config", ""],
)
def test_refuses_workflow_and_unsafe_paths_before_any_call(gh, rs, path) -> None:
    with pytest.raises(GitHubError, match="refusing"):
        publish(gh, changes={path: b"x"})
    assert len(rs.calls) == 0


def test_branch_must_differ_from_base(gh, rs) -> None:
    with pytest.raises(GitHubError, match="must differ"):
        github_api.publish_pull(gh, REPO, base="main", branch="main", parent_sha=PARENT, changes=CHANGES,
                                title="T", body="B", message="m")


def test_blob_id_matches_git() -> None:
    assert blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_connect_builds_a_lazy_client_for_the_given_api() -> None:
    client = github_api.connect("secret", base_url="https://ghe.example/api/v3/")
    assert isinstance(client, github.Github)
    assert client.requester.base_url == "https://ghe.example/api/v3"


def test_the_sticky_comment_is_found_by_marker_and_author(gh, rs) -> None:
    """A person's comment carrying the marker is never taken over: with no author known (GITHUB_TOKEN,
    App tokens) only a bot's comment counts; with an author, only that login's."""
    rs.get(f"{R}/issues/7/comments", json=[
        comment(1, f"{MARKER}\nI typed the marker", "mallory") | {"user": {"login": "mallory", "type": "User"}},
        comment(2, f"{MARKER}\nours", "wiki-app[bot]"),
    ])
    assert github_api.find_sticky_comment(gh, REPO, 7).id == 2
    assert github_api.find_sticky_comment(gh, REPO, 7, author="github-actions[bot]") is None
    assert github_api.find_sticky_comment(gh, REPO, 7, author="mallory").id == 1


def test_a_personal_token_writes_as_its_user(gh, rs) -> None:
    rs.get(f"{MOCK}/user", json={"login": "ada", "type": "User"})
    assert github_api.comment_author(gh, "ghp_" + "x" * 36) == "ada"
    assert github_api.comment_author(gh, "ghs_installation") is None  # no /user call for bot tokens
    assert len(rs.calls) == 1


def test_a_502_on_a_post_is_not_retried_but_a_get_is(gh, rs) -> None:
    """The production client (github_api.connect): idempotent reads retried, writes never."""
    rs.get(f"{R}/issues/7/comments", status=502, json={"message": "Bad Gateway"})
    rs.get(f"{R}/issues/7/comments", json=[])
    rs.post(f"{R}/issues/7/comments", status=502, json={"message": "Bad Gateway"})
    with pytest.raises(GitHubError, match="502"):
        github_api.upsert_sticky_comment(gh, REPO, 7, f"{MARKER}\nx")
    assert [c.request.method for c in rs.calls] == ["GET", "GET", "POST"]
