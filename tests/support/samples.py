"""Sample Markdown and state snapshots shared by the splitter's and the graph's tests: `DOC` (an ADR
with front matter, relations and references), `random_markdown` (the generator the differential
tests feed both code paths), `document_state` and `graph_state` (everything a split or a build
decides, for equality)."""

from __future__ import annotations

import random
from typing import Any

from openwiki_git.graph import core as graph
from openwiki_git.markdown import split as mdsplit

DOC = """\
---
title: Retries
id: ADR-0008
supersedes: [ADR-0003]
amended_by:
  - "[ADR-0010](0010-x.md)"
---

# ADR-0008: Exponential backoff

Status: Accepted. Superseded by ADR-0015.

## Context

A delivery can fail because the receiver is briefly unavailable.

It is then retried.

## Decision

The delay doubles each time.

### Limits

At most six attempts.

## Decision

A second section with the same heading.
"""

MARKDOWN_LINES = [
    "", " ", "  ", "\t", "# H", "## Sub", "  ### Three", "    # code-ish", "#tag", "#", "===", "---", "--",
    "- item", "* item", "***", "_ _ _", "Title", "text  ", "text\t", "Status: Superseded by ADR-0003",
    "This ADR amends ADR-0002.", "```", "~~~", "> quote", "see docs/a.md, b.md", 'See also "Retry policy"',
    "text[^c-1a2b3c4d] See ADR-0048.", "[d]: b.md", "![i](p.png) [l](a.md)",
    "Status: Accepted", "| Status | Replaced by ADR014 |", "**Status:** ~~Accepted~~ Superseded by [ADR031][]",
    "Obsoletes: 12", "is updated by ADR-7", "status: Parked", "[ADR031]: c.md", "## Status", "Accepted",
]
MARKDOWN_WORDS = (
    "see See SEE also ADR-0012 RFC-3 x-1 foo bar supersedes amends the [l](a.md) `code` docs/x.md [^c-1a2b3c4d] "
    "<!--c-0a2b3c4d--> <!-- # - ] [ "
    "ADR036 RFC1234 PEP8 [ADR031][] Replaces Status: extends update owner/repo#4"
).split()


def random_markdown(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(0, 40)):
        if rng.random() < 0.5:
            lines.append(rng.choice(MARKDOWN_LINES))
        else:
            words = " ".join(rng.choice(MARKDOWN_WORDS) for _ in range(rng.randint(1, 8)))
            lines.append(" " * rng.choice([0, 0, 0, 1, 4]) + words + rng.choice(["", "", " ", "\t"]))
    return "\n".join(lines) + rng.choice(["", "\n", "\n\n", "  \n", "\n  "])


def document_state(d: mdsplit.Document) -> tuple[object, ...]:
    return (d.title, d.h1, d.sections, d.relations, d.texts, d.starts, d.ends, d.code, d.markers, d.refs, d.runs)


def graph_state(g: graph.Graph) -> list[Any]:
    """Everything a build decides, in order: nodes and their data, adjacency, unresolved, tables, index."""
    nodes = [(k, n.kind, n.label, n.data.path if isinstance(n.data, mdsplit.Document) else n.data) for k, n in g.nodes.items()]
    index = (g.index.ids, g.index.stream, g.index.ends, g.index.n, g.index.avg)
    return [nodes, list(g.adj.items()), g.unresolved, g.by_path, g.aliases, g.ids_of, g.titles, index]
