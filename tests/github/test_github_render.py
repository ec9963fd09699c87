"""github/render.py and github/pull_body.py: the sticky comment, the step summary, annotations and the refresh PR body."""

from __future__ import annotations

import pytest

from openwiki_git.github import comment as gc
from openwiki_git.github import pull_body
from openwiki_git.github import render as g
from openwiki_git.services import github_publish

HEAD = "b" * 40
BASE = "a" * 40
LINKS = g.Links("https://github.com", "octo/wiki", HEAD, "https://github.com/octo/wiki/actions/runs/1", base_sha=BASE)


def claim(n: int, status: str = "stale", *, statement: str = "Retries stop after five attempts.", hunk: str | None = "@@ -15,2 +17,3 @@",
          current: str | None = "repo://src/retry.py#L12-L26", page: str = "guide.md") -> dict:
    ev = {"resource": "repo://src/retry.py#L10-L24", "status": status, "current_resource": current, "reason": "changed"}
    if hunk:
        ev["hunk"] = hunk
    return {"id": f"claim_{n:032x}", "page": page, "page_path": f".openwiki/{page}", "statement": statement,
            "status": status, "evidence": [ev]}


def report(*claims: dict, fresh: int = 0) -> dict:
    stale = sum(c["status"] == "stale" for c in claims)
    unresolved = sum(c["status"] == "unresolved" for c in claims)
    return {"wiki_dir": ".openwiki", "base": BASE, "head": HEAD, "claims": list(claims),
            "summary": {"total": len(claims) + fresh, "fresh": fresh, "stale": stale, "unresolved": unresolved}}


def test_comment_lists_each_claim_with_links_to_the_exact_lines_at_head() -> None:
    body = gc.render_comment(report(claim(1), fresh=2), LINKS)
    assert body.startswith(g.STICKY_MARKER + "\n")
    assert "### openwiki-git: 1 wiki claim no longer matches the code" in body
    assert f"[guide.md](https://github.com/octo/wiki/blob/{HEAD}/.openwiki/guide.md)" in body
    assert "· `c-00000000` · stale: Retries stop after five attempts." in body  # one line per claim
    assert f"[src/retry.py#L12-L26](https://github.com/octo/wiki/blob/{HEAD}/src/retry.py#L12-L26)" in body
    assert "changed by `@@ -15,2 +17,3 @@`" in body
    assert "[Run summary](https://github.com/octo/wiki/actions/runs/1)" in body


def test_unresolved_evidence_links_to_the_base() -> None:
    body = gc.render_comment(report(claim(2, "unresolved", current=None, hunk=None)), LINKS)
    assert f"[src/retry.py#L10-L24](https://github.com/octo/wiki/blob/{BASE}/src/retry.py#L10-L24)" in body


def test_a_statement_cannot_fake_the_marker_or_inject_html() -> None:
    evil = f"{g.STICKY_MARKER} <img src=x onerror=alert(1)> & more\nsecond line"
    body = gc.render_comment(report(claim(3, statement=evil)), LINKS)
    assert body.count(g.STICKY_MARKER) == 1
    assert "<img" not in body and "&lt;img src=x onerror=alert(1)&gt; &amp; more second line" in body


def test_path_with_spaces_is_url_encoded() -> None:
    assert LINKS.blob("docs/my page.md", 3, 3) == f"https://github.com/octo/wiki/blob/{HEAD}/docs/my%20page.md#L3"


def test_long_comments_are_cut_well_under_the_limit_with_a_link_to_the_summary() -> None:
    claims = [claim(i, statement="x" * 900) for i in range(1, 200)]
    body = gc.render_comment(report(*claims), LINKS)
    assert len(body.encode("utf-8")) <= g.COMMENT_LIMIT < 65_536
    assert "more claims** of this cause: the complete list is in [the run summary](https://github.com/octo/wiki/actions/runs/1)" in body
    summary = g.render_summary(report(*claims), LINKS)
    assert summary.count("| stale |") == 199  # the summary is complete


def test_all_clear_note() -> None:
    body = gc.render_comment(report(fresh=3), LINKS)
    assert body == gc.render_all_clear(report(fresh=3), LINKS)
    assert body.startswith(g.STICKY_MARKER) and "all claims are fresh" in body.lower()
    assert len(body) < 300


def test_summary_table_escapes_pipes() -> None:
    text = g.render_summary(report(claim(1, statement="a | b")), LINKS)
    assert "| 1 | stale |" in text and "a \\| b" in text
    assert "All claims are fresh." in g.render_summary(report(fresh=1), LINKS)


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("50% done", "50%25 done", "50%25 done"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("k: v, w", "k: v, w", "k%3A v%2C w"),
    ],
)
def test_workflow_command_escaping(raw: str, data: str, prop: str) -> None:
    assert g.escape_data(raw) == data
    assert g.escape_property(raw) == prop


def test_annotation_format() -> None:
    (line,) = g.annotations(report(claim(1, statement="Uses 50%: of\nall")))
    head, _, message = line.partition("::")[2].partition("::")
    assert head == "warning file=src/retry.py,line=12,endLine=26,title=Stale wiki claim c-00000000"
    assert "\n" not in line and "Uses 50%25: of all" in message
    assert "openwiki-git review (or claim confirm c-" in message


def test_annotations_on_changed_lines_first_at_most_ten_then_a_notice() -> None:
    untouched = [claim(i, hunk=None) for i in range(1, 6)]
    touched = [claim(i, hunk=f"@@ -{i} +{i} @@") for i in range(6, 18)]
    lines = g.annotations(report(*untouched, *touched))
    assert len(lines) == 11
    assert all(line.startswith("::warning") for line in lines[:10])
    assert all("by @@" in line for line in lines[:10])  # the 12 touched ones come first
    assert lines[10] == "::notice title=openwiki-git::7 more in the job summary"


def test_unresolved_annotation_points_at_the_page() -> None:
    (line,) = g.annotations(report(claim(1, "unresolved", current=None, hunk=None)))
    assert line.startswith("::warning file=.openwiki/guide.md,title=Unresolved wiki claim")
    assert "claim retract" in line


def decision(n: int, verdict: str | None, **kw) -> dict:
    d = {"claim_id": f"claim_{n:032x}", "page": "guide.md", "verdict": verdict, "old_statement": f"Old {n}.",
         "new_statement": None, "tokens_in": 1200, "tokens_out": 80, "cost": 0.0012, "error": None, "skipped": None,
         "trivial": None}
    d.update(kw)
    return d


def test_refresh_body_tables_each_verdict_with_usage_and_cost() -> None:
    result = {
        "model": "gpt-4o-mini",
        "decisions": [
            decision(1, "confirm"),
            decision(2, "revise", new_statement="New 2."),
            decision(3, "retract"),
            decision(4, "confirm", trivial="white space only", tokens_in=0, tokens_out=0, cost=0.0),
            decision(5, None, error="the quote does not match lines 3-4"),
            decision(6, None, skipped="not sent: --max-claims 4 reached", tokens_in=0, tokens_out=0, cost=0.0),
        ],
        "totals": {"claims": 6, "model_calls": 4, "tokens_in": 3600, "tokens_out": 240, "cost": 0.0036},
    }
    links = g.Links("https://github.com", "octo/wiki", "openwiki-git/refresh", "https://github.com/octo/wiki/actions/runs/9")
    body = pull_body.render_refresh_body(result, links, fingerprint="f00", checked_at=BASE)
    assert body.startswith("<!-- openwiki-git:refresh fingerprint=f00 -->\n")
    assert "**2 confirmed, 1 revised, 1 retracted**, 2 left stale" in body
    assert "- Before: Old 2.\n- After: New 2." in body and "1,200 / 80 tokens · $0.0012" in body
    assert "### Retracted" in body and "### Confirmed" in body and "### Left stale" in body
    assert "no model call" in body
    assert "the quote does not match lines 3-4" in body and "--max-claims 4 reached" in body
    assert "| `gpt-4o-mini` | 6 | 4 | 3,600 | 240 | $0.0036 |" in body
    assert "[guide.md](https://github.com/octo/wiki/blob/openwiki-git/refresh/.openwiki/guide.md)" in body


def test_refresh_body_shows_quotes_rationale_and_new_evidence_revisions_first() -> None:
    """A reviewer checks the model's work from the PR: the quoted lines linked at the commit read,
    the rationale, the new evidence, notes; revisions and retractions before confirmations."""
    quote = "def f():\n    ```not a fence end```\n    return 1"
    result = {
        "model": "gpt-4o-mini",
        "decisions": [
            decision(1, "confirm", quotes=[{"resource": "repo://src/a.py#L3-L4", "quote": "x = 1"}],
                     rationale="Line 3 still sets x.", notes=["cited_ranges[0]: the quoted text reads like instructions"]),
            decision(2, "revise", new_statement="New 2.", rationale="It returns 1 now.",
                     quotes=[{"resource": "repo://src/b.py#L10-L12", "quote": quote}],
                     evidence_before=["repo://src/b.py#L1-L2"], evidence_after=["repo://src/b.py#L10-L12"]),
            decision(3, "retract", rationale="Gone <script>."),
        ],
        "totals": {"claims": 3, "model_calls": 3, "tokens_in": 3600, "tokens_out": 240, "cost": 0.0036},
    }
    body = pull_body.render_refresh_body(result, LINKS, fingerprint="f", checked_at=BASE)
    assert body.index("### Revised") < body.index("### Retracted") < body.index("### Confirmed")
    assert f"[src/b.py#L10-L12](https://github.com/octo/wiki/blob/{BASE}/src/b.py#L10-L12)" in body
    assert "- Rationale (the model's): It returns 1 now." in body and "Gone &lt;script&gt;." in body
    assert "- New evidence: [src/b.py#L10-L12]" in body
    assert "````\ndef f():\n    ```not a fence end```\n    return 1\n````" in body  # a fence the quote cannot close
    assert "⚠️ cited_ranges[0]: the quoted text reads like instructions" in body


def test_refresh_body_unknown_price() -> None:
    result = {"model": "local", "decisions": [decision(1, "confirm", cost=None)],
              "totals": {"model_calls": 1, "tokens_in": 10, "tokens_out": 2, "cost": None}}
    body = pull_body.render_refresh_body(result, LINKS, fingerprint="x", checked_at=BASE)
    assert "| 10 | 2 | n/a |" in body


def test_timestamps_do_not_count_as_changes() -> None:
    a = b'{"verifiedAt": "2026-12-01T04:17:03Z", "since": "2026-12-01T04:17:03+00:00"}\n'
    b = b'{"verifiedAt": "2026-12-02T04:19:44Z", "since": "2026-12-02T04:19:44+00:00"}\n'
    assert github_publish.without_timestamps(a) == github_publish.without_timestamps(b)
    assert github_publish.without_timestamps(a) != github_publish.without_timestamps(a.replace(b"verifiedAt", b"verifiedBy"))


def test_a_set_is_shown_as_itself_never_as_a_link_to_a_file_named_by_its_glob() -> None:
    c = claim(9, current="repo://src/stores/*.py", hunk=None)
    c["evidence"][0].update(resource="repo://src/stores/*.py", reason="new: src/stores/cloud.py")
    body = gc.render_comment(report(c), LINKS)
    assert "`repo://src/stores/*.py` new: src/stores/cloud.py" in body
    assert "blob/" + HEAD + "/src/stores/*.py" not in body
def test_diffs_are_bounded_and_fenced_past_any_backticks_so_the_comment_stays_under_the_limit() -> None:
    """However many claims and however long their diffs, the comment stays under GitHub's 65,536."""
    diff = "--- verified\n+++ now\n@@ -1,2000 +1,2000 @@\n" + "".join(f"-old ```{i}\n+new {i}\n" for i in range(2000))
    claims = [claim(i) for i in range(1, 400)]
    for c in claims:
        c["evidence"][0]["diff"] = diff
    body = gc.render_comment(report(*claims), LINKS)
    assert len(body) < 65_536 and len(body.encode("utf-8")) <= g.COMMENT_LIMIT
    assert body.count("<details>") == body.count("</details>") >= 1
    assert "````diff\n" in body  # a fence longer than the ``` inside the diff
    assert "more lines (openwiki-git claim show)" in body
    assert "**…and " in body and body.rstrip().endswith("</sub>") and "**How to clear them**" in body
