"""The Markdown splitter: sections, paragraph keys that survive edits elsewhere, references."""

from __future__ import annotations

import pickle
import random

import pytest

from openwiki_git.markdown import blocks as mdblocks
from openwiki_git.markdown import builder as mdbuilder
from openwiki_git.markdown import document as mddoc
from openwiki_git.markdown import keys as mdkeys
from openwiki_git.markdown import refs as mdrefs
from openwiki_git.markdown import refscan
from openwiki_git.markdown import split as mdsplit
from openwiki_git.markdown.refs import Ref
from openwiki_git.pages.markers import may_hold
from tests.support.samples import DOC
from tests.support.samples import MARKDOWN_WORDS as _WORDS
from tests.support.samples import document_state as _state
from tests.support.samples import random_markdown as _random_markdown


def keys(doc: mdsplit.Document) -> dict[str, str]:
    return {p.text: p.key for p in doc.paragraphs}


def test_sections_title_and_front_matter() -> None:
    d = mdsplit.split(DOC, "docs/adr/0008-x.md")
    assert d.title == "Retries"  # front matter wins over the heading
    assert d.h1 == "ADR-0008: Exponential backoff"  # the lone H1 is the title, not a section
    assert [(s.key, s.level, s.anchor, s.parent) for s in d.sections] == [
        ("context", 2, "context", ""),
        ("decision", 2, "decision", ""),
        ("decision/limits", 3, "limits", "decision"),
        ("decision-1", 2, "decision-1", ""),
    ]
    assert d.meta["supersedes"] == ["ADR-0003"]
    assert d.meta["amended_by"] == ["[ADR-0010](0010-x.md)"]
    got = keys(d)
    assert got["At most six attempts."].startswith("decision/limits~")
    assert got["Status: Accepted. Superseded by ADR-0015."].startswith("~")


def test_line_numbers_count_front_matter_and_crlf() -> None:
    d = mdsplit.split(DOC.replace("\n", "\r\n"), "x.md")
    by_text = {p.text: (p.start, p.end) for p in d.paragraphs}
    assert by_text["A delivery can fail because the receiver is briefly unavailable."] == (15, 15)
    assert by_text["At most six attempts."] == (25, 25)
    assert [s.line for s in d.sections] == [13, 19, 23, 27]


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda t: t.replace("## Context\n", "## Context\n\nA new first paragraph.\n"), id="insert-before"),
        pytest.param(lambda t: t.replace("It is then retried.\n\n", ""), id="delete-neighbour"),
        pytest.param(lambda t: t.replace("The delay doubles", "The wait doubles"), id="edit-other-section"),
        pytest.param(lambda t: t + "\nA closing paragraph.\n", id="append"),
        pytest.param(lambda t: t.replace("# ADR-0008: Exponential backoff", "# ADR-0008: Backoff"), id="retitle"),
        pytest.param(lambda t: t.replace("Status: Accepted.", "Status: Accepted, and more.\n"), id="edit-status"),
        pytest.param(
            lambda t: t.replace("briefly unavailable.", "briefly\n   unavailable.[^c-0123abcd]"), id="reflow-and-cite"
        ),
    ],
)
def test_paragraph_keys_survive_edits_elsewhere(edit) -> None:  # noqa: ANN001
    before = keys(mdsplit.split(DOC, "x.md"))
    after = mdsplit.split(edit(DOC), "x.md")
    kept = {p.key for p in after.paragraphs}
    for text in ("A delivery can fail because the receiver is briefly unavailable.", "At most six attempts."):
        assert before[text] in kept


def test_editing_a_paragraph_changes_its_key_only() -> None:
    before = keys(mdsplit.split(DOC, "x.md"))
    after = keys(mdsplit.split(DOC.replace("It is then retried.", "It is retried later."), "x.md"))
    assert after["It is retried later."] != before["It is then retried."]
    assert set(before.values()) - {before["It is then retried."]} <= set(after.values())


def test_duplicate_paragraphs_are_numbered_in_order() -> None:
    d = mdsplit.split("# T\n\n## A\n\nSame.\n\nOther.\n\nSame.\n\nSame.\n\n## B\n\nSame.\n", "x.md")
    got = [p.key for p in d.paragraphs]
    base = got[0]
    assert got[:4] == [base, got[1], base + ".2", base + ".3"]
    assert got[4].startswith("b~") and "." not in got[4]
    assert len(set(got)) == len(got)


def test_deterministic_and_picklable() -> None:
    a, b = mdsplit.split(DOC, "x.md"), mdsplit.split(DOC, "x.md")
    assert a.paragraphs == b.paragraphs and a.sections == b.sections and a.relations == b.relations
    c = pickle.loads(pickle.dumps(a))
    assert c.paragraphs == a.paragraphs and c.find(a.paragraphs[2].key) == 2


def test_fenced_code_is_one_paragraph_without_references() -> None:
    text = "# T\n\nBefore.\n\n```python\n# not a heading\nsee ADR-0099\n\n[x](y.md)\n```\n\nAfter ADR-0001.\n\n~~~\nopen\n"
    d = mdsplit.split(text, "x.md")
    code = [p for p in d.paragraphs if p.code]
    assert len(code) == 2 and code[0].start == 5 and code[0].end == 10 and (code[1].start, code[1].end) == (14, 15)
    assert not d.sections
    assert [r for p in d.paragraphs for r in p.refs] == [Ref("id", "ADR-0001")]


def test_second_h1_means_no_title() -> None:
    d = mdsplit.split("# One\n\ntext\n\n# Two\n\nmore\n", "x.md")
    assert d.h1 is None and d.title == "One"
    assert [s.key for s in d.sections] == ["one", "two"]
    assert [p.key.split("~")[0] for p in d.paragraphs] == ["one", "two"]


def test_setext_headings_and_thematic_breaks() -> None:
    d = mdsplit.split("Title\n=====\n\nIntro.\n\n---\n\nPart\n----\nBody.\n", "x.md")
    assert d.h1 == "Title"
    assert [s.key for s in d.sections] == ["part"]
    assert [(p.text, p.section) for p in d.paragraphs] == [("Intro.", ""), ("Body.", "part")]


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        pytest.param("See [the guide](../guides/a.md#setup).", [Ref("link", "../guides/a.md#setup")], id="link"),
        pytest.param("![diagram](img.png) and [web](https://example.com)", [], id="image-and-external"),
        pytest.param("[guide]: docs/guide.md", [Ref("link", "docs/guide.md")], id="link-definition"),
        pytest.param("Decided in ADR-0012 (not UTF-8x).", [Ref("id", "ADR-0012")], id="identifier"),
        pytest.param("[ADR-0012](0012-x.md)", [Ref("link", "0012-x.md")], id="id-inside-link-text"),
        pytest.param('See "Retry policy".', [Ref("see", "Retry policy")], id="see-title"),
        pytest.param("See also docs/runbooks/drain.md.", [Ref("see", "docs/runbooks/drain.md")], id="see-path"),
        pytest.param("see `src/app.py` and see below", [Ref("see", "src/app.py")], id="see-code-path"),
        pytest.param("see `max_attempts`", [], id="see-code-word"),
        pytest.param("see repo://src/a.py#L1-L2", [Ref("see", "repo://src/a.py#L1-L2")], id="see-resource"),
        pytest.param("foresee “x”; overseen", [], id="not-see"),
        pytest.param('See [g](a.md) and "Retry policy".', [Ref("link", "a.md"), Ref("see", "Retry policy")], id="see-list"),
        pytest.param("See ADR-0012, docs/x.md.", [Ref("id", "ADR-0012"), Ref("see", "docs/x.md")], id="see-id-then-path"),
    ],
)
def test_references(text: str, refs: list[Ref]) -> None:
    assert list(mdrefs.refs_in(text)) == refs


@pytest.mark.parametrize(
    ("text", "relations"),
    [
        pytest.param("Status: Superseded by ADR-0012", [("superseded_by", "ADR-0012")], id="status-superseded"),
        pytest.param("* Supersedes ADR-0003 and ADR-0004", [("supersedes", "ADR-0003"), ("supersedes", "ADR-0004")], id="list"),
        pytest.param("Status: Accepted. Amends [ADR-3](0003-x.md).", [("amends", "0003-x.md")], id="status-word-then-verb"),
        pytest.param("This ADR amends ADR-0006.", [("amends", "ADR-0006")], id="this-adr"),
        pytest.param("**Status:** Amended by ADR-0014", [("amended_by", "ADR-0014")], id="bold-label"),
        pytest.param("Attachment to ADR-0011.", [("attaches_to", "ADR-0011")], id="attachment"),
        pytest.param("History: ADR-0007 supersedes ADR-0003.", [], id="not-this-document"),
        pytest.param("Superseded by a better idea.", [], id="no-target"),
    ],
)
def test_relations_from_status_lines(text: str, relations: list[tuple[str, str]]) -> None:
    d = mdsplit.split(text + "\n", "x.md")
    assert [(r.type, r.ref.target) for r in d.relations] == relations
    assert all(r.source == 0 for r in d.relations)


def test_relations_from_front_matter() -> None:
    d = mdsplit.split(DOC, "x.md")
    front = [(r.type, r.ref) for r in d.relations if r.source == -1]
    assert front == [("amended_by", Ref("link", "0010-x.md")), ("supersedes", Ref("id", "ADR-0003"))]
    assert ("superseded_by", Ref("id", "ADR-0015"), 0) in [tuple(r)[:3] for r in d.relations]


def test_markers_are_collected() -> None:
    d = mdsplit.split("# P\n\nRetries stop after five.[^c-1a2b3c4d] Twice.[^c-1a2b3c4d]\n\n[^c-99999999]: def\n", "p.md")
    assert d.paragraphs[0].markers == ("c-1a2b3c4d",)
    assert d.paragraphs[1].markers == ()  # a footnote definition is not a marker


# -- the fast paths agree with the plain ones --------------------------------------------------
# The splitter reads a prose piece in bulk (`_prose`: cut at blank lines once, only the chunks
# with a heading, list or break read line by line) and the markers and references of a document
# in one pass (`refscan.scan`). These tests compare them with the line-by-line reading of each
# region (`_prose_by_region`) and with `refs_in` per paragraph, on seeded random Markdown.

def test_bulk_reading_matches_the_region_by_region_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    texts = [_random_markdown(rng) for _ in range(1500)]
    fast = [_state(mdsplit.split(t, "docs/x.md")) for t in texts]
    monkeypatch.setattr(mdblocks, "_prose", mdblocks._prose_by_region)
    assert fast == [_state(mdsplit.split(t, "docs/x.md")) for t in texts]


def test_scan_matches_refs_in_one_text_at_a_time() -> None:
    rng = random.Random(11)
    pieces = [
        *_WORDS, "sEe", "İ", "\0", "\n", "[a", "b](c.md)", "\n[d]: x.md", '"T"', ", ", " and ", "(see", "see:", "RFC 12",
        "ADR_3", "12",
    ]
    for _ in range(3000):
        texts = ["".join(rng.choice(pieces) + rng.choice(["", " "]) for _ in range(rng.randint(0, 10))) for _ in range(rng.randint(0, 8))]
        markers, refs = refscan.scan(texts)
        assert markers == [mdrefs.markers_in(t) if may_hold(t) else None for t in texts]
        assert refs == [mdrefs.refs_in(t) for t in texts]


# Pieces that test the joined reading's edges: "see" at a text's end or before a NUL, targets
# listed after a link, nested brackets, links whose text holds a NUL, long words, characters
# whose lower-casing changes length (İ) or that fold to "s" (ſ), odd white space, CRLF.
_ODD_PIECES = [
    "see", "See", "SEE", "sEe", "see also", "See the", "see:", "(see", "oversee", "see_", "seé", "ſee", "alſo",
    " ", "  ", "\t", "\n", "\r\n", "\xa0", "\u2003", "\0", "İ", "é", "“T”", '"Q"', "`a/b`", "`w`", "repo://x/y",
    "docs/a.md", "a.md", "a.MD", "x/y,", "w;", ",", ";", " and ", " AND ", " or ", " & ", "andrew", "ADR-0012",
    "RFC-3", "9A-1", "a-1", "x/ADR-2", "ADR-12a", "A" * 70 + "-1", "[l](a.md)", "[l](a.md) and", "[l](<a b.md>)",
    '[l](a.md "t")', "![i](p.png)", "[a [b] c](d/e.md)", "[a", "b](c.md)", "[x]", "](", "]:", "\n[d]: x.md",
    "[d]: <y z.md>", "[^c-1a2b3c4d]", "[^c-1a2b3c4d]:",
    "<!-- c-0123abcd -->", "<!--", "-->", "<!-- c-1a2b3c4d]", "[", "]", "(", ")", "w" * 401, "x" * 398 + "/y",
]


def _odd_text(rng: random.Random) -> str:
    return "".join(rng.choice(_ODD_PIECES) + rng.choice(["", "", " ", "\n"]) for _ in range(rng.randint(0, 12)))


def test_scan_matches_refs_in_on_odd_texts() -> None:
    rng = random.Random(17)
    for _ in range(4000):
        texts = [_odd_text(rng) for _ in range(rng.randint(1, 6))]
        markers, refs = refscan.scan(texts)
        assert markers == [mdrefs.markers_in(t) if may_hold(t) else None for t in texts], texts
        assert refs == [mdrefs.refs_in(t) for t in texts], texts


def test_see_targets_found_in_c_include_every_see_reference() -> None:
    """`_SEE_AT` (read in C over the lower-cased text) finds every place where `_sees` and
    `_see_target_at` give a "see" reference, in texts whose lower-casing keeps their length."""
    rng = random.Random(19)
    for _ in range(4000):
        text = _odd_text(rng).replace("\0", "")
        if len(text.lower()) != len(text):
            continue
        fast = {m.end() for m in refscan._SEE_AT.finditer(text.lower())}
        slow = {at for at in mdrefs._sees(text) if _see_refs_at(text, at)}
        assert slow <= fast, text


def _see_refs_at(text: str, at: int) -> bool:
    return mdrefs.see_target_at(text, at) and any(r.kind == "see" for r in mdrefs.targets(text, at))


def test_atx_reads_headings_as_the_regex_does() -> None:
    rng = random.Random(23)
    alphabet = ["#", "#", "#", " ", " ", "\t", "a", "é", "\xa0", "\x0c", "\r"]
    for _ in range(30000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        m = mdbuilder._ATX.match(line)
        assert mdbuilder.atx_heading(line) == ((len(m.group(1)), m.group(2) or "") if m else None), line


def test_hashes_of_many_texts_match_hashing_each_alone() -> None:
    rng = random.Random(29)
    pieces = ["a", "b", "é", " ", "  ", "\t", "\n", "\n\n", "\xa0", "\u2003", "\x0c", "\r", "\0", "[^c-1a2b3c4d]", "[^c-1a2b3c4d]:", "^"]
    for _ in range(3000):
        texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(0, 6))]
        alone = [f"{mdkeys.zlib.crc32(mdkeys.key_text(t).encode()):08x}" for t in texts]
        assert mdkeys.paragraph_hashes(texts) == alone, texts
    assert mdkeys.section_keys("s", ["00000001", "00000002", "00000001", "00000001"]) == [
        "s~00000001", "s~00000002", "s~00000001.2", "s~00000001.3"
    ]


def test_repeats_are_numbered_within_a_run() -> None:
    # Headings "A", "A", "A 1" give two sections keyed "a-1": each run numbers its own repeats.
    d = mdsplit.split("# T\n\n## A\n\nSame.\n\n## A\n\nSame. ADR-1\n\nSame.\n\nSame.\n\n## A 1\n\nSame. ADR-1\n\nSame.\n", "x.md")
    assert [s.key for s in d.sections] == ["a", "a-1", "a-1"]
    h, h1 = mdkeys.paragraph_hashes(["Same.", "Same. ADR-1"])
    assert [d.key(i) for i in range(len(d))] == [f"a~{h}", f"a-1~{h1}", f"a-1~{h}", f"a-1~{h}.2", f"a-1~{h1}", f"a-1~{h}"]


def test_split_warms_the_keys_the_graph_asks_for_and_pickles_them() -> None:
    d = mdsplit.split(DOC + "\n## Refs\n\nSee ADR-0001.\n\nPlain.\n\n## Plain\n\nNothing here.\n", "x.md")
    wanted = {*d.markers, *d.refs, *(r.source for r in d.relations if r.source >= 0)}
    assert {d._run(i) for i in wanted} == set(d._keys)  # exactly the runs holding them
    lazy = mdsplit.split(DOC, "x.md")
    lazy._reset()
    e = mdsplit.split(DOC, "x.md")
    assert [e.key(i) for i in range(len(e))] == [lazy.key(i) for i in range(len(lazy))]
    c = pickle.loads(pickle.dumps(d))
    assert c._keys == d._keys and c._by_key == d._by_key
    assert [c.key(i) for i in range(len(c))] == [d.key(i) for i in range(len(d))]
    assert all(c.find(d.key(i)) == i for i in range(len(d)))


def test_identifier_readings_agree() -> None:
    """`_ids` (from each `-<digits>`, reading back) and `_ID_AT` give what `_ID` defines."""
    rng = random.Random(31)
    pieces = ["A", "B", "Z", "a", "9", "0", "-", "-", "_", "/", ".", " ", "\0", "é", "É", "ADR", "-12", "RFC-3"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        want = [(m.start(), m.group()) for m in mdrefs._ID.finditer(text)]
        assert mdrefs.ids_in(text) == want, text
        assert [(m.start(), m.group()) for m in refscan._ID_AT.finditer(text)] == want, text
    long = "x " + "A" * 100 + "-1 " + "9" * 70 + "B-2"
    assert mdrefs.ids_in(long) == [(m.start(), m.group()) for m in refscan._ID_AT.finditer(long)] == [(2, "A" * 100 + "-1")]


# -- split_batch: many texts at once gives what split gives each -------------------------------


def _full_state(d: mdsplit.Document) -> tuple[object, ...]:
    return (d.path, d.meta, *_state(d), d.run_starts, list(d._keys.items()), list(d._by_key.items()))


def _batch_text(rng: random.Random) -> str:
    """Small and large texts, front matter, CRLF, NULs, odd white space, empty texts."""
    kind = rng.random()
    if kind < 0.05:
        return ""
    if kind < 0.15:
        return "".join(_random_markdown(rng) for _ in range(rng.randint(5, 30)))  # a large one
    text = _random_markdown(rng) if kind < 0.75 else _odd_text(rng)
    if rng.random() < 0.3:
        text = "---\ntitle: T\nsupersedes: [ADR-1]\nid: x\n---\n" + rng.choice(["", "\n", "# P\n\n"]) + text
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.05:
        text = text.replace(" ", "\0", 1)
    return text


def test_split_batch_matches_split_one_by_one() -> None:
    rng = random.Random(37)
    for _ in range(150):
        items = [(_batch_text(rng), f"docs/p{n}.md") for n in range(rng.choice([0, 1, 2, 5, 20, 64]))]
        batch = mdsplit.split_batch(items)
        alone = [mdsplit.split(t, p) for t, p in items]
        assert [_full_state(d) for d in batch] == [_full_state(d) for d in alone], items
        # Pickles may differ in bytes where one string object is shared (an identifier that is a
        # paragraph's whole text), never in what they load.
        assert [_full_state(pickle.loads(pickle.dumps(d, 5))) for d in batch] == [_full_state(d) for d in alone]


def test_split_batch_of_pages_with_repeats_across_documents() -> None:
    # The same section and paragraph in several pages (keys equal across the batch), and a
    # repeat within one run: each page still numbers its own repeats.
    page = "---\ntitle: P\n---\n\n# P\n\n## A\n\nSame.[^c-1a2b3c4d] See ADR-1.\n\nSame.[^c-1a2b3c4d]\n"
    items = [(page, f"p{n}.md") for n in range(5)] + [("## A\n\nOther. ADR-2\n", "q.md")]
    assert [_full_state(d) for d in mdsplit.split_batch(items)] == [_full_state(mdsplit.split(*i)) for i in items]


def test_pickle_round_trip_rebuilds_sections_with_references() -> None:
    d = mdsplit.split("# T\n\n## See [A](a.md)\n\nx ADR-1\n\n## Plain\n\ny\n\n### B [C](c.md)\n\nz\n", "x.md")
    c = pickle.loads(pickle.dumps(d, pickle.HIGHEST_PROTOCOL))
    assert _full_state(c) == _full_state(d)
    assert [type(s) for s in c.sections] == [mddoc.Section] * 3
    assert [type(r) for s in c.sections for r in s.refs] == [Ref, Ref]
    assert c.sections[0].refs == (Ref("link", "a.md"),) and c.sections[2].refs == (Ref("link", "c.md"),)


def test_keys_at_is_key_of_each() -> None:
    """keys_at computes the runs it needs (warmed or not) and gives key(i) for each index."""
    rng = random.Random(41)
    for _ in range(300):
        text = _random_markdown(rng)
        one, other = mdsplit.split(text, "docs/x.md"), mdsplit.split(text, "docs/x.md")
        indexes = sorted(rng.sample(range(len(one)), min(len(one), rng.randint(0, 6))))
        assert one.keys_at(indexes) == [other.key(i) for i in indexes]
        assert one.keys_at(range(len(one))) == [other.key(i) for i in range(len(other))]


@pytest.mark.parametrize("text", [DOC, "", "one paragraph", "a\0b\n\nc\0", "\n\n\n", "x\n\n```\n\0\n```\n"])
def test_texts_travel_joined_and_are_split_when_first_read(text: str) -> None:
    """A pickled document carries its texts as one string (a list when a text holds a NUL) and
    splits it back only when `texts` is first read; every field comes back equal."""
    d = mdsplit.split(text, "x.md")
    loaded = pickle.loads(pickle.dumps(d))
    assert len(loaded) == len(d)
    assert (loaded._texts is None) == ("\0" not in text)  # not read yet (unless a NUL forced a list)
    assert [loaded.text(i) for i in range(len(d))] == d.texts
    if len(d):
        assert loaded.text(-1) == d.texts[-1]
    assert (loaded._texts is None) == ("\0" not in text)  # one text at a time: still not split
    assert [p.text for p in loaded.paragraphs] == d.texts
    assert loaded.texts == d.texts and _state(loaded) == _state(d)
    again = pickle.loads(pickle.dumps(loaded))  # once read, it travels joined again
    assert again.texts == d.texts and [again.key(i) for i in range(len(again))] == [d.key(i) for i in range(len(d))]
