"""What the commands share: the workspace of the command line, the `--format` option, the graph's `--no-cache`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openwiki_git.store.workspace import Workspace


def open_workspace(args: argparse.Namespace, *, require_wiki: bool = True) -> Workspace:
    """The workspace of the command line; the wiki must exist unless the command creates it."""
    from openwiki_git.store.workspace import Workspace

    start = Path(args.directory) if getattr(args, "directory", None) else None
    return Workspace.open(start, wiki_dir=getattr(args, "wiki_dir", None), require_wiki=require_wiki)


def add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")


def add_cache_flag(parser: argparse.ArgumentParser) -> None:
    """`--no-cache` of the commands that read the evidence graph (graph, locate, expand)."""
    parser.add_argument("--no-cache", action="store_true", help="build from scratch and do not write the cache")
