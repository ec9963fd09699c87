"""What an agent reads off the evidence graph in one call: a document's standing (current,
superseded, amended; the head of its supersession chain), search over what documents say, and a
node with its context (its text, its section's paragraphs, its typed neighbours) within a budget
of characters. Pure: reads a built `core.Graph`; no I/O.

- `standing(g, doc_id)`: {status, declared?, superseded_by?, amended_by?, head?}. `status` is
  `superseded` when some document supersedes it, else `amended` when some document amends it,
  else `current`; `head` is where following `superseded_by` ends (the document in force).
- `TextIndex`: BM25 over every prose paragraph of every page and document (fenced code left out),
  built on the first search that needs it (`text_index`: a build does not pay for it).
- `Budget`, `paragraphs_of`, `first_lines`: the text around a node and its neighbours' first
  lines, within a budget of characters (expand's context).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from openwiki_git.graph.search import Index, bm25, build_index, tokenize

if TYPE_CHECKING:
    from openwiki_git.graph.core import Graph

SNIPPET_CHARS = 240  # the first lines of a text shown with a result
MAX_CHARS = 6000  # the default budget of `context`
RELATION_EDGES = frozenset({"supersedes", "superseded_by", "amends", "amended_by", "attaches_to", "has_attachment"})
STRUCTURAL = frozenset({"contains", "contained_in"})


# -- standing ------------------------------------------------------------------------------------
def standing(g: Graph, doc_id: str) -> dict[str, Any]:
    """Whether a page or document is in force, and what replaced or amended it."""
    out: dict[str, Any] = {}
    adj = g.adj.get(doc_id, ())
    by = [t for e, t in adj if e == "superseded_by"]
    amended = [t for e, t in adj if e == "amended_by"]
    declared = declared_status(g, doc_id)
    out["status"] = "superseded" if by else "amended" if amended else "current"
    if declared:
        out["declared"] = declared
    if by:
        out["superseded_by"] = by
        out["head"] = head(g, doc_id)
    if amended:
        out["amended_by"] = amended
    return out


def declared_status(g: Graph, doc_id: str) -> str | None:
    d = g.docs.get(doc_id)
    if d is None:
        return None
    return next((r.ref.target for r in d.relations if r.type == "status"), None)


def head(g: Graph, doc_id: str, limit: int = 50) -> str:
    """Where following `superseded_by` from `doc_id` ends: the last document reached while
    there is one way on (at a branch, the first in edge order; a cycle stops it)."""
    seen, current = {doc_id}, doc_id
    for _ in range(limit):
        nxt = [t for e, t in g.adj.get(current, ()) if e == "superseded_by"]
        if not nxt or nxt[0] in seen:
            break
        current = nxt[0]
        seen.add(current)
    return current


def owner_of(node_id: str) -> str:
    """The page or document a section or paragraph id belongs to (the id itself otherwise)."""
    return node_id.split("#", 1)[0] if node_id.startswith(("doc:", "page:")) else node_id


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The first lines of a text, cut at `limit` characters."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def first_text(g: Graph, doc_id: str) -> str | None:
    """The first lines of a document's first prose paragraph that is not a status line."""
    d = g.docs.get(doc_id)
    if d is None:
        return None
    stated = {r.source for r in d.relations}
    for i in range(len(d)):
        if i in d.code or i in stated:
            continue
        text = d.text(i)
        if len(text) >= 20:
            return snippet(text)
    return None


def first_lines(g: Graph, node_id: str, kind: str) -> str | None:
    """The first lines of a result's text: a paragraph's own, a section's first paragraph,
    a page's or document's first prose paragraph."""
    if kind in ("page", "doc"):
        return first_text(g, node_id)
    node = g.node(node_id)
    if node is None:
        return None
    if kind == "paragraph":
        d, i = node.data
        return snippet(d.text(i))
    if kind == "section":
        d, section = node.data
        first = next((i for i in range(len(d)) if i not in d.code and d.section_of(i) == section.key), None)
        return snippet(d.text(first)) if first is not None else None
    return None


def references(g: Graph, doc_id: str) -> list[str]:
    """The pages, documents, files and spans a document's sections and paragraphs refer to, in
    document order, without duplicates (itself left out)."""
    d = g.docs.get(doc_id)
    if d is None:
        return []
    found: dict[str, None] = {}
    sources = [f"{doc_id}#{s.key}" for s in d.sections if s.refs]
    indexes = sorted(d.refs)
    sources += [f"{doc_id}#{k}" for k in d.keys_at(indexes)]
    for src in sources:
        for e, t in g.adj.get(src, ()):
            if e == "refers_to" and owner_of(t) != doc_id:
                found.setdefault(t, None)
    return list(found)


# -- search over what documents say ---------------------------------------------------------------
class TextIndex:
    """BM25 over the prose paragraphs of every page and document (a page's paragraphs that carry
    claim markers are left to the claims' statements): entry n is paragraph `paragraphs[n]` =
    (owner id, paragraph index)."""

    def __init__(self, g: Graph) -> None:
        self.paragraphs: list[tuple[str, int]] = []
        items: list[tuple[str, str]] = []
        for owner, d in g.docs.items():
            # A wiki paragraph that carries claims is searched through their statements.
            skip = d.code | set(d.markers) if owner.startswith("page:") else d.code
            texts = d.texts
            for i in range(len(texts)):
                if i not in skip:
                    self.paragraphs.append((owner, i))
                    items.append((owner, texts[i]))
        self.index: Index = build_index([tokenize(items)]) if items else Index()

    def search(self, words: list[str], owners: Iterable[str] | None = None) -> dict[int, float]:
        """Entry -> BM25 score; with `owners`, only paragraphs of those pages or documents."""
        return bm25(self.index, words, set(owners) if owners is not None else None)


def text_index(g: Graph) -> TextIndex:
    """The graph's index of what pages and documents say (`Graph.text_index`), built on first use."""
    if g.text_index is None:
        g.text_index = TextIndex(g)
    return g.text_index


# -- context in one call -------------------------------------------------------------------------
class Budget:
    """Characters left for text in one response."""

    def __init__(self, max_chars: int) -> None:
        self.left = max_chars
        self.cut = False

    def take(self, text: str) -> str | None:
        """`text`, or as much of it as fits (None when nothing is left)."""
        if self.left <= 0:
            self.cut = True
            return None
        if len(text) > self.left:
            self.cut = True
            text = text[: max(self.left - 1, 0)].rstrip() + "…"
        self.left -= len(text)
        return text


def paragraphs_of(g: Graph, owner: str, section: str | None, budget: Budget, skip: str | None = None) -> list[dict[str, Any]]:
    """The prose paragraphs of a page or document (of one section and its subsections when
    `section` is given), with their ids, lines and text, while the budget lasts."""
    d = g.docs[owner]
    prefix = section + "/" if section else ""
    out: list[dict[str, Any]] = []
    for i in range(len(d)):
        if i in d.code:
            continue
        where = d.section_of(i)
        if section is not None and where != section and not where.startswith(prefix):
            continue
        pid = f"{owner}#{d.key(i)}"
        if pid == skip:
            continue
        text = budget.take(d.text(i))
        if text is None:
            break
        item: dict[str, Any] = {"id": pid, "section": where, "lines": [d.starts[i], d.ends[i]], "text": text}
        out.append(item)
    return out
