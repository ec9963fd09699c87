"""The diff engine's git side: pygit2 diffs turned into our own records (`diffmap.FileChange`).

Three pairs of sides, all with zero context lines, git's indent heuristic and rename detection
(`find_similar`, threshold from the config's `rename_threshold`):

- `staged(repo)`: HEAD -> the index (the pre-commit hook). The index is the one git uses for this
  commit: `GIT_INDEX_FILE` is honoured (`git commit <paths>` runs hooks on a temporary index).
  With no HEAD (the first commit) every index entry is an added file.
- `between(repo, old, new)`: one revision -> another (CI, pre-push, `check --base`).
- `worktree(repo)`: HEAD -> the working tree (the agent tools' `claims_for_change`).
- `merge_base(repo, a, b)`: the commit `check --base` measures from.

A side is named by a `Side`: a commit id, "index" or "worktree"; `Side.read(repo, path)` gives a file's text
there, as git stores it (no working tree, so line endings never matter).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pygit2

from openwiki_git.diff.hunks import FileChange, Hunk
from openwiki_git.errors import GitError
from openwiki_git.git.repo import Repo
from openwiki_git.model import FileText

INDEX = "index"
WORKTREE = "worktree"
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


def _records(diff: pygit2.Diff, rename_threshold: int, hunkless: str | None = None) -> tuple[FileChange, ...]:
    """Our records of `diff`, renames found. `hunkless`: a folder (`docs/`) whose files' changes
    are recorded without reading their content (no hunks, binary False): the wiki's own pages and
    sidecars, which no evidence may cite, so that a commit rewriting a hundred of them is not
    diffed line by line."""
    diff.find_similar(flags=pygit2.enums.DiffFind.FIND_RENAMES, rename_threshold=rename_threshold)
    out = []
    for i, d in enumerate(diff.deltas):
        status = _STATUS.get(d.status)
        if status is None:
            continue
        unread = hunkless is not None and d.old_file.path.startswith(hunkless) and d.new_file.path.startswith(hunkless)
        patch = None if unread else diff[i]
        if patch is None and not unread:  # pragma: no cover - libgit2 gives None only for unmodified entries
            continue
        if patch is not None:
            d = patch.delta
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
                hunks=() if patch is None else tuple(Hunk(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in patch.hunks),
                binary=patch is not None and bool(d.is_binary),
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


def staged(repo: Repo, *, rename_threshold: int = 50, hunkless: str | None = None) -> Diff:
    """HEAD -> the index git is committing (GIT_INDEX_FILE honoured); `hunkless` as _records."""
    head = repo.head()
    index = repo.index
    if head is None:
        changes = tuple(
            FileChange("added", None, e.path, None, str(e.id), 0, int(e.mode)) for e in index
        )
        return Diff(None, INDEX, changes)
    diff = index.diff_to_tree(_tree(repo, head), flags=_options(), context_lines=0, interhunk_lines=0)
    return Diff(head, INDEX, _records(diff, rename_threshold, hunkless))


def worktree(repo: Repo, *, rename_threshold: int = 50) -> Diff:
    """HEAD -> the working tree (tracked files; what an agent changed and has not committed).
    The new side is "worktree": `read` gives a file's text on disk there.

    Composed as HEAD -> index (object ids only) then index -> working tree (the index's stat data
    finds the edited files): libgit2's own tree-to-workdir diff reads and hashes every tracked file
    (0.19 s for 1,000 files, twenty times the index's way) and loses files staged as added or
    renamed. A file staged and then edited again is diffed from its HEAD blob to its text on disk."""
    head = repo.head()
    if head is None:
        return Diff(None, WORKTREE, ())
    on_index = staged(repo, rename_threshold=rename_threshold).changes
    since = repo.index.diff_to_workdir(flags=_options(), context_lines=0, interhunk_lines=0)
    unstaged = {c.old_path: c for c in _records(since, rename_threshold)}
    out = []
    for c in on_index:
        later = unstaged.pop(c.new_path, None) if c.new_path is not None else None
        if later is None:
            out.append(c)
        elif c.old_path is not None or later.new_path is not None:  # (added, then deleted again: nothing)
            out.append(_composed(repo, c, later))
    return Diff(head, WORKTREE, (*out, *unstaged.values()))


def _composed(repo: Repo, first: FileChange, then: FileChange) -> FileChange:
    """HEAD -> working tree of a file changed in the index (`first`) and on disk since (`then`)."""
    old = repo.pygit2[pygit2.Oid(hex=first.old_blob)].data if first.old_blob else None  # type: ignore[attr-defined]
    new = None
    if then.new_path is not None:
        text = repo.read(then.new_path, WORKTREE).text
        new = text.encode("utf-8") if text is not None else None
    path_old, path_new = first.old_path, then.new_path
    named = path_new or path_old or ""
    patch = pygit2.Patch.create_from(
        old, new, path_old or named, path_new or named, flag=_options(), context_lines=0, interhunk_lines=0
    )
    status = "added" if path_old is None else "deleted" if path_new is None else "renamed" if path_old != path_new else "modified"
    return FileChange(
        status, path_old, path_new, first.old_blob, then.new_blob, first.old_mode, then.new_mode,
        tuple(Hunk(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in patch.hunks),
        binary=bool(patch.delta.is_binary), similarity=first.similarity,
    )


def between(repo: Repo, old: str | None, new: str, *, rename_threshold: int = 50, hunkless: str | None = None) -> Diff:
    """Commit `old` (None: the empty tree) -> commit `new`; both already resolved to ids;
    `hunkless` as _records."""
    new_tree = _tree(repo, new)
    if old is None:
        diff = new_tree.diff_to_tree(flags=_options(), context_lines=0, interhunk_lines=0, swap=True)
    else:
        diff = _tree(repo, old).diff_to_tree(new_tree, flags=_options(), context_lines=0, interhunk_lines=0)
    return Diff(old, new, _records(diff, rename_threshold, hunkless))


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


def tree_blobs(repo: Repo, tree_id: str, prefix: str = "") -> Iterator[tuple[str, bytes]]:
    """Every blob under a tree, recursively: (path relative to the tree, bytes)."""
    tree = repo.pygit2.get(tree_id)
    if not isinstance(tree, pygit2.Tree):
        return
    for entry in tree:
        assert entry.name is not None  # a tree entry always has a name; pygit2 types it optional
        obj = repo.pygit2.get(entry.id)
        if isinstance(obj, pygit2.Tree):
            yield from tree_blobs(repo, str(entry.id), prefix + entry.name + "/")
        elif isinstance(obj, pygit2.Blob):
            yield prefix + entry.name, obj.data


def tree_blob_ids(repo: Repo, tree_id: str, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every blob under a tree, recursively: (path relative to the tree, blob id), reading only
    tree objects (a blob's bytes cost a decompression each: read the few that are needed)."""
    tree = repo.pygit2.get(tree_id)
    if not isinstance(tree, pygit2.Tree):
        return
    for entry in tree:
        assert entry.name is not None  # a tree entry always has a name; pygit2 types it optional
        if entry.type_str == "tree":
            yield from tree_blob_ids(repo, str(entry.id), prefix + entry.name + "/")
        elif entry.type_str == "blob":
            yield prefix + entry.name, str(entry.id)


def blob_bytes(repo: Repo, object_id: str) -> bytes | None:
    """A blob's bytes by id, None when the id names no blob."""
    obj = repo.pygit2.get(object_id)
    return obj.data if isinstance(obj, pygit2.Blob) else None


def is_tree(repo: Repo, object_id: str) -> bool:
    try:
        return isinstance(repo.pygit2.get(object_id), pygit2.Tree)
    except (ValueError, KeyError):
        return False


def tree_changes(repo: Repo, old_tree: str, new_tree: str) -> Iterator[tuple[str, str, bytes | None]]:
    """What differs between two trees: (old path, new path, the new blob's bytes, None when the
    file was deleted), without rename detection (an index keyed by path wants both paths)."""
    old, new = repo.pygit2.get(old_tree), repo.pygit2.get(new_tree)
    if not isinstance(old, pygit2.Tree) or not isinstance(new, pygit2.Tree):
        raise GitError(f"{old_tree}..{new_tree}: not two trees")
    for delta in old.diff_to_tree(new).deltas:
        data = None
        if delta.status != pygit2.enums.DeltaStatus.DELETED:
            blob = repo.pygit2.get(delta.new_file.id)
            data = blob.data if isinstance(blob, pygit2.Blob) else None
        yield delta.old_file.path, delta.new_file.path, data


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
