"""Citation markers in the prose and the generated block of footnote definitions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from openwiki_git.model import Claim, Evidence, Mark
from openwiki_git.pages import citations

A = "claim_" + "1a2b3c4d" * 4
B = "claim_" + "99" * 16
TOKEN = "repo-lines-v1:sha256:" + "0" * 64 + ":e30"
FILE_TOKEN = "repo-file-v1:sha256:" + "0" * 64


def claim(cid: str, *resources: str, mark: bool = False) -> Claim:
    ev = tuple(Evidence(r, TOKEN if "#" in r else FILE_TOKEN) for r in resources)
    return Claim(cid, "S.", ev, mark=Mark("stale", "2026-01-01T00:00:00Z") if mark else None)


def test_label_and_marker():
    assert citations.label(A) == "c-1a2b3c4d"
    assert citations.marker(A) == "[^c-1a2b3c4d]"


def test_link_is_relative_to_the_page():
    assert citations.link_for(".openwiki/guide.md", "repo://src/app.py#L3-L9") == "../src/app.py#L3-L9"
    assert citations.link_for(".openwiki/a/b/page.md", "repo://src/app.py") == "../../../src/app.py"
    assert citations.link_for("wiki.md", "repo://README.md#L1-L1") == "README.md#L1-L1"
    # The encoded path is kept, so a space or a '#' in a file name stays a valid link.
    assert citations.link_for(".openwiki/g.md", "repo://docs/my%20file%23x.md#L2-L2") == "../docs/my%20file%23x.md#L2-L2"


def test_definition_shows_every_resource_and_the_mark():
    line = citations.definition(".openwiki/g.md", claim(A, "repo://src/a.py#L1-L2", "repo://src/b.py"))
    assert line == "[^c-1a2b3c4d]: [src/a.py#L1-L2](../src/a.py#L1-L2), [src/b.py](../src/b.py)"
    marked = citations.definition(".openwiki/g.md", claim(A, "repo://src/a.py#L1-L2", mark=True))
    assert marked.startswith("[^c-1a2b3c4d]: [src/a.py#L1-L2](../src/a.py#L1-L2) (⚠ stale")


def test_sync_appends_updates_and_removes_the_block():
    page = "# Title\n\nA fact.[^c-1a2b3c4d]\n"
    one = citations.sync(page, ".openwiki/g.md", [claim(A, "repo://src/a.py#L1-L2")])
    assert one.startswith(page)
    assert one == page + "\n" + citations.render_block(".openwiki/g.md", [claim(A, "repo://src/a.py#L1-L2")])
    assert citations.sync(one, ".openwiki/g.md", [claim(A, "repo://src/a.py#L1-L2")]) == one  # idempotent
    moved = citations.sync(one, ".openwiki/g.md", [claim(A, "repo://src/a.py#L5-L6")])
    assert "#L5-L6" in moved and "#L1-L2" not in moved and moved.startswith(page)
    assert citations.sync(moved, ".openwiki/g.md", []) == page


def test_sync_keeps_text_after_the_block():
    block = citations.render_block(".openwiki/g.md", [claim(A, "repo://a.py#L1-L1")])
    page = "Intro.\n\n" + block + "\nTrailer the user wrote.\n"
    out = citations.sync(page, ".openwiki/g.md", [claim(A, "repo://a.py#L2-L2")])
    assert out.startswith("Intro.\n\n") and out.endswith("\nTrailer the user wrote.\n")
    assert "#L2-L2" in out


def test_sync_without_trailing_newline_and_empty_page():
    assert citations.sync("No newline", "p.md", [claim(A, "repo://a.py")]).startswith("No newline\n\n<!-- openwiki-git")
    assert citations.sync("", "p.md", []) == ""
    assert citations.sync("x\n", "p.md", []) == "x\n"


def test_markers_in_ignores_definitions_and_the_block():
    block = citations.render_block("p.md", [claim(A, "repo://a.py"), claim(B, "repo://b.py")])
    text = "One.[^c-1a2b3c4d]\n\n[^c-99999999]: a hand-written definition\n\n" + block
    assert citations.markers_in(text) == {"c-1a2b3c4d"}
    assert citations.has_marker(text, A) and not citations.has_marker(text, B)


def test_insert_marker():
    text = "# T\n\nRetries stop after five attempts. Then it fails.\n"
    out = citations.insert_marker(text, "Retries stop after five attempts.", A)
    assert out == "# T\n\nRetries stop after five attempts.[^c-1a2b3c4d] Then it fails.\n"
    assert citations.insert_marker(out, "Retries stop after five attempts.", A) is None  # already there
    assert citations.insert_marker(text, "Not in the page.", A) is None


def test_insert_marker_skips_front_matter_and_the_block():
    text = "---\ntitle: Retries stop.\n---\n\n# T\n\nRetries stop.\n"
    out = citations.insert_marker(text, "Retries stop.", A)
    assert out == "---\ntitle: Retries stop.\n---\n\n# T\n\nRetries stop.[^c-1a2b3c4d]\n"
    only_in_front_matter = "---\ntitle: Retries stop.\n---\n\n# T\n"
    assert citations.insert_marker(only_in_front_matter, "Retries stop.", A) is None
    block = citations.render_block("p.md", [claim(B, "repo://src/retries.py")])
    assert citations.insert_marker("Body.\n\n" + block, "src/retries.py", A) is None


def test_remove_marker():
    text = "One.[^c-1a2b3c4d] Two.[^c-99999999]\n"
    assert citations.remove_marker(text, A) == "One. Two.[^c-99999999]\n"


@settings(max_examples=200, deadline=None)
@given(
    prose=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200),
    lines=st.lists(st.tuples(st.integers(1, 500), st.integers(0, 20)), min_size=0, max_size=4),
)
def test_sync_only_touches_its_block(prose, lines):
    """Whatever the prose, sync twice is sync once, and stripping the block gives the prose back
    (modulo trailing newlines)."""
    claims = [claim(f"claim_{i:032x}", f"repo://src/f{i}.py#L{s}-L{s + n}") for i, (s, n) in enumerate(lines)]
    once = citations.sync(prose, ".openwiki/p.md", claims)
    assert citations.sync(once, ".openwiki/p.md", claims) == once
    if claims and "<!-- openwiki-git:citations" not in prose:
        assert once.startswith(prose.rstrip("\n")) or not prose.strip()
        assert citations.strip_block(once).rstrip("\n") == prose.rstrip("\n")


def test_marker_lines_of_a_page_are_each_claims_has_marker_and_sentence_line() -> None:
    """check --base names the lines of many claims of one page from one split of its blocks: the
    same markers and lines as has_marker and sentence_line per claim, wherever the markers stand
    (a paragraph's second sentence, a list item, an admonition, a code block, no marker at all)."""
    ids = [f"claim_{i + 1:08x}{0:024x}" for i in range(6)]
    m = [citations.marker(cid) for cid in ids]
    text = (
        "---\ntitle: T\n---\n\n# Page\n\n"
        f"First sentence.{m[0]} Second one\nruns on.{m[1]}\n\n"
        f"- an item says so.{m[2]}\n\n"
        f'!!! note "N"\n    Inside a note.{m[3]}\n\n'
        f"```\ncode {m[4]}\n```\n"
    )
    assert citations.marker_lines(text, ids) == {cid: citations.sentence_line(text, cid) for cid in ids if citations.has_marker(text, cid)}
    assert citations.marker_lines(text, ids)[ids[1]] == 7 and ids[5] not in citations.marker_lines(text, ids)
    assert citations.marker_lines(text, ids, unmarked_page_ok=True) == citations.marker_lines(text, ids)
    # the generated block's definitions and a marker inside it are no markers; a second marker
    # of one claim leaves its first where it was
    block = f"\n{citations.BEGIN}\n{m[0]}: one\n{m[5]}: six, cited {m[5]}\n{citations.END}\n"
    blocked = text + f"\nAgain.{m[0]}\n" + block
    one_by_one = {cid: citations.sentence_line(blocked, cid) for cid in ids if citations.has_marker(blocked, cid)}
    assert citations.marker_lines(blocked, ids) == one_by_one
    assert citations.marker_lines(blocked, ids) == citations.marker_lines(text, ids)
    unmarked = text.replace("[^c-", "[c-")
    assert citations.marker_lines(unmarked, ids) == {}
    assert citations.marker_lines(unmarked, ids, unmarked_page_ok=True) == dict.fromkeys(ids)
