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
                                          "`adr_0032` and `v1_2` are an identifier and a version, not names.\n"
                                          "Use `add_item` to put a line into the cart.\n")
    page = data["pages"][0]
    assert [(b["reference"], b["reason"]) for b in page["broken"]] == [
        ("remove_item", "no definition, and the name appears nowhere in the code")
    ]
    # `add_item` is a method, cited only when called; it appears in the code, so it is not broken


MKDOCS_PAGE = """\
# The `Cart.add_item()` method

!!! note "TL;DR"
    If you call `Cart.add_item()` the line is added at once.

Send lines with `.add_item()`, `.pop()`, etc. For example `certs()` reads the certificates.

The `SSL_CERT_FILE` variable names the bundle the client trusts.

![progress](img/progress.gif) shows the progress bar while a request runs.

- `Cart.add_item()`
- `certs()`
"""


def test_a_real_projects_docs(cart_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    cart_repo.write("docs/img/progress.gif", "GIF89a\n")
    data = ground_page(cart_repo, capsys, MKDOCS_PAGE)
    page = data["pages"][0]
    assert [(a["statement"], a["evidence"]) for a in page["added"]] == [
        # definitions cited by name (issue 23)
        ("If you call `Cart.add_item()` the line is added at once.", "repo://shop/cart.py#Cart.add_item"),  # no admonition header
        ("Send lines with `.add_item()`, `.pop()`, etc.", "repo://shop/cart.py#Cart.add_item"),  # a method span; etc. ends it
        ("For example `certs()` reads the certificates.", "repo://shop/cart.py#certs"),
        # a variable: the lines that mention it
        ("The `SSL_CERT_FILE` variable names the bundle the client trusts.", "repo://shop/cart.py?grep=%5CbSSL_CERT_FILE%5Cb"),
    ]
    assert page["broken"] == [] and page["ambiguous"] == []  # the image beside the page exists
    s = data["summary"]
    counted = ("added", "already_grounded", "broken", "ambiguous", "unknown", "no_claim", "repeated")
    assert s["references"] == sum(s[k] for k in counted) == 9
    assert s["no_claim"] == 3  # the heading and the bare list of code spans
    capsys.readouterr()
    cart_repo.run("ground", "--all", "--plan")
    out = capsys.readouterr().out
    assert out.endswith(
        "9 references: 0 to ground (0 new claims, 0 claims given more evidence), 4 already grounded, 0 broken, 0 ambiguous, "
        "2 not this project's, 3 in headings, tables or bare lists (no claim there), 0 citing what their sentence cites already, "
        "0 in retracted sentences; 0 undecided, 0 guarded by their section or what they lead into, 0 pages left alone\n"
    )


def test_the_text_says_when_the_json_lists_more_candidates(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(7):
        repo.write(f"src/m{i}.py", "def run_engine():\n    pass\n")
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/x.md", "Use `run_engine()` to start the engine now.\n")
    repo.commit_all()
    capsys.readouterr()
    assert repo.run("ground", "--all") == 0
    out = capsys.readouterr().out
    assert "docs/x.md:1: ambiguous `run_engine()`: src/m0.py#L1-L2, " in out
    assert "(5 of 7 candidates; --format json lists all)" in out


def on_a_terminal(repo: GitRepo, *argv: str) -> tuple[int, str, str]:
    """The CLI in a subprocess whose stderr is a real pseudo-terminal: (exit code, stdout, stderr)."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "openwiki_git", "-C", str(repo.root), *argv],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower,
    )
    os.close(follower)
    stdout, _ = proc.communicate(timeout=120)
    err = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end closed
            break
        if not chunk:
            break
        err += chunk
    os.close(leader)
    return proc.returncode, stdout.decode(), err.decode()


def test_progress_on_a_terminal_never_in_json(cart_repo: GitRepo) -> None:
    cart_repo.write("docs/a.md", "Call `Cart.add_item()` to add a line to the cart.\n")
    cart_repo.write("docs/b.md", "Call `certs()` to read the certificate settings.\n")
    cart_repo.commit_all()
    rc, out, err = on_a_terminal(cart_repo, "ground", "--all", "--plan")
    assert rc == 0 and "2 to ground" in out
    assert "ground: pages: 1/2" in err and "ground: pages: 2/2" in err
    rc, out, err = on_a_terminal(cart_repo, "ground", "--all", "--plan", "--format", "json")
    assert rc == 0 and json.loads(out)["summary"]["added"] == 2
    assert "pages" not in err


def test_a_docs_sites_source_is_site_mode_and_a_plain_wiki_there_is_told_about_footnotes(
    cart_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    cart_repo.write("mkdocs.yml", "site_name: Shop\nmarkdown_extensions:\n  - admonition\ntheme:\n  name: material\n")
    data = ground_page(cart_repo, capsys, "Call `certs()` to read the certificate settings.\n")
    assert data["site"] == {"config": "mkdocs.yml", "site": "mkdocs", "markers": "comments", "footnotes": False}
    cart_repo.run("ground", "--all", "--plan")
    assert "site: an MkDocs site's source (mkdocs.yml): markers are invisible comments" in capsys.readouterr().out
    # a plain wiki kept in the site's folder writes footnotes: told when the site would show them as text
    cart_repo.write(".openwiki/config.yml", "wiki_dir: docs\nsite: none\n")
    cart_repo.run("ground", "--all", "--plan")
    assert "note: mkdocs.yml: MkDocs renders the claim markers ([^c-...]) as footnotes only with the footnotes extension; " \
           "add it to mkdocs.yml: `markdown_extensions: [footnotes]`" in capsys.readouterr().out
    cart_repo.write("mkdocs.yml", "site_name: Shop\ndocs_dir: site\nmarkdown_extensions:\n  - admonition\n")
    capsys.readouterr()
    cart_repo.run("ground", "--all", "--plan", "--format", "json")
    assert "site" not in json.loads(capsys.readouterr().out)  # that site builds site/, not the wiki's docs/
    cart_repo.write("docs/conf.py", "extensions = ['sphinx.ext.autodoc']\n")  # the nearest configuration speaks
    assert cart_repo.run("init", "--wiki-dir", "docs") == 0
    assert "note: docs/conf.py: Sphinx reads Markdown pages" in capsys.readouterr().out
    cart_repo.write("docs/conf.py", "extensions = ['myst_parser']\n")
    cart_repo.write("mkdocs.yml", "site_name: Shop\nmarkdown_extensions:\n  - admonition\n  - footnotes\n")
    capsys.readouterr()
    cart_repo.run("ground", "--all", "--plan", "--format", "json")
    assert "site" not in json.loads(capsys.readouterr().out)
