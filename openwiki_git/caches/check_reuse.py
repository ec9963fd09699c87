"""`check`'s summary cache with a Workspace: each page's entry reused while its keys hold (the
sidecar's and page's stats, the clock, every cited file's key), the other pages' sidecars loaded
and their claims judged again, and what changed written back. The keys, the file's format and the
standard-library fast answer are check_entries.py's.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from openwiki_git.caches.check_entries import (
    CACHE_NAME,
    FORMAT,
    cache_key,
    dumps,
    file_holds,
    file_key_now,
    grammars_key,
    read,
)
from openwiki_git.caches.check_keys import Globs, PageKeys, may_name_elsewhere, verbatim
from openwiki_git.caches.site import site_found
from openwiki_git.caches.statkey import lstat_file, racy, stat_or_none

if TYPE_CHECKING:
    from openwiki_git.caches.check_entries import Entry, FileKey

MAX_NOTABLE = 20_000  # notable claim records kept at most; pages beyond are judged on each run


class Judged:
    """One run's view of the wiki: every page with a sidecar, in order, each with its entry (from
    the cache or judged now); the sidecars of the pages judged now, and (when asked: `--fix`
    rewrites from them) their claims' results."""

    def __init__(self, pages: list[str], entries: dict[str, Entry]) -> None:
        self.pages = pages
        self.entries = entries
        self.sidecars: dict[str, Any] = {}  # page -> Sidecar, judged this run
        self.results: list[Any] = []  # ClaimResult, kept with keep_results


def reuse_or_judge(
    ws: Any,
    *,
    wiki_dir_arg: str | None,
    use_cache: bool,
    record: Any,
    findings: Any,
    now: Any,
    cached: dict[str, Any] | None = None,
    source: str = "worktree",
    wanted: set[str] | None = None,
    keep_results: bool = False,
    known: dict[str, Entry] | None = None,
) -> Judged:
    """Every page's entry: reused while its keys hold (`use_cache`), else its sidecar loaded and
    its claims judged by the full rule against `source` (the working tree unless the cache is
    off). `record(result)` is a claim's report record, None for a plainly fresh one (not stored:
    report.fresh_record_data follows from the claim). `findings(page, text, sidecar)` gives a
    judged page's extra findings (services/check_chain.py: page_findings), kept with its entry. Errors
    are those of `Wiki.load_all`, in the same order (every sidecar read, then the ids checked
    unique). Without the cache only the `wanted` pages are judged (None: all); with it every
    page, so that the cache stays whole. With `use_cache`, what changed is written back
    (`cached`: the cache's data, when the caller has read it); `keep_results`: the judged
    claims' results kept (`--fix`); `known`: the entries an earlier stage answered (the quick
    judge's, with the cache off), taken as they are."""
    started_ns = time.time_ns()
    repo = ws.repo
    root, git_dir = str(repo.root), str(repo.git_dir)
    path = ws.cache_path(CACHE_NAME)
    key = cache_key(root, git_dir, wiki_dir_arg)
    site = {"site": ws.wiki.site is not None, "site_found": site_found(root, ws.config.wiki_dir)}  # the markers' form
    old = (cached or read(path)) if use_cache else None
    if old is not None and (old.get("key") != key or started_ns < old.get("written_ns", 0)
                            or any(old.get(k) != v for k, v in site.items())):
        old = None
    index_path = repo.index_path
    index_now = lstat_file(index_path)
    recheck = old is None or old.get("index") != index_now or old.get("index_path") != index_path
    pages = ws.wiki.sidecar_pages()
    found = _Collected()
    found.collect(ws, pages, old["pages"] if old is not None else {}, _Reuse(ws, root, recheck, started_ns), now, known or {})
    judged = Judged([p for p in pages if p in found.entries or p in found.loaded], found.entries)
    todo = found.loaded if use_cache or wanted is None else {p: sc for p, sc in found.loaded.items() if p in wanted}
    if todo:
        rule = _FullRule(ws, source, record, findings, now, keep_results)
        rule.judge_loaded(judged, todo)
        if use_cache:
            _key_pages(ws, judged, todo, rule, found.keys, found.keep, started_ns)
    if use_cache:
        data = {"format": FORMAT, "key": key, "root": root, "index_path": index_path, "wiki_dir": ws.config.wiki_dir,
                "index": None if racy(started_ns, index_now) else index_now, "pages": _bounded(found.keep), **site}
        if old is None or _differs(old, data):
            data["written_ns"] = started_ns
            _write(ws, path, data)
    return judged


class _Collected:
    """The pages' entries still holding, the sidecars of the others (loaded to be judged), and
    their stats; claim ids checked unique across the wiki on the way."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.keep: dict[str, Entry] = {}  # what to write back
        self.loaded: dict[str, Any] = {}
        self.keys: dict[str, tuple[Any, Any]] = {}

    def collect(self, ws: Any, pages: list[str], old_pages: dict[str, Entry], check: _Reuse, now: Any, known: dict[str, Entry]) -> None:
        from openwiki_git.errors import StoreError

        wiki = ws.wiki
        ids_of: dict[str, list[str]] = {}
        for page in pages:
            side_key = lstat_file(wiki.sidecar_path(page))
            page_key = stat_or_none(wiki.page_path(page))
            entry = known.get(page)
            if entry is not None:  # answered by an earlier stage (not kept: the cache is off)
                self.entries[page] = entry
                ids = entry["ids"].split("\n") if entry["ids"] else []
                ids_of[page] = ids
                continue
            entry = old_pages.get(page)
            if entry is not None and not check.holds(entry, side_key, page_key, now):
                entry = None
            if entry is not None:
                ids = entry["ids"].split("\n") if entry["ids"] else []
                self.entries[page] = self.keep[page] = entry if not check.rekeyed else {**entry, "files": check.rekeyed}
            else:
                sc = wiki.load(page)
                if sc is None:
                    continue
                self.loaded[page] = sc
                self.keys[page] = (side_key, page_key)
                ids = [c.id for c in sc.claims]
            ids_of[page] = ids
        owner: dict[str, str] = {}  # after every sidecar is read, as Wiki.load_all checks them (duplicate_ids)
        for page in sorted(ids_of):
            for claim_id in ids_of[page]:
                if claim_id in owner:
                    raise StoreError(
                        f"{wiki.sidecar_path(page).relative_to(wiki.root).as_posix()}: claim {claim_id} "
                        f"is also on page {owner[claim_id]}",
                        "claim ids must be unique across the wiki; retract one of them",
                    )
                owner[claim_id] = page


def _write(ws: Any, path: Any, data: dict[str, Any]) -> None:
    from openwiki_git.errors import OpenwikiError
    from openwiki_git.store import wiki as store

    try:
        store.atomic_write(path, dumps(data), root=ws.repo.git_dir)
    except (OSError, OpenwikiError):
        pass  # a read-only git directory, or a link in the way: check without a cache


class _Reuse:
    """Whether a cached entry still holds: the sidecar's and page's stats, the clock, and every
    cited file's key (tracking looked up again when the index changed; a file touched but of the
    same blob keeps the entry, with its new key in `rekeyed`)."""

    def __init__(self, ws: Any, root: str, recheck: bool, started_ns: int) -> None:
        self.ws, self.root, self.recheck, self.started_ns = ws, root, recheck, started_ns
        self.real_dirs: dict[str, str] = {}
        self.files: dict[tuple[str, FileKey], FileKey | None] = {}  # (path, recorded key) -> key now
        self.rekeyed: dict[str, FileKey] | None = None
        self.globs = Globs(ws.repo)
        self.grammar_keys: dict[tuple[str, ...], tuple[Any, ...]] = {}

    def holds(self, entry: Entry, side_key: Any, page_key: Any, now: Any) -> bool:
        self.rekeyed = None
        if side_key is None or side_key != entry["sidecar"] or page_key != entry["page"]:
            return False
        if entry["until"] is not None and now.timestamp() >= entry["until"]:
            return False
        files = entry["files"]
        changed = False
        for path, key in files.items():
            current = self.key(path, key)
            if current is None:
                return False
            changed = changed or current is not key
        if "sets" in entry and not self._sets_hold(entry):
            return False
        if "grammars" in entry and not self._grammars_hold(entry["grammars"]):
            return False
        if changed:
            self.rekeyed = {path: self.files[(path, key)] for path, key in files.items()}
        return True

    def _grammars_hold(self, recorded: tuple[Any, ...]) -> bool:
        names = tuple(name for name, *_ in recorded)
        now = self.grammar_keys.get(names)
        if now is None:
            now = self.grammar_keys[names] = grammars_key(names)
        return now == recorded

    def _sets_hold(self, entry: Entry) -> bool:
        """A page holding a set: each glob's candidates unchanged (looked up again only when the
        index changed) and each file set candidate's presence as recorded."""
        if self.recheck and any(self.globs.candidates(glob) != was for glob, was in entry["sets"].items()):
            return False
        return all(file_holds(self.root, path, key, self.real_dirs) for path, key in entry["members"].items())

    def key(self, path: str, old: FileKey) -> FileKey | None:
        """The file's key now, when `old` still holds for it (touched: same blob, new stat)."""
        got = self.files.get((path, old), False)
        if got is False:
            got = self.files[(path, old)] = self._key(path, old)
        return got

    def _key(self, path: str, old: FileKey) -> FileKey | None:
        repo = self.ws.repo
        if self.recheck:
            tracked = repo.is_tracked(path)
            if (old == "untracked") == tracked:
                return None
        if old == "untracked":
            return old
        if old == "missing":
            return old if file_holds(self.root, path, old, self.real_dirs) else None
        st = file_key_now(self.root, path, self.real_dirs)
        if st is None:
            return None
        if st == old[:4]:
            return old
        if racy(self.started_ns, st):
            return None
        ft = repo.read(path)  # the stat changed: the same blob (touched) keeps the entry
        if ft.blob != old[4] or not verbatim(ft, st[1]):
            return None
        return (*st, ft.blob)


class _FullRule:
    """The full rule on loaded pages (claims/freshness.check_all, against `source`): each page's
    entry as the cache keeps it (summary, notable records, unmarked ids, findings)."""

    def __init__(self, ws: Any, source: str, record: Any, findings: Any, now: Any, keep_results: bool) -> None:
        self.ws, self.record, self.findings, self.now, self.keep_results = ws, record, findings, now, keep_results
        self.resolver = ws.resolver(source)
        self.texts: dict[str, str | None] = {}
        self.by_page: dict[str, list[Any]] = {}

    def page_text(self, page: str) -> str | None:  # read once: by the check, then by the findings
        if page not in self.texts:
            self.texts[page] = self.ws.page_text(page)
        return self.texts[page]

    def judge_loaded(self, judged: Judged, loaded: dict[str, Any]) -> None:
        from openwiki_git.claims import freshness as checker
        from openwiki_git.claims.records import is_plainly_fresh_unmarked

        config, now, record = self.ws.config, self.now, self.record
        results = checker.check_all(loaded, self.resolver, self.page_text, now=now, reverify_after=config.reverify_policy)
        by_page = self.by_page
        for r in results:
            by_page.setdefault(r.page, []).append(r)
        for page, sc in loaded.items():
            rs = by_page.get(page, [])
            text = self.page_text(page)
            if config.strict_openwiki:
                rs = by_page[page] = checker.markers_optional(rs, text)
            judged.sidecars[page] = sc
            if self.keep_results:
                judged.results.extend(rs)
            judged.entries[page] = {
                "summary": checker.summarize(rs),
                "notable": [c for c in map(record, rs) if c is not None],
                # plain but for a missing marker: ids, not records (100,000 of them in a wiki without markers)
                "unmarked": "\n".join(r.claim.id for r in rs if is_plainly_fresh_unmarked(r)),
                "findings": self.findings(page, text, sc),
            }


def _key_pages(ws: Any, judged: Judged, loaded: dict[str, Any], rule: _FullRule, keys: dict[str, Any],
               keep: dict[str, Entry], started_ns: int) -> None:
    """What each judged page's entry depends on (caches/check_keys.py), added to it; the entries
    that can be kept go to `keep`, to be written."""
    from openwiki_git.claims import freshness as checker

    reverify_after = ws.config.reverify_policy
    real_dirs: dict[str, str] = {}
    root = str(ws.repo.root)
    globs = Globs(ws.repo)
    now = rule.now
    for page, sc in loaded.items():
        rs = rule.by_page.get(page, [])
        text = rule.page_text(page)
        stale_after = checker.page_stale_after(text)
        seconds = reverify_after.for_page(page, text) if reverify_after is not None else None
        untils = [checker.next_due_change(c, now, seconds, stale_after) for c in sc.claims]
        until = min((u for u in untils if u is not None), default=None)
        cited = PageKeys(ws, root, rule.resolver, real_dirs, started_ns, globs)
        for claim in sc.claims:
            for ev in claim.evidence:
                cited.add(ev.resource)
        stable = cited.stable and not racy(started_ns, *keys[page]) and not any(may_name_elsewhere(e) for r in rs for e in r.evidence)
        judged_entry = judged.entries[page]
        entry = {
            "sidecar": keys[page][0], "page": keys[page][1], "files": cited.files,
            "summary": judged_entry["summary"], "notable": judged_entry["notable"], "unmarked": judged_entry["unmarked"],
            "ids": "\n".join(c.id for c in sc.claims), "until": until, "findings": judged_entry["findings"],
        }
        if cited.sets:
            entry["sets"], entry["members"] = cited.sets, cited.members
        if cited.grammars:
            entry["grammars"] = cited.grammars_key()
        judged.entries[page] = entry
        if stable and keys[page][0] is not None:
            keep[page] = entry


def _bounded(entries: dict[str, Entry]) -> dict[str, Entry]:
    """The entries to write: all, while their notable records stay under MAX_NOTABLE."""
    out, total = {}, 0
    for page, entry in entries.items():
        total += len(entry["notable"])
        if total <= MAX_NOTABLE:
            out[page] = entry
    return out


def _differs(old: dict[str, Any], new: dict[str, Any]) -> bool:
    if any(old.get(k) != new[k] for k in ("key", "root", "index_path", "wiki_dir", "index", "site", "site_found")):
        return True
    a, b = old["pages"], new["pages"]
    return a.keys() != b.keys() or any(a[p] is not b[p] and a[p] != b[p] for p in b)
