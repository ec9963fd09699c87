"""A page's code examples (pages/examples.py): which blocks are examples, where each ends, the
comment marker after it, the statement its claim carries; and the citations functions that read an
example's claim (its "sentence" is the example)."""

from __future__ import annotations

from openwiki_git.pages import citations
from openwiki_git.pages import examples as pe

CID = "claim_1a2b3c4d" + "0" * 24

PAGE = """\
---
type: Reference
---

# Usage

Install it:

```console
$ pip install pkg
```

```Python title="main.py" hl_lines="3"
import pkg
from pkg import Client as C

# a client
client = C(verify=False)
```
<!-- c-1a2b3c4d -->

!!! note
    Inside an admonition:

    ```py
    pkg.run(port=1)
    ```

    >>> import pkg
    >>> pkg.add(1, 2)
    3

```
>>> pkg.add(2, 2)
4
```

```yaml
key: value
```

```
$ pkg --help
usage: pkg
```

```python
never closed
"""


def test_the_examples_of_a_page() -> None:
    found = pe.examples(PAGE)
    assert [(e.kind, e.lang, e.line, e.code_line, e.indent, e.markers) for e in found] == [
        ("console", "console", 9, 10, "", ()),
        ("python", "Python", 13, 14, "", ("c-1a2b3c4d",)),
        ("python", "py", 25, 26, "    ", ()),
        ("pycon", "", 29, 29, "", ()),  # indented `>>>` lines, no fence
        ("pycon", "", 33, 34, "", ()),  # a fence without a language holding `>>>` lines
        ("console", "", 42, 43, "", ()),  # ... or opening with a shell prompt
    ]  # the yaml block is no example, the unclosed fence has no place for a marker
    assert found[2].code == "pkg.run(port=1)\n"
    assert PAGE[found[1].end :].startswith("<!-- c-1a2b3c4d -->\n")
    assert PAGE[found[2].end :].startswith("\n    >>> import pkg")


def test_a_statement_names_the_first_line_that_uses_the_api_and_the_size() -> None:
    console, python, in_note, indented, fenced, _ = pe.examples(PAGE)
    assert console.statement == "The console example starting `pip install pkg` (1 line) works with the code as it is."
    assert pe.first_line(python) == "client = C(verify=False)"  # not the import, the comment or a blank line
    assert python.statement == "The python example starting `client = C(verify=False)` (5 lines) works with the code as it is."
    assert pe.first_line(indented) == "pkg.add(1, 2)" and pe.first_line(fenced) == "pkg.add(2, 2)"
    long = pe.examples("```python\nimport pkg\nx = 1\npkg.go(" + "a" * 100 + ")\n```\n")[0]
    assert pe.first_line(long).startswith("pkg.go(aaa") and pe.first_line(long).endswith("…") and len(pe.first_line(long)) == 80
    quoted = pe.examples("```python\nprint(`x`)\n```\n")[0]
    assert "`` print(`x`) ``" in quoted.statement


def test_citations_read_an_example_claim() -> None:
    cid = CID
    assert citations.has_marker(PAGE, cid)
    python = pe.examples(PAGE)[1]
    assert citations.prose_before(PAGE, cid) == python.statement
    assert citations.states(PAGE, cid, python.statement) is True
    assert citations.states(PAGE, cid, "Something else.") is False
    assert citations.sentence_line(PAGE, cid) == 13  # the opening fence: where a reader finds the example
    assert citations.marker_lines(PAGE, [cid]) == {cid: 13}
    assert pe.closed_by(PAGE, PAGE.index("<!-- c-1a2b3c4d")) == python


def test_claim_add_puts_an_example_claims_marker_after_its_fence() -> None:
    other = "claim_99999999" + "0" * 24
    in_note = pe.examples(PAGE)[2]
    got = citations.insert_marker(PAGE, in_note.statement, other)
    assert got is not None and "    pkg.run(port=1)\n    ```\n    <!-- c-99999999 -->\n\n    >>> import pkg" in got
    python = pe.examples(PAGE)[1]
    again = citations.insert_marker(PAGE, python.statement, other)  # a second claim joins the marker line
    assert again is not None and "```\n<!-- c-1a2b3c4d --> <!-- c-99999999 -->\n" in again
    assert pe.examples(got)[2].markers == ("c-99999999",)
    # and `claim retract` takes the line away again
    assert citations.remove_marker(got, other) == PAGE
