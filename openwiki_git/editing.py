"""Writing one page's claims: the page's citation block and its sidecar, kept in step.

The caller holds the wiki lock. The page is written first, then the sidecar with the page's new
`pageVersion`; each write is atomic and skipped when the bytes would not change.
"""

from __future__ import annotations

from collections.abc import Callable

from openwiki_git import citations
from openwiki_git.model import Sidecar
from openwiki_git.store import Wiki, page_version

PageEdit = Callable[[str], str]


def save_page(wiki: Wiki, sidecar: Sidecar, *, edit: PageEdit | None = None) -> list[str]:
    """Persist `sidecar` and re-render its page's citations; returns the repo paths written."""
    written = []
    page_path = wiki.page_path(sidecar.page)
    data = page_path.read_bytes() if page_path.is_file() else None
    if data is not None:
        text = data.decode("utf-8", errors="replace")
        new_text = edit(text) if edit else text
        new_text = citations.sync(new_text, wiki.repo_path(sidecar.page), sidecar.claims)
        data = new_text.encode("utf-8")
        if wiki.write_bytes(page_path, data):
            written.append(wiki.repo_path(sidecar.page))
    version = page_version(data or b"")
    if wiki.save(sidecar.replace(page_version=version)):
        written.append(wiki.sidecar_path(sidecar.page).relative_to(wiki.root).as_posix())
    return written


def new_sidecar(page: str) -> Sidecar:
    return Sidecar(page=page, page_version=page_version(b""), claims=())
