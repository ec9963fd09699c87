"""staleness: the engine on in-memory sides (pure: no git, no files)."""

from __future__ import annotations

import difflib

import pytest

from openwiki_git.claims.staleness import Engine, Options
from openwiki_git.diff.hunks import FileChange, Hunk
from openwiki_git.evidence.resource import Resource
from openwiki_git.evidence.tokens import file_version, lines_version
from openwiki_git.model import Cause, Claim, Evidence, FileText, Mark


def hunks_of(old: list[str], new: list[str]) -> list[Hunk]:
    """Zero-context hunks in git's numbering, from difflib's opcodes."""
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "insert":
            out.append(Hunk(i1, 0, j1 + 1, j2 - j1))
        elif tag == "delete":
            out.append(Hunk(i1 + 1, i2 - i1, j1, 0))
        elif tag == "replace":
            out.append(Hunk(i1 + 1, i2 - i1, j1 + 1, j2 - j1))
    return out

SRC = [f"line {i}\n" for i in range(1, 41)]
ID = "claim_" + "a" * 32


def ev(path: str, lines: list[str], start: int, end: int) -> Evidence:
    return Evidence(Resource(path, start, end).canonical, lines_version(lines, start - 1, end), "b" * 40)


def claim(*evidence: Evidence, mark: Mark | None = None) -> Claim:
    return Claim(ID, "Line ten says ten.", tuple(evidence), "2026-01-01T00:00:00Z", None, mark)


class Sides:
    """Old and new file texts, and the changes between them; counts every read."""

    def __init__(self, old: dict[str, list[str]], new: dict[str, list[str]], renames: dict[str, str] | None = None):
        self.old, self.new, self.reads = old, new, []
        renames = renames or {}
        changes = []
        for path, lines in old.items():
            target = renames.get(path, path)
            if target not in new:
                changes.append(FileChange("deleted", path, None, "1" * 40, None, 0o100644, 0, hunks_of(lines, [])))
            elif new[target] != lines or target != path:
                status = "renamed" if target != path else "modified"
                hunks = tuple(hunks_of(lines, new[target]))
                changes.append(FileChange(status, path, target, "1" * 40, "2" * 40, 0o100644, 0o100644, hunks))
        for path, lines in new.items():
            if path not in old and path not in renames.values():
                changes.append(FileChange("added", None, path, None, "3" * 40, 0, 0o100644, tuple(hunks_of([], lines))))
        self.changes = changes

    def _read(self, side: dict[str, list[str]], path: str) -> FileText:
        self.reads.append(path)
        if path not in side:
            return FileText(path, None, problem="missing")
        return FileText(path, "".join(side[path]), "2" * 40)

    def engine(self, **options: object) -> Engine:
        return Engine(
            self.changes,
            lambda p: self._read(self.old, p),
            lambda p: self._read(self.new, p),
            Options(now="2026-12-01T00:00:00Z", commit="c" * 40, **options),  # type: ignore[arg-type]
        )


def test_untouched_file_is_fresh_and_never_read() -> None:
    sides = Sides({"a.py": SRC, "b.py": SRC}, {"a.py": SRC, "b.py": SRC[:5] + ["x\n"] + SRC[5:]})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "fresh" and not out.affected and out.after == c
    assert sides.reads == []


def test_shift_re_anchors_with_a_fresh_token() -> None:
    new = ["new\n"] * 3 + SRC
    sides = Sides({"a.py": SRC}, {"a.py": new})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "fresh" and out.affected and out.after.mark is None
    (e,) = out.after.evidence
    assert e.resource == "repo://a.py#L13-L15"
    assert e.version == lines_version(new, 12, 15)
    assert out.evidence[0].reason == "moved to a.py#L13-L15"


def test_edit_inside_marks_stale_with_the_hunk_and_keeps_the_verified_version() -> None:
    new = ["top\n"] + SRC[:10] + ["changed\n"] + SRC[11:]
    sides = Sides({"a.py": SRC}, {"a.py": new})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "stale"
    (o,) = out.evidence
    assert o.hunk == "@@ -11 +12 @@"
    assert o.describe() == "a.py#L11-L13 changed by @@ -11 +12 @@"
    (e,) = out.after.evidence
    assert e.resource == "repo://a.py#L11-L13" and e.version == c.evidence[0].version
    mark = out.after.mark
    assert mark is not None and mark.status == "stale" and mark.commit == "c" * 40
    (cause,) = mark.causes
    assert (cause.resource, cause.hunk, cause.old_lines, cause.new_lines) == ("repo://a.py#L10-L12", "@@ -11 +12 @@", (10, 12), (11, 13))


def test_judging_the_result_again_changes_nothing() -> None:
    """The hook's second run sees the claim it wrote (changed since HEAD): same result."""
    new = ["top\n"] * 2 + SRC[:10] + ["changed\n"] + SRC[11:25] + SRC[26:]
    sides = Sides({"a.py": SRC}, {"a.py": new})
    c = claim(ev("a.py", SRC, 10, 12), ev("a.py", SRC, 30, 31))
    first = sides.engine().claim_outcome("g.md", c, c)
    assert [o.status for o in first.evidence] == ["stale", "fresh"]
    second = sides.engine().claim_outcome("g.md", c, first.after)
    assert second.after == first.after and second.status == "stale"


@pytest.mark.parametrize("policy", ["fresh", "stale"])
def test_adjacent_insert_setting(policy: str) -> None:
    new = SRC[:12] + ["appended\n"] + SRC[12:]
    sides = Sides({"a.py": SRC}, {"a.py": new})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine(adjacent_insert=policy).claim_outcome("g.md", c, c)
    assert out.status == policy
    assert out.after.evidence[0].resource == "repo://a.py#L10-L12"


def test_rename_is_followed_and_the_claim_stays_fresh() -> None:
    sides = Sides({"a.py": SRC}, {"b/a.py": SRC}, renames={"a.py": "b/a.py"})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "fresh"
    assert out.after.evidence[0].resource == "repo://b/a.py#L10-L12"
    assert out.evidence[0].path == "b/a.py"


def test_rename_with_edits_inside_is_stale_at_the_new_path() -> None:
    new = SRC[:10] + ["changed\n"] + SRC[11:]
    sides = Sides({"a.py": SRC}, {"b.py": new}, renames={"a.py": "b.py"})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "stale"
    assert out.evidence[0].reason == "renamed and changed"
    assert out.after.mark is not None and out.after.mark.causes[0].path == "b.py"
    assert out.after.evidence[0].resource == "repo://b.py#L10-L12"


def test_deleted_file_is_unresolved() -> None:
    sides = Sides({"a.py": SRC}, {})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "unresolved" and out.evidence[0].reason == "deleted"
    assert out.after.mark is not None and out.after.mark.status == "unresolved"
    assert out.after.evidence == c.evidence


def test_lines_moved_to_another_file_are_followed() -> None:
    moved = SRC[8:13]
    sides = Sides({"a.py": SRC, "b.py": ["b\n"] * 5}, {"a.py": SRC[:8] + SRC[13:], "b.py": ["b\n"] * 5 + moved})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "fresh", out.evidence
    assert out.after.evidence[0].resource == "repo://b.py#L7-L9"
    assert out.evidence[0].path == "b.py"


def test_a_file_split_in_two_is_followed_into_the_new_file() -> None:
    sides = Sides({"a.py": SRC}, {"a.py": SRC[:20], "a2.py": SRC[20:]})
    c = claim(ev("a.py", SRC, 25, 27))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "fresh"
    assert out.after.evidence[0].resource == "repo://a2.py#L5-L7"


def test_a_move_to_two_places_is_not_guessed() -> None:
    block = SRC[9:12]
    sides = Sides({"a.py": SRC}, {"a.py": SRC[:9] + SRC[12:], "b.py": block + ["x\n"] + block})
    c = claim(ev("a.py", SRC, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "unresolved"  # every cited line deleted here, two copies there


def test_pre_existing_copy_elsewhere_is_not_a_move() -> None:
    """Text that was already there (no added line) is not where the cited text went."""
    old = SRC + SRC[9:12]
    new = SRC[:10] + ["changed\n"] + SRC[11:] + SRC[9:12]
    sides = Sides({"a.py": old}, {"a.py": new})
    c = claim(ev("a.py", old, 10, 12))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "stale"


def test_range_that_does_not_match_the_old_side_falls_back_to_relocation() -> None:
    """A sidecar edited by hand (wrong line numbers) is located by content on the new side."""
    new = ["x\n"] + SRC
    sides = Sides({"a.py": SRC}, {"a.py": new})
    good = ev("a.py", SRC, 10, 12)
    c = claim(Evidence("repo://a.py#L20-L22", good.version, None))
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "fresh"
    assert out.after.evidence[0].resource == "repo://a.py#L11-L13"
    assert "did not match the old side" in out.evidence[0].reason


@pytest.mark.parametrize(
    ("problem", "mode"),
    [("binary file", 0o100644), ("Git LFS pointer (the content is not in git)", 0o100644), (None, 0o160000)],
)
def test_unreadable_new_side_is_unresolved_with_the_reason(problem: str | None, mode: int) -> None:
    change = FileChange("modified", "a.py", "a.py", "1" * 40, "2" * 40, 0o100644, mode, ())
    engine = Engine(
        [change],
        lambda p: FileText(p, "".join(SRC), "1" * 40),
        lambda p: FileText(p, None, "2" * 40, problem=problem),
        Options(now="2026-12-01T00:00:00Z"),
    )
    c = claim(ev("a.py", SRC, 10, 12))
    out = engine.claim_outcome("g.md", c, c)
    assert out.status == "unresolved"
    assert out.evidence[0].reason == (problem or "replaced by a submodule")


def test_marked_claim_follows_its_text_and_is_not_unmarked() -> None:
    changed = SRC[:10] + ["changed\n"] + SRC[11:]
    mark = Mark("stale", "2026-11-01T00:00:00Z")
    verified = ev("a.py", SRC, 10, 12)
    c = claim(Evidence(verified.resource, verified.version), mark=mark)  # stored at `changed`
    sides = Sides({"a.py": changed}, {"a.py": ["top\n"] + changed})
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "stale" and out.after.mark == mark
    assert out.after.evidence[0].resource == "repo://a.py#L11-L13"
    # reverted: the verified text is back; the evidence is fresh but the mark stays (check --fix clears it)
    sides = Sides({"a.py": changed}, {"a.py": SRC})
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.evidence[0].status == "fresh" and out.status == "stale" and out.after.mark == mark


def test_new_claim_is_located_on_the_new_side() -> None:
    new = ["x\n"] + SRC
    sides = Sides({"a.py": SRC}, {"a.py": new})
    c = claim(ev("a.py", new, 11, 13))
    out = sides.engine().claim_outcome("g.md", None, c)
    assert out.affected and out.status == "fresh" and out.after == c


def test_whole_file_evidence() -> None:
    text = "".join(SRC)
    whole = Evidence("repo://a.py", file_version(text))
    c = claim(whole)
    sides = Sides({"a.py": SRC}, {"b.py": SRC}, renames={"a.py": "b.py"})
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "fresh" and out.after.evidence[0].resource == "repo://b.py"
    sides = Sides({"a.py": SRC}, {"a.py": SRC + ["more\n"]})
    out = sides.engine().claim_outcome("g.md", c, c)
    assert out.status == "stale" and out.evidence[0].hunk == "@@ -40,0 +41 @@"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from openwiki_git.diff.hunks import context_kept, map_range  # noqa: E402

WORDS = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "\n"]), min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(old=WORDS, new=WORDS, data=st.data())
def test_kept_context_means_the_same_token(old: list[str], new: list[str], data: st.DataObject) -> None:
    """The hook skips re-issuing a token only when the anchors cannot have changed."""
    hunks = hunks_of(old, new)
    start = data.draw(st.integers(1, len(old)))
    end = data.draw(st.integers(start, len(old)))
    m = map_range(start, end, hunks)
    if m.status != "fresh" or m.start is None or m.end is None:
        return
    if context_kept(start, end, len(old), (m.start, m.end), len(new), hunks):
        assert lines_version(new, m.start - 1, m.end) == lines_version(old, start - 1, end)


def test_a_mark_cleared_since_the_old_side_stays_cleared() -> None:
    """`check --fix` (text reverted) or `claim confirm` cleared the mark the old side has: the
    hook does not put it back when the diff leaves the file alone."""
    sides = Sides({"a.py": SRC, "b.py": SRC}, {"a.py": SRC, "b.py": ["x\n"] + SRC})
    e = ev("a.py", SRC, 10, 12)
    marked = claim(e, mark=Mark("stale", "2026-01-01T00:00:00Z", (Cause(e.resource, "changed", "@@ -11 +11 @@"),), "d" * 40))
    out = sides.engine().claim_outcome("g.md", marked, claim(e))
    assert out.status == "fresh" and out.after.mark is None and not out.newly_flagged


def test_a_mark_written_on_this_base_is_kept_as_it_is_by_a_second_run() -> None:
    new = SRC[:10] + ["changed\n"] + SRC[11:]
    sides = Sides({"a.py": SRC}, {"a.py": new})
    c = claim(ev("a.py", SRC, 10, 12))
    first = sides.engine().claim_outcome("g.md", c, c)
    assert first.newly_flagged
    later = Engine(sides.changes, lambda p: sides._read(sides.old, p), lambda p: sides._read(sides.new, p),
                   Options(now="2026-12-02T00:00:00Z", commit="c" * 40))
    second = later.claim_outcome("g.md", c, first.after)
    assert second.after == first.after and not second.changed and not second.newly_flagged


@pytest.mark.parametrize("policy", ["fresh", "stale"])
def test_an_adjacent_insert_names_the_setting_that_applied(policy: str) -> None:
    """A marked claim (its range follows changed text) with a line inserted at its edge: the
    reason names `adjacent_insert` only with the value configured, never one that was not."""
    changed = SRC[:10] + ["changed\n"] + SRC[11:]
    verified = ev("a.py", SRC, 10, 12)
    c = claim(Evidence(verified.resource, verified.version), mark=Mark("stale", "2026-11-01T00:00:00Z"))
    sides = Sides({"a.py": changed}, {"a.py": changed[:12] + ["appended\n"] + changed[12:]})
    out = sides.engine(adjacent_insert=policy).claim_outcome("g.md", c, c)
    (o,) = out.evidence
    assert o.status == "stale"
    if policy == "stale":
        assert o.reason == "lines inserted next to it (adjacent_insert: stale)"
    else:
        assert "adjacent_insert" not in o.reason and o.reason == "still changed"


def test_unaffected_is_said_only_of_claims_judge_finds_unaffected() -> None:
    """The hook skips a claim `unaffected` names without judging it: for every kind of claim (an
    untouched range, a range on a changed, renamed or deleted file, a changed item, a new claim, a
    mark, a definition, a set, a resource that does not parse) `unaffected` is True only where
    `claim_outcome` returns an unaffected outcome, and True for the claims that only cite untouched files."""
    from openwiki_git.evidence.kinds import FileSet, Symbol, set_version

    old = {"a.py": SRC, "b.py": SRC, "gone.py": SRC, "moved.py": SRC, "c.py": SRC}
    new = {"a.py": SRC, "b.py": SRC[:5] + ["x\n"] + SRC[5:], "elsewhere.py": SRC, "c.py": SRC}
    sides = Sides(old, new, renames={"moved.py": "elsewhere.py"})
    engine = sides.engine()
    untouched = claim(ev("a.py", SRC, 10, 12))
    mark = Mark("stale", "2026-01-01T00:00:00Z", (Cause("repo://a.py#L10-L12", "changed"),))
    cases = [
        (untouched, untouched, True),
        (claim(ev("a.py", SRC, 10, 12), ev("c.py", SRC, 1, 2)),) * 2 + (True,),
        (claim(ev("a.py", SRC, 10, 12), mark=mark),) * 2 + (True,),
        (Claim(ID, "S.", (Evidence("repo://a.py#L9-L1", "v"),)),) * 2 + (True,),  # does not parse: unresolved, unaffected
        (claim(ev("b.py", SRC, 10, 12)),) * 2 + (False,),
        (Claim(ID, "S.", (Evidence("repo://%62.py#L10-L12", ev("b.py", SRC, 10, 12).version),)),) * 2 + (False,),  # b.py, escaped
        (Claim(ID, "S.", (Evidence("repo://%61.py#L10-L12", ev("a.py", SRC, 10, 12).version),)),) * 2 + (True,),  # a.py
        (claim(ev("gone.py", SRC, 10, 12)),) * 2 + (False,),
        (claim(ev("moved.py", SRC, 10, 12)),) * 2 + (False,),
        (claim(ev("a.py", SRC, 10, 12), ev("b.py", SRC, 1, 2)),) * 2 + (False,),
        (None, untouched, False),
        (claim(ev("a.py", SRC, 11, 12)), untouched, False),
        (untouched, claim(ev("a.py", SRC, 10, 12), mark=mark), False),
        (Claim(ID, "S.", (Evidence(Symbol("a.py", "f").canonical, "repo-def-v1:sha256:" + "0" * 64),)),) * 2 + (False,),
        (Claim(ID, "S.", (Evidence(FileSet("*.py").canonical, set_version(["a.py"])),)),) * 2 + (False,),
    ]
    for prev, cur, expected in cases:
        assert engine.unaffected(prev, cur) is expected, cur
        if expected:
            assert not engine.claim_outcome("g.md", prev, cur).affected, cur
    assert sides.reads == []  # unaffected reads nothing
