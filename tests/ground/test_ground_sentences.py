"""One sentence splitter (pages/sentences.py) for `ground`, `claim add`'s marker placement and
`lint`'s prose-differs, through the real CLI (issue 21, item 2): sentences on consecutive lines
that start with a code span are three statements, each marker after its own sentence."""

from __future__ import annotations

import json

import pytest

from openwiki_git.pages import citations
from openwiki_git.pages.markers import MARKER
from tests.support.repo import GitRepo

SHOP = '''\
MAX_ITEMS = int(__import__("os").environ.get("SHOP_MAX_ITEMS", "10"))


class Cart:
    def total(self, prices):
        return sum(prices)


def apply_discount(code):
    if not code:
        raise ValueError(code)
    return code
'''
PAGE = (
    "# Cart\n\n"
    "The limit comes from `SHOP_MAX_ITEMS`.\n"
    "`Cart.total` multiplies the prices by their quantities.\n"
    "`apply_discount` rejects an empty code at once.\n"
)


@pytest.fixture
def shop_repo(repo: GitRepo) -> GitRepo:
    repo.write("shop/__init__.py", "")
    repo.write("shop/cart.py", SHOP)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/cart.md", PAGE)
    repo.commit_all()
    return repo


def test_three_lines_are_three_claims(shop_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert shop_repo.run("ground", "--all", "--format", "json") == 0
    added = json.loads(capsys.readouterr().out)["pages"][0]["added"]
    assert [(a["statement"], a["evidence"]) for a in added] == [
        ("The limit comes from `SHOP_MAX_ITEMS`.", "repo://shop/cart.py?grep=%5CbSHOP_MAX_ITEMS%5Cb"),
        ("`Cart.total` multiplies the prices by their quantities.", "repo://shop/cart.py#Cart.total"),
        ("`apply_discount` rejects an empty code at once.", "repo://shop/cart.py#apply_discount"),
    ]
    text = shop_repo.read("docs/cart.md")
    prose = citations.strip_block(text).splitlines()[2:5]
    for line, claim in zip(prose, added, strict=True):
        assert line == claim["statement"] + citations.marker(claim["id"])  # each marker after its own sentence
    assert citations.strip_block(MARKER.sub("", text)) == PAGE


def test_claim_add_puts_the_marker_after_the_sentence_across_lines(shop_repo: GitRepo) -> None:
    shop_repo.write("docs/notes.md", "# Notes\n\nDiscounts need a code, e.g. `SPRING`. An empty code\nis rejected. Totals add up.\n")
    statement = "An empty code is rejected."  # written across a line break in the page
    assert shop_repo.run("claim", "add", "--page", "notes.md", "--statement", statement,
                         "--evidence", "repo://shop/cart.py#L9-L12") == 0
    claim = json.loads(shop_repo.read("docs/.claims/notes.json"))["claims"][0]
    text = shop_repo.read("docs/notes.md")
    assert "An empty code\nis rejected." + citations.marker(claim["id"]) + " Totals add up." in text


def test_lint_shows_the_whole_sentence_before_the_marker(shop_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert shop_repo.run("ground", "--all") == 0
    text = shop_repo.read("docs/cart.md")
    claim = json.loads(shop_repo.read("docs/.claims/cart.json"))["claims"][2]
    changed = text.replace("`apply_discount` rejects an empty code at once.", "Codes are checked, e.g. by `apply_discount` at once.")
    shop_repo.write("docs/cart.md", changed)
    capsys.readouterr()
    shop_repo.run("lint", "--format", "json")
    findings = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["kind"] == "prose-differs"]
    assert len(findings) == 1 and claim["id"] in findings[0]["message"]
    assert "it says 'Codes are checked, e.g. by `apply_discount` at once.'" in findings[0]["message"]
