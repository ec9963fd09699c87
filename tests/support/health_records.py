"""For the health report's tests: check-report records (claims/health.py, github/health_*.py),
and a real repository's history with one mark made and cleared at known commit times."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from openwiki_git.claims import health, trend

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def record(i: int, page: str, status: str = "fresh", *, due: bool = False, since: str | None = None) -> dict:
    c = {"id": f"claim_{i:032x}", "page": page, "page_path": f".openwiki/{page}", "statement": f"Claim {i} | <b>{i}</b>",
         "status": status, "due": due, "verified_at": "2026-05-01T00:00:00Z", "marker_present": True, "notes": [],
         "evidence": [{"resource": f"repo://src/f{i % 7}.py#L1-L2", "status": status, "current_resource": None, "reason": "x"}]}
    if since:
        c["mark"] = {"status": status, "since": since, "commit": None, "causes": []}
    return c


def check_report(claims: list[dict], **summary_extra: int) -> dict:
    summary = {"total": len(claims), **{s: sum(c["status"] == s for c in claims) for s in trend.STATUSES},
               "missing_markers": 0, "due": sum(c["due"] for c in claims), **summary_extra}
    return {"wiki_dir": ".openwiki", "claims": claims, "summary": summary}


def build(check: dict, pages: list[str] | None = None, verifiers: dict | None = None) -> dict:
    pages = pages if pages is not None else sorted({c["page"] for c in check["claims"]})
    return health.build(check, verifiers or {}, pages, trend.History(), now=NOW, head=None, link_base=None, since=None)


T0 = 1_767_225_600  # 2026-01-01T00:00:00Z


def commit_at(repo, message: str, seconds: int) -> str:
    """Commit everything with a known committer time (the clearing times are commit times)."""
    date = f"@{T0 + seconds} +0000"
    repo.git("add", "-A")
    repo.git("commit", "-q", "--allow-empty", "-m", message, env={"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date})
    return repo.git("rev-parse", "HEAD").strip()


def claim_id(repo) -> str:
    return json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]["id"]


def marked_history(repo) -> list[str]:
    """c0 the wiki, c1 a fresh claim, c2 its line changed (sidecar not yet marked), c3 the mark
    committed, c4 the claim confirmed by a person: one mark, waiting 3 hours (c3 to c4)."""
    commits = [commit_at(repo, "wiki", 0)]
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.",
                    "--evidence", "repo://src/app.py#L10-L10", "--by", "human:alice") == 0
    commits.append(commit_at(repo, "claim", 60))
    repo.write("src/app.py", repo.read("src/app.py").replace("line 10\n", "line ten\n"))
    commits.append(commit_at(repo, "change", 120))
    assert repo.run("check", "--fix") == 1
    commits.append(commit_at(repo, "mark", 3600))
    assert repo.run("claim", "confirm", claim_id(repo), "--by", "human:bob") == 0
    commits.append(commit_at(repo, "confirm", 3600 + 3 * 3600))
    return commits
