"""A page's or document's place in the graph: its node, its titles and identifiers (ADR-12 and
the like), and its search index entries (title with identifiers, headings). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from openwiki_git.graph.core import ID_DIRS, Graph, id_key
from openwiki_git.graph.search import Terms, tokenize
from openwiki_git.markdown.document import Document

_TITLE_ID = re.compile(r"^\s*([A-Z]{2,}(?:[A-Z0-9]*[A-Z])?)[-_ ]?([0-9]+)\b")
_NUMBERED = re.compile(r"^([0-9]+)[-_]")
_NAMED_ID = re.compile(r"^(ADR|RFC|PEP)[-_]?0*([0-9]+)(?:[-_.]|$)", re.I)  # adr-012-x.md, RFC1234.md


def add_document(g: Graph, doc_id: str, kind: str, d: Document) -> None:
    """A page or document: its node, its split text, its path, titles and identifiers."""
    g.add_node(doc_id, kind, d.title, d)
    g.docs[doc_id] = d
    g.by_path[d.path] = doc_id
    for title in dict.fromkeys([d.title, d.h1 or d.title]):
        g.titles.setdefault(" ".join(title.lower().split()), []).append(doc_id)
    g.ids_of[doc_id] = doc_ids(d)
    for key in g.ids_of[doc_id]:
        g.aliases.setdefault(key, []).append(doc_id)


def doc_ids(d: Document) -> list[str]:
    """A document's identifiers: front-matter `id`/`aliases`, an id opening the title
    (`ADR-0012: …`), or a numbered file in an ADR/RFC/PEP directory (`adr/0012-x.md`)."""
    found: list[str] = []
    for key in ("id", "aliases", "alias"):
        value = d.meta.get(key)
        for item in value if isinstance(value, list) else [value] if value else []:
            k = id_key(item)
            if k:
                found.append(k)
    m = _TITLE_ID.match(d.title)
    if m:
        found.append(f"{m.group(1)}-{int(m.group(2))}")
    parts = d.path.split("/")
    num = _NUMBERED.match(parts[-1])
    if num and len(parts) >= 2 and parts[-2].lower() in ID_DIRS:
        found.append(f"{ID_DIRS[parts[-2].lower()]}-{int(num.group(1))}")
    named = _NAMED_ID.match(parts[-1])
    if named:
        found.append(f"{named.group(1).upper()}-{int(named.group(2))}")
    return list(dict.fromkeys(found))


def document_terms(d: Document) -> Terms:
    """A prose document's search index entries (its title with its ids, its headings),
    tokenised: what `link` adds for it. graph_build has them made where the document is split."""
    return tokenize(_document_items("doc:" + d.path, d, doc_ids(d)))


def _document_items(owner: str, d: Document, ids: Sequence[str]) -> list[tuple[str, str]]:
    items = [(owner, " ".join([d.title, *ids]))]
    items.extend([(f"{owner}#{s.key}", s.heading) for s in d.sections])
    return items


def index_items(g: Graph, owners: Iterable[str], *, claims: bool = False) -> list[tuple[str, str]]:
    """Search index entries: the titles (with ids) and headings of the pages and documents
    `owners`, and with `claims` every claim statement of `g`."""
    items: list[tuple[str, str]] = []
    for owner in owners:
        items.extend(_document_items(owner, g.docs[owner], g.ids_of.get(owner, ())))
    if claims:
        items.extend([(node_id, node.label) for node_id, node in g.nodes.items() if node.kind == "claim"])
    return items
