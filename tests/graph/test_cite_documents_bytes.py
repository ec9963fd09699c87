"""The byte test `check --base` runs on every sidecar before parsing it for cited documents
(cite_bytes.mentions of citestale.DOCUMENT_MENTION): never False for a sidecar whose claims
cite a Markdown document (cited_documents)."""

from __future__ import annotations

import json

from openwiki_git.caches import cite_bytes
from openwiki_git.formats import sidecar
from openwiki_git.graph import citestale


def sidecar_text(*resources: str, escape_slashes: bool = False) -> bytes:
    claims = [
        {"id": f"claim_{i:032x}", "statement": "Orders live in one database.", "evidence": [{"resource": r, "version": "v"}]}
        for i, r in enumerate(resources)
    ]
    text = json.dumps({"schemaVersion": 1, "claims": claims})
    return (text.replace("/", "\\/") if escape_slashes else text).encode()


def may_cite_documents(data: bytes) -> bool:
    return cite_bytes.mentions(data, sidecar.raw_resources(data), citestale.DOCUMENT_MENTION)


def test_only_a_sidecar_that_cannot_cite_a_document_is_skipped() -> None:
    assert not may_cite_documents(sidecar_text("repo://src/a.py#L1-L2", "repo://src/b.py"))
    assert may_cite_documents(sidecar_text("repo://src/a.py#L1", "repo://docs/adr/0002-orders.md#L3-L9"))
    assert may_cite_documents(sidecar_text("repo://docs/adr/0002-orders.md", escape_slashes=True))
    spelled = sidecar_text("repo://docs/adr/0002-orders.md").replace(b".md", b"\\u002emd")  # a JSON escape
    assert b".md" not in spelled and may_cite_documents(spelled)


def test_raw_resources_are_the_repo_strings_unless_an_escape_may_hide_one() -> None:
    assert sidecar.raw_resources(sidecar_text("repo://src/a.py#L1", "repo://src/b.py")) == b"repo://src/a.py#L1\nrepo://src/b.py"
    assert sidecar.raw_resources(sidecar_text("repo://src/a.py", escape_slashes=True)) is None
