"""The `openwiki-git` command: argparse root, dispatch, and the one error boundary.

Exit codes: 0 ok, 1 findings, 2 usage or input error, 3 unexpected (traceback with --verbose),
130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import keyword
import os
import sys
import traceback
from collections.abc import Sequence

from openwiki_git import __version__
from openwiki_git.errors import OpenwikiError, UsageError

# One module per command under openwiki_git/commands/, each with add_parser() and run().
COMMANDS = [
    "init",
    "claim",
    "check",
    "validate",
    "lint",
    "import",
    "hook",
    "install",
    "merge-driver",
    "refresh",
    "github",
    "graph",
    "locate",
    "expand",
    "ground",
]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"error: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(2)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or with `only` the parser of that one command (its siblings' modules are
    not imported: `check` on every commit should not pay for the refresher or the GitHub code)."""
    parser = _Parser(
        prog="openwiki-git",
        description="Keep a repository's wiki true: claims grounded in hashed source lines, checked by git.",
    )
    parser.add_argument("--version", action="version", version=f"openwiki-git {__version__}")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    parser.add_argument("--wiki-dir", metavar="DIR", help="the wiki directory (default: config's wiki_dir or .openwiki)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show tracebacks of unexpected errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        module_name = name.replace("-", "_") + ("_" if keyword.iskeyword(name) else "")  # import -> import_.py
        module = importlib.import_module(f"openwiki_git.commands.{module_name}")
        module.add_parser(sub)
    return parser


def _one_line(text: str) -> str:
    """An error is one line, whatever a file name or user input it quotes contains; secrets masked."""
    from openwiki_git.redact import redact

    return redact(text).replace("\r", "\\r").replace("\n", "\\n")


def command_named(argv: Sequence[str]) -> str | None:
    """The command a plain command line names (`[-C DIR] [--wiki-dir DIR] [-v] COMMAND ...`);
    None for anything else (help, a typo, combined flags), which gets the full parser."""
    tokens = iter(argv)
    for token in tokens:
        if token in ("-C", "--wiki-dir"):
            next(tokens, None)
        elif token in ("-v", "--verbose") or token.startswith("--wiki-dir="):
            continue
        else:
            return token if token in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(command_named(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    previous = os.getcwd() if args.directory else None
    try:
        if args.directory:
            # Like `git -C`: relative paths on the command line (pages, wiki dirs) are relative to
            # DIR. The original directory is restored, so main() can be called again in-process.
            try:
                os.chdir(args.directory)
            except OSError as e:
                raise UsageError(f"-C {args.directory}: {e.strerror or e}", "name an existing directory") from None
            args.directory = os.getcwd()
        return int(args.run(args))
    except OpenwikiError as e:
        print(f"error: {_one_line(e.message)}", file=sys.stderr)
        if e.hint:
            print(f"hint: {_one_line(e.hint)}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # the unexpected: say so, one line, traceback on request
        if args.verbose:
            traceback.print_exc()
        print(f"error: unexpected {type(e).__name__}: {_one_line(str(e))} (run with --verbose for the traceback)", file=sys.stderr)
        return 3
    finally:
        if previous is not None:
            os.chdir(previous)
