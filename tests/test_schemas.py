"""The JSON Schemas: valid Draft 2020-12, shipped twice (package and repository root) as
byte-identical copies, and matching what the tool writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from openwiki_git import schema, sidecar
from openwiki_git.model import Cause, Claim, Evidence, Mark, Sidecar, Verification

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "openwiki_git" / "schemas"
ROOT_DIR = ROOT / "schemas"
PACKAGED = sorted(p.name for p in PACKAGE_DIR.glob("*.json"))


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((PACKAGE_DIR / name).read_text("utf-8")))


def test_core_schemas_present():
    assert {"config.schema.json", "sidecar.schema.json", "check-report.schema.json"} <= set(PACKAGED)


@pytest.mark.parametrize("name", PACKAGED)
def test_schema_is_valid_draft_2020_12(name):
    data = json.loads((PACKAGE_DIR / name).read_text("utf-8"))
    Draft202012Validator.check_schema(data)
    assert data.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
    assert data.get("$id", "").endswith("/" + name)


def test_root_copies_are_byte_identical():
    """Edit openwiki_git/schemas/*.json, then `cp openwiki_git/schemas/*.json schemas/`."""
    assert sorted(p.name for p in ROOT_DIR.glob("*.json")) == PACKAGED
    for name in PACKAGED:
        assert (ROOT_DIR / name).read_bytes() == (PACKAGE_DIR / name).read_bytes(), name


def test_every_named_schema_loads():
    for name, filename in schema.SCHEMA_FILES.items():
        if (PACKAGE_DIR / filename).exists():
            assert schema.load_schema(name) == json.loads((PACKAGE_DIR / filename).read_text("utf-8"))


def _full_sidecar() -> Sidecar:
    """Every optional addition present."""
    token = "repo-lines-v1:sha256:" + "a" * 64 + ":eyJ4Ijox"
    claim = Claim(
        id="claim_" + "0" * 32,
        statement="Retries stop after five attempts.",
        evidence=(
            Evidence("repo://src/retry.py#L10-L24", token, "b" * 40),
            Evidence("repo://src/%C3%A9t%C3%A9.py", "repo-file-v1:sha256:" + "c" * 64),
        ),
        verified_at="2026-11-30T10:00:00Z",
        verified_by="human:alice",
        mark=Mark("stale", "2026-11-30T11:00:00Z", (Cause("repo://src/retry.py#L10-L24", "changed", "@@ -10,2 +10,3 @@", (10, 24), (11, 25), "src/retry2.py"),), "d" * 40),
    )
    return Sidecar("guide.md", "sha256:" + "e" * 64, (claim,), Verification("openwiki/0.3.3", "2026-11-30T10:00:00.000Z"))


def test_sidecar_with_every_addition_validates_and_round_trips():
    sc = _full_sidecar()
    text = sidecar.dumps(sc)
    data = json.loads(text)
    validator("sidecar.schema.json").validate(data)
    assert sidecar.loads(text, filename="x.json", page="guide.md") == sc
    assert sidecar.dumps(sidecar.loads(text, filename="x.json", page="guide.md")) == text


def test_openwiki_reduction_has_no_additions():
    data = json.loads(sidecar.dumps(_full_sidecar().for_openwiki()))
    validator("sidecar.schema.json").validate(data)
    assert set(data) == {"schemaVersion", "pageVersion", "claims", "verification"}
    assert set(data["claims"][0]) == {"id", "statement", "evidence"}
    assert all(set(e) == {"resource", "version"} for e in data["claims"][0]["evidence"])


def test_schema_and_reader_agree_on_rejections():
    """Every key the reader allows is in the schema, and vice versa."""
    s = json.loads((PACKAGE_DIR / "sidecar.schema.json").read_text("utf-8"))
    defs = s["$defs"]
    assert set(s["properties"]) == sidecar.ROOT_KEYS
    assert set(defs["claim"]["properties"]) == sidecar.CLAIM_KEYS
    assert set(defs["evidence"]["properties"]) == sidecar.EVIDENCE_KEYS
    assert set(defs["mark"]["properties"]) == sidecar.MARK_KEYS
    assert set(defs["mark"]["properties"]["causes"]["items"]["properties"]) == sidecar.CAUSE_KEYS


def _run(repo, capsys, *argv: str) -> str:
    capsys.readouterr()
    repo.run(*argv)
    return capsys.readouterr().out


def test_sidecars_written_by_the_tool_validate(wiki_repo, capsys):
    wiki_repo.write(".openwiki/deep/page.md", "# P\n\nLine ten says ten.\n")
    for page in ("guide.md", "deep/page.md"):
        for ev in ("repo://src/app.py#L10-L12", "repo://src/app.py"):
            assert wiki_repo.run("claim", "add", "--page", page, "--statement", "Line ten says ten.", "--evidence", ev) == 0
    wiki_repo.write("src/app.py", "head\n" + wiki_repo.read("src/app.py").replace("line 11\n", "changed\n"))
    wiki_repo.run("check", "--fix")  # adds marks and causes
    v = validator("sidecar.schema.json")
    paths = sorted((wiki_repo.root / ".openwiki/.claims").rglob("*.json"))
    assert len(paths) == 2
    for path in paths:
        data = json.loads(path.read_text("utf-8"))
        v.validate(data)
        assert any("mark" in c for c in data["claims"])
    assert schema.problems("sidecar", json.loads(paths[0].read_text("utf-8"))) == []


def test_check_report_validates(wiki_repo, capsys):
    v = validator("check-report.schema.json")
    v.validate(json.loads(_run(wiki_repo, capsys, "check", "--format", "json")))  # no claims
    wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10")
    wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Not in prose.", "--evidence", "repo://src/app.py#L30")
    wiki_repo.write("src/app.py", "x\n" * 5)
    wiki_repo.run("check", "--fix")
    report = json.loads(_run(wiki_repo, capsys, "check", "--format", "json"))
    v.validate(report)
    assert report["summary"]["unresolved"] == 2 and report["summary"]["missing_markers"] == 1
    assert all("mark" in c for c in report["claims"])


def test_config_written_by_init_validates(repo, capsys):
    from openwiki_git.yamlio import load_yaml

    assert repo.run("init") == 0
    data = load_yaml(repo.read(".openwiki/config.yml"), filename="config.yml")
    validator("config.schema.json").validate(data)
