"""A quote as models give it, found in a file's lines (verdicts/quotes.py): the numbering column
copied along, re-indented, cut mid-line at a token's edge, never inside a token; docstring and
comment lines told from code."""

from __future__ import annotations

import pytest

from openwiki_git.verdicts import quotes

LINES = [
    "class Client:\n",
    '    """Sends requests."""\n',
    "    def __init__(self, verify=True, timeout=5.0,\n",
    "                 trust_env=True):\n",
    "        self.verify = verify  # kept\n",
    "TAX_RATE = 0.20  # VAT\n",
]
ALL = [(1, len(LINES))]


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        pytest.param("class Client:", [(1, 1)], id="a-whole-line"),
        pytest.param("      3 |     def __init__(self, verify=True, timeout=5.0,", [(3, 3)], id="numbering-copied"),
        pytest.param("+     3 | def __init__(self, verify=True, timeout=5.0,", [(3, 3)], id="a-plus-row-reindented"),
        pytest.param("   3>| def __init__(self, verify=True, timeout=5.0,", [(3, 3)], id="the-older-marked-row"),
        pytest.param("verify=True", [(3, 3)], id="cut-at-a-parameter"),
        pytest.param("timeout=5.0,\n trust_env=True):", [(3, 4)], id="two-lines-cut-at-both-ends"),
        pytest.param("class Client:\n     3 | x", [], id="not-an-unbroken-run"),
        pytest.param("TAX_RATE = 0.2", [], id="inside-a-number"),
        pytest.param("TAX_RATE = 0", [], id="before-a-dot"),
        pytest.param("erify", [], id="inside-a-word"),
        pytest.param("=", [], id="says-nothing"),
        pytest.param("self.verify = verify  # kept", [(5, 5)], id="white-space-collapsed"),
    ],
)
def test_a_quote_is_found_as_models_give_it(quote: str, found: list[tuple[int, int]]) -> None:
    assert quotes.find(quotes.quote_lines(quote), LINES, ALL) == found


def test_only_the_allowed_lines_are_searched_and_verified_rows_are_told() -> None:
    assert quotes.find(["class Client:"], LINES, [(2, 6)]) == []
    assert quotes.verified_rows("-     3 |     def __init__(self):")
    assert not quotes.verified_rows("+     3 |     def __init__(self):\n-1 is a number")


def test_docstrings_and_comments_are_prose_code_lines_are_not() -> None:
    text = "".join(LINES)
    prose = quotes.prose_lines("x.py", text, LINES)
    assert 2 in prose and 1 not in prose and 3 not in prose and 5 not in prose  # a trailing comment is code
    assert quotes.prose_lines("x.js", "// note\nconst a = 1;\n", ["// note\n", "const a = 1;\n"]) == {1}
    assert 4 not in quotes.prose_lines("x.py", "def f(\n    a,\n    *args,\n):\n    pass\n",
                                       ["def f(\n", "    a,\n", "    *args,\n", "):\n", "    pass\n"])


def test_an_annotated_parameters_doc_prose_is_prose_its_code_is_not() -> None:
    """typer's `Annotated[bool, Doc("...")]`: a cited parameter runs over its `Doc` lines now
    (diff/units.py follows it whole); quoting them alone must not confirm a claim about the code."""
    text = (
        "def f(\n"
        "    show: Annotated[\n"
        "        bool,\n"
        '        Doc("Show the values of local variables."),\n'
        "    ] = False,\n"
        '    n: Annotated[int, Doc("inline")] = 1,\n'
        '    t: Annotated[int, Gt(0), "a note"] = 2,\n'
        "):\n"
        "    pass\n"
    )
    lines = text.splitlines(keepends=True)
    prose = quotes.prose_lines("x.py", text, lines)
    assert 4 in prose  # Doc("...") on its own line
    assert not {2, 3, 5, 6, 7} & prose  # the name, the type, the default; a line that holds code too
