"""The graph's cache is keyed on the code its claims cite (issue 35 leftover): a claim whose
evidence is a set of lines over a folder (`repo://src/**/*.py?grep=...`, what `ground` writes for
flags, environment variables and keys) goes stale when a file of that folder changes, and the
cached graph must not keep calling it fresh. Through the agents' service (the MCP server's) and
the CLI, in a real repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openwiki_git.agents.service import GraphService
from openwiki_git.caches import statkey
from tests.support.repo import GitRepo

SET = "repo://src/**/*.py?grep=%5CbSHOP_LIMIT%5Cb"
PAGE = "---\ntype: Reference\ntitle: Shop\n---\n\n# Shop\n\nSet `SHOP_LIMIT` to bound a cart.\n"


def _stale(service: GraphService) -> int:
    got = service.call("check")
    assert got.get("error") is None, got
    return int(got["summary"]["stale"]) + int(got["summary"].get("unresolved", 0))


def test_a_set_of_lines_over_a_folder_is_checked_again_when_a_file_of_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(statkey, "RACY_NS", 0)  # the files' stat is trusted, as a later call sees it
    (tmp_path / "repo").mkdir()
    repo = GitRepo(tmp_path / "repo")
    repo.git("init", "-q", "-b", "main")
    repo.write("src/shop/cart.py", 'import os\nLIMIT = int(os.environ.get("SHOP_LIMIT", "10"))\n')
    repo.write("src/shop/order.py", "def total(items):\n    return sum(items)\n")
    assert repo.run("init") == 0
    repo.write(".openwiki/shop.md", PAGE)
    repo.commit_all("shop")
    assert repo.run("claim", "add", "--page", "shop.md", "--statement", "Set `SHOP_LIMIT` to bound a cart.", "--evidence", SET) == 0
    repo.commit_all("claim")
    service = GraphService(repo.root)
    assert _stale(service) == 0  # built and cached
    # Another file of the folder starts reading the variable: the set has a new member.
    repo.write("src/shop/order.py", 'import os\n\n\ndef total(items):\n    return min(sum(items), int(os.environ["SHOP_LIMIT"]))\n')
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1  # check sees it
    assert json.loads(capsys.readouterr().out)["summary"]["stale"] == 1
    assert _stale(service) == 1  # and so does the graph, cached or not
    assert _stale(GraphService(repo.root)) == 1


def test_the_graph_checks_claims_by_checks_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A comment added to cited lines is a cosmetic edit: `check` keeps the claim fresh, and the
    graph's tools (which agents read) say the same: they check with the config's rules."""
    (tmp_path / "repo").mkdir()
    repo = GitRepo(tmp_path / "repo")
    repo.git("init", "-q", "-b", "main")
    repo.write("src/shop/cart.py", "LIMIT = 10\n\n\ndef total(items):\n    return sum(items)\n")
    assert repo.run("init") == 0
    repo.write(".openwiki/shop.md", PAGE.replace("Set `SHOP_LIMIT` to bound a cart.", "A cart holds ten items."))
    repo.commit_all("shop")
    line = "repo://src/shop/cart.py#L1-L1"
    assert repo.run("claim", "add", "--page", "shop.md", "--statement", "A cart holds ten items.", "--evidence", line) == 0
    repo.commit_all("claim")
    repo.write("src/shop/cart.py", "LIMIT = 10  # items per cart\n\n\ndef total(items):\n    return sum(items)\n")
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["claims"][0]["evidence"][0]["reason"].startswith("cosmetic: comments")
    assert _stale(GraphService(repo.root)) == 0


def _claim_status(g: object, claim_id: str) -> str:
    node = g.node(claim_id)  # type: ignore[attr-defined]
    assert node is not None, claim_id
    return str(node.data.status)


def test_a_cached_graph_sees_its_cited_lines_change(wiki_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built and cached, then the cited lines of a plain file change (nothing in the wiki does):
    the next load is not the cached graph, and the claim's standing follows the code; loaded once
    more with nothing changed, the graph comes from the cache again."""
    from openwiki_git.graph.build import load
    from openwiki_git.store.workspace import Workspace
    from tests.support.repo import add_claim

    monkeypatch.setattr(statkey, "RACY_NS", 0)
    cid = add_claim(wiki_repo, "guide.md", "Line ten says ten.", "repo://src/app.py#L10-L10")
    wiki_repo.commit_all("claim")
    g, info = load(Workspace.open(wiki_repo.root))
    assert not info.cached and _claim_status(g, cid) == "fresh"
    g, info = load(Workspace.open(wiki_repo.root))
    assert info.cached and _claim_status(g, cid) == "fresh"
    wiki_repo.write("src/app.py", wiki_repo.read("src/app.py").replace("line 10\n", "line ten, rewritten\n"))
    g, info = load(Workspace.open(wiki_repo.root))
    assert not info.cached and info.files_checked == 1
    assert _claim_status(g, cid) != "fresh"
    g, info = load(Workspace.open(wiki_repo.root))
    assert info.cached and _claim_status(g, cid) != "fresh"
