"""reStructuredText docs round the whole loop (issue 35, item 3), through the real CLI in a real
git repository holding a Sphinx site: `ground` cites what the roles name, guards the code-block
and doctest examples, and writes `.. c-` comment lines; `check`, the hook, `claim show`, the
refresher's revise and retract, the agents' verification and the graph read them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openwiki_git.refresh.run import run_refresh
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support.repo import GitRepo
from tests.support.scripted_refresher import ScriptedRefresher

SHOP = '''\
"""A tiny shop."""


class Cart:
    """A shopping cart: the lines of one order."""

    def __init__(self):
        self.items = []


def total(cart):
    """The number of items in the cart."""
    return sum(quantity for _, quantity in cart.items)
'''

PAGE = """\
Shop
====

The class :class:`shop.Cart` holds the lines of one order.
The function :func:`~shop.total` counts the items in a cart.

- A helper :func:`shop.discount` takes a share off the total.

.. code-block:: python

   from shop import Cart
   def my_helper():
       return Cart()

Calling ``my_helper()`` gives a new cart every time, as written above.
The shop began as a fork of `Cart`_ years ago, a project of its own.

.. _Cart: https://example.invalid/cart

>>> from shop import total
"""


@pytest.fixture
def site(repo: GitRepo) -> GitRepo:
    repo.write("shop/__init__.py", "from .cart import Cart, total\n")
    repo.write("shop/cart.py", SHOP)
    repo.write("doc/conf.py", 'project = "Shop"\n')
    repo.write("doc/index.rst", PAGE)
    repo.commit_all("a Sphinx site")
    assert repo.run("init", "--wiki-dir", "doc") == 0
    return repo


def _json(repo: GitRepo, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    capsys.readouterr()
    rc = repo.run(*argv, "--format", "json")
    return rc, json.loads(capsys.readouterr().out)


def _through_hook(repo: GitRepo, capsys: pytest.CaptureFixture[str], says: str, message: str) -> tuple[int, Any]:
    """The change staged; the hook stops once, saying `says`; committed; `check`'s JSON."""
    repo.git("add", "-A")
    capsys.readouterr()
    assert repo.run("hook") == 1
    assert says in capsys.readouterr().out
    repo.commit_all(message)
    return _json(repo, capsys, "check")


def test_rst_pages_are_grounded_by_their_roles_with_comment_lines(site: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    rc, data = _json(site, capsys, "ground", "--all")
    assert rc == 1  # a broken reference: shop.discount names nothing
    [page] = data["pages"]
    assert page["page"] == "index.rst" and page["page_path"] == "doc/index.rst"
    assert sorted((a["reference"], a["evidence"]) for a in page["added"]) == [
        ("shop.Cart", "repo://shop/cart.py#Cart:head"),
        ("~shop.total", "repo://shop/cart.py#total"),
    ]
    assert [(b["reference"], b["line"]) for b in page["broken"]] == [("shop.discount", 7)]
    text = site.read("doc/index.rst")
    labels = [f"c-{a['id'][6:14]}" for a in page["added"]]
    assert f"counts the items in a cart.\n\n.. {labels[0]}\n.. {labels[1]}\n\n- A helper" in text
    assert "my_helper" not in json.dumps(page["broken"])  # defined by the page's own example
    # the code-block and the doctest block are examples, each guarded by a marker line after it
    examples = page["examples"]["added"]
    assert [(e["line"], e["evidence"]) for e in examples] == [
        (9, ["repo://shop/cart.py#Cart:head"]), (20, ["repo://shop/cart.py#total:head"]),
    ]
    assert "       return Cart()\n\n.. c-" + examples[0]["id"][6:14] + "\n\nCalling ``my_helper()``" in text
    assert text.endswith(">>> from shop import total\n\n.. c-" + examples[1]["id"][6:14] + "\n")
    assert (site.root / "doc/.claims/index.rst.json").is_file()
    rc, again = _json(site, capsys, "ground", "--all")
    assert again["summary"]["added"] == 0 and again["summary"]["already_grounded"] == 2
    assert again["summary"]["examples"]["already"] == 2 and again["summary"]["examples"]["added"] == 0
    assert site.read("doc/index.rst") == text
    rc, report = _json(site, capsys, "check")
    assert report["summary"]["fresh"] == 4 and report["summary"]["missing_markers"] == 0
    assert rc == 1 and [(b["reference"], b["line"]) for b in report["broken_references"]] == [("shop.discount", 10)]
    assert site.run("validate") == 0


def test_rst_claims_go_round_the_loop(site: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert site.run("ground", "--all") == 1
    site.commit_all("grounded")
    returns = SHOP.replace("The number of items in the cart.", "The number of items, returns included.")
    site.write("shop/cart.py", returns.replace("sum(quantity for", "sum(abs(quantity) for"))  # the code too
    rc, report = _through_hook(site, capsys, "The function :func:`~shop.total` counts the items in a cart.", "a changed summary")
    [stale] = [c for c in report["claims"] if c["status"] == "stale"]
    assert rc == 1 and stale["line"] == 5 and stale["marker_present"]  # its sentence's line, not its paragraph's first
    capsys.readouterr()
    assert site.run("claim", "show", stale["id"]) == 0
    assert "counts the items in a cart." in capsys.readouterr().out

    ws = Workspace.open(site.root)
    # the docstring with the code it documents: a docstring alone proves no code (verdicts/validator.py)
    quote = '    """The number of items, returns included."""\n    return sum(abs(quantity) for _, quantity in cart.items)'
    revise = {"claim_id": stale["id"], "verdict": "revise", "revised_statement": "The function :func:`~shop.total` counts "
              "the items in a cart, returns included.", "cited_ranges": [{"resource": "repo://shop/cart.py#total", "quote": quote}],
              "rationale": "the summary changed"}
    result = run_refresh(ws, RefreshOptions(model="scripted"), ScriptedRefresher([revise]))
    assert [d.verdict for d in result.decisions] == ["revise"], result
    text = site.read("doc/index.rst")
    assert "The function :func:`~shop.total` counts the items in a cart, returns included.\n\n.. c-" in text
    rc, report = _json(site, capsys, "check")
    assert report["summary"]["fresh"] == 4 and report["summary"]["missing_markers"] == 0  # with the two examples'
    capsys.readouterr()
    assert site.run("lint", "--format", "json") in (0, 1)
    assert not [f for f in json.loads(capsys.readouterr().out)["findings"] if f["kind"] in ("prose-differs", "missing-marker")]

    capsys.readouterr()
    assert site.run("expand", stale["id"]) == 0  # the graph: the claim asserted by its paragraph, under its section
    shown = capsys.readouterr().out
    assert "asserted_by  page:index.rst#" in shown and "[paragraph] The class :class:`shop.Cart` holds" in shown
    assert site.run("claim", "retract", stale["id"]) == 0
    text = site.read("doc/index.rst")
    assert f"c-{stale['id'][6:14]}" not in text and "returns included." in text  # the marker line goes, the prose stays
    capsys.readouterr()
    assert site.run("locate", "lines of one order") == 0
    assert "claim_" in capsys.readouterr().out


def test_a_role_names_the_kind_and_overloads_are_one_definition(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """`:func:`pkg.retry`` is the function, not the module `pkg/retry.py`, and `@t.overload`
    declarations (typing imported as `t`) are not definitions of their own: tenacity's API page."""
    repo.write("pkg/__init__.py", "import typing as t\n\n\n@t.overload\ndef retry(f: int) -> int: ...\n\n\n"
                                  "@t.overload\ndef retry(f: str) -> str: ...\n\n\ndef retry(f):\n    return f\n")
    repo.write("pkg/retry.py", "def helper():\n    pass\n")
    repo.write("doc/conf.py", 'project = "Pkg"\n')
    repo.write("doc/api.rst", "API\n===\n\nEvery strategy here is given to :py:func:`pkg.retry` as its argument.\n")
    repo.commit_all("a Sphinx site")
    assert repo.run("init", "--wiki-dir", "doc") == 0
    rc, data = _json(repo, capsys, "ground", "--all")
    assert [a["evidence"] for a in data["pages"][0]["added"]] == ["repo://pkg/__init__.py#retry"], data["pages"][0]


def test_a_rst_sentence_reworded_or_deleted_through_the_hook(site: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """The doc side on a reStructuredText page (claims/sentence.py): the paragraph's sentence
    that states a claim reworded marks it and the statement follows (the sentence of the
    paragraph nearest the old one); the paragraph deleted with its comment line retracts it."""
    _json(site, capsys, "ground", "--all")
    site.commit_all("grounded")
    claims = {c["statement"]: c["id"] for c in json.loads(site.read("doc/.claims/index.rst.json"))["claims"]}
    total = claims["The function :func:`~shop.total` counts the items in a cart."]
    site.write("doc/index.rst", site.read("doc/index.rst").replace("counts the items in a cart.", "adds up the prices in a cart."))
    site.git("add", "-A")
    capsys.readouterr()
    assert site.run("hook") == 1
    said = capsys.readouterr()
    assert "its sentence changed" in said.out + said.err
    after = {c["id"]: c for c in json.loads(site.read("doc/.claims/index.rst.json"))["claims"]}
    assert after[total]["statement"] == "The function :func:`~shop.total` adds up the prices in a cart."
    assert after[total]["mark"]["causes"][0]["reason"].startswith("its sentence changed")
    assert "mark" not in after[claims["The class :class:`shop.Cart` holds the lines of one order."]]
    site.commit_all("reworded")
    text = site.read("doc/index.rst")
    start = text.index("The class :class:`shop.Cart`")
    end = text.index("- A helper")
    site.write("doc/index.rst", text[:start] + text[end:])  # the paragraph and its two comment lines
    site.git("add", "-A")
    assert site.run("hook") == 1  # said once: two claims retracted, the sidecar staged
    assert site.run("hook") == 0
    sidecar = json.loads(site.read("doc/.claims/index.rst.json"))
    assert len(sidecar["retracted"]) == 2
    assert [c["statement"][:30] for c in sidecar["claims"]] == ["The python example starting `r", "The pycon example starting `fr"]


def test_a_sphinx_doctest_example_is_guarded_and_breaks_with_the_code(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """tenacity's docs: `testcode` blocks calling names a `testsetup`'s `from pkg import *` binds.
    `ground` guards each block with a marker line after it (the function `pkg.retry` preferred
    to the module pkg/retry.py: a module is never called); renaming a function it calls marks
    the claim through the real hook and `check` names the broken call at the directive's line."""
    retry = "\n\n\ndef retry(*dargs, **dkw):\n    return dargs[0] if dargs else None\n"
    repo.write("pkg/__init__.py", "from pkg.stop import stop_after" + retry)
    repo.write("pkg/retry.py", "def helper():\n    pass\n")
    repo.write("pkg/stop.py", "def stop_after(attempts):\n    return attempts\n")
    repo.write("doc/conf.py", 'project = "Pkg"\n')
    repo.write("doc/index.rst", "Guide\n=====\n\n.. testsetup::\n\n    from pkg import *\n\nStop after three attempts.\n\n"
                                ".. testcode::\n\n    @retry(stop=stop_after(3))\n    def f():\n        print('again')\n\nThe end.\n")
    repo.commit_all("a Sphinx site")
    assert repo.run("init", "--wiki-dir", "doc") == 0
    rc, data = _json(repo, capsys, "ground", "--all")
    [added] = data["pages"][0]["examples"]["added"]
    assert rc == 0 and added["evidence"] == ["repo://pkg/__init__.py#retry:head", "repo://pkg/stop.py#stop_after:head"]
    assert data["summary"]["examples"]["broken"] == 0  # `print` is Python's, not pkg's
    text = repo.read("doc/index.rst")
    assert f"        print('again')\n\n.. c-{added['id'][6:14]}\n\nThe end.\n" in text
    repo.commit_all("grounded")
    repo.write("pkg/stop.py", "def stop_after_attempt(attempts):\n    return attempts\n")
    repo.write("pkg/__init__.py", "from pkg.stop import stop_after_attempt" + retry)
    rc, report = _through_hook(repo, capsys, "breaks `stop_after(...)`", "renamed")
    broken = [(b["reference"], b["line"], b["kind"]) for b in report["broken_references"]]
    assert rc == 1 and broken == [("stop_after(...)", 10, "example")]


def test_an_examples_code_deleted_by_hand_leaves_a_stray_marker_that_lint_removes(
    site: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """An example's code deleted and its directive and marker line left (c026b97): the hook
    retracts the claim, and the marker line, naming no claim now, is a `stray-marker` that
    `lint --fix` removes (the directive is the author's to delete)."""
    _json(site, capsys, "ground", "--all")
    site.commit_all("grounded")
    text = site.read("doc/index.rst")
    code = "   from shop import Cart\n   def my_helper():\n       return Cart()\n"
    site.write("doc/index.rst", text.replace(code, ""))
    site.git("add", "-A")
    assert site.run("hook") == 1  # the example's claim retracted, the sidecar staged
    site.commit_all("the example's code deleted")
    [gone] = json.loads(site.read("doc/.claims/index.rst.json"))["retracted"]
    stray = ".. c-" + gone["claim"][6:14]
    rc, data = _json(site, capsys, "lint")
    found = [(f["kind"], f["line"]) for f in data["findings"] if f["kind"] == "stray-marker"]
    assert rc == 1 and found == [("stray-marker", site.read("doc/index.rst").splitlines().index(stray) + 1)]
    site.run("lint", "--fix")  # other findings may remain (the empty directive is no finding of ours)
    after = site.read("doc/index.rst")
    assert stray not in after.splitlines() and ".. code-block:: python\n" in after
    rc, data = _json(site, capsys, "lint")
    assert [f for f in data["findings"] if f["kind"] == "stray-marker"] == []
