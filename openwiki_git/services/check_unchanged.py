"""The quick judge, stage 2 of check's chain (services/check_chain.run): with the cache off (`check
--no-cache`, CI's usual run), each page whose every cited range is unchanged is answered with the
standard library and the pure modules that state the rules, none of git's, the model's or the
checker's machinery (pygit2, dataclasses, YAML, relocation) imported; a wiki whose every page it
answers (every claim plainly fresh) is reported without them.

A claim is plainly fresh when its sidecar entry is plain (sidecar_common.common_claim: no mark,
canonical line ranges) and each evidence item's token is exactly the token of its recorded lines
now (tokens.unchanged_lines): the checker then finds it fresh, unchanged, where it was, and its
report record follows from the sidecar alone (claims/records.fresh_record_data). So a page's answer
is the check cache's entry without a notable claim, which tests/services/test_check_unchanged.py
compares with the full rule's.

A page is left to the full rule (`UnchangedAnswer.rest`), which has the last word and every message, on
anything the quick judge is not sure of: a page that is a symlink or missing, a sidecar the plain
rules do not accept, a page with `stale_after`, a claim a tool verified (ground's: broken
references) or citing a Markdown document (its standing), a cited file that is untracked, a
symlink, binary, not UTF-8 or holding a CR (line-ending rules), any evidence not plainly fresh.
`answer_unchanged()` returns None, "the full rule judges every page", on what concerns the whole wiki: an
environment override of git's paths, an index or HEAD libgit2 should read, a config the flat
reader leaves to YAML (or one asking for due dates, OpenWiki's format, a verify policy), a wiki
that is a symlink, a claim id on two of the pages it answers. Its reading is the full rule's: the
cited files are git's tracked working-tree files, each read once; a page's markers are found as
citations.markers_in finds them. A large wiki's pages are judged in two processes (parallel.py:
the same per-page function in a forked child for about half of them), with the same answer as in one.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator

from openwiki_git import parallel
from openwiki_git.caches import check_entries as checkcache
from openwiki_git.claims import records
from openwiki_git.errors import ConfigError
from openwiki_git.evidence.tokens import CONTEXT_LINES, unchanged_lines
from openwiki_git.formats import flatconfig, pagenames
from openwiki_git.formats.flatconfig import CONFIG_DIR, CONFIG_NAME, DEFAULT_WIKI_DIR, OPENWIKI_WIKI_DIR
from openwiki_git.formats.sidecar_common import common_claim, plain_claims
from openwiki_git.formats.yamlio import MAX_BYTES as CONFIG_MAX_BYTES  # a larger config is refused unread
from openwiki_git.git import tracked
from openwiki_git.pages.markers import markers_in
from openwiki_git.store import listing

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

CONFIG = os.path.join(CONFIG_DIR, CONFIG_NAME)  # store/config.config_path, without its imports
# Settings that change nothing for a plainly fresh claim (the hook's, relocation's, a stale range's).
NEUTRAL_SETTINGS = {"wiki_dir", "adjacent_insert", "rename_threshold", "max_growth", "cosmetic_edits",
                    "range_growth_factor", "range_growth_lines", "hook"}

# A page's claims as the report lists them: the FreshRecord tuple of each (records.FreshRecord) and whether its
# marker is in the page's prose.
PageClaims = list[tuple[records.FreshRecord, bool]]
# Below this many bytes of sidecars in all, the pages are judged in one process: the fork, the
# marshalling and the copy-on-write faults cost about what half the judging saves. Measured
# (check_unchanged.answer_unchanged in fresh processes, 8 each, median one process / two; bench_check.build's
# repositories, about 0.95 kB of sidecar a claim): 500 claims (0.5 MB) 8.0 / 11.8 ms; 1,000
# (1.0 MB) 14.5 / 16.9 ms; 2,000 (1.9 MB) 26.8 / 27.9 ms; 4,000 (3.8 MB) 53.3 / 49.0 ms; 10,000
# (9.4 MB) about 150-220 / 90-125 ms (docs/benchmarks.md). check --base's scan of the sidecars
# shares them from the same size (services/check_chain.py).
SPLIT_MIN_BYTES = 2_500_000
# A cited range: the file, its 0-based half-open span and the token recorded for it.
Cited = tuple[str, int, int, str]
# A claim as read from its sidecar: id, statement, its resources, its cited ranges, verifiedAt.
SidecarClaim = tuple[str, str, tuple[str, ...], tuple[Cited, ...], str | None]


class UnchangedAnswer:
    """What the quick judge found: the wiki directory, the pages it answered (sorted), each one's
    entry as the check cache keeps it (summary, no notable claim, the unmarked ids, no finding;
    and its claim ids) and every claim in order (`items(page)`), for services/check_chain.py's report;
    `rest`: the pages it could not answer (the full rule judges them); `site`: whether a docs
    site builds the wiki folder (site mode: the markers' form; the config's `site:` is left to
    the full path)."""

    __slots__ = ("wiki_dir", "pages", "entries", "claims", "site", "rest")

    def __init__(self, wiki_dir: str, pages: list[str], entries: dict[str, Any], claims: dict[str, PageClaims], site: bool,
                 rest: list[str] | None = None) -> None:
        self.wiki_dir, self.pages, self.entries, self.claims, self.site = wiki_dir, pages, entries, claims, site
        self.rest = rest or []  # the pages left to the full rule

    def items(self, page: str) -> Iterator[records.Item]:
        for plain, marked in self.claims[page]:
            yield plain if marked else records.fresh_record_data(*plain, marker_present=False, site=self.site)


def answer_unchanged(directory: str | None, wiki_dir_arg: str | None) -> UnchangedAnswer | None:
    """The quick judge's answer for the repository at `directory` (None: the current directory):
    the pages it answers, and those it leaves to the full rule (`rest`); None when the full rule
    must judge every page (see the module's docstring: what it is unsure of for the whole wiki)."""
    with checkcache.no_gc():  # tens of thousands of records and no cycles: skip the collector's passes
        return _answer_unchanged(directory, wiki_dir_arg)


def _answer_unchanged(directory: str | None, wiki_dir_arg: str | None) -> UnchangedAnswer | None:
    found = checkcache.locate(directory)
    if found is None:
        return None
    root, git_dir, common = found
    if not tracked.opens_quietly(root, git_dir, common, directory):
        return None
    wiki_dir = _wiki_dir(root, wiki_dir_arg)
    if wiki_dir is None:
        return None
    wiki = os.path.join(root, wiki_dir)
    pages = listing.sidecar_pages_or_none(pagenames.claims_folder(wiki))  # as Wiki.sidecar_pages lists them, when it would without a word
    if pages is None:
        return None
    files = _CitedFiles(root, git_dir)

    def page_answer(page: str) -> tuple[list[str], tuple[dict[str, Any], PageClaims]] | None:
        claims = _plain_sidecar(pagenames.sidecar_path(wiki, page), wiki_dir.lower())
        if claims is None or not files.read(claims):
            return None
        judged = _judge_page(os.path.join(wiki, page), page, f"{wiki_dir}/{page}", claims, files.lines)
        return None if judged is None else ([c[0] for c in claims], judged)

    answers = _split_answers(pages, wiki, files, page_answer)
    ids: set[str] = set()
    entries: dict[str, Any] = {}
    listed: dict[str, PageClaims] = {}
    rest = []
    for page in pages:
        answer = page_answer(page) if answers is None else answers[page]
        if not answer:  # a claim not plainly fresh, or a page or sidecar not plain: the full rule judges the page
            rest.append(page)
            continue
        page_ids, (entries[page], listed[page]) = answer
        count = len(ids)
        ids.update(page_ids)
        if len(ids) != count + len(page_ids):  # an id twice, on one page (sidecar.loads refuses it) or on two (Wiki.load_all)
            return None
        entries[page]["ids"] = "\n".join(page_ids)  # for the full rule's check of the ids across the wiki
    from openwiki_git.caches.site import site_found

    return UnchangedAnswer(wiki_dir, [p for p in pages if p in entries], entries, listed, site_found(root, wiki_dir) is not None, rest)


def _split_answers(pages: list[str], wiki: str, files: _CitedFiles,
                   page_answer: Callable[[str], Any]) -> dict[str, Any] | None:
    """Every page's answer judged on two CPUs (parallel.map_in_halves), when the wiki is large
    enough; else None (judged here in one process). A page not answered is answered False."""
    if len(pages) < 2 or not parallel.may_fork():  # then no sidecar's size is asked
        return None
    sizes = []
    try:
        for page in pages:
            sizes.append(os.lstat(pagenames.sidecar_path(wiki, page)).st_size)
    except OSError:
        return None
    if sum(sizes) < SPLIT_MIN_BYTES:
        return None
    files.read_index()  # once, before the fork: both processes need it
    answers = parallel.map_in_halves(pages, sizes, lambda page: page_answer(page) or False)  # False: the page is the full rule's
    if answers is parallel.NOT_SPLIT:
        return None
    return dict.fromkeys(pages) if answers is None else answers  # type: ignore[return-value]


def sidecars_split() -> Callable[[list[str], list[int], Callable[[str], Any]], dict[str, Any] | None] | None:
    """check --base's one-shot scan of the sidecars (caches/cites.CiteIndex's `split`) shared with
    a second process as the pages are here, from SPLIT_MIN_BYTES of them (parallel.py); None when
    this process may not fork."""
    if not parallel.may_fork():
        return None

    def split(items: list[str], sizes: list[int], answer: Callable[[str], Any]) -> dict[str, Any] | None:
        return parallel.map_all_in_halves(items, sizes, answer, min_size=SPLIT_MIN_BYTES)

    return split


def _wiki_dir(root: str, wiki_dir_arg: str | None) -> str | None:
    """The wiki directory as store/config.load_config decides it, when the config is absent or a
    flat one of settings that change nothing for a plainly fresh claim; else None."""
    path = os.path.join(root, CONFIG)
    settings: dict[str, Any] = {}
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError:
        return None
    if st is not None:
        if not stat.S_ISREG(st.st_mode) or st.st_size > CONFIG_MAX_BYTES:
            return None
        try:
            with open(path, "rb") as fh:
                simple = flatconfig.simple_config(fh.read().decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            return None
        if simple is None or not NEUTRAL_SETTINGS.issuperset(simple):
            return None
        settings = simple
    if wiki_dir_arg is not None:
        wiki_dir = wiki_dir_arg
    else:
        wiki_dir = flatconfig.configured_wiki_dir(settings, lambda d: os.path.isdir(os.path.join(root, d)))
    try:
        cleaned = flatconfig.clean_wiki_dir(wiki_dir or DEFAULT_WIKI_DIR)
    except ConfigError:
        return None
    if cleaned == OPENWIKI_WIKI_DIR:
        return None  # an OpenWiki wiki: its format's rules (markers optional, marks in front matter)
    wiki = os.path.join(root, cleaned)
    # Wiki.require: a real directory inside the repository, with a real .claims/ directory.
    if os.path.realpath(wiki) != wiki or not os.path.isdir(wiki):
        return None
    claims = pagenames.claims_folder(wiki)
    return cleaned if not os.path.islink(claims) and os.path.isdir(claims) else None


def _plain_sidecar(path: str, wiki: str) -> list[SidecarClaim] | None:
    """A sidecar's claims as (id, statement, resources, cited ranges, verifiedAt) when the careful reader would
    accept every one as it is (sidecar_common) and none is a tool's (ground's claims bring broken
    references) or cites a Markdown document (its standing is the graph's); else None."""
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8")
        claims = plain_claims(json.loads(text))
    except (OSError, ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if claims is None or "\\u" in text:  # an escape may spell a lone surrogate: the careful reader decides
        return None
    out: list[SidecarClaim] = []
    for raw in claims:
        claim = common_claim(raw, wiki, token_forms=False)  # every token is compared exactly below
        if claim is None:
            return None
        claim_id, statement, evidence, verified_at, verified_by = claim
        if verified_by is not None and verified_by.startswith("tool:"):
            return None
        if len(evidence) == 1:  # the common case, without the loop's lists
            resource, version, _, (path, start, end) = evidence[0]
            if ".md" in resource or start is None or end is None:  # a document, or a whole file's token (relocation's)
                return None
            out.append((claim_id, statement, (resource,), ((path, start - 1, end, version),), verified_at))
            continue
        resources, cited = [], []
        for resource, version, _, (path, start, end) in evidence:
            if ".md" in resource or start is None or end is None:
                return None
            resources.append(resource)
            cited.append((path, start - 1, end, version))
        out.append((claim_id, statement, tuple(resources), tuple(cited), verified_at))
    return out


class _CitedFiles:
    """The cited files' lines (UTF-8 bytes, terminators kept), each file read once as git/repo.py's
    working-tree reader reads it, when that reading is plain: tracked (the index, read when first
    needed), a regular file reached through no symlink, text without NUL or CR (no line-ending
    rule applies), valid UTF-8 (no replacement character), not a Git LFS pointer."""

    def __init__(self, root: str, git_dir: str) -> None:
        self.root, self.git_dir = root, git_dir
        self.tracked: frozenset[str] | None = None
        self.lines: dict[str, list[bytes]] = {}  # as far as the ranges judged so far need
        self.whole: set[str] = set()  # the files whose every line is in `lines`
        self.data: dict[str, bytes] = {}
        self.real_dirs: dict[str, str] = {}

    def read(self, claims: list[SidecarClaim]) -> bool:
        """Every file these claims cite read (and split as far as their ranges' context needs);
        False when one is not plain."""
        needed: dict[str, int] = {}
        for c in claims:
            for path, _, end0, _ in c[3]:
                if needed.get(path, 0) < end0 + CONTEXT_LINES:
                    needed[path] = end0 + CONTEXT_LINES
        for path, count in needed.items():
            lines = self.lines.get(path)
            if lines is not None and (len(lines) >= count or path in self.whole):
                continue
            data = self.data.get(path)
            if data is None:
                data = self._read(path)
                if data is None:
                    return False
                self.data[path] = data
            self.lines[path], whole = _first_lines(data, count)
            if whole:
                self.whole.add(path)
        return True

    def read_index(self) -> frozenset[str]:
        """The tracked paths (git's index read the first time)."""
        if self.tracked is None:
            self.tracked = tracked.tracked_paths(os.path.join(self.git_dir, "index")) or frozenset()
        return self.tracked

    def _read(self, path: str) -> bytes | None:
        if path not in self.read_index():
            return None
        root = self.root
        full = root + "/" + path
        parent, _, name = path.rpartition("/")
        real_dir = self.real_dirs.get(parent)
        if real_dir is None:
            real_dir = self.real_dirs[parent] = os.path.realpath(root + "/" + parent if parent else root)
        if real_dir + "/" + name != full:  # reached through a symlinked directory
            return None
        try:
            # a symlink: ELOOP; a FIFO must not block the open (it is not read: not a regular file)
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            data = os.read(fd, st.st_size + 1) if stat.S_ISREG(st.st_mode) else None
            if data is not None and len(data) != st.st_size:
                data = None  # changed while read: the full path reads it again
        except OSError:
            data = None
        finally:
            os.close(fd)
        if data is None or b"\0" in data or b"\r" in data or data.startswith(tracked.LFS_POINTER) or not (data.isascii() or _utf8(data)):
            return None
        return data


def _first_lines(data: bytes, count: int) -> tuple[list[bytes], bool]:
    """The first `count` lines of `data` (terminators kept; every line when it has no more), split
    at \\n alone (there is no \\r), and whether they are all its lines. A token of a range ending
    CONTEXT_LINES before line `count` reads no further, and unchanged_lines finds every such range
    inside them, and its context after it complete, as in the whole file."""
    parts = data.split(b"\n", count)
    if len(parts) <= count:
        return data.splitlines(keepends=True), True
    return data[: len(data) - len(parts[-1])].splitlines(keepends=True), False


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _judge_page(
    path: str, page: str, page_path: str, claims: list[SidecarClaim], texts: dict[str, list[bytes]]
) -> tuple[dict[str, Any], PageClaims] | None:
    """A page's entry and claims when every claim is plainly fresh, else None. The page must be
    a regular file (ws.page_text reads it with universal newlines: no CR) of valid UTF-8 without
    a `stale_after` (a due date); a claim whose marker is missing is plain but for it."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        with open(path, "rb") as fh:
            data = fh.read()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if "\r" in text or "stale_after" in text:
        return None
    markers = markers_in(text)
    listed: PageClaims = []
    unmarked = []
    for claim_id, statement, resources, cited, verified_at in claims:
        for path, start0, end0, version in cited:
            if not unchanged_lines(texts[path], start0, end0, version):
                return None
        marked = "c-" + claim_id[6:14] in markers  # citations.label: the id is claim_<32 hex> (common_claim)
        if not marked:
            unmarked.append(claim_id)
        listed.append(((page, page_path, claim_id, statement, resources, verified_at), marked))
    n = len(claims)
    summary = {"total": n, "fresh": n, "stale": 0, "unresolved": 0, "missing_markers": len(unmarked), "due": 0}
    return {"summary": summary, "notable": [], "unmarked": "\n".join(unmarked), "findings": {}}, listed
