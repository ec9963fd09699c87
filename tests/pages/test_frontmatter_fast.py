"""Differential: the stdlib fast reader (frontmatter_core.read_fast) against the ruamel path
(frontmatter.parse) over generated front matter. They agree, or the fast one declines (None for
the block, or UNREAD for a value); it never returns a value ruamel does not. Also: yamlio's
timestamps-as-text is local to our YAML instances."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openwiki_git.errors import SchemaError
from openwiki_git.formats import yamlio
from openwiki_git.pages import frontmatter
from openwiki_git.pages.frontmatter_core import UNREAD, boundary, read_fast

KEYS = st.sampled_from(["type", "title", "tags", "stale_after", "a", "b_c", "x-y", "true", "null", "n"])
WORDS = st.sampled_from(
    ["x", "Hello world", "a#b", "a #c", "2026-01-01", "2026-01-01T10:00:00Z", "2026-01-01 10:00:00 +02:00",
     "1", "0", "007", "1.5", ".inf", "-3", "+1", "0x1f", "true", "False", "null", "~", "yes", "no", "on",
     "a: b", "a:", ":a", "-a", "- a", "*x", "&x y", "!tag v", "|", ">", "%x", "@x", "`x`", "=", "<<",
     "it's", 'say "hi"', "é ü", "\u2028", "\x85", "a,b", "[x]", "{x}", "?", "a  ", "", " ",
     "2024 review", "1/2", "3 items", "1e3", "1_000", "+.5", "1:20", "0o17", "-.inf", "12:30:00"]
)


def _quoted(word: str, style: str) -> str:
    if style == "double":
        return '"' + word + '"'
    if style == "single":
        return "'" + word.replace("'", "''") + "'"
    return word


SCALARS = st.builds(_quoted, WORDS, st.sampled_from(["plain", "plain", "double", "single"]))
COMMENT = st.sampled_from(["", "", " # note", "  #x", "#glued"])


@st.composite
def entries(draw: Any) -> str:
    key = draw(KEYS)
    kind = draw(st.sampled_from(["scalar", "scalar", "flow", "block", "nested"]))
    sep = draw(st.sampled_from([": ", ":  ", " : ", ":"]))
    if kind == "scalar":
        return f"{key}{sep}{draw(SCALARS)}{draw(COMMENT)}\n"
    if kind == "flow":
        items = draw(st.lists(SCALARS, max_size=3))
        return f"{key}{sep}[{', '.join(items)}]{draw(COMMENT)}\n"
    if kind == "block":
        indent = draw(st.sampled_from(["", "  ", "    "]))
        items = draw(st.lists(SCALARS, min_size=1, max_size=3))
        return f"{key}:{draw(COMMENT)}\n" + "".join(f"{indent}- {i}\n" for i in items)
    return f"{key}:\n  {draw(KEYS)}: {draw(SCALARS)}\n"


@st.composite
def pages(draw: Any) -> str:
    body = "".join(draw(st.lists(st.one_of(entries(), st.sampled_from(["# c\n", "\n", "  # c\n"])), max_size=6)))
    if draw(st.booleans()) and body:
        pairs = draw(st.lists(st.tuples(KEYS, SCALARS), min_size=1, max_size=3))
        body = "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}\n"
    bom = draw(st.sampled_from(["", "\ufeff"]))
    close = draw(st.sampled_from(["---", "..."]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return (bom + "---\n" + body + close + "\nBody\n").replace("\n", newline)


@pytest.mark.filterwarnings("ignore::ruamel.yaml.error.ReusedAnchorWarning")  # `a: &x v` twice: not our concern
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages())
def test_fast_reader_agrees_with_ruamel_or_declines(page):
    sp = boundary(page)
    assert sp is not None and sp.present
    fast = read_fast(sp.yaml)
    try:
        fm = frontmatter.parse(page, filename="p.md")
    except SchemaError:
        assert fast is None or UNREAD in fast.values(), (page, fast)  # ruamel refuses: so must the fast one
        return
    if fast is None:
        return
    data = {} if fm is None else fm.data
    assert set(fast) == set(data), (page, fast, data)
    for key, value in fast.items():
        if value is not UNREAD:
            assert value == data[key] and type(value) is type(data[key]), (page, key, value, data[key])


def test_the_fast_reader_reads_the_common_page():
    page = "---\ntype: Reference\ntitle: \"A: b\"\ntags: [x, y]\nstale_after: 2026-01-01T00:00:00Z\n---\n"
    sp = boundary(page)
    assert sp is not None
    fm = frontmatter.parse(page, filename="p.md")
    assert fm is not None and read_fast(sp.yaml) == fm.data


def test_text_timestamps_are_local_to_our_instances():
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import RoundTripConstructor, SafeConstructor

    before_safe = dict(SafeConstructor.yaml_constructors)
    before_rt = dict(RoundTripConstructor.yaml_constructors)
    assert yamlio.load_yaml("at: 2026-01-01\n", filename="c.yml") == {"at": "2026-01-01"}
    fm = frontmatter.parse("---\nat: 2026-01-01\n---\n", filename="p.md")
    assert fm is not None and fm.data == {"at": "2026-01-01"}
    assert SafeConstructor.yaml_constructors == before_safe
    assert RoundTripConstructor.yaml_constructors == before_rt
    import datetime

    assert type(YAML(typ="safe", pure=True).load("at: 2026-01-01\n")["at"]) is datetime.date
    assert type(YAML(typ="safe").load("at: 2026-01-01\n")["at"]) is datetime.date
    assert type(YAML().load("at: 2026-01-01\n")["at"]) is datetime.date
