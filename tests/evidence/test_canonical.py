"""One fast grammar for plain resources (resource.canonical_parts), used by parse_resource, the sidecar
reader, the checker, the check cache and the cited-path index. It must agree with the general
parser wherever it answers; the cited-path index's own copy did not (it took `src/..`,
`openwiki/x` and a bad range as cited paths)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openwiki_git.caches import cite_bytes
from openwiki_git.evidence.kinds import kind_scope, parse_kind
from openwiki_git.evidence.resource import Resource, ResourceError, canonical_parts, parse_resource
from openwiki_git.formats import sidecar

PLAIN = ["repo://src/a.py", "repo://src/a.py#L1-L2", "repo://.github/x.yml#L3-L3", "repo://a/...b/c", "repo://a/..b",
         "repo://vendor/lib/.git/config", "repo://a#L999999999999999-L999999999999999"]
GENERAL = ["repo://src/../a.py", "repo://src/./a.py", "repo://src//a.py", "repo://src/..", "repo://src/", "repo://src/a%20b.py",
           "repo://openwiki/x.md", "repo://.OpenWiki/x.md", "repo://.git/config", "repo://a.py#L2-L1", "repo://a.py#L0-L1",
           "repo://a.py#L01-L2", "repo://a.py#L1", "repo://a.py#x", "repo://a:b", "repo://a\\b", "repo://",
           "repo://a#L9999999999999999-L9999999999999999"]


@pytest.mark.parametrize("resource", PLAIN)
def test_plain_resources_take_the_fast_path_and_agree(resource: str) -> None:
    parts = canonical_parts(resource)
    assert parts is not None and Resource(*parts) == parse_resource(resource)
    assert sidecar.canonical_parts is canonical_parts


@pytest.mark.parametrize("resource", GENERAL)
def test_other_resources_go_to_the_general_parser(resource: str) -> None:
    assert canonical_parts(resource) is None


def _cited(resource: str) -> set[str]:
    return cite_bytes.cited_paths(json.dumps({"claims": [{"evidence": [{"resource": resource}]}]}).encode())


@pytest.mark.parametrize("resource", PLAIN + GENERAL)
def test_the_cited_path_index_reads_paths_as_the_resolver_does(resource: str) -> None:
    try:
        kind = parse_kind(resource, wiki_dir="\0")
        expected = {kind_scope(kind)[0] if kind is not None else parse_resource(resource, wiki_dir="\0").path}
    except ResourceError:
        expected = set()
    assert _cited(resource) == expected


@pytest.mark.parametrize(
    ("resource", "expected"),
    [
        ("repo://a.py#x", {"a.py"}),  # a definition cites its file
        ("repo://src/shop/cart.py#Cart.add:head", {"src/shop/cart.py"}),
        ("repo://src/stores/*.py", {"members:src/stores/*.py"}),  # a set of files' glob, matched against files that come or go
        ("repo://src/**/*.py?grep=raise", {"glob:src/**/*.py"}),  # a set of lines' glob, matched against every changed path
        ("repo://src/a.py?grep=raise", {"src/a.py"}),  # a grep over one file cites that file
    ],
)
def test_the_cited_path_index_learns_definitions_and_scopes(resource: str, expected: set[str]) -> None:
    assert _cited(resource) == expected


@given(st.text(alphabet="ab./#L0123-%_", max_size=24))
def test_the_fast_path_never_disagrees(tail: str) -> None:
    resource = "repo://" + tail
    parts = canonical_parts(resource)
    if parts is not None:
        assert Resource(*parts) == parse_resource(resource)
