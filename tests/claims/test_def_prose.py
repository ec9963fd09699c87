"""A whole definition's claim (`#add`, issue 23) through the real CLI and the hook: its token
(`repo-def-v2`) reads every docstring in the definition as prose (markup, wrapping, Sphinx or
Google field lists, a directive's release spelled `18.1` or `18.1.0`), so a restyled docstring
leaves it fresh while a changed word, signature or line of code marks it; a token written
before v2 (`repo-def-v1`: the text as it is) is still read the way it was written until it is
confirmed again."""

from __future__ import annotations

import json

import pytest

from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import def_version
from tests.support.kinds_repo import first_claim, old_token_until_confirmed, one_claim, staged_hook
from tests.support.repo import GitRepo

SHOP = '''class Cart:
    """A cart."""

    def add(self, item, *, limit=10):
        """
        Add ``item`` to the cart, unless it
        holds `limit` items already.

        :param item: What is added.
        :param limit: How many items the cart holds.
        :raises OverflowError: When it is full.

        .. versionadded:: 18.1
        """
        if len(self.items) >= limit:
            raise OverflowError("full")
        self.items.append(item)
'''
RESTYLED = '''class Cart:
    """
    A cart.
    """

    def add(self, item, *, limit=10):
        """
        Add *item* to the cart, unless it holds ``limit`` items already.

        Args:
            item: What is added.

            limit:
                How many items the cart holds.

        Raises:
            OverflowError: When it is full.

        .. versionadded:: 18.1.0
        """
        if len(self.items) >= limit:
            raise OverflowError("full")
        self.items.append(item)
'''
SENTENCE = "Call `Cart.add` to put an item in the cart."
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n" + SENTENCE + "\n"
WHOLE = "repo://src/shop.py#Cart.add"


def _setup(repo: GitRepo, capsys: pytest.CaptureFixture[str], resource: str = WHOLE) -> str:
    return one_claim(repo, capsys, {"src/shop.py": SHOP}, PAGE, SENTENCE, resource)


def _evidence(repo: GitRepo) -> dict:  # type: ignore[type-arg]
    return first_claim(repo)["evidence"][0]


def _hook(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return staged_hook(repo, capsys)


@pytest.mark.parametrize("resource", [WHOLE, "repo://src/shop.py#Cart"])
def test_a_restyled_docstring_leaves_a_whole_definition_fresh(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], resource: str
) -> None:
    _setup(repo, capsys, resource)
    assert _evidence(repo)["version"].startswith("repo-def-v2:sha256:")
    repo.write("src/shop.py", RESTYLED)  # markup, wrapping, field-list style, the release's spelling
    rc, out = _hook(repo, capsys)
    assert rc == 0, out
    assert "mark" not in json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]
    repo.commit_all("docstrings restyled")
    repo.write("src/shop.py", RESTYLED.replace("limit=10):", "limit=10,\n    ):").replace("        if len(", "\n        if len("))
    rc, out = _hook(repo, capsys)  # the code re-wrapped as well: cosmetic, as for lines
    assert rc == 0, out
    assert repo.run("check") == 0


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        ("*, limit=10", "limit=10", "the signature"),  # a default changed alone is weighed (test_parameters_added)
        ('raise OverflowError("full")', 'raise ValueError("full")', "the body"),
    ],
)
def test_a_changed_signature_or_body_marks_a_whole_definition(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], old: str, new: str, what: str
) -> None:
    _setup(repo, capsys)
    repo.write("src/shop.py", RESTYLED)
    rc, out = _hook(repo, capsys)
    assert rc == 0, out  # restyled: fresh
    repo.commit_all("docstrings restyled")
    assert old in RESTYLED
    repo.write("src/shop.py", RESTYLED.replace(old, new))
    rc, out = _hook(repo, capsys)
    assert rc == 1 and "definition Cart.add changed" in out, (what, out)


@pytest.mark.parametrize(
    ("old", "new", "sentence", "marks", "reason"),
    [
        ("What is added.", "What is removed.", SENTENCE, False, "docstring rewritten (added)"),
        ("What is added.", "What is removed.", "`Cart.add` puts what is added in the cart.", True, "docstring rewritten (added)"),
        (".. versionadded:: 18.1.0", ".. versionadded:: 18.2.0", SENTENCE, False, "docstring rewritten (18.1)"),
        (".. versionadded:: 18.1.0", ".. versionadded:: 18.2.0", "`Cart.add` is new in 18.1.0.", True, "docstring rewritten (18.1)"),
        ("When it is full.", "When it is full, or closed.", "`Cart.add` raises when the cart is full.", False, "docstring extended"),
    ],
)
def test_a_reworded_docstring_marks_only_a_sentence_that_has_the_words_it_took_out(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], old: str, new: str, sentence: str, marks: bool, reason: str
) -> None:
    """The code the same, a docstring's rewrite cannot make a sentence about the code false; it may
    take back what a sentence repeated from it: the words it took out (the release too) decide."""
    page = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n" + sentence + "\n"
    one_claim(repo, capsys, {"src/shop.py": RESTYLED}, page, sentence, WHOLE)
    assert old in RESTYLED
    repo.write("src/shop.py", RESTYLED.replace(old, new))
    capsys.readouterr()
    assert repo.run("check") == (1 if marks else 0)  # before the commit, as the hook says
    rc, out = _hook(repo, capsys)
    assert rc == (1 if marks else 0) and reason in out, out


def test_a_whole_definition_verified_before_v2_is_read_as_written_until_confirmed(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = _setup(repo, capsys)
    ext = definitions.find("src/shop.py", SHOP, "Cart.add")
    assert ext is not None
    v1 = def_version(ext.text(SHOP.splitlines(keepends=True)))  # the definition's text as it is
    # its text as it was is what it covered; confirmed: the definition as it is now
    old_token_until_confirmed(repo, capsys, cid, v1, RESTYLED, "definition Cart.add changed", "repo-def-v2:sha256:")
    repo.commit_all("confirmed")
    repo.write("src/shop.py", SHOP)  # back to the Sphinx style: the same prose
    capsys.readouterr()
    assert repo.run("check") == 0
