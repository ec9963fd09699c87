"""The node ids README promises agents, pinned as literals through the real CLI.

README: paragraphs are `doc:<path>#<section slug path>~<CRC-32 of the text, white space collapsed,
claim markers removed>`, `.2`, `.3` for repeats in a section; inserting, deleting or editing other
paragraphs, retitling the document or citing the paragraph leaves the id unchanged. The literals
below were computed by hand (`zlib.crc32(b"The delay doubles each time.")` is 0x5886f8a6,
`zlib.crc32(b"At most six attempts.")` is 0x80bd0cf2), so a change to the key function, the slug
or the collapsing rule fails here even if every other test moves with it.
"""

from __future__ import annotations

import json

DOC = "docs/adr/0008-backoff.md"
DECISION = f"doc:{DOC}#decision~5886f8a6"
REPEAT = f"doc:{DOC}#decision~5886f8a6.2"
LIMITS = f"doc:{DOC}#decision/limits~80bd0cf2"

TEXT = """\
# ADR-0008: Exponential backoff

## Context

A delivery can fail because the receiver is briefly unavailable.

## Decision

The delay   doubles
each time.

The delay doubles each time.

### Limits

At most six attempts.
"""


def _paragraph_ids(repo, capsys) -> list[str]:
    capsys.readouterr()
    assert repo.run("expand", f"doc:{DOC}#decision", "--format", "json", "--no-cache") == 0
    node = json.loads(capsys.readouterr().out)["node"]
    return [p["id"] for p in node["paragraphs"]]


def test_paragraph_ids_are_the_documented_literals(wiki_repo, capsys):
    wiki_repo.write(DOC, TEXT)
    wiki_repo.commit_all("adr")
    assert _paragraph_ids(wiki_repo, capsys) == [DECISION, REPEAT, LIMITS]
    capsys.readouterr()
    assert wiki_repo.run("locate", "six", "attempts", "--format", "json", "--no-cache") == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["id"] == LIMITS


def test_paragraph_ids_survive_edits_elsewhere_a_new_title_and_a_citation(wiki_repo, capsys):
    edited = (
        TEXT.replace("# ADR-0008: Exponential backoff", "# ADR-0008: Backoff, retitled")
        .replace("## Decision\n\n", "## Decision\n\nA new first paragraph.\n\n")
        .replace("A delivery can fail", "A delivery may fail")
        .replace("At most six attempts.", "At most six attempts.[^c-1a2b3c4d]")
    )
    wiki_repo.write(DOC, edited)
    wiki_repo.commit_all("adr, edited")
    ids = _paragraph_ids(wiki_repo, capsys)
    assert DECISION in ids and REPEAT in ids and LIMITS in ids
