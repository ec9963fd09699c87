"""A sentence that draws the consequence of a condition said just before it. Pure.

typer's "If you have **Rich** installed as described in Printing and Colors, you can configure
your app to enable markup text with the parameter `rich_markup_mode`." is followed, in the next
paragraph, by "Then you can use more formatting in the docstrings and the `help` parameter for
*CLI arguments* and *CLI options*.": true exactly as long as the condition's code does what it
says. When Rich became a required dependency upstream rewrote both; only the condition carried a
claim. A sentence that starts with "Then" and carries no claim of its own continues the nearest
sentence before it, at most MAX_BACK sentences back and in the same section, that starts with
"If": it is guarded by that sentence's evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from openwiki_git.ground.refs import Sentence

MAX_BACK = 4  # sentences: a condition further back is another paragraph's thought
_THEN = re.compile(r"[*_]*Then\b")
_IF = re.compile(r"[*_]*If\b")


def conditions(sentences: Sequence[Sentence], headings: Sequence[int]) -> dict[Sentence, Sentence]:
    """Each claimable sentence starting with "Then", with the condition it continues: the nearest
    of the MAX_BACK sentences before it that starts with "If", no heading (`headings`: their
    lines) between them."""
    out: dict[Sentence, Sentence] = {}
    for n, sentence in enumerate(sentences):
        if not sentence.claimable or not _THEN.match(sentence.text):
            continue
        for before in reversed(sentences[max(0, n - MAX_BACK) : n]):
            if any(before.line < h <= sentence.line for h in headings):
                break
            if _IF.match(before.text):
                out[sentence] = before
                break
    return out
