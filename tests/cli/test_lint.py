"""`openwiki-git lint`: ungrounded pages, orphan sidecars (renames followed, never deleted), missing
markers, broken links, out-of-step front matter and indexes; exit 1 on findings; --fix."""

from __future__ import annotations

import json

import pytest

from openwiki_git.pages import citations
from openwiki_git.pages.indexes import GENERATED_INDEX_MARK
from tests.support.repo import GitRepo


def lint(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    rc = repo.run("lint", "--format", "json", *args)
    return rc, json.loads(capsys.readouterr().out)


def kinds(data: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(f["kind"], f["path"]) for f in data["findings"]]


@pytest.fixture
def grounded(wiki_repo: GitRepo) -> GitRepo:
    """guide.md with one claim, indexes generated, committed: lint is clean."""
    assert (
        wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10-L10")
        == 0
    )
    assert wiki_repo.run("lint", "--fix") == 0
    wiki_repo.commit_all("grounded")
    return wiki_repo


def claim_id(repo: GitRepo, page: str = "guide") -> str:
    return json.loads(repo.read(f".openwiki/.claims/{page}.json"))["claims"][0]["id"]  # type: ignore[no-any-return]


def test_clean_wiki(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint(grounded, capsys) == (0, lint(grounded, capsys)[1])
    capsys.readouterr()
    assert grounded.run("lint") == 0
    assert capsys.readouterr().out == "no findings\n"


def test_each_kind_of_finding(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = grounded
    repo.write(".openwiki/lonely.md", "---\ntype: Note\n---\n\nSee [the guide](guide.md), [nothing](missing.md), [a dir](api/),\n"
               "[abs](/guide.md), [web](https://example.invalid/x.md), [code](../src/app.py#L1) and `[no](nope.md)`.\n\n"
               "```\n[fenced](nope.md)\n```\n\n[ref]: gone.md\n")
    repo.write(".openwiki/.claims/deleted.json", repo.read(".openwiki/.claims/guide.json").replace(claim_id(repo), "claim_" + "d" * 32))
    text = repo.read(".openwiki/guide.md")
    repo.write(".openwiki/guide.md", text.replace(citations.marker(claim_id(repo)) + "\n", "\n", 1))
    rc, data = lint(repo, capsys)
    assert rc == 1
    found = kinds(data)
    assert ("ungrounded", ".openwiki/lonely.md") in found
    assert ("orphan-sidecar", ".openwiki/.claims/deleted.json") in found
    assert ("missing-marker", ".openwiki/guide.md") in found
    links = [f for f in data["findings"] if f["kind"] == "broken-link"]
    assert [(f["line"], f["message"].split(" leads")[0]) for f in links] == [
        (5, "link to missing.md"), (5, "link to api/"), (12, "link to gone.md")
    ]
    assert ("index", ".openwiki/index.md") in found
    assert data["summary"]["total"] == len(found)


def test_fix_places_markers_regenerates_indexes_and_never_deletes_an_orphan(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = grounded
    cid = claim_id(repo)
    repo.write(".openwiki/guide.md", repo.read(".openwiki/guide.md").replace(citations.marker(cid), ""))
    orphan = repo.read(".openwiki/.claims/guide.json").replace(cid, "claim_" + "e" * 32)
    repo.write(".openwiki/.claims/gone.json", orphan)
    repo.write(".openwiki/new.md", "---\ntype: Note\ntitle: New page\ndescription: Fresh.\n---\n\nx\n")
    rc, data = lint(repo, capsys, "--fix")
    assert rc == 1
    assert sorted(kinds(data)) == [("orphan-sidecar", ".openwiki/.claims/gone.json"), ("ungrounded", ".openwiki/new.md")]
    assert citations.has_marker(repo.read(".openwiki/guide.md"), cid)
    assert repo.read(".openwiki/.claims/gone.json") == orphan
    assert "* [New page](new.md) - Fresh.\n" in repo.read(".openwiki/index.md")


@pytest.mark.parametrize("how", ["git-mv", "plain-mv", "committed"])
def test_a_renamed_page_keeps_its_sidecar(grounded: GitRepo, capsys: pytest.CaptureFixture[str], how: str) -> None:
    repo = grounded
    sidecar = json.loads(repo.read(".openwiki/.claims/guide.json"))
    (repo.root / ".openwiki" / "docs").mkdir()
    if how == "git-mv":
        repo.git("mv", ".openwiki/guide.md", ".openwiki/docs/guide.md")
    else:
        (repo.root / ".openwiki" / "guide.md").rename(repo.root / ".openwiki" / "docs" / "guide.md")
        if how == "committed":
            repo.commit_all("moved the page only")
    rc, data = lint(repo, capsys)
    assert rc == 1
    (orphan,) = [f for f in data["findings"] if f["kind"] == "orphan-sidecar"]
    assert orphan["fixable"] and "renamed to .openwiki/docs/guide.md" in orphan["message"]
    assert ("ungrounded", ".openwiki/docs/guide.md") not in kinds(data)
    assert ("stray-marker", ".openwiki/docs/guide.md") not in kinds(data)  # its claims arrive with the sidecar
    assert "git rename detection" in orphan["message"] if how != "committed" else "markers" in orphan["message"]
    rc, data = lint(repo, capsys, "--fix")
    assert rc == 0, data
    assert not (repo.root / ".openwiki" / ".claims" / "guide.json").exists()
    moved = json.loads(repo.read(".openwiki/.claims/docs/guide.json"))
    assert moved["claims"] == sidecar["claims"]
    assert "](../../src/app.py#L10-L10)" in repo.read(".openwiki/docs/guide.md")  # links follow the page
    capsys.readouterr()
    assert repo.run("check") == 0


def test_rename_found_by_statement_when_the_page_has_no_markers(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = grounded
    text = citations.strip_block(repo.read(".openwiki/guide.md")).replace(citations.marker(claim_id(repo)), "")
    (repo.root / ".openwiki" / "guide.md").unlink()
    repo.write(".openwiki/renamed.md", text + "\nMore text so that git does not call it a rename of the old page at all.\n" * 3)
    repo.commit_all("rewrote")
    rc, data = lint(repo, capsys)
    (orphan,) = [f for f in data["findings"] if f["kind"] == "orphan-sidecar"]
    assert "statements" in orphan["message"]


def test_two_candidates_are_not_guessed(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = grounded
    text = repo.read(".openwiki/guide.md")
    (repo.root / ".openwiki" / "guide.md").unlink()
    repo.write(".openwiki/a.md", text)
    repo.write(".openwiki/b.md", text)
    repo.commit_all("copies")
    rc, data = lint(repo, capsys, "--fix")
    (orphan,) = [f for f in data["findings"] if f["kind"] == "orphan-sidecar"]
    assert not orphan["fixable"] and (repo.root / ".openwiki" / ".claims" / "guide.json").exists()


def test_out_of_step_front_matter_is_reported_and_fixed(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = grounded
    text = repo.read(".openwiki/guide.md")
    start = text.index("sources:")
    end = text.index("---", start)
    repo.write(".openwiki/guide.md", text[:start] + text[end:])
    rc, data = lint(repo, capsys)
    (f,) = data["findings"]
    assert (f["kind"], f["fixable"]) == ("out-of-step", True) and "sources" in f["message"]
    assert lint(repo, capsys, "--fix")[0] == 0
    assert repo.read(".openwiki/guide.md") == text


def test_text_output_and_exit_codes(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    grounded.write(".openwiki/x.md", "---\ntype: Note\n---\n\n[b](nope.md)\n")
    capsys.readouterr()
    assert grounded.run("lint") == 1
    out = capsys.readouterr().out.splitlines()
    assert ".openwiki/x.md:5: broken-link: link to nope.md leads nowhere (.openwiki/nope.md does not exist)" in out
    assert out[-1].startswith("3 finding(s)")


LANDING = "# Shop\n\nWelcome to the shop's documentation. Line ten says ten.\n\n" + "".join(
    f"Paragraph {i} of the project's own landing page, written by hand.\n\n" for i in range(70)
)


@pytest.fixture
def docs_folder(repo: GitRepo) -> GitRepo:
    """The wiki pointed at an existing docs/ folder with a hand-written landing page."""
    repo.write("src/app.py", "".join(f"line {i}\n" for i in range(1, 41)))
    repo.write("docs/index.md", LANDING)
    repo.write("docs/guide.md", "# Guide\n\nLine ten says ten.\n")
    repo.write("docs/advanced/tuning.md", "# Tuning\n\nNothing to tune.\n")
    assert repo.run("--wiki-dir", "docs", "init") == 0
    repo.commit_all("docs")
    return repo


def test_lint_fix_never_rewrites_a_hand_written_index(docs_folder: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = docs_folder
    assert repo.read("docs/index.md") == LANDING  # init left the landing page alone
    rc, data = lint(repo, capsys, "--fix")
    assert not [f for f in data["findings"] if f["kind"] == "index"]
    assert repo.read("docs/index.md") == LANDING
    assert not (repo.root / "docs/advanced/index.md").exists()  # no index created in an existing docs folder
    assert ("ungrounded", "docs/index.md") in kinds(data)  # the landing page is a page
    rc, data = lint(repo, capsys, "--create-indexes")  # unless asked
    assert ("index", "docs/advanced/index.md") in kinds(data) and ("index", "docs/index.md") not in kinds(data)
    rc, data = lint(repo, capsys, "--fix", "--create-indexes")
    assert GENERATED_INDEX_MARK in repo.read("docs/advanced/index.md") and repo.read("docs/index.md") == LANDING


def test_a_landing_page_holds_claims(docs_folder: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = docs_folder
    argv = ("claim", "add", "--page", "index.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10-L10")
    assert repo.run("--wiki-dir", "docs", *argv) == 0
    sidecar = json.loads(repo.read("docs/.claims/index.json"))
    assert sidecar["claims"][0]["statement"] == "Line ten says ten."
    assert citations.has_marker(repo.read("docs/index.md"), sidecar["claims"][0]["id"])
    capsys.readouterr()
    assert repo.run("--wiki-dir", "docs", "ground", "--all", "--plan", "--format", "json") in (0, 1)
    planned = json.loads(capsys.readouterr().out)
    assert "docs/index.md" in json.dumps(planned)


def test_a_generated_index_is_regenerated_and_refused_as_a_page(grounded: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = grounded
    old_style = repo.read(".openwiki/index.md").replace(GENERATED_INDEX_MARK + "\n\n", "")  # as generated before the mark
    assert GENERATED_INDEX_MARK not in old_style
    repo.write(".openwiki/index.md", old_style)
    repo.write(".openwiki/new.md", "---\ntype: Note\ntitle: New page\n---\n\nx\n")
    rc, data = lint(repo, capsys, "--fix")
    assert GENERATED_INDEX_MARK in repo.read(".openwiki/index.md") and "* [New page](new.md)" in repo.read(".openwiki/index.md")
    argv = ("claim", "add", "--page", "index.md", "--statement", "X.", "--evidence", "repo://src/app.py#L10-L10")
    before = repo.snapshot()
    capsys.readouterr()
    assert repo.run(*argv) == 2
    err = capsys.readouterr().err
    assert "an index openwiki-git generated, not a wiki page that can hold claims" in err and "Traceback" not in err
    assert repo.snapshot() == before


def test_a_stray_marker_is_reported_and_removed_leaving_the_rest_byte_for_byte(
    grounded: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A marker naming no claim of its page (a retracted claim's, text copied from another page)
    renders as a footnote with nothing to show: lint names its line, and --fix removes it, and
    only it, from a CRLF page without touching its line endings or the claim's own marker."""
    repo = grounded
    own = citations.marker(claim_id(repo))
    text = repo.read(".openwiki/guide.md")
    quoted = "A marker reads `[^c-0badc0de]`:\n\n```md\nText.[^c-0badbeef]\n```\n\n"  # code: shown, not a marker
    body = text.index("\n---\n") + len("\n---\n")
    text = text[:body] + quoted + text[body:]
    stray = text.replace(own, own + " Copied from elsewhere.[^c-0badc0de] <!-- c-0badbeef -->", 1).replace("\n", "\r\n")
    (repo.root / ".openwiki/guide.md").write_bytes(stray.encode())
    rc, data = lint(repo, capsys)
    line = stray.split("\r\n").index(next(ln for ln in stray.split("\r\n") if "Copied from" in ln)) + 1
    assert rc == 1 and [(f["kind"], f["line"], f["message"].split(" names")[0], f["fixable"]) for f in data["findings"]] == [
        ("stray-marker", line, "marker c-0badbeef", True), ("stray-marker", line, "marker c-0badc0de", True),
    ]
    capsys.readouterr()
    assert repo.run("lint", "--fix") == 0
    assert "Removing 2 stray markers from .openwiki/guide.md" in capsys.readouterr().err
    after = (repo.root / ".openwiki/guide.md").read_bytes().decode()
    assert after == stray.replace(".[^c-0badc0de]", ".", 1).replace(" <!-- c-0badbeef -->", "") and own in after
