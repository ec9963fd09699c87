"""The only module that imports pygit2. Answers: where is the repository, is a path tracked,
and what does a file say in the working tree, the index or a revision.

Text is what git stores: reading the working tree applies git's line-ending rules (core.autocrlf,
the `text`/`eol` attributes), so a CRLF checkout yields the same versions as an LF one.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwiki_git.errors import GitError
from openwiki_git.git.tracked import LFS_POINTER
from openwiki_git.model import FileText

if TYPE_CHECKING:
    import pygit2

    # Repo has a property named pygit2, which shadows the module in annotations in its class body.
    from pygit2 import Index as _Index
    from pygit2 import Oid as _Oid
else:

    class _Deferred:
        """pygit2, imported on first use: a `check` whose cache vouches for the repository's
        location and index (Repo.located) reads files without libgit2, and its import is a
        third of such a run."""

        def __getattr__(self, name: str) -> Any:
            module = importlib.import_module("pygit2")
            globals()["pygit2"] = module
            return getattr(module, name)

    pygit2 = _Deferred()

BINARY_SNIFF = 8000  # git's own heuristic: a NUL in the first 8000 bytes means binary
MODE_LINK = 0o120000
MODE_GITLINK = 0o160000


def open_repository(start: Path | None = None) -> Repo:
    return Repo(start)


class Repo:
    def __init__(self, start: Path | None = None) -> None:
        try:
            git_dir = os.environ.get("GIT_DIR")
            if git_dir and not os.path.isdir(git_dir):
                raise GitError(f"GIT_DIR={git_dir}: not a git directory", "unset GIT_DIR, or name the repository's .git directory")
            index_file = os.environ.get("GIT_INDEX_FILE")
            if index_file and not os.path.isfile(index_file):
                # libgit2 would read a missing index as an empty one: every file "deleted".
                raise GitError(f"GIT_INDEX_FILE={index_file}: no such index file", "unset GIT_INDEX_FILE, or name an existing index")
            if "GIT_DIR" in os.environ or "GIT_INDEX_FILE" in os.environ:
                # Hooks run with GIT_DIR / GIT_INDEX_FILE set (`git commit <paths>` uses a
                # temporary index); FROM_ENV makes libgit2 honour them as git does. pygit2 needs
                # a start path here: Repository(None) opens nothing at all.
                flags = pygit2.enums.RepositoryOpenFlag.FROM_ENV
                opened = pygit2.Repository(str(start or Path.cwd()), flags=flags)
            else:
                found = pygit2.discover_repository(str(start or Path.cwd()))
                if found is None:
                    raise GitError(f"{start or Path.cwd()}: not inside a git repository", "run it in a git work tree")
                opened = pygit2.Repository(found)
        except pygit2.GitError as e:
            raise GitError(f"cannot open the git repository: {e}") from None
        if opened.is_bare or opened.workdir is None:
            raise GitError(f"{opened.path}: a bare repository has no work tree", "run it in a checkout")
        try:
            opened.head_is_unborn or opened.head  # noqa: B018 -- git refuses a broken HEAD; so do we
        except pygit2.GitError as e:
            head = Path(opened.path) / "HEAD"
            raise GitError(f"{head}: {e}", "repair HEAD, e.g. `git symbolic-ref HEAD refs/heads/main`") from None
        self._init(opened, Path(opened.workdir).resolve(), Path(opened.path).resolve(), frozenset())
        self.start = Path(start or Path.cwd()).resolve()  # where the command was started (-C DIR)

    def here(self) -> str | None:
        """The directory the command was started in, relative to the root (`pkg/sub`); "" at the
        root, None outside the work tree."""
        try:
            rel = self.start.relative_to(self.root)
        except ValueError:
            return None
        return rel.as_posix() if rel.parts else ""

    @classmethod
    def located(cls, root: str, git_dir: str, tracked: frozenset[str]) -> Repo:
        """The repository at `root` as found without libgit2 (checkcache.trusted_location: the
        place a pygit2-opened run recorded), opened on the first use of git. `tracked`: paths
        known to be in the index (its file unchanged since they were), answered without it."""
        repo = cls.__new__(cls)
        repo._init(None, Path(root), Path(git_dir), tracked)
        return repo

    def _init(self, opened: pygit2.Repository | None, root: Path, git_dir: Path, tracked: frozenset[str]) -> None:
        self._opened = opened
        self.root = root
        self.start = root
        self._git_dir = git_dir
        self._known_tracked = tracked
        self._real_root = os.path.realpath(self.root)
        self._index: _Index | None = None
        self._autocrlf: str | None = None
        self._trees: dict[str, pygit2.Tree] = {}
        self._real_dirs: dict[str, str] = {}  # worktree directory -> its real path

    @property
    def _repo(self) -> pygit2.Repository:
        if self._opened is None:
            try:
                self._opened = pygit2.Repository(str(self.root))
            except pygit2.GitError as e:
                raise GitError(f"cannot open the git repository: {e}") from None
        return self._opened

    @property
    def pygit2(self) -> pygit2.Repository:
        """The raw repository, for the diff engine; nothing outside git-adapter modules uses it."""
        return self._repo

    @property
    def git_dir(self) -> Path:
        """The repository's git directory (a worktree's own, under the common one's `worktrees/`)."""
        return self._git_dir

    @property
    def index_path(self) -> str:
        """The index file git reads: $GIT_INDEX_FILE (relative to the cwd, as git takes it) or
        <git dir>/index. Its stat tells check's cache whether tracking may have changed."""
        env = os.environ.get("GIT_INDEX_FILE")
        return os.path.abspath(env) if env else os.path.join(str(self.git_dir), "index")

    @property
    def index(self) -> _Index:
        if self._index is None:
            try:
                self._index = self._repo.index
            except pygit2.GitError as e:
                where = os.environ.get("GIT_INDEX_FILE") or str(self.git_dir / "index")
                raise GitError(
                    f"{where}: cannot read the git index: {e}", "repair it (e.g. `rm .git/index && git reset`), or fix GIT_INDEX_FILE"
                ) from None
        return self._index

    def is_tracked(self, path: str) -> bool:
        return path in self._known_tracked or path in self.index

    def head(self) -> str | None:
        try:
            return str(self._repo.head.target)
        except pygit2.GitError:
            return None

    def commit_id(self, rev: str) -> str:
        try:
            obj = self._repo.revparse_single(rev)
            return str(obj.peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            raise GitError(f"unknown revision {rev!r}", "name a commit, branch or tag that exists") from None

    def read(self, path: str, source: str = "worktree") -> FileText:
        """The file's text at `source` ("worktree", "index" or a revision)."""
        if source == "worktree":
            return self._read_worktree(path)
        if source == "index":
            entry = self.index[path] if path in self.index else None
            if entry is None:
                return FileText(path, None, problem="not in the index")
            return self._from_blob(path, entry.id, entry.mode)
        return self._read_tree(path, source)

    def tracked_paths(self, source: str = "worktree") -> list[str]:
        """The tracked regular files at `source`, sorted: the index's (worktree, index), or a
        revision's tree. What a glob in evidence ranges over."""
        if source in ("worktree", "index"):
            paths = [e.path for e in self.index if e.mode not in (MODE_LINK, MODE_GITLINK)]
            if source == "worktree":
                paths = [p for p in paths if os.path.isfile(os.path.join(self._real_root, *p.split("/")))]
            return sorted(paths)
        tree = self._trees.get(source)
        if tree is None:
            tree = self._trees[source] = self._repo.get(self.commit_id(source)).tree  # type: ignore[union-attr]
        out: list[str] = []
        stack = [("", tree)]
        while stack:
            prefix, node = stack.pop()
            for entry in node:
                if entry.type_str == "tree":
                    stack.append((f"{prefix}{entry.name}/", self._repo.get(entry.id)))
                elif entry.type_str == "blob" and entry.filemode != MODE_LINK:
                    out.append(prefix + str(entry.name))
        return sorted(out)

    def blob_text(self, path: str, blob_id: str) -> FileText:
        try:
            oid = pygit2.Oid(hex=blob_id)
            if oid not in self._repo:  # a blob a sidecar recorded elsewhere: not damage, just absent
                raise KeyError(blob_id)
            return self._from_blob(path, oid, pygit2.enums.FileMode.BLOB)
        except (KeyError, ValueError):
            return FileText(path, None, problem=f"blob {blob_id[:12]} is not in this repository")

    def renamed_in_worktree(self, prefix: str, threshold: int = 50) -> dict[str, str]:
        """Files under `prefix/` that git sees renamed from HEAD to the working tree (`git mv`,
        or a plain `mv` with the new file untracked): {old path: new path}, repo-relative."""
        if self.head() is None:
            return {}
        from pygit2.enums import DeltaStatus, DiffFind, DiffOption

        try:
            tree = self._repo.revparse_single("HEAD").peel(pygit2.Tree)
            diff = tree.diff_to_workdir(flags=DiffOption.INCLUDE_UNTRACKED | DiffOption.RECURSE_UNTRACKED_DIRS)
            diff.find_similar(flags=DiffFind.FIND_RENAMES | DiffFind.FIND_FOR_UNTRACKED, rename_threshold=threshold)
        except pygit2.GitError as e:
            raise GitError(f"cannot compare HEAD with the working tree: {e}") from None
        base = prefix.rstrip("/") + "/"
        return {
            d.old_file.path: d.new_file.path
            for d in diff.deltas
            if d.status == DeltaStatus.RENAMED and d.old_file.path.startswith(base) and d.new_file.path.startswith(base)
        }

    def _read_tree(self, path: str, rev: str) -> FileText:
        tree = self._trees.get(rev)
        if tree is None:
            tree = self._trees[rev] = self._repo.get(self.commit_id(rev)).tree  # type: ignore[union-attr]
        try:
            entry = tree[path]
        except KeyError:
            return FileText(path, None, problem=f"missing at {rev}")
        return self._from_blob(path, entry.id, entry.filemode)

    def _from_blob(self, path: str, oid: _Oid, mode: int) -> FileText:
        if mode == MODE_LINK:
            return FileText(path, None, problem="symlink (refused)")
        if mode == MODE_GITLINK:
            return FileText(path, None, problem="submodule")
        blob = self._repo.get(oid)
        if blob is None:  # named by a tree or the index, yet gone: the object store is damaged
            raise GitError(f"{path}: object {oid} is missing from the git object store", "`git fsck` finds what is corrupt or missing")
        if not isinstance(blob, pygit2.Blob):
            return FileText(path, None, problem="not a file")
        return _decode(path, blob.data, str(oid))

    def _read_worktree(self, path: str) -> FileText:
        if not self.is_tracked(path):
            return FileText(path, None, problem="not tracked by git")
        full = os.path.join(self._real_root, *path.split("/"))
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            return FileText(path, None, problem="missing")
        if stat.S_ISLNK(st.st_mode):
            return FileText(path, None, problem="symlink (refused)")
        if not stat.S_ISREG(st.st_mode):
            return FileText(path, None, problem="not a regular file")
        # A symlinked parent directory or a case alias would read a file outside what git tracks.
        # The file itself is no link (lstat), so its real path is its directory's plus its name.
        parent, _, name = path.rpartition("/")
        real_dir = self._real_dirs.get(parent)
        if real_dir is None:
            real_dir = self._real_dirs[parent] = os.path.realpath(os.path.join(self._real_root, parent))
        if os.path.join(real_dir, name) != full:
            return FileText(path, None, problem="path goes through a symlink (refused)")
        try:
            with open(full, "rb") as fh:
                data = fh.read()
        except OSError as e:  # unreadable (permissions, I/O): this evidence is unresolved, not a crash
            return FileText(path, None, problem=f"cannot read: {e.strerror or e}")
        if b"\r" in data and b"\r\n" in data and self._converts_crlf(path, data):
            data = data.replace(b"\r\n", b"\n")
        return _decode(path, data, blob_id(data))

    def index_blobs(self, paths: list[str], index_file: Path | None = None) -> dict[str, str | None]:
        """The blob id of each path in the index git commits (GIT_INDEX_FILE honoured, read
        afresh), or in the index file `index_file`; None when it has no entry (or no index)."""
        try:
            index = self._fresh_index() if index_file is None else pygit2.Index(str(index_file))
        except (pygit2.GitError, OSError, ValueError):
            return dict.fromkeys(paths)
        return {p: str(index[p].id) if p in index else None for p in paths}

    def _fresh_index(self) -> _Index:
        """The index as it is on disk now. libgit2 re-reads the file only when its stat or its
        trailing checksum differ from what it last read (git writes a new checksum with every
        change), so the hook, which reads the index for its diff, does not parse a 100,000-entry
        index two more times to stage a few files."""
        index = self._repo.index
        index.read(False)
        return index

    def stage(self, paths: list[str], index_file: Path | None = None) -> None:
        """`git add` these working-tree files (regular files, git's clean filter applied) into the
        index git commits, or into the index file `index_file`. Raises GitError."""
        try:
            if index_file is None:
                index = self._fresh_index()
                for path in paths:
                    index.add(path)
            else:
                index = pygit2.Index(str(index_file))
                for path in paths:
                    old = index[path] if path in index else None
                    mode = old.mode if old is not None else pygit2.enums.FileMode.BLOB
                    index.add(pygit2.IndexEntry(path, self._repo.create_blob_fromworkdir(path), mode))
            index.write()
        except (pygit2.GitError, OSError, ValueError, KeyError) as e:
            raise GitError(f"cannot stage {', '.join(paths)}: {e}") from None
        self._index = None

    def changed_paths(self, prefix: str) -> list[str]:
        """Paths under `prefix/` whose working-tree file differs from HEAD (modified, added,
        deleted or untracked; ignored files excluded), sorted."""
        try:
            status = self._repo.status(untracked_files="all", ignored=False)
        except pygit2.GitError as e:
            raise GitError(f"git status failed: {e}") from None
        ignored = pygit2.enums.FileStatus.IGNORED
        prefix = prefix.rstrip("/") + "/"
        return sorted(p for p, flags in status.items() if p.startswith(prefix) and flags and not flags & ignored)

    def worktree_matches_index(self) -> bool:
        """Whether every tracked file of the working tree is what the index holds (untracked files
        aside; git's racy rule applied by libgit2's status). False when $GIT_INDEX_FILE names
        another index than <git dir>/index, which that status would not read."""
        if self.index_path != os.path.join(str(self.git_dir), "index"):
            return False
        try:
            return not self._repo.status(untracked_files="no", ignored=False)
        except pygit2.GitError as e:
            raise GitError(f"git status failed: {e}") from None

    def config_value(self, key: str) -> str | None:
        """A git config value as git resolves it (all levels), None when unset."""
        try:
            return str(self._repo.config[key])
        except KeyError:
            return None

    def set_config(self, key: str, value: str) -> None:
        """Set a value in the repository's own config (`.git/config`)."""
        try:
            self._repo.config[key] = value
        except pygit2.GitError as e:
            raise GitError(f"cannot set git config {key}: {e}") from None

    def _converts_crlf(self, path: str, data: bytes) -> bool:
        """Would git's clean filter turn this file's CRLF into LF on `git add`?"""
        text_attr = self._repo.get_attr(path, "text")
        if text_attr is False or self._repo.get_attr(path, "binary"):
            return False
        if text_attr is True or self._repo.get_attr(path, "eol") in ("lf", "crlf"):
            return True
        if text_attr == "auto" or self._autocrlf_setting() in ("true", "input"):
            # git's "auto": only text (no NUL, no lone CR) is converted, and never a file that
            # is already stored with CRLF (git's has_crlf_in_index).
            return _auto_text(data) and not self._crlf_in_index(path)
        return False

    def _crlf_in_index(self, path: str) -> bool:
        entry = self.index[path] if path in self.index else None
        blob = self._repo.get(entry.id) if entry is not None else None
        return isinstance(blob, pygit2.Blob) and b"\r\n" in blob.data and _auto_text(blob.data)

    def _autocrlf_setting(self) -> str:
        if self._autocrlf is None:
            try:
                self._autocrlf = str(self._repo.config["core.autocrlf"]).lower()
            except KeyError:
                self._autocrlf = "false"
        return self._autocrlf


def blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob (`git hash-object`): what pygit2.hash() returns, with
    OpenSSL's SHA-1, several times faster than libgit2's collision-detecting one."""
    digest = hashlib.sha1(b"blob %d\0" % len(data))
    digest.update(data)  # not header + data: that copies the bytes first (a sixth of the cost)
    return digest.hexdigest()


def _auto_text(data: bytes) -> bool:
    """git's text detection for `auto` conversion: no NUL and no CR outside a CRLF pair."""
    return b"\0" not in data and data.count(b"\r") == data.count(b"\r\n")


def _decode(path: str, data: bytes, blob: str) -> FileText:
    if data.startswith(LFS_POINTER):
        return FileText(path, None, blob, problem="Git LFS pointer (the content is not in git)")
    if b"\0" in data[:BINARY_SNIFF]:
        return FileText(path, None, blob, problem="binary file")
    # Node decodes invalid UTF-8 to U+FFFD; so do we, for token parity with OpenWiki.
    return FileText(path, data.decode("utf-8", errors="replace"), blob)
