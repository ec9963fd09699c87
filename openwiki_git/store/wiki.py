"""The wiki on disk: pages, `.claims/` sidecars, atomic writes and the writers' lock. One cohesive
thing: which files of the wiki are pages and sidecars, and how each is read and written.

Every write in openwiki-git goes through `atomic_write`: a temporary file in the target's
directory, fsync, rename. Writers are serialised by `locking.hold` on `<git dir>/openwiki-git.lock`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from openwiki_git.errors import OpenwikiError, StoreError
from openwiki_git.formats import pagenames
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.model import Claim, Evidence, Sidecar
from openwiki_git.pages.indexes import GENERATED_INDEX_MARK, is_generated_index, is_index_name
from openwiki_git.store import listing, locking
from openwiki_git.store.config import Config

if TYPE_CHECKING:
    from openwiki_git.store.site import Site

CLAIMS_DIR = pagenames.CLAIMS_DIR
RESERVED_PAGES = {"index.md", "log.md", "instructions.md", "_plan.md"}
LOCK_NAME = "openwiki-git.lock"


def is_grounded_page(page: str) -> bool:
    """OpenWiki §1.1: a `.md` page (or a Sphinx site's `.rst` one), no `.`/`..`/`.claims` segment,
    not a reserved basename."""
    return is_page_path(page) and page.rsplit("/", 1)[-1].lower() not in RESERVED_PAGES


def is_page_path(page: str) -> bool:
    """A `.md` (or `.rst`) path a page may have: no empty, `.`, `..` or `.claims` segment."""
    parts = page.split("/")
    if not page.endswith((pagenames.MARKDOWN, pagenames.RST)) or any(p in ("", ".", "..") for p in parts):
        return False
    return not any(p.lower() == CLAIMS_DIR for p in parts)


def page_version(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes, *, root: Path, sync: bool = True) -> None:
    """Write `data` to `path` all at once: readers see the old file or the new one, never half.
    `sync=False` for derived data (caches): a file torn by a crash is unreadable, hence rebuilt."""
    _refuse_links(path, root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        rel = path.relative_to(root).as_posix()
        raise StoreError(f"{rel}: cannot write: {e.strerror or e}", "make the directory writable") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _refuse_links(path: Path, root: Path) -> None:
    rel = path.relative_to(root)
    current = root
    for part in rel.parts:
        current = current / part
        if current.is_symlink():
            raise StoreError(f"{rel.as_posix()}: refusing to write through the symlink {current.relative_to(root)}")


def _refusal(refused: listing.Refused, root: Path) -> StoreError:
    """What the wiki says of an entry the lister refused (store/listing.py)."""
    if refused.kind == listing.NAME:  # a name the wiki cannot record (sidecar paths and links are UTF-8 text)
        shown = os.fsencode(os.path.relpath(refused.path, root)).decode("utf-8", "backslashreplace")
        return StoreError(f"{shown}: the file name is not valid UTF-8", "rename the file (wiki paths are UTF-8)")
    rel = Path(refused.path).relative_to(root).as_posix()
    if refused.kind == listing.LINK:
        return StoreError(f"{rel}: a symlink under {CLAIMS_DIR}/ is refused", "replace the link with the file or directory")
    return StoreError(f"{rel}: a directory where a sidecar belongs", "move the directory away")


def _keep_stored_tokens(sidecar: Sidecar, stored: Sidecar | None) -> Sidecar:
    """OpenWiki mode: a token whose text is unchanged at the same resource stays as OpenWiki
    wrote it (refreshed anchors are ours; OpenWiki keeps the previous token verbatim), so only
    evidence whose text or place changed gets a new token."""
    if stored is None:
        return sidecar
    tokens = {(c.id, e.resource): e.version for c in stored.claims for e in c.evidence}

    def keep(claim_id: str, ev: Evidence) -> Evidence:
        old = tokens.get((claim_id, ev.resource))
        if old is None or old == ev.version or old.split(":")[:3] != ev.version.split(":")[:3]:
            return ev
        return dataclasses.replace(ev, version=old)  # the same text: keep the stored token

    claims = tuple(c.replace(evidence=tuple(keep(c.id, e) for e in c.evidence)) for c in sidecar.claims)
    return sidecar.replace(claims=claims)


class Wiki:
    """One repository's wiki: the directory named by the config, its pages and sidecars."""

    def __init__(self, root: Path, config: Config, git_dir: Path | None = None) -> None:
        self.root = root
        self.config = config
        self.git_dir = git_dir or (root / ".git")
        self.wiki_dir = config.wiki_dir
        self.wiki_path = root / config.wiki_dir
        self.claims_path = root / pagenames.claims_folder(config.wiki_dir)

    @functools.cached_property
    def site(self) -> Site | None:
        """The docs site the wiki folder is the source of (site mode), or None: a plain wiki."""
        from openwiki_git.store.site import detect

        return detect(self.root, self.config)

    def require(self, where: str | None = None) -> None:
        """The wiki directory exists, is a real directory inside the repository, and so is its
        `.claims/`. `where` says who named it: "--wiki-dir", "config" or None (the default)."""
        rel = self.wiki_dir
        if self.wiki_path.is_symlink() or not self.wiki_path.resolve().is_relative_to(self.root.resolve()):
            raise StoreError(
                f"{rel}: the wiki directory is a symlink or leads outside the repository", "keep the wiki in the repository, as a directory"
            )
        if self.wiki_path.exists() and not self.wiki_path.is_dir():
            raise StoreError(f"{rel}: the wiki directory is a file", "name a directory with --wiki-dir or the config's wiki_dir")
        if not self.wiki_path.is_dir():
            if where == "--wiki-dir":
                raise StoreError(
                    f"--wiki-dir {rel}: no such directory in {self.root}", "name the wiki directory, or create it with `openwiki-git init`"
                )
            if where == "config":
                raise StoreError(
                    f".openwiki/config.yml: $.wiki_dir: {rel} does not exist", "fix wiki_dir, or create the wiki with `openwiki-git init`"
                )
            raise StoreError(f"{self.root}: no wiki here ({rel}/ does not exist)", "run `openwiki-git init` to create one")
        if self.claims_path.is_symlink() or (self.claims_path.exists() and not self.claims_path.is_dir()):
            raise StoreError(f"{rel}/{CLAIMS_DIR}: not a directory", f"move it away; {CLAIMS_DIR}/ holds the sidecars")

    # -- paths -------------------------------------------------------------------------------
    def page_path(self, page: str) -> Path:
        return self.wiki_path / page

    def sidecar_path(self, page: str) -> Path:
        return self.root / pagenames.sidecar_path(self.wiki_dir, page)

    def repo_path(self, page: str) -> str:
        """The page's path relative to the repository root (`.openwiki/guides/a.md`)."""
        return f"{self.wiki_dir}/{page}"

    def normalize_page(self, arg: str) -> str:
        """Accept `guides/a.md`, `guides/a`, `.openwiki/guides/a.md` or a path from the cwd."""
        page = arg.replace("\\", "/").strip()
        candidate = Path(page)
        if candidate.is_absolute() or (Path.cwd() / candidate).exists():
            with contextlib.suppress(ValueError):
                page = (Path.cwd() / candidate).resolve().relative_to(self.wiki_path.resolve()).as_posix()
        if page.startswith(self.wiki_dir + "/"):
            page = page[len(self.wiki_dir) + 1 :]
        if not page.endswith((".md", pagenames.RST)):
            page += ".md"
        if not is_grounded_page(page) and not self._landing_page(page):
            if self._landing_page(page, written_by_us=True):
                raise StoreError(
                    f"{self.repo_path(page)}: an index openwiki-git generated, not a wiki page that can hold claims",
                    f"name another page; to make it your own page, remove its line {GENERATED_INDEX_MARK}",
                )
            raise StoreError(
                f"{arg}: not a wiki page that can hold claims",
                f"name a .md page under {self.wiki_dir}/ other than log.md or a generated index.md",
            )
        if not (self.page_path(page).is_file() or self.sidecar_path(page).is_file()):
            raise StoreError(f"{self.repo_path(page)}: no such page", "name an existing page, or write it first")
        return page

    def _landing_page(self, page: str, *, written_by_us: bool = False) -> bool:
        """Is `page` an index.md that is a page: written by hand, not generated (is_generated_index)?
        With `written_by_us`: is it one the tool generated? (OpenWiki wikis: never a page, by name.)"""
        if self.config.strict_openwiki or not is_index_name(page) or not is_page_path(page):
            return False
        path = self.page_path(page)
        try:
            if path.is_symlink():
                return False
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        return is_generated_index(text) == written_by_us

    # -- discovery ---------------------------------------------------------------------------
    def pages(self) -> list[str]:
        """Grounded pages, sorted by byte order; symlinks and `.claims` are skipped. A hand-written
        index.md (a project's landing page) is a page; a generated one is not."""
        listed = self._listed(lambda: listing.files(self.wiki_path, self.page_suffixes, skip=CLAIMS_DIR))
        return sorted(p for p in listed if is_grounded_page(p) or self._landing_page(p))

    @property
    def page_suffixes(self) -> tuple[str, ...]:
        """Markdown pages; and reStructuredText ones on a Sphinx site, which builds them."""
        sphinx = self.site is not None and self.site.generator == "sphinx"
        return (pagenames.MARKDOWN, pagenames.RST) if sphinx else (pagenames.MARKDOWN,)

    def sidecar_pages(self) -> list[str]:
        """Pages that have a sidecar (whether or not the page itself still exists).

        Unlike pages, a symlinked sidecar or directory under `.claims/` is refused, not skipped:
        skipping it would silently drop its claims from every check (OpenWiki: fatal). So is a
        page with a sidecar that is a symlink leading outside the repository (check, validate
        and the hook all list pages here, as check's fast paths do: store/listing.py)."""
        for link in (self.wiki_path, self.claims_path):
            if link.is_symlink():
                raise StoreError(f"{link.relative_to(self.root).as_posix()}: a symlink is refused", "replace the link with the directory")
        pages = self._listed(lambda: listing.sidecar_pages(self.claims_path))
        for page in pages:
            path = self.page_path(page)
            if path.is_symlink() and not path.resolve().is_relative_to(self.root.resolve()):
                raise StoreError(
                    f"{self.repo_path(page)}: a symlink leading outside the repository (refused)",
                    "replace the link with the page itself; a page and what it cites stay in the repository",
                )
        return pages

    def _listed(self, walk: Callable[[], Iterable[str]]) -> list[str]:
        """What `walk` lists (store/listing.py), an entry it refuses said as the wiki says it."""
        try:
            return list(walk())
        except listing.Refused as refused:
            raise _refusal(refused, self.root) from None

    # -- sidecars ----------------------------------------------------------------------------
    def load(self, page: str) -> Sidecar | None:
        return self.load_bytes(page)[1]

    def load_bytes(self, page: str) -> tuple[bytes | None, Sidecar | None]:
        """The sidecar's bytes as read and the sidecar parsed from them, (None, None) when the
        page has none: the hook needs both (the blob id of what it judged), from one read."""
        path = self.sidecar_path(page)
        rel = path.relative_to(self.root).as_posix()
        if path.is_symlink():
            raise StoreError(f"{rel}: a symlinked sidecar is refused", "replace the link with the file")
        try:
            data = path.read_bytes()
            text = data.decode("utf-8")
        except FileNotFoundError:
            return None, None
        except (OSError, UnicodeDecodeError) as e:
            raise StoreError(f"{rel}: cannot read: {e}") from None
        sidecar = sidecar_codec.loads(text, filename=rel, page=page, wiki_dir=self.wiki_dir)
        if self.config.strict_openwiki:
            sidecar = self._merge_front_matter_marks(sidecar)
        return data, sidecar

    def _merge_front_matter_marks(self, sidecar: Sidecar) -> Sidecar:
        """OpenWiki mode: the marks live in the page's front matter (`x-openwiki-git-marks`),
        since OpenWiki's strict reader refuses them in a sidecar. Cheap when there are none."""
        from openwiki_git.pages import okf

        try:
            page_text = self.page_path(sidecar.page).read_bytes().decode("utf-8", errors="replace")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return sidecar
        return okf.merge_marks(sidecar, okf.read_marks(page_text, filename=self.repo_path(sidecar.page)))

    def load_all(self, load: Callable[[str], Sidecar | None] | None = None) -> dict[str, Sidecar]:
        """Every sidecar, keyed by page. A claim id on two pages is an error naming both.
        `load` stands in for `self.load` (check's cache answers it for unchanged sidecars)."""
        load = load or self.load
        out: dict[str, Sidecar] = {}
        for page in self.sidecar_pages():
            sc = load(page)
            if sc is not None:
                out[page] = sc
        self.require_unique_ids(out)
        return out

    def duplicate_ids(self, sidecars: dict[str, Sidecar]) -> list[str]:
        """One `file: problem` line per claim id that is on two pages of `sidecars`."""
        owner: dict[str, str] = {}
        found = []
        for page in sorted(sidecars):
            for claim in sidecars[page].claims:
                if claim.id in owner:
                    rel = self.sidecar_path(page).relative_to(self.root).as_posix()
                    found.append(f"{rel}: claim {claim.id} is also on page {owner[claim.id]}")
                else:
                    owner[claim.id] = page
        return found

    def require_unique_ids(self, sidecars: dict[str, Sidecar]) -> None:
        """Refuse sidecars in which one claim id is on two pages (a copied sidecar): a writer
        would otherwise update one of them and a check would count the claim twice."""
        found = self.duplicate_ids(sidecars)
        if found:
            raise StoreError(found[0], "claim ids must be unique across the wiki; retract one of them")

    def find_claim(self, claim_id: str, sidecars: dict[str, Sidecar] | None = None) -> tuple[str, Sidecar, Claim]:
        """The claim with this id (or `claim_`-less id, or a unique prefix of 8+ characters, or the
        label pages print: `c-1a2b3c4d`, `[^c-1a2b3c4d]`, `<!-- c-1a2b3c4d -->`); an old id of
        claims merged into one (a sidecar's `aliases`) finds the merged claim."""
        sidecars = self.load_all() if sidecars is None else sidecars
        bare = claim_id.strip()
        if bare.startswith("[^") and bare.endswith("]"):
            bare = bare[2:-1]
        elif bare.startswith("<!--") and bare.endswith("-->"):
            bare = bare[4:-3].strip()
        bare = bare.removeprefix("c-") if bare.startswith("c-") else bare
        wanted = bare if bare.startswith("claim_") else f"claim_{bare}"
        found = [(p, sc, c) for p, sc in sidecars.items() for c in sc.claims if c.id.startswith(wanted)]
        exact = [f for f in found if f[2].id == wanted]
        if exact:
            return exact[0]
        if len(found) == 1 and len(wanted) >= len("claim_") + 8:
            return found[0]
        if not found:  # an id that claims of one sentence were merged from (lint --fix) resolves to the merged one
            merged = {new for sc in sidecars.values() for old, new in sc.aliases
                      if old == wanted or (old.startswith(wanted) and len(wanted) >= len("claim_") + 8)}
            hits = [(p, sc, c) for p, sc in sidecars.items() for c in sc.claims if c.id in merged]
            if len(hits) == 1:
                return hits[0]
        why = "is ambiguous" if found else "does not exist"
        raise StoreError(f"claim {claim_id!r} {why}", "run `openwiki-git claim list` to see the ids")

    def save(self, sidecar: Sidecar) -> bool:
        """Write the sidecar if its bytes change; returns whether it was written."""
        if self.config.strict_openwiki:
            sidecar = self._openwiki_sidecar(sidecar)
        data = sidecar_codec.dumps(sidecar).encode("utf-8")
        return self.write_bytes(self.sidecar_path(sidecar.page), data)

    def _openwiki_sidecar(self, sidecar: Sidecar) -> Sidecar:
        """OpenWiki mode: the sidecar reduced to what OpenWiki's strict reader accepts. Marks move
        to the page's front matter (`x-openwiki-git-marks`; a page without front matter cannot
        keep them), and claims' verification times fold into the sidecar's `verification`."""
        from openwiki_git.pages import okf

        path = self.page_path(sidecar.page)
        if path.is_file():
            text = path.read_bytes().decode("utf-8", errors="replace")
            new_text = okf.with_marks(text, sidecar.claims, filename=self.repo_path(sidecar.page))
            if new_text != text:
                data = new_text.encode("utf-8")
                self.write_bytes(path, data)
                sidecar = sidecar.replace(page_version=page_version(data))
        sidecar = _keep_stored_tokens(sidecar, self._stored(sidecar.page))
        return okf.fold_verification(sidecar).for_openwiki()

    def _stored(self, page: str) -> Sidecar | None:
        """The sidecar as it is on disk, or None (missing or unreadable: nothing to keep)."""
        try:
            text = self.sidecar_path(page).read_text("utf-8")
            return sidecar_codec.loads(text, filename=page, page=page, wiki_dir=self.wiki_dir)
        except (OSError, UnicodeDecodeError, OpenwikiError):
            return None

    def remove_file(self, path: Path) -> bool:
        """Delete one file of the wiki (a moved sidecar's old copy); False when it is not there."""
        _refuse_links(path, self.root)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True

    def require_writable(self, path: Path) -> None:
        """Refuse, before anything is written, a target that cannot take a file: a directory in
        its place, a file where one of its directories belongs, or a symlink on the way."""
        _refuse_links(path, self.root)
        rel = path.relative_to(self.root).as_posix()
        if path.is_dir():
            raise StoreError(f"{rel}: a directory where a file belongs", "move the directory away")
        for parent in path.parents:
            if parent == self.root or not parent.is_relative_to(self.root):
                break
            if parent.exists() and not parent.is_dir():
                raise StoreError(f"{parent.relative_to(self.root).as_posix()}: a file where a directory belongs", "move the file away")

    def write_bytes(self, path: Path, data: bytes) -> bool:
        try:
            if path.read_bytes() == data:
                return False
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            pass
        atomic_write(path, data, root=self.root)
        return True

    def page_version(self, page: str) -> str:
        try:
            return page_version(self.page_path(page).read_bytes())
        except FileNotFoundError:
            return page_version(b"")

    # -- locking -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Serialise writers (hook, fix, refresh, claim) across processes; the wait is bounded."""
        with locking.hold(self.git_dir / LOCK_NAME):
            yield
