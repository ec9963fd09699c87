"""The refresher with evidence that names what it means (issue 23): the model is shown a stale
definition's text and a stale set's members, and may answer citing any kind."""

from __future__ import annotations

from typing import Any

from openwiki_git.refresh.run import run_refresh
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support.refresh_wiki import check_json
from tests.support.scripted_refresher import ScriptedRefresher

CART = "class Cart:\n    def add(self, item):\n        if item is None:\n            raise OverflowError('none')\n        return item\n"
PAGE = "---\ntype: Reference\ntitle: Shop\n---\n\n# Shop\n\nCart.add raises OverflowError. The stores are memory and disk.\n"


def _stale(repo: Any, capsys: Any) -> dict[str, str]:
    repo.write("src/cart.py", CART)
    repo.write("src/stores/memory.py", "class MemoryStore: ...\n")
    repo.write("src/stores/disk.py", "class DiskStore: ...\n")
    assert repo.run("init") == 0
    repo.write(".openwiki/shop.md", PAGE)
    repo.commit_all("initial")
    ids = {}
    for statement, resource in (
        ("Cart.add raises OverflowError.", "repo://src/cart.py#Cart.add"),
        ("The stores are memory and disk.", "repo://src/stores/*.py"),
    ):
        capsys.readouterr()
        assert repo.run("claim", "add", "--page", "shop.md", "--statement", statement, "--evidence", resource) == 0
        ids[resource] = capsys.readouterr().out.split()[0]
    repo.commit_all("claims")
    repo.write("src/cart.py", CART.replace("return item", "self.last = item\n        return item"))
    repo.write("src/stores/cloud.py", "class CloudStore: ...\n")
    repo.git("add", "-A")
    assert repo.run("hook") == 1
    repo.commit_all("changed")
    return ids


def _answer(claim_id: str, resource: str, quote: str, verdict: str = "confirm") -> dict[str, Any]:
    return {"claim_id": claim_id, "verdict": verdict, "revised_statement": None,
            "cited_ranges": [{"resource": resource, "quote": quote}], "rationale": "still true"}


def test_the_model_sees_the_definition_and_the_members_and_confirms_them(repo: Any, capsys: Any) -> None:
    ids = _stale(repo, capsys)
    add, stores = ids["repo://src/cart.py#Cart.add"], ids["repo://src/stores/*.py"]
    script = {
        add: _answer(add, "repo://src/cart.py#Cart.add", "raise OverflowError('none')"),
        stores: _answer(stores, "repo://src/stores/*.py", "src/stores/cloud.py"),
    }
    fake = ScriptedRefresher([lambda r: script[r.claim_id]] * 2)
    result = run_refresh(Workspace.open(repo.root), RefreshOptions(), fake)
    assert result.ok, result.totals
    prompts = {r.claim_id: r.messages[0] for r in fake.history}
    assert "self.last = item" in prompts[add]  # the definition now, and its diff
    assert "+     5 |         self.last = item" in prompts[add]  # numbered as the file is
    assert "src/stores/cloud.py" in prompts[stores]  # the members now
    assert "+src/stores/cloud.py" in prompts[stores]  # the members added
    assert result.totals["confirmed"] == 2
    code, after = check_json(repo, capsys)
    assert code == 0 and after["summary"]["fresh"] == 2


def test_a_set_the_claim_does_not_cite_or_a_wrong_quote_is_rejected(repo: Any, capsys: Any) -> None:
    ids = _stale(repo, capsys)
    add, stores = ids["repo://src/cart.py#Cart.add"], ids["repo://src/stores/*.py"]
    script = {
        add: _answer(add, "repo://src/**/*.py", "src/cart.py"),  # a set this claim was not shown
        stores: _answer(stores, "repo://src/stores/*.py", "src/stores/tape.py"),  # not a member
    }
    fake = ScriptedRefresher([lambda r: script[r.claim_id]] * 4)
    result = run_refresh(Workspace.open(repo.root), RefreshOptions(), fake)
    errors = " ".join(d.error or "" for d in result.decisions)
    assert "cite a set this claim cites" in errors and "the quote does not match the current text of repo://src/stores/*.py" in errors
    code, after = check_json(repo, capsys)
    assert code == 1 and after["summary"]["stale"] == 2
