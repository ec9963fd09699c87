"""A definition moved to another module, through the real pre-commit and `git commit`: the
commit stops once, the reason naming where the definition went and the command that re-points
the claim; after that command the commit passes and `check` is clean."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tests.support.kinds_repo import unwrapped

from .test_precommit import commit, hooked

pytestmark = pytest.mark.e2e

CART = "TAX = 2\n\n\nclass Cart:\n    def add(self, item):\n        self.items.append(item)\n"
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\nCart.add appends the item.\n"


def test_a_definition_moved_to_another_module_names_where_it_went(repo, hook_repo) -> None:  # type: ignore[no-untyped-def]
    hooked(repo, hook_repo, {"src/shop/cart.py": CART}, PAGE, [("Cart.add appends the item.", "repo://src/shop/cart.py#Cart.add")])
    cid = json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]["id"]
    repo.write("src/shop/cart.py", "TAX = 2\n")
    repo.write("src/shop/basket.py", "import os\n\n\n" + CART.removeprefix("TAX = 2\n\n\n"))
    repo.git("add", "-A")
    rc, out = commit(repo, "-m", "move Cart")
    assert rc == 1, out
    target = "repo://src/shop/basket.py#Cart.add"
    label = "c-" + cid.removeprefix("claim_")[:8]
    assert f"moved to `src/shop/basket.py#Cart.add`? `claim edit {label} --evidence {target}` re-points it" in unwrapped(out), out
    with contextlib.redirect_stdout(io.StringIO()):  # the command as the reason prints it
        assert repo.run("claim", "edit", label, "--evidence", target, "--by", "human:dev") == 0
    repo.git("add", "-A")
    rc, out = commit(repo, "-m", "move Cart")
    assert rc == 0, out
    claim = json.loads(repo.git("show", "HEAD:.openwiki/.claims/guide.json"))["claims"][0]
    assert claim["evidence"][0]["resource"] == target and "mark" not in claim
    with contextlib.redirect_stdout(io.StringIO()):
        assert repo.run("check") == 0
