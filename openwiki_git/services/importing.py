"""`import`'s work: an OpenWiki wiki converted into an openwiki-git wiki, in memory first, then
written (a target that exists with other bytes is a conflict unless forced). What is kept and
what changes: the `import` command's help (cli/commands/import_.py)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from openwiki_git.errors import StoreError, UsageError
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.formats.pagenames import CLAIMS_DIR
from openwiki_git.model import Sidecar
from openwiki_git.pages import citations, okf
from openwiki_git.pages import frontmatter as fmt
from openwiki_git.services.init import config_text
from openwiki_git.store.config import CONFIG_DIR, CONFIG_NAME
from openwiki_git.store.wiki import Wiki, is_grounded_page, page_version
from openwiki_git.store.workspace import Workspace, now_iso


@dataclasses.dataclass(frozen=True)
class ImportOptions:
    source: str  # the OpenWiki wiki directory, relative to the repository root
    target: str  # the openwiki-git wiki directory, likewise
    force: bool = False  # overwrite target files that exist with other content


@dataclasses.dataclass
class Conversion:
    files: dict[Path, bytes] = dataclasses.field(default_factory=dict)  # target path -> bytes
    pages: int = 0
    claims: int = 0
    placed: int = 0
    unplaced: list[str] = dataclasses.field(default_factory=list)  # "page: marker: statement"
    orphans: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Imported:
    conversion: Conversion
    written: list[str]  # repo paths written, the config too when there was none
    had_config: bool  # the repository had a config before the import


def import_wiki(ws: Workspace, options: ImportOptions) -> Imported:
    """Convert `options.source` into `options.target` under the target wiki's lock; write the
    config too when the repository has none."""
    source, target = options.source, options.target
    if source == target:
        raise UsageError(f"{source}: the source and the target are the same directory", "give --to another directory, e.g. .openwiki")
    src = Wiki(ws.repo.root, dataclasses.replace(ws.config, wiki_dir=source, sidecar_format="openwiki"), ws.repo.git_dir)
    dst = Wiki(ws.repo.root, dataclasses.replace(ws.config, wiki_dir=target, sidecar_format="openwiki-git"), ws.repo.git_dir)
    if not src.wiki_path.is_dir():
        raise UsageError(f"{source}/: no such directory", "name the OpenWiki wiki, e.g. `openwiki-git import openwiki/`")
    with dst.lock():
        conv = convert(src, dst)
        written = write(dst, conv, force=options.force)
        config = ws.repo.root / CONFIG_DIR / CONFIG_NAME
        had_config = config.exists() or config.is_symlink()
        if not had_config and dst.write_bytes(config, config_text(target).encode("utf-8")):
            written.append(config.relative_to(ws.repo.root).as_posix())
    return Imported(conv, written, had_config)


def convert(src: Wiki, dst: Wiki) -> Conversion:
    """Everything the import writes, computed in memory (errors raise before any write)."""
    conv = Conversion()
    sidecars = src.load_all()  # OpenWiki's strict reading; marks from front matter merged back
    for rel in _files(src.wiki_path):
        conv.files[dst.wiki_path / rel] = (src.wiki_path / rel).read_bytes()
        if rel.endswith(".md") and is_grounded_page(rel):
            conv.pages += 1
    now = now_iso()
    for page, sc in sorted(sidecars.items()):
        _check_resources(dst, sc)
        conv.claims += len(sc.claims)
        target = dst.page_path(page)
        if target not in conv.files:
            conv.orphans.append(f"{dst.repo_path(page)} does not exist")
            conv.files[dst.sidecar_path(page)] = sidecar_codec.dumps(sc).encode("utf-8")
            continue
        text = conv.files[target].decode("utf-8", errors="replace")
        new_text = _convert_page(dst, sc, text, conv, now, source_name=src.repo_path(page))
        data = new_text.encode("utf-8")
        conv.files[target] = data
        conv.files[dst.sidecar_path(page)] = sidecar_codec.dumps(sc.replace(page_version=page_version(data))).encode("utf-8")
    return conv


def _files(top: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        base = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not (base / d).is_symlink() and not (base == top and d == CLAIMS_DIR))
        for name in sorted(filenames):
            if not (base / name).is_symlink():
                out.append((base / name).relative_to(top).as_posix())
    return out


def _check_resources(dst: Wiki, sc: Sidecar) -> None:
    for c in sc.claims:
        for e in c.evidence:
            try:
                parse_resource(e.resource, wiki_dir=dst.wiki_dir)
            except ResourceError as err:
                raise StoreError(
                    f"{dst.repo_path(sc.page)}: {c.id}: {e.resource} cannot be cited from {dst.wiki_dir}/: {err}",
                    "import into another directory with --to",
                ) from None


def _convert_page(dst: Wiki, sc: Sidecar, text: str, conv: Conversion, now: str, *, source_name: str) -> str:
    filename = dst.repo_path(sc.page)
    new_text = text
    if okf.MARKS_KEY in text and fmt.parse(text, filename=source_name) is not None:
        new_text = fmt.edit(new_text, {okf.MARKS_KEY: fmt.REMOVE}, filename=source_name)  # marks go to the sidecar
    for c in sc.claims:
        if citations.has_marker(new_text, c.id):
            continue
        placed = citations.insert_marker(new_text, c.statement, c.id)
        if placed is None:
            conv.unplaced.append(f"{filename}: {citations.marker(c.id)}: {c.statement}")
        else:
            new_text = placed
            conv.placed += 1
    new_text = citations.sync(new_text, filename, sc.claims)
    return okf.project(sc, text, new_text, filename=source_name, openwiki_mode=False, now=now)


def write(dst: Wiki, conv: Conversion, *, force: bool) -> list[str]:
    """Write the conversion; a target that exists with other bytes is a conflict (exit 2, nothing
    written) unless `force`."""
    root = dst.root
    if not force:
        for path, data in sorted(conv.files.items()):
            try:
                current = path.read_bytes()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                continue
            if current != data:
                raise StoreError(
                    f"{path.relative_to(root).as_posix()}: exists with other content",
                    "import into an empty directory (--to DIR), or overwrite with --force",
                )
    written = []
    for path, data in sorted(conv.files.items()):
        if dst.write_bytes(path, data):
            written.append(path.relative_to(root).as_posix())
    return written
