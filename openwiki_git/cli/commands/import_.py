"""`openwiki-git import [openwiki/]`: convert an OpenWiki wiki into an openwiki-git wiki (`.openwiki/`).

Nothing is lost: every file of the wiki is copied byte for byte (index.md and log.md too), every
sidecar's claims keep their ids, statements, evidence and version tokens exactly, the sidecar's
`verification` is kept, and every front-matter key is kept as written. What changes:

- each claim gets its marker `[^c-<8 hex>]` after the first verbatim occurrence of its statement
  in the prose (OpenWiki's pages have none); a statement not found verbatim is listed, with the
  marker to put by hand;
- each page gets its generated citations block, and its front matter's `sources` is completed
  from the claims (entries already there stay; `verified` and `generated` are not touched: no
  prose changes and OpenWiki's events stay OpenWiki's);
- marks kept in `x-openwiki-git-marks` (OpenWiki mode) move into the sidecars.

The OpenWiki wiki itself is not changed. Re-running the import is a no-op; a target file that
exists with other content is a conflict (exit 2, nothing written) unless `--force`. The directory
indexes are copied as they are: `openwiki-git lint --fix` regenerates them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import UsageError
from openwiki_git.services.importing import ImportOptions, import_wiki
from openwiki_git.store.config import CONFIG_DIR, CONFIG_NAME, DEFAULT_WIKI_DIR, OPENWIKI_WIKI_DIR
from openwiki_git.store.workspace import Workspace


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="convert an OpenWiki wiki (openwiki/) into .openwiki/", description=__doc__)
    p.add_argument("source", nargs="?", default=OPENWIKI_WIKI_DIR, help="the OpenWiki wiki directory (default: openwiki)")
    p.add_argument("--to", default=DEFAULT_WIKI_DIR, metavar="DIR", help="the openwiki-git wiki directory (default: .openwiki)")
    p.add_argument("--force", action="store_true", help="overwrite target files that exist with other content")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args, require_wiki=False)
    source, target = _wiki_dir(ws, args.source), _wiki_dir(ws, args.to)
    done = import_wiki(ws, ImportOptions(source, target, force=args.force))
    conv, written = done.conversion, done.written
    for rel in written:
        print(f"Rewriting {rel}", file=sys.stderr)
    print(f"imported {conv.pages} page(s) and {conv.claims} claim(s) from {source}/ into {target}/ ({len(written)} file(s) written)")
    print(f"markers: {conv.placed} placed after their statements, {len(conv.unplaced)} to place by hand")
    for line in conv.unplaced:
        print(f"  {line}")
    for line in conv.orphans:
        print(f"  orphan sidecar kept: {line}")
    if done.had_config and ws.config.raw.get("wiki_dir", target) != target:
        print(f"note: {CONFIG_DIR}/{CONFIG_NAME} says wiki_dir: {ws.config.wiki_dir}; set it to {target} to use the imported wiki")
    print(f"next: `openwiki-git --wiki-dir {target} check`, then `openwiki-git --wiki-dir {target} lint --fix` to regenerate the indexes")
    return 0


def _wiki_dir(ws: Workspace, arg: str) -> str:
    raw = arg.replace("\\", "/").rstrip("/")
    root = ws.repo.root
    candidate = Path(raw)
    from_cwd = not (root / raw).exists() and (Path.cwd() / raw).exists()  # else: from the repository root
    if candidate.is_absolute() or from_cwd:
        full = (Path.cwd() / candidate).resolve()
        try:
            raw = full.relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"{arg}: not inside the repository {root}", "name a directory of this repository") from None
    parts = raw.split("/")
    if not raw or raw == "." or any(p in ("", ".", "..") for p in parts) or parts[0].lower() == ".git":
        raise UsageError(f"{arg}: not a wiki directory inside the repository", "e.g. openwiki or .openwiki")
    return raw
