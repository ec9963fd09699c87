"""`reverify_after` by kind (issue 22 item 5): a mapping of page glob or OKF `type:` to a
duration, with a default. The first glob that matches, in the order written, wins; then the
page's type; then `default`. Through the real CLI (`check --format json`, the check cache, and
`refresh --due`'s selection), and the pure resolution."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from openwiki_git.claims.due import ReverifyAfter, page_glob
from openwiki_git.store.config import Config

CONFIG = ".openwiki/config.yml"
MAPPING = 'reverify_after:\n  "runbooks/**": 30d\n  Decision: 365d\n  default: 90d\n'


def test_page_globs() -> None:
    assert page_glob("runbooks/**").match("runbooks/a.md") and page_glob("runbooks/**").match("runbooks/x/y.md")
    assert not page_glob("runbooks/**").match("guide.md") and not page_glob("runbooks/*").match("runbooks/x/y.md")
    assert page_glob("**/ops.md").match("ops.md") and page_glob("**/ops.md").match("a/b/ops.md")
    assert page_glob("a?.md").match("ab.md") and not page_glob("a?.md").match("a/.md")


def test_precedence_glob_in_order_then_type_then_default() -> None:
    config = Config(reverify_after={"runbooks/**": "30d", "runbooks/old/**": "1d", "Decision": "365d", "default": "90d"})
    policy = config.reverify_policy
    assert isinstance(policy, ReverifyAfter)
    decision = "---\ntype: Decision\ntitle: D\n---\n\nText.\n"
    assert policy.for_page("runbooks/old/a.md", decision) == 30 * 86400  # the first glob written wins, over the type
    assert policy.for_page("adr/a.md", decision) == 365 * 86400
    assert policy.for_page("guide.md", "# Guide\n") == 90 * 86400
    assert Config(reverify_after={"Decision": "2w"}).reverify_policy.for_page("guide.md", None) is None  # type: ignore[union-attr]
    assert Config(reverify_after="12h").reverify_policy.for_page("any.md", None) == 12 * 3600  # type: ignore[union-attr]
    assert Config().reverify_policy is None


def _wiki(repo, capsys, days_ago: int) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Three pages (a runbook, a Decision, a guide), one claim each, verified `days_ago` days ago."""
    repo.write("src/app.py", "".join(f"line {i}\n" for i in range(1, 41)))
    assert repo.run("init") == 0
    pages = {
        "runbooks/deploy.md": "---\ntype: Decision\ntitle: Deploy\n---\n\nDeploy is line one.\n",
        "adr/choice.md": "---\ntype: Decision\ntitle: Choice\n---\n\nChoice is line two.\n",
        "guide.md": "---\ntype: Reference\ntitle: Guide\n---\n\nGuide is line three.\n",
    }
    repo.commit_all("code")
    ids = {}
    for n, (page, text) in enumerate(pages.items(), 1):
        repo.write(f".openwiki/{page}", text)
        sentence = text.rsplit("\n\n", 1)[1].strip()
        capsys.readouterr()
        assert repo.run("claim", "add", "--page", page, "--statement", sentence, "--evidence", f"repo://src/app.py#L{n}-L{n}") == 0
        ids[page] = capsys.readouterr().out.split()[0]
    when = (datetime.now(UTC) - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for page in pages:
        path = f".openwiki/.claims/{page.removesuffix('.md')}.json"
        data = json.loads(repo.read(path))
        data["claims"][0]["verifiedAt"] = when
        repo.write(path, json.dumps(data, indent=2) + "\n")
    return ids


def _due(repo, capsys, *extra: str) -> dict[str, bool]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    repo.run("check", "--format", "json", *extra)
    return {c["page"]: c["due"] for c in json.loads(capsys.readouterr().out)["claims"]}


def test_check_applies_the_mapping_per_page(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _wiki(repo, capsys, days_ago=60)
    repo.write(CONFIG, MAPPING)
    expected = {"runbooks/deploy.md": True, "adr/choice.md": False, "guide.md": False}
    assert _due(repo, capsys) == expected  # the runbook's glob wins over its Decision type
    assert _due(repo, capsys) == expected  # the same from the check cache
    assert _due(repo, capsys, "--no-cache") == expected
    repo.write(CONFIG, MAPPING.replace("default: 90d", "default: 50d"))
    assert _due(repo, capsys) == {**expected, "guide.md": True}  # a changed config is not answered from the cache
    repo.write(CONFIG, "reverify_after: 50d\n")  # one duration still means every page
    assert _due(repo, capsys) == {"runbooks/deploy.md": True, "adr/choice.md": True, "guide.md": True}


def test_review_walks_the_claims_due_by_the_mapping(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    from tests.support.pty_session import PtySession, openwiki_git

    ids = _wiki(repo, capsys, days_ago=400)
    repo.write(CONFIG, 'reverify_after:\n  "runbooks/**": 30d\n  Decision: 500d\n')
    s = PtySession(openwiki_git("-C", str(repo.root), "review", "--by", "human:ann", "--no-color"), cwd=repo.root)
    first = s.read_until("? ")
    assert f"{ids['runbooks/deploy.md'][:14].replace('claim_', 'c-')} due" in first and "(1/1)" in first
    s.send("c\n")
    assert s.wait() == 0
    assert "1 confirmed" in s.screen
    assert _due(repo, capsys) == {"runbooks/deploy.md": False, "adr/choice.md": False, "guide.md": False}


def test_validate_names_the_bad_entry(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _wiki(repo, capsys, days_ago=1)
    repo.write(CONFIG, 'reverify_after:\n  "runbooks/**": soon\n')
    capsys.readouterr()
    assert repo.run("validate") == 2
    err = capsys.readouterr().err
    assert "$.reverify_after.runbooks/**: 'soon' does not match" in err and "Traceback" not in err
