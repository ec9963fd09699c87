"""`check`'s summary cache: per page, what the last run found, validated by stat as git's index is.

`<git dir>/openwiki-git/check-cache-v2.pickle` (outside version control) holds, per page that has
a sidecar: the stat of the sidecar and of the page, the key of every file its claims cite (stat
and blob id; or "missing", "untracked"; a definition cites its file, a set of lines every file in
its scope), for a set its glob's candidates (the index's files it matches: `sets`) and for a set
of files each candidate's presence (`members`: "present" or "missing"), its counts, the report records of its *notable* claims
(any claim that is not plainly fresh: stale, unresolved, relocated, without its marker, due, with
a note) but for those plain except for a missing marker (their ids only, `unmarked`: a wiki
without markers would otherwise store a record per claim), its claim ids (the cross-page
duplicate check) and when a due verdict may next change.
A plain fresh claim is not stored at all: its report record follows from its sidecar alone
(`claims/records.fresh_record_data`). So the cache is small (a few bytes per plain claim) and bounded
(at most check_reuse.MAX_NOTABLE notable records are kept; pages beyond are judged again on each run).

Two ways to use it:

- `answer()`: when nothing changed (the index file, every sidecar, page and cited file, the
  config file and the code have the stat recorded), the report is answered from the cache
  without git, pygit2 or any sidecar parse: this module imports only the standard library.
- `check_reuse.reuse_or_judge()`: with a Workspace, each page whose keys still hold keeps its entry; only
  the others are loaded and judged again. A file whose stat changed but whose blob did not
  (touched, checked out again) keeps its pages' entries. This module holds the keys, the file and
  the fast answer; check_reuse.py, above it, the judging.

What keeps an answer from the cache equal to a fresh one:

- Racy files (git's racy-index rule, caches/statkey.py): a stat whose mtime or ctime is less than
  RACY_NS before the check *started* (or later) is never stored, because an edit within the same
  timestamp tick would leave it unchanged; a page that depends on one is judged again next time.
- Tracking: the index file's stat is recorded; when it changed (`git add`, `git status`), every
  cited path's tracking, and every set's candidates, are looked up again in git's index before an
  entry is reused. Runs with
  GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE or GIT_COMMON_DIR set never take the fast answer.
- Only files whose git text is exactly their bytes on disk are keyed (no CR at all, valid UTF-8),
  so `.gitattributes` or `core.autocrlf`, which leave a file's stat alone, cannot make an entry
  wrong. Symlinks, and paths through a symlinked directory, are never keyed.
- The whole cache is keyed on FORMAT, `__version__`, the stat of the package's modules (an
  editable install changes code without changing the version), the config file's stat, the
  wiki directory's presence, `--wiki-dir`, the work tree, the git directory and site mode (the
  records' markers' form: caches/site.py). Any difference: every page is judged again.
- Due verdicts depend on the clock: an entry records the first instant at which one of its
  claims' `due` may change, and is not used from then on (nor when the clock went back).
- It is read with cachepickle's unpickler allowing no class (only builtin containers and scalars),
  so a tampered file cannot run code; a file that cannot be read, is of another format or holds
  anything unexpected is ignored and rebuilt, never an error.
- It is written atomically (`store.atomic_write`) and only when it changed, without the writers'
  lock (derived data: the last writer wins); a read-only git directory just means no cache.
"""

from __future__ import annotations

import contextlib
import gc
import os
import stat
import time
from collections.abc import Iterator

from openwiki_git import __version__
from openwiki_git.caches.site import site_found
from openwiki_git.caches.statkey import StatKey, lstat_file, stat_or_none
from openwiki_git.formats import pagenames
from openwiki_git.store import listing

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:  # pathlib (with fnmatch and urllib) is a good part of a warm check's imports
    from pathlib import Path
    from typing import Any

CACHE_NAME = "check-cache-v2.pickle"
FORMAT = 2
GIT_ENV = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES")
CONFIG_FILE = (".openwiki", "config.yml")  # config.config_path, without importing config
# The modules whose code decides what an entry holds (a verdict, a report record, a finding),
# relative to the package root: their stats are part of the key, so that a change to any of them
# (an upgrade, an edit in a checkout) invalidates every entry. Every module these import, however
# indirectly, is one of them (test_check_entries derives the closure): about 80 stats, 0.25 ms.
CODE = (
    "caches/check_entries", "caches/check_keys", "caches/check_reuse", "caches/cite_bytes", "caches/cites", "caches/graph",
    "caches/pickling", "caches/site", "caches/statkey", "claims/accepts", "claims/causes", "claims/diff_texts",
    "claims/docstring_edits", "claims/due", "claims/example_calls", "claims/examples", "claims/fix", "claims/freshness",
    "claims/kinds", "claims/outcomes", "claims/part", "claims/policy", "claims/records", "claims/relevance", "claims/sentence",
    "claims/signature_edits", "claims/staleness", "claims/symbols", "diff/cosmetic", "diff/hunks", "diff/signatures",
    "diff/requirements", "diff/units", "errors", "evidence/canonical", "evidence/definitions", "evidence/docstrings", "evidence/kinds",
    "evidence/relocation", "evidence/resolver", "evidence/resource", "evidence/tokens", "evidence/treesitter",
    "formats/flatconfig", "formats/pagenames", "formats/schema", "formats/sidecar", "formats/sidecar_common", "formats/siteconf",
    "formats/timestamps", "formats/yamlio", "git/diff", "git/repo", "git/tracked", "graph/build", "graph/buildlog",
    "graph/citestale", "graph/claim_graph", "graph/claimcheck", "graph/core", "graph/doc_standing", "graph/documents",
    "graph/inputs", "graph/link", "graph/refs", "graph/search", "graph/split", "ground/broken", "ground/continuation",
    "ground/dependencies",
    "ground/deterministic", "ground/dispatch", "ground/example_evidence", "ground/examples", "ground/index", "ground/installs",
    "ground/names", "ground/pageformat", "ground/planned", "ground/proves", "ground/refs", "ground/resolve", "ground/scope",
    "ground/sources",
    "ground/subcommands", "ground/subject",
    "hook/engine",
    "markdown/blocks", "markdown/builder", "markdown/document", "markdown/keys", "markdown/refs", "markdown/refscan",
    "markdown/relations", "markdown/rstdoc", "markdown/split", "model", "pages/badge", "pages/citations", "pages/example_reader",
    "pages/examples", "pages/frontmatter", "pages/frontmatter_core", "pages/indexes", "pages/labels", "pages/markers",
    "pages/okf", "pages/rst", "pages/rst_examples", "pages/rst_markers", "pages/sentences", "parallel", "services/check_chain",
    "services/check_examples", "services/check_report", "services/check_unchanged", "store/config", "store/editing",
    "store/listing", "store/locking", "store/site", "store/wiki", "store/workspace",
)

if TYPE_CHECKING:
    Loaded = tuple[str, str, Any, int]  # load(): work tree, git directory, the cache's data (or None), started_ns
    # A cited file's key: (mtime, size, ino, ctime, blob) of a tracked verbatim file, or "missing"
    # (tracked, not on disk) or "untracked"; those two follow from the index alone.
    FileKey = Any
    Entry = dict[str, Any]  # sidecar, page, files, summary, notable, unmarked, ids, until, findings


def grammars_key(modules: Any) -> tuple[Any, ...]:
    """Where each of `modules` would be imported from now, and that file's stat (None: not found):
    what a definition read through tree-sitter depends on besides its file. Found, not imported."""
    import importlib.util

    out = []
    for name in modules:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        out.append((name, origin, stat_or_none(origin) if origin else None))
    return tuple(out)


def code_key() -> tuple[Any, ...]:
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return tuple(stat_or_none(os.path.join(package, *name.split("/")) + ".py") for name in CODE)


def cache_key(root: str, git_dir: str, wiki_dir_arg: str | None) -> tuple[Any, ...]:
    """Everything besides the wiki's and the cited files' own stats that an entry depends on."""
    top = os.path.join(root, CONFIG_FILE[0])
    config = lstat_file(os.path.join(top, CONFIG_FILE[1]))
    dirs = (os.path.isdir(top), os.path.isdir(os.path.join(root, "openwiki")))
    return (FORMAT, __version__, code_key(), root, git_dir, wiki_dir_arg, config, dirs)


# -- the file -------------------------------------------------------------------------------------
def read(path: str | Path) -> dict[str, Any] | None:
    """The cached data, or None when missing, unreadable, refused or malformed."""
    from openwiki_git.caches import pickling as cachepickle  # here: check --no-cache imports no pickle

    try:
        with open(path, "rb") as fh, no_gc():
            data = cachepickle.Unpickler(fh, "the check cache").load()  # no class at all
    except Exception:  # noqa: BLE001 - whatever is wrong with the file, the cache is rebuilt
        return None
    if type(data) is not dict or data.get("format") != FORMAT or type(data.get("pages")) is not dict or type(data.get("root")) is not str:
        return None
    for page, entry in data["pages"].items():
        if type(page) is not str or type(entry) is not dict or not _ENTRY_KEYS <= entry.keys():
            return None
        if ("sets" in entry or "members" in entry) and not (type(entry.get("sets")) is dict and type(entry.get("members")) is dict):
            return None
        if "grammars" in entry and not _grammars_valid(entry["grammars"]):
            return None
    return data


def _grammars_valid(recorded: Any) -> bool:
    """A grammars_key() as pickled: a tuple of (name, origin, stat) tuples, all hashable."""
    try:
        hash(recorded)
    except TypeError:
        return False
    return type(recorded) is tuple and all(type(g) is tuple and len(g) == 3 and type(g[0]) is str for g in recorded)


_ENTRY_KEYS = frozenset({"sidecar", "page", "files", "summary", "notable", "unmarked", "ids", "until", "findings"})


def dumps(data: dict[str, Any]) -> bytes:
    import pickle

    return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)


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
            # What was allocated meanwhile goes to the oldest generation unscanned (freeze, then
            # unfreeze: documented, and two list splices): enabled with all of it still young,
            # the collector's next pass would walk every record once more (20-35 ms of a
            # `check --base` at 100,000 claims) before the command ends. Cycles among them are
            # still collected, by a full collection.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


# -- the fast answer: nothing changed --------------------------------------------------------------
def locate(start: str | None) -> tuple[str, str, str] | None:
    """(work tree, git directory, common git directory) found as git discovers them, without
    pygit2; None when unsure (an environment override, a bare or foreign-owned repository)."""
    if any(name in os.environ for name in GIT_ENV):
        return None
    here = os.path.realpath(start or os.getcwd())
    while True:
        dot = os.path.join(here, ".git")
        try:
            st = os.lstat(dot)
        except OSError:
            st = None
        if st is not None:
            break
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
    if stat.S_ISDIR(st.st_mode):
        git_dir = dot
    elif stat.S_ISREG(st.st_mode):
        try:
            with open(dot, encoding="utf-8") as fh:
                line = fh.read().strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not line.startswith("gitdir: "):
            return None
        git_dir = os.path.realpath(os.path.join(here, line[len("gitdir: ") :]))
    else:
        return None
    common = git_dir
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = os.path.realpath(os.path.join(git_dir, fh.read().strip()))
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return None
    try:
        if os.stat(git_dir).st_uid != os.getuid():
            return None  # git's safe.directory rule: let pygit2 decide
    except OSError:
        return None
    return here, git_dir, common


def file_key_now(root: str, path: str, real_dirs: dict[str, str]) -> StatKey | None:
    """The stat of a cited file as the working-tree reader would accept it: a regular file, no
    symlink, not reached through a symlinked directory; else None."""
    full = os.path.join(root, path)
    if (st := lstat_file(full)) is None:
        return None
    parent, _, name = path.rpartition("/")
    real_dir = real_dirs.get(parent)
    if real_dir is None:
        real_dir = real_dirs[parent] = os.path.realpath(os.path.join(root, parent))
    return st if os.path.join(real_dir, name) == full else None


def file_holds(root: str, path: str, key: FileKey, real_dirs: dict[str, str]) -> bool:
    """Whether a recorded file key still holds for the file now (the index unchanged)."""
    if key == "untracked":
        return True  # not read from disk at all: only the index decides
    if key == "missing":
        return not os.path.lexists(os.path.join(root, path))
    if key == "present":  # a set of files' candidate: there, whatever it holds
        return file_key_now(root, path, real_dirs) is not None
    return file_key_now(root, path, real_dirs) == key[:4]


def load(start: str | None) -> Loaded | None:
    """(work tree, git directory, the cache's data or None, when the run started) of the
    repository at `start`: the cache file read once for answer() and then trusted_location()."""
    started_ns = time.time_ns()  # before anything is read: the racy rule measures from here
    if (found := locate(start)) is None:
        return None
    root, git_dir, _ = found
    return root, git_dir, read(os.path.join(git_dir, "openwiki-git", CACHE_NAME)), started_ns


def trusted_location(start: str | None, loaded: Loaded | None = None) -> tuple[str, str, frozenset[str], dict[str, Any]] | None:
    """(work tree, git directory, tracked paths, cached data) when the cache vouches for them:
    the repository found without pygit2 where a pygit2-opened run recorded it (every cache key
    starts from one: a run without a cache opens git), and the index file unchanged since the
    recorded paths were tracked. Else None: open the repository with pygit2."""
    loaded = loaded or load(start)
    if loaded is None:
        return None
    root, git_dir, data, _ = loaded
    # The key's first five: FORMAT, version, code, work tree, git directory (cache_key), as recorded.
    if data is None or data.get("key", ())[:5] != cache_key(root, git_dir, None)[:5] or data.get("index") is None:
        return None
    if data.get("index_path") != os.path.join(git_dir, "index") or lstat_file(data["index_path"]) != data["index"]:
        return None
    tracked = frozenset(p for e in data["pages"].values() for p, k in e["files"].items() if k != "untracked")
    tracked |= {p for e in data["pages"].values() for p in e.get("members", ())}
    return root, git_dir, tracked, data


def answer(start: str | None, wiki_dir_arg: str | None, loaded: Loaded | None = None) -> dict[str, Any] | None:
    """The cached data when nothing it depends on changed, else None (judge with a Workspace).
    `loaded`: what load() read, when the caller has read it."""
    loaded = loaded or load(start)
    if loaded is None:
        return None
    root, git_dir, data, started_ns = loaded
    if data is None or data.get("key") != cache_key(root, git_dir, wiki_dir_arg) or data.get("index") is None:
        return None
    if data["index_path"] != os.path.join(git_dir, "index"):
        return None
    if lstat_file(data["index_path"]) != data["index"] or started_ns < data.get("written_ns", 0):
        return None
    wiki = os.path.join(root, data["wiki_dir"])
    claims = pagenames.claims_folder(wiki)
    if os.path.islink(wiki) or os.path.islink(claims) or not os.path.isdir(claims):
        return None  # whatever the full path says of a missing wiki, it says it
    if data.get("site_found") != site_found(root, data["wiki_dir"]):
        return None  # a site configuration came, went or changed: site mode may have
    pages = data["pages"]
    listed = listing.sidecar_pages_or_none(claims)  # as Wiki.sidecar_pages lists them, when it would without a word
    if listed is None or listed != sorted(pages):
        return None
    now = time.time()
    files: dict[str, Any] = {}
    members: dict[str, str] = {}
    grammar_keys: dict[Any, bool] = {}
    for page in listed:
        entry = pages[page]
        side = lstat_file(pagenames.sidecar_path(wiki, page))
        if side is None or side != entry["sidecar"] or stat_or_none(os.path.join(wiki, page)) != entry["page"]:
            return None
        if entry["until"] is not None and now >= entry["until"]:
            return None
        for path, key in entry["files"].items():
            if files.get(path, key) != key:
                return None
            files[path] = key
        grammars = entry.get("grammars")
        if grammars is not None:
            if grammars not in grammar_keys:
                grammar_keys[grammars] = grammars_key(name for name, *_ in grammars) == grammars
            if not grammar_keys[grammars]:
                return None
        for path, key in entry.get("members", {}).items():  # a set's candidates (the index names them)
            if members.get(path, key) != key:
                return None
            members[path] = key
    real_dirs: dict[str, str] = {}
    for path, key in files.items():
        if not file_holds(root, path, key, real_dirs):
            return None
    for path, key in members.items():
        if not file_holds(root, path, key, real_dirs):
            return None
    return data
