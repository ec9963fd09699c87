"""The issue's minimal reproduction and the range bound, through the real commands on real repos.

A 30-line file, a claim on L10-L13; one staged change edits L8, L9, L13 and L14 and inserts 20
lines inside the range. The first version's second hook run re-judged the marked claim on the new
side with the old token against the remapped range, rewrote `stale` to `unresolved` and exited 1
again. Now: stale on every run, the second run writes nothing and passes, `check` and
`check --base` say stale too, and the range keeps within max(2x, +10 lines).
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from openwiki_git.evidence.relocation import range_limit

SRC = "".join(f"line {i}\n" for i in range(1, 31))


def quiet(repo, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = repo.run(*argv)
    return rc, out.getvalue(), err.getvalue()


def claimed(repo):  # type: ignore[no-untyped-def]
    """The 30-line file with a claim on L10-L13, committed (`repo.cid`, `repo.base`)."""
    repo.write("app.py", SRC)
    assert quiet(repo, "init")[0] == 0
    repo.write(".openwiki/guide.md", "---\ntype: Reference\ntitle: G\n---\n\n# G\n\nTen to thirteen.\n")
    repo.commit_all("init")
    rc, out, _ = quiet(repo, "claim", "add", "--page", "guide.md", "--statement", "Ten to thirteen.",
                       "--evidence", "repo://app.py#L10-L13")
    assert rc == 0
    repo.cid = out.strip()
    repo.base = repo.commit_all("claim")
    return repo


@pytest.fixture
def minimal(repo):  # type: ignore[no-untyped-def]
    claimed(repo)
    lines = SRC.splitlines(keepends=True)
    for n in (8, 9, 13, 14):
        lines[n - 1] = f"edited {n}\n"
    lines[11:11] = [f"inserted {i}\n" for i in range(20)]
    repo.write("app.py", "".join(lines))
    repo.git("add", "app.py")
    return repo


def claim(repo) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]


def test_the_minimal_reproduction_stays_stale_and_converges(minimal) -> None:  # type: ignore[no-untyped-def]
    rc, out, err = quiet(minimal, "hook")
    assert rc == 1 and "Ten to thirteen." in out and "the marks are staged" in err
    first = claim(minimal)
    assert first["mark"]["status"] == "stale"
    (cause,) = first["mark"]["causes"]
    assert cause["oldLines"] == [10, 13] and cause["hunk"] == "@@ -11,0 +12,20 @@, @@ -13,2 +33,2 @@"
    assert cause["blob"] == minimal.git("rev-parse", "HEAD:app.py").strip()  # the verified text: blob + oldLines
    # the remapped extent L10-L34 (25 lines) is past the bound of max(8, 14): the range keeps its size
    assert first["evidence"][0]["resource"] == "repo://app.py#L10-L13"
    assert "L10-L34 (25 lines) is past the bound of 14" in cause["reason"]
    assert minimal.git("diff", "--name-only") == ""  # staged
    snap = minimal.snapshot()
    for _ in range(2):  # the same commit, run again: nothing written, passes
        rc, out, err = quiet(minimal, "hook")
        assert rc == 0 and err == "" and minimal.snapshot() == snap
        assert claim(minimal)["mark"]["status"] == "stale"
    rc, out, _ = quiet(minimal, "check", "--format", "json")
    assert [c["status"] for c in json.loads(out)["claims"]] == ["stale"]
    minimal.git("commit", "-q", "--no-verify", "-m", "edit")
    rc, out, _ = quiet(minimal, "check", "--base", minimal.base, "--format", "json")
    assert [c["status"] for c in json.loads(out)["claims"]] == ["stale"]
    rc, out, _ = quiet(minimal, "check", "--format", "json")
    assert [c["status"] for c in json.loads(out)["claims"]] == ["stale"]


def test_a_revert_staged_after_the_stop_drops_the_mark_this_run_wrote(minimal) -> None:  # type: ignore[no-untyped-def]
    assert quiet(minimal, "hook")[0] == 1
    minimal.write("app.py", SRC)
    minimal.git("add", "app.py")
    rc, _, _ = quiet(minimal, "hook")
    assert rc == 0 and "mark" not in claim(minimal)
    assert claim(minimal)["evidence"][0]["resource"] == "repo://app.py#L10-L13"
    assert minimal.git("diff", "--cached", "--name-only").split() == []  # back to HEAD exactly


@pytest.mark.parametrize("factor,lines,extent", [(2, 10, (10, 13)), (10, 10, (10, 34))])
def test_the_bound_is_configurable(minimal, factor: int, lines: int, extent: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    minimal.write(".openwiki/config.yml", minimal.read(".openwiki/config.yml")
                  + f"range_growth_factor: {factor}\nrange_growth_lines: {lines}\n")
    minimal.git("add", "-A")
    assert quiet(minimal, "hook")[0] == 1
    assert claim(minimal)["evidence"][0]["resource"] == f"repo://app.py#L{extent[0]}-L{extent[1]}"


def test_check_fix_and_confirm_never_adopt_a_range_past_the_bound(repo) -> None:  # type: ignore[no-untyped-def]
    """Relocation between unchanged context finds the changed text grown to 34 lines: `check
    --fix` keeps the cited size, and `claim confirm` verifies the kept range, saying why."""
    cid = claimed(repo).cid
    lines = SRC.splitlines(keepends=True)
    lines[10:12] = [f"method {i}\n" for i in range(32)]  # inside the range, its context untouched
    repo.write("app.py", "".join(lines))
    assert range_limit(4) == 14
    assert quiet(repo, "check", "--fix")[0] == 1
    c = claim(repo)
    assert c["evidence"][0]["resource"] == "repo://app.py#L10-L13" and c["mark"]["status"] == "stale"
    rc, out, _ = quiet(repo, "claim", "confirm", cid, "--by", "human:ada")
    assert rc == 0 and "past the bound of 14" in out and "a person or the refresher must set it" in out
    c = claim(repo)
    assert c["evidence"][0]["resource"] == "repo://app.py#L10-L13" and "mark" not in c
