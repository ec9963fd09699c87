"""OpenWiki compatibility: every vector in shared/testdata/openwiki-compat must pass exactly.

The vectors are read from, in order: $OPENWIKI_COMPAT_VECTORS; the shared tree beside the
repository; the byte-for-byte copy in tests/data/ (so a clean clone still runs them).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.evidence.relocation import relocate
from openwiki_git.evidence.resolver import classify, resolve
from openwiki_git.evidence.resource import ResourceError, format_resource, parse_resource
from openwiki_git.evidence.tokens import decode_anchors, file_version

SHARED = Path(__file__).resolve().parents[3] / "shared/testdata/openwiki-compat/vectors.json"
BUNDLED = Path(__file__).resolve().parents[1] / "data/openwiki-compat-vectors.json"


def _vectors_path() -> Path:
    override = os.environ.get("OPENWIKI_COMPAT_VECTORS")
    if override:
        return Path(override)  # an explicit choice: fail loudly if it is missing
    return SHARED if SHARED.is_file() else BUNDLED


VECTORS: dict[str, Any] = json.loads(_vectors_path().read_text(encoding="utf-8"))


def _cases(group: str, key: str) -> list[Any]:
    return [pytest.param(v, id=v[key]) for v in VECTORS[group]]


def test_every_group_is_present() -> None:
    for group in ("version", "relocation", "resource_grammar", "resource_format"):
        assert VECTORS[group], group


def test_bundled_copy_matches_shared() -> None:
    if not SHARED.is_file():
        pytest.skip("no shared tree beside this checkout")
    assert BUNDLED.read_bytes() == SHARED.read_bytes(), "re-copy the vectors: cp shared/... tests/data/"


@pytest.mark.parametrize("v", _cases("version", "name"))
def test_version(v: dict[str, Any]) -> None:
    got = resolve(v["resource"], v["content"], None)
    if v["expected_version"] is None:
        assert got is None
        return
    assert got is not None
    assert got.version == v["expected_version"]
    if "expected_anchors" not in v:
        assert got.content == v["content"]
        assert got.version == file_version(v["content"])
        return
    decoded = decode_anchors(got.version)
    assert decoded is not None
    assert list(decoded[1].items()) == list(v["expected_anchors"].items())  # key order too
    assert got.content == v["expected_content"]


@pytest.mark.parametrize("v", _cases("relocation", "name"))
def test_relocation(v: dict[str, Any]) -> None:
    got = resolve(v["resource"], v["new_content"], previous=v["old_version"])
    assert classify(got, v["old_version"]) == v["expected"], v["note"]


@pytest.mark.parametrize("v", _cases("relocation", "name"))
def test_relocate_agrees_with_openwiki_on_the_vectors(v: dict[str, Any]) -> None:
    """Our relocation only differs from OpenWiki by design (bounded growth, ambiguity, refreshed
    tokens); none of the vectors reaches those differences with the default max_growth."""
    got = relocate(v["resource"], v["new_content"], v["old_version"])
    expected = v["expected"]
    assert got.status == expected["status"], got.reason
    if got.resource is not None and got.resource.is_range:
        assert [got.resource.start, got.resource.end] == expected["range"]
    if got.status == "fresh" and got.resource is not None and got.resource.is_range:
        # No hint drift and no anchor aging: the new resource and token resolve at once.
        again = resolve(got.resource, v["new_content"], got.version)
        assert again is not None
        assert (again.resource, again.version) == (got.resource, got.version)


@pytest.mark.parametrize("v", _cases("resource_grammar", "input"))
def test_resource_grammar(v: dict[str, Any]) -> None:
    if v["canonical"] is None:
        with pytest.raises(ResourceError) as caught:
            parse_resource(v["input"])
        assert "\n" not in str(caught.value)
        return
    parsed = parse_resource(v["input"])
    assert parsed.canonical == v["canonical"], v["reason"]
    lines = (parsed.start, parsed.end) if parsed.is_range else None
    assert format_resource(parsed.path, lines) == v["canonical"]  # type: ignore[arg-type]
    assert parse_resource(v["canonical"]) == parsed


@pytest.mark.parametrize("v", _cases("resource_format", "reason"))
def test_resource_format(v: dict[str, Any]) -> None:
    lines = tuple(v["range"]) if v["range"] is not None else None
    if v["canonical"] is None:
        with pytest.raises(ResourceError):
            format_resource(v["path"], lines)  # type: ignore[arg-type]
        return
    assert format_resource(v["path"], lines) == v["canonical"]  # type: ignore[arg-type]
