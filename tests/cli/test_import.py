"""`openwiki-git import openwiki/`: the same claims and statuses in .openwiki/, nothing lost."""

from __future__ import annotations

import json

import pytest

from openwiki_git.pages import citations, okf
from openwiki_git.pages import frontmatter as fm
from tests.support.openwiki_fixture import DELAY, RETRY, copy_fixture, edit_delay, report
from tests.support.repo import GitRepo


@pytest.fixture
def ow(repo: GitRepo) -> GitRepo:
    copy_fixture(repo)
    repo.commit_all("an OpenWiki wiki")
    return repo


def claims_of(repo: GitRepo, wiki: str) -> dict[str, dict]:  # type: ignore[type-arg]
    out = {}
    for path in sorted((repo.root / wiki / ".claims").rglob("*.json")):
        data = json.loads(path.read_bytes())
        for c in data["claims"]:
            out[c["id"]] = {"page": path.relative_to(repo.root / wiki / ".claims").as_posix(), **c}
    return out


def test_import_then_check_same_claims_same_statuses(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    rc, before = report(ow, capsys, "--wiki-dir", "openwiki")
    assert ow.run("import", "openwiki/") == 0
    out = capsys.readouterr().out
    assert "imported 3 page(s) and 7 claim(s)" in out and "7 placed" in out
    assert report(ow, capsys, "--wiki-dir", ".openwiki") == (rc, before)
    assert report(ow, capsys) == (rc, before)  # the config import wrote says .openwiki


def test_import_after_an_edit_keeps_the_stale_claim_stale(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    edit_delay(ow)
    assert ow.run("--wiki-dir", "openwiki", "check", "--fix") == 1
    rc, before = report(ow, capsys, "--wiki-dir", "openwiki")
    assert ow.run("import", "openwiki") == 0
    assert report(ow, capsys, "--wiki-dir", ".openwiki") == (rc, before)
    assert before[DELAY] == "stale"
    sidecar = claims_of(ow, ".openwiki")[DELAY]
    assert sidecar["mark"]["status"] == "stale"  # the mark moved from the front matter into the sidecar
    assert okf.MARKS_KEY not in ow.read(".openwiki/retry-policy.md")
    assert okf.MARKS_KEY in ow.read(RETRY)  # the OpenWiki wiki itself is untouched


def test_nothing_is_lost(ow: GitRepo) -> None:
    source = ow.snapshot()
    assert ow.run("import") == 0
    after = ow.snapshot()
    assert {k: v for k, v in after.items() if k in source} == source  # openwiki/ unchanged
    old_claims, new_claims = claims_of(ow, "openwiki"), claims_of(ow, ".openwiki")
    assert new_claims == old_claims  # ids, statements, evidence and version tokens, exactly
    for rel, data in source.items():
        if not rel.startswith("openwiki/") or "/.claims/" in rel:
            continue
        target = ".openwiki/" + rel[len("openwiki/") :]
        assert target in after, target
        if not rel.endswith(".md") or rel.endswith(("index.md", "log.md", "overview.md")):
            assert after[target] == data, target  # pages without claims, indexes, logs: byte for byte
            continue
        old, new = data.decode(), after[target].decode()
        assert fm.parse(new, filename=target).data == fm.parse(old, filename=target).data  # type: ignore[union-attr]
        assert (
            fm.split(new, filename=target).head + fm.split(new, filename=target).yaml
            == fm.split(old, filename=target).head + fm.split(old, filename=target).yaml
        )
        assert okf.prose(fm.split(new, filename=target).body) == okf.prose(fm.split(old, filename=target).body)
    for rel in source:
        if rel.startswith("openwiki/.claims/"):
            old = json.loads(source[rel])
            new = json.loads(after[".openwiki/.claims/" + rel[len("openwiki/.claims/") :]])
            assert new["verification"] == old["verification"]


def test_import_is_idempotent_and_refuses_conflicts(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert ow.run("import") == 0
    once = ow.snapshot()
    assert ow.run("import") == 0
    assert ow.snapshot() == once
    ow.write(".openwiki/overview.md", "---\ntype: Overview\n---\n\nMine.\n")
    conflicted = ow.snapshot()
    capsys.readouterr()
    assert ow.run("import") == 2
    assert "error: .openwiki/overview.md: exists with other content" in capsys.readouterr().err
    assert ow.snapshot() == conflicted
    assert ow.run("import", "--force") == 0
    assert ow.snapshot() == once


def test_statements_not_found_verbatim_are_reported(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ow.write(RETRY, ow.read(RETRY).replace("Validation errors are never retried.", "Validation errors are not retried."))
    ow.commit_all("reworded")
    capsys.readouterr()
    assert ow.run("import") == 0
    out = capsys.readouterr().out
    assert "6 placed after their statements, 1 to place by hand" in out
    assert ".openwiki/retry-policy.md: [^c-c0ffee00]: Validation errors are never retried." in out
    assert not citations.has_marker(ow.read(".openwiki/retry-policy.md"), "claim_c0ffee00112233445566778899aabbcc")


def test_bad_arguments(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    before = ow.snapshot()
    assert ow.run("import", "nowhere") == 2
    assert ow.run("import", "openwiki", "--to", "openwiki") == 2
    assert ow.run("import", "../outside") == 2
    assert ow.snapshot() == before


def test_a_malformed_front_matter_stops_the_import_before_any_write(ow: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ow.write(RETRY, ow.read(RETRY).replace("type: Reference\n", "type: Reference\ntype: Again\n", 1))
    ow.commit_all("duplicate key")
    before = ow.snapshot()
    capsys.readouterr()
    assert ow.run("import") == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: openwiki/retry-policy.md:3: duplicate key 'type' (keep one of the two, YAML keys are unique)"
    assert ow.snapshot() == before
