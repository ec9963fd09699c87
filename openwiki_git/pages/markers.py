"""The claim marker, one rule: `[^c-1a2b3c4d]` (8 to 32 hex of the claim's id) in a page's
prose is a Markdown footnote reference to the claim's citation; `[^c-1a2b3c4d]:` (the footnote's
definition, in the citations block) is not a marker. Pure."""

from __future__ import annotations

import re

PATTERN = r"\[\^(c-[0-9a-f]{8,32})\](?!:)"  # group 1: the footnote label, `c-1a2b3c4d`
MARKER = re.compile(PATTERN)
