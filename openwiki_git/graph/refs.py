"""Reference resolution for the evidence graph: the references written in a document (markdown.refs)
become edges (`refers_to`, `supersedes`, `amends`, `attaches_to`), or unresolved entries with a
reason. Pure: reads the graph's tables (ids, titles, paths, headings) and the tracked files.

Every change the resolver makes to the graph goes through `Resolver.edge`, `.span` and
`.unresolved`, which also append it to `Resolver.log`: `link` keeps each document's log (in the
graph's buildlog.BuildLog) and replays it on a rebuild when neither the document nor anything it
resolved against changed.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from openwiki_git.evidence.resource import Resource, ResourceError, parse_resource
from openwiki_git.formats import pagenames
from openwiki_git.graph.core import INVERSE, LINE_ANCHOR, Unresolved, id_key
from openwiki_git.markdown.document import Document
from openwiki_git.markdown.refs import Ref
from openwiki_git.markdown.relations import Relation

if TYPE_CHECKING:
    from openwiki_git.graph.core import Graph

# Operations in a log, replayed by buildlog.replay.
EDGE, SPAN, UNRESOLVED = "edge", "span", "unresolved"
UNKNOWN_STATUS = (
    "unrecognised status wording: write a status word (Accepted, Deprecated, ...) or a relation "
    "with its target (Superseded by ADR-12, Amended by ADR-13)"
)
TEXT_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*[-_ ]?[0-9]+(?![\w])")


class Resolver:
    """Turns the references written in documents into edges, or into unresolved entries."""

    def __init__(self, g: Graph, files: Collection[str], wiki_dir: str) -> None:
        self.g = g
        self.files = files if isinstance(files, (set, frozenset)) else set(files)
        self.dirs = {d for f in self.files for d in _ancestors(f)}
        self.wiki_dir = wiki_dir
        self.prefixes = {k.split("-", 1)[0] for k in g.aliases}
        self.log: list[tuple[Any, ...]] = []
        # Identifiers and titles resolve the same from every page (or every document) and
        # change nothing: their answers are kept. Paths may create span nodes, so are not.
        # By the referring kind ("doc:" or "page:": each prefers its own), then (kind, target).
        self._memo: dict[str, dict[tuple[str, str], tuple[str | None, str | None]]] = {}

    # -- changes to the graph, logged ------------------------------------------------------
    def edge(self, src: str, etype: str, dst: str) -> None:
        self.g.add_edge(src, etype, dst)
        self.log.append((EDGE, src, etype, dst))

    def span(self, resource: str) -> str:
        self.log.append((SPAN, resource))
        return self.g.span(resource)

    def unresolved(self, u: Unresolved) -> None:
        self.g.unresolved.append(u)
        self.log.append((UNRESOLVED, u))

    def _restate(self, was: Unresolved, now: Unresolved) -> None:
        """Report `now` instead of `was` (the same broken link, reported by its paragraph) if
        this document's log holds it; else add it."""
        for n, op in enumerate(self.log):
            if op[0] == UNRESOLVED and op[1] == was:
                self.log[n] = (UNRESOLVED, now)
                i = len(self.g.unresolved) - 1 - self.g.unresolved[::-1].index(was)
                self.g.unresolved[i] = now
                return
        self.unresolved(now)

    # -- documents -------------------------------------------------------------------------
    def document(self, doc_id: str, d: Document) -> None:
        prefer = doc_id.split(":", 1)[0] + ":"
        for s in d.sections:
            for ref in s.refs:
                self.refer(f"{doc_id}#{s.key}", doc_id, d.path, ref, prefer)
        self._paragraph_refs(doc_id, d, prefer)
        for rel in d.relations:
            source = f"{doc_id}#{d.key(rel.source)}" if rel.source >= 0 else doc_id
            if rel.type == "status":
                continue  # a declared status word: read off the document (context.declared_status)
            if rel.type == "unknown_status":
                self.unresolved(Unresolved(source, "status", rel.ref.target, UNKNOWN_STATUS))
                continue
            target, reason = self._relation_target(doc_id, d.path, rel)
            if target is None:
                if reason:
                    self.unresolved(Unresolved(source, rel.type, rel.ref.target, reason))
                continue
            if rel.type in ("superseded_by", "amended_by"):
                self.edge(target, INVERSE[rel.type], doc_id)
            else:
                self.edge(doc_id, rel.type, target)

    def _relation_target(self, doc_id: str, doc_path: str, rel: Relation) -> tuple[str | None, str | None]:
        """The page or document a relation names. A link whose target names nothing is resolved
        by its text when that names one document ("[ADR028](wrong.md)"): the broken link is
        still reported, with what it was taken to mean. A bare number ("Obsoletes: 1234") is
        an identifier of the document's own series."""
        ref = rel.ref
        if ref.kind == "num":
            own = [k.split("-", 1)[0] for k in self.g.ids_of.get(doc_id, ())]
            if not own:
                return None, f"the bare number {ref.target} needs the document's own identifier (such as RFC-{ref.target})"
            ref = Ref("id", f"{own[0]}-{ref.target}")
        elif ref.kind == "reflink":
            return None, f"no link definition [{ref.target}] in {doc_path}"
        target, reason = self.resolve(doc_id, doc_path, ref)
        if target is None and ref.kind == "link" and rel.text:
            by_text = self._by_text(doc_id, rel.text)
            if by_text is not None:
                source = f"{doc_id}#{self.g.docs[doc_id].key(rel.source)}" if rel.source >= 0 else doc_id
                why = f"{reason or 'names nothing'}; taken by its text to mean {by_text}"
                self._restate(Unresolved(source, "link", ref.target, reason or ""), Unresolved(source, "link", ref.target, why))
                target, reason = by_text, None
        if target is None and reason is None and ref.kind == "id":
            reason = f"no page or document has the id {id_key(ref.target) or ref.target}"
        if target is not None:
            target = target.split("#", 1)[0] if "#" in target and not target.startswith("repo://") else target
            if target not in self.g.docs:
                return None, f"{rel.type.replace('_', ' ')} must name a page or document"
            if target == doc_id:
                return None, f"{rel.type.replace('_', ' ')} names its own document"
        return target, reason

    def _by_text(self, doc_id: str, text: str) -> str | None:
        """The one page or document a link's text names: an identifier opening it, or a title."""
        m = TEXT_ID.match(text.strip())
        prefer = doc_id.split(":", 1)[0] + ":"
        if m:
            key = id_key(m.group(0))
            if key and len(self.g.aliases.get(key, ())) == 1:
                return self.g.aliases[key][0]
        got, _ = self._by_name("see", text, prefer)
        return got

    def _paragraph_refs(self, doc_id: str, d: Document, prefer: str) -> None:
        """`refer` for every reference of every paragraph, written out: the hot loop of a large
        corpus (most references are identifiers named before, answered by the memo). A
        paragraph's id is its own, so its edges can be new only to it: they are deduplicated
        here, not in the graph's set of every edge (`Graph.add_edge`)."""
        memo = self._memo.setdefault(prefer, {})
        resolve, log, link, refs_of = self.resolve, self.log, self.g.link, d.refs
        indexes = sorted(refs_of)
        for i, key in zip(indexes, d.keys_at(indexes)):
            source, refs = f"{doc_id}#{key}", refs_of[i]
            linked: set[str] | None = set() if len(refs) > 1 else None
            for ref in refs:
                got = memo.get(ref)  # a Ref is a (kind, target) tuple
                target, reason = got if got is not None else resolve(doc_id, d.path, ref)
                if target is not None:
                    # (a paragraph referring to its own document is kept: nothing is dropped)
                    if linked is None or target not in linked:
                        link(source, "refers_to", target)
                        if linked is not None:
                            linked.add(target)
                    log.append((EDGE, source, "refers_to", target))
                elif reason:
                    self.unresolved(Unresolved(source, ref.kind, ref.target, reason))

    def refer(self, source: str, doc_id: str, doc_path: str, ref: Ref, prefer: str = "") -> None:
        # Most references are identifiers or titles named before: their answer is memoised
        # (`prefer` is the referring kind, "doc:" or "page:"), so ask the memo first.
        got = self._memo.get(prefer, {}).get(ref) if prefer else None
        target, reason = got if got is not None else self.resolve(doc_id, doc_path, ref)
        if target is not None:
            if target != source:
                self.edge(source, "refers_to", target)
        elif reason:
            self.unresolved(Unresolved(source, ref.kind, ref.target, reason))

    def resolve(self, doc_id: str, doc_path: str, ref: Ref) -> tuple[str | None, str | None]:
        """(node id, None) when resolved; (None, reason) when not; (None, None) when the text is
        not a reference after all (an identifier with a prefix no document uses)."""
        target = ref.target
        if ref.kind == "link":
            return self.path(doc_id, doc_path, target, relative=True)
        if ref.kind == "see" and (target.startswith("repo://") or "/" in target or target.endswith(".md") or "#" in target):
            relative = target.startswith(("./", "../"))
            found = self.path(doc_id, doc_path, target, relative=relative)
            if found[0] is None and not relative and not target.startswith("repo://"):
                alt = self.path(doc_id, doc_path, target, relative=True)
                found = alt if alt[0] is not None else found
            return found
        prefer = doc_id.split(":", 1)[0] + ":"
        memo = self._memo.setdefault(prefer, {})
        got = memo.get(ref)
        if got is None:
            got = memo[(ref.kind, target)] = self._by_name(ref.kind, target, prefer)
        return got

    def _by_name(self, kind: str, target: str, prefer: str) -> tuple[str | None, str | None]:
        """An identifier (`ADR-0012`) or a title."""
        if kind == "id":
            key = id_key(target)
            if key is None or key.split("-", 1)[0] not in self.prefixes:
                return None, None
            return self._one(self.g.aliases.get(key, []), f"no page or document has the id {key}", prefer)
        hits = self.g.titles.get(" ".join(target.lower().split()), [])
        return self._one(hits, f"no page or document titled {target!r}", prefer)

    def _one(self, hits: list[str], missing: str, prefer: str = "") -> tuple[str | None, str | None]:
        """The one node meant; among several, the one of the referring kind (pages name pages,
        documents name documents); otherwise the reference is ambiguous."""
        if len(hits) > 1 and prefer:
            same = [h for h in hits if h.startswith(prefer)]
            hits = same if len(same) == 1 else hits
        if len(hits) == 1:
            return hits[0], None
        if not hits:
            return None, missing
        return None, f"ambiguous: {', '.join(sorted(hits))}"

    def path(self, doc_id: str, doc_path: str, target: str, *, relative: bool) -> tuple[str | None, str | None]:
        if target.startswith("repo://"):
            try:
                res = parse_resource(target, wiki_dir="\0")
            except ResourceError as e:
                return None, str(e)
            return self._file(res.path, f"L{res.start}-L{res.end}" if res.is_range else "", target)
        github = _GITHUB.match(target)
        if github:  # a full URL into a repository: this one's when it names what this one holds
            inner = github.group(1)
            found = self.path(doc_id, doc_path, "/" + inner, relative=False)
            return found if found[0] is not None else (None, None)
        raw, _, anchor = target.partition("#")
        raw = unquote(raw.split("?", 1)[0])
        if not raw:
            return self._anchor(doc_id, anchor, target)
        if raw.startswith("/"):
            joined = raw.lstrip("/")
        elif relative:
            joined = posixpath.join(posixpath.dirname(doc_path), raw)
        else:
            joined = raw
        norm = posixpath.normpath(joined)
        if norm == ".." or norm.startswith("../"):
            return None, "points outside the repository"
        node = self.g.by_path.get(norm)
        if node is not None:
            return self._anchor(node, anchor, target) if anchor else (node, None)
        return self._file(norm, anchor, target)

    def _anchor(self, doc_id: str, anchor: str, target: str) -> tuple[str | None, str | None]:
        if not anchor:
            return doc_id, None
        hit = self.g.anchor(doc_id, anchor)
        if hit is None:
            return None, f"no heading #{anchor} in {self.g.docs[doc_id].path}"
        return hit, None

    def _file(self, path: str, anchor: str, target: str) -> tuple[str | None, str | None]:
        if pagenames.in_claims_folder(self.wiki_dir, path):
            return None, "points into the wiki's sidecars"
        if path in self.files:
            m = LINE_ANCHOR.match(anchor)
            if m:
                start = int(m.group(1))
                return self.span(Resource(path, start, int(m.group(2) or start)).canonical), None
            return self.span(Resource(path).canonical), None
        if path.rstrip("/") in self.dirs:
            return self.span(Resource(path.rstrip("/") + "/").canonical), None
        return None, f"{path}: no such tracked file"


_GITHUB = re.compile(r"^https?://github\.com/[^/]+/[^/]+/(?:blob|tree|raw)/[^/]+/(.+)$")


def _ancestors(path: str) -> Iterable[str]:
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        yield "/".join(parts[:i])
