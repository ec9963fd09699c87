"""`openwiki-git hook`, `claim confirm`, `check --base` and `install`, in real repositories (the
command runs in-process; e2e/ drives the same through `git commit` and pre-commit)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from openwiki_git.caches import cites
from openwiki_git.formats import schema
from openwiki_git.git.repo import Repo

SAMPLE = "".join(f"line {i}\n" for i in range(1, 41))


def add_claim(repo, statement: str, resource: str) -> str:  # type: ignore[no-untyped-def]
    import contextlib
    import io

    from openwiki_git.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-C", str(repo.root), "claim", "add", "--page", "guide.md", "--statement", statement, "--evidence", resource]) == 0
    return out.getvalue().split()[0]


def sidecar(repo) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return json.loads(repo.read(".openwiki/.claims/guide.json"))


def claim_of(repo, cid: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return next(c for c in sidecar(repo)["claims"] if c["id"] == cid)


@pytest.fixture
def claimed(wiki_repo):  # type: ignore[no-untyped-def]
    """Two claims on src/app.py, committed: A cites L10-L12, B cites L30-L31."""
    page = wiki_repo.read(".openwiki/guide.md")
    wiki_repo.write(".openwiki/guide.md", page + "\nThirty follows.\n")
    a = add_claim(wiki_repo, "Line ten says ten.", "repo://src/app.py#L10-L12")
    b = add_claim(wiki_repo, "Thirty follows.", "repo://src/app.py#L30-L31")
    wiki_repo.commit_all("claims")
    wiki_repo.ids = (a, b)
    return wiki_repo


def edit(repo, fn) -> None:  # type: ignore[no-untyped-def]
    lines = repo.read("src/app.py").splitlines(keepends=True)
    repo.write("src/app.py", "".join(fn(lines)))


def test_hook_marks_stale_claims_re_anchors_moved_ones_and_is_idempotent(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    a, b = claimed.ids
    edit(claimed, lambda ls: ["# header\n"] + ls[:10] + ["line eleven, rewritten\n"] + ls[11:])
    claimed.git("add", "src/app.py")
    capsys.readouterr()
    assert claimed.run("hook") == 1
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out == [f".openwiki/guide.md: {a}: Line ten says ten. (src/app.py#L11-L13 changed by @@ -11 +12 @@)"]
    # the stop says how people clear marks first (`review`), then how to read one claim
    stop = captured.err.splitlines()[-1]
    assert stop.startswith("openwiki-git: marked 1 claim stale; the marks are staged with this commit.")
    assert stop.index("`openwiki-git review`") < stop.index("`openwiki-git claim show ID`") < stop.index("the same `git commit` again")
    ca, cb = claim_of(claimed, a), claim_of(claimed, b)
    assert ca["mark"]["status"] == "stale"
    assert ca["mark"]["causes"] == [
        {"resource": "repo://src/app.py#L10-L12", "reason": "changed", "hunk": "@@ -11 +12 @@", "oldLines": [10, 12], "newLines": [11, 13],
         "blob": claimed.git("rev-parse", "HEAD:src/app.py").strip()}  # where the verified text is: `git cat-file -p`
    ]
    assert ca["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    assert "mark" not in cb and cb["evidence"][0]["resource"] == "repo://src/app.py#L31-L32"
    assert "(⚠ stale" in claimed.read(".openwiki/guide.md")
    # twice in a row: nothing changes, whether or not the first run's output was staged
    before = claimed.snapshot()
    assert claimed.run("hook") == 0
    assert claimed.snapshot() == before
    claimed.git("add", "-A")
    assert claimed.run("hook") == 0
    assert claimed.snapshot() == before
    assert capsys.readouterr().out.count(a) == 2  # still reported, not rewritten
    # and the core's check agrees with what the hook wrote
    assert claimed.run("check", "--fix") == 1
    assert claimed.snapshot() == before


def test_check_mode_writes_nothing_and_fails_on_stale(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    edit(claimed, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    claimed.git("add", "src/app.py")
    before = claimed.snapshot()
    assert claimed.run("hook", "--check") == 1
    assert claimed.snapshot() == before
    assert "changed by @@ -11 +11 @@" in capsys.readouterr().out


def test_only_the_staged_diff_counts(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    """An unstaged edit inside a cited range is not reported; once staged, it is."""
    a, _ = claimed.ids
    edit(claimed, lambda ls: ["# header\n"] + ls)
    claimed.git("add", "src/app.py")
    edit(claimed, lambda ls: ls[:11] + ["unstaged change\n"] + ls[12:])  # line 11 of the original
    capsys.readouterr()
    assert claimed.run("hook") == 0  # re-anchors both claims (shifted by the staged header), staged
    assert capsys.readouterr().out == ""
    assert claimed.git("diff", "--name-only").split() == ["src/app.py"]  # the rewrites are staged
    assert claim_of(claimed, a)["evidence"][0]["resource"] == "repo://src/app.py#L11-L13"
    assert "mark" not in claim_of(claimed, a)
    claimed.git("add", "src/app.py")
    assert claimed.run("hook") == 1
    assert f"{a}: Line ten says ten. (src/app.py#L11-L13 changed by @@ -11 +12 @@)" in capsys.readouterr().out


def test_honours_GIT_INDEX_FILE(claimed, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """`git commit <paths>` runs the hook on a temporary index: that one is read."""
    edit(claimed, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    temp_index = claimed.root / ".git" / "next-index-test.lock"
    env = {"GIT_INDEX_FILE": str(temp_index)}
    claimed.git("read-tree", "HEAD", env=env)
    claimed.git("add", "src/app.py", env=env)
    assert claimed.git("diff", "--cached", "--name-only") == ""  # the real index is untouched
    monkeypatch.chdir(claimed.root)
    monkeypatch.setenv("GIT_INDEX_FILE", str(temp_index))
    from openwiki_git.cli.main import main

    assert main(["hook", "--check"]) == 1
    assert "changed by @@ -11 +11 @@" in capsys.readouterr().out
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert main(["hook", "--check"]) == 0  # the real index has nothing staged and HEAD is clean


def test_deleted_and_renamed_files(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    a, b = claimed.ids
    claimed.write("src/other.py", SAMPLE)
    claimed.git("add", "src/other.py")
    add_claim(claimed, "Other file.", "repo://src/other.py#L1-L2")
    claimed.commit_all("other")
    claimed.git("mv", "src/app.py", "src/renamed.py")
    claimed.git("rm", "-q", "src/other.py")
    capsys.readouterr()
    assert claimed.run("hook") == 1
    out = capsys.readouterr().out
    assert "src/other.py#L1-L2 deleted" in out
    assert claim_of(claimed, a)["evidence"][0]["resource"] == "repo://src/renamed.py#L10-L12"
    assert claim_of(claimed, b)["evidence"][0]["resource"] == "repo://src/renamed.py#L30-L31"
    other = next(c for c in sidecar(claimed)["claims"] if c["statement"] == "Other file.")
    assert other["mark"]["status"] == "unresolved"


def test_first_commit_without_head(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    repo.write("src/app.py", SAMPLE)
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", "---\ntype: Reference\n---\n\nLine ten says ten.\n")
    repo.git("add", "-A")
    add_claim(repo, "Line ten says ten.", "repo://src/app.py#L10-L12")
    repo.git("add", "-A")
    before = repo.snapshot()
    assert repo.run("hook") == 0
    assert repo.snapshot() == before
    assert repo.run("hook", "--check") == 0


def test_nothing_staged_checks_every_claim_against_the_index(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    """`pre-commit run --all-files` on a clean tree: no staged diff, so every claim is checked."""
    a, _ = claimed.ids
    edit(claimed, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    claimed.commit_all("committed without the hook")
    capsys.readouterr()
    assert claimed.run("hook", "--check") == 1
    assert a in capsys.readouterr().out
    assert claimed.run("hook") == 1
    assert claim_of(claimed, a)["mark"]["status"] == "stale"


def test_pre_commit_ref_range(claimed, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    a, _ = claimed.ids
    base = claimed.git("rev-parse", "HEAD").strip()
    edit(claimed, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    claimed.commit_all("one")
    claimed.write("README", "x\n")
    claimed.commit_all("two")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", base)
    monkeypatch.setenv("PRE_COMMIT_TO_REF", "HEAD")
    before = claimed.snapshot()
    capsys.readouterr()
    assert claimed.run("hook", "--check") == 1
    assert f"{a}: Line ten says ten. (src/app.py#L10-L12 changed by @@ -11 +11 @@)" in capsys.readouterr().out
    assert claimed.snapshot() == before
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "HEAD~1")
    assert claimed.run("hook", "--check") == 0  # README only


def test_claim_confirm_clears_the_mark_and_records_who(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    a, _ = claimed.ids
    edit(claimed, lambda ls: ls[:10] + ["changed\n"] + ls[11:])
    claimed.git("add", "src/app.py")
    assert claimed.run("hook") == 1
    old_version = claim_of(claimed, a)["evidence"][0]["version"]
    assert claimed.run("claim", "confirm", a[:14], "--by", "human:ada") == 0
    c = claim_of(claimed, a)
    assert "mark" not in c and c["verifiedBy"] == "human:ada"
    assert c["evidence"][0]["version"] != old_version
    claimed.git("add", "-A")
    capsys.readouterr()
    assert claimed.run("hook") == 0
    assert capsys.readouterr().out == ""
    assert claimed.run("check") == 0


def test_claim_confirm_refuses_unresolved_evidence(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    a, _ = claimed.ids
    claimed.git("rm", "-q", "src/app.py")
    before = claimed.snapshot()
    assert claimed.run("claim", "confirm", a) == 2
    assert claimed.snapshot() == before
    assert "cannot confirm" in capsys.readouterr().err


def test_check_base_reports_the_range_with_hunks(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    a, b = claimed.ids
    claimed.git("checkout", "-q", "-b", "topic")
    edit(claimed, lambda ls: ["# header\n"] + ls[:10] + ["changed\n"] + ls[11:])
    claimed.commit_all("topic change")
    claimed.git("checkout", "-q", "main")
    claimed.write("unrelated.txt", "main moves on\n")
    claimed.commit_all("main")
    claimed.git("checkout", "-q", "topic")
    edit(claimed, lambda ls: ls + ["worktree only\n"])  # never read
    capsys.readouterr()
    assert claimed.run("check", "--base", "main", "--format", "json") == 1
    data = json.loads(capsys.readouterr().out)
    assert schema.problems("check-report", data) == []
    assert data["base"] == claimed.git("merge-base", "main", "topic").strip()
    assert data["head"] == claimed.git("rev-parse", "topic").strip()
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id[a]["status"] == "stale"
    assert by_id[a]["evidence"][0]["hunk"] == "@@ -11 +12 @@"
    assert by_id[b]["status"] == "fresh"
    assert by_id[b]["evidence"][0]["current_resource"] == "repo://src/app.py#L31-L32"
    assert data["summary"]["stale"] == 1
    from openwiki_git.services.check_chain import ci_report
    from openwiki_git.store.workspace import Workspace

    assert ci_report(Workspace.open(claimed.root), "main", "topic")["claims"] == data["claims"]
    assert claimed.run("check", "--base", "topic") == 0  # nothing between topic and itself


def test_check_base_names_each_claims_line_and_marker_as_check_does(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    """Two claims of one page changed by the range, one of them with its marker removed: check
    --base (one read and one split of the page for both) gives each the line and marker_present
    that check gives it on the same commit."""
    a, b = claimed.ids
    base = claimed.git("rev-parse", "HEAD").strip()
    claimed.write(".openwiki/guide.md", "Intro.\n\n" + claimed.read(".openwiki/guide.md").replace(f"[^c-{b[6:14]}]", "", 1))
    edit(claimed, lambda ls: ls[:10] + ["changed\n"] + ls[11:29] + ["thirty, changed\n"] + ls[30:])
    claimed.commit_all("both claims' lines, a marker gone")
    capsys.readouterr()
    assert claimed.run("check", "--base", base, "--format", "json") == 1
    ranged = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    assert claimed.run("check", "--no-cache", "--format", "json") == 1
    checked = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    line = next(n for n, text in enumerate(claimed.read(".openwiki/guide.md").splitlines(), 1) if "Line ten says ten." in text)
    assert ranged[a]["line"] == checked[a]["line"] == line and ranged[a]["marker_present"] and ranged[a]["status"] == "stale"
    assert not ranged[b]["marker_present"] and not checked[b]["marker_present"] and "line" not in ranged[b]


def test_cite_index_follows_the_claims_tree_incrementally(claimed) -> None:  # type: ignore[no-untyped-def]
    repo = Repo(claimed.root)
    index = cites.CiteIndex(repo, ".openwiki/.claims")
    head = repo.head()
    assert index.sidecars_citing(head, {"src/app.py"}) == {"guide.json"}
    assert index.rebuilt
    claimed.write("src/b.py", SAMPLE)
    claimed.write(".openwiki/more.md", "---\ntype: Reference\n---\n\nB.\n")
    claimed.git("add", "-A")
    from openwiki_git.cli.main import main

    assert (
        main(["-C", str(claimed.root), "claim", "add", "--page", "more.md", "--statement", "B.", "--evidence", "repo://src/b.py#L1-L3"])
        == 0
    )
    claimed.commit_all("more")
    index = cites.CiteIndex(Repo(claimed.root), ".openwiki/.claims")
    assert index.sidecars_citing(Repo(claimed.root).head(), {"src/b.py", "src/app.py"}) == {"guide.json", "more.json"}
    assert not index.rebuilt  # moved from the old tree by diffing the two trees
    assert index.sidecars_citing(head, {"src/b.py"}) == set()


def test_install_is_idempotent(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    assert claimed.run("install") == 0
    assert claimed.git("config", "merge.openwiki-git.driver").strip() == "openwiki-git merge-driver %O %A %B %P"
    assert claimed.read(".gitattributes") == (
        ".openwiki/.claims/**/*.json merge=openwiki-git\n.openwiki/**/*.md merge=openwiki-git\n"
        ".openwiki/**/*.rst merge=openwiki-git\n"
    )
    before = claimed.snapshot()
    capsys.readouterr()
    assert claimed.run("install") == 0
    assert "nothing changed" in capsys.readouterr().out
    assert claimed.snapshot() == before
    attr = claimed.git("check-attr", "merge", ".openwiki/.claims/guide.json")
    assert attr.strip().endswith("merge: openwiki-git")
    assert re.search(r"merge: openwiki-git", claimed.git("check-attr", "merge", ".openwiki/.claims/a/b/c.json"))
    assert re.search(r"merge: openwiki-git", claimed.git("check-attr", "merge", ".openwiki/guide.md"))


def test_a_claim_id_on_two_pages_is_refused_when_the_commit_touches_only_one(claimed, capsys) -> None:  # type: ignore[no-untyped-def]
    """other.md carries claim A's id too (a copied sidecar) but cites another file: a commit that
    touches only guide.md's claims is refused as validate and check refuse it, nothing written."""
    a, _ = claimed.ids
    claimed.write("src/copy.py", SAMPLE)
    claimed.write(".openwiki/other.md", claimed.read(".openwiki/guide.md"))
    claimed.write(".openwiki/.claims/other.json", claimed.read(".openwiki/.claims/guide.json").replace("src/app.py", "src/copy.py"))
    claimed.commit_all("a copied page")  # no hook in this repository: the copy got in
    capsys.readouterr()
    assert claimed.run("validate") == 1 and f"claim {a} is also on page" in capsys.readouterr().out
    edit(claimed, lambda ls: ["# header\n"] + ls)  # moves guide.md's cited lines only
    claimed.git("add", "src/app.py")
    before, staged = claimed.snapshot(), claimed.git("diff", "--cached", "--name-only")
    capsys.readouterr()
    assert claimed.run("hook") == 2
    err = capsys.readouterr().err
    assert f"claim {a} is also on page" in err and "Traceback" not in err
    assert claimed.snapshot() == before and claimed.git("diff", "--cached", "--name-only") == staged


def test_the_wikis_own_files_are_diffed_without_their_hunks_and_judged_the_same(claimed) -> None:  # type: ignore[no-untyped-def]
    """The hook records the changes to the wiki's pages and sidecars without reading their
    content (no evidence may cite them): on a staged diff and on a ref range that change source,
    a page and its sidecar, every other record is the full diff's, and the claims are judged and
    the pages re-rendered exactly as through the full diff."""
    from openwiki_git.git import diff as gitdiff
    from openwiki_git.hook import engine
    from openwiki_git.store.workspace import Workspace

    def judged(ws, diff):  # type: ignore[no-untyped-def]
        got = engine.evaluate(ws, diff)
        return [(o.page, o.before, o.status, o.evidence, o.affected) for o in got.outcomes], got.render

    base = claimed.git("rev-parse", "HEAD").strip()
    edit(claimed, lambda ls: ["# header\n"] + ls[:10] + ["changed\n"] + ls[11:])
    for path in (".openwiki/guide.md", ".openwiki/.claims/guide.json"):
        claimed.write(path, claimed.read(path).replace("Thirty follows.", "Thirty follows, still."))
    claimed.git("add", "-A")
    ws = Workspace.open(claimed.root)
    staged_fast, staged_full = engine.staged_or_range(ws, None, None)[0], gitdiff.staged(ws.repo)
    cases = [(staged_fast, staged_full, judged(ws, staged_fast), judged(ws, staged_full))]
    claimed.commit_all("source, page and sidecar")
    ranged_fast = engine.staged_or_range(ws, base, "HEAD")[0]
    ranged_full = gitdiff.between(ws.repo, base, ranged_fast.new)
    cases.append((ranged_fast, ranged_full, judged(ws, ranged_fast), judged(ws, ranged_full)))
    for fast, full, fast_judged, full_judged in cases:
        wiki = [c for c in full.changes if c.new_path and c.new_path.startswith(".openwiki/")]
        assert len(wiki) == 2 and all(c.hunks for c in wiki)
        assert [c for c in fast.changes if c not in full.changes] == [dataclasses.replace(c, hunks=()) for c in wiki]
        assert fast_judged == full_judged and fast_judged[0]


@pytest.mark.parametrize("copied_in", ["base", "head"])
def test_check_base_refuses_a_claim_id_on_a_page_the_range_does_not_touch(claimed, capsys, copied_in) -> None:  # type: ignore[no-untyped-def]
    """check --base (a one-shot scan of the sidecars, no index) refuses a claim id of a judged
    page that another page carries, whether the copy was in the base (the scan's tree) or came in
    with the range (the head's tree differs from the one scanned for the paths); nothing written."""
    a, _ = claimed.ids

    def copy_page() -> None:
        claimed.write("src/copy.py", SAMPLE)
        claimed.write(".openwiki/other.md", claimed.read(".openwiki/guide.md"))
        claimed.write(".openwiki/.claims/other.json", claimed.read(".openwiki/.claims/guide.json").replace("src/app.py", "src/copy.py"))

    if copied_in == "base":
        copy_page()
        claimed.commit_all("a copied page")
    base = claimed.git("rev-parse", "HEAD").strip()
    edit(claimed, lambda ls: ls[:10] + ["changed\n"] + ls[11:])  # guide.md's claim A goes stale
    if copied_in == "head":
        copy_page()
    claimed.commit_all("the range")
    before = claimed.snapshot()
    capsys.readouterr()
    assert claimed.run("check", "--base", base) == 2
    err = capsys.readouterr().err
    assert f"claim {a} is also on page" in err and "Traceback" not in err
    assert claimed.snapshot() == before
    assert not (claimed.root / ".git" / "openwiki-git" / "cites-v1.sqlite3").exists()
