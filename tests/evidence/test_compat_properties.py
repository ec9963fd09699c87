"""Properties of OpenWiki's resolver and of our relocate(), plus unit tests for relocate's reasons,
the growth bound, LineIndex reuse and the parser's extra rules.

Files are lists of short lines from a small alphabet, so duplicated lines and blocks are common.
"""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from openwiki_git.evidence.relocation import Relocation, relocate
from openwiki_git.evidence.resolver import LineIndex, classify, resolve
from openwiki_git.evidence.resource import Resource, ResourceError, _parse_general, parse_resource
from openwiki_git.evidence.tokens import ANCHOR_KEYS, decode_anchors, decode_token, file_version, lines_version, sha256_hex, split_lines

ALPHABET = ["a\n", "b\n", "c\n", "\n", "a\r\n", "d e\n", "f\n", "g\n", "h\n", "i\n", "j\n", "k\n"]
PROPERTY = settings(max_examples=300, deadline=None)
BASE = [f"line {i}\n" for i in range(1, 21)]  # 20 distinct lines
TOKEN = lines_version(BASE, 9, 12)  # L10-L12
RES = "repo://f.txt#L10-L12"


def text(lines: list[str]) -> str:
    return "".join(lines)


def resource(s: int, e: int) -> str:
    """The resource for the 0-based half-open span [s, e)."""
    return f"repo://f.txt#L{s + 1}-L{e}"


def occurrences(lines: list[str], selected: list[str]) -> list[int]:
    """0-based starts where `selected` occurs as whole lines."""
    k = len(selected)
    return [i for i in range(len(lines) - k + 1) if lines[i : i + k] == selected]


@st.composite
def alphabets(draw: st.DrawFn) -> list[str]:
    """From 2 lines (duplicates everywhere) to 12 (mostly unique windows)."""
    return ALPHABET[: draw(st.integers(2, len(ALPHABET)))]


@st.composite
def edited(draw: st.DrawFn, segment: list[str], alphabet: list[str], min_ops: int = 0) -> list[str]:
    """`segment` after a few random line insertions, deletions and replacements."""
    out = list(segment)
    for _ in range(draw(st.integers(min_ops, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        if op == "insert" or not out:
            out.insert(draw(st.integers(0, len(out))), draw(st.sampled_from(alphabet)))
            continue
        pos = draw(st.integers(0, len(out) - 1))
        if op == "delete":
            del out[pos]
        else:
            out[pos] = draw(st.sampled_from(alphabet))
    return out


@st.composite
def file_and_range(draw: st.DrawFn) -> tuple[list[str], list[str], int, int]:
    alphabet = draw(alphabets())
    old = draw(st.lists(st.sampled_from(alphabet), min_size=1, max_size=30))
    s = draw(st.integers(0, len(old) - 1))
    e = draw(st.integers(s + 1, len(old)))
    return alphabet, old, s, e


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------


@PROPERTY
@given(st.data())
def test_edits_outside_the_range_never_make_it_stale(data: st.DataObject) -> None:
    """Edits strictly above/below: the cited text still exists verbatim. If it occurs exactly once
    it is fresh at exactly the shifted lines; otherwise it may be fresh or ambiguous, never stale."""
    alphabet, old, s, e = data.draw(file_and_range())
    above = data.draw(edited(old[:s], alphabet))
    below = data.draw(edited(old[e:], alphabet))
    selected = old[s:e]
    new = above + selected + below
    got = relocate(resource(s, e), text(new), lines_version(old, s, e))
    places = occurrences(new, selected)
    if places == [len(above)]:
        assert got.status == "fresh", got.reason
        assert got.resource == Resource("f.txt", len(above) + 1, len(above) + len(selected))
        assert got.version == lines_version(new, len(above), len(above) + len(selected))
    assert got.status != "stale", got.reason
    if got.status == "fresh":
        assert got.content == text(selected)
        assert got.resource is not None and got.resource.start is not None and got.resource.end is not None
        assert got.resource.start - 1 in places
        assert got.version == lines_version(new, got.resource.start - 1, got.resource.end)
    else:
        assert got.reason.startswith("ambiguous:"), got.reason


@PROPERTY
@given(st.data())
def test_edits_inside_the_range_are_never_fresh(data: st.DataObject) -> None:
    """An edit that changes the selected text is never fresh while that text is gone from the file.

    (If the old text still occurs elsewhere, being "fresh, moved" there is indistinguishable from
    a move, so the property is stated for the case where it no longer occurs.)"""
    alphabet, old, s, e = data.draw(file_and_range())
    selected = old[s:e]
    middle = data.draw(edited(selected, alphabet, min_ops=1))
    assume(middle != selected)
    outside = data.draw(st.booleans())
    above = data.draw(edited(old[:s], alphabet)) if outside else old[:s]
    below = data.draw(edited(old[e:], alphabet)) if outside else old[e:]
    new = above + middle + below
    got = relocate(resource(s, e), text(new), lines_version(old, s, e), max_growth=3)
    if not occurrences(new, selected):
        assert got.status != "fresh", got.reason
    if got.status == "fresh":
        assert got.content == text(selected)
    if got.status == "stale":
        assert got.content != text(selected)
        assert got.resource is not None and got.resource.start is not None and got.resource.end is not None
        assert got.resource.end - got.resource.start + 1 <= len(selected) + 3
        assert got.version == lines_version(new, got.resource.start - 1, got.resource.end)


def reference_resolve(
    lines: list[str], start: int, end: int, prev: str | None
) -> tuple[str, int, int] | None:
    """The compact resolver of §4, transcribed naively: no index, no shortcuts."""
    h = sha256_hex
    hint = (start - 1, end) if end <= len(lines) else None
    parsed = decode_anchors(prev) if prev else None
    if parsed is None:
        return (lines_version(lines, *hint), *hint) if hint else None
    chash, m = parsed
    n = int(m["selectedLineCount"])
    if hint and hint[1] - hint[0] == n and h(text(lines[hint[0] : hint[1]])) == chash:
        assert prev is not None
        return prev, *hint
    found = [
        (s, s + n)
        for s in range(len(lines) - n + 1)
        if h(lines[s]) == m["firstSelectedLineHash"]
        and h(lines[s + n - 1]) == m["lastSelectedLineHash"]
        and h(text(lines[s : s + n])) == chash
    ]
    ctx = found if len(found) == 1 else [c for c in found if _reference_context_ok(lines, *c, m)]
    if len(ctx) == 1:
        assert prev is not None
        return prev, *ctx[0]
    starts, ends = _reference_bounds(lines, m, True), _reference_bounds(lines, m, False)
    spans = [(s, e) for s in starts for e in ends if e > s]
    return (lines_version(lines, *spans[0]), *spans[0]) if len(spans) == 1 else None


def _reference_context_ok(lines: list[str], s: int, e: int, m: dict[str, int | str]) -> bool:
    p, f = int(m["precedingContextLineCount"]), int(m["followingContextLineCount"])
    h = sha256_hex
    before = s == 0 if p == 0 else s >= p and h(text(lines[s - p : s])) == m["precedingContextHash"]
    n = len(lines)
    after = e == n if f == 0 else e + f <= n and h(text(lines[e : e + f])) == m["followingContextHash"]
    return before and after


def _reference_bounds(lines: list[str], m: dict[str, int | str], before: bool) -> list[int]:
    key = "preceding" if before else "following"
    k, digest = int(m[f"{key}ContextLineCount"]), m[f"{key}ContextHash"]
    if k == 0:
        return [0 if before else len(lines)]
    hits = [i for i in range(len(lines) - k + 1) if sha256_hex(text(lines[i : i + k])) == digest]
    return [i + k for i in hits] if before else hits


@PROPERTY
@given(st.data())
def test_resolve_equals_the_reference_resolver(data: st.DataObject) -> None:
    """The indexed resolver gives exactly the §4 reference answer, for any edit and any hint."""
    alphabet, old, s, e = data.draw(file_and_range())
    new = data.draw(edited(old, alphabet))
    start = data.draw(st.sampled_from([s + 1, data.draw(st.integers(1, len(new) + 3))]))
    end = data.draw(st.integers(start, start + 4))
    prev = data.draw(st.sampled_from([lines_version(old, s, e), None, "garbage"]))
    index = LineIndex(text(new))
    got = resolve(f"repo://f.txt#L{start}-L{end}", text(new), prev, lines=index)
    want = reference_resolve(new, start, end, prev)
    if want is None:
        assert got is None
        return
    assert got is not None
    assert (got.version, got.resource.start, got.resource.end) == (want[0], want[1] + 1, want[2])
    assert got.content == text(new[want[1] : want[2]])


RESOURCE_PIECES = [
    "repo://", "a", "B", "z9", ".", "..", "/", "#", "L", "1", "0", "12", "-", "-L", "%", "%2F", "%2e", "%25",
    "%C3%A9", "%FF", "\\", " ", "+", "~", "'", "(", ")", "*", "!", "_", ":", "é", "\x00", ".git", "openwiki",
    ".openwiki", "C:",
]


@PROPERTY
@given(st.lists(st.sampled_from(RESOURCE_PIECES), max_size=10), st.booleans())
def test_parse_fast_path_equals_the_general_parser(pieces: list[str], prefixed: bool) -> None:
    """The shortcut for already-canonical input never changes a verdict."""
    resource_text = ("repo://" if prefixed else "") + "".join(pieces)
    outcomes = []
    for parse in (parse_resource, lambda t: _parse_general(t, "openwiki", True)):
        try:
            outcomes.append(parse(resource_text))
        except ResourceError:
            outcomes.append(None)
    assert outcomes[0] == outcomes[1]
    if outcomes[0] is not None:
        assert parse_resource(outcomes[0].canonical) == outcomes[0]


@PROPERTY
@given(st.text(max_size=80), st.sampled_from(["", "repo-lines-v1:sha256:", TOKEN[:86], TOKEN[:120]]))
def test_decode_anchors_never_raises(garbage: str, prefix: str) -> None:
    decoded = decode_anchors(prefix + garbage)
    if decoded is not None:
        assert list(decoded[1]) == list(ANCHOR_KEYS)


@PROPERTY
@given(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=12), st.data())
def test_tokens_round_trip(lines: list[str], data: st.DataObject) -> None:
    s = data.draw(st.integers(0, len(lines) - 1))
    e = data.draw(st.integers(s + 1, len(lines)))
    token = lines_version(lines, s, e)
    decoded = decode_token(token)
    assert decoded is not None and decoded[2]  # canonical
    assert decoded[0] == sha256_hex(text(lines[s:e]))
    assert decoded[1]["selectedLineCount"] == e - s


@PROPERTY
@given(st.lists(st.sampled_from(ALPHABET + ["x", "\r", "\u2028"]), max_size=20))
def test_split_lines_round_trips(parts: list[str]) -> None:
    joined = "".join(parts)
    lines = split_lines(joined)
    assert text(lines) == joined
    assert all(line for line in lines)
    assert all(line.endswith("\n") for line in lines[:-1])
    assert all("\n" not in line[:-1] for line in lines)


# ---------------------------------------------------------------------------------------------
# relocate(): reasons
# ---------------------------------------------------------------------------------------------

def test_reason_unchanged() -> None:
    got = relocate(RES, text(BASE), TOKEN)
    assert (got.status, got.reason, got.version) == ("fresh", "unchanged", TOKEN)
    assert got.resource == Resource("f.txt", 10, 12)
    assert got.content == "line 10\nline 11\nline 12\n"


def test_reason_moved_rewrites_the_hint_and_refreshes_the_token() -> None:
    new = ["new\n"] * 4 + BASE
    got = relocate(RES, text(new), TOKEN)
    assert (got.status, got.reason) == ("fresh", "moved from L10-L12 to L14-L16")
    assert got.resource is not None and got.resource.canonical == "repo://f.txt#L14-L16"
    # A token holds no line numbers: with the same context around it, the fresh token is the old one.
    assert got.version == lines_version(new, 13, 16) == TOKEN
    # OpenWiki keeps the old hint; same verdict, though.
    assert classify(resolve(RES, text(new), TOKEN), TOKEN)["status"] == "fresh"


def test_reason_changed() -> None:
    new = list(BASE)
    new[10] = "line eleven\n"
    got = relocate(RES, text(new), TOKEN)
    assert (got.status, got.reason) == ("stale", "text changed between unchanged context")
    assert got.content == "line 10\nline eleven\nline 12\n"
    assert got.version == lines_version(new, 9, 12)


def test_reason_not_found() -> None:
    new = BASE[:9] + BASE[12:]  # the whole range deleted
    got = relocate(RES, text(new), TOKEN)
    assert got == Relocation("unresolved", None, None, None, "cited text no longer found")


def test_reason_ambiguous_copies_instead_of_openwiki_stale() -> None:
    """The cited text exists twice with no copy in its context, while Phase B finds a unique
    changed span elsewhere: OpenWiki says stale (pointing at other text), we say ambiguous."""
    old = ["p1\n", "p2\n", "p3\n", "x\n", "f1\n", "f2\n", "f3\n"]
    token = lines_version(old, 3, 4)
    new = ["x\n", "p1\n", "p2\n", "p3\n", "z\n", "f1\n", "f2\n", "f3\n", "x\n"]
    openwiki = resolve("repo://f.txt#L4", text(new), token)
    assert openwiki is not None and openwiki.content == "z\n"
    got = relocate("repo://f.txt#L4", text(new), token)
    assert (got.status, got.reason) == ("unresolved", "ambiguous: 2 places match")


def test_reason_ambiguous_changed_spans() -> None:
    block = BASE[6:9] + ["changed\n"] + BASE[12:15]
    new = BASE[:9] + ["changed\n"] + BASE[12:] + block
    got = relocate(RES, text(new), TOKEN)
    assert got.status == "unresolved"
    assert got.reason == "ambiguous: 3 spans fit between the unchanged context"


def test_no_usable_stored_version() -> None:
    for previous in (None, "", "garbage", file_version(text(BASE))):
        got = relocate(RES, text(BASE), previous)
        assert (got.status, got.reason) == ("stale", "no usable stored version")
        assert got.version == TOKEN and got.resource == Resource("f.txt", 10, 12)
    past_end = relocate("repo://f.txt#L10-L30", text(BASE), None)
    assert past_end == Relocation(
        "unresolved", None, None, None, "range ends past the end of the file (20 lines)"
    )
    assert relocate("repo://f.txt#L2", "one\n", None).reason.endswith("(1 line)")


def test_whole_file_reasons() -> None:
    old, new = text(BASE), text(BASE[1:])
    token = file_version(old)
    assert relocate("repo://f.txt", old, token).reason == "unchanged"
    changed = relocate("repo://f.txt", new, token)
    assert (changed.status, changed.reason) == ("stale", "file changed")
    assert changed.version == file_version(new)
    assert changed.content == new and changed.resource == Resource("f.txt")
    for previous in (None, TOKEN, "repo-file-v1:sha256:XYZ"):
        got = relocate("repo://f.txt", old, previous)
        assert (got.status, got.reason) == ("stale", "no usable stored version")


# ---------------------------------------------------------------------------------------------
# relocate(): the growth bound, anchor aging, hint drift
# ---------------------------------------------------------------------------------------------


def test_max_growth_bounds_phase_b() -> None:
    grown = BASE[:10] + [f"new {i}\n" for i in range(1000)] + BASE[11:]
    openwiki = resolve(RES, text(grown), TOKEN)
    assert openwiki is not None and openwiki.resource.end == 1011  # L10-L1011, 1,002 lines: unbounded
    got = relocate(RES, text(grown), TOKEN)
    assert got.status == "unresolved"
    assert got.reason == "changed text grew from 3 lines to 1002 lines (limit +200)"
    assert relocate(RES, text(grown), TOKEN, max_growth=999).status == "stale"
    assert relocate(RES, text(grown), TOKEN, max_growth=998).status == "unresolved"


def test_max_growth_zero_allows_shrinking_and_same_size() -> None:
    same = list(BASE)
    same[10] = "edited\n"
    shrunk = BASE[:10] + BASE[11:]
    grew = BASE[:10] + ["extra\n"] + BASE[10:]
    grew[11] = "edited\n"
    assert relocate(RES, text(same), TOKEN, max_growth=0).status == "stale"
    assert relocate(RES, text(shrunk), TOKEN, max_growth=0).status == "stale"
    assert relocate(RES, text(grew), TOKEN, max_growth=0).status == "unresolved"
    with pytest.raises(ValueError):
        relocate(RES, text(BASE), TOKEN, max_growth=-1)


def test_refreshed_anchors_do_not_age() -> None:
    """Neighbours edited (fresh), then the range edited: OpenWiki's kept token is unresolved;
    the token relocate() issued at the first step re-anchors the change (stale)."""
    step1 = list(BASE)
    step1[8] = "neighbour above\n"
    step1[12] = "neighbour below\n"
    first = relocate(RES, text(step1), TOKEN)
    assert first.status == "fresh" and first.version is not None and first.version != TOKEN
    step2 = list(step1)
    step2[10] = "edited\n"
    assert resolve(RES, text(step2), TOKEN) is None
    second = relocate(first.resource or RES, text(step2), first.version)
    assert (second.status, second.reason) == ("stale", "text changed between unchanged context")


def test_relocated_resource_resolves_on_the_fast_path() -> None:
    new = ["x\n", "y\n"] + BASE
    got = relocate(RES, text(new), TOKEN)
    assert got.resource is not None and got.version is not None
    index = LineIndex(text(new))
    again = resolve(got.resource, text(new), got.version, lines=index)
    assert again is not None and again.resource == got.resource and again.version == got.version
    assert index._line_hashes is None  # fast path: no whole-file hashing


# ---------------------------------------------------------------------------------------------
# LineIndex
# ---------------------------------------------------------------------------------------------


class CountingIndex(LineIndex):
    """Counts how often the per-file tables are built."""

    __slots__ = ("hash_builds", "window_builds")

    def __init__(self, source: str) -> None:
        super().__init__(source)
        self.hash_builds = self.window_builds = 0

    def line_hashes(self) -> list[str]:
        if self._line_hashes is None:
            self.hash_builds += 1
        return super().line_hashes()

    def _build_windows(self, count: int) -> dict[str, list[int]]:
        self.window_builds += 1
        return super()._build_windows(count)


def test_line_index_is_reused_and_lazy() -> None:
    source = text(BASE)
    tokens = {f"repo://f.txt#L{i}-L{i + 2}": lines_version(BASE, i - 1, i + 2) for i in range(1, 19)}
    index = CountingIndex(source)
    assert index.lines == BASE and len(index) == 20
    for res, token in tokens.items():
        assert relocate(res, source, token, lines=index).status == "fresh"
    assert (index.hash_builds, index.window_builds) == (0, 0)  # every claim took the fast path
    shifted = CountingIndex("top\n" + source)
    results = [relocate(res, shifted.text, token, lines=shifted) for res, token in tokens.items()]
    assert all(r.status == "fresh" for r in results)
    assert (shifted.hash_builds, shifted.window_builds) == (1, 1)  # built once for 18 full scans
    alone = [relocate(res, shifted.text, token) for res, token in tokens.items()]
    assert results == alone  # sharing the index changes nothing
    assert shifted.file_version == file_version(shifted.text)


def test_line_index_must_match_the_text() -> None:
    index = LineIndex(text(BASE))
    with pytest.raises(ValueError):
        resolve(RES, "other\n", TOKEN, lines=index)
    with pytest.raises(ValueError):
        relocate(RES, "other\n", TOKEN, lines=index)


def test_many_files_with_shifted_claims_all_stay_fresh() -> None:
    """10 claims per file, a tenth of the files shifted by an inserted line (timing: bench/)."""
    for f in range(100):
        lines = [f"file {f} line {i}\n" for i in range(200)]
        claims = [
            (f"repo://src/f{f}.py#L{s + 1}-L{s + 5}", lines_version(lines, s, s + 5))
            for s in range(0, 200, 20)
        ]
        new = text(["# header\n", *lines]) if f % 10 == 0 else text(lines)
        index = LineIndex(new)
        statuses = {relocate(res, new, token, lines=index).status for res, token in claims}
        assert statuses == {"fresh"}


# ---------------------------------------------------------------------------------------------
# Parser extras, Resource, tokens
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource_text", "kwargs"),
    [
        pytest.param("repo://.openwiki/config.yml", {}, id="dot-openwiki"),
        pytest.param("repo://.OpenWiki", {}, id="dot-openwiki-bare-case"),
        pytest.param("repo://openwiki", {}, id="openwiki-bare"),
        pytest.param("repo://docs/wiki/page.md", {"wiki_dir": "docs/wiki"}, id="custom-wiki-dir"),
        pytest.param("repo://Wiki/x.md", {"wiki_dir": "wiki/"}, id="custom-wiki-dir-case"),
        pytest.param("repo://vendor/lib/.git/config", {"allow_nested_git": False}, id="nested-git-opt-in"),
        pytest.param("repo://a/.GIT", {"allow_nested_git": False}, id="nested-git-case"),
        pytest.param("repo://..", {}, id="bare-dotdot"),
        pytest.param("repo://a/../..", {}, id="dotdot-after-normalising"),
        pytest.param("repo://src/\ud800.ts", {}, id="lone-surrogate"),
        pytest.param("repo://\u017f:/x", {}, id="drive-long-s-as-javascript-folds"),
    ],
)
def test_extra_rejections(resource_text: str, kwargs: dict[str, object]) -> None:
    with pytest.raises(ResourceError):
        parse_resource(resource_text, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("resource_text", "kwargs", "path"),
    [
        pytest.param("repo://docs/wiki/page.md", {}, "docs/wiki/page.md", id="wiki-dir-only-when-given"),
        pytest.param("repo://src/openwiki/x.py", {}, "src/openwiki/x.py", id="nested-openwiki"),
        pytest.param("repo://x/.openwiki/c", {}, "x/.openwiki/c", id="nested-dot-openwiki"),
        pytest.param("repo://openwiki.md", {}, "openwiki.md", id="openwiki-prefix-is-not-the-dir"),
        pytest.param("repo://a/.gitignore", {"allow_nested_git": False}, "a/.gitignore", id="gitignore"),
        pytest.param("repo://src/x.py", {"wiki_dir": "\0"}, "src/x.py", id="no-wiki-dir"),
        pytest.param("repo://\u0130:/x", {}, "\u0130:/x", id="dotted-capital-i-is-not-a-drive"),
    ],
)
def test_extra_rules_leave_these_alone(resource_text: str, kwargs: dict[str, object], path: str) -> None:
    assert parse_resource(resource_text, **kwargs).path == path  # type: ignore[arg-type]


def test_resource_helpers() -> None:
    res = parse_resource("repo://src/my%20file.ts#L3")
    assert (res.path, res.start, res.end, res.is_range) == ("src/my file.ts", 3, 3, True)
    assert res.canonical == "repo://src/my%20file.ts#L3-L3"
    assert res.whole_file() == Resource("src/my file.ts")
    assert not res.whole_file().is_range and res.whole_file().canonical == "repo://src/my%20file.ts"
    assert res.with_lines(5, 9).canonical == "repo://src/my%20file.ts#L5-L9"
    assert res.with_path("lib/a#b.ts").canonical == "repo://lib/a%23b.ts#L3-L3"
    for bad in ("lib/../a.ts", "openwiki/p.md", ""):
        with pytest.raises(ResourceError):
            res.with_path(bad)
    for start, end in ((0, 1), (3, 2), (True, 2)):
        with pytest.raises(ResourceError):
            res.with_lines(start, end)
    with pytest.raises(ResourceError):
        Resource("a", 1, None)


def _token_with(payload: str) -> str:
    encoded = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return TOKEN.rsplit(":", 1)[0] + ":" + encoded


def test_decode_anchors_follows_javascript_rules() -> None:
    decoded = decode_anchors(TOKEN)
    assert decoded is not None
    good = dict(decoded[1])

    def variant(**changes: object) -> str:
        return _token_with(json.dumps({**good, **changes}))

    assert decode_anchors(variant(selectedLineCount=3.0)) == decoded
    assert decode_anchors(variant(precedingContextLineCount=-0.0)) is not None
    for bad in (True, 0, 3.5, 2**53, "3", None, [3]):
        assert decode_anchors(variant(selectedLineCount=bad)) is None, bad
    assert decode_anchors(_token_with(json.dumps(good).replace("3,", "NaN,", 1))) is None
    assert decode_anchors(_token_with(json.dumps(good).replace("3,", "1e400,", 1))) is None
    assert decode_anchors(variant(extra=1)) is None
    assert decode_anchors(variant(firstSelectedLineHash="A" * 64)) is None
    assert decode_anchors(TOKEN + "=") == decoded  # Node stops at padding
    assert decode_anchors(TOKEN.replace(":", "::", 3)) is None


def test_hashes_and_versions() -> None:
    assert sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert file_version("") == "repo-file-v1:sha256:" + sha256_hex("")
    assert sha256_hex("\ud800") == sha256_hex("\ufffd")  # as Node encodes it
    with pytest.raises(ValueError):
        lines_version(BASE, 3, 3)
    with pytest.raises(ValueError):
        lines_version(BASE, 0, 21)
