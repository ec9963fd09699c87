"""A docstring edited in a cited head while its code stays the same (claims/kinds.py says what
the edit did, claims/relevance.py whether it marks), through `ground`, the hook and `check` in a
real repository: a docstring added or extended marks nothing (in a head or a whole definition); a
summary rewritten marks a sentence that has the words it took out, but not a code example's claim;
`Annotated[T, Doc("...")]` names T, not the words of its prose."""

from __future__ import annotations

import json

import pytest

from openwiki_git.diff import cosmetic
from tests.support.kinds_repo import staged_hook
from tests.support.repo import GitRepo

SHOP = '''def add(cart, item: str, *, limit: int = 10):
    """Add an item to the cart."""
    cart.append(item)
'''
BARE = SHOP.replace('    """Add an item to the cart."""\n', "")
PAGE = (
    "# Guide\n\n"
    "See `add` to put a string in the cart.\n\n"
    "`add` appends the item to the cart.\n\n"  # behaviour: the whole definition
    "```python\nfrom shop import add\n\nadd([], \"pear\")\n```\n"
)


def _grounded(repo: GitRepo, capsys: pytest.CaptureFixture[str], code: str) -> dict[str, str]:
    """The page grounded over `code`, committed: its claims' ids by kind (sentence, example)."""
    repo.write("src/shop.py", code)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/guide.md", PAGE)
    repo.commit_all("docs")
    assert repo.run("ground", "--all") == 0
    repo.commit_all("ground")
    claims = json.loads(repo.read("docs/.claims/guide.json"))["claims"]
    capsys.readouterr()
    kinds = {"See": ("sentence", "#add:head"), "`add`": ("behaviour", "#add"), "The": ("example", "#add:head")}
    ids = {}
    for c in claims:
        kind, cited = kinds[c["statement"].split()[0]]
        assert [e["resource"] for e in c["evidence"]] == [f"repo://src/shop.py{cited}"], c
        ids[kind] = c["id"]
    return ids


def _stale(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> set[str]:
    capsys.readouterr()
    repo.run("check", "--format", "json")
    data = json.loads(capsys.readouterr().out)
    return {c["id"] for c in data["claims"] if c["status"] != "fresh"}


def test_a_docstring_added_marks_nothing(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ids = _grounded(repo, capsys, BARE)
    assert set(ids) == {"sentence", "behaviour", "example"}
    repo.write("src/shop.py", SHOP)
    rc, out = staged_hook(repo, capsys)
    assert rc == 0 and "docstring added" in out, out  # kept fresh, and said why
    repo.commit_all("a docstring")
    assert _stale(repo, capsys) == set()


def test_a_summary_rewritten_marks_a_sentence_with_the_words_it_took_out_not_the_example(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = _grounded(repo, capsys, SHOP)
    repo.write("src/shop.py", SHOP.replace("Add an item to the cart.", "Append the value to the list."))
    # "`add` appends the item to the cart." has both words the rewrite took out; "See `add` to put a
    # string in the cart." one of them; the example runs the code
    assert _stale(repo, capsys) == {ids["behaviour"]}  # check, before the commit
    rc, out = staged_hook(repo, capsys)
    assert rc == 1 and "docstring rewritten (item, cart)" in out, out
    repo.commit_all("summary")
    assert _stale(repo, capsys) == {ids["behaviour"]}  # the hook agrees


def test_a_summary_extended_marks_nothing(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """attrs' `attrib`: "Create a new attribute on a class." became "Create a new field / attribute
    on a class.": nothing a sentence repeated from it was taken back."""
    _grounded(repo, capsys, SHOP)
    repo.write("src/shop.py", SHOP.replace("Add an item to the cart.", "Add an item, a string, to the cart."))
    assert _stale(repo, capsys) == set()
    rc, out = staged_hook(repo, capsys)
    assert rc == 0 and "docstring extended" in out, out


def test_annotated_doc_prose_names_no_type(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """typer's 'Add reference docs' commit: every parameter became `Annotated[T, Doc("...")]`."""
    ids = _grounded(repo, capsys, SHOP)
    wrapped = SHOP.replace("item: str", 'item: Annotated[str, Doc("The item, a string or an int.")]')
    repo.write("src/shop.py", "from typing import Annotated\nfrom annotated_doc import Doc\n\n\n" + wrapped)
    rc, out = staged_hook(repo, capsys)
    assert rc == 0, out
    repo.commit_all("annotated")
    assert _stale(repo, capsys) == set(), ids


@pytest.mark.parametrize(
    ("tokens", "names"),
    [
        (["Annotated", "[", "Optional", "[", "str", "]", ",", "Doc", "(", '"""The name of an int."""', ")", "]"], {"str", "None"}),
        (["Annotated", "[", "int", ",", "Field", "(", "gt", "=", "0", ")", "]"], {"int"}),
        (['"Cart"'], {"Cart"}),
        (["'list[Cart] | None'"], {"list", "Cart", "None"}),
        (["'The prose of a docstring, an int.'"], set()),
    ],
)
def test_type_names(tokens: list[str], names: set[str]) -> None:
    assert cosmetic.type_names(tokens) == frozenset(names)
