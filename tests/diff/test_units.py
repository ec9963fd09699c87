"""diff/units.follow: cited Python syntax found again by name after an edit rewrote the lines
around it (typer's parameters rewritten as `Annotated[T, Doc("...")]`). Pure."""

from __future__ import annotations

import pytest

from openwiki_git.diff.units import follow
from tests.support.annotated_app import ANNOTATED_APP, APP

OLD = """import os

HAS_RICH = os.getenv("RICH")


""" + APP + """

def launch(url: str, wait: bool = False) -> int:
    return 0
"""

NEW = """import os
from typing import Annotated

HAS_RICH = os.getenv(
    "RICH", True
)


""" + ANNOTATED_APP.replace("class App:\n", 'class App:\n    """An app."""\n\n') + """

def launch(
    url: Annotated[str, Doc("The URL.")],
    wait: bool = False,
) -> int:
    return 0
"""


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_parameter_is_followed_to_all_its_new_lines() -> None:
    line = _line(OLD, "show_locals: bool")
    assert follow("app.py", OLD, NEW, line, line) == (_line(NEW, "show_locals: Annotated"), _line(NEW, 'Doc("Show the values') + 1)


def test_several_parameters_of_one_function_are_followed_together() -> None:
    first, last = _line(OLD, "name: str"), _line(OLD, "short: bool")
    assert follow("app.py", OLD, NEW, first, last) == (_line(NEW, "name: Annotated"), _line(NEW, 'Doc("Short tracebacks') + 1)


def test_a_one_line_signature_is_followed_to_its_new_lines() -> None:
    line = _line(OLD, "def launch")
    assert follow("app.py", OLD, NEW, line, line) == (_line(NEW, "def launch"), _line(NEW, ") -> int:"))


def test_an_assignment_and_a_whole_definition_are_followed() -> None:
    line = _line(OLD, "HAS_RICH")
    assert follow("app.py", OLD, NEW, line, line) == (_line(NEW, "HAS_RICH"), _line(NEW, "HAS_RICH") + 2)
    start, end = _line(OLD, "class App"), _line(OLD, "self.show_locals = show_locals")
    assert follow("app.py", OLD, NEW, start, end) == (_line(NEW, "class App"), _line(NEW, "self.show_locals = show_locals"))


@pytest.mark.parametrize(
    ("start_needle", "end_needle", "why"),
    [
        ("show_locals: bool", "self.show_locals = show_locals", "parameters and the body: not one thing"),
        ("import os", "import os", "an import is not followed"),
        ("return 0", "return 0", "a statement inside a body is not followed"),
    ],
)
def test_a_range_that_is_not_one_unit_is_not_followed(start_needle: str, end_needle: str, why: str) -> None:
    assert follow("app.py", OLD, NEW, _line(OLD, start_needle), _line(OLD, end_needle)) is None, why


def test_a_parameter_gone_or_a_file_that_does_not_parse_is_not_followed() -> None:
    line = _line(OLD, "show_locals: bool")
    assert follow("app.py", OLD, NEW.replace("show_locals", "locals_shown"), line, line) is None
    assert follow("app.py", OLD, NEW + "\ndef broken(:\n", line, line) is None
    assert follow("app.js", OLD, NEW, line, line) is None  # Python only


def test_an_overloaded_name_is_told_apart_by_its_place_when_both_sides_have_as_many() -> None:
    old = "@overload\ndef f(a: int = 1) -> int: ...\n@overload\ndef f(a: str = 's') -> str: ...\ndef f(a=None):\n    return a\n"
    new = old.replace("a: str = 's'", "a: Annotated[\n    str,\n    Doc('A.'),\n] = 's'")
    line = _line(old, "a: str")
    assert follow("m.py", old, new, line, line) == (line, line + 3)  # the one-line `def` is its signature
    old2 = (
        "@overload\ndef f(\n    a: int = 1,\n) -> int: ...\n@overload\ndef f(\n    a: str = 's',\n) -> str: ...\n"
        "def f(a=None):\n    return a\n"
    )
    new2 = old2.replace("    a: str = 's',", "    a: Annotated[\n        str,\n        Doc('A.'),\n    ] = 's',")
    line = _line(old2, "a: str")
    assert follow("m.py", old2, new2, line, line) == (line, line + 3)
    third = new2.replace("def f(a=None):", "@overload\ndef f(a: bytes) -> bytes: ...\ndef f(a=None):")
    assert follow("m.py", old2, third, line, line) is None  # a third overload: which one is which is not known
