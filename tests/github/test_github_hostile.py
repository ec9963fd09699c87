# ruff: noqa: F811 - pytest fixtures imported from test_github_command
"""Hostile scenarios for the GitHub Action's two jobs, through the real code path: the stateful
fake GitHub REST API on `responses` (the client configured by `github_api.connect`, as in
production) and the OpenAI-compatible server on 127.0.0.1 (`tests/support/fake_openai_server.py`).

Config redirect, an endpoint that echoes the key, malformed 200s, 401/404/unreachable, a trickling
endpoint, the run deadline, a 502 on a POST, a person's comment carrying the marker, a 403 on
pull-request creation, and refreshes that must not churn."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from openwiki_git import redact
from openwiki_git.refresh import run as refresh_run
from tests.support.fake_openai_server import FakeOpenAI, Reply
from tests.support.github_fake import MARKER, edit_line, outputs, use_model, write_event
from tests.support.refresh_wiki import confirm, revise, stale_wiki
from tests.support.scripted_refresher import ScriptedRefresher

KEY = "sk-live-0123456789abcdefSECRET"
BRANCH = "openwiki-git/refresh"


@pytest.fixture(autouse=True)
def _clean_redaction() -> Any:
    redact._reset_for_tests()
    yield
    redact._reset_for_tests()


@pytest.fixture(autouse=True)
def _no_call_left_running() -> Any:
    """Calls abandoned at a deadline end once their server is gone: wait for them, so no thread
    outlives the test (graph_split, for one, will not fork while other threads run)."""
    import threading

    yield
    for thread in threading.enumerate():
        if thread.name.startswith("owg-refresh-"):
            thread.join(timeout=60)


@pytest.fixture
def model_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OWG_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return KEY


def published(capsys: Any, env: dict[str, Path], fake: Any) -> str:
    """Everything the job published: stdout, stderr, the step summary, the outputs, PR bodies,
    commit messages and comments."""
    cap = capsys.readouterr()
    parts = [cap.out, cap.err]
    for name in ("summary", "output"):
        if env[name].exists():
            parts.append(env[name].read_text("utf-8"))
    parts += [p["body"] for p in fake.pulls] + [c["message"] for c in fake.commits.values()]
    parts += [c["body"] for c in fake.comments]
    return "\n".join(parts)


def gh_refresh(repo: Any, server: FakeOpenAI, *extra: str) -> int:
    return repo.run(
        "github", "refresh-pr", "--base-url", server.base_url, "--api-key-env", "OWG_API_KEY", "--model", "m", *extra
    )


# -- secrets --------------------------------------------------------------------------------------------
def test_the_repository_config_cannot_redirect_the_endpoint_or_the_key(
    repo, fake, refresh_env, model_key, monkeypatch, capsys
) -> None:
    """A merged docs change points refresh.base_url at an attacker and api_key_env at GITHUB_TOKEN:
    under `github refresh-pr` both are ignored; the inputs decide."""
    gs = stale_wiki(repo, pages=1, per_page=1)
    with FakeOpenAI() as hostile, FakeOpenAI() as good:
        repo.write(
            ".openwiki/config.yml",
            repo.read(".openwiki/config.yml") + f"refresh:\n  base_url: {hostile.base_url}\n  api_key_env: GITHUB_TOKEN\n",
        )
        repo.commit_all("docs: tweak the refresher")
        good.enqueue(Reply(verdict=confirm(gs[0])))
        assert gh_refresh(repo, good) == 0
    assert hostile.requests == [] and len(good.requests) == 1
    assert good.headers[0]["authorization"] == f"Bearer {KEY}"
    assert fake.pulls and "1 confirmed" in fake.pulls[0]["body"]


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "GH_TOKEN", "github_token"])
def test_runner_credentials_are_refused_as_the_model_key(repo, fake, refresh_env, capsys, name) -> None:
    stale_wiki(repo, pages=1, per_page=1)
    with FakeOpenAI() as server:
        capsys.readouterr()
        assert repo.run("github", "refresh-pr", "--base-url", server.base_url, "--api-key-env", name) == 2
        assert repo.run("refresh", "--base-url", server.base_url, "--api-key-env", name) == 2
    assert server.requests == [] and fake.writes == []
    assert "never sent to a model endpoint" in capsys.readouterr().err


def test_an_endpoint_echoing_the_key_publishes_nothing_secret_and_exits_2(
    repo, fake, refresh_env, model_key, capsys
) -> None:
    """A 401 whose message quotes the key and the Authorization header; --base-url with userinfo."""
    stale_wiki(repo, pages=1, per_page=2)
    with FakeOpenAI() as server:
        server.enqueue(*[Reply(status=401, echo_key=True, error=f"Incorrect API key provided: {KEY}")] * 2)
        url = server.base_url.replace("http://", "http://deploy:hunter2pass@")
        capsys.readouterr()
        code = gh_refresh(repo, server, "--base-url", url)
    text = published(capsys, refresh_env, fake)
    assert code == 2
    assert KEY not in text and "hunter2pass" not in text and "ghs_test" not in text
    assert "refused the key (HTTP 401" in text and "::error" in text


def test_redact_masks_values_tokens_and_userinfo() -> None:
    redact.add_secret("my-registered-value")
    text = redact.redact(
        "a my-registered-value b ghp_0123456789abcdefghij github_pat_11AAAAAAAA_bbbbbbbbbbbbbbbb "
        "sk-proj-abcdefghijklmnop Authorization: Bearer abc.def.ghi https://u:p4ss@h.example/v1 the token budget"
    )
    for secret in ("my-registered-value", "ghp_0123", "github_pat_11", "sk-proj", "abc.def.ghi", "p4ss"):
        assert secret not in text
    assert "https://***@h.example/v1" in text and "the token budget" in text


# -- the model unusable or malformed --------------------------------------------------------------------------
@pytest.mark.parametrize("reply", [Reply(status=401, error="bad key"), Reply(status=404, error="no such model")])
def test_an_unusable_model_fails_the_job(repo, fake, refresh_env, model_key, capsys, reply) -> None:
    stale_wiki(repo, pages=1, per_page=3)
    with FakeOpenAI() as server:
        server.enqueue(*[reply] * 3)
        assert gh_refresh(repo, server, "--max-concurrency", "1") == 2
    assert len(server.requests) == 1  # the first refusal stops the run: no point asking again
    assert "the model cannot be used" in capsys.readouterr().out


def test_an_unreachable_endpoint_fails_the_job(repo, fake, refresh_env, model_key, capsys) -> None:
    stale_wiki(repo, pages=1, per_page=1)
    with FakeOpenAI() as server:
        url = server.base_url
    assert repo.run("github", "refresh-pr", "--base-url", url, "--api-key-env", "OWG_API_KEY") == 2
    out = capsys.readouterr().out
    assert "cannot reach http://127.0.0.1" in out


def test_malformed_200s_fail_one_claim_each_and_the_paid_decision_is_published(
    repo, fake, refresh_env, model_key, capsys
) -> None:
    gs = stale_wiki(repo, pages=1, per_page=3)
    with FakeOpenAI() as server:
        server.enqueue(
            Reply(verdict=confirm(gs[0])),
            Reply(raw={"id": "x", "object": "chat.completion", "choices": [], "model": "m"}),
            Reply(html="<html><body>Please log in</body></html>"),
        )
        code = gh_refresh(repo, server, "--max-concurrency", "1")
    assert code == 0  # not 3: the endpoint's fault, one claim at a time
    body = fake.pulls[0]["body"]
    assert "**1 confirmed, 0 revised, 0 retracted**, 2 left stale" in body
    assert body.count("not a chat completion") == 2 and "Please log in" not in body


def test_a_trickling_endpoint_cannot_hang_the_run(repo, fake, refresh_env, model_key, capsys) -> None:
    """One byte every 50 ms never trips a read timeout; --timeout is the deadline of the whole call."""
    gs = stale_wiki(repo, pages=1, per_page=2)
    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict=confirm(gs[0]), trickle=0.05), Reply(verdict=confirm(gs[1])))
        assert gh_refresh(repo, server, "--timeout", "1", "--max-concurrency", "1") == 0
    body = fake.pulls[0]["body"]
    assert "1 confirmed" in body and "no answer within 1s" in body


def test_the_run_deadline_publishes_what_was_decided(repo, fake, refresh_env, model_key, capsys) -> None:
    import threading

    gs = stale_wiki(repo, pages=1, per_page=3)
    never = threading.Event()
    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict=confirm(gs[0])), Reply(block=never))
        try:
            assert gh_refresh(repo, server, "--deadline", "2", "--max-concurrency", "1") == 0
        finally:
            never.set()
    body = fake.pulls[0]["body"]
    assert "1 confirmed" in body and "run's deadline" in body and len(server.requests) == 2


# -- GitHub: retries, the sticky comment, PR creation, churn --------------------------------------------------
def test_a_502_on_posting_the_comment_is_not_posted_twice(pr_repo, fake, actions_env, capsys) -> None:
    fake.failures.append(("POST", "/issues/7/comments", 502, {"message": "Bad Gateway"}))
    edit_line(pr_repo, 10, "changed")
    write_event(actions_env, pr_repo.base, pr_repo.commit_all("change"))
    assert pr_repo.run("github", "comment") == 2
    assert [w for w in fake.writes if w[0] == "POST"] == [("POST", "/issues/7/comments")]  # once, never re-sent
    assert "502" in capsys.readouterr().err
    assert "| 1 | stale |" in actions_env["summary"].read_text("utf-8")  # the summary was written first


def test_a_502_on_a_read_is_retried(pr_repo, fake, actions_env) -> None:
    edit_line(pr_repo, 10, "changed")
    write_event(actions_env, pr_repo.base, pr_repo.commit_all("change"))
    calls = {"n": 0}

    def flaky(request: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            return 502, {"Content-Type": "application/json"}, json.dumps({"message": "Bad Gateway"})
        return listing(request)

    listing = next(m.callback for m in fake.rs.registered() if m.method == "GET" and "comments" in str(m.url))
    for m in fake.rs.registered():
        if m.method == "GET" and "comments" in str(m.url):
            m.callback = flaky
    assert pr_repo.run("github", "comment") == 0
    assert calls["n"] == 2 and len(fake.sticky()) == 1


def test_a_persons_comment_with_the_marker_is_never_taken_over(pr_repo, fake, actions_env) -> None:
    hijack = fake.add_comment(7, f"{MARKER}\nI wrote this myself", "mallory")
    edit_line(pr_repo, 10, "changed")
    write_event(actions_env, pr_repo.base, pr_repo.commit_all("change"))
    assert pr_repo.run("github", "comment") == 0
    assert hijack["body"] == f"{MARKER}\nI wrote this myself"
    ours = [c for c in fake.sticky() if c["user"] == "github-actions[bot]"]
    assert len(ours) == 1 and "Line ten says ten." in ours[0]["body"]
    assert outputs(actions_env["output"])["comment-operation"] == "created"


def test_a_403_on_pr_creation_names_the_setting_and_keeps_the_paid_decisions(
    repo, fake, refresh_env, monkeypatch, capsys
) -> None:
    gs = stale_wiki(repo, pages=1, per_page=2)
    fake.failures.append(
        ("POST", "/pulls", 403, {"message": "GitHub Actions is not permitted to create or approve pull requests."})
    )
    model = ScriptedRefresher([confirm(gs[0]), revise(gs[1])])
    use_model(monkeypatch, model)
    assert repo.run("github", "refresh-pr") == 2
    out = capsys.readouterr().out
    assert "Allow GitHub Actions to create and approve pull requests" in out and "organization" in out
    assert "fork" not in out
    summary = refresh_env["summary"].read_text("utf-8")
    assert "1 confirmed, 1 revised" in summary and "saved on the branch" in summary
    assert outputs(refresh_env["output"])["pr-operation"] == "branch-only"
    assert BRANCH in fake.refs and fake.pulls == []

    # The next night, after the setting is fixed: the PR is opened from the branch, no model call.
    fake.failures.clear()
    repo.git("checkout", "-q", "--", ".")
    repo.git("clean", "-qfd")
    head = fake.refs[BRANCH]
    assert repo.run("github", "refresh-pr") == 0
    assert len(model.history) == 2 and fake.refs[BRANCH] == head
    assert len(fake.pulls) == 1 and "1 confirmed, 1 revised" in fake.pulls[0]["body"]
    assert outputs(refresh_env["output"])["pr-operation"] == "created"


def test_identical_decisions_at_another_time_do_not_churn_the_pr(repo, fake, refresh_env, monkeypatch) -> None:
    """The second run's timestamps differ (and so would pageVersion): the tree is kept, no commit,
    no force-push, no PR edit."""
    gs = stale_wiki(repo, pages=1, per_page=2)
    model = ScriptedRefresher([confirm(gs[0]), revise(gs[1])] * 2)
    use_model(monkeypatch, model)
    monkeypatch.setattr(refresh_run, "now_iso", lambda: "2026-12-01T04:17:03Z")
    assert repo.run("github", "refresh-pr") == 0
    head, writes = fake.refs[BRANCH], list(fake.writes)
    fake.pulls[0]["body"] = fake.pulls[0]["body"].replace("fingerprint=", "fingerprint=old")  # force a new run

    repo.git("checkout", "-q", "--", ".")
    repo.git("clean", "-qfd")
    monkeypatch.setattr(refresh_run, "now_iso", lambda: "2026-12-02T04:19:44Z")
    assert repo.run("github", "refresh-pr") == 0
    assert len(model.history) == 4  # the model was asked again and decided the same
    assert fake.refs[BRANCH] == head
    assert [w for w in fake.writes if w[0] == "PATCH"] == [w for w in writes if w[0] == "PATCH"]
    assert outputs(refresh_env["output"])["pr-operation"] == "unchanged"


def test_a_page_whose_decisions_did_not_change_keeps_its_bytes(repo, fake, refresh_env, monkeypatch) -> None:
    """Another page's decision changed, so the PR is updated; this page's files stay byte for byte
    as they were (its timestamps and pageVersion do not move)."""
    gs = stale_wiki(repo, pages=2, per_page=1)
    model = ScriptedRefresher([confirm(gs[0]), confirm(gs[1]), confirm(gs[0]), revise(gs[1])])
    use_model(monkeypatch, model)
    monkeypatch.setattr(refresh_run, "now_iso", lambda: "2026-12-01T04:17:03Z")
    assert repo.run("github", "refresh-pr") == 0
    first = fake.branch_files(BRANCH)
    fake.pulls[0]["body"] = fake.pulls[0]["body"].replace("fingerprint=", "fingerprint=old")

    repo.git("checkout", "-q", "--", ".")
    repo.git("clean", "-qfd")
    monkeypatch.setattr(refresh_run, "now_iso", lambda: "2026-12-02T04:19:44Z")
    assert repo.run("github", "refresh-pr") == 0
    second = fake.branch_files(BRANCH)
    assert outputs(refresh_env["output"])["pr-operation"] == "updated"
    for path in (".openwiki/topic0.md", ".openwiki/.claims/topic0.json"):
        assert second[path] == first[path]
    assert second[".openwiki/.claims/topic1.json"] != first[".openwiki/.claims/topic1.json"]
    assert b"2026-12-02" in second[".openwiki/.claims/topic1.json"]


def test_shallow_checkout_gets_the_fetch_depth_hint(pr_repo, fake, actions_env, capsys) -> None:
    edit_line(pr_repo, 10, "changed")
    head = pr_repo.commit_all("change")
    write_event(actions_env, "f" * 40, head)  # the base commit is not in the clone
    (pr_repo.root / ".git" / "shallow").write_text(head + "\n")
    assert pr_repo.run("github", "comment") == 2
    err = capsys.readouterr().err
    assert "shallow" in err and "fetch-depth: 0" in err
    assert re.search(r"hint: .*fetch-depth", err)


# -- sharded refresh ------------------------------------------------------------------------------------------
def test_two_shards_merged_into_one_pull_request(repo, fake, refresh_env, model_key, tmp_path, capsys) -> None:
    """Two matrix jobs refresh their shards' pages against the model endpoint; the final job merges
    their saved decisions and opens ONE pull request, without calling the model."""
    from tests.support.fake_openai_server import confirm_from_prompt

    gs = stale_wiki(repo, pages=4, per_page=2)
    outs = [tmp_path / "shard-1", tmp_path / "shard-2"]
    with FakeOpenAI(responder=lambda body: Reply(verdict=confirm_from_prompt(body))) as server:
        for i, out in enumerate(outs, 1):
            assert repo.run(
                "github", "refresh-shard", "--shard", f"{i}/2", "--out", str(out), "--base-url", server.base_url,
                "--api-key-env", "OWG_API_KEY", "--model", "m",
            ) == 0
            repo.git("checkout", "-q", "--", ".")  # every job starts from a clean checkout
            repo.git("clean", "-qfd")
        asked = len(server.requests)
        assert repo.run("github", "refresh-pr", "--from-shards", *map(str, outs), "--model", "m",
                        "--base-url", server.base_url) == 0
        assert len(server.requests) == asked == 8  # each claim once, by its shard
    files = fake.branch_files(BRANCH)
    assert fake.writes == [("POST", "/git/blobs")] * len(files) + [
        ("POST", "/git/trees"), ("POST", "/git/commits"), ("POST", "/git/refs"), ("POST", "/pulls"),
    ]
    assert len(fake.pulls) == 1 and "**8 confirmed, 0 revised, 0 retracted**" in fake.pulls[0]["body"]
    assert {f".openwiki/.claims/topic{p}.json" for p in range(4)} <= set(files)
    decided = [json.loads((o / "decisions.json").read_text())["decisions"] for o in outs]
    assert sorted(d["claim_id"] for ds in decided for d in ds) == sorted(g.claim_id for g in gs)
    assert all(ds for ds in decided)  # both shards had pages
    capsys.readouterr()
    assert repo.run("check") == 0  # the merged tree: every claim fresh


def test_shards_that_changed_one_sidecar_are_merged_claim_by_claim(repo, tmp_path) -> None:
    from openwiki_git.refresh import shards
    from openwiki_git.services.github_refresh import merge_sidecar
    from openwiki_git.store.workspace import Workspace

    gs = stale_wiki(repo, pages=1, per_page=2)
    path = ".openwiki/.claims/topic0.json"
    base = json.loads(repo.read(path))
    outs = []
    for n, g in enumerate(gs):
        data = json.loads(json.dumps(base))
        for c in data["claims"]:
            if c["id"] == g.claim_id:
                c["verifiedBy"] = f"model:shard{n}"
        out = tmp_path / f"s{n}"
        (out / "files" / ".openwiki" / ".claims").mkdir(parents=True)
        (out / "files" / path).write_text(json.dumps(data, indent=2) + "\n")
        (out / "decisions.json").write_text(json.dumps({"decisions": [{"claim_id": g.claim_id}], "totals": {}}))
        outs.append(out)
    ws = Workspace.open(repo.root)
    merged = shards.merge(ws, outs, lambda *parts: merge_sidecar(ws, *parts))
    by = {c["id"]: c["verifiedBy"] for c in json.loads(repo.read(path))["claims"]}
    assert by == {gs[0].claim_id: "model:shard0", gs[1].claim_id: "model:shard1"}
    assert len(merged["decisions"]) == 2 and merged["shards"] == 2
    # A file outside the wiki is refused before anything is written.
    (outs[0] / "files" / "src").mkdir()
    (outs[0] / "files" / "src" / "evil.py").write_text("x")
    with pytest.raises(Exception, match="outside the wiki directory"):
        shards.merge(ws, outs, lambda *parts: merge_sidecar(ws, *parts))


def test_refresh_pr_plan_calls_no_model_and_writes_nothing(repo, fake, refresh_env, monkeypatch, capsys) -> None:
    stale_wiki(repo, pages=1, per_page=2)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    before = repo.snapshot()
    with FakeOpenAI() as server:
        assert repo.run("github", "refresh-pr", "--plan", "--base-url", server.base_url) == 0
    assert server.requests == [] and fake.log == [] and repo.snapshot() == before
    summary = refresh_env["summary"].read_text("utf-8")
    assert "refresh plan (no model was called)" in summary and "2 claims would be sent" in summary
    assert summary.count("| yes | ~") == 2
