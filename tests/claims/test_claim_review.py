"""Reviewing a flagged claim (issue 12, point 7): `claim show` diffs, `c-` labels as ids,
`claim edit --evidence`, and prose that no longer states its claim (lint, `claim confirm`)."""

from __future__ import annotations

import json

import pytest

from openwiki_git.pages import citations


def _add(repo, capsys, statement: str = "Line ten says ten.", resource: str = "repo://src/app.py#L10-L12") -> str:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", statement, "--evidence", resource) == 0
    cid = capsys.readouterr().out.split()[0]
    repo.commit_all("claim")
    return cid


def _claim(repo) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]


def _edit_source(repo, n: int, text: str) -> None:  # type: ignore[no-untyped-def]
    lines = repo.read("src/app.py").splitlines(keepends=True)
    lines[n - 1] = text
    repo.write("src/app.py", "".join(lines))


def test_show_diffs_the_verified_text_against_the_text_now_by_label(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _add(wiki_repo, capsys)
    _edit_source(wiki_repo, 11, "line eleven, rewritten\n")
    wiki_repo.git("add", "src/app.py")
    wiki_repo.run("hook")
    capsys.readouterr()
    label = citations.label(cid)
    assert wiki_repo.run("claim", "show", label) == 0
    out = capsys.readouterr().out
    assert f"{cid} ({label}) on .openwiki/guide.md: stale" in out
    assert "cause: src/app.py#L10-L12 changed by @@" in out
    assert "-line 11" in out and "+line eleven, rewritten" in out
    assert " line 10" in out  # unchanged lines as context
    assert wiki_repo.run("claim", "show", f"[^{label}]", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    item = data["evidence_status"][0]
    assert data["status"] == "stale" and data["label"] == label
    assert item["verified_text"] == "line 10\nline 11\nline 12\n"
    assert item["current_text"] == "line 10\nline eleven, rewritten\nline 12\n"
    assert item["current_resource"] == "repo://src/app.py#L10-L12"


def test_edit_re_points_evidence_keeping_id_and_marker(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _add(wiki_repo, capsys)
    _edit_source(wiki_repo, 11, "line eleven, rewritten\n")
    wiki_repo.git("add", "src/app.py")
    wiki_repo.run("hook")
    assert "mark" in _claim(wiki_repo)
    page_before = wiki_repo.read(".openwiki/guide.md")
    assert wiki_repo.run("claim", "edit", citations.label(cid), "--evidence", "repo://src/app.py#L10-L10", "--by", "human:ann") == 0
    c = _claim(wiki_repo)
    assert c["id"] == cid and c["statement"] == "Line ten says ten."
    assert c["evidence"][0]["resource"] == "repo://src/app.py#L10-L10"
    assert "mark" not in c and c["verifiedBy"] == "human:ann"
    assert citations.marker(cid) in wiki_repo.read(".openwiki/guide.md")
    assert wiki_repo.read(".openwiki/guide.md") != page_before  # the citations block points at L10 now
    assert wiki_repo.run("check") == 0


def test_edit_adds_and_drops_evidence_keeping_the_rest(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """`--add-evidence` and `--drop-evidence` change some items and keep the others (`--evidence`
    replaces them all: following a printed hint with it dropped a claim's other evidence); a drop
    that names no item, or that leaves none, is refused with the items there are, nothing written."""
    cid = _add(wiki_repo, capsys)
    label = citations.label(cid)
    assert wiki_repo.run("claim", "edit", label, "--add-evidence", "repo://src/app.py#L20-L21", "--by", "human:ann") == 0
    assert [e["resource"] for e in _claim(wiki_repo)["evidence"]] == ["repo://src/app.py#L10-L12", "repo://src/app.py#L20-L21"]
    assert wiki_repo.run("claim", "edit", label, "--drop-evidence", "repo://src/app.py#L10-L12",
                         "--add-evidence", "repo://src/app.py#L10-L10") == 0
    assert [e["resource"] for e in _claim(wiki_repo)["evidence"]] == ["repo://src/app.py#L20-L21", "repo://src/app.py#L10-L10"]
    before = wiki_repo.read(".openwiki/.claims/guide.json")
    capsys.readouterr()
    assert wiki_repo.run("claim", "edit", label, "--drop-evidence", "repo://src/app.py#L1-L2") == 2
    err = capsys.readouterr().err
    assert "not among the evidence of" in err and "repo://src/app.py#L20-L21, repo://src/app.py#L10-L10" in err
    assert wiki_repo.run("claim", "edit", label, "--drop-evidence", "repo://src/app.py#L20-L21",
                         "--drop-evidence", "repo://src/app.py#L10-L10") == 2
    assert "claim retract" in capsys.readouterr().err
    assert wiki_repo.read(".openwiki/.claims/guide.json") == before
    assert wiki_repo.run("check") == 0


def test_edit_refuses_bad_input(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _add(wiki_repo, capsys)
    before = wiki_repo.read(".openwiki/.claims/guide.json")
    assert wiki_repo.run("claim", "edit", cid) == 2
    assert wiki_repo.run("claim", "edit", cid, "--evidence", "repo://src/app.py#L90-L99") == 2
    assert wiki_repo.run("claim", "edit", "c-00000000", "--statement", "x") == 2
    assert wiki_repo.read(".openwiki/.claims/guide.json") == before


def test_prose_that_no_longer_states_the_claim(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _add(wiki_repo, capsys)
    capsys.readouterr()
    assert wiki_repo.run("lint", "--format", "json") in (0, 1)
    kinds = [f["kind"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert "prose-differs" not in kinds
    page = wiki_repo.read(".openwiki/guide.md")
    wiki_repo.write(".openwiki/guide.md", page.replace("Line ten says ten.", "Line ten says eleven."))
    assert wiki_repo.run("lint", "--format", "json") == 1
    findings = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["kind"] == "prose-differs"]
    assert len(findings) == 1 and cid in findings[0]["message"] and "Line ten says eleven." in findings[0]["message"]
    # confirm does not verify the old statement silently
    sidecar = wiki_repo.read(".openwiki/.claims/guide.json")
    assert wiki_repo.run("claim", "confirm", cid) == 2
    assert "no longer states the claim" in capsys.readouterr().err
    assert wiki_repo.read(".openwiki/.claims/guide.json") == sidecar
    assert wiki_repo.run("claim", "confirm", cid, "--statement", "Line ten says eleven.") == 0
    assert _claim(wiki_repo)["statement"] == "Line ten says eleven."
    capsys.readouterr()
    assert wiki_repo.run("lint", "--format", "json") in (0, 1)
    assert "prose-differs" not in [f["kind"] for f in json.loads(capsys.readouterr().out)["findings"]]


def test_keep_statement_confirms_the_stored_one(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _add(wiki_repo, capsys)
    page = wiki_repo.read(".openwiki/guide.md")
    wiki_repo.write(".openwiki/guide.md", page.replace("Line ten says ten.", "Ten is what line ten says."))
    assert wiki_repo.run("claim", "confirm", cid, "--keep-statement") == 0
    assert _claim(wiki_repo)["statement"] == "Line ten says ten."


@pytest.mark.parametrize(
    ("prose", "expected"),
    [
        ("A first one. Line ten says ten.[^c-{x}] More.", True),
        ("Line ten says ten. [^c-{x}]", True),
        ("Line ten\nsays ten.[^c-{x}]", True),
        ("A first one. Line ten says nine.[^c-{x}]", False),
        ("No marker here.", None),
    ],
)
def test_states(prose: str, expected: bool | None) -> None:
    cid = "claim_" + "ab" * 16
    text = "---\ntype: Reference\n---\n\n" + prose.replace("{x}", cid[6:14]) + "\n"
    assert citations.states(text, cid, "Line ten says ten.") is expected


def test_show_reads_the_verified_text_from_the_marks_blob_when_the_evidence_has_none(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    _add(wiki_repo, capsys)
    path = ".openwiki/.claims/guide.json"
    data = json.loads(wiki_repo.read(path))
    for ev in data["claims"][0]["evidence"]:
        ev.pop("blob", None)  # an OpenWiki sidecar records no blob
    wiki_repo.write(path, json.dumps(data, indent=2) + "\n")
    wiki_repo.commit_all("no blob")
    _edit_source(wiki_repo, 11, "line eleven, rewritten\n")
    wiki_repo.git("add", "src/app.py")
    wiki_repo.run("hook")
    assert _claim(wiki_repo)["mark"]["causes"][0].get("blob")
    capsys.readouterr()
    assert wiki_repo.run("claim", "show", _claim(wiki_repo)["id"], "--format", "json") == 0
    item = json.loads(capsys.readouterr().out)["evidence_status"][0]
    assert item["verified_text"] == "line 10\nline 11\nline 12\n" and item["verified_from"].startswith("blob ")
    assert "+line eleven, rewritten" in item["diff"]
