"""What `ground` leaves alone, and `ground` as all or nothing, through the real CLI: history pages
(release notes, changelogs), `ground.exclude`, a page's front-matter opt-out, one reference's
inline ignore comment, retracted sentences (tombstones, `--reground-retracted`); a page that
cannot be written stops the run before anything is written, `--add-front-matter` fixes it, and
`--plan` shows exactly what the run writes."""

from __future__ import annotations

import json

import pytest

from tests.support.ground_docs import GUIDE
from tests.support.repo import GitRepo

NOTES = "# Release notes\n\n## 2.0\n\nRemoved `widgets.Widget.shrink`; call `widgets.make()` to build a widget.\n"


def ground(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    rc = repo.run("ground", "--format", "json", *args)
    return rc, json.loads(capsys.readouterr().out)


def pages(data: dict) -> dict[str, dict]:  # type: ignore[type-arg]
    return {p["page"]: p for p in data["pages"]}


def test_history_pages_and_excluded_globs_are_left_alone(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    for page in ("release-notes.md", "CHANGELOG.md", "changelog/2.0.md", "blog/launch.md", "History.md"):
        docs_repo.write(f"docs/{page}", NOTES)
    docs_repo.write(".openwiki/config.yml", "wiki_dir: docs\nground:\n  exclude: [\"blog/**\"]\n")
    docs_repo.commit_all("history")
    rc, data = ground(docs_repo, capsys, "--all")
    got = pages(data)
    assert got["release-notes.md"]["left_alone"] == "a release notes, changelog or history page"
    assert got["changelog/2.0.md"]["left_alone"] == "a changelog/ page (history)"
    assert got["blog/launch.md"]["left_alone"] == "ground.exclude: blog/**"
    assert all(got[p].get("left_alone") for p in ("CHANGELOG.md", "History.md"))
    assert data["summary"]["left_alone"] == 5 and got["guide.md"]["claims"]
    assert not (docs_repo.root / "docs/.claims/release-notes.json").exists()
    assert docs_repo.read("docs/release-notes.md") == NOTES
    capsys.readouterr()
    docs_repo.run("check", "--format", "json")  # the history pages' broken reference is not reported
    assert {b["page"] for b in json.loads(capsys.readouterr().out).get("broken_references", [])} == {"guide.md"}
    rc, data = ground(docs_repo, capsys, "release-notes.md")  # named: the person asked for it
    assert pages(data)["release-notes.md"]["claims"] and "left_alone" not in pages(data)["release-notes.md"]


def test_a_page_opts_out_and_a_reference_is_ignored(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    docs_repo.write("docs/old.md", "---\ntype: Note\nopenwiki:\n  ground: false\n---\n\nCall `widgets.make()` to build a widget.\n")
    docs_repo.write("docs/guide.md", GUIDE.replace("`WIDGET_TOKEN`", "`WIDGET_TOKEN` <!-- openwiki-git: ignore -->"))
    docs_repo.commit_all("opt out")
    rc, data = ground(docs_repo, capsys, "--all")
    got = pages(data)
    assert got["old.md"]["left_alone"] == "its front matter says openwiki: {ground: false}"
    rc, data = ground(docs_repo, capsys, "old.md")  # named, the page's own word still holds
    assert pages(data)["old.md"]["left_alone"]
    sidecar = json.loads(docs_repo.read("docs/.claims/guide.json"))
    (claim,) = [c for c in sidecar["claims"] if c["statement"].startswith("Pass `--size`")]
    assert claim["statement"] == "Pass `--size` on the command line, and set `WIDGET_TOKEN` for access."  # as the reader reads it
    assert [e["resource"] for e in claim["evidence"]] == ["repo://src/widgets/cli.py?grep=%5B%22'%2F%5D--size(%3F!%5B%5Cw-%5D)"]
    assert got["guide.md"]["ignored"] == 1
    capsys.readouterr()
    assert docs_repo.run("lint", "--format", "json") in (0, 1)
    assert json.loads(capsys.readouterr().out)["summary"]["prose-differs"] == 0  # the comment is not part of the sentence


def test_a_retracted_sentence_is_not_grounded_again_unless_asked(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    rc, data = ground(docs_repo, capsys, "--all")
    make = next(c for c in pages(data)["guide.md"]["claims"] if c["statement"].startswith("Call `widgets.make()`"))
    assert docs_repo.run("claim", "retract", make["id"], "--by", "human:ann") == 0
    docs_repo.commit_all("retracted")
    rc, again = ground(docs_repo, capsys, "--all")
    assert again["summary"]["claims"] == 0 and again["summary"]["retracted"] == 1
    rc, plan = ground(docs_repo, capsys, "--all", "--reground-retracted", "--plan")
    assert [c["statement"] for c in pages(plan)["guide.md"]["claims"]] == [make["statement"]]
    rc, back = ground(docs_repo, capsys, "--all", "--reground-retracted")
    assert [c["id"] for c in pages(back)["guide.md"]["claims"]] == [make["id"]]  # the same stable id
    assert "retracted" not in json.loads(docs_repo.read("docs/.claims/guide.json"))  # its tombstone is gone


def test_a_page_that_cannot_be_written_stops_the_run_before_anything_is_written(
    docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    docs_repo.write("docs/a.md", "Call `widgets.make()` to build a widget.\n")  # no front matter: written as it is
    docs_repo.write("docs/z.md", "---\ntoc_depth: 2\n---\n\nCall `widgets.make()` to build a widget.\n")  # no type:
    docs_repo.commit_all("pages")
    before = docs_repo.snapshot()
    for args in (("--all",), ("--all", "--plan")):
        capsys.readouterr()
        assert docs_repo.run("ground", *args) == 2
        err = capsys.readouterr().err
        assert "docs/z.md:2: `type` is missing" in err and "nothing was written" in err and "--add-front-matter" in err
        assert docs_repo.snapshot() == before
    rc, data = ground(docs_repo, capsys, "--all", "--add-front-matter")
    assert rc == 1 and pages(data)["z.md"]["front_matter_added"]
    assert docs_repo.read("docs/z.md").startswith("---\ntoc_depth: 2\ntype: Reference\n")
    assert docs_repo.read("docs/a.md").startswith("---\ntype: Reference\n")


def test_the_plan_is_what_the_run_writes(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    docs_repo.write("docs/more.md", "---\ntype: Guide\n---\n\n## `WIDGET_TOKEN`\n\nThe token the command line sends to the server.\n\n"
                    "* `--size <int>` - The widget size. Use it with `widgets.make()` only.\n")
    docs_repo.commit_all("more")
    rc, plan = ground(docs_repo, capsys, "--all", "--plan")
    rc, run = ground(docs_repo, capsys, "--all")
    assert plan.pop("plan") is True and run.pop("plan") is False
    assert plan == run
    written = {c["id"] for p in ("guide", "more") for c in json.loads(docs_repo.read(f"docs/.claims/{p}.json"))["claims"]}
    assert written == {c["id"] for p in run["pages"] for c in p["claims"]}
