"""The `openwiki-git` command: argparse root, dispatch, and the one error boundary.

Exit codes (`EXIT_CODES`, which docs/reference/cli.md is generated from): 0 ok, 1 findings, 2
usage or input error, 3 unexpected (traceback with --verbose), 130 interrupted.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import keyword
import os
import sys
from collections.abc import Sequence

from openwiki_git import __version__
from openwiki_git.errors import OpenwikiError, UsageError

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import NoReturn

# One module per command under openwiki_git/cli/commands/, each with add_parser() and run().
COMMANDS = [
    "init",
    "claim",
    "review",
    "check",
    "validate",
    "lint",
    "report",
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
    "mcp",
]

# What every command's exit code means (the one table; the command reference prints it).
EXIT_CODES = {
    0: "ok: nothing to report",
    1: "findings: a stale or unresolved claim, a lint finding, a broken reference (the command says which)",
    2: "usage or input error: one line `error: FILE: PLACE: problem` and a `hint:` line with the fix; nothing was written",
    3: "a bug in openwiki-git: the traceback and versions are in `<git dir>/openwiki-git/last-error.log` (`-v` prints it)",
    130: "interrupted (Ctrl-C)",
}


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
    _add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        module_name = name.replace("-", "_") + ("_" if keyword.iskeyword(name) else "")  # import -> import_.py
        module = importlib.import_module(f"openwiki_git.cli.commands.{module_name}")
        module.add_parser(sub)
    _global_options_everywhere(parser)
    return parser


def _add_global_options(parser: argparse.ArgumentParser, default: object = None) -> None:
    """-C, --wiki-dir, -v and --lock-timeout. On a command's parser (`default` SUPPRESS) a value
    given after the command name overrides the one before it, and an absent one leaves it be."""
    flag = {} if default is None else {"default": default}
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR", **flag)  # type: ignore[arg-type]
    parser.add_argument("--wiki-dir", metavar="DIR", help="the wiki directory (default: config's wiki_dir or .openwiki)", **flag)  # type: ignore[arg-type]
    parser.add_argument("-v", "--verbose", action="store_true", help="show tracebacks of unexpected errors", **flag)  # type: ignore[arg-type]
    parser.add_argument(
        "--lock-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="how long a writer waits for another openwiki-git process's lock (default: $OPENWIKI_GIT_LOCK_TIMEOUT or 5)",
        **flag,  # type: ignore[arg-type]
    )


def _global_options_everywhere(parser: argparse.ArgumentParser) -> None:
    """Users type `openwiki-git check --wiki-dir docs`, as most CLIs allow: every command's
    parser (and its subcommands', `claim add`) accepts the global options too."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _add_global_options(child, argparse.SUPPRESS)
                _global_options_everywhere(child)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds, 0 or more")
    return value


def _one_line(text: str) -> str:
    """An error is one line, whatever a file name or user input it quotes contains; secrets masked."""
    from openwiki_git.redact import redact

    return redact(text).replace("\r", "\\r").replace("\n", "\\n")


def command_named(argv: Sequence[str]) -> str | None:
    """The command a plain command line names (`[-C DIR] [--wiki-dir DIR] [-v] COMMAND ...`);
    None for anything else (help, a typo, combined flags), which gets the full parser."""
    tokens = iter(argv)
    for token in tokens:
        if token in ("-C", "--wiki-dir", "--lock-timeout"):
            next(tokens, None)
        elif token in ("-v", "--verbose") or token.startswith(("--wiki-dir=", "--lock-timeout=")):
            continue
        else:
            return token if token in COMMANDS else None
    return None


def _not_utf8(argv: Sequence[str]) -> str | None:
    """The first argument that is not valid UTF-8 (Python keeps its bytes as lone surrogates)."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return arg.encode("utf-8", "backslashreplace").decode("ascii", "replace")
    return None


def _from_libgit2(error: BaseException) -> bool:
    """Whether `error` is pygit2's (a missing object, an unreadable tree or ref): corrupt git
    state is bad input, not our bug. Checked by module, so main.py does not import pygit2."""
    return any(cls.__module__ == "_pygit2" for cls in type(error).__mro__)


def entry() -> NoReturn:
    """The process's entry point (the console script and `python -m openwiki_git`): `main`, then
    exit without the interpreter's final collection of every cyclic object (for refresh and
    `ground --model`, langchain's alone took 1-2 s): a command ends when its work and output
    are done. Objects are still released by reference count and atexit handlers still run."""
    code = main()
    gc.freeze()
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    bad = _not_utf8(argv)
    if bad is not None:
        print(f"error: the argument {bad} is not valid UTF-8 (give --statement and paths as UTF-8 text)", file=sys.stderr)
        return 2
    parser = build_parser(command_named(argv))
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
        if args.lock_timeout is None:  # the common case imports no lock code (check's warm path)
            return int(args.run(args))
        from openwiki_git.store import locking

        with locking.timeout_override(args.lock_timeout):
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
    except Exception as e:  # the unexpected: say so, one line, traceback on request and in a log
        if _from_libgit2(e):  # git.py/gitdiff.py wrap what they expect; the rest is a broken repository
            print(f"error: git could not read the repository: {_one_line(str(e))}", file=sys.stderr)
            print("hint: `git fsck` finds what is corrupt or missing (objects, refs, the index)", file=sys.stderr)
            return 2
        if args.verbose:
            import traceback

            traceback.print_exc()
        from openwiki_git.cli import crashlog

        log = crashlog.write(e)
        where = f"details in {log}" if log else "run with --verbose for the traceback"
        print(f"error: unexpected {type(e).__name__}: {_one_line(str(e))} (a bug in openwiki-git; {where})", file=sys.stderr)
        return 3
    finally:
        if previous is not None:
            os.chdir(previous)
