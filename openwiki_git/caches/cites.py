"""Which sidecars cite a file: a reverse index, cached in SQLite under the git directory.

The hook asks it which pages' claims cite the files a commit changed, so that it loads only those
sidecars: a commit's cost follows what it changed, not the size of the wiki. The git side (trees,
blobs, tree diffs) is `git/diff.py`'s; this module owns the index and its cache file.
"""

from __future__ import annotations

import json
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

from openwiki_git.evidence.kinds import glob_matches, kind_scope, looks_like_kind, parse_kind
from openwiki_git.evidence.resource import REPO_PREFIX, ResourceError, parse_resource, plain_parts
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.git import diff as gitdiff
from openwiki_git.git.repo import Repo, blob_id


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
            if looks_like_kind(resource):
                scope = _scope(resource)
                if scope is not None:
                    out.add(scope)
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


def _regular_file_bytes(path: Path) -> bytes | None:
    """A regular file's bytes; None for a link, a device, a folder or nothing there."""
    try:
        return path.read_bytes() if stat.S_ISREG(path.lstat().st_mode) else None
    except OSError:
        return None


def may_cite(data: bytes, paths: list[bytes]) -> bool:
    """False only when no evidence of the sidecar `data` can cite any of `paths` (repository
    paths, as bytes): a byte test that spares parsing the sidecars that cannot. A resource names
    its path literally unless it is written with %-escapes, JSON escapes, `.`/`..` segments or
    doubled slashes (which the grammar normalises), or holds a pattern character (a glob, `*`,
    `?` or `[...]`, may name the path without spelling it): a sidecar holding any of those is parsed (cited_paths,
    which this test must never contradict: tests/caches/test_cites.py compares the two)."""
    raw = sidecar_codec.raw_resources(data)
    if raw is None:
        return True
    if any(p in raw for p in paths):
        return True
    return any(c in raw for c in (b"%", b"./", b"*", b"?", b"[", b"{")) or b"//" in raw.replace(b"repo://", b"")


GLOB = "glob:"  # a row's path that is a set's glob, matched against the changed paths


def _scope(resource: str) -> str | None:
    """A definition's file, or `glob:<pattern>` for a set over a glob."""
    try:
        kind = parse_kind(resource, wiki_dir="\0")
    except ResourceError:
        return None
    if kind is None:
        return None
    scope, is_glob = kind_scope(kind)
    return GLOB + scope if is_glob else scope


class CiteIndex:
    """path -> the sidecars (relative to `<wiki>/.claims/`) whose claims cite it, as of the
    `.claims` tree of some commit.

    Kept in `<git dir>/openwiki-git/cites-v1.sqlite3`, outside version control. It is valid for
    one `.claims` tree id; moving it to another tree diffs the two trees and re-reads only the
    sidecars that differ. Any problem with the cache (unwritable, corrupt) falls back to reading
    the tree in memory.
    """

    SCHEMA = 3  # 2: paths read by resource.plain_parts / parse_resource alike; 3: definitions' files, sets' globs

    def __init__(self, repo: Repo, claims_dir: str, *, persist: bool = True) -> None:
        self.repo = repo
        self.claims_dir = claims_dir.strip("/")
        # False: a one-shot run (check --base on CI's fresh runner), which would pay for an index
        # it never uses again: scan the sidecars for the paths instead (_scan).
        self.persist = persist
        self.path = repo.git_dir / "openwiki-git" / "cites-v1.sqlite3"
        self.rebuilt = False  # for tests and the bench: whether the last lookup read every sidecar

    def sidecars_citing(self, commit: str | None, paths: set[str]) -> set[str]:
        """The sidecars at `commit` that cite any of `paths`."""
        tree = gitdiff.tree_entry_id(self.repo, commit, self.claims_dir)
        if tree is None or not gitdiff.is_tree(self.repo, tree) or not paths:
            return set()
        if not self.persist:
            return self._scan(tree, paths)
        try:
            return self._lookup(tree, paths)
        except (sqlite3.Error, OSError):
            self.rebuilt = True
            return {side for side, cited in self._walk(tree) if cited & paths or _globs_hit(cited, paths)}

    def sidecars(self, commit: str | None) -> set[str]:
        """Every sidecar at `commit` (`hook --all` on a commit)."""
        tree = gitdiff.tree_entry_id(self.repo, commit, self.claims_dir)
        if tree is None or not gitdiff.is_tree(self.repo, tree):
            return set()
        return {side for side, _ in self._walk(tree)}

    def _lookup(self, tree: str, paths: set[str]) -> set[str]:
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
            globs = db.execute("SELECT DISTINCT path FROM cites WHERE path >= ? AND path < ?", (GLOB, GLOB[:-1] + ";")).fetchall()
            hit = [g for (g,) in globs if _globs_hit({g}, paths)]
            for g in hit:
                found.update(row[0] for row in db.execute("SELECT DISTINCT sidecar FROM cites WHERE path = ?", (g,)))
            return found
        finally:
            db.close()

    def _current(self, meta: dict[str, str], want: str) -> bool:
        return meta.get("tree") == want and meta.get("claims_dir") == self.claims_dir and meta.get("schema") == str(self.SCHEMA)

    def _sync(self, db: sqlite3.Connection, tree: str) -> None:
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS cites (path TEXT NOT NULL, sidecar TEXT NOT NULL)")
        db.execute("CREATE INDEX IF NOT EXISTS cites_path ON cites (path)")
        db.execute("CREATE INDEX IF NOT EXISTS cites_sidecar ON cites (sidecar)")
        if self._current(dict(db.execute("SELECT key, value FROM meta").fetchall()), tree):
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())  # another process may have synced
            if meta.get("tree") == tree and meta.get("claims_dir") == self.claims_dir:
                db.execute("COMMIT")
                return
            old = None
            if meta.get("claims_dir") == self.claims_dir and meta.get("schema") == str(self.SCHEMA) and meta.get("tree"):
                old = meta["tree"] if gitdiff.is_tree(self.repo, meta["tree"]) else None
            db.executemany("INSERT INTO cites (path, sidecar) VALUES (?, ?)", self._rows(db, old, tree))
            db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("tree", tree), ("claims_dir", self.claims_dir), ("schema", str(self.SCHEMA))],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _rows(self, db: sqlite3.Connection, old: str | None, tree: str) -> list[tuple[str, str]]:
        """The rows to insert, after deleting those that change: every row when there is no
        usable old tree, else only the sidecars that differ between the two trees."""
        if old is None:
            self.rebuilt = True
            db.execute("DELETE FROM cites")
            return [(p, side) for side, cited in self._walk(tree) for p in cited]
        rows: list[tuple[str, str]] = []
        for old_path, new_path, data in gitdiff.tree_changes(self.repo, old, tree):
            for side in {old_path, new_path}:
                db.execute("DELETE FROM cites WHERE sidecar = ?", (side,))
            if data is not None and new_path.endswith(".json"):
                rows.extend((p, new_path) for p in cited_paths(data))
        return rows

    def _scan(self, tree: str, paths: set[str]) -> set[str]:
        """The sidecars of `tree` citing any of `paths`, without the index: each sidecar's bytes
        are read from the working tree when they hash to the tree's blob (no decompression, the
        common case of a checkout), else from git; only those that may cite a path are parsed."""
        needles = [p.encode("utf-8") for p in paths]
        folder = self.repo.root / self.claims_dir
        found: set[str] = set()
        for side, oid in gitdiff.tree_blob_ids(self.repo, tree):
            if not side.endswith(".json"):
                continue
            data = _regular_file_bytes(folder / side)
            if data is None or blob_id(data) != oid:
                data = gitdiff.blob_bytes(self.repo, oid)
            if data is not None and may_cite(data, needles):
                cited = cited_paths(data)
                if cited & paths or _globs_hit(cited, paths):
                    found.add(side)
        return found

    def _walk(self, tree: str) -> Iterator[tuple[str, set[str]]]:
        for name, data in gitdiff.tree_blobs(self.repo, tree):
            if name.endswith(".json"):
                yield name, cited_paths(data)


def _globs_hit(cited: set[str], paths: set[str]) -> bool:
    """Whether a set's glob among `cited` matches one of `paths`."""
    return any(c.startswith(GLOB) and any(glob_matches(c[len(GLOB) :], p) for p in paths) for c in cited)
