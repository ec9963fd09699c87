"""The OpenWiki fixture wiki (tests/fixtures/openwiki-wiki: an unconverted `openwiki/` wiki written by
make_fixture.py) and OpenWiki's strict sidecar reader, written independently of formats/sidecar.py."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.evidence.resource import parse_resource
from openwiki_git.pages import frontmatter as fm
from tests.support.repo import GitRepo

FIXTURE = Path(__file__).parents[1] / "fixtures" / "openwiki-wiki"
RETRY, QUEUE = "openwiki/retry-policy.md", "openwiki/architecture/queue.md"
RETRY_SC, QUEUE_SC = "openwiki/.claims/retry-policy.json", "openwiki/.claims/architecture/queue.json"
DELAY = "claim_81d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0"  # cites src/retry.py#L8-L8 (BASE_DELAY_SECONDS)
HUMAN = '  - by: "human:alice"\n    at: "2026-08-21T09:30:00Z"\n'
OPENWIKI_EVENT = '  - by: openwiki/0.3.3\n    at: "2026-08-20T12:00:00.000Z"\n'


# -- OpenWiki's strict reader (claims format §1.2), written independently of sidecar.py ------

_TEXT = re.compile(r"^\S(?:.*\S)?$", re.S)


def strict_openwiki_read(text: str) -> dict[str, Any]:
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n", "JSON.stringify(value, null, 2) + newline"
    assert set(data) in ({"schemaVersion", "pageVersion", "claims"}, {"schemaVersion", "pageVersion", "claims", "verification"})
    assert list(data) == [k for k in ("schemaVersion", "pageVersion", "claims", "verification") if k in data]
    assert type(data["schemaVersion"]) is int and data["schemaVersion"] == 1
    assert re.fullmatch(r"sha256:[a-f0-9]{64}", data["pageVersion"])
    assert isinstance(data["claims"], list)
    ids = [c["id"] for c in data["claims"]]
    assert len(ids) == len(set(ids))
    for c in data["claims"]:
        assert list(c) == ["id", "statement", "evidence"]
        assert re.fullmatch(r"claim_[0-9a-f]{32}", c["id"]) and _TEXT.match(c["statement"])
        assert isinstance(c["evidence"], list) and c["evidence"]
        resources = [e["resource"] for e in c["evidence"]]
        assert len(resources) == len(set(resources))
        for e in c["evidence"]:
            assert list(e) == ["resource", "version"]
            res = parse_resource(e["resource"], wiki_dir="openwiki")
            assert res.canonical == e["resource"]
            kind = "repo-lines-v1:sha256:[0-9a-f]{64}:[A-Za-z0-9_-]+" if res.is_range else "repo-file-v1:sha256:[0-9a-f]{64}"
            assert re.fullmatch(kind, e["version"])
    if "verification" in data:
        v = data["verification"]
        assert list(v) == ["by", "at"] and _TEXT.match(v["by"]) and _TEXT.match(v["at"])
        assert data["claims"], "no verification without claims"
    return data  # type: ignore[no-any-return]


def all_sidecars_strict(repo: GitRepo) -> None:
    for path in sorted((repo.root / "openwiki" / ".claims").rglob("*.json")):
        strict_openwiki_read(path.read_bytes().decode("utf-8"))


# -- fixtures --------------------------------------------------------------------------------


def copy_fixture(repo: GitRepo) -> None:
    for path in sorted(FIXTURE.rglob("*")):
        rel = path.relative_to(FIXTURE)
        if path.is_file() and rel.name != "make_fixture.py" and "__pycache__" not in rel.parts:
            (repo.root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, repo.root / rel)


def report(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, str]]:
    capsys.readouterr()
    rc = repo.run(*args, "check", "--format", "json")
    data = json.loads(capsys.readouterr().out)
    return rc, {c["id"]: c["status"] for c in data["claims"]}


def edit_delay(repo: GitRepo) -> None:
    text = repo.read("src/retry.py")
    assert "BASE_DELAY_SECONDS = 2.0\n" in text
    repo.write("src/retry.py", text.replace("BASE_DELAY_SECONDS = 2.0\n", "BASE_DELAY_SECONDS = 3.0\n"))


def front(repo: GitRepo, path: str) -> dict[str, Any]:
    parsed = fm.parse(repo.read(path), filename=path)
    assert parsed is not None
    return parsed.data
