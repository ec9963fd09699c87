"""Opens what a command works on: the git repository, the config and the wiki, and the source
that evidence is read from. Commands build one Workspace; nothing below commands/ reads argv."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from openwiki_git.claims.freshness import EvidenceResolver
from openwiki_git.git.repo import Repo
from openwiki_git.model import FileText
from openwiki_git.store.config import Config, load_config
from openwiki_git.store.wiki import Wiki

SOURCES_HELP = "where evidence is read: worktree (default), index, or a revision such as HEAD"
CACHE_DIR = "openwiki-git"  # under the git directory: derived data, outside version control


@dataclass
class Workspace:
    repo: Repo
    config: Config
    wiki: Wiki

    @classmethod
    def open(cls, start: Path | None = None, *, wiki_dir: str | None = None, require_wiki: bool = True) -> Workspace:
        """The repository, its config and its wiki. With `require_wiki` (every command but those
        that create a wiki) a wiki directory that is not there is an error, never an empty wiki:
        a typo in --wiki-dir or the config must not pass as "0 claims"."""
        return cls.on(Repo(start), wiki_dir=wiki_dir, require_wiki=require_wiki)

    @classmethod
    def on(cls, repo: Repo, *, wiki_dir: str | None = None, require_wiki: bool = True, git_dir: Path | None = None) -> Workspace:
        """The config and the wiki of an opened (or cache-located) repository; see open()."""
        config = load_config(repo.root, wiki_dir=wiki_dir)
        wiki = Wiki(repo.root, config, git_dir or repo.git_dir)
        if require_wiki:
            where = "--wiki-dir" if wiki_dir is not None else ("config" if "wiki_dir" in config.raw else None)
            wiki.require(where)
        return cls(repo, config, wiki)

    def reader(self, source: str = "worktree"):  # type: ignore[no-untyped-def]
        if source not in ("worktree", "index"):
            self.repo.commit_id(source)  # fail early, with a clear message, on an unknown revision

        def read(path: str) -> FileText:
            return self.repo.read(path, source)

        return read

    def cache_path(self, name: str) -> Path:
        """A cache file: `<git dir>/openwiki-git/<name>` (shared by the repository's worktrees)."""
        return self.repo.git_dir / CACHE_DIR / name

    def resolver(self, source: str = "worktree") -> EvidenceResolver:
        growth = (self.config.range_growth_factor, self.config.range_growth_lines)
        resolver = EvidenceResolver(self.reader(source), max_growth=self.config.max_growth, growth=growth)
        resolver.tracked = self.tracked(source)
        return self.configure(resolver)

    def configure(self, resolver: EvidenceResolver) -> EvidenceResolver:
        """The config's cosmetic-edit settings, and the repository's blobs to read verified text."""
        resolver.cosmetic_edits = self.config.cosmetic_edits
        resolver.cosmetic_annotations = self.config.cosmetic_annotations
        resolver.cosmetic_parameters_added = self.config.cosmetic_parameters_added
        resolver.blob_text = self.repo.blob_text
        return resolver

    def tracked(self, source: str = "worktree"):  # type: ignore[no-untyped-def]
        """The tracked paths at `source`, listed once, when a glob in evidence asks."""
        listed: list[list[str]] = []

        def paths() -> list[str]:
            if not listed:
                listed.append(self.repo.tracked_paths(source))
            return listed[0]

        return paths

    def page_text(self, page: str) -> str | None:
        try:
            return self.wiki.page_path(page).read_text("utf-8")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None
        except UnicodeDecodeError:
            return self.wiki.page_path(page).read_bytes().decode("utf-8", errors="replace")


def now_iso() -> str:
    """Now, in UTC with an explicit offset (OKF: never a naive local time)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
