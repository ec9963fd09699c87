"""`check`'s persistent cache, validated by stat in the spirit of git's own index.

`<git dir>/openwiki-git/check-cache-v1.pickle` (outside version control) keeps:

- parsed sidecars, by page and the sidecar file's stat (mtime, size, inode, ctime; in OpenWiki
  mode also the page's stat, since the marks live in its front matter): an unchanged sidecar is
  not parsed again. A changed one goes through `Wiki.load` as always (errors exit 2), and
  `Wiki.load_all` still checks claim ids across every page.
- the working tree's evidence results, by cited path and the file's stat, with its blob id: an
  unchanged file is neither read nor hashed. A file whose stat changed but whose blob did not
  (touched, checked out again) is read once and none of its claims is re-hashed.

What keeps an answer from the cache equal to a fresh one:

- Racy files (git's racy-index rule): an entry whose mtime or ctime is less than RACY_NS before
  the check *started* (or later) is never stored, because an edit within the same timestamp tick
  would leave the stat unchanged. Measured from the start, not from the write: a file read early
  in a long check must be as old as that.
- Tracking: each cited path is looked up in git's index now (what `check` does anyway; the index
  is loaded once), instead of keying the cache on the index file, which `git status` and `git add`
  of any file rewrite. A file that stops being tracked is never answered from the cache, and the
  `GIT_INDEX_FILE` of a hook is honoured.
- Only files whose git text is exactly their bytes on disk are kept (no CRLF conversion, valid
  UTF-8), so a change to `.gitattributes` or `core.autocrlf`, which leaves the file's stat alone,
  cannot make an entry wrong. Symlinks, and paths through a symlinked directory, are never kept.
- The whole cache is keyed on FORMAT, `__version__`, the stat of the modules that compute the
  results (an editable install changes code without changing the version), the work tree, the
  wiki directory, `max_growth`, the range growth bound and OpenWiki mode. Any difference: the cache is rebuilt.
- It is read with a restricted unpickler that builds only `openwiki_git.model` records and
  builtin containers, so a tampered file cannot run code; a file that cannot be read, is of
  another format or holds anything unexpected is ignored and rebuilt, never an error.
- It is written atomically (`store.atomic_write`) and only when it changed, without the writers'
  lock (derived data: the last writer wins); a read-only git directory just means no cache.
"""

from __future__ import annotations

import builtins
import contextlib
import copyreg
import dataclasses
import gc
import io
import operator
import os
import pickle
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openwiki_git import __version__, checker, compat, cosmetic, diffmap, git, model, sidecar, store
from openwiki_git.checker import EvidenceResolver
from openwiki_git.errors import OpenwikiError
from openwiki_git.model import EvidenceResult, FileText, Sidecar
from openwiki_git.workspace import Workspace

CACHE_NAME = "check-cache-v1.pickle"
FORMAT = 1
RACY_NS = 2_000_000_000  # git's racy window is one timestamp tick; 2 s covers FAT and coarse clocks

StatKey = tuple[int, int, int, int]  # st_mtime_ns, st_size, st_ino, st_ctime_ns
Pair = tuple[str, str]  # (resource, version), as the resolver is asked
SidecarEntry = tuple[tuple[StatKey, StatKey | None], Sidecar]  # (sidecar stat, page stat), parsed
FileEntry = tuple[StatKey, str, dict[Pair, EvidenceResult]]  # stat, blob id, results

# What the unpickler may build: the records themselves and plain containers, nothing callable.
_MODEL_CLASSES = (
    model.Evidence, model.Cause, model.Mark, model.Claim, model.Verification, model.Sidecar, model.EvidenceResult,
)
_ALLOWED = {("openwiki_git.model", cls.__name__): cls for cls in _MODEL_CLASSES}
_ALLOWED.update({("builtins", name): getattr(builtins, name) for name in ("tuple", "list", "dict", "set", "frozenset")})


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


class CheckCache:
    """One check's view of the cache: what was read from disk, and what this run confirmed or
    learnt, which `save()` writes back when it differs."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.path = ws.cache_path(CACHE_NAME)
        self.started_ns = time.time_ns()  # before any stat or read of this run (the racy rule)
        self.key = cache_key(ws)
        self.old_sidecars, self.old_files = read(self.path, self.key)
        self.sidecars: dict[str, SidecarEntry] = {}  # what this run keeps
        self.loaded: list[Sidecar] = []  # every sidecar this run loaded, kept or not
        self.worktree: CachedResolver | None = None

    def racy(self, *stats: StatKey | None) -> bool:
        """Whether a file may still change without its stat showing it (git's racy rule)."""
        limit = self.started_ns - RACY_NS
        return any(s is not None and max(s[0], s[3]) >= limit for s in stats)

    def load_sidecar(self, page: str) -> Sidecar | None:
        """`Wiki.load(page)`, from the cache while the sidecar's stat is unchanged."""
        wiki = self.ws.wiki
        own = _lstat_file(wiki.sidecar_path(page))  # None: missing, a link...: Wiki.load says what is wrong
        page_stat = _stat_or_none(wiki.page_path(page)) if wiki.config.strict_openwiki else None
        key = None if own is None else (own, page_stat)
        hit = self.old_sidecars.get(page) if key is not None else None
        if hit is not None and hit[0] == key:
            self.sidecars[page] = hit
            loaded: Sidecar | None = hit[1]
        else:
            loaded = wiki.load(page)
            if loaded is not None and key is not None and not self.racy(*key):
                self.sidecars[page] = (key, loaded)
        if loaded is not None:
            self.loaded.append(loaded)
        return loaded

    def resolver(self, source: str) -> EvidenceResolver:
        """The resolver for `source`; answered from the cache for the working tree only."""
        if source != "worktree":
            return self.ws.resolver(source)
        self.worktree = CachedResolver(self)
        return self.worktree

    def save(self, *, partial: bool = False) -> bool:
        """Write what this run confirmed or learnt, when it differs from what was read; whether it
        wrote. `partial` (a --page check): files this run did not cite keep their entries."""
        files = self.worktree.entries() if self.worktree is not None else {}
        if partial or self.worktree is None:
            visited = self.worktree.paths if self.worktree is not None else {}
            files = {**{p: e for p, e in self.old_files.items() if p not in visited}, **files}
        sidecars_changed = _changed(self.old_sidecars, self.sidecars)
        if sidecars_changed and self.old_files:  # evidence may no longer be cited: drop its results
            cited = {(e.resource, e.version) for sc in self.loaded for c in sc.claims for e in c.evidence}
            files = _prune(files, cited)
        if not (sidecars_changed or _changed(self.old_files, files)):
            return False
        data = {"key": self.key, "sidecars": self.sidecars, "files": files}
        try:
            store.atomic_write(self.path, dumps(data), root=self.ws.repo.git_dir)
        except (OSError, OpenwikiError):
            return False  # a read-only git directory, or a link in the way: check without a cache
        return True


@dataclass
class _PathState:
    """One cited file during a run: its stat when the cache may answer for it, the cached entry
    whose results still hold (if any), and the results resolved this run."""

    stat: StatKey | None
    entry: FileEntry | None
    new: dict[Pair, EvidenceResult] = field(default_factory=dict)


class CachedResolver(EvidenceResolver):
    """The checker's working-tree resolver, answering from the results cached for a file while
    the file's stat is unchanged and it is still tracked. A file is judged the first time one of
    its pairs is asked; its cached results then answer every later pair without a call here."""

    def __init__(self, cache: CheckCache) -> None:
        ws = cache.ws
        growth = (ws.config.range_growth_factor, ws.config.range_growth_lines)
        super().__init__(ws.reader("worktree"), max_growth=ws.config.max_growth, growth=growth)
        ws.configure(self)
        self.cache = cache
        self.repo = ws.repo
        self.paths: dict[str, _PathState] = {}
        self._real_root = os.path.realpath(ws.repo.root)
        self._real_dirs: dict[str, str] = {}

    def _resolve(self, resource: str, version: str, blob: str | None = None) -> EvidenceResult:
        path = _path_of(resource)
        if path is None:
            return super()._resolve(resource, version, blob)
        state = self._state(path)
        key = self.key(resource, version, blob)  # with the blob when a cosmetic verdict is cached
        result = state.entry[2].get(key) if state.entry is not None else None  # type: ignore[call-overload]
        if result is None:
            result = state.new[key] = super()._resolve(resource, version, blob)  # type: ignore[index]
        return result

    def _state(self, path: str) -> _PathState:
        state = self.paths.get(path)
        if state is None:
            st = self._worktree_stat(path)
            entry = self.cache.old_files.get(path) if st is not None else None
            if entry is not None and entry[0] != st and self.read(path).blob != entry[1]:
                entry = None  # changed; a file merely touched keeps its results (same blob, same text)
            if entry is not None:
                self.remember(entry[2])
            state = self.paths[path] = _PathState(st, entry)
        return state

    def _worktree_stat(self, path: str) -> StatKey | None:
        """The file's stat when the cache may answer for it: tracked now, a regular file, not
        reached through a symlinked directory (what git.Repo._read_worktree requires to read it)."""
        if not self.repo.is_tracked(path):
            return None
        full = os.path.join(self._real_root, path)  # POSIX: the path's "/" are the separators
        st = _lstat_file(full)
        parent, _, name = path.rpartition("/")
        real_dir = self._real_dirs.get(parent)
        if real_dir is None:
            real_dir = self._real_dirs[parent] = os.path.realpath(os.path.join(self._real_root, parent))
        return st if os.path.join(real_dir, name) == full else None

    def entries(self) -> dict[str, FileEntry]:
        """The entries to keep for the files cited this run, when their results may be reused."""
        out = {}
        for path, state in self.paths.items():
            entry = self._entry(path, state)
            if entry is not None:
                out[path] = entry
        return out

    def _entry(self, path: str, state: _PathState) -> FileEntry | None:
        if state.stat is None or self.cache.racy(state.stat):
            return None
        old = state.entry
        if old is not None and old[0] == state.stat and not state.new:
            return old  # the same object: nothing to write
        ft = self.texts.get(path)  # read this run: the stat changed or some pair was new
        if ft is None or not _verbatim(ft, state.stat[1]):
            return None
        results = {**old[2], **state.new} if old is not None else state.new
        return (state.stat, ft.blob, results)  # type: ignore[return-value]


def _path_of(resource: str) -> str | None:
    """The repository path a resource cites, parsed as the resolver parses it (None: invalid)."""
    plain = sidecar.plain_parts(resource)
    if plain is not None:
        return plain[0]
    try:
        return compat.parse_resource(resource, wiki_dir="\0").path
    except compat.ResourceError:
        return None


def _verbatim(ft: FileText, size: int) -> bool:
    """Whether git's text of the file is its bytes on disk: no CRLF conversion (no CR at all) and
    valid UTF-8 (no replacement character), hence as many bytes as the file has. Only then do the
    results follow from the file's bytes alone, not from attributes that can change around it."""
    text = ft.text
    if text is None or ft.blob is None or "\r" in text or "\ufffd" in text:
        return False
    return len(text.encode("utf-8")) == size


def _lstat_file(path: str | Path) -> StatKey | None:
    """The stat of a regular file that is no symlink, else None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return stat_key(st) if stat.S_ISREG(st.st_mode) else None


def _stat_or_none(path: Path) -> StatKey | None:
    try:
        return stat_key(os.stat(path))
    except OSError:
        return None


def _prune(files: dict[str, FileEntry], cited: set[Pair]) -> dict[str, FileEntry]:
    """The entries with only the results of evidence some sidecar still cites."""
    out = {}
    for path, (st, blob, results) in files.items():
        keep = {pair: r for pair, r in results.items() if pair[:2] in cited}
        if keep:
            out[path] = files[path] if len(keep) == len(results) else (st, blob, keep)
    return out


def _changed(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether `new` differs from `old`; an entry that still holds is the same object."""
    return old.keys() != new.keys() or any(new[k] is not old[k] for k in new)


def cache_key(ws: Workspace) -> tuple[Any, ...]:
    """Everything besides the files themselves that the cached sidecars and results depend on."""
    code = []
    for module in (compat, checker, cosmetic, diffmap, sidecar, model, git, store, sys.modules[__name__]):
        try:
            st = os.stat(module.__file__ or "")
        except OSError:
            st = None
        code.append((st.st_mtime_ns, st.st_size) if st is not None else None)
    config = ws.config
    return (FORMAT, __version__, tuple(code), str(ws.repo.root), config.wiki_dir, config.max_growth,
            config.strict_openwiki, config.range_growth_factor, config.range_growth_lines,
            config.cosmetic_edits, config.cosmetic_annotations)


# -- the file ----------------------------------------------------------------------------------
class _Unpickler(pickle.Unpickler):
    """Builds only the records of model.py and builtin containers: anything else that a pickle
    names (os.system, builtins.eval, ...) is refused before it can be called."""

    def find_class(self, module: str, name: str) -> Any:
        cls = _ALLOWED.get((module, name))
        if cls is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in the check cache")
        return cls


def read(path: Path, key: tuple[Any, ...]) -> tuple[dict[str, SidecarEntry], dict[str, FileEntry]]:
    """The cached sidecars and files, or two empty dicts when the cache is missing, unreadable,
    refused, of another key or malformed."""
    try:
        with open(path, "rb") as fh, no_gc():
            data = _Unpickler(fh).load()
    except Exception:  # noqa: BLE001 - whatever is wrong with the file, the cache is rebuilt
        return {}, {}
    if type(data) is not dict or data.get("key") != key:
        return {}, {}
    sidecars, files = data.get("sidecars"), data.get("files")
    if not (_valid_sidecars(sidecars) and _valid_files(files)):
        return {}, {}
    return sidecars, files  # type: ignore[return-value]


def _valid_sidecars(entries: Any) -> bool:
    return type(entries) is dict and all(
        type(page) is str and type(e) is tuple and len(e) == 2 and type(e[1]) is Sidecar
        for page, e in entries.items()
    )


def _valid_files(entries: Any) -> bool:
    return type(entries) is dict and all(
        type(path) is str and type(e) is tuple and len(e) == 3 and type(e[1]) is str and type(e[2]) is dict
        and all(type(r) is EvidenceResult for r in e[2].values())
        for path, e in entries.items()
    )


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Unpickling (and checking) builds tens of thousands of records and no reference cycles: the
    cyclic collector's passes over them would cost a good part of the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _reducer(cls: type) -> Callable[[Any], tuple[Any, tuple[Any, ...]]]:
    """Pickle a frozen dataclass as a call of its constructor: far faster to load than the generic
    __setstate__ of a slotted dataclass."""
    get = operator.attrgetter(*(f.name for f in dataclasses.fields(cls)))
    return lambda obj: (cls, get(obj))


_REDUCERS = {cls: _reducer(cls) for cls in _MODEL_CLASSES}


def dumps(data: dict[str, Any]) -> bytes:
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, **_REDUCERS}
    pickler.dump(data)
    return buf.getvalue()
