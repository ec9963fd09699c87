"""A stateful fake of the GitHub REST API on `responses` (no network; every request recorded, so
"no API write" is checked exactly), the Actions runner's environment, and the pull request
repository the `github` commands are tested on."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import github
import pytest
import responses

from openwiki_git.cli.commands import github as github_cmd
from openwiki_git.git.repo import blob_id
from openwiki_git.github import api as github_api
from tests.support.scripted_refresher import ScriptedRefresher

API = "https://api.github.test"
MOCK = API + ":443"
REPO = "octo/wiki"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "github"
MARKER = "<!-- openwiki-git:stale-claims -->"


class FakeGitHub:
    """Just enough of GitHub's REST API, with state: issue comments (paginated), pulls, the Git
    Data API (blobs, trees, commits, refs) and compare."""

    def __init__(self, rs: responses.RequestsMock, *, page_size: int = 2, read_only: bool = False) -> None:
        self.rs = rs
        self.page_size = page_size
        self.read_only = read_only
        self.comments: list[dict[str, Any]] = []
        self.pulls: list[dict[str, Any]] = []
        self.blobs: dict[str, bytes] = {}
        self.trees: dict[str, dict[str, str | None]] = {}  # tree sha -> changes over its base tree
        self.commits: dict[str, dict[str, Any]] = {}
        self.refs: dict[str, str] = {}
        self.log: list[tuple[str, str]] = []
        self.failures: list[tuple[str, str, int, dict[str, Any]]] = []  # (method, path prefix, status, json)
        self._ids = iter(range(1001, 10**6))
        r = re.escape(f"{MOCK}/repos/{REPO}")
        routes = [
            ("GET", rf"{r}/issues/(\d+)/comments(\?.*)?$", self.list_comments),
            ("POST", rf"{r}/issues/(\d+)/comments$", self.create_comment),
            ("PATCH", rf"{r}/issues/comments/(\d+)$", self.edit_comment),
            ("GET", rf"{r}/pulls(\?.*)?$", self.list_pulls),
            ("POST", rf"{r}/pulls$", self.create_pull),
            ("PATCH", rf"{r}/pulls/(\d+)$", self.edit_pull),
            ("GET", rf"{r}/compare/(\w+)\.\.\.(\w+)$", self.compare),
            ("GET", rf"{r}/git/commits/(\w+)$", self.get_commit),
            ("POST", rf"{r}/git/commits$", self.create_commit),
            ("POST", rf"{r}/git/blobs$", self.create_blob),
            ("GET", rf"{r}/git/blobs/(\w+)$", self.get_blob),
            ("POST", rf"{r}/git/trees$", self.create_tree),
            ("GET", rf"{r}/git/ref/heads/(.+)$", self.get_ref),
            ("POST", rf"{r}/git/refs$", self.create_ref),
            ("PATCH", rf"{r}/git/refs/heads/(.+)$", self.edit_ref),
        ]
        rs.add_callback("GET", re.compile(re.escape(f"{MOCK}/user") + r"(\?.*)?$"), callback=self._user)
        for method, pattern, handler in routes:
            if not pattern.endswith(r"(\?.*)?$"):
                pattern = pattern.removesuffix("$") + r"(?:\?.*)?$"  # PyGithub may add ?page=1
            rs.add_callback(method, re.compile(pattern), callback=self._wrap(pattern, handler))

    # -- plumbing -------------------------------------------------------------------------------------
    def _wrap(self, pattern: str, handler: Any) -> Any:
        def callback(request: Any) -> tuple[int, dict[str, str], str]:
            path = request.url.removeprefix(f"{MOCK}/repos/{REPO}")
            self.log.append((request.method, path))
            for method, prefix, status, data in self.failures:
                if request.method == method and path.startswith(prefix):
                    return status, {"Content-Type": "application/json"}, json.dumps(data)
            m = re.match(pattern, request.url)
            body = json.loads(request.body) if request.body else None
            status, data, headers = handler(m, body)
            return status, {"Content-Type": "application/json", **headers}, json.dumps(data)

        return callback

    def _user(self, request: Any) -> tuple[int, dict[str, str], str]:
        # GITHUB_TOKEN and App installation tokens may not read /user.
        self.log.append((request.method, "/user"))
        return 403, {"Content-Type": "application/json"}, json.dumps({"message": "Resource not accessible by integration"})

    @property
    def writes(self) -> list[tuple[str, str]]:
        return [entry for entry in self.log if entry[0] != "GET"]

    def forbidden(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        return 403, {"message": "Resource not accessible by integration"}, {}

    # -- comments ---------------------------------------------------------------------------------------
    def _comment_json(self, c: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": c["id"],
            "body": c["body"],
            "url": f"{API}/repos/{REPO}/issues/comments/{c['id']}",
            "html_url": f"https://github.com/{REPO}/pull/{c['issue']}#issuecomment-{c['id']}",
            "user": {"login": c["user"], "type": "Bot" if c["user"].endswith("[bot]") else "User"},
        }

    def list_comments(self, m: re.Match[str], _body: Any) -> tuple[int, Any, dict[str, str]]:
        number = int(m.group(1))
        page = int(re.search(r"page=(\d+)", m.group(2) or "page=1").group(1))
        mine = [c for c in self.comments if c["issue"] == number]
        chunk = mine[(page - 1) * self.page_size : page * self.page_size]
        headers = {}
        if page * self.page_size < len(mine):
            headers["Link"] = f'<{API}/repos/{REPO}/issues/{number}/comments?page={page + 1}>; rel="next"'
        return 200, [self._comment_json(c) for c in chunk], headers

    def add_comment(self, number: int, body: str, user: str = "alice") -> dict[str, Any]:
        c = {"id": next(self._ids), "issue": number, "body": body, "user": user}
        self.comments.append(c)
        return c

    def create_comment(self, m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        if self.read_only:
            return self.forbidden()
        c = self.add_comment(int(m.group(1)), body["body"], "github-actions[bot]")
        return 201, self._comment_json(c), {}

    def edit_comment(self, m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        if self.read_only:
            return self.forbidden()
        c = next(c for c in self.comments if c["id"] == int(m.group(1)))
        c["body"] = body["body"]
        return 200, self._comment_json(c), {}

    def sticky(self, number: int = 7) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["issue"] == number and c["body"].startswith(MARKER)]

    # -- pulls ------------------------------------------------------------------------------------------
    def _pull_json(self, p: dict[str, Any]) -> dict[str, Any]:
        return {
            "number": p["number"],
            "url": f"{API}/repos/{REPO}/pulls/{p['number']}",
            "html_url": f"https://github.com/{REPO}/pull/{p['number']}",
            "state": p["state"],
            "title": p["title"],
            "body": p["body"],
            "head": {"ref": p["head"], "sha": self.refs.get(p["head"], "0" * 40)},
            "base": {"ref": p["base"]},
        }

    def list_pulls(self, m: re.Match[str], _body: Any) -> tuple[int, Any, dict[str, str]]:
        query = dict(re.findall(r"(\w+)=([^&]*)", (m.group(1) or "").replace("%3A", ":").replace("%2F", "/")))
        out = [
            self._pull_json(p)
            for p in self.pulls
            if p["state"] == query.get("state", "open")
            and ("head" not in query or query["head"] == f"octo:{p['head']}")
            and ("base" not in query or query["base"] == p["base"])
        ]
        return 200, out, {}

    def create_pull(self, _m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        if self.read_only:
            return self.forbidden()
        if any(p["head"] == body["head"] and p["state"] == "open" for p in self.pulls):
            return 422, {"message": "Validation Failed", "errors": [{"message": "A pull request already exists"}]}, {}
        p = {"number": 40 + len(self.pulls), "state": "open", "head": body["head"], "base": body["base"],
             "title": body["title"], "body": body["body"]}
        self.pulls.append(p)
        return 201, self._pull_json(p), {}

    def edit_pull(self, m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        p = next(p for p in self.pulls if p["number"] == int(m.group(1)))
        p.update({k: v for k, v in body.items() if k in ("title", "body", "state")})
        return 200, self._pull_json(p), {}

    # -- git data -----------------------------------------------------------------------------------------
    def get_commit(self, m: re.Match[str], _body: Any) -> tuple[int, Any, dict[str, str]]:
        sha = m.group(1)
        known = self.commits.get(sha, {})
        tree = known.get("tree", "7" * 40)  # a local commit: any tree id
        parents = [{"sha": p, "url": f"{API}/repos/{REPO}/git/commits/{p}"} for p in known.get("parents", [])]
        return 200, {"sha": sha, "url": f"{API}/repos/{REPO}/git/commits/{sha}", "message": known.get("message", ""),
                     "tree": {"sha": tree, "url": f"{API}/repos/{REPO}/git/trees/{tree}"}, "parents": parents}, {}

    def create_blob(self, _m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        data = base64.b64decode(body["content"])
        sha = blob_id(data)
        self.blobs[sha] = data
        return 201, {"sha": sha, "url": f"{API}/repos/{REPO}/git/blobs/{sha}"}, {}

    def get_blob(self, m: re.Match[str], _body: Any) -> tuple[int, Any, dict[str, str]]:
        data = self.blobs[m.group(1)]
        return 200, {"sha": m.group(1), "encoding": "base64", "content": base64.b64encode(data).decode()}, {}

    def create_tree(self, _m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        changes = {e["path"]: e.get("sha") for e in body["tree"]}
        sha = blob_id(json.dumps([body.get("base_tree"), sorted(changes.items())]).encode())
        self.trees[sha] = changes
        return 201, {"sha": sha, "url": f"{API}/repos/{REPO}/git/trees/{sha}", "tree": []}, {}

    def create_commit(self, _m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        sha = blob_id(json.dumps(body, sort_keys=True).encode())
        self.commits[sha] = {"tree": body["tree"], "parents": body["parents"], "message": body["message"]}
        return 201, {"sha": sha, "url": f"{API}/repos/{REPO}/git/commits/{sha}"}, {}

    def compare(self, m: re.Match[str], _body: Any) -> tuple[int, Any, dict[str, str]]:
        base, head = m.group(1), m.group(2)
        commit = self.commits[head]
        assert commit["parents"] == [base], "the fake compares a refresh commit with its parent only"
        files = [
            {"filename": path, "status": "removed" if sha is None else "modified", "sha": sha or "0" * 40}
            for path, sha in self.trees[commit["tree"]].items()
        ]
        return 200, {"status": "ahead", "files": files}, {}

    def _ref_json(self, branch: str) -> dict[str, Any]:
        return {"ref": f"refs/heads/{branch}", "url": f"{API}/repos/{REPO}/git/refs/heads/{branch}",
                "object": {"sha": self.refs[branch], "type": "commit"}}

    def get_ref(self, m: re.Match[str], _body: Any) -> tuple[int, Any, dict[str, str]]:
        branch = m.group(1)
        if branch not in self.refs:
            return 404, {"message": "Not Found"}, {}
        return 200, self._ref_json(branch), {}

    def create_ref(self, _m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        branch = body["ref"].removeprefix("refs/heads/")
        if branch in self.refs:
            return 422, {"message": "Reference already exists"}, {}
        self.refs[branch] = body["sha"]
        return 201, self._ref_json(branch), {}

    def edit_ref(self, m: re.Match[str], body: Any) -> tuple[int, Any, dict[str, str]]:
        assert body.get("force") is True
        self.refs[m.group(1)] = body["sha"]
        return 200, self._ref_json(m.group(1)), {}

    def branch_files(self, branch: str) -> dict[str, bytes | None]:
        commit = self.commits[self.refs[branch]]
        return {path: (None if sha is None else self.blobs[sha]) for path, sha in self.trees[commit["tree"]].items()}


# -- fixtures ---------------------------------------------------------------------------------------------
@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    production = github_api.connect

    def connect(token: str, *, base_url: str | None = None) -> github.Github:
        assert token == "ghs_test" and base_url == API
        return production(token, base_url=base_url)  # exactly as production configures it

    monkeypatch.setattr(github_api, "connect", connect)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rs:
        yield FakeGitHub(rs)


@pytest.fixture
def actions_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The runner's variables, and nothing left over from a real runner."""
    import os

    for name in list(os.environ):
        if name.startswith("GITHUB_"):
            monkeypatch.delenv(name)
    files = {"summary": tmp_path / "summary.md", "output": tmp_path / "output.txt", "event": tmp_path / "event.json"}
    for name, value in {
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_TOKEN": "ghs_test",
        "GITHUB_API_URL": API,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_STEP_SUMMARY": str(files["summary"]),
        "GITHUB_OUTPUT": str(files["output"]),
        "GITHUB_EVENT_PATH": str(files["event"]),
    }.items():
        monkeypatch.setenv(name, value)
    return files


def outputs(path: Path) -> dict[str, str]:
    """The last value of each output written to $GITHUB_OUTPUT."""
    out: dict[str, str] = {}
    for line in path.read_text("utf-8").splitlines() if path.exists() else []:
        name, _, value = line.partition("=")
        out[name] = value
    return out


def write_event(files: dict[str, Path], base: str, head: str, *, head_repo: str = REPO) -> None:
    text = (FIXTURES / "pull_request.json").read_text("utf-8")
    text = text.replace("BASE_SHA", base).replace("HEAD_SHA", head).replace("HEAD_REPO", head_repo)
    files["event"].write_text(text, "utf-8")


@pytest.fixture
def pr_repo(wiki_repo: Any) -> Any:
    """main: a claim citing src/app.py line 10; the PR branch `feature` checked out."""
    assert wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.",
                         "--evidence", "repo://src/app.py#L10-L10", "--by", "human:ada") == 0
    wiki_repo.base = wiki_repo.commit_all("claim")
    wiki_repo.git("checkout", "-q", "-b", "feature")
    return wiki_repo


def edit_line(repo: Any, line: int, text: str) -> None:
    lines = repo.read("src/app.py").splitlines(keepends=True)
    lines[line - 1] = text + "\n"
    repo.write("src/app.py", "".join(lines))


def claim_id(repo: Any) -> str:
    data = json.loads((repo.root / ".openwiki" / ".claims" / "guide.json").read_text("utf-8"))
    return data["claims"][0]["id"]


# -- github comment: the judged simulation ------------------------------------------------------------------


@pytest.fixture
def refresh_env(actions_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    actions_env["event"].write_text((FIXTURES / "schedule.json").read_text("utf-8"), "utf-8")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "schedule")
    monkeypatch.setenv("GITHUB_REF_NAME", "main")
    return actions_env


def use_model(monkeypatch: pytest.MonkeyPatch, model: ScriptedRefresher) -> None:
    monkeypatch.setattr(github_cmd, "new_refresher", lambda _args: model)
