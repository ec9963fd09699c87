"""OKF projection from claims (sources, verified, generated), indexes and the schema in `validate`."""

from __future__ import annotations

import hashlib
import json

import pytest

from openwiki_git import PRODUCER
from openwiki_git.model import Claim, Evidence, Mark, Sidecar, Verification
from openwiki_git.pages import frontmatter as fm
from openwiki_git.pages import okf
from openwiki_git.pages.indexes import GENERATED_INDEX_MARK
from openwiki_git.store import bundle
from tests.support.repo import GitRepo

T0 = "2026-11-30T10:00:00Z"
T1 = "2026-12-01T10:00:00Z"


def claim(cid: str = "a", *resources: str, verified_at: str | None = T0, mark: Mark | None = None) -> Claim:
    ev = tuple(Evidence(r, "repo-file-v1:sha256:" + "0" * 64) for r in (resources or ("repo://src/a.py#L1-L2",)))
    return Claim("claim_" + cid * 32 if len(cid) == 1 else cid, "S.", ev, verified_at, None, mark)


def page(repo: GitRepo, path: str = ".openwiki/guide.md") -> dict:  # type: ignore[type-arg]
    parsed = fm.parse(repo.read(path), filename=path)
    assert parsed is not None
    return parsed.data


# -- pure projection -------------------------------------------------------------------------


def test_sources_are_whole_files_byte_sorted_unique_with_sha_ids() -> None:
    claims = [claim("a", "repo://src/b.py#L1-L2", "repo://src/B.py"), claim("b", "repo://src/b.py#L5-L6", "repo://src/a.py")]
    got = okf.project_sources(None, claims)
    resources = ["repo://src/B.py", "repo://src/a.py", "repo://src/b.py"]
    assert [e["resource"] for e in got] == resources
    for e in got:
        assert e["id"] == "openwiki-source-" + hashlib.sha256(e["resource"].encode()).hexdigest()[:24]


def test_sources_keep_entries_the_tool_did_not_write_and_drop_stale_ones() -> None:
    mine = {"id": "retry-impl", "resource": "repo://src/a.py", "title": "kept"}
    stale = {"id": okf.source_id("repo://src/gone.py"), "resource": "repo://src/gone.py"}
    got = okf.project_sources([mine, stale], [claim("a", "repo://src/a.py#L1-L1", "repo://src/c.py")])
    assert got == [mine, {"id": okf.source_id("repo://src/c.py"), "resource": "repo://src/c.py"}]
    assert okf.project_sources([stale], []) is fm.REMOVE


def test_sources_in_another_order_are_left_alone() -> None:
    current = [{"id": okf.source_id(r), "resource": r} for r in ("repo://src/b.py", "repo://src/a.py")]
    assert okf.project_sources(current, [claim("a", "repo://src/a.py", "repo://src/b.py")]) is current


@pytest.mark.parametrize(
    ("claims", "verification", "openwiki_mode", "expected"),
    [
        pytest.param([claim("a")], None, False, [{"by": PRODUCER, "at": T0}], id="fresh"),
        pytest.param([claim("a"), claim("b", verified_at=T1)], None, False, [{"by": PRODUCER, "at": T1}], id="latest"),
        pytest.param([claim("a", mark=Mark("stale", T1))], None, False, [], id="marked"),
        pytest.param([], None, False, [], id="no-claims"),
        pytest.param([claim("a", verified_at=None)], None, False, [], id="never-verified"),
        pytest.param([claim("a", verified_at="2026-11-30T10:00:00")], None, False, [], id="naive-time-ignored"),
        pytest.param([claim("a", verified_at=None)], Verification("openwiki/0.3.3", T0), False, [], id="openwiki-event-not-ours"),
        pytest.param(
            [claim("a", verified_at=None)],
            Verification("openwiki/0.3.3", T0),
            True,
            [{"by": "openwiki/0.3.3", "at": T0}],
            id="openwiki-mode",
        ),
        pytest.param([claim("a", verified_at=None)], Verification(PRODUCER, T1), True, [{"by": PRODUCER, "at": T1}], id="folded"),
    ],
)
def test_derived_events(claims: list[Claim], verification: Verification | None, openwiki_mode: bool, expected: list) -> None:  # type: ignore[type-arg]
    sc = Sidecar("p.md", "sha256:" + "0" * 64, tuple(claims), verification)
    assert okf.derived_events(sc, openwiki_mode=openwiki_mode) == expected


def test_verified_keeps_human_and_other_producers_events() -> None:
    human = {"by": "human:alice", "at": T0}
    other = {"by": "process:nightly", "at": T0}
    ow = {"by": "openwiki/0.3.3", "at": T0}
    ours_old = {"by": "openwiki-git/0.0.9", "at": T0}
    stale = Sidecar("p.md", "sha256:" + "0" * 64, (claim("a", mark=Mark("stale", T1)),))
    assert okf.project_verified([human, ow, other, ours_old], stale, openwiki_mode=False) == [human, ow, other]
    assert okf.project_verified([human, ow, other, ours_old], stale, openwiki_mode=True) == [human, other]
    assert okf.project_verified(human, stale, openwiki_mode=True) is human  # a bare mapping stays bare
    assert okf.project_verified([ours_old], stale, openwiki_mode=False) is fm.REMOVE


def test_generated_follows_the_prose_not_markers_or_citations() -> None:
    sc = Sidecar("p.md", "sha256:" + "0" * 64, ())
    old = "---\ntype: R\ntimestamp: \"2026-01-01T00:00:00Z\"\n---\n\nText.\n"
    marked = old.replace("Text.", "Text.[^c-0123abcd]")
    assert okf.project(sc, old, marked, filename="p.md", openwiki_mode=False, now=T1) == marked
    edited = old.replace("Text.", "Other text.")
    out = okf.project(sc, old, edited, filename="p.md", openwiki_mode=False, now=T1)
    data = fm.parse(out, filename="p.md").data  # type: ignore[union-attr]
    assert data["generated"] == {"by": PRODUCER, "at": T1} and "timestamp" not in data
    assert '  at: "2026-12-01T10:00:00Z"\n' in out  # timestamps are written quoted


# -- through the commands --------------------------------------------------------------------


def add_claim(repo: GitRepo, statement: str = "Line ten says ten.", res: str = "#L10-L10", page: str = "guide.md", *extra: str) -> int:
    return repo.run("claim", "add", "--page", page, "--statement", statement, "--evidence", "repo://src/app.py" + res, *extra)


def test_claim_add_projects_sources_and_our_verified_event(wiki_repo: GitRepo) -> None:
    assert add_claim(wiki_repo) == 0
    data = page(wiki_repo)
    assert data["sources"] == [{"id": okf.source_id("repo://src/app.py"), "resource": "repo://src/app.py"}]
    (event,) = data["verified"]
    assert event["by"] == PRODUCER and okf.instant(event["at"]) is not None
    assert "generated" not in data  # a marker and footnotes are no content change
    text = wiki_repo.read(".openwiki/guide.md")
    assert text.startswith("---\ntype: Reference\ntitle: Guide\n")


def test_a_stale_claim_removes_only_our_event_and_a_revert_brings_it_back(wiki_repo: GitRepo) -> None:
    repo = wiki_repo
    text = repo.read(".openwiki/guide.md").replace(
        "title: Guide\n", 'title: Guide\nverified:\n  - {by: "human:alice", at: "2026-01-01T00:00:00Z"}  # reviewed\n'
    )
    repo.write(".openwiki/guide.md", text)
    repo.write("src/other.py", "x = 1\n")
    repo.write(".openwiki/other.md", "---\ntype: Reference\n---\n\nOther says x.\n")
    repo.commit_all("pages")
    assert add_claim(repo) == 0
    assert repo.run("claim", "add", "--page", "other.md", "--statement", "Other says x.", "--evidence", "repo://src/other.py#L1-L1") == 0
    repo.commit_all("claims")
    other_before = repo.read(".openwiki/other.md")
    human_line = '  - {by: "human:alice", at: "2026-01-01T00:00:00Z"}  # reviewed\n'
    assert [e["by"] for e in page(repo)["verified"]] == ["human:alice", PRODUCER]

    repo.write("src/app.py", repo.read("src/app.py").replace("line 10\n", "line ten\n"))
    assert repo.run("check", "--fix") == 1
    assert page(repo)["verified"] == [{"by": "human:alice", "at": "2026-01-01T00:00:00Z"}]
    assert human_line in repo.read(".openwiki/guide.md")
    assert repo.read(".openwiki/other.md") == other_before

    repo.write("src/app.py", repo.read("src/app.py").replace("line ten\n", "line 10\n"))
    assert repo.run("check", "--fix") == 0
    assert [e["by"] for e in page(repo)["verified"]] == ["human:alice", PRODUCER]
    assert human_line in repo.read(".openwiki/guide.md")


def test_pages_without_front_matter_are_written_without_one(wiki_repo: GitRepo) -> None:
    wiki_repo.write(".openwiki/plain.md", "# Plain\n\nLine ten says ten.\n")
    wiki_repo.commit_all("plain")
    assert add_claim(wiki_repo, page="plain.md") == 0
    assert wiki_repo.read(".openwiki/plain.md").startswith("# Plain\n\nLine ten says ten.[^c-")


def test_a_clean_page_is_never_rewritten(wiki_repo: GitRepo) -> None:
    assert add_claim(wiki_repo) == 0
    wiki_repo.commit_all("claim")
    before = wiki_repo.snapshot()
    assert wiki_repo.run("check", "--fix") == 0
    assert wiki_repo.run("lint", "--fix") == 0
    after = wiki_repo.snapshot()
    assert {k: v for k, v in after.items() if not k.endswith("index.md")} == {k: v for k, v in before.items() if not k.endswith("index.md")}
    assert wiki_repo.run("lint", "--fix") == 0
    assert wiki_repo.snapshot() == after  # indexes are written only when their content changes


# -- indexes ---------------------------------------------------------------------------------


def test_indexes_list_files_and_directories(wiki_repo: GitRepo) -> None:
    repo = wiki_repo
    repo.write(
        ".openwiki/api/endpoints.md",
        "---\ntype: Reference\ntitle: Endpoints [v2]\ndescription: >-\n  HTTP endpoints\n  and payloads.\n---\n\nx\n",
    )
    repo.write(".openwiki/api/deep/more.md", "---\ntype: Reference\n---\n\nx\n")
    repo.write(".openwiki/api/log.md", "## 2026-01-01\n\n* x\n")
    repo.write(".openwiki/empty/.keep", "")
    wiki = {str(p.relative_to(repo.root)): t for p, t in bundle.expected_indexes(_wiki(repo)).items()}
    mark = GENERATED_INDEX_MARK + "\n\n"
    assert (
        wiki[".openwiki/index.md"]
        == '---\nokf_version: "0.2"\n---\n\n' + mark + "# Files\n\n* [Guide](guide.md)\n\n# Directories\n\n* [api](api/)\n"
    )
    assert wiki[".openwiki/api/index.md"] == mark + (
        "# Files\n\n* [Endpoints \\[v2\\]](endpoints.md) - HTTP endpoints and payloads.\n\n# Directories\n\n* [deep](deep/)\n"
    )
    assert wiki[".openwiki/api/deep/index.md"] == mark + "# Files\n\n* [more](more.md)\n\n# Directories\n"
    assert ".openwiki/empty/index.md" not in wiki


def test_init_index_is_already_up_to_date(repo: GitRepo) -> None:
    assert repo.run("init") == 0
    assert bundle.expected_indexes(_wiki(repo))[repo.root / ".openwiki" / "index.md"] == repo.read(".openwiki/index.md")


def _wiki(repo: GitRepo):  # type: ignore[no-untyped-def]
    from openwiki_git.store.workspace import Workspace

    return Workspace.open(repo.root).wiki


# -- validate --------------------------------------------------------------------------------


def test_validate_uses_the_frontmatter_schema(wiki_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    wiki_repo.write(".openwiki/a.md", "---\ntype: R\ntags: [ok]\nsources:\n  - id: x\n    resource: r\n    usage_count: 2.5\n---\n")
    wiki_repo.write(".openwiki/sub/index.md", "---\ntitle: x\n---\n")
    wiki_repo.write(".openwiki/index.md", '---\nokf_version: 0.2\n---\n')
    capsys.readouterr()
    assert wiki_repo.run("validate") == 1
    out = capsys.readouterr().out
    assert ".openwiki/a.md:7: $.sources[0].usage_count: 2.5 is not of type 'integer'" in out
    assert ".openwiki/sub/index.md:2: index.md has no front matter in OKF v0.2" in out
    assert '.openwiki/index.md:2: okf_version must be the string "0.2", found 0.2' in out


def test_schema_accepts_every_okf_fixture() -> None:
    from pathlib import Path

    from jsonschema import Draft202012Validator

    from openwiki_git.formats import schema

    validator = Draft202012Validator(schema.load_schema("frontmatter"))
    for path in sorted((Path(__file__).parents[1] / "fixtures" / "okf").glob("*.md")):
        parsed = fm.parse(path.read_bytes().decode(), filename=path.name)
        if parsed is not None:
            assert list(validator.iter_errors(parsed.data)) == [], path.name
            assert okf.problems(parsed) == [], path.name


def test_schema_copies_are_identical() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    a = (root / "openwiki_git" / "schemas" / "frontmatter.schema.json").read_bytes()
    assert a == (root / "schemas" / "frontmatter.schema.json").read_bytes()
    assert json.loads(a)["required"] == ["type"]


def test_sources_name_whole_files_only_never_a_set_of_lines() -> None:
    """A claim citing the lines that mention a name (`?grep=`) or a definition by name adds no
    `sources` entry of its own: OpenWiki's grammar would read the query as part of a path."""
    from openwiki_git.model import Claim, Evidence

    lines = "repo-lines-v1:sha256:" + "0" * 64 + ":e30"
    claim = Claim("claim_" + "0" * 32, "S.", (
        Evidence("repo://src/app.py#L1-L2", lines),
        Evidence("repo://src/**/*.py?grep=%5CbAPP_TOKEN%5Cb", "repo-set-v1:sha256:" + "1" * 64 + ":W10"),
        Evidence("repo://src/app.py#main", "repo-def-v2:sha256:" + "2" * 64),
    ))
    assert okf.projected_resources([claim]) == ["repo://src/app.py"]
