"""The pure check (checker.py) and fix (fixer.py): statuses, the per-file cache, the fast path's
agreement with relocation.relocate(), marks, reverts and verification."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from openwiki_git.claims import fix as fixer
from openwiki_git.claims import freshness as checker
from openwiki_git.evidence.relocation import relocate
from openwiki_git.evidence.tokens import file_version, lines_version, split_lines, unchanged_lines
from openwiki_git.model import Claim, ClaimResult, Evidence, EvidenceResult, FileText, Mark, Sidecar

TEXT = "".join(f"line {i}\n" for i in range(1, 31))
LINES = split_lines(TEXT)
NOW = "2026-11-30T12:00:00Z"


def token(text: str, start: int, end: int) -> str:
    """The token of 1-based inclusive lines start..end."""
    return lines_version(split_lines(text), start - 1, end)


class Files:
    """A reader over an in-memory tree that counts reads."""

    def __init__(self, **files: str | None) -> None:
        self.files = {k.replace("__", "/").replace("_dot_", "."): v for k, v in files.items()}
        self.reads: list[str] = []

    def __call__(self, path: str) -> FileText:
        self.reads.append(path)
        text = self.files.get(path)
        return FileText(path, text, "b" * 40) if text is not None else FileText(path, None, problem="missing")


def claim(*evidence: tuple[str, str], cid: str = "claim_" + "1" * 32, mark: Mark | None = None) -> Claim:
    return Claim(cid, "S.", tuple(Evidence(r, v, "a" * 40) for r, v in evidence), mark=mark)


def resolver(**files: str | None) -> tuple[checker.EvidenceResolver, Files]:
    reader = Files(**files)
    return checker.EvidenceResolver(reader), reader


# -- the resolver ----------------------------------------------------------------------------


def test_each_file_read_once_and_each_pair_resolved_once():
    r, reader = resolver(**{"src__a_dot_py": TEXT, "src__b_dot_py": TEXT})
    claims = [claim((f"repo://src/a.py#L{i}-L{i + 1}", token(TEXT, i, i + 1))) for i in range(1, 20)]
    claims += [claim(("repo://src/b.py", file_version(TEXT)))] * 5
    results = [checker.check_claim("p.md", c, r, page_text="") for c in claims]
    assert all(res.status == "fresh" for res in results)
    assert sorted(reader.reads) == ["src/a.py", "src/b.py"]
    assert r.resolve("repo://src/b.py", file_version(TEXT)) is results[-1].evidence[0]  # memoised


def test_statuses_and_reasons():
    moved = "new\n" + TEXT
    changed = TEXT.replace("line 11\n", "eleven\n")
    r, _ = resolver(**{"m": moved, "c": changed, "w": TEXT, "gone": None})
    v = token(TEXT, 10, 12)
    fresh = r.resolve("repo://w#L10-L12", v)
    assert (fresh.status, fresh.current_resource, fresh.reason, fresh.current_version) == (
        "fresh", "repo://w#L10-L12", "unchanged", v)
    mv = r.resolve("repo://m#L10-L12", v)
    assert (mv.status, mv.current_resource) == ("fresh", "repo://m#L11-L13")
    assert mv.reason == "moved from L10-L12 to L11-L13" and mv.current_version == token(moved, 11, 13)
    st_ = r.resolve("repo://c#L10-L12", v)
    assert (st_.status, st_.current_resource) == ("stale", "repo://c#L10-L12")
    gone = r.resolve("repo://gone#L10-L12", v)
    assert (gone.status, gone.current_resource, gone.reason) == ("unresolved", None, "gone: missing")
    bad = r.resolve("repo://../x", v)
    assert bad.status == "unresolved" and "inside the repository" in bad.reason
    whole = r.resolve("repo://c", file_version(TEXT))
    assert (whole.status, whole.reason) == ("stale", "file changed")


def test_check_claim_worst_status_marker_and_notes():
    r, _ = resolver(w=TEXT, gone=None)
    ok = ("repo://w#L1-L2", token(TEXT, 1, 2))
    c = claim(ok, ("repo://gone", file_version("")))
    res = checker.check_claim("p.md", c, r, page_text="x [^c-11111111]")
    assert res.status == "unresolved" and res.marker_present
    res = checker.check_claim("p.md", claim(ok), r, page_text=None)
    assert not res.marker_present and any(n.startswith("the page does not exist; its claims are in .claims/") for n in res.notes)
    marked = claim(ok, mark=Mark("stale", NOW))
    res = checker.check_claim("p.md", marked, r, page_text="", markers={"c-11111111"})
    assert res.status == "stale" and res.marker_present and "back to its verified version" in res.notes[0]


def test_check_all_and_summary():
    r, _ = resolver(w=TEXT)
    a = Sidecar("a.md", "sha256:" + "0" * 64, (claim(("repo://w#L1-L1", token(TEXT, 1, 1)), cid="claim_" + "a" * 32),))
    b = Sidecar(
        "b.md", "sha256:" + "0" * 64, (claim(("repo://w#L2-L2", "repo-lines-v1:sha256:" + "0" * 64 + ":e30"), cid="claim_" + "b" * 32),)
    )
    results = checker.check_all({"b.md": b, "a.md": a}, r, {"a.md": "[^c-aaaaaaaa]", "b.md": ""}.get)
    assert [x.page for x in results] == ["a.md", "b.md"]
    assert checker.summarize(results) == {"total": 2, "fresh": 1, "stale": 1, "unresolved": 0, "missing_markers": 1, "due": 0}


def test_is_due():
    now = datetime(2026, 11, 30, tzinfo=UTC)
    c = claim(("repo://w", "x")).replace(verified_at=(now - timedelta(days=10)).isoformat())
    assert checker.is_due(c, now, 9 * 86400) and not checker.is_due(c, now, 11 * 86400)
    assert not checker.is_due(c, now, None)
    assert not checker.is_due(claim(("repo://w", "x")), now, 1)  # never verified: unknown, not due
    assert checker.is_due(c.replace(verified_at="garbage"), now, 1)
    assert checker.is_due(c.replace(verified_at="2026-01-01T00:00:00"), now, 1)  # naive time


# -- the fast path is relocation.relocate() ------------------------------------------------------

LINE_POOL = ["a\n", "b\n", "\n", "a\r\n", "é\n", "x y\n", "c", "d\n", "e\n", "f\n"]


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.sampled_from(LINE_POOL), min_size=1, max_size=14),
    span=st.tuples(st.integers(0, 13), st.integers(1, 6)),
    other=st.tuples(st.integers(0, 13), st.integers(1, 6)),
    edit=st.lists(st.tuples(st.integers(0, 14), st.sampled_from(["ins", "del", "chg"])), max_size=2),
)
def test_unchanged_at_hint_is_lines_version_equality(lines, span, other, edit):
    s, n = span
    assume(s + n <= len(lines))
    # A token of the same span or another one, of this text or of an edited one.
    source = list(lines)
    for at, op in edit:
        at = min(at, len(source))
        if op == "ins":
            source.insert(at, "z\n")
        elif source and at < len(source):
            source[at] = "q\n" if op == "chg" else source[at]
            if op == "del":
                del source[at]
    os_, on = other
    tokens = [lines_version(lines, s, s + n)]
    if os_ + on <= len(source):
        tokens.append(lines_version(source, os_, os_ + on))
    for v in tokens:
        assert checker.unchanged_at_hint(lines, s, s + n, v) == (v == lines_version(lines, s, s + n))
        # the bytes form check --no-cache's lean path calls on a whole file's lines
        assert unchanged_lines([line.encode() for line in lines], s, s + n, v) == (v == lines_version(lines, s, s + n))
        # ...and then the resolver says exactly what relocate() says.
        text = "".join(lines)
        fast = checker.EvidenceResolver(lambda p, text=text: FileText(p, text, None)).resolve(f"repo://f#L{s + 1}-L{s + n}", v)
        r = relocate(f"repo://f#L{s + 1}-L{s + n}", text, v)
        assert (fast.status, fast.current_resource, fast.reason, fast.current_version) == (
            r.status, r.resource.canonical if r.resource else None, r.reason, r.version)


def test_unchanged_at_hint_rejects_near_misses():
    v = lines_version(LINES, 4, 6)
    assert checker.unchanged_at_hint(LINES, 4, 6, v)
    assert not checker.unchanged_at_hint(LINES, 5, 7, v)
    assert not checker.unchanged_at_hint(LINES, 4, 6, v + "A")
    assert not checker.unchanged_at_hint(LINES, 4, 6, v.replace("repo-lines-v1", "repo-lines-v2"))
    assert not checker.unchanged_at_hint(LINES, 4, 31, v)
    assert not checker.unchanged_at_hint(LINES, 6, 6, v)


# -- fixer -----------------------------------------------------------------------------------


def result_for(c: Claim, r: checker.EvidenceResolver) -> ClaimResult:
    return checker.check_claim("p.md", c, r, page_text="")


def test_fix_moves_fresh_evidence_and_refreshes_the_token():
    moved = "x\ny\n" + TEXT
    r, _ = resolver(w=moved)
    c = claim(("repo://w#L5-L6", token(TEXT, 5, 6)))
    fixed = fixer.fix_claim(c, result_for(c, r), NOW)
    assert fixed.evidence == (Evidence("repo://w#L7-L8", token(moved, 7, 8), "b" * 40),)
    assert fixed.mark is None


def test_fix_marks_stale_keeps_version_then_revert_clears():
    changed = "x\n" + TEXT.replace("line 6\n", "six\n")
    r, _ = resolver(w=changed)
    v = token(TEXT, 5, 6)
    c = claim(("repo://w#L5-L6", v))
    fixed = fixer.fix_claim(c, result_for(c, r), NOW)
    assert fixed.evidence == (Evidence("repo://w#L6-L7", v, "a" * 40),)
    assert fixed.mark is not None and fixed.mark.status == "stale" and fixed.mark.since == NOW
    [cause] = fixed.mark.causes
    assert (cause.resource, cause.old_lines, cause.new_lines) == ("repo://w#L5-L6", (5, 6), (6, 7))
    # Fixing again keeps the mark as it was.
    again = fixer.fix_claim(fixed, result_for(fixed, r), "2027-01-01T00:00:00Z")
    assert again.mark == fixed.mark and again.evidence == fixed.evidence
    # Revert: the text is back; the mark goes, the token is refreshed at the text's place.
    back = "x\n" + TEXT
    r2, _ = resolver(w=back)
    res = result_for(fixed, r2)
    assert res.status == "stale"  # still marked until fixed
    cleared = fixer.fix_claim(fixed, res, NOW)
    assert cleared.mark is None and cleared.evidence[0].resource == "repo://w#L6-L7"
    assert cleared.evidence[0].version == token(back, 6, 7)


def test_fix_unresolved_keeps_evidence_and_upgrades_a_stale_mark():
    r, _ = resolver(w="nothing\n")
    c = claim(("repo://w#L5-L6", token(TEXT, 5, 6)), mark=Mark("stale", "2026-01-01T00:00:00Z"))
    fixed = fixer.fix_claim(c, result_for(c, r), NOW)
    assert fixed.evidence == c.evidence
    assert fixed.mark == Mark("unresolved", "2026-01-01T00:00:00Z")


def test_fix_sidecar_touches_only_its_claims():
    r, _ = resolver(w="x\n" + TEXT)
    a = claim(("repo://w#L1-L1", token(TEXT, 1, 1)), cid="claim_" + "a" * 32)
    b = claim(("repo://w#L2-L2", token(TEXT, 2, 2)), cid="claim_" + "b" * 32)
    sc = Sidecar("p.md", "sha256:" + "0" * 64, (a, b))
    fixed = fixer.fix_sidecar(sc, [result_for(a, r)], NOW)
    assert fixed.claims[0].evidence[0].resource == "repo://w#L2-L2"
    assert fixed.claims[1] == b


def test_verify_claim():
    changed = TEXT.replace("line 6\n", "six\n")
    r, _ = resolver(w=changed)
    c = claim(("repo://w#L5-L6", token(TEXT, 5, 6)), mark=Mark("stale", NOW))
    verified = fixer.verify_claim(c, result_for(c, r), by="human:ada", now=NOW)
    assert verified is not None and verified.mark is None
    assert verified.evidence == (Evidence("repo://w#L5-L6", token(changed, 5, 6), "b" * 40),)
    assert (verified.verified_at, verified.verified_by) == (NOW, "human:ada")
    r2, _ = resolver(w="")
    assert fixer.verify_claim(c, result_for(c, r2), by=None, now=NOW) is None


@pytest.mark.parametrize("status", ["fresh", "stale", "unresolved"])
def test_fix_evidence_rules(status):
    ev = Evidence("repo://w#L1-L1", "old", "a" * 40)
    current = None if status == "unresolved" else "repo://w#L3-L3"
    r = EvidenceResult(ev.resource, status, current, "why", "new", "b" * 40)
    out = fixer._fix_evidence(ev, r)
    expected = {
        "fresh": Evidence("repo://w#L3-L3", "new", "b" * 40),
        "stale": Evidence("repo://w#L3-L3", "old", "a" * 40),
        "unresolved": ev,
    }
    assert out == expected[status]


@settings(max_examples=500, deadline=None)
@given(
    st.text(st.sampled_from(["a", "é", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", " "]), max_size=40)
)
def test_fast_split_lines_is_compats(text):
    assert checker.split_lines(text) == split_lines(text)


def test_fast_path_reads_without_building_the_index():
    r, reader = resolver(w=TEXT)
    assert r.resolve("repo://w#L3-L4", token(TEXT, 3, 4)).status == "fresh"
    assert "w" not in r._files  # no LineIndex was needed
    moved = r.resolve("repo://w#L4-L5", token(TEXT, 3, 4))  # relocation: the index is built
    assert moved.status == "fresh" and moved.current_resource == "repo://w#L3-L4"
    assert "w" in r._files
    assert reader.reads == ["w"]


def test_lone_surrogate_is_left_to_compat():
    lines = ["a\n", "b\ud800\n", "c\n"]
    v = lines_version(lines, 1, 2)
    assert not checker.unchanged_at_hint(lines, 1, 2, v)
    got = checker.EvidenceResolver(lambda p: FileText(p, "".join(lines), None)).resolve("repo://f#L2-L2", v)
    r = relocate("repo://f#L2-L2", "".join(lines), v)
    assert (got.status, got.current_resource, got.current_version) == (r.status, "repo://f#L2-L2", r.version)


def test_unreadable_cited_file_is_unresolved_not_a_crash(wiki_repo, capsys, monkeypatch):
    import builtins

    assert wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.",
                         "--evidence", "repo://src/app.py#L10") == 0
    real_open = builtins.open

    def deny(file, mode="r", *args, **kwargs):
        if str(file).endswith("src/app.py") and "b" in mode:
            raise PermissionError(13, "Permission denied")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", deny)
    capsys.readouterr()
    assert wiki_repo.run("check") == 1
    out = capsys.readouterr().out
    assert "unresolved" in out and "cannot read: Permission denied" in out
