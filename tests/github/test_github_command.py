"""`openwiki-git github comment` and `github refresh-pr` end to end: a `pull_request` event JSON
fixture, a real temporary git repository, and a stateful fake of the GitHub REST API on
`responses` (no network). Every request is recorded, so "no API write" is checked exactly."""

from __future__ import annotations

import pytest

from openwiki_git.github import api as github_api
from openwiki_git.services import github_publish
from tests.support.github_fake import REPO, edit_line, outputs, use_model, write_event
from tests.support.refresh_wiki import confirm, retract, revise, stale_wiki
from tests.support.scripted_refresher import ScriptedRefresher


def test_sticky_comment_lifecycle(pr_repo, fake, actions_env, capsys) -> None:
    """First run: exactly one comment. Second push: the same comment edited, no new one. After the
    fix: the comment says all claims are fresh."""
    fake.add_comment(7, "Looks good to me", "alice")
    fake.add_comment(7, "One question", "bob")
    fake.add_comment(7, "Answered", "alice")  # the sticky comment lands on page 2 (page size 2)

    edit_line(pr_repo, 10, "line ten now says eleven")
    head1 = pr_repo.commit_all("change line 10")
    write_event(actions_env, pr_repo.base, head1)
    capsys.readouterr()
    assert pr_repo.run("github", "comment") == 0
    out = capsys.readouterr().out
    assert len(fake.sticky()) == 1
    assert [m for m, _ in fake.writes] == ["POST"]
    body = fake.sticky()[0]["body"]
    assert "Line ten says ten." in body
    assert f"https://github.com/{REPO}/blob/{head1}/src/app.py#L10" in body
    assert f"https://github.com/{REPO}/blob/{head1}/.openwiki/guide.md" in body
    assert out.startswith("::warning file=src/app.py,line=10,endLine=10,title=Stale wiki claim c-")
    assert outputs(actions_env["output"])["stale-count"] == "1"
    assert outputs(actions_env["output"])["comment-operation"] == "created"
    summary = actions_env["summary"].read_text("utf-8")
    assert "| 1 | stale |" in summary and "Line ten says ten." in summary

    first_id = fake.sticky()[0]["id"]
    edit_line(pr_repo, 12, "line twelve changed too")  # a second push; line 10 is still changed
    head2 = pr_repo.commit_all("another push")
    write_event(actions_env, pr_repo.base, head2)
    assert pr_repo.run("github", "comment") == 0
    assert len(fake.sticky()) == 1 and fake.sticky()[0]["id"] == first_id
    assert [m for m, _ in fake.writes] == ["POST", "PATCH"]
    assert head2 in fake.sticky()[0]["body"]
    assert outputs(actions_env["output"])["comment-operation"] == "updated"

    assert pr_repo.run("github", "comment") == 0  # a re-run of the same commit writes nothing
    assert [m for m, _ in fake.writes] == ["POST", "PATCH"]
    assert outputs(actions_env["output"])["comment-operation"] == "unchanged"

    edit_line(pr_repo, 10, "line 10")  # the fix: the pull request no longer changes the cited line
    head3 = pr_repo.commit_all("restore line 10")
    write_event(actions_env, pr_repo.base, head3)
    capsys.readouterr()
    assert pr_repo.run("github", "comment", "--fail-on-stale") == 0
    assert len(fake.sticky()) == 1 and fake.sticky()[0]["id"] == first_id
    assert [m for m, _ in fake.writes] == ["POST", "PATCH", "PATCH"]
    final = fake.sticky()[0]["body"]
    assert "all claims are fresh" in final.lower() and "Line ten says ten." not in final
    assert "::warning" not in capsys.readouterr().out
    assert outputs(actions_env["output"])["stale-count"] == "0"
    assert len(fake.comments) == 4  # three people's comments and ours: never a second one


def test_no_comment_when_nothing_was_ever_stale(pr_repo, fake, actions_env) -> None:
    edit_line(pr_repo, 30, "line thirty, uncited")
    head = pr_repo.commit_all("unrelated change")
    write_event(actions_env, pr_repo.base, head)
    assert pr_repo.run("github", "comment", "--fail-on-stale") == 0
    assert fake.writes == [] and fake.comments == []
    assert outputs(actions_env["output"])["stale-count"] == "0"
    assert "All claims are fresh." in actions_env["summary"].read_text("utf-8")


def test_fork_read_only_token_degrades_to_the_summary(pr_repo, fake, actions_env, capsys) -> None:
    fake.read_only = True
    edit_line(pr_repo, 10, "changed by a fork")
    head = pr_repo.commit_all("fork change")
    write_event(actions_env, pr_repo.base, head, head_repo="mallory/wiki")
    capsys.readouterr()
    assert pr_repo.run("github", "comment") == 0  # does not fail the job
    out = capsys.readouterr().out
    assert fake.comments == []
    assert "::warning title=openwiki-git%3A no comment::" in out and "403" in out
    summary = actions_env["summary"].read_text("utf-8")
    assert "Line ten says ten." in summary and "read-only" in summary
    assert outputs(actions_env["output"])["comment-operation"] == "skipped"
    # fail-on-stale still fails on the stale claim itself
    assert pr_repo.run("github", "comment", "--fail-on-stale") == 1


def test_fail_on_stale(pr_repo, fake, actions_env) -> None:
    edit_line(pr_repo, 10, "changed")
    head = pr_repo.commit_all("change")
    write_event(actions_env, pr_repo.base, head)
    assert pr_repo.run("github", "comment", "--fail-on-stale") == 1
    assert len(fake.sticky()) == 1


def test_other_api_errors_exit_2_after_the_summary(pr_repo, fake, actions_env, capsys) -> None:
    fake.comments.clear()
    fake.failures.append(("GET", "/issues/7/comments", 404, {"message": "Not Found"}))
    edit_line(pr_repo, 10, "changed")
    head = pr_repo.commit_all("change")
    write_event(actions_env, pr_repo.base, head)
    capsys.readouterr()
    assert pr_repo.run("github", "comment") == 2
    err = capsys.readouterr().err
    assert "error: listing the comments of octo/wiki#7: not found (404 Not Found)" in err
    assert "Line ten says ten." in actions_env["summary"].read_text("utf-8")


def test_annotations_at_most_ten_then_a_notice(wiki_repo, fake, actions_env, capsys) -> None:
    wiki_repo.write(".openwiki/guide.md", wiki_repo.read(".openwiki/guide.md") + "".join(f"Line {n} is cited.\n" for n in range(1, 13)))
    for n in range(1, 13):  # twelve sentences, twelve claims (one claim per sentence)
        assert wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", f"Line {n} is cited.",
                             "--evidence", f"repo://src/app.py#L{n}-L{n}") == 0
    base = wiki_repo.commit_all("claims")
    wiki_repo.git("checkout", "-q", "-b", "feature")
    wiki_repo.write("src/app.py", "".join(f"LINE {i}\n" for i in range(1, 41)))
    head = wiki_repo.commit_all("rewrite every line")
    write_event(actions_env, base, head)
    capsys.readouterr()
    assert wiki_repo.run("github", "comment") == 0
    lines = capsys.readouterr().out.splitlines()
    warnings = [line for line in lines if line.startswith("::warning")]
    assert len(warnings) == 10
    assert "::notice title=openwiki-git::2 more in the job summary" in lines
    assert actions_env["summary"].read_text("utf-8").count("| stale |") == 12


def test_no_token_no_comment(pr_repo, fake, actions_env, monkeypatch, capsys) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    edit_line(pr_repo, 10, "changed")
    write_event(actions_env, pr_repo.base, pr_repo.commit_all("change"))
    capsys.readouterr()
    assert pr_repo.run("github", "comment") == 0
    assert fake.log == []
    assert "no GitHub token" in capsys.readouterr().out


def test_comment_needs_a_pull_request_or_base(pr_repo, actions_env, capsys) -> None:
    actions_env["event"].write_text('{"ref": "refs/heads/main"}', "utf-8")
    assert pr_repo.run("github", "comment") == 2
    assert "no base revision" in capsys.readouterr().err


# -- github refresh-pr --------------------------------------------------------------------------------------
def test_refresh_opens_one_pr_and_a_rerun_writes_nothing(repo, fake, refresh_env, monkeypatch) -> None:
    claims = stale_wiki(repo, pages=1, per_page=3)
    base = repo.git("rev-parse", "HEAD").strip()
    model = ScriptedRefresher([confirm(claims[0]), revise(claims[1]), retract(claims[2])])
    use_model(monkeypatch, model)

    assert repo.run("github", "refresh-pr") == 0
    assert len(fake.pulls) == 1
    pr = fake.pulls[0]
    assert (pr["head"], pr["base"], pr["state"]) == ("openwiki-git/refresh", "main", "open")
    assert fake.writes == [("POST", "/git/blobs")] * 2 + [
        ("POST", "/git/trees"), ("POST", "/git/commits"), ("POST", "/git/refs"), ("POST", "/pulls"),
    ]
    commit = fake.commits[fake.refs["openwiki-git/refresh"]]
    assert commit["parents"] == [base]
    files = fake.branch_files("openwiki-git/refresh")
    assert set(files) == {".openwiki/topic0.md", ".openwiki/.claims/topic0.json"}
    assert files[".openwiki/topic0.md"] == (repo.root / ".openwiki/topic0.md").read_bytes()
    assert claims[2].statement not in files[".openwiki/topic0.md"].decode()
    body = pr["body"]
    assert body.startswith("<!-- openwiki-git:refresh fingerprint=")
    assert "**1 confirmed, 1 revised, 1 retracted**" in body
    for title in ("### Revised", "### Retracted", "### Confirmed", "### Usage"):
        assert title in body
    assert claims[1].statement in body and "is now" in body
    out = outputs(refresh_env["output"])
    assert (out["pr-operation"], out["pr-number"]) == ("created", "40")
    assert out["pr-url"] == f"https://github.com/{REPO}/pull/40"
    assert len(model.history) == 3
    # The nightly refresh's cost in the open: the body, and the step's outputs.
    assert "The model decided 3 claims in 3 requests (one per sentence): 1.0 calls" in body
    assert "its first answer was accepted 3 times of 3 (100%), with 0 retries." in body
    assert (out["model-calls"], out["claims-decided"], out["first-accepted"], out["retries"]) == ("3", "3", "3", "0")

    # A rerun on the same runner's tree: nothing stale is left, the PR already has these changes.
    writes_before = list(fake.writes)
    assert repo.run("github", "refresh-pr") == 0
    assert fake.writes == writes_before and len(model.history) == 3
    assert outputs(refresh_env["output"])["pr-operation"] == "unchanged"

    # The next night, a fresh checkout of the same base: no new staleness, no model call, no write.
    repo.git("checkout", "-q", "--", ".")
    repo.git("clean", "-qfd")
    seen = len(fake.log)
    assert repo.run("github", "refresh-pr") == 0
    assert fake.writes == writes_before and len(model.history) == 3
    assert [(m, p.split("?")[0]) for m, p in fake.log[seen:]] == [("GET", "/pulls")]  # the fingerprint matched
    assert outputs(refresh_env["output"])["pr-operation"] == "unchanged"
    assert len(fake.pulls) == 1


def test_refresh_updates_the_open_pr_when_something_new_is_stale(repo, fake, refresh_env, monkeypatch) -> None:
    claims = stale_wiki(repo, pages=2, per_page=1)
    model = ScriptedRefresher([confirm(claims[0])])
    use_model(monkeypatch, model)
    assert repo.run("github", "refresh-pr", "--max-claims", "1") == 0
    assert len(fake.pulls) == 1 and fake.pulls[0]["state"] == "open"
    first_head = fake.refs["openwiki-git/refresh"]
    assert "1 left stale" in fake.pulls[0]["body"]

    repo.git("checkout", "-q", "--", ".")
    model.enqueue(confirm(claims[0]), confirm(claims[1]))
    assert repo.run("github", "refresh-pr") == 0
    assert len(fake.pulls) == 1
    assert fake.refs["openwiki-git/refresh"] != first_head
    assert ("PATCH", "/git/refs/heads/openwiki-git/refresh") in fake.writes
    assert ("PATCH", f"/pulls/{fake.pulls[0]['number']}") in fake.writes
    assert "**2 confirmed, 0 revised, 0 retracted**" in fake.pulls[0]["body"]
    assert outputs(refresh_env["output"])["pr-operation"] == "updated"


def test_refresh_with_nothing_stale_makes_no_pr(wiki_repo, fake, refresh_env, monkeypatch) -> None:
    use_model(monkeypatch, ScriptedRefresher([]))
    assert wiki_repo.run("github", "refresh-pr") == 0
    assert fake.writes == [] and fake.pulls == []
    assert outputs(refresh_env["output"])["pr-operation"] == "none"
    assert "Nothing to refresh" in refresh_env["summary"].read_text("utf-8")


def test_refresh_closes_the_pr_nothing_needs(wiki_repo, fake, refresh_env, monkeypatch) -> None:
    fake.refs["openwiki-git/refresh"] = "c" * 40
    fake.pulls.append({"number": 41, "state": "open", "head": "openwiki-git/refresh", "base": "main",
                       "title": "t", "body": "<!-- openwiki-git:refresh fingerprint=old -->"})
    use_model(monkeypatch, ScriptedRefresher([]))
    assert wiki_repo.run("github", "refresh-pr") == 0
    assert fake.writes == [("PATCH", "/pulls/41")] and fake.pulls[0]["state"] == "closed"
    assert outputs(refresh_env["output"])["pr-operation"] == "closed"


def test_refresh_refuses_a_branch_equal_to_the_base(wiki_repo, fake, refresh_env, capsys) -> None:
    assert wiki_repo.run("github", "refresh-pr", "--branch", "main") == 2
    assert "--branch 'main'" in capsys.readouterr().err
    assert fake.log == []


def test_refresh_without_token_is_a_usage_error(wiki_repo, refresh_env, monkeypatch, capsys) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    assert wiki_repo.run("github", "refresh-pr") == 2
    assert "GITHUB_TOKEN is not set" in capsys.readouterr().err


def test_refresh_read_only_token_fails_with_the_permissions_hint(repo, fake, refresh_env, monkeypatch, capsys) -> None:
    claims = stale_wiki(repo, pages=1, per_page=1)
    fake.failures.append(("POST", "/git/blobs", 403, {"message": "Resource not accessible by integration"}))
    use_model(monkeypatch, ScriptedRefresher([confirm(claims[0])]))
    assert repo.run("github", "refresh-pr") == 2
    err = capsys.readouterr().err
    assert "403 Resource not accessible by integration" in err and "contents: write" in err


def test_wiki_changes_never_include_workflows(repo, monkeypatch) -> None:
    """The refresh commits the wiki directory only; a workflow path is refused outright."""
    from openwiki_git.store.workspace import Workspace

    stale_wiki(repo, pages=1, per_page=1)
    repo.write(".github/workflows/ci.yml", "on: push\n")
    repo.write("src/mod0.py", "changed outside the wiki\n")
    ws = Workspace.open(repo.root)
    assert github_publish.wiki_changes(ws) == {}
    repo.write(".openwiki/new.md", "# New\n")
    assert github_publish.wiki_changes(ws) == {".openwiki/new.md": b"# New\n"}
    with pytest.raises(Exception, match="workflow"):
        github_api.check_paths([".github/workflows/ci.yml"])


def test_no_comment_flag_and_push_events_make_no_api_call(pr_repo, fake, actions_env, capsys) -> None:
    edit_line(pr_repo, 10, "changed")
    head = pr_repo.commit_all("change")
    write_event(actions_env, pr_repo.base, head)
    capsys.readouterr()
    assert pr_repo.run("github", "comment", "--no-comment") == 0
    assert fake.log == [] and "::notice" not in capsys.readouterr().out
    actions_env["event"].write_text('{"ref": "refs/heads/feature"}', "utf-8")  # a push: no pull request
    assert pr_repo.run("github", "comment", "--base", pr_repo.base) == 0
    assert fake.log == []
    assert "No pull request in this event" in actions_env["summary"].read_text("utf-8")
    assert outputs(actions_env["output"])["stale-count"] == "1"


def test_print_shows_the_posted_comment_without_github(pr_repo, fake, actions_env, monkeypatch, capsys) -> None:
    """`--print` prints exactly the body `github comment` posts, and makes no API call, writes no
    output or summary; outside Actions (no GITHUB_* at all) it needs only --base."""
    edit_line(pr_repo, 10, "line ten now says eleven")
    head = pr_repo.commit_all("change line 10")
    write_event(actions_env, pr_repo.base, head)
    capsys.readouterr()
    assert pr_repo.run("github", "comment", "--print", "--fail-on-stale") == 1
    printed = capsys.readouterr().out
    assert fake.log == [] and not actions_env["output"].exists() and not actions_env["summary"].exists()
    assert pr_repo.run("github", "comment") == 0
    assert printed.strip() == fake.sticky()[0]["body"].strip()

    import os

    for name in [n for n in os.environ if n.startswith("GITHUB_")]:
        monkeypatch.delenv(name)
    capsys.readouterr()
    assert pr_repo.run("github", "comment", "--print", "--base", pr_repo.base) == 0
    out = capsys.readouterr().out
    assert "Line ten says ten." in out and f"https://github.com/OWNER/REPO/blob/{head}/src/app.py#L10" in out
    edit_line(pr_repo, 10, "line 10")
    pr_repo.commit_all("restore line 10")
    assert pr_repo.run("github", "comment", "--print", "--base", pr_repo.base, "--fail-on-stale") == 0
    assert "all claims are fresh" in capsys.readouterr().out.lower()

def test_comment_folds_each_claims_verified_to_now_diff_and_says_how_to_clear(pr_repo, fake, actions_env, capsys) -> None:
    """Issue 22 item 4: the claim named by its page label, its diff in a collapsed <details>
    block (read from the recorded blob, at the pull request's head), and how to clear it."""
    from tests.support.github_fake import claim_id

    edit_line(pr_repo, 10, "line ten now says eleven")
    head = pr_repo.commit_all("change line 10")
    write_event(actions_env, pr_repo.base, head)
    assert pr_repo.run("github", "comment") == 0
    body = fake.sticky()[0]["body"]
    label = "c-" + claim_id(pr_repo)[6:14]
    assert f"`{label}`" in body and claim_id(pr_repo) not in body
    assert "<details><summary>diff of src/app.py#L10: as verified → now</summary>" in body
    assert "```diff\n@@ L10-L10 now (L10-L10 as verified) @@\n-    10 | line 10\n+    10 | line ten now says eleven\n```" in body
    assert body.index("</details>") < body.index("**How to clear them**: in a checkout of this branch run `openwiki-git review`")
    assert "`claims_for_change` and `verify_claim` tools of `openwiki-git mcp`" in body
    summary = actions_env["summary"].read_text("utf-8")
    assert f"`{label}`" in summary and claim_id(pr_repo) not in summary and "**How to clear them**" in summary
