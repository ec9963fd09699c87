"""The Action's health report: `github comment` and `github refresh-pr` with `--report-html`
(as action.yml passes it) append the Markdown report to the job summary, write the HTML, and
name it in the `report-path` output; a report that cannot be written is a warning only."""

from __future__ import annotations

from tests.support.github_fake import edit_line, outputs, use_model, write_event
from tests.support.refresh_wiki import confirm, stale_wiki
from tests.support.scripted_refresher import ScriptedRefresher


def test_comment_mode_publishes_the_report(pr_repo, fake, actions_env, tmp_path) -> None:
    edit_line(pr_repo, 10, "line ten now says eleven")
    head = pr_repo.commit_all("change line 10")
    write_event(actions_env, pr_repo.base, head)
    page = tmp_path / "runner-temp" / "openwiki-git-report" / "index.html"
    assert pr_repo.run("github", "comment", "--report-html", str(page)) == 0
    out = outputs(actions_env["output"])
    assert out["report-path"] == str(page) and out["stale-count"] == "1"
    html = page.read_text("utf-8")
    assert html.startswith("<!doctype html>") and 'id="count-stale"><span class="n">1</span>' in html
    summary = actions_env["summary"].read_text("utf-8")
    assert "| 1 | stale |" in summary  # the comment's own table, then the health report
    assert "## Wiki health" in summary and "**1 claim** on 1 page: 0 fresh, 1 stale" in summary


def test_refresh_mode_reports_the_wiki_before_the_refresh(repo, fake, refresh_env, monkeypatch, tmp_path) -> None:
    claims = stale_wiki(repo, pages=1, per_page=2)
    use_model(monkeypatch, ScriptedRefresher([confirm(claims[0]), confirm(claims[1])]))
    page = tmp_path / "report.html"
    assert repo.run("github", "refresh-pr", "--report-html", str(page)) == 0
    out = outputs(refresh_env["output"])
    assert out["report-path"] == str(page) and out["pr-operation"] == "created"
    summary = refresh_env["summary"].read_text("utf-8")
    assert "## Wiki health" in summary and "0 fresh, 2 stale" in summary
    assert 'id="count-stale"><span class="n">2</span>' in page.read_text("utf-8")


def test_a_report_that_cannot_be_written_is_a_warning(pr_repo, fake, actions_env, tmp_path, capsys) -> None:
    edit_line(pr_repo, 10, "line ten now says eleven")
    head = pr_repo.commit_all("change line 10")
    write_event(actions_env, pr_repo.base, head)
    (tmp_path / "taken").mkdir()
    capsys.readouterr()
    assert pr_repo.run("github", "comment", "--report-html", str(tmp_path / "taken")) == 0
    assert "::warning title=openwiki-git: no health report::" in capsys.readouterr().out.replace("%3A", ":")
    assert "report-path" not in outputs(actions_env["output"])
    assert outputs(actions_env["output"])["stale-count"] == "1"
