"""diffmap: ranges mapped through zero-context hunks, checked by hand and against real diffs."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openwiki_git.diff.hunks import Hunk, added_lines, map_line, map_range, parse_header


def hunks_of(old: list[str], new: list[str]) -> list[Hunk]:
    """Zero-context hunks in git's numbering, from difflib's opcodes."""
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            out.append(Hunk(i1, 0, j1 + 1, j2 - j1))
        elif tag == "delete":
            out.append(Hunk(i1 + 1, i2 - i1, j1, 0))
        else:
            out.append(Hunk(i1 + 1, i2 - i1, j1 + 1, j2 - j1))
    return out


def test_header_matches_git() -> None:
    assert Hunk(5, 0, 6, 1).header == "@@ -5,0 +6 @@"
    assert Hunk(10, 1, 10, 0).header == "@@ -10 +10,0 @@"
    assert Hunk(16, 2, 16, 3).header == "@@ -16,2 +16,3 @@"
    assert parse_header("@@ -16,2 +16,3 @@ def f():") == Hunk(16, 2, 16, 3)
    assert parse_header(Hunk(5, 0, 6, 1).header) == Hunk(5, 0, 6, 1)
    with pytest.raises(ValueError):
        parse_header("@@ nonsense")


def test_hunks_above_shift_the_range_exactly() -> None:
    hunks = [Hunk(2, 0, 3, 2), Hunk(5, 1, 7, 0)]  # +2 after line 2, -1 at line 5
    assert map_range(10, 12, hunks) == map_range(10, 12, list(reversed(hunks)))
    got = map_range(10, 12, hunks)
    assert (got.status, got.start, got.end, got.hunks) == ("fresh", 11, 13, ())


def test_hunks_below_do_not_move_it() -> None:
    got = map_range(10, 12, [Hunk(20, 3, 20, 1)])
    assert (got.status, got.start, got.end) == ("fresh", 10, 12)


def test_a_changed_line_inside_makes_it_stale_with_that_hunk() -> None:
    h = Hunk(11, 1, 11, 1)
    got = map_range(10, 12, [Hunk(1, 0, 2, 1), h])
    assert got.status == "stale"
    assert (got.start, got.end) == (11, 13)
    assert got.hunks == (h,)


def test_insertion_between_two_cited_lines_is_stale_and_grows_the_span() -> None:
    got = map_range(10, 12, [Hunk(10, 0, 11, 3)])
    assert (got.status, got.start, got.end) == ("stale", 10, 15)


def test_replacement_that_straddles_the_start() -> None:
    got = map_range(10, 12, [Hunk(8, 4, 8, 2)])  # old 8-11 -> new 8-9
    assert (got.status, got.start, got.end) == ("stale", 8, 10)


def test_every_line_deleted() -> None:
    got = map_range(10, 12, [Hunk(10, 3, 9, 0)])
    assert got.status == "deleted" and got.start is None and got.hunks == (Hunk(10, 3, 9, 0),)
    assert map_range(1, 2, [Hunk(1, 3, 0, 0)]).status == "deleted"


@pytest.mark.parametrize("policy", ["fresh", "stale"])
def test_insertion_at_either_edge_follows_the_setting(policy: str) -> None:
    above, below = Hunk(9, 0, 10, 2), Hunk(12, 0, 13, 1)
    got = map_range(10, 12, [above], adjacent_insert=policy)
    assert (got.status, got.start, got.end, got.adjacent) == (policy, 12, 14, True)
    got = map_range(10, 12, [below], adjacent_insert=policy)
    assert (got.status, got.start, got.end, got.adjacent) == (policy, 10, 12, True)
    # one line further away is never adjacent
    assert map_range(10, 12, [Hunk(8, 0, 9, 1)], adjacent_insert="stale").status == "fresh"
    assert map_range(10, 12, [Hunk(13, 0, 14, 1)], adjacent_insert="stale").status == "fresh"


def test_map_line_and_added_lines() -> None:
    hunks = [Hunk(2, 0, 3, 2), Hunk(5, 1, 7, 0)]
    assert [map_line(n, hunks) for n in (1, 2, 3, 4, 5, 6)] == [1, 2, 5, 6, None, 7]
    assert added_lines(hunks) == [(3, 4)]


def test_against_git_itself(repo) -> None:  # type: ignore[no-untyped-def]
    """The hunks git prints map every untouched line to the same text."""
    old = [f"l{i}\n" for i in range(1, 61)]
    new = old[:3] + ["new\n"] * 2 + old[3:20] + old[22:40] + ["x\n"] + old[41:]
    repo.write("f.txt", "".join(old))
    repo.commit_all("one")
    repo.write("f.txt", "".join(new))
    out = repo.git("diff", "-U0", "--no-color", "f.txt")
    hunks = [parse_header(line) for line in out.splitlines() if line.startswith("@@")]
    for n in range(1, len(old) + 1):
        got = map_line(n, hunks)
        if got is not None:
            assert new[got - 1] == old[n - 1]


LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e\n", "\n"]), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(old=LINES, new=LINES, data=st.data())
def test_mapping_agrees_with_the_texts(old: list[str], new: list[str], data: st.DataObject) -> None:
    hunks = hunks_of(old, new)
    start = data.draw(st.integers(1, len(old)))
    end = data.draw(st.integers(start, len(old)))
    got = map_range(start, end, hunks, adjacent_insert=data.draw(st.sampled_from(["fresh", "stale"])))
    if got.status == "fresh" or got.adjacent:
        assert got.start is not None and got.end is not None
        assert new[got.start - 1 : got.end] == old[start - 1 : end]
    elif got.status == "stale":
        assert got.hunks and got.start is not None and got.end is not None
        assert 1 <= got.start and got.end <= len(new) and got.start <= got.end
    else:
        assert got.start is None
    for n in range(1, len(old) + 1):
        m = map_line(n, hunks)
        if m is not None:
            assert new[m - 1] == old[n - 1]
