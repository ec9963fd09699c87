"""The split document (split.py's records) and its paragraph keys (made by keys.py). Pure: no I/O.

A `Document` keeps its paragraphs column-wise (`texts`, `starts`, `ends`), known by index, and
their keys: `<section key>~<hash>`, where the section key is the slug path of the headings above
the paragraph (`install/linux`, empty before the first heading) and the hash is the first 8 hex
digits of CRC-32 over the paragraph's normalised text (white space collapsed, claim markers
`[^c-…]` and `<!-- c-… -->` removed, so adding a citation does not rename the paragraph). A second identical
paragraph in the same section gets `.2`, a third `.3`, in document order. Line numbers are kept
as attributes, never used in keys, so inserting or removing text elsewhere leaves every other
key unchanged. Keys are computed one section run at a time, when asked for (`warm_keys` computes
those the graph asks for where the document is split).
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Iterable
from functools import partial
from typing import Any, NamedTuple

from openwiki_git.markdown.keys import paragraph_hashes, section_keys
from openwiki_git.markdown.refs import Ref
from openwiki_git.markdown.relations import Relation

__all__ = ["Document", "Paragraph", "Section"]

_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths only)
_ref = partial(_new, Ref)
_run_start = operator.itemgetter(0)
_section_refs = operator.itemgetter(6)


class Section(NamedTuple):
    key: str  # slug path, e.g. "install/linux"
    heading: str  # the heading's text, inline markup removed
    level: int  # 1-6
    anchor: str  # GitHub's anchor, unique in the document
    parent: str  # the parent section's key, "" for top level
    line: int  # 1-based line of the heading
    refs: tuple[Ref, ...] = ()


class Paragraph(NamedTuple):
    key: str  # "<section key>~<hash8>[.n]"
    section: str  # the section key ("" before the first heading)
    text: str  # as written (lines joined with "\n")
    start: int  # 1-based first line
    end: int  # 1-based last line (inclusive)
    code: bool = False  # a fenced code block
    markers: tuple[str, ...] = ()  # claim labels ("c-1a2b3c4d") carried by the paragraph
    refs: tuple[Ref, ...] = ()


_section = partial(_new, Section)


class Document:
    """A split document. Paragraphs are stored column-wise (`texts`, `starts`, `ends`) and known
    by index; their keys are computed lazily, one section at a time (a section's own paragraphs
    are contiguous: a run that starts at its heading), so a large corpus is split without
    hashing paragraphs nobody asks about. `markers` and `refs` map paragraph indexes to what they
    carry."""

    __slots__ = (
        "_by_key",
        "_children",
        "_joined",
        "_keys",
        "_offsets",
        "_sections",
        "_texts",
        "code",
        "ends",
        "h1",
        "markers",
        "meta",
        "path",
        "refs",
        "relations",
        "run_starts",
        "runs",
        "sections",
        "starts",
        "title",
    )

    def __init__(
        self,
        path: str,
        title: str,
        meta: dict[str, str | list[str]],
        sections: tuple[Section, ...] = (),
        relations: tuple[Relation, ...] = (),
        h1: str | None = None,
        *,
        texts: list[str] | None = None,
        starts: list[int] | None = None,
        ends: list[int] | None = None,
        code: frozenset[int] = frozenset(),
        markers: dict[int, tuple[str, ...]] | None = None,
        refs: dict[int, tuple[Ref, ...]] | None = None,
        runs: list[tuple[int, str]] | None = None,
    ) -> None:
        self.path, self.title, self.meta, self.h1 = path, title, meta, h1
        self.sections, self.relations = sections, relations
        self._texts: list[str] | None = texts or []
        self._joined: str | None = None  # the texts NUL-joined, while `_texts` is None
        self._offsets: list[int] | None = None  # where each text starts in `_joined`
        self.starts, self.ends = starts or [], ends or []
        self.code, self.markers, self.refs = code, markers or {}, refs or {}
        self.runs = runs or [(0, "")]
        self.run_starts = list(map(_run_start, self.runs))
        self._reset()

    def _reset(self) -> None:
        self._keys: dict[int, list[str]] = {}
        self._by_key: dict[str, int] = {}
        self._sections: dict[str, Section] | None = None
        self._children: dict[str, list[tuple[str, str]]] | None = None

    def __getstate__(self) -> dict[str, object]:
        # NamedTuples pickle through Python-level calls (__reduce_ex__, __new__), several times
        # slower than plain tuples: sections and references are stored as plain tuples, and
        # only the few sections with references (`section_refs`, their indexes) are rebuilt one
        # by one when loading; the others are made by one C-level `map`. The keys computed so
        # far go along (a child process computes them where it splits).
        state = {k: getattr(self, k) for k in self.__slots__ if not k.startswith("_") and k != "run_starts"}
        rows: list[tuple[Any, ...]] = list(map(tuple, self.sections))
        with_refs = list(itertools.compress(range(len(rows)), map(_section_refs, rows)))
        for i in with_refs:
            rows[i] = (*rows[i][:6], tuple(map(tuple, rows[i][6])))
        state["sections"], state["section_refs"] = rows, with_refs
        state["refs"] = {i: tuple(map(tuple, refs)) for i, refs in self.refs.items()}
        state["relations"] = [(r.type, tuple(r.ref), r.source, r.text) for r in self.relations]
        # `_by_key` too: unpickling it (its keys are `_keys`' strings, pickled once) is faster than
        # rebuilding it run by run.
        state["_keys"], state["_by_key"] = self._keys, self._by_key
        # The texts as one NUL-joined string, with where each starts: a single string pickles and
        # loads as one copy, where a list costs an object each way (unless a text holds a NUL).
        if self._texts is None:
            state["joined"], state["offsets"] = self._joined, self._offsets
        else:
            texts = self._texts
            joined = "\0".join(texts)
            if joined.count("\0") == max(len(texts) - 1, 0):
                lengths = itertools.accumulate(map(len, texts), initial=0)
                state["joined"], state["offsets"] = joined, list(map(operator.add, lengths, range(len(texts))))
            else:
                state["texts"] = texts
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        keys, by_key = state.pop("_keys", {}), state.pop("_by_key", {})
        self._texts, self._joined, self._offsets = state.pop("texts", None), state.pop("joined", None), state.pop("offsets", None)
        with_refs = state.pop("section_refs")
        for k, v in state.items():
            object.__setattr__(self, k, v)
        rows = state["sections"]
        sections = list(map(_section, rows))
        for i in with_refs:
            sections[i] = _new(Section, (*rows[i][:6], tuple(map(_ref, rows[i][6]))))
        self.sections = tuple(sections)
        self.refs = {i: tuple(map(_ref, refs)) for i, refs in state["refs"].items()}
        self.relations = tuple(_new(Relation, (t, _ref(ref), src, text)) for t, ref, src, text in state["relations"])
        self.run_starts = list(map(_run_start, self.runs))
        self._reset()
        self._keys, self._by_key = keys, by_key

    @property
    def texts(self) -> list[str]:
        """The paragraphs' texts, as written. A document loaded from a pickle keeps them as one
        string until they are all asked for (a build reads none; `text(i)` reads one)."""
        texts = self._texts
        if texts is None:
            texts = self._texts = self._joined.split("\0") if self.starts and self._joined is not None else []
            self._joined = self._offsets = None
        return texts

    def text(self, i: int) -> str:
        """Paragraph i's text (without splitting the others out of a loaded document's string)."""
        if self._texts is not None or self._offsets is None or self._joined is None:
            return self.texts[i]
        offsets = self._offsets
        i = i + len(offsets) if i < 0 else i
        end = offsets[i + 1] - 1 if i + 1 < len(offsets) else len(self._joined)
        return self._joined[offsets[i] : end]

    def __len__(self) -> int:
        return len(self.starts)

    def _run(self, i: int) -> int:
        return bisect.bisect_right(self.run_starts, i) - 1

    def _run_keys(self, r: int) -> list[str]:
        keys = self._keys.get(r)
        if keys is None:
            self._compute_keys([r])
            keys = self._keys[r]
        return keys

    def _compute_keys(self, runs: list[int]) -> None:
        """The keys of these runs (not yet computed), their paragraphs hashed together."""
        bounds = self._bounds(runs)
        self._store_keys(runs, bounds, paragraph_hashes(self._run_texts(bounds)), 0)

    def _bounds(self, runs: list[int]) -> list[tuple[int, int]]:
        """[lo, hi) of each run's paragraphs."""
        n, table = len(self.texts), self.runs
        return [(table[r][0], table[r + 1][0] if r + 1 < len(table) else n) for r in runs]

    def _run_texts(self, bounds: list[tuple[int, int]]) -> list[str]:
        if self._texts is None:  # a loaded document: read just these, not split them all out
            return [self.text(i) for lo, hi in bounds for i in range(lo, hi)]
        texts = self._texts
        return [t for lo, hi in bounds for t in texts[lo:hi]]

    def _store_keys(self, runs: list[int], bounds: list[tuple[int, int]], hashes: list[str], at: int) -> int:
        """Store the keys of `runs` from `hashes[at:]` (their paragraphs' hashes, in order);
        returns where the next document's hashes start."""
        table = self.runs
        for r, (lo, hi) in zip(runs, bounds):
            keys = self._keys[r] = section_keys(table[r][1], hashes[at : at + hi - lo])
            self._by_key.update(zip(keys, range(lo, hi)))
            at += hi - lo
        return at

    def warm_keys(self) -> None:
        """Compute the keys the evidence graph asks for: those of the runs (sections) holding a
        paragraph with markers, references or a relation. `split` calls it, so that the keys are
        computed where the splitting happens (in two processes for a large build) and travel
        with the pickled document. `_warm_keys_together` does the same for many documents."""
        todo = self._wanted_runs()
        if todo:
            self._compute_keys(todo)

    def _wanted_runs(self) -> list[int]:
        """The runs `warm_keys` computes (those not computed yet), in order."""
        wanted = itertools.chain(self.markers, self.refs, (r.source for r in self.relations if r.source >= 0))
        runs = set(map(bisect.bisect_right, itertools.repeat(self.run_starts), wanted))  # each run's index + 1
        return [r - 1 for r in sorted(runs) if r - 1 not in self._keys]

    def key(self, i: int) -> str:
        """Paragraph i's key."""
        r = self._run(i)
        return self._run_keys(r)[i - self.runs[r][0]]

    def keys_at(self, indexes: Iterable[int]) -> list[str]:
        """`[self.key(i) for i in indexes]`, in one loop (the graph asks for thousands)."""
        out = []
        runs, run_starts, computed, bisect_right = self.runs, self.run_starts, self._keys, bisect.bisect_right
        for i in indexes:
            r = bisect_right(run_starts, i) - 1
            keys = computed.get(r)
            if keys is None:
                keys = self._run_keys(r)
            out.append(keys[i - runs[r][0]])
        return out

    def section_of(self, i: int) -> str:
        return self.runs[self._run(i)][1]

    def paragraph(self, i: int) -> Paragraph:
        return Paragraph(
            self.key(i),
            self.section_of(i),
            self.text(i),
            self.starts[i],
            self.ends[i],
            i in self.code,
            self.markers.get(i, ()),
            self.refs.get(i, ()),
        )

    @property
    def paragraphs(self) -> tuple[Paragraph, ...]:
        return tuple(self.paragraph(i) for i in range(len(self.texts)))

    def find(self, key: str) -> int | None:
        """The index of the paragraph with this key, or None."""
        hit = self._by_key.get(key)
        if hit is not None:
            return hit
        section = key.rpartition("~")[0]
        for r, (_, name) in enumerate(self.runs):
            if name == section and r not in self._keys:
                self._run_keys(r)
                return self._by_key.get(key)
        return None

    def section(self, key: str) -> Section | None:
        if self._sections is None:
            self._sections = {s.key: s for s in self.sections}
        return self._sections.get(key)

    def children(self, key: str) -> list[tuple[str, str]]:
        """("section" | "paragraph", key) of what section `key` ("" = the document) directly
        contains, in document order."""
        if self._children is None:
            self._children = _children(self)
        out = self._children.get(key, [])
        for r, (lo, name) in enumerate(self.runs):
            if name == key:
                hi = self.runs[r + 1][0] if r + 1 < len(self.runs) else len(self.texts)
                paras = [("paragraph", k) for k in self._run_keys(r)] if hi > lo else []
                return paras + out
        return out


def _children(d: Document) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for s in d.sections:
        out.setdefault(s.parent, []).append(("section", s.key))
    return out
