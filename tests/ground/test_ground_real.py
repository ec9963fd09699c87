"""What `ground` got wrong on a real project's docs (issue 21, items 3 and 7), through the real
CLI in real git repositories."""

from __future__ import annotations

import json

import pytest

from tests.support.repo import GitRepo

CART = '''\
import os


class Cart:
    def add_item(self, item):
        return item


def certs():
    cert_file = os.environ["SSL_CERT_FILE"]
    cert_dir = os.environ["SSL_CERT_DIR"]
    again = os.environ.get("SSL_CERT_FILE")
    return cert_file, cert_dir, again
'''


@pytest.fixture
def cart_repo(repo: GitRepo) -> GitRepo:
    repo.write("shop/__init__.py", "from .cart import *\n")
    repo.write("shop/cart.py", CART)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.commit_all()
    return repo


def ground_page(repo: GitRepo, capsys: pytest.CaptureFixture[str], text: str, *args: str) -> dict:  # type: ignore[type-arg]
    repo.write("docs/page.md", text)
    repo.commit_all()
    capsys.readouterr()
    repo.run("ground", "--all", "--format", "json", *args)
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_a_snake_case_name_found_nowhere_is_broken_without_parentheses(cart_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    data = ground_page(cart_repo, capsys, "Call `remove_item` to drop a line from the cart.\n"
                                          "The words `helper` and `data` are too plain to judge here.\n"
                                          "Use `add_item` to put a line into the cart.\n")
    page = data["pages"][0]
    assert [(b["reference"], b["reason"]) for b in page["broken"]] == [
        ("remove_item", "no definition, and the name appears nowhere in the code")
    ]
    # `add_item` is a method, cited only when called; it appears in the code, so it is not broken
