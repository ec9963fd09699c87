"""claims/relevance.py: whether a cosmetic edit still marks a claim, by what its sentence says."""

from __future__ import annotations

import pytest

from openwiki_git.claims import relevance
from openwiki_git.model import EvidenceResult


@pytest.mark.parametrize(
    ("statement", "types", "named"),
    [
        pytest.param("The port is an int.", {"int", "str"}, True, id="an-int"),
        pytest.param("The host is a string.", {"int", "str"}, True, id="a-string"),
        pytest.param("It takes a `Callable`.", {"Callable"}, True, id="code-span"),
        pytest.param("It takes a callable.", {"Callable"}, True, id="callable-lowercase"),
        pytest.param("The timeout may be None.", {"None"}, True, id="none"),
        pytest.param("There is none.", {"None"}, False, id="none-is-a-name-not-a-word"),
        pytest.param("Pass any value.", {"Any"}, False, id="any-is-a-name-not-a-word"),
        pytest.param("A `Cart` holds items.", {"Cart"}, True, id="a-project-class"),
        pytest.param("A cart holds items.", {"Cart"}, False, id="a-class-by-name-only"),
        pytest.param("It returns a `T`.", {"T", "P"}, False, id="type-variables-never"),
        pytest.param("The app runs.", {"int", "str"}, False, id="no-type-named"),
        pytest.param("The printer prints.", {"int"}, False, id="a-word-inside-a-word"),
        pytest.param("It reads `max_int` bytes.", {"int"}, False, id="a-word-inside-an-identifier"),
    ],
)
def test_names_type(statement: str, types: set[str], named: bool) -> None:
    assert relevance.names_type(statement, types) is named


@pytest.mark.parametrize(
    ("reason", "edits", "annotations", "marks"),
    [
        ("cosmetic: annotations (removed int; added float)", "fresh", None, True),
        ("cosmetic: annotations (removed str)", "fresh", None, False),
        ("cosmetic: annotations", "fresh", None, False),  # the same types, spelled otherwise
        ("cosmetic: annotations (removed int; added float)", "fresh", True, False),
        ("cosmetic: comments", "fresh", None, False),
        ("cosmetic: comments", "mark", None, True),
        ("cosmetic: comments", "mark", True, True),
        ("definition Cart changed", "mark", None, False),  # not a cosmetic edit: not this rule's
        ("cosmetic: docstring added", "fresh", None, False),  # the code says what it said
        ("cosmetic: annotations, docstring added", "fresh", None, False),
        ("cosmetic: docstring rewritten", "fresh", None, True),  # the sentence may have come from it
        ("cosmetic: docstring rewritten", "fresh", True, True),
        ("cosmetic: docstring added", "mark", None, True),
    ],
)
def test_marks(reason: str, edits: str, annotations: bool | None, marks: bool) -> None:
    assert relevance.marks("The limit is an int.", reason, edits=edits, annotations=annotations) is marks


def test_result_turns_a_fresh_cosmetic_item_stale_keeping_where_it_is() -> None:
    r = EvidenceResult("repo://a.py#L1-L2", "fresh", "repo://a.py#L3-L4", "cosmetic: annotations (added int)", "tok", "b" * 40)
    got = relevance.result("It takes an int.", r, edits="fresh", annotations=None)
    assert (got.status, got.current_resource, got.reason, got.current_version) == ("stale", r.current_resource, r.reason, "tok")
    assert relevance.result("It takes a limit.", r, edits="fresh", annotations=None) is r


def test_a_summary_rewritten_does_not_mark_a_code_example() -> None:
    example = "The python example starting `add([], \"pear\")` (3 lines) works with the code as it is."
    assert not relevance.marks(example, "cosmetic: docstring rewritten", edits="fresh", annotations=None)
    assert relevance.marks(example, "cosmetic: docstring rewritten", edits="mark", annotations=None)


@pytest.mark.parametrize(
    ("statement", "marked"),
    [
        ("A Client verifies TLS unless told otherwise.", True),  # `verify`, inflected
        ("The chunk size is 64 KiB.", True),
        ("Pass `--chunk-size` to read less.", True),
        ("A Client sends requests.", False),
        ("It takes a limit.", False),  # `limitless` is no parameter of it: the reason names verify, chunk_size
    ],
)
def test_a_parameter_added_marks_the_sentence_naming_it(statement: str, marked: bool) -> None:
    reason = "cosmetic: parameters added (verify, chunk_size)"
    assert relevance.marks(statement, reason, edits="fresh", annotations=None) is marked
    assert not relevance.marks(statement, reason, edits="fresh", annotations=None, parameters=True)


@pytest.mark.parametrize(
    ("statement", "marked"),
    [
        ('The python example starting `uvicorn.run(app, port=5000)` (1 line) works with the code as it is.', False),
        ("The pycon example starting `>>> C()` (2 lines) works with the code as it is.", True),  # its output may follow
        ("The console example starting `uvicorn --help` (96 lines) works with the code as it is.", True),
        ("The server logs with its default configuration.", True),  # speaks of defaults
    ],
)
def test_a_default_changed_marks_an_example_that_shows_output_not_one_that_shows_code(statement: str, marked: bool) -> None:
    """uvicorn's `run(log_config=None)` becoming `LOGGING_CONFIG` left its `uvicorn.run(...)`
    examples working as written: an example showing code is not marked; a session's or a
    console's output may follow the default, so theirs are."""
    reason = "cosmetic: defaults changed (log_config)"
    assert relevance.marks(statement, reason, edits="fresh", annotations=None) is marked


@pytest.mark.parametrize(
    ("statement", "marked"),
    [
        ("If you have Rich installed, errors are printed nicely.", False),
        ("The console example starting `pip install typer` (1 line) works with the code as it is.", False),
        ("Typer needs Rich 12.3 or newer for its panels.", True),
        ("Install at least the minimum version of Rich.", True),
        ("The console example starting `pip install \"rich>=10\"` (1 line) works with the code as it is.", True),
    ],
)
def test_version_bounds_moved_mark_only_a_sentence_about_versions(statement: str, marked: bool) -> None:
    """typer's `"rich >=10.11.0"` becoming `>=12.3.0` (diff/requirements.py) leaves "If you have
    Rich installed" and `pip install typer` as true as they were; a sentence about versions not."""
    reason = "cosmetic: version bounds (rich)"
    assert relevance.marks(statement, reason, edits="fresh", annotations=None) is marked
    assert relevance.marks(statement, reason, edits="mark", annotations=None) is True


def test_a_roles_markup_is_no_word_a_docstring_rewrite_took_out() -> None:
    """attrs' "Fix docstring markup" turned {func}`attrs.make_class` into `attrs.make_class` in
    `field`'s docstring: the only word it took out was the role's "func", and every sentence
    citing {func}`attrs.field` was marked for it. A role's markup is no word, on either side."""
    from openwiki_git.claims.docstring_edits import words  # noqa: PLC0415 - the function under test

    assert "func" not in words("mostly for {func}`attrs.make_class`. Please note, :py:meth:`x.y` too")
    assert "func" in words("a func, not a role")
    assert not relevance.marks("and {func}`attrs.field()` to define an attribute.", "cosmetic: docstring rewritten (func)",
                               edits="fresh", annotations=None)
