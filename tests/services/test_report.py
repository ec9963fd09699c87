"""`openwiki-git report` through the real CLI on real repositories: the numbers are check's, the
trend and clearing times come from the sidecars' history, bad input exits 2 writing nothing."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from openwiki_git.formats import schema
from tests.support.health_records import commit_at, marked_history


def run_json(repo, capsys, *args: str) -> dict:
    capsys.readouterr()
    assert repo.run(*args, "--format", "json") in (0, 1)
    return json.loads(capsys.readouterr().out)


def test_trend_and_clearing_come_from_the_sidecars_history(wiki_repo, capsys):
    commits = marked_history(wiki_repo)
    data = run_json(wiki_repo, capsys, "report")
    assert [p["commit"] for p in data["trend"]] == [wiki_repo.git("rev-parse", "HEAD~5").strip(), *commits]
    assert [(p["fresh"], p["stale"], p["unresolved"]) for p in data["trend"]] == [
        (0, 0, 0), (0, 0, 0), (1, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 0)]
    assert data["clearing"] == {"cleared": 1, "cleared_from_before": 0, "median_seconds": 3 * 3600.0,
                                "p90_seconds": 3 * 3600.0, "open": 0, "open_from_before": 0}
    assert data["hot_spots"] == [{"path": "src/app.py", "claims": 1, "url": "src/app.py"}]
    assert data["pages"][0]["verified_by"]["human"] == 1 and data["pages"][0]["last_human_verified_at"]
    Draft202012Validator(schema.load_schema("report")).validate(data)
    capsys.readouterr()
    assert wiki_repo.run("report", "--markdown") == 0
    first = data["trend"][0]["commit"][:7]
    assert (f"Marks cleared in the last 6 commits (since `{first}`): 1; they waited 3 h (median), 3 h (90th percentile); "
            "0 still open.") in capsys.readouterr().out


def test_the_trend_follows_a_wiki_moved_by_its_config(wiki_repo, capsys):
    commits = marked_history(wiki_repo)
    (wiki_repo.root / "docs").mkdir()
    wiki_repo.git("mv", ".openwiki/guide.md", "docs/guide.md")
    wiki_repo.git("mv", ".openwiki/.claims", "docs/.claims")
    config = wiki_repo.read(".openwiki/config.yml")
    assert "wiki_dir: .openwiki\n" in config
    wiki_repo.write(".openwiki/config.yml", config.replace("wiki_dir: .openwiki\n", "wiki_dir: docs\n"))
    commits.append(commit_at(wiki_repo, "move the wiki to docs/", 5 * 3600))
    data = run_json(wiki_repo, capsys, "report", "--history", "6")
    assert [p["commit"] for p in data["trend"]] == commits
    assert [(p["fresh"], p["stale"]) for p in data["trend"]] == [(0, 0), (1, 0), (1, 0), (0, 1), (1, 0), (1, 0)]
    assert data["clearing"]["cleared"] == 1  # the mark before the move, cleared before it
    capsys.readouterr()
    assert wiki_repo.run("report", "--history", "6", "--wiki-dir", "docs", "--format", "json") == 0  # as told: no following
    assert [p["fresh"] for p in json.loads(capsys.readouterr().out)["trend"]] == [0, 0, 0, 0, 0, 1]


def test_current_numbers_are_checks(wiki_repo, capsys):
    marked_history(wiki_repo)
    wiki_repo.write("src/app.py", wiki_repo.read("src/app.py").replace("line ten\n", "line 10 again\n"))
    wiki_repo.write(".openwiki/empty.md", "---\ntype: Reference\ntitle: Empty\n---\n\n# Empty\n")
    checked = run_json(wiki_repo, capsys, "check")
    data = run_json(wiki_repo, capsys, "report", "--history", "2")
    for key in ("fresh", "stale", "unresolved", "due", "missing_markers"):
        assert data["summary"][key] == checked["summary"][key], key
    assert data["summary"]["stale"] == 1 and data["summary"]["claims"] == len(checked["claims"])
    assert data["summary"]["policy_problems"] == checked["summary"].get("policy_problems", 0)
    assert data["pages_without_claims"] == ["empty.md"] and data["summary"]["pages"] == 2
    assert len(data["trend"]) == 2 and data["history"] == {"commits": 2, "since": None, "first": {
        "commit": data["trend"][0]["commit"], "time": data["trend"][0]["time"]}}
    Draft202012Validator(schema.load_schema("report")).validate(data)
    capsys.readouterr()
    assert wiki_repo.run("report", "--history", "1") == 0  # stale claims: still exit 0, a report is not a gate
    text = capsys.readouterr().out
    assert text.startswith("1 claim on 2 pages: 0 fresh, 1 stale, 0 unresolved") and "(last 1 commit)" in text


def test_since_starts_the_trend_at_that_commit(wiki_repo, capsys):
    commits = marked_history(wiki_repo)
    data = run_json(wiki_repo, capsys, "report", "--since", commits[2])
    assert [p["commit"] for p in data["trend"]] == commits[2:]
    assert data["history"]["since"] == commits[2]


def test_a_mark_open_at_the_windows_start_is_not_a_wait(wiki_repo, capsys):
    """Cleared in the window, marked before it: counted as cleared, apart, and said so; never a wait."""
    marked_history(wiki_repo)
    data = run_json(wiki_repo, capsys, "report", "--history", "2")  # the mark commit and the confirm
    assert data["clearing"]["cleared"] == 1 and data["clearing"]["cleared_from_before"] == 1
    assert data["clearing"]["median_seconds"] is None
    capsys.readouterr()
    assert wiki_repo.run("report", "--history", "2", "--markdown") == 0
    assert "Marks cleared in the last 2 commits (since `" in (text := capsys.readouterr().out)
    assert "): 1 (1 of them marked before the window, so their wait is not known); 0 still open." in text
    data = run_json(wiki_repo, capsys, "report", "--history", "1")
    assert data["clearing"]["open"] == 0 and [p["fresh"] for p in data["trend"]] == [1]


def test_html_and_markdown_escape_what_the_wiki_says(wiki_repo, capsys, tmp_path):
    page = "<img src=x onerror=alert(1)> & 'q'.md"
    wiki_repo.write(f".openwiki/{page}", "---\ntype: Reference\ntitle: Hostile\n---\n\n# Hostile\n\nLine ten says ten.\n")
    assert wiki_repo.run("claim", "add", "--page", page, "--statement", "Line ten says ten.",
                         "--evidence", "repo://src/app.py#L10-L10", "--by", "human:alice") == 0
    wiki_repo.commit_all("claim")
    out = tmp_path / "out" / "report.html"
    capsys.readouterr()
    assert wiki_repo.run("report", "--html", str(out), "--markdown") == 0
    markdown = capsys.readouterr().out
    html = out.read_text("utf-8")
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt; &amp; &#x27;q&#x27;.md" in html
    # in Markdown a page name is a code span, which GitHub shows as text, never as HTML
    assert "| `.openwiki/<img src=x onerror=alert(1)> & 'q'.md` |" in markdown
    assert "Content-Security-Policy" in html and "prefers-color-scheme:dark" in html
    assert 'id="count-fresh"><span class="n">1</span>' in html
    assert "## Wiki health" in markdown and "**1 claim** on 2 pages" in markdown


def test_github_origin_links_hot_spots_to_the_file_at_head(wiki_repo, capsys):
    wiki_repo.git("remote", "add", "origin", "git@github.com:acme/widgets.git")
    marked_history(wiki_repo)
    head = wiki_repo.git("rev-parse", "HEAD").strip()
    data = run_json(wiki_repo, capsys, "report")
    assert data["hot_spots"][0]["url"] == f"https://github.com/acme/widgets/blob/{head}/src/app.py"


def test_bad_input_exits_2_and_writes_nothing(wiki_repo, capsys, tmp_path):
    before = wiki_repo.snapshot()
    capsys.readouterr()
    assert wiki_repo.run("report", "--since", "no-such-rev") == 2
    assert "error:" in capsys.readouterr().err
    assert wiki_repo.run("report", "--history", "0") == 2
    (tmp_path / "dir.html").mkdir()
    assert wiki_repo.run("report", "--html", str(tmp_path / "dir.html")) == 2
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert wiki_repo.run("report", "--html", str(blocker / "report.html")) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
    assert wiki_repo.snapshot() == before and not list(Path(tmp_path).glob("**/*.tmp"))


def test_since_off_the_first_parent_line_is_bad_input(wiki_repo, capsys):
    wiki_repo.git("checkout", "-q", "-b", "side")
    side = commit_at(wiki_repo, "side", 10)
    wiki_repo.git("checkout", "-q", "main")
    commit_at(wiki_repo, "main", 20)
    wiki_repo.git("merge", "-q", "--no-ff", "-m", "merge", "side")
    capsys.readouterr()
    assert wiki_repo.run("report", "--since", side) == 2
    assert "first-parent" in capsys.readouterr().err
