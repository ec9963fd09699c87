"""Which sidecars cite a file: a reverse index, cached in SQLite under the git directory.

The hook asks it which pages' claims cite the files a commit changed, so that it loads only those
sidecars: a commit's cost follows what it changed, not the size of the wiki. The git side (trees,
blobs, tree diffs) is `git/diff.py`'s; this module owns the index and its cache file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from openwiki_git.caches.cite_bytes import (
    Answer,
    Split,
    Summary,
    cited_paths,
    globs_hit,
    id_values,
    mentions,
    read_cites,
    regular_file_bytes,
    set_glob,
)
from openwiki_git.evidence.kinds import glob_literal_start, glob_matches
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.git import diff as gitdiff
from openwiki_git.git.repo import Repo, blob_id

# Most literal starts of the changed paths looked up one by one; a larger diff reads every glob row.
MAX_STARTS = 5000


class CiteIndex:
    """path -> the sidecars (relative to `<wiki>/.claims/`) whose claims cite it, and claim id ->
    the sidecars carrying it, as of the `.claims` tree of some commit.

    Kept in `<git dir>/openwiki-git/cites-v1.sqlite3`, outside version control. It is valid for
    one `.claims` tree id; moving it to another tree diffs the two trees and re-reads only the
    sidecars that differ. Any problem with the cache (unwritable, corrupt) falls back to reading
    the tree in memory.
    """

    # 2: paths read by resource.canonical_parts / parse_resource alike; 3: claim ids too; 4: definitions'
    # files, sets' globs; 5: sets' globs in their own table, by literal start; 6: that table (`sets`)
    # says which globs are sets of files (matched against membership changes only)
    SCHEMA = 6

    def __init__(
        self, repo: Repo, claims_dir: str, *, persist: bool = True, mention: bytes | None = None, split: Split | None = None
    ) -> None:
        self.repo = repo
        self.claims_dir = claims_dir.strip("/")
        # False: a one-shot run (check --base on CI's fresh runner), which would pay for an index
        # it never uses again: scan the sidecars for the paths instead (_scan).
        self.persist = persist
        self.path = repo.git_dir / "openwiki-git" / "cites-v1.sqlite3"
        self.rebuilt = False  # for tests and the bench: whether the last lookup read every sidecar
        # A one-shot run's "id" values by sidecar blob id, noted while _scan reads every sidecar
        # for the paths, so that sidecars_carrying (asked next) reads none of them again.
        self._ids_by_blob: dict[str, bytes] = {}  # cite_bytes.id_values of each
        # A one-shot run's second question (sidecars_mentioning), answered by blob id from the
        # bytes _scan reads anyway: check --base reads each sidecar once, not twice.
        self.mention = mention
        self._mentions_by_blob: dict[str, bool] = {}
        # A one-shot scan's sidecars shared with a second process (openwiki_git/parallel.py): the
        # caller's, so that this layer starts no process of its own.
        self.split = split

    def sidecars_citing(self, commit: str | None, paths: set[str], membership: set[str] | None = None) -> set[str]:
        """The sidecars at `commit` that cite any of `paths`: by path, by a set of lines' glob, or
        by a set of files' glob matching one of `membership` (the paths the diff adds, deletes,
        renames or changes in type; None: all of `paths`)."""
        members = paths if membership is None else membership
        tree = gitdiff.tree_entry_id(self.repo, commit, self.claims_dir)
        if tree is None or not gitdiff.is_tree(self.repo, tree) or not paths:
            return set()
        if not self.persist:
            return self._scan(tree, paths, members)
        try:
            return self._lookup(tree, paths, members)
        except (sqlite3.Error, OSError):
            self.rebuilt = True
            return {side for side, cited in self._walk(tree) if cited & paths or globs_hit(cited, paths, members)}

    def sidecars_carrying(self, commit: str | None, ids: set[str]) -> dict[str, set[str]]:
        """Claim id -> the sidecars at `commit` that carry it, for `ids` (the hook's check that
        no other page carries the ids of the pages it judges, without reading the others)."""
        tree = gitdiff.tree_entry_id(self.repo, commit, self.claims_dir)
        if tree is None or not gitdiff.is_tree(self.repo, tree) or not ids:
            return {}
        out: dict[str, set[str]] = {}
        if not self.persist:
            return self._scan_ids(tree, ids)
        try:
            for cid, side in self._query(tree, ("SELECT DISTINCT id, sidecar FROM claim_ids WHERE id IN ({})", ids))[0]:
                out.setdefault(cid, set()).add(side)
        except (sqlite3.Error, OSError):
            self.rebuilt = True
            for name, data in gitdiff.tree_blobs(self.repo, tree):
                for cid in read_cites(data)[1] & ids if name.endswith(".json") else ():
                    out.setdefault(cid, set()).add(name)
        return out

    def sidecars(self, commit: str | None) -> set[str]:
        """Every sidecar at `commit` (`hook --all` on a commit)."""
        tree = gitdiff.tree_entry_id(self.repo, commit, self.claims_dir)
        if tree is None or not gitdiff.is_tree(self.repo, tree):
            return set()
        return {side for side, _ in self._walk(tree)}

    def sidecars_mentioning(self, commit: str | None) -> set[str]:
        """The sidecars at `commit` some `repo://` string of which holds `mention`
        (cite_bytes.mentions), or whose bytes are not UTF-8: answered from what a one-shot
        scan noted of each blob it read, the others read now."""
        assert self.mention is not None, "CiteIndex(mention=...) says what to look for"
        tree = gitdiff.tree_entry_id(self.repo, commit, self.claims_dir)
        if tree is None or not gitdiff.is_tree(self.repo, tree):
            return set()
        out: set[str] = set()
        for side, oid in self._sidecar_blobs(tree):
            noted = self._mentions_by_blob.get(oid)
            if noted is None:
                data = self._sidecar_data(side, oid)
                noted = data is not None and mentions(data, sidecar_codec.raw_resources(data), self.mention)
            if noted:
                out.add(side)
        return out

    def _lookup(self, tree: str, paths: set[str], members: set[str]) -> set[str]:
        """The sidecars citing one of `paths`, or holding a set whose glob matches one (one of
        `members` for a set of files): only the globs whose literal start begins one of `paths`
        are read and matched, so that the cost follows the change, not the number of sets (a set
        claim is judged again only when its scope changed)."""
        starts = {p[:i] for p in paths for i in range(len(p) + 1)}
        sets = "SELECT DISTINCT sidecar, pattern, members FROM sets" + (" WHERE start IN ({})" if len(starts) <= MAX_STARTS else "")
        cited, matched = self._query(tree, ("SELECT DISTINCT sidecar, NULL FROM cites WHERE path IN ({})", paths), (sets, starts))
        return {side for side, _ in cited} | {
            side for side, glob, of_files in matched if any(glob_matches(glob, p) for p in (members if of_files else paths))
        }

    def _query(self, tree: str, *queries: tuple[str, set[str]]) -> list[list[tuple[str, ...]]]:
        """Each query's rows on the index synced to `tree`, one connection: SQL whose `{}` stands
        for the placeholders of one chunk of its keys (run once per chunk), or none (run once)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            self._sync(db, tree)
            out: list[list[tuple[str, ...]]] = []
            for sql, keys in queries:
                rows: list[tuple[str, ...]] = []
                if "{}" not in sql:
                    rows.extend(db.execute(sql))
                wanted = sorted(keys) if "{}" in sql else []
                for i in range(0, len(wanted), 500):
                    chunk = wanted[i : i + 500]
                    rows.extend(db.execute(sql.format(",".join("?" * len(chunk))), chunk))
                out.append(rows)
            return out
        finally:
            db.close()

    def _current(self, meta: dict[str, str], want: str) -> bool:
        return meta.get("tree") == want and meta.get("claims_dir") == self.claims_dir and meta.get("schema") == str(self.SCHEMA)

    def _sync(self, db: sqlite3.Connection, tree: str) -> None:
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS cites (path TEXT NOT NULL, sidecar TEXT NOT NULL)")
        db.execute("CREATE INDEX IF NOT EXISTS cites_path ON cites (path)")
        db.execute("CREATE INDEX IF NOT EXISTS cites_sidecar ON cites (sidecar)")
        db.execute("CREATE TABLE IF NOT EXISTS claim_ids (id TEXT NOT NULL, sidecar TEXT NOT NULL)")
        db.execute("CREATE INDEX IF NOT EXISTS claim_ids_id ON claim_ids (id)")
        db.execute("CREATE INDEX IF NOT EXISTS claim_ids_sidecar ON claim_ids (sidecar)")
        db.execute(
            "CREATE TABLE IF NOT EXISTS sets (start TEXT NOT NULL, pattern TEXT NOT NULL, sidecar TEXT NOT NULL, members INTEGER NOT NULL)"
        )
        db.execute("CREATE INDEX IF NOT EXISTS sets_start ON sets (start)")
        db.execute("CREATE INDEX IF NOT EXISTS sets_sidecar ON sets (sidecar)")
        if self._current(dict(db.execute("SELECT key, value FROM meta").fetchall()), tree):
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())  # another process may have synced
            if self._current(meta, tree):
                db.execute("COMMIT")
                return
            old = None
            if meta.get("claims_dir") == self.claims_dir and meta.get("schema") == str(self.SCHEMA) and meta.get("tree"):
                old = meta["tree"] if gitdiff.is_tree(self.repo, meta["tree"]) else None
            cites, ids = self._rows(db, old, tree)
            paths: list[tuple[str, str]] = []
            sets: list[tuple[str, str, str, int]] = []
            for cited, side in cites:
                found = set_glob(cited)
                if found is None:
                    paths.append((cited, side))
                else:
                    sets.append((glob_literal_start(found[0]), found[0], side, int(found[1])))
            db.executemany("INSERT INTO cites (path, sidecar) VALUES (?, ?)", paths)
            db.executemany("INSERT INTO sets (start, pattern, sidecar, members) VALUES (?, ?, ?, ?)", sets)
            db.executemany("INSERT INTO claim_ids (id, sidecar) VALUES (?, ?)", ids)
            db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("tree", tree), ("claims_dir", self.claims_dir), ("schema", str(self.SCHEMA))],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _rows(self, db: sqlite3.Connection, old: str | None, tree: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """The (cites, claim_ids) rows to insert, after deleting those that change: every row
        when there is no usable old tree, else only the sidecars that differ between the trees."""
        cites: list[tuple[str, str]] = []
        ids: list[tuple[str, str]] = []
        if old is None:
            self.rebuilt = True
            for table in ("cites", "claim_ids", "sets"):
                db.execute(f"DELETE FROM {table}")
            db.execute("DROP TABLE IF EXISTS globs")  # schema 5's table for sets' globs
            changed: Iterator[tuple[str, bytes | None]] = gitdiff.tree_blobs(self.repo, tree)
        else:
            changed = self._changed(db, old, tree)
        for name, data in changed:
            if data is not None and name.endswith(".json"):
                paths, claim_ids = read_cites(data)
                cites.extend((p, name) for p in paths)
                ids.extend((cid, name) for cid in claim_ids)
        return cites, ids

    def _changed(self, db: sqlite3.Connection, old: str, tree: str) -> Iterator[tuple[str, bytes | None]]:
        """The sidecars that differ between the trees, their rows deleted: (new path, new bytes)."""
        for old_path, new_path, data in gitdiff.tree_changes(self.repo, old, tree):
            for side in {old_path, new_path}:
                for table in ("cites", "claim_ids", "sets"):
                    db.execute(f"DELETE FROM {table} WHERE sidecar = ?", (side,))
            yield new_path, data

    def _scan(self, tree: str, paths: set[str], members: set[str]) -> set[str]:
        """The sidecars of `tree` citing any of `paths` (`members`: sidecars_citing's), without
        the index: each sidecar read once and searched in one pass of each regular expression
        (Summary), on two CPUs for a large wiki (`split`). Each sidecar's "id" values, and
        whether it holds `mention`, are noted on the way (_scan_ids, sidecars_mentioning)."""
        summary = Summary(paths, members, self.mention)
        blobs = dict(self._sidecar_blobs(tree))
        answers = self._split_answers(blobs, summary) if self.split is not None else None
        found: set[str] = set()
        for side, oid in blobs.items():
            answer = answers.get(side) if answers is not None else None
            if not answer:  # not split, or the working tree's bytes are not the blob's: read it here
                data = self._sidecar_data(side, oid)
                if data is None:
                    continue
                answer = summary(data)
            hit, self._ids_by_blob[oid], self._mentions_by_blob[oid] = answer
            if hit:
                found.add(side)
        return found

    def _split_answers(self, blobs: dict[str, str], summary: Summary) -> dict[str, Answer] | None:
        """Each sidecar's summary, shared with a second process by `split` (None when it did not
        split): only the working tree is read there (an empty answer when a file's bytes are not
        its blob's: git is read in this process alone)."""
        assert self.split is not None
        folder = self.repo.root / self.claims_dir
        sides = list(blobs)
        sizes = []
        for side in sides:
            try:
                sizes.append((folder / side).lstat().st_size)
            except OSError:
                sizes.append(0)

        def answer(side: str) -> Answer | tuple[()]:
            data = regular_file_bytes(folder / side)
            return summary(data) if data is not None and blob_id(data) == blobs[side] else ()

        return self.split(sides, sizes, answer)

    def _scan_ids(self, tree: str, ids: set[str]) -> dict[str, set[str]]:
        """`sidecars_carrying` without the index (a one-shot run): each sidecar's `"id"` values,
        noted by _scan when it read the same blob, else found by one regular-expression pass;
        only a sidecar naming one of `ids` is parsed, to confirm it is a claim's id."""
        wanted = {i.encode("utf-8") for i in ids}
        out: dict[str, set[str]] = {}
        for side, oid in self._sidecar_blobs(tree):
            values = self._ids_by_blob.get(oid)
            if values is None:
                data = self._sidecar_data(side, oid)
                if data is None:
                    continue
                values = self._ids_by_blob[oid] = id_values(data)
            if wanted.isdisjoint(values.split(b"\n")):
                continue
            data = self._sidecar_data(side, oid)
            for cid in read_cites(data)[1] & ids if data is not None else ():
                out.setdefault(cid, set()).add(side)
        return out

    def _sidecar_blobs(self, tree: str) -> Iterator[tuple[str, str]]:
        """(sidecar, blob id) of each sidecar of `tree`."""
        return ((side, oid) for side, oid in gitdiff.tree_blob_ids(self.repo, tree) if side.endswith(".json"))

    def _sidecar_data(self, side: str, oid: str) -> bytes | None:
        """The bytes of blob `oid` (sidecar `side`), read from the working tree when they hash to
        it (no decompression, the common case of a checkout), else from git."""
        data = regular_file_bytes(self.repo.root / self.claims_dir / side)
        if data is None or blob_id(data) != oid:
            data = gitdiff.blob_bytes(self.repo, oid)
        return data

    def _walk(self, tree: str) -> Iterator[tuple[str, set[str]]]:
        for name, data in gitdiff.tree_blobs(self.repo, tree):
            if name.endswith(".json"):
                yield name, cited_paths(data)
