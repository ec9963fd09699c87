"""A head claim (`#add:head`, issue 23) through the real CLI and the hook: its token
(`repo-head-v2`) covers the signature and the docstring's summary, so the rest of the docstring
and the summary's markup are body-level detail; a head verified before v2 (`repo-def-v1` on a
head: the whole docstring) is still read the way it was written until it is confirmed again."""

from __future__ import annotations

import json

import pytest

from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import def_version
from tests.support.kinds_repo import first_claim, old_token_until_confirmed, one_claim, staged_hook
from tests.support.repo import GitRepo

SHOP = '''def add(cart, item, *, limit=10):
    """
    Add ``item`` to the cart.

    :param limit: How many items the cart holds.
    """
    if len(cart) >= limit:
        raise OverflowError("full")
    cart.append(item)
'''
SENTENCE = "Call `add` to put an item in the cart."
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n" + SENTENCE + "\n"
HEAD = "repo://src/shop.py#add:head"


def _setup(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> str:
    return one_claim(repo, capsys, {"src/shop.py": SHOP}, PAGE, SENTENCE, HEAD)


def _evidence(repo: GitRepo) -> dict:  # type: ignore[type-arg]
    return first_claim(repo)["evidence"][0]


def _hook(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return staged_hook(repo, capsys)


def test_a_head_ignores_the_rest_of_its_docstring_and_its_summarys_markup(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys)
    assert _evidence(repo)["version"].startswith("repo-head-v2:sha256:")
    for edit in (
        SHOP.replace("How many items the cart holds.", "How many items the cart holds; past it, `OverflowError`."),
        SHOP.replace("Add ``item`` to the cart.", "Add *item* to\n    the cart."),  # markup and wrapping
    ):
        repo.write("src/shop.py", edit)
        rc, out = _hook(repo, capsys)
        assert rc == 0, out
        repo.commit_all("docstring")
    for edit, why in (
        # a word the sentence has, taken out
        (SHOP.replace("Add ``item`` to the cart.", "Add ``item`` to the basket."), "cosmetic: docstring rewritten (cart)"),
        (SHOP.replace("limit=10", "size=10"), "definition add:head changed"),  # a parameter renamed
    ):
        repo.write("src/shop.py", edit)
        rc, out = _hook(repo, capsys)
        assert rc == 1 and why in out, (why, out)
        repo.git("checkout", "-q", "HEAD", "--", ".")  # the hook's mark undone: the next edit from the same state


def test_a_head_verified_before_v2_is_read_as_written_until_confirmed(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    cid = _setup(repo, capsys)
    (ext,) = definitions.definitions("src/shop.py", SHOP)
    v1 = def_version(ext.text(SHOP.splitlines(keepends=True), head=True, v1=True))  # signature and whole docstring
    assert ":param limit" in ext.text(SHOP.splitlines(keepends=True), head=True, v1=True)
    edited = SHOP.replace("How many items the cart holds.", "How many items it holds.")  # parameter docs
    # the whole docstring was what it covered; confirmed: the head as it is now
    old_token_until_confirmed(repo, capsys, cid, v1, edited, "definition add:head changed", "repo-head-v2:sha256:")
    repo.commit_all("confirmed")
    repo.write("src/shop.py", SHOP.replace("How many items the cart holds.", "How many, at most."))
    capsys.readouterr()
    assert repo.run("check") == 0


def test_a_whole_definition_refuses_a_head_token(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys)
    sidecar = json.loads(repo.read(".openwiki/.claims/guide.json"))
    sidecar["claims"][0]["evidence"][0]["resource"] = "repo://src/shop.py#add"
    repo.write(".openwiki/.claims/guide.json", json.dumps(sidecar, indent=2) + "\n")
    capsys.readouterr()
    assert repo.run("check") == 2
    err = capsys.readouterr().err
    assert "$.claims[0].evidence[0].version" in err and "repo-def-v2" in err and "Traceback" not in err


PROPERTY = '''class Cart:
    def __init__(self):
        self._items = []

    @property
    def total(self):
        """The sum of the items' prices."""
        return sum(self._items)

    @total.setter
    def total(self, value):
        self._items = [value]
'''


@pytest.mark.parametrize(
    ("resource", "edit", "rc"),
    [
        ("repo://src/cart.py#Cart.total:head", ("The sum of", "The count of"), 1),  # the getter's summary
        ("repo://src/cart.py#Cart.total:head", ("[value]", "[value, 0]"), 0),  # the setter's body
        ("repo://src/cart.py#Cart.total", ("[value]", "[value, 0]"), 1),  # the whole property: its setter too
        ("repo://src/cart.py#Cart.total", ("sum(self._items)", "len(self._items)"), 1),  # and its getter
    ],
)
def test_a_property_is_its_getter_head_and_runs_through_its_setter(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], resource: str, edit: tuple[str, str], rc: int
) -> None:
    """`Cart.total` names the property Python binds, not its setter (the last `def total`): its
    head is the getter's (`@property`, signature, summary), its lines run through the setter."""
    sentence = "A `Cart.total` is the sum of its prices."
    one_claim(repo, capsys, {"src/cart.py": PROPERTY}, PAGE.replace(SENTENCE, sentence), sentence, resource)
    ext = definitions.find("src/cart.py", PROPERTY, "Cart.total")
    assert ext is not None and (ext.start, ext.end) == (5, 12)
    repo.write("src/cart.py", PROPERTY.replace(*edit))
    got, out = _hook(repo, capsys)
    assert got == rc, out
    assert ("definition Cart.total" in out or "docstring rewritten" in out) == (rc == 1), out
