"""The diff's sides: the changes in a set's scope found through the sorted changed paths give
what matching the scope against every change gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from openwiki_git.claims.diff_texts import DiffTexts
from openwiki_git.diff.hunks import FileChange
from openwiki_git.evidence.kinds import glob_matches
from openwiki_git.model import FileText

PATHS = ["src/a.py", "src/b.py", "src/ab.py", "src/x/y.py", "src/x/z/w.py", "lib/m1.py", "lib/m12.py", "README.md", "srcx/a.py", "s"]
SCOPES = ["src/*.py", "src/**/*.py", "src/?.py", "src/[ab].py", "**/*.md", "*", "lib/m?.py", "src/a.py", "src", "s*", "src/x/**"]


def _change(status: str, old: str | None, new: str | None) -> FileChange:
    return FileChange(status, old, new, None if old is None else "1" * 40, None if new is None else "2" * 40, 0o100644, 0o100644)


def _unread(path: str) -> FileText:
    raise AssertionError(f"{path} read")


changes = st.lists(
    st.one_of(
        st.builds(lambda p: _change("modified", p, p), st.sampled_from(PATHS)),
        st.builds(lambda p: _change("added", None, p), st.sampled_from(PATHS)),
        st.builds(lambda p: _change("deleted", p, None), st.sampled_from(PATHS)),
        st.builds(lambda a, b: _change("renamed", a, b), st.sampled_from(PATHS), st.sampled_from(PATHS)),
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(changes)
def test_in_scope_is_every_change_matched_against_the_scope(diff: list[FileChange]) -> None:
    sides = DiffTexts(diff, _unread, _unread, ".openwiki")
    for scope in SCOPES:
        expected = [c for c in diff if any(p is not None and glob_matches(scope, p) for p in (c.old_path, c.new_path))]
        assert sides.in_scope(scope) == expected, scope


def test_in_scope_keeps_the_diffs_order_and_each_change_once() -> None:
    diff = [_change("renamed", "src/b.py", "src/a.py"), _change("modified", "lib/m1.py", "lib/m1.py"), _change("added", None, "src/c.py")]
    sides = DiffTexts(diff, _unread, _unread, ".openwiki")
    assert sides.in_scope("src/*.py") == [diff[0], diff[2]]
    assert sides.in_scope("lib/m?.py") == [diff[1]] and sides.in_scope("docs/*.md") == []
