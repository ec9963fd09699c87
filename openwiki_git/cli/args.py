"""What the commands share: the workspace of the command line, the `--format` option, the `I/N`
shard argument, the graph's `--no-cache`, progress on a terminal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from openwiki_git.store.workspace import Workspace


def open_workspace(args: argparse.Namespace, *, require_wiki: bool = True) -> Workspace:
    """The workspace of the command line; the wiki must exist unless the command creates it."""
    from pathlib import Path  # here: check's warm and lean answers import no pathlib

    from openwiki_git.store.workspace import Workspace

    start = Path(args.directory) if getattr(args, "directory", None) else None
    return Workspace.open(start, wiki_dir=getattr(args, "wiki_dir", None), require_wiki=require_wiki)


def add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")


def parse_shard(text: str) -> tuple[int, int]:
    """`I/N` with 1 <= I <= N (argparse's type: a bad value is a usage error, exit 2)."""
    i_text, sep, n_text = text.partition("/")
    try:
        i, n = int(i_text), int(n_text)
    except ValueError:
        i, n = 0, 0
    if not sep or n < 1 or not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: use I/N with 1 <= I <= N, e.g. 1/4")
    return i, n


def add_cache_flag(parser: argparse.ArgumentParser) -> None:
    """`--no-cache` of the commands that read the evidence graph (graph, locate, expand)."""
    parser.add_argument("--no-cache", action="store_true", help="build from scratch and do not write the cache")


def terminal_progress(what: str, args: argparse.Namespace) -> Callable[[int, int], None] | None:
    """A long run's progress (`ground: 3/23 pages`) on stderr, rewritten in place: only when
    stderr is a terminal and the output is text (a program reading JSON, a log or CI sees none)."""
    if getattr(args, "format", "text") == "json" or not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\r{what}: {done}/{total}" + ("\n" if done == total else ""))
        sys.stderr.flush()

    return show
