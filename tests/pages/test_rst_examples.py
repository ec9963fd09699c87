"""A reStructuredText page's code examples (pages/rst_examples.py, through pages/example_reader.py),
read with docutils as Sphinx reads them, and the marker line that guards one."""

from __future__ import annotations

from openwiki_git.claims import examples as claim_examples
from openwiki_git.pages import citations, example_reader, rst_examples
from openwiki_git.pages.examples import CONSOLE, PYCON, PYTHON
from openwiki_git.verdicts import prose

PAGE = """\
Guide
=====

.. testsetup::

    from pkg import *

Retry three times:

.. testcode::
    :hide:

    @retry(stop=stop_after_attempt(3))
    def f():
        raise Exception

.. testoutput::

    nothing to see

Or build it by hand::

    r = Retrying(stop=stop_after_attempt(3))

- In a list item:

  .. code-block:: pycon

     >>> import pkg
     >>> pkg.Retrying()

.. code-block:: console

   $ pkg --help

.. code-block:: yaml

   key: value

>>> from pkg import retry
"""


def test_each_code_block_is_an_example_of_its_kind() -> None:
    found = rst_examples.examples(PAGE)
    assert [(e.kind, e.lang, e.line, e.code_line, e.indent) for e in found] == [
        (PYTHON, "testsetup", 4, 6, ""),
        (PYTHON, "testcode", 10, 13, ""),  # its option line is not code
        (PYTHON, "", 21, 23, ""),  # a literal block: its paragraph introduces it
        (PYCON, "pycon", 27, 29, "  "),  # inside the list item: a marker goes at the directive's indentation
        (CONSOLE, "console", 32, 34, ""),
        (PYCON, "", 40, 40, ""),  # a doctest block
    ]  # the testoutput (output) and the yaml block (another language) are none
    assert found[1].code == "@retry(stop=stop_after_attempt(3))\ndef f():\n    raise Exception\n"
    assert example_reader.read(PAGE, rst=True) == found
    assert example_reader.read(PAGE) != found  # read without its name, a page without a reST marker is Markdown


def test_a_star_import_of_an_earlier_block_names_the_bare_calls() -> None:
    """sphinx.ext.doctest runs a page's testsetup before its testcode: `from pkg import *` there
    makes `retry` and `stop_after_attempt` pkg's; builtins and the example's own names stay out."""
    found = rst_examples.examples(PAGE)
    uses = claim_examples.page_uses(found)
    calls = [(c.name, c.starred) for c in uses[1].calls]
    assert calls == [("pkg.retry", True), ("pkg.stop_after_attempt", True), ("Exception", False)]  # `raise Exception`: Python's
    assert [c.name for c in uses[2].calls] == ["pkg.Retrying", "pkg.stop_after_attempt"]
    assert "pkg.Exception" not in {c.name for u in uses for c in u.calls}


def test_a_marker_line_after_an_example_is_found_as_the_examples() -> None:
    cid = "claim_1a2b3c4d" + "0" * 24
    text = PAGE.replace("    r = Retrying(stop=stop_after_attempt(3))\n", "    r = Retrying(stop=stop_after_attempt(3))\n\n.. c-1a2b3c4d\n")
    ex = example_reader.read(text)[2]  # now read as reST: it carries a marker line
    assert ex.markers == ("c-1a2b3c4d",)
    assert example_reader.closed_by(text, citations.example_marker_at(text, cid)) == ex
    assert citations.rst_example(text, cid) == ex
    assert citations.prose_before(text, cid) == ex.statement
    assert citations.sentence_line(text, cid) == 21
    assert citations.states(text, cid, ex.statement) is True
    assert citations.rst_sentence(text, cid, ex.statement) is None  # an example is no sentence of a paragraph
    assert prose.paragraph_of(text, cid) == "Or build it by hand::\n\n    r = Retrying(stop=stop_after_attempt(3))\n\n.. c-1a2b3c4d"


def test_a_paragraphs_marker_line_is_not_an_examples() -> None:
    cid = "claim_5e6f7a8b" + "0" * 24
    text = PAGE.replace("Retry three times:\n", "Retry three times, or more.\n\n.. c-5e6f7a8b\n")
    assert citations.rst_example(text, cid) is None
    assert citations.prose_before(text, cid) == "Retry three times, or more."
    assert prose.paragraph_of(text, cid) == "Retry three times, or more.\n\n.. c-5e6f7a8b"


def test_a_marker_is_inserted_after_an_example_by_its_statement() -> None:
    ex = rst_examples.examples(PAGE)[3]
    cid = "claim_9" + "0" * 31
    text = citations.insert_marker(PAGE, ex.statement, cid, rst=True)
    assert text is not None
    assert "     >>> pkg.Retrying()\n\n  .. c-90000000\n\n.. code-block:: console" in text
    assert rst_examples.examples(text)[3].markers == ("c-90000000",)


def test_a_marker_line_after_a_directive_left_without_its_code_follows_no_paragraph() -> None:
    """An example's code deleted and its directive and marker line left: the marker follows no
    paragraph (explicit markup is none), so its claim's sentence is gone (the hook retracts it),
    rather than the directive read as the claim's new sentence."""
    cid = "claim_1a2b3c4d" + "0" * 24
    text = "Guide\n=====\n\nRetry three times:\n\n.. testcode::\n\n.. c-1a2b3c4d\n\nThe end.\n"
    assert citations.rst_paragraph(text, cid) is None and citations.prose_before(text, cid) is None
    indented = "Retry::\n\n    .. not markup, code\n\n.. c-1a2b3c4d\n"  # a literal block's line that starts with `..`
    assert citations.rst_paragraph(indented, cid) is not None
