"""signatures.parameters_added: what counts as parameters added with defaults, and what does not."""

from __future__ import annotations

import pytest

from openwiki_git.diff.signatures import parameters_added

OLD = "def f(a, b: int = 1, *, c=2) -> int:\n    pass\n"


@pytest.mark.parametrize(
    ("new", "added"),
    [
        ("def f(a, b: int = 1, d=3, *, c=2) -> int:", ("d",)),
        ("def f(a, b: int = 1, *, e=1, c=2, g=3) -> int:", ("e", "g")),
        ("def f(a, b: int = 1, *args, c=2, **kw) -> int:", ("args", "kw")),
        ("def f(\n    a,\n    b: int = 1,  # the b\n    *,\n    c=2,\n    rich=None,\n) -> int:", ("rich",)),
        ("def f(a, d=3, b: int = 1, *, c=2) -> int:", None),  # inserted before an existing one
        ("def f(a, b: int = 1, *, c=2, g) -> int:", None),  # no default
        ("def f(a, b: int = 2, *, c=2, g=1) -> int:", None),  # a default changed
        ("def f(a, *, c=2, g=1) -> int:", None),  # one removed
        ("def f(a, b: float = 1, *, c=2, g=1) -> int:", None),  # an annotation changed
        ("def f(a, b: int = 1, *, c=2, g=1) -> str:", None),  # the return annotation changed
        ("def f(b: int = 1, a=0, *, c=2) -> int:", None),  # reordered
        ("async def f(a, b: int = 1, *, c=2, g=1) -> int:", None),
        ("def f(a, b: int = 1, *, c=2) -> int:", None),  # nothing added
    ],
)
def test_parameters_added(new: str, added: tuple[str, ...] | None) -> None:
    assert parameters_added("m.py", OLD, new + "\n    pass\n", "f") == added


def test_with_annotations_they_are_not_compared() -> None:
    new = "def f(a, b: float = 1, *, c=2, g=1) -> str:\n    pass\n"
    assert parameters_added("m.py", OLD, new, "f", annotations=True) == ("g",)


def test_a_class_by_its_init_and_its_class_line() -> None:
    old = "class T(B):\n    '''Doc.'''\n\n    def __init__(self, a=1):\n        pass\n"
    assert parameters_added("m.py", old, old.replace("a=1", "a=1, rich=None"), "T") == ("rich",)
    assert parameters_added("m.py", old, old.replace("(B)", "(C)").replace("a=1", "a=1, rich=None"), "T") is None
    nested = "class C:\n    " + old.replace("\n", "\n    ")
    assert parameters_added("m.py", nested, nested.replace("a=1", "a=1, x=2"), "C.T") == ("x",)


def test_python_only_and_unparsable_sides() -> None:
    assert parameters_added("m.js", OLD, OLD.replace("c=2", "c=2, d=1"), "f") is None
    assert parameters_added("m.py", OLD, "def f(:\n", "f") is None


OVERLOADS = "from typing import overload\n\n@overload\ndef f(a: int) -> int: ...\n@typing.overload\ndef f(a: str) -> str: ...\n"


def test_overload_declarations_before_it_are_not_its_signature() -> None:
    """typer 0.8.0 put `@overload` declarations before `Argument`: the implementation (what Python
    binds, the head's definition) is compared, with or without declarations on either side."""
    old = "def f(a, *, c=2):\n    pass\n"
    new = old.replace("c=2", "c=2, rich=None")
    assert parameters_added("m.py", old, OVERLOADS + new, "f") == ("rich",)
    assert parameters_added("m.py", OVERLOADS + old, OVERLOADS.replace("str", "bytes") + new, "f") == ("rich",)
    assert parameters_added("m.py", old, OVERLOADS + new.replace("a,", "a, b,"), "f") is None  # still judged
    assert parameters_added("m.py", old, new + OVERLOADS, "f") is None  # a declaration last: not the implementation
    assert parameters_added("m.py", old, new + new, "f") is None  # two implementations: ambiguous
