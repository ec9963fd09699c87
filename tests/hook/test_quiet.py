"""The hook skips the pages whose every claim Engine.quiet finds fresh and unchanged (a one-line
edit in a file a hundred claims cite judges the claims near it): on many staged edits of files
that many claims cite (near a claim, between claims, at the file's ends, insertions that shift,
deletions, a rename, a deletion, a mode change, a marked claim, a claim on two files, a whole
file, a set), the evaluation with the skip is the full one less outcomes that are fresh and
unchanged, and Engine.quiet is never True for a claim that judge would report or rewrite."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from openwiki_git.git import diff as gitdiff
from openwiki_git.hook import engine
from openwiki_git.store.workspace import Workspace
from tests.support.repo import GitRepo, add_claim

SOURCE = "".join(f"value_{i} = {i}  # line {i}\n" for i in range(1, 41))
OTHER = "".join(f"other_{i} = {i}\n" for i in range(1, 21))
# (page, evidence) of each claim: ranges all over src/a.py, at its ends, overlapping, and others.
CLAIMS = [
    ("guide.md", ("repo://src/a.py#L1-L3",)),
    ("guide.md", ("repo://src/a.py#L5-L7",)),  # marked in the base commit
    ("guide.md", ("repo://src/a.py#L10-L12",)),
    ("guide.md", ("repo://src/a.py#L12-L14", "repo://src/b.py#L3-L5")),
    ("guide.md", ("repo://src/b.py",)),
    ("more.md", ("repo://src/a.py#L20-L22",)),
    ("more.md", ("repo://src/a.py#L21-L23",)),
    ("more.md", ("repo://src/b.py#L10-L12",)),
    ("far.md", ("repo://src/a.py#L30-L31",)),
    ("far.md", ("repo://src/a.py#L36-L38",)),
    ("end.md", ("repo://src/a.py#L38-L40",)),
    ("end.md", ("repo://src/*.py",)),
    ("mid.md", ("repo://src/a.py#L25-L27",)),
]


def _lines(fn: Callable[[list[str]], list[str]]) -> Callable[[GitRepo], None]:
    def edit(repo: GitRepo) -> None:
        repo.write("src/a.py", "".join(fn(repo.read("src/a.py").splitlines(keepends=True))))
        repo.git("add", "src/a.py")
    return edit


def _rename(repo: GitRepo) -> None:
    repo.git("mv", "src/a.py", "src/c.py")
    repo.write("src/c.py", repo.read("src/c.py").replace("# line 33", "# line thirty-three"))
    repo.git("add", "src/c.py")


def _delete_other(repo: GitRepo) -> None:
    repo.git("rm", "-q", "src/b.py")


def _mode(repo: GitRepo) -> None:
    os.chmod(repo.root / "src/a.py", 0o755)
    repo.git("add", "src/a.py")


def _both(repo: GitRepo) -> None:
    _lines(lambda ls: ls[:32] + ["inserted = 0\n"] + ls[32:])(repo)
    repo.write("src/b.py", repo.read("src/b.py").replace("other_15 = 15", "other_15 = 16"))
    repo.git("add", "src/b.py")


EDITS: dict[str, Callable[[GitRepo], None]] = {
    "line 2": _lines(lambda ls: ls[:1] + ["changed = 2\n"] + ls[2:]),
    "line 17, between claims": _lines(lambda ls: ls[:16] + ["changed = 17\n"] + ls[17:]),
    "line 33, far from most": _lines(lambda ls: ls[:32] + ["changed = 33\n"] + ls[33:]),
    "a line inserted after 15": _lines(lambda ls: ls[:15] + ["inserted = 0\n"] + ls[15:]),
    "line 39 deleted": _lines(lambda ls: ls[:38] + ls[39:]),
    "three lines appended": _lines(lambda ls: ls + ["\n", "def appended():\n", "    return 1\n"]),
    "two lines at the top": _lines(lambda ls: ["# one\n", "# two\n", *ls]),
    "lines 13-14, a claim on two files": _lines(lambda ls: ls[:12] + ["a = 13\n", "b = 14\n"] + ls[14:]),
    "line 6, the marked claim": _lines(lambda ls: ls[:5] + ["again = 6\n"] + ls[6:]),
    "a comment on line 26": _lines(lambda ls: ls[:25] + [ls[25].replace("# line 26", "# line twenty-six")] + ls[26:]),
    "renamed, edited at 33": _rename,
    "src/b.py deleted": _delete_other,
    "mode only": _mode,
    "both files": _both,
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """The claims committed, one of them marked stale by an earlier commit's hook."""
    repo = GitRepo(tmp_path_factory.mktemp("quiet") / "repo")
    repo.root.mkdir()
    repo.git("init", "-q", "-b", "main")
    repo.git("config", "user.name", "t")
    repo.git("config", "user.email", "t@example.com")
    repo.write("src/a.py", SOURCE)
    repo.write("src/b.py", OTHER)
    assert repo.run("init") == 0
    repo.commit_all("sources")
    for i, (page, evidence) in enumerate(CLAIMS):
        path = f".openwiki/{page}"
        if not (repo.root / path).exists():
            repo.write(path, f"---\ntype: Reference\ntitle: {page}\n---\n\n# {page}\n")
        repo.write(path, repo.read(path) + f"\nStatement {i} holds.\n")
        add_claim(repo, page, f"Statement {i} holds.", *evidence)
    repo.commit_all("claims")
    _lines(lambda ls: ls[:5] + ["marked = 6\n"] + ls[6:])(repo)
    assert repo.run("hook") == 1  # marks the claim on L5-L7
    repo.commit_all("a marked claim")
    return repo


@pytest.fixture
def work(base: GitRepo, tmp_path: Path) -> GitRepo:
    root = tmp_path / "work"
    shutil.copytree(base.root, root, symlinks=True)
    return GitRepo(root)


def _outcomes(evaluation: engine.Evaluation) -> list[tuple[str, str, object, str]]:
    return [(o.page, o.before.id, o.after, o.status) for o in evaluation.outcomes]


@pytest.mark.parametrize("name", list(EDITS))
def test_skipping_quiet_pages_changes_nothing_the_hook_writes_or_reports(work: GitRepo, name: str) -> None:
    EDITS[name](work)
    ws = Workspace.open(work.root)
    diff = gitdiff.staged(ws.repo, rename_threshold=ws.config.rename_threshold, hunkless=ws.config.wiki_dir + "/")
    full = engine.evaluate(ws, diff)
    quick = engine.evaluate(ws, diff, skip_quiet=True)
    skipped = set(full.sidecars) - set(quick.sidecars)
    assert set(quick.sidecars) <= set(full.sidecars)
    kept = [o for o in _outcomes(full) if o[0] not in skipped]
    assert _outcomes(quick) == kept
    for o in full.outcomes:
        if o.page in skipped:
            assert o.status == "fresh" and o.after == o.before and not o.changed and not o.newly_flagged
    assert quick.stale() == full.stale() and quick.render == full.render

    # Engine.quiet's contract, claim by claim: quiet means judge finds it fresh and as it is.
    judge = engine._engine(ws, diff)
    for page, sidecar in full.sidecars.items():
        for claim in sidecar.claims:
            if claim.mark is None and judge.quiet([(e.resource, e.version) for e in claim.evidence]):
                outcome = judge.judge(page, claim, claim)
                assert outcome.status == "fresh" and outcome.after == claim, (name, page, claim.id)


def test_the_skip_is_taken_and_declined(work: GitRepo) -> None:
    """Not vacuous: a one-line edit far from most claims skips their pages and judges the page
    of the claim beside it (and those with a set or a marked claim); an insertion that moves
    every claim below it skips none of theirs."""
    ws = Workspace.open(work.root)
    EDITS["line 33, far from most"](work)
    diff = gitdiff.staged(ws.repo, rename_threshold=ws.config.rename_threshold, hunkless=ws.config.wiki_dir + "/")
    quick = engine.evaluate(ws, diff, skip_quiet=True)
    full = engine.evaluate(ws, diff)
    assert set(full.sidecars) - set(quick.sidecars) == {"more.md", "mid.md"}
    # L30-L31 is within 3 lines of the edit, a set is judged, a marked claim (L5-L7) is judged
    assert set(quick.sidecars) == {"far.md", "end.md", "guide.md"}
    work.git("reset", "-q", "--hard")
    EDITS["a line inserted after 15"](work)
    ws = Workspace.open(work.root)
    diff = gitdiff.staged(ws.repo, rename_threshold=ws.config.rename_threshold, hunkless=ws.config.wiki_dir + "/")
    assert {"more.md", "far.md", "mid.md", "end.md"} <= set(engine.evaluate(ws, diff, skip_quiet=True).sidecars)


def test_the_real_hook_writes_what_the_full_evaluation_writes(work: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """Through the CLI (which skips quiet pages): the marks and re-anchored ranges written are
    those of the full evaluation applied in a copy of the same repository."""
    EDITS["both files"](work)
    copy = GitRepo(work.root.parent / "copy")
    shutil.copytree(work.root, copy.root, symlinks=True)
    ws = Workspace.open(copy.root)
    diff = gitdiff.staged(ws.repo, rename_threshold=ws.config.rename_threshold, hunkless=ws.config.wiki_dir + "/")
    with ws.wiki.lock():
        written = engine.apply(ws, engine.evaluate(ws, diff))
    assert work.run("hook") == 1
    capsys.readouterr()
    assert written and {p: work.read(p) for p in written} == {p: copy.read(p) for p in written}
    assert {p: b for p, b in work.snapshot().items() if p.startswith(".openwiki/")} == {
        p: b for p, b in copy.snapshot().items() if p.startswith(".openwiki/")
    }
