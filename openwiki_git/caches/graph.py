"""The evidence graph's cache files, under `<git dir>/openwiki-git/` (graph_build decides what
is current; this module only reads and writes).

- `graph.pickle`: three pickles sharing one memo: the header (graph_build's key), the graph, and
  its build log (`graph.buildlog.BuildLog`, read only when the graph is rebuilt). Documents are not in
  it: they are referred to by repository path (pickle's persistent ids).
- `graph.docs.NN.pickle` (NN < PACKS): the split documents and pages, in packs by a hash of their
  path, so that a changed document rewrites one pack, not 30 MB. Each pack starts with a digest
  of its paths and their stat keys, which the header lists: a pack that does not match (a writer
  that raced or crashed) makes the whole cache unusable, and it is rebuilt.
- `graph.parts.pickle`: what graph_build reuses for the claims' check (sidecars, results:
  `graph.claimcheck.Parts`); `text.pickle` (graph.session) and `standing.pickle`
  (graph.doc_standing) are written through `write` and read through `Loader` too.

The cache is derived data: written atomically (store.atomic_write: a temporary file renamed over
the old one, not synced: a torn file fails to unpickle and is rebuilt), and without the writers'
lock.
"""

from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import io
import operator
import pickle
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from openwiki_git.caches import pickling as cachepickle
from openwiki_git.errors import StoreError
from openwiki_git.markdown.document import Document, Paragraph, Section
from openwiki_git.model import Cause, Claim, ClaimResult, Evidence, EvidenceResult, FileText, Mark, Sidecar, Verification
from openwiki_git.store import wiki as store

CACHE_DIR = "openwiki-git"
CACHE_NAME = "graph.pickle"
PARTS_NAME = "graph.parts.pickle"
PACKS = 16


def pack_of(path: str) -> int:
    return zlib.crc32(path.encode("utf-8", "surrogatepass")) % PACKS


def pack_name(n: int) -> str:
    return f"graph.docs.{n:02}.pickle"


def pack_digest(entries: Iterable[tuple[str, Any]]) -> str:
    """The digest a pack is known by: its documents' paths and stat keys."""
    return hashlib.sha1(repr(sorted(entries)).encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


# -- pickling ----------------------------------------------------------------------------------
# Frozen dataclasses unpickle slowly (dataclasses' generic __setstate__); these reducers rebuild
# them through their constructors instead. They apply to this module's picklers only.
def _reducer(cls: type) -> Callable[[Any], tuple[Any, tuple[Any, ...]]]:
    get = operator.attrgetter(*(f.name for f in dataclasses.fields(cls)))
    return lambda obj: (cls, get(obj))


_REDUCERS: dict[type, Callable[[Any], Any]] = {
    cls: _reducer(cls) for cls in (Claim, Evidence, Mark, Cause, Sidecar, Verification, EvidenceResult, ClaimResult)
}


def _packed_doc(path: str) -> Document:
    """Stands for a packed document in graph.pickle; only `_unpickler` resolves it."""
    raise pickle.UnpicklingError(f"{path}: a packed document read without its pack")


def dumps(objects: list[Any], packed: Mapping[int, str] | None = None) -> bytes:
    """The objects as pickles sharing one memo (read back in order by one `Loader`). Documents
    in `packed` (by identity) are written as a reference to their path: a reducer for the
    Document class, not `persistent_id`, which would be a Python call for every object."""
    refs = packed or {}

    def document(d: Document) -> Any:
        path = refs.get(id(d))
        return (_packed_doc, (path,)) if path is not None else d.__reduce_ex__(pickle.HIGHEST_PROTOCOL)

    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, **_REDUCERS, Document: document}
    for obj in objects:
        pickler.dump(obj)
    return buf.getvalue()


# The classes the cache files hold (by pickled name: the graph package's cannot be imported here,
# it is a layer above); any other name in a file is refused and the cache rebuilt, so a cache
# written before a class moved module is rebuilt, not read.
ALLOWED = cachepickle.names(
    Document, Section, Paragraph, Claim, Evidence, Mark, Cause, Sidecar, Verification, FileText, EvidenceResult,
    ClaimResult,
) | {
    ("openwiki_git.graph.core", "Graph"), ("openwiki_git.graph.core", "Unresolved"), ("openwiki_git.graph.core", "Node"),
    ("openwiki_git.graph.build", "_Header"), ("openwiki_git.graph.claimcheck", "Parts"),
    ("openwiki_git.graph.session", "TextCache"), ("openwiki_git.graph.doc_standing", "StandingCache"),
    ("openwiki_git.graph.context", "TextIndex"), ("openwiki_git.graph.buildlog", "BuildLog"),
    ("openwiki_git.graph.search", "Index"), ("openwiki_git.graph.search", "Terms"),
}


def _unpickler(data: bytes, docs: Mapping[str, Document]) -> cachepickle.Unpickler:
    # a packed document is the document of that path in `docs`
    overrides = {(__name__, "_packed_doc"): docs.__getitem__}
    return cachepickle.Unpickler(io.BytesIO(data), "the graph cache", ALLOWED, overrides)


class Loader:
    """Reads the pickles of one file in order, on demand; None when it cannot."""

    def __init__(self, path: Path, docs: Mapping[str, Document] | None = None) -> None:
        try:
            self._unpickler: cachepickle.Unpickler | None = _unpickler(path.read_bytes(), docs or {})
        except OSError:
            self._unpickler = None

    def next(self, kind: type) -> Any:
        if self._unpickler is None:
            return None
        try:
            obj = self._unpickler.load()
        except Exception:  # noqa: BLE001 - an unreadable cache is rebuilt, whatever went wrong
            self._unpickler = None
            return None
        return obj if isinstance(obj, kind) else None


def read_packs(folder: Path, digests: Mapping[int, str]) -> dict[str, Document] | None:
    """Every document of the packs the header lists, by path; None if one is missing or is not
    the pack the header was written with."""
    docs: dict[str, Document] = {}
    for n, digest in digests.items():
        loader = Loader(folder / pack_name(n))
        if loader.next(str) != digest:
            return None
        got = loader.next(dict)
        if got is None:
            return None
        docs.update(got)
    return docs


def write(folder: Path, name: str, data: bytes, git_dir: Path) -> bool:
    """Replace `folder/name` with `data` (store.atomic_write, not synced); False when the git dir
    is read-only."""
    try:
        store.atomic_write(folder / name, data, root=git_dir, sync=False)
    except (OSError, StoreError):
        return False
    return True


def remove(folder: Path) -> bool:
    """Delete every cache file; whether there was one."""
    removed = False
    for name in (CACHE_NAME, PARTS_NAME, *(pack_name(n) for n in range(PACKS))):
        try:
            (folder / name).unlink()
            removed = True
        except FileNotFoundError:
            pass
    return removed
