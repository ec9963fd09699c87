"""The claim marker, one rule: `[^c-1a2b3c4d]` (8 to 32 hex of the claim's id) in a page's
prose is a Markdown footnote reference to the claim's citation; `[^c-1a2b3c4d]:` (the footnote's
definition, in the citations block) is not a marker; nor is one inside the generated citations
block. Pure, and `re` alone (check's lean path reads markers without the page machinery)."""

from __future__ import annotations

import re

PATTERN = r"\[\^(c-[0-9a-f]{8,32})\](?!:)"  # group 1: the footnote label, `c-1a2b3c4d`
MARKER = re.compile(PATTERN)
# The generated citations block (citations.py writes it between its BEGIN and END lines).
BLOCK = re.compile(r"\n*<!-- openwiki-git:citations:begin[^\n]*-->\n.*?<!-- openwiki-git:citations:end -->\n?", re.S)


def markers_in(text: str) -> set[str]:
    """Labels used as markers in the prose (definitions and the generated block excluded)."""
    return set(MARKER.findall(BLOCK.sub("", text)))
