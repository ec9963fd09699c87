"""The diff engine's git side: pygit2 diffs turned into our own records (`diffmap.FileChange`).

Three pairs of sides, all with zero context lines, git's indent heuristic and rename detection
(`find_similar`, threshold from the config's `rename_threshold`):

- `staged(repo)`: HEAD -> the index (the pre-commit hook). The index is the one git uses for this
  commit: `GIT_INDEX_FILE` is honoured (`git commit <paths>` runs hooks on a temporary index).
  With no HEAD (the first commit) every index entry is an added file.
- `between(repo, old, new)`: one revision -> another (CI, pre-push, `check --base`).
- `merge_base(repo, a, b)`: the commit `check --base` measures from.

A side is named by a `Side`: a commit id or "index"; `Side.read(repo, path)` gives a file's text
there, as git stores it (no working tree, so line endings never matter).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import pygit2

from openwiki_git.diff.hunks import FileChange, Hunk
from openwiki_git.errors import GitError
from openwiki_git.evidence.resource import REPO_PREFIX, ResourceError, parse_resource, plain_parts
from openwiki_git.git.repo import Repo
from openwiki_git.model import FileText

INDEX = "index"
_NULL = "0" * 40
_STATUS = {
    pygit2.enums.DeltaStatus.ADDED: "added",
    pygit2.enums.DeltaStatus.DELETED: "deleted",
    pygit2.enums.DeltaStatus.MODIFIED: "modified",
    pygit2.enums.DeltaStatus.RENAMED: "renamed",
    pygit2.enums.DeltaStatus.COPIED: "copied",
    pygit2.enums.DeltaStatus.TYPECHANGE: "typechange",
}


@dataclass(frozen=True, slots=True)
class Diff:
    """The changes from side `old` (a commit id, None: nothing) to side `new` (a commit id or
    "index")."""

    old: str | None
    new: str
    changes: tuple[FileChange, ...]

    def by_old_path(self) -> dict[str, FileChange]:
        return {c.old_path: c for c in self.changes if c.old_path is not None}

    def by_new_path(self) -> dict[str, FileChange]:
        return {c.new_path: c for c in self.changes if c.new_path is not None}


def _options() -> pygit2.enums.DiffOption:
    o = pygit2.enums.DiffOption
    return o.INDENT_HEURISTIC | o.INCLUDE_TYPECHANGE


def _records(diff: pygit2.Diff, rename_threshold: int) -> tuple[FileChange, ...]:
    diff.find_similar(flags=pygit2.enums.DiffFind.FIND_RENAMES, rename_threshold=rename_threshold)
    out = []
    for patch in diff:
        if patch is None:  # pragma: no cover - libgit2 gives None only for unmodified entries
            continue
        d = patch.delta
        status = _STATUS.get(d.status)
        if status is None:
            continue
        added, deleted = status == "added", status == "deleted"
        old_id, new_id = str(d.old_file.id), str(d.new_file.id)
        out.append(
            FileChange(
                status=status,
                old_path=None if added else d.old_file.path,
                new_path=None if deleted else d.new_file.path,
                old_blob=None if added or old_id == _NULL else old_id,
                new_blob=None if deleted or new_id == _NULL else new_id,
                old_mode=0 if added else int(d.old_file.mode),
                new_mode=0 if deleted else int(d.new_file.mode),
                hunks=tuple(Hunk(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in patch.hunks),
                binary=bool(d.is_binary),
                similarity=int(d.similarity),
            )
        )
    return tuple(out)


def _tree(repo: Repo, commit: str) -> pygit2.Tree:
    """A commit's tree, looked up once per commit (the hook asks for it once per sidecar)."""
    tree = repo._trees.get(commit)
    if tree is None:
        obj = repo.pygit2.get(commit)
        if not isinstance(obj, pygit2.Commit):
            raise GitError(f"{commit}: not a commit")
        tree = repo._trees[commit] = obj.tree
    return tree


def staged(repo: Repo, *, rename_threshold: int = 50) -> Diff:
    """HEAD -> the index git is committing (GIT_INDEX_FILE honoured)."""
    head = repo.head()
    index = repo.index
    if head is None:
        changes = tuple(
            FileChange("added", None, e.path, None, str(e.id), 0, int(e.mode)) for e in index
        )
        return Diff(None, INDEX, changes)
    diff = index.diff_to_tree(_tree(repo, head), flags=_options(), context_lines=0, interhunk_lines=0)
    return Diff(head, INDEX, _records(diff, rename_threshold))


def between(repo: Repo, old: str | None, new: str, *, rename_threshold: int = 50) -> Diff:
    """Commit `old` (None: the empty tree) -> commit `new`; both already resolved to ids."""
    new_tree = _tree(repo, new)
    if old is None:
        diff = new_tree.diff_to_tree(flags=_options(), context_lines=0, interhunk_lines=0, swap=True)
    else:
        diff = _tree(repo, old).diff_to_tree(new_tree, flags=_options(), context_lines=0, interhunk_lines=0)
    return Diff(old, new, _records(diff, rename_threshold))


def merge_base(repo: Repo, a: str, b: str) -> str | None:
    """The best common ancestor of two commits (ids), None when they share no history."""
    found = repo.pygit2.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b))
    return None if found is None else str(found)


def read(repo: Repo, side: str | None, path: str) -> FileText:
    """A file's text on a side: "index", a commit id, or None (the empty side)."""
    if side is None:
        return FileText(path, None, problem="missing")
    return repo.read(path, side)


def tree_entry_id(repo: Repo, commit: str | None, path: str) -> str | None:
    """The object id at `path` (a file or a directory) in a commit's tree, None if absent."""
    if commit is None:
        return None
    try:
        return str(_tree(repo, commit)[path].id)
    except KeyError:
        return None


def blob_at(repo: Repo, commit: str | None, path: str) -> tuple[str, bytes] | None:
    """(blob id, bytes) of a regular file at `path` in a commit, None when there is none."""
    blob_id = blob_id_at(repo, commit, path)
    if blob_id is None:
        return None
    obj = repo.pygit2.get(blob_id)
    return (blob_id, obj.data) if isinstance(obj, pygit2.Blob) else None


def blob_id_at(repo: Repo, commit: str | None, path: str) -> str | None:
    """The blob id of a file at `path` in a commit, None when there is none (or it is a
    directory or a submodule), without reading the blob: the hook compares ids first and reads
    only the sidecars that differ."""
    if commit is None:
        return None
    folder, _, name = path.rpartition("/")
    key = f"{commit}:{folder}"  # a folder's tree, looked up once (the hook asks for its sidecars)
    tree = repo._trees.get(key)
    try:
        if tree is None:
            got = repo.pygit2.get(_tree(repo, commit)[folder].id) if folder else _tree(repo, commit)
            if not isinstance(got, pygit2.Tree):
                return None
            tree = repo._trees[key] = got
        entry = tree[name]
    except KeyError:
        return None
    return str(entry.id) if entry.type_str == "blob" else None


# ---------------------------------------------------------------------------------------------
# Which sidecars cite a file: a reverse index cached under the git dir
# ---------------------------------------------------------------------------------------------


def cited_paths(data: bytes) -> set[str]:
    """The repository paths a sidecar's evidence cites (unparseable parts are skipped)."""
    try:
        doc = json.loads(data)
        claims = doc.get("claims", []) if isinstance(doc, dict) else []
    except (ValueError, UnicodeDecodeError):
        return set()
    out: set[str] = set()
    for claim in claims if isinstance(claims, list) else []:
        evidence = claim.get("evidence", []) if isinstance(claim, dict) else []
        for ev in evidence if isinstance(evidence, list) else []:
            resource = ev.get("resource") if isinstance(ev, dict) else None
            if not isinstance(resource, str) or not resource.startswith(REPO_PREFIX):
                continue
            plain = plain_parts(resource)
            if plain is not None:
                out.add(plain[0])  # the common case, no need for the full grammar
                continue
            try:
                out.add(parse_resource(resource, wiki_dir="\0").path)
            except ResourceError:
                continue
    return out


class CiteIndex:
    """path -> the sidecars (relative to `<wiki>/.claims/`) whose claims cite it, as of the
    `.claims` tree of some commit.

    Kept in `<git dir>/openwiki-git/cites-v1.sqlite3`, outside version control. It is valid for
    one `.claims` tree id; moving it to another tree diffs the two trees and re-reads only the
    sidecars that differ, so a commit's cost follows what it changed, not the size of the wiki.
    Any problem with the cache (unwritable, corrupt) falls back to reading the tree in memory.
    """

    SCHEMA = 2  # 2: paths read by resource.plain_parts / parse_resource alike

    def __init__(self, repo: Repo, claims_dir: str) -> None:
        self.repo = repo
        self.claims_dir = claims_dir.strip("/")
        self.path = repo.git_dir / "openwiki-git" / "cites-v1.sqlite3"
        self.rebuilt = False  # for tests and the bench: whether the last lookup read every sidecar

    def _claims_tree(self, commit: str | None) -> pygit2.Tree | None:
        if commit is None:
            return None
        try:
            obj = self.repo.pygit2.get(_tree(self.repo, commit)[self.claims_dir].id)
        except KeyError:
            return None
        return obj if isinstance(obj, pygit2.Tree) else None

    def sidecars_citing(self, commit: str | None, paths: set[str]) -> set[str]:
        """The sidecars at `commit` that cite any of `paths`."""
        tree = self._claims_tree(commit)
        if tree is None or not paths:
            return set()
        try:
            return self._lookup(tree, paths)
        except (sqlite3.Error, OSError):
            self.rebuilt = True
            return {side for side, cited in self._walk(tree) if cited & paths}

    def _lookup(self, tree: pygit2.Tree, paths: set[str]) -> set[str]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            self._sync(db, tree)
            found: set[str] = set()
            wanted = sorted(paths)
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                marks = ",".join("?" * len(chunk))
                found.update(row[0] for row in db.execute(f"SELECT DISTINCT sidecar FROM cites WHERE path IN ({marks})", chunk))
            return found
        finally:
            db.close()

    def _sync(self, db: sqlite3.Connection, tree: pygit2.Tree) -> None:
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS cites (path TEXT NOT NULL, sidecar TEXT NOT NULL)")
        db.execute("CREATE INDEX IF NOT EXISTS cites_path ON cites (path)")
        db.execute("CREATE INDEX IF NOT EXISTS cites_sidecar ON cites (sidecar)")
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        want = str(tree.id)
        if meta.get("tree") == want and meta.get("claims_dir") == self.claims_dir and meta.get("schema") == str(self.SCHEMA):
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())  # another process may have synced
            if meta.get("tree") == want and meta.get("claims_dir") == self.claims_dir:
                db.execute("COMMIT")
                return
            old = None
            if meta.get("claims_dir") == self.claims_dir and meta.get("schema") == str(self.SCHEMA) and meta.get("tree"):
                got = self.repo.pygit2.get(meta["tree"])
                old = got if isinstance(got, pygit2.Tree) else None
            if old is None:
                self.rebuilt = True
                db.execute("DELETE FROM cites")
                rows = [(p, side) for side, cited in self._walk(tree) for p in cited]
            else:
                rows = []
                for delta in old.diff_to_tree(tree).deltas:
                    for side in {delta.old_file.path, delta.new_file.path}:
                        db.execute("DELETE FROM cites WHERE sidecar = ?", (side,))
                    if delta.status != pygit2.enums.DeltaStatus.DELETED and delta.new_file.path.endswith(".json"):
                        blob = self.repo.pygit2.get(delta.new_file.id)
                        if isinstance(blob, pygit2.Blob):
                            rows.extend((p, delta.new_file.path) for p in cited_paths(blob.data))
            db.executemany("INSERT INTO cites (path, sidecar) VALUES (?, ?)", rows)
            db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("tree", want), ("claims_dir", self.claims_dir), ("schema", str(self.SCHEMA))],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _walk(self, tree: pygit2.Tree, prefix: str = "") -> Iterator[tuple[str, set[str]]]:
        for entry in tree:
            assert entry.name is not None  # a tree entry always has a name; pygit2 types it optional
            name = prefix + entry.name
            obj = self.repo.pygit2.get(entry.id)
            if isinstance(obj, pygit2.Tree):
                yield from self._walk(obj, name + "/")
            elif isinstance(obj, pygit2.Blob) and name.endswith(".json"):
                yield name, cited_paths(obj.data)


def merge_text(repo: Repo, base: str, ours: str, theirs: str, path: str = "file") -> tuple[str, bool]:
    """git's three-way line merge of three texts: (result, True when it holds conflict markers).
    The texts are written to the object database as blobs (as git's own merge does)."""
    r = repo.pygit2

    def entry(text: str) -> pygit2.IndexEntry:
        return pygit2.IndexEntry(path, r.create_blob(text.encode("utf-8")), pygit2.enums.FileMode.BLOB)

    result = r.merge_file_from_index(entry(base), entry(ours), entry(theirs))
    if isinstance(result, str):  # pragma: no cover - only with use_deprecated
        return result, "<<<<<<< " in result
    return result.contents, not result.automergeable
