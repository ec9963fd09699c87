"""The HTML report in a real browser (headless Chromium) at 1280 and 390 pixels wide: the numbers
it shows are `check --format json`'s, and the page logs nothing to the console (no script, and
nothing its Content-Security-Policy had to refuse)."""

from __future__ import annotations

import json
import re

from tests.support.browser import DevTools, render
from tests.support.health_records import marked_history


def numbers_shown(dom: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r'id="count-([a-z]+)"><span class="n">(\d+)</span>', dom)}


def test_the_rendered_report_shows_checks_numbers_at_both_widths(wiki_repo, capsys, tmp_path):
    marked_history(wiki_repo)
    wiki_repo.write("src/app.py", wiki_repo.read("src/app.py").replace("line 20\n", "line twenty\n"))
    assert wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Line twenty is there.",
                         "--evidence", "repo://src/app.py#L20-L20") == 0
    wiki_repo.write("src/app.py", wiki_repo.read("src/app.py").replace("line twenty\n", "line 20\n"))
    capsys.readouterr()
    assert wiki_repo.run("check", "--format", "json") == 1
    summary = json.loads(capsys.readouterr().out)["summary"]
    page = tmp_path / "report.html"
    assert wiki_repo.run("report", "--html", str(page)) == 0
    for width in (1280, 390):
        dom, console = render(page, width)
        assert console == [], console
        shown = numbers_shown(dom)
        assert shown == {"claims": summary["total"], "fresh": summary["fresh"], "stale": summary["stale"],
                         "unresolved": summary["unresolved"], "due": summary["due"],
                         "policy": summary.get("policy_problems", 0)}, width
        assert shown["stale"] == 1 and "guide.md" in dom and "<svg" in dom and "Marks cleared" in dom


def test_a_console_error_is_seen(tmp_path):
    """The console check itself: a page that logs an error is caught."""
    page = tmp_path / "bad.html"
    page.write_text('<!doctype html><html><body><script>console.error("boom")</script></body></html>')
    _, console = render(page, 390)
    assert any('"boom"' in line for line in console)


def test_the_page_fits_a_phone_and_its_tables_scroll(wiki_repo, capsys, tmp_path):
    """At 390 px the page itself never scrolls sideways: only a wide table scrolls, in its box."""
    long_name = "a-page-with-a-rather-long-name-that-a-phone-cannot-show-on-one-line.md"
    wiki_repo.write(f".openwiki/{long_name}", "---\ntype: Reference\ntitle: Long\n---\n\n# Long\n\nLine ten says ten.\n")
    assert wiki_repo.run("claim", "add", "--page", long_name, "--statement", "Line ten says ten.",
                         "--evidence", "repo://src/app.py#L10-L10", "--by", "human:alice") == 0
    wiki_repo.commit_all("claim")
    page = tmp_path / "report.html"
    assert wiki_repo.run("report", "--html", str(page)) == 0
    browser = DevTools()
    try:
        for width in (390, 1280):
            tab = browser.layout(page, width)
            assert browser.evaluate(tab, "innerWidth") == width
            assert browser.evaluate(tab, "document.documentElement.scrollWidth") <= width, width
            assert browser.evaluate(tab, "document.querySelectorAll('svg title').length") > 0
        table_box = browser.evaluate(tab, "document.querySelector('#pages .scroll').scrollWidth")
        assert isinstance(table_box, int) and table_box > 0
        phone = browser.layout(page, 390)
        assert browser.evaluate(phone, "(e => e.scrollWidth > e.clientWidth)(document.querySelector('#pages .scroll'))")
    finally:
        browser.close()
