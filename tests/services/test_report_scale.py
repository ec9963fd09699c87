"""The report's open claims at two hundred marks (issue 36 item 4), rendered by headless
Chromium: every claim `check --format json` finds stale, unresolved or due is a row with its page
linked, its statement, the age of its mark and its cause; oldest mark first, and the sort buttons
(radio buttons and CSS order, no script) put the newest first or group by page. The JSON lists
the same claims; the Markdown lists what fits its bound and says where the rest are."""

from __future__ import annotations

import json
import re

from tests.support import many_marks
from tests.support.browser import DevTools, render

ROWS = "[...document.querySelectorAll('#open tbody tr')]"
SHOWN_ORDER = f"{ROWS}.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).map(r => r.id)"
OLD = "2026-11-01T09:00:00Z"  # the marks of f0's ten claims, set a month before the others'


def _marked(repo, capsys) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """190 claims stale (annotations), 10 unresolved (f19 gone), f0's marks the oldest; committed."""
    many_marks.annotate(repo)
    repo.write("src/api.py", repo.read("src/api.py").split("def f19(")[0])
    repo.git("add", "-A")
    assert repo.run("hook") == 1
    sidecar = json.loads(repo.read(".openwiki/.claims/api.json"))
    for c in sidecar["claims"]:
        if c["statement"].startswith("`f0()`"):
            c["mark"]["since"] = OLD
    repo.write(".openwiki/.claims/api.json", json.dumps(sidecar, indent=2) + "\n")
    repo.commit_all("annotations, f19 gone")
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1
    return json.loads(capsys.readouterr().out)


def test_every_open_claim_is_a_row_oldest_first_and_the_buttons_sort_them(many_marks_repo, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = many_marks_repo
    checked = _marked(repo, capsys)
    wanted = {c["id"] for c in checked["claims"] if c["status"] != "fresh" or c["due"]}
    assert len(wanted) == 200 and checked["summary"]["unresolved"] == 10
    page = tmp_path / "out" / "report.html"
    assert repo.run("report", "--html", str(page)) == 0
    capsys.readouterr()
    assert repo.run("report", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in data["open"]} == wanted
    assert [r["cause"]["kind"] for r in data["open"][:10]] == ["annotations changed"] * 10  # f0's, the oldest
    assert {r["cause"]["kind"] for r in data["open"] if r["status"] == "unresolved"} == {"cited code gone"}

    _, console = render(page, 1280)
    assert console == []  # nothing refused by the page's Content-Security-Policy, no script
    browser = DevTools()
    try:
        for width in (1280, 390):
            tab = browser.layout(page, width)
            assert browser.evaluate(tab, "document.documentElement.scrollWidth") <= width  # only the table scrolls
            rows = browser.evaluate(tab, f"{ROWS}.map(r => r.id)")
            assert isinstance(rows, list) and {r.removeprefix("open-") for r in rows} == wanted
            cells = browser.evaluate(tab, f"{ROWS}.map(r => [...r.cells].map(c => c.innerText))")
            links = browser.evaluate(tab, f"{ROWS}.map(r => r.querySelector('a').getAttribute('href'))")
            assert isinstance(cells, list) and isinstance(links, list)
            by_id = {r["id"]: r for r in data["open"]}
            for row_id, row, href in zip(rows, cells, links, strict=True):
                record = by_id[row_id.removeprefix("open-")]
                assert row[1] == record["status"] and row[4] == record["statement"] and row[3] == record["label"]
                assert row[2] == f".openwiki/api.md:{record['line']}" and href == "../repo/.openwiki/api.md"
                assert row[5].startswith(record["cause"]["kind"])
            oldest = browser.evaluate(tab, SHOWN_ORDER)
            assert isinstance(oldest, list) and all("`f0()`" in by_id[r.removeprefix("open-")]["statement"] for r in oldest[:10])
            browser.evaluate(tab, "document.getElementById('sort-newest').click()")
            newest = browser.evaluate(tab, SHOWN_ORDER)
            assert newest == list(reversed(oldest))
            browser.evaluate(tab, "document.getElementById('sort-page').click()")
            by_page = browser.evaluate(tab, SHOWN_ORDER)
            lines = [by_id[r.removeprefix("open-")]["line"] for r in by_page]  # type: ignore[union-attr]
            assert lines == sorted(lines)
    finally:
        browser.close()

    capsys.readouterr()
    assert repo.run("report", "--markdown") == 0
    markdown = capsys.readouterr().out
    assert len(markdown) <= 60_000 and "### Open claims (200): stale, unresolved or due, oldest mark first" in markdown
    listed = {cid for cid in wanted if f"`c-{cid.removeprefix('claim_')[:8]}`" in markdown}
    more = re.search(r"…and (\d+) more: `openwiki-git report --format json`", markdown)
    assert len(listed) + (int(more.group(1)) if more else 0) == 200
