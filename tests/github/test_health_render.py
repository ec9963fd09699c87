"""The health report rendered: Markdown under 60,000 characters at 10,000+ claims, the long tail
summarised, untrusted text escaped in Markdown and HTML, the sparkline."""

from __future__ import annotations

import json

from openwiki_git.claims import health
from openwiki_git.github import health_html, health_markdown
from tests.support.health_records import build, check_report, record


def test_markdown_stays_under_the_limit_at_10000_claims():
    claims = [record(i, f"section-{i % 400}/page-{i % 2000}.md", "stale" if i % 3 else "fresh", due=i % 5 == 0,
                     since="2026-05-01T00:00:00Z" if i % 3 else None) for i in range(10_500)]
    pages = sorted({c["page"] for c in claims}) + [f"empty-{i}.md" for i in range(3000)]
    broken = [{"page": "p.md", "page_path": ".openwiki/p.md", "line": i + 1, "reference": f"`f{i}`", "kind": "symbol",
               "statement": "s", "reason": "names nothing"} for i in range(2000)]
    data = build({**check_report(claims), "broken_references": broken}, pages)
    data["trend"] = [{"commit": f"{i:040x}", "time": i, "fresh": i, "stale": 200 - i, "unresolved": 0} for i in range(200)]
    text = health_markdown.render(data)
    assert len(text) <= health_markdown.LIMIT and "…and 1975 more pages" in text and "- …and 1985 more" in text
    assert "<b>" not in text
    page = health_html.render(data)
    assert "<b>" not in page and "and 2500 more" in page and "and 1500 more" in page
    json.dumps(data)  # the numbers are JSON as they are


def test_sparkline_scales_from_zero():
    assert health_markdown.sparkline([0, 0]) == "▁▁"
    assert health_markdown.sparkline([0, 4, 8]) == "▁▅█"
    assert health.duration(None) == "n/a" and health.duration(5400) == "1.5 h" and health.duration(3 * 86400) == "3 d"
