"""The health report's pure parts: numbers from a check report, the history walk, the renderers'
limits (Markdown under 60,000 characters at 10,000+ claims), and escaping."""

from __future__ import annotations

from openwiki_git.claims import trend
from openwiki_git.formats import sidecar as codec
from openwiki_git.github import health_html, health_markdown
from openwiki_git.model import Cause, Claim, Evidence, Mark, Sidecar
from tests.support.health_records import build, check_report, record

TOKEN = "repo-lines-v1:sha256:" + "a" * 64 + ":eyJ4Ijox"


def test_policy_problems_come_from_checks_summary_and_default_to_zero():
    claims = [record(1, "a.md")]
    assert build(check_report(claims))["summary"]["policy_problems"] == 0
    problem = {"claim_id": claims[0]["id"], "page": "a.md", "verified_by": "model:x", "rule": "human"}
    data = build({**check_report(claims, policy_problems=1), "policy_problems": [problem]})
    assert data["summary"]["policy_problems"] == 1 and data["policy_problems"] == [problem]
    assert "model:x" in health_html.render(data) and "model:x" in health_markdown.render(data)


def test_per_page_ages_and_verifiers():
    claims = [record(1, "a.md", "stale", since="2026-05-31T00:00:00Z"), record(2, "a.md", "stale", since="2026-05-30T00:00:00Z"),
              record(3, "a.md", due=True)]
    verifiers = {claims[0]["id"]: "human:al", claims[1]["id"]: "model:gpt", claims[2]["id"]: "openwiki-git/0.1"}
    data = build(check_report(claims), ["a.md", "b.md"], verifiers)
    page = data["pages"][0]
    assert page["oldest_mark_age_seconds"] == 2 * 86400 and page["stale"] == 2 and page["due"] == 1
    assert page["verified_by"] == {"human": 1, "agent": 0, "model": 1, "tool": 1, "none": 0}
    assert page["last_human_verified_at"] == "2026-05-01T00:00:00Z"
    assert data["pages_without_claims"] == ["b.md"] and [d["id"] for d in data["due"]] == [claims[2]["id"]]
    assert [h["path"] for h in data["hot_spots"]] == ["src/f1.py", "src/f2.py"]


def sidecar_bytes(page: str, marks: dict[str, Mark | None]) -> bytes:
    ev = (Evidence("repo://src/f.py#L1-L2", TOKEN),)
    claims = tuple(Claim(cid, "s", ev, mark=m) for cid, m in marks.items())
    return codec.dumps(Sidecar(page, "sha256:" + "0" * 64, claims)).encode("utf-8")


def test_walk_counts_claims_moving_between_sidecars_and_times_marks():
    mark = Mark("stale", "2026-01-01T00:00:00Z", (Cause("repo://src/hot.py#L1-L2", "changed"),))
    a, b = "claim_" + "a" * 32, "claim_" + "b" * 32
    snaps = [
        ("c0", 0, {"a.json": sidecar_bytes("a.md", {a: None, b: mark})}, True),  # b's mark: start unknown
        ("c1", 100, {"a.json": sidecar_bytes("a.md", {a: mark, b: mark})}, False),
        ("c2", 150, {}, False),
        ("c3", 400, {"a.json": None, "moved.json": sidecar_bytes("moved.md", {a: None, b: None})}, False),
        ("c4", 500, {"bad.json": b"{not json"}, False),
    ]
    h = trend.walk(snaps)
    assert [(p.commit, p.counts) for p in h.points] == [
        ("c0", {"fresh": 1, "stale": 1, "unresolved": 0}), ("c1", {"fresh": 0, "stale": 2, "unresolved": 0}),
        ("c2", {"fresh": 0, "stale": 2, "unresolved": 0}), ("c3", {"fresh": 2, "stale": 0, "unresolved": 0}),
        ("c4", {"fresh": 2, "stale": 0, "unresolved": 0})]
    assert h.waits == [300] and h.open_marks == {}
    assert set(h.marks_seen.values()) == {("src/hot.py",)}


def test_percentiles_are_linear_between_ranks():
    assert trend.percentile([], 0.5) is None
    assert trend.percentile([10], 0.9) == 10
    assert trend.percentile([1, 2, 3, 4], 0.5) == 2.5
    assert trend.percentile(list(range(1, 11)), 0.9) == 9.1
