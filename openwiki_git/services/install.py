"""`install`'s work: the sidecar merge driver configured in `.git/config` and named for the
sidecars and pages in `.gitattributes`. Idempotent. (The driver line is run as written by
tests/cli/test_merge_driver.py.)"""

from __future__ import annotations

from openwiki_git.formats import pagenames
from openwiki_git.store.wiki import atomic_write
from openwiki_git.store.workspace import Workspace

DRIVER_NAME = "openwiki-git"
DRIVER = "openwiki-git merge-driver %O %A %B %P"
DESCRIPTION = "openwiki-git sidecars, merged claim by claim"


def attributes_lines(wiki_dir: str) -> list[str]:
    return [
        f"{pagenames.claims_folder(wiki_dir)}/**/*.json merge={DRIVER_NAME}", f"{wiki_dir}/**/*.md merge={DRIVER_NAME}",
        f"{wiki_dir}/**/*.rst merge={DRIVER_NAME}",
    ]


def install(ws: Workspace) -> list[str]:
    """Set what is missing; what was set (`git config KEY`, `.gitattributes`)."""
    changed = []
    for key, value in ((f"merge.{DRIVER_NAME}.name", DESCRIPTION), (f"merge.{DRIVER_NAME}.driver", DRIVER)):
        if ws.repo.config_value(key) != value:
            ws.repo.set_config(key, value)
            changed.append(f"git config {key}")
    path = ws.repo.root / ".gitattributes"
    data = path.read_bytes() if path.is_file() else b""
    text = data.decode("utf-8", errors="replace")
    present = {existing.strip() for existing in text.splitlines()}
    missing = [line for line in attributes_lines(ws.config.wiki_dir) if line not in present]
    if missing:
        with ws.wiki.lock():
            prefix = text if not text or text.endswith("\n") else text + "\n"
            atomic_write(path, (prefix + "".join(m + "\n" for m in missing)).encode("utf-8"), root=ws.repo.root)
        changed.append(".gitattributes")
    return changed
