"""The hook converges in one run, and the hook, `check` and `check --base` agree on every claim.

A property test on real git repositories: random multi-hunk changes (edits, insertions and
deletions in and around cited ranges, renames, blocks moved to another file) are staged, the hook
runs once, and then:

- its output is staged (nothing it wrote has unstaged edits here), and a second run writes
  nothing and exits 0;
- an evidence range never spans more than `relocation.range_limit()` of its cited size;
- a claim is `unresolved` only when its cited lines were deleted (the change deleted lines);
- after the commit, `check` (working tree), `check --base` (the commits), the PR comment rendered
  from it and the hook's marks give every claim the same status.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openwiki_git.evidence.relocation import range_limit
from openwiki_git.evidence.resource import parse_resource
from openwiki_git.evidence.tokens import decode_anchors
from openwiki_git.github import comment as ghcomment
from openwiki_git.github import render as ghactions
from tests.support.repo import GitRepo

N = 40
SRC = [f"def f{i}(): return {i}\n" for i in range(1, N + 1)]
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n{body}\n"


def quiet(repo: GitRepo, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = repo.run(*argv)
    return rc, out.getvalue()


ranges = st.tuples(st.integers(1, N), st.integers(0, 5)).map(lambda t: (t[0], min(N, t[0] + t[1])))
ops = st.one_of(
    st.tuples(st.just("edit"), st.integers(1, N)),
    st.tuples(st.just("insert"), st.integers(0, N), st.integers(1, 25)),
    st.tuples(st.just("delete"), st.integers(1, N), st.integers(1, 6)),
    st.tuples(st.just("move"), st.integers(1, N), st.integers(1, 6)),
)


def apply_ops(lines: list[str], changes: list[tuple]) -> tuple[list[str], list[str], bool]:  # type: ignore[type-arg]
    """The new text of the file, the lines moved to the other file, and whether lines were deleted."""
    lines = list(lines)
    moved: list[str] = []
    deleted = False
    for k, op in enumerate(changes):
        kind = op[0]
        n = len(lines)
        if kind == "edit" and n:
            i = min(op[1], n) - 1
            lines[i] = f"# edited {k}\n" + lines[i].replace("return", f"return {k} +")
        elif kind == "insert":
            i = min(op[1], n)
            lines[i:i] = [f"x{k}_{j} = {j}\n" for j in range(op[2])]
        elif kind in ("delete", "move") and n:
            i = min(op[1], n) - 1
            block = lines[i : i + op[2]]
            del lines[i : i + op[2]]
            if kind == "move":
                moved.extend(block)
            else:
                deleted = True
    return lines, moved, deleted


def statuses(report: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {c["id"]: c["status"] for c in report["claims"]}


@settings(
    max_examples=int(os.environ.get("CONVERGE_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    claims=st.lists(ranges, min_size=1, max_size=4, unique=True),
    changes=st.lists(ops, min_size=1, max_size=5),
    rename=st.booleans(),
    more=st.lists(ops, max_size=3),
)
def test_one_run_converges_and_everyone_agrees(claims, changes, rename, more) -> None:  # type: ignore[no-untyped-def]
    root = Path(tempfile.mkdtemp(prefix="converge-"))
    try:
        repo = GitRepo(root)
        repo.git("init", "-q", "-b", "main")
        repo.write("src/app.py", "".join(SRC))
        repo.write("src/other.py", "".join(f"other = {i}\n" for i in range(10)))
        assert quiet(repo, "init")[0] == 0
        repo.write(".openwiki/guide.md", PAGE.format(body=" ".join(f"Claim {k}." for k in range(len(claims)))))
        repo.commit_all("initial")
        for k, (s, e) in enumerate(claims):
            rc, _ = quiet(repo, "claim", "add", "--page", "guide.md", "--statement", f"Claim {k}.",
                          "--evidence", f"repo://src/app.py#L{s}-L{e}")
            assert rc == 0
        base = repo.commit_all("claims")

        new, moved, deleted = apply_ops(SRC, changes)
        path = "src/app.py"
        if rename:
            repo.git("mv", "src/app.py", "src/core.py")
            path = "src/core.py"
        repo.write(path, "".join(new))
        if moved:
            repo.write("src/other.py", repo.read("src/other.py") + "".join(moved))
        repo.git("add", "-A")

        first, _ = quiet(repo, "hook")
        assert first in (0, 1)
        if more:  # the commit stopped (or not); the person changes more before committing
            again, moved2, deleted2 = apply_ops(repo.read(path).splitlines(keepends=True), more)
            repo.write(path, "".join(again))
            if moved2:
                repo.write("src/other.py", repo.read("src/other.py") + "".join(moved2))
            moved, deleted = moved + moved2, deleted or deleted2
            repo.git("add", "-A")
            first, _ = quiet(repo, "hook")
        assert repo.git("diff", "--name-only") == ""  # everything the hook wrote is staged
        snap, index = repo.snapshot(), repo.git("ls-files", "-s")
        second, _ = quiet(repo, "hook")
        assert second == 0, "the second run must pass"
        assert repo.snapshot() == snap and repo.git("ls-files", "-s") == index, "the second run wrote something"

        sidecar = json.loads(repo.read(".openwiki/.claims/guide.json"))
        if os.environ.get("CONVERGE_DEBUG"):
            print("STATS", first, sorted(c.get("mark", {}).get("status", "fresh") for c in sidecar["claims"]))
        hook_status = {}
        for c in sidecar["claims"]:
            mark = c.get("mark")
            hook_status[c["id"]] = mark["status"] if mark else "fresh"
            for ev in c["evidence"]:
                res = parse_resource(ev["resource"], wiki_dir=".openwiki")
                anchors = decode_anchors(ev["version"])
                assert anchors is not None and res.start is not None and res.end is not None
                cited = int(anchors[1]["selectedLineCount"])
                assert res.end - res.start + 1 <= range_limit(cited), (ev["resource"], cited)
            if mark and mark["status"] == "unresolved":
                assert deleted or moved, f"unresolved without deleted lines: {mark}"

        repo.git("commit", "-q", "--no-verify", "-m", "change")
        rc, out = quiet(repo, "check", "--format", "json", "--no-cache")
        worktree = statuses(json.loads(out))
        rc, out = quiet(repo, "check", "--base", base, "--format", "json")
        report = json.loads(out)
        ci = statuses(report)
        comment = ghcomment.render_comment(report, ghactions.Links(repo="o/r", sha="0" * 40))
        for c in report["claims"]:  # the PR comment lists each flagged claim with the same status
            shown = f"`{ghactions.short_id(c['id'])}` · {c['status']}" in comment
            assert shown == (c["status"] != "fresh"), (c["status"], comment)
        assert worktree == hook_status
        assert {k: v for k, v in hook_status.items() if k in ci} == ci
        assert set(ci) == set(hook_status) or all(v == "fresh" for k, v in hook_status.items() if k not in ci)
    finally:
        shutil.rmtree(root, ignore_errors=True)
