"""openwiki-git on an OpenWiki wiki (`openwiki/`, `openwiki/.claims/`), unconverted.

The fixture (tests/fixtures/openwiki-wiki, written by make_fixture.py with tokens computed over its
sources) checks clean; an edit inside one cited range makes exactly that claim stale and removes
exactly that page's OpenWiki `verified` event, human events stay; every sidecar written passes a
strict reader of OpenWiki's schemaVersion 1 (no extra keys); marks live in the front matter.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.support.openwiki_fixture import (
    DELAY,
    FIXTURE,
    HUMAN,
    OPENWIKI_EVENT,
    QUEUE,
    QUEUE_SC,
    RETRY,
    RETRY_SC,
    all_sidecars_strict,
    copy_fixture,
    edit_delay,
    front,
    report,
    strict_openwiki_read,
)
from tests.support.repo import GitRepo


@pytest.fixture
def ow(repo: GitRepo) -> GitRepo:
    copy_fixture(repo)
    repo.commit_all("an OpenWiki wiki")
    return repo

# -- tests -----------------------------------------------------------------------------------


def test_fixture_files_are_what_make_fixture_writes() -> None:
    spec = importlib.util.spec_from_file_location("make_fixture", FIXTURE / "make_fixture.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for rel, data in module.build().items():
        assert (FIXTURE / rel).read_bytes() == data, rel


def test_fixture_checks_clean(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    all_sidecars_strict(ow)
    rc, statuses = report(ow, capsys, "--wiki-dir", "openwiki")
    assert rc == 0 and len(statuses) == 7 and set(statuses.values()) == {"fresh"}
    assert report(ow, capsys) == (0, statuses)  # found without --wiki-dir: no .openwiki/, an openwiki/
    ow.write(".openwiki/config.yml", "wiki_dir: openwiki\n")
    assert report(ow, capsys) == (0, statuses)


def test_nothing_is_written_on_a_clean_wiki(ow: GitRepo) -> None:
    before = ow.snapshot()
    assert ow.run("--wiki-dir", "openwiki", "check", "--fix") == 0
    assert ow.run("--wiki-dir", "openwiki", "lint", "--fix") == 1  # overview.md is ungrounded
    assert ow.run("--wiki-dir", "openwiki", "hook") == 0
    assert ow.snapshot() == before


@pytest.mark.parametrize("how", ["check-fix", "hook"])
def test_an_edit_inside_one_range(ow: GitRepo, capsys: pytest.CaptureFixture[str], how: str) -> None:
    before = ow.snapshot()
    edit_delay(ow)
    if how == "hook":
        ow.git("add", "src/retry.py")
        assert ow.run("--wiki-dir", "openwiki", "hook") == 1  # files modified: re-stage and commit
    else:
        assert ow.run("--wiki-dir", "openwiki", "check", "--fix") == 1
    rc, statuses = report(ow, capsys, "--wiki-dir", "openwiki")
    assert rc == 1
    assert {cid for cid, s in statuses.items() if s != "fresh"} == {DELAY}
    assert statuses[DELAY] == "stale"

    after = ow.snapshot()
    changed = {k for k in after if after[k] != before.get(k)}
    assert changed == {"src/retry.py", RETRY, RETRY_SC}

    # exactly that page lost OpenWiki's verified event; the human event stayed, byte for byte
    page = ow.read(RETRY)
    assert HUMAN in page and OPENWIKI_EVENT not in page
    assert front(ow, RETRY)["verified"] == [{"by": "human:alice", "at": "2026-08-21T09:30:00Z"}]
    assert OPENWIKI_EVENT.replace("  - by: ", "  - {by: ") not in ow.read(QUEUE)
    # the mark lives in the front matter, never in the sidecar
    marks = front(ow, RETRY)["x-openwiki-git-marks"]
    assert list(marks) == [DELAY] and marks[DELAY]["status"] == "stale"
    old_page = before[RETRY].decode()
    assert page.split("verified:")[0] == old_page.split("verified:")[0]  # every other key, as it was
    assert page.split("\n---\n", 1)[1] == old_page.split("\n---\n", 1)[1]  # the body too

    # the sidecar passes OpenWiki's strict reader and its stored tokens are exactly the old ones
    new_sc = strict_openwiki_read(ow.read(RETRY_SC))
    old_sc = json.loads(before[RETRY_SC])
    assert new_sc["claims"] == old_sc["claims"] and new_sc["verification"] == old_sc["verification"]
    all_sidecars_strict(ow)

    # the mark is read back by every command
    capsys.readouterr()
    assert ow.run("--wiki-dir", "openwiki", "claim", "list", "--format", "json") == 0
    listed = {c["id"]: c["marked"] for c in json.loads(capsys.readouterr().out)}
    assert listed[DELAY] == "stale" and sum(1 for v in listed.values() if v) == 1


def test_a_revert_restores_the_wiki_byte_for_byte(ow: GitRepo) -> None:
    before = ow.snapshot()
    edit_delay(ow)
    assert ow.run("--wiki-dir", "openwiki", "check", "--fix") == 1
    ow.write("src/retry.py", before["src/retry.py"].decode())
    assert ow.run("--wiki-dir", "openwiki", "check") == 1  # marked until something clears it
    assert ow.run("--wiki-dir", "openwiki", "check", "--fix") == 0
    assert ow.snapshot() == before


def test_claim_add_writes_a_strict_sidecar(ow: GitRepo) -> None:
    ow.write("openwiki/overview.md", ow.read("openwiki/overview.md") + "\nAt most five attempts are made.\n")
    ow.commit_all("prose")
    assert ow.run("--wiki-dir", "openwiki", "claim", "add", "--page", "overview.md", "--by", "human:bob",
                  "--statement", "At most five attempts are made.", "--evidence", "repo://src/retry.py#L7-L7") == 0
    data = strict_openwiki_read(ow.read("openwiki/.claims/overview.json"))
    assert data["verification"]["by"].startswith("openwiki-git/")
    meta = front(ow, "openwiki/overview.md")
    assert meta["sources"] == [{"id": "openwiki-source-bfdb7abda1cd326ecfe3492c", "resource": "repo://src/retry.py"}]
    assert meta["verified"] == [data["verification"]]
    assert meta["generated"] == {"by": "openwiki/0.3.3", "at": "2026-08-20T12:00:00.000Z"}
    assert ow.run("--wiki-dir", "openwiki", "check") == 0
    all_sidecars_strict(ow)


def test_a_renamed_page_keeps_its_sidecar_in_openwiki_mode(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ow.git("mv", QUEUE, "openwiki/queue.md")
    assert ow.run("--wiki-dir", "openwiki", "lint", "--fix") == 1  # overview.md stays ungrounded
    assert not (ow.root / QUEUE_SC).exists()
    strict_openwiki_read(ow.read("openwiki/.claims/queue.json"))
    assert report(ow, capsys, "--wiki-dir", "openwiki")[0] == 0


def test_ci_check_on_an_openwiki_wiki(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    edit_delay(ow)
    ow.commit_all("edit inside one cited range")
    before = ow.snapshot()
    capsys.readouterr()
    assert ow.run("--wiki-dir", "openwiki", "check", "--base", "HEAD~1", "--format", "json") == 1
    data = json.loads(capsys.readouterr().out)
    assert {c["id"]: c["status"] for c in data["claims"] if c["status"] != "fresh"} == {DELAY: "stale"}
    assert all(c["marker_present"] for c in data["claims"])  # OpenWiki pages need no markers
    assert ow.snapshot() == before
