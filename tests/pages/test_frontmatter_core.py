"""The one front-matter boundary (frontmatter_core.boundary), pinned through every former owner.

The copies disagreed on three pages; each disagreement has a test here, through each module that
used to find the boundary itself (also ground_refs and merge_driver, two more copies): a BOM page
(body offset counts the BOM), a `...` closing line (closes, as YAML allows), a page that starts
with a `----` rule (no front matter).
"""

from __future__ import annotations

import pytest

from openwiki_git.claims import freshness as checker
from openwiki_git.errors import SchemaError
from openwiki_git.markdown import split as mdsplit
from openwiki_git.pages import citations, frontmatter
from openwiki_git.pages.frontmatter_core import UNREAD, body_start, boundary, opens, read_fast
from openwiki_git.store import editing
from openwiki_git.verdicts import prose as refresh_prose

A = "claim_" + "1a2b3c4d" * 4
M = citations.marker(A)

FM = "---\ntitle: Retries stop.\n---\n"  # 29 characters
BOM_PAGE = "\ufeff" + FM + "Retries stop.\n"
DOTS_PAGE = "---\ntitle: Retries stop.\n...\nRetries stop.\n"
RULE_PAGE = "----\ntitle: x\n---\nRetries stop.\n"


# -- the rule itself ---------------------------------------------------------------------------


def test_bom_is_skipped_and_counted():
    sp = boundary(BOM_PAGE)
    assert sp is not None and sp.present
    assert sp.head == "\ufeff---\n" and sp.yaml == "title: Retries stop.\n"
    assert body_start(BOM_PAGE) == len(FM) + 1 == 30
    assert sp.join() == BOM_PAGE


@pytest.mark.parametrize("close", ["---", "...", "--- ", "...\t"])
def test_three_dashes_or_three_dots_close(close):
    page = f"---\na: b\n{close}\nbody\n"
    sp = boundary(page)
    assert sp is not None and sp.yaml == "a: b\n" and sp.body == "body\n"


@pytest.mark.parametrize("page", [RULE_PAGE, "--- x\na: b\n---\n", "\n---\na: b\n---\n", "----\n", "# T\n---\na: b\n---\n"])
def test_only_an_exact_first_line_opens(page):
    sp = boundary(page)
    assert sp is not None and not sp.present and sp.body == page
    assert body_start(page) == 0 and not opens(page)


@pytest.mark.parametrize("page", ["---\na: b\n", "---", "\ufeff---\n", "---\na: b\n....\n"])
def test_never_closed(page):
    assert boundary(page) is None and body_start(page) == 0 and opens(page)
    with pytest.raises(SchemaError, match="never closed"):
        frontmatter.split(page, filename="p.md")


def test_crlf_and_closing_line_at_the_end():
    sp = boundary("---\r\na: b\r\n---")
    assert sp is not None and sp.newline == "\r\n" and sp.close == "---" and sp.body == ""


# -- each former owner, on each page the copies disagreed about --------------------------------


def test_frontmatter_parse():
    bom = frontmatter.parse(BOM_PAGE, filename="p.md")
    assert bom is not None and bom.data == {"title": "Retries stop."} and bom.split.body_start == 30
    dots = frontmatter.parse(DOTS_PAGE, filename="p.md")  # was: "never closed"
    assert dots is not None and dots.data == {"title": "Retries stop."} and dots.split.body == "Retries stop.\n"
    assert frontmatter.parse(RULE_PAGE, filename="p.md") is None


@pytest.mark.parametrize("page", [BOM_PAGE, DOTS_PAGE])
def test_citations_marker_goes_into_the_body(page):
    out = citations.insert_marker(page, "Retries stop.", A)
    assert out is not None and out.endswith("Retries stop." + M + "\n")
    assert out.count(M) == 1 and out.index(M) > body_start(page)


def test_citations_rule_page_has_no_front_matter():
    # `----` opens no front matter: the `title:` line is prose, a sentence that can hold a marker
    out = citations.insert_marker("----\ntitle: Retries stop.\n---\nRetries stop.\n", "title: Retries stop.", A)
    assert out == "----\ntitle: Retries stop." + M + "\n---\nRetries stop.\n"


@pytest.mark.parametrize("fm", ["\ufeff---\ntitle: a" + M + "\n---\n", "---\ntitle: a" + M + "\n...\n"])
def test_refresh_core_ignores_a_marker_in_front_matter(fm):
    assert refresh_prose.paragraph_of(fm + "\nNo marker.\n", A) is None  # BOM page: was found at 0
    assert refresh_prose.paragraph_of(fm + "\nRetries stop." + M + "\n", A) == "Retries stop." + M


def test_refresh_core_rule_page_body_starts_at_zero():
    page = "----\nRetries stop." + M + "\n---\nmore\n"
    assert refresh_prose.paragraph_of(page, A) == page.strip("\n")  # was: body at offset 15, not found


@pytest.mark.parametrize(
    ("page", "title"),
    [
        ("\ufeff---\ntitle: Hello\n---\n\nBody text.\n", "Hello"),  # was: no front matter, read as prose
        ("---\ntitle: Hello\n...\n\nBody text.\n", "Hello"),
    ],
)
def test_mdsplit_reads_front_matter(page, title):
    doc = mdsplit.split(page, "p.md")
    assert doc.meta == {"title": title}
    assert not any("title:" in t for t in doc.texts)


def test_mdsplit_rule_page_has_no_front_matter():
    doc = mdsplit.split("----\ntitle: Hello\n---\n\nBody text.\n", "p.md")
    assert doc.meta == {}


@pytest.mark.parametrize(
    "page",
    [
        "\ufeff---\nstale_after: 2020-01-01T00:00:00Z\n---\n",  # was: None (BOM)
        '---\n{type: Reference, stale_after: "2020-01-01T00:00:00Z"}\n---\n',  # was: None (flow style)
        "---\nstale_after: '2020-01-01T00:00:00Z' # c\n...\n",
    ],
)
def test_checker_stale_after(page):
    assert checker.page_stale_after(page) == "2020-01-01T00:00:00Z"


def test_checker_stale_after_declined_or_absent():
    assert checker.page_stale_after("----\nstale_after: 2020-01-01T00:00:00Z\n---\n") is None
    assert checker.page_stale_after("---\nstale_after: |\n  2020\n---\n") == "?"  # left to YAML: passed
    assert checker.page_stale_after("---\nstale_after: ~\n---\n") is None
    assert checker.page_stale_after("---\nstale_after: 5\n---\n") == "?"


def test_editing_and_ground_use_the_rule():
    # editing.render_page and ground's writing ask `opens`: a rule page is a page without front matter
    assert editing.opens is opens
    from openwiki_git.ground import writing as ground

    assert ground.opens is opens


# -- the fast reader on its own ----------------------------------------------------------------


def test_read_fast_values():
    got = read_fast(
        "type: Reference\ntags: [a, 'b c']\nsources:\n  - x.py\n  - \"y z\"\nn: 3\nok: true\nnone:\nat: 2026-01-01\nyear: 2024 review\n"
    )
    assert got == {
        "type": "Reference",
        "tags": ["a", "b c"],
        "sources": ["x.py", "y z"],
        "n": 3,
        "ok": True,
        "none": None,
        "at": "2026-01-01",
        "year": "2024 review",
    }


def test_read_fast_declines():
    assert read_fast("a: 1.5\nb: |\n  x\nc:\n  d: 1\n") == {"a": UNREAD, "b": UNREAD, "c": UNREAD}
    assert read_fast("a: 1\na: 2\n") is None  # duplicate key: YAML's error
    assert read_fast('"q": 1\n') is None
    assert read_fast("a:\n\tb\n") is None


@pytest.mark.parametrize("fm", ["\ufeff---\ntitle: see `src/a.py`\n---\n", "---\ntitle: see `src/a.py`\n...\n"])
def test_ground_refs_skip_the_front_matter(fm):
    from openwiki_git.ground import refs as ground_refs

    refs = ground_refs.page_refs(fm + "\nUse `src/b.py` here.\n").refs
    assert [r.name for r in refs] == ["src/b.py"]


def test_ground_refs_rule_page_is_all_body():
    from openwiki_git.ground import refs as ground_refs

    refs = ground_refs.page_refs("----\nUse `src/a.py` here.\n---\n").refs
    assert [r.name for r in refs] == ["src/a.py"]


@pytest.mark.parametrize(
    ("page", "front"),
    [
        ("\ufeff---\na: b\n---\nprose\n", "\ufeff---\na: b\n---\n"),  # was: no front matter (BOM)
        ("---\na: b\n...\nprose\n", "---\na: b\n...\n"),  # was: no front matter ('...')
        ("----\na: b\n---\nprose\n", ""),
    ],
)
def test_merge_driver_split_page(page, front):
    from openwiki_git.claims import merge as claims_merge

    got_front, prose, block = claims_merge.split_page(page)
    assert got_front == front and got_front + prose == page and block == ""
