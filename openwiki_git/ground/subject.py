"""A section about one parameter: its plain sentences guarded by that parameter. Pure.

typer's "Disable Local Variables for Security" sets `pretty_exceptions_show_locals=False` in one
sentence; the others ("But if it was something like a password, you would have liked to hide
it.") name nothing, yet are true only while the parameter does what the section says. When the
parameter's default flipped, upstream rewrote the whole section; only the sentence naming it
carried a claim. So where the sentences of a Markdown section (a heading of level 2 or deeper, to
the next heading) cite exactly one parameter's declaration between them, each sentence of the
section that carries no claim of its own is guarded by that declaration, as a section heading's
name guards its sentences (refs.py). A section citing several parameters is about none of them
alone, and a class or function head is no subject: it changes with every parameter added.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from openwiki_git.ground.refs import Sentence

# A line that includes a file where the site is built (`{* docs_src/app.py hl[3] *}`, `--8<-- "x.py"`,
# `{% include %}`) reads as a sentence but says nothing.
_INCLUDE = re.compile(r"\{\*|--8<--|\{%")
_SETTING = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")
_DECLARATION = re.compile(r"\s*\*{0,2}(\w+)\s*[:=,)]")


def declared_name(line: str) -> str | None:
    """The parameter a declaration line declares (`    show_locals: bool = True,`); None for a
    line declaring more (a `def` with its parameters on one line)."""
    m = _DECLARATION.match(line)
    return m.group(1) if m and m.group(1) not in ("def", "async", "class") else None


def sets(sentence: str, name: str) -> bool:
    """Whether the sentence sets the parameter, and no other: `name=value` in a code span. A
    section teaching one setting is about it; one naming a parameter in passing, or listing
    several (`prompt=True` and `help="..."`), is not."""
    spans = re.findall(r"`([^`]+)`", sentence)
    return {m for span in spans for m in _SETTING.findall(span)} == {name}


def sections(headings: Sequence[tuple[int, int]], last_line: int) -> list[tuple[int, int]]:
    """The (first, last) lines of each innermost section under a heading of level 2 or deeper:
    from the heading to the line before the next heading of any level."""
    out = []
    for n, (level, line) in enumerate(headings):
        end = headings[n + 1][1] - 1 if n + 1 < len(headings) else last_line
        if level >= 2:
            out.append((line, end))
    return out


def subjects(spans: Sequence[tuple[int, int]], cited: Iterable[tuple[int, str]]) -> dict[tuple[int, int], str]:
    """Each section's one parameter: `cited` is (line, resource) of each parameter declaration the
    page's sentences cite; a section citing none or several has none."""
    per: dict[tuple[int, int], set[str]] = {}
    for line, resource in cited:
        span = section_of(spans, line)
        if span is not None:
            per.setdefault(span, set()).add(resource)
    return {span: next(iter(found)) for span, found in per.items() if len(found) == 1}


def guarded(subject: dict[tuple[int, int], str], sentences: Iterable[Sentence], claimed: Iterable[Sentence]) -> dict[Sentence, str]:
    """The sentences their section's one parameter guards, each with its evidence; `claimed`:
    the sentences that carry a claim of their own already."""
    own = set(claimed)
    out: dict[Sentence, str] = {}
    for sentence in sentences:
        span = section_of(subject, sentence.line)
        if span is not None and sentence.claimable and sentence not in own and not _INCLUDE.match(sentence.text):
            out[sentence] = subject[span]
    return out


def section_of(spans: Iterable[tuple[int, int]], line: int) -> tuple[int, int] | None:
    """The section holding `line` (after its heading line)."""
    return next((s for s in spans if s[0] < line <= s[1]), None)
