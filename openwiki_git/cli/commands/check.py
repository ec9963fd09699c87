"""`openwiki-git check`: is every claim still true to the lines it cites?

Each claim is fresh, stale or unresolved, with where its text is now and why. Exit 0 when every
claim is fresh and carries its marker, 1 when any is not, 2 on a usage or input error.
`--fix` rewrites line numbers that merely moved, refreshes their anchors, marks stale claims and
clears the mark of a claim whose text was reverted to what was verified.
"""

from __future__ import annotations

import argparse
import sys

from openwiki_git.caches.check_entries import no_gc
from openwiki_git.cli import check_output
from openwiki_git.cli.args import add_format
from openwiki_git.errors import UsageError

# A warm check with nothing changed is answered from the check cache by services/check_chain.py with
# the standard library alone: the model, the checker, git and pygit2 are imported only when
# something must be judged.
from openwiki_git.services import check_chain

SOURCE_HELP = "where evidence is read: worktree (the default, which the cache answers), index, or a revision such as HEAD"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="report fresh, stale and unresolved claims", description=__doc__)
    add_format(p)
    p.add_argument("--fix", action="store_true", help="re-anchor moved ranges, mark stale claims, clear reverted marks")
    p.add_argument("--source", default="worktree", help=SOURCE_HELP)
    p.add_argument("--page", action="append", help="only claims on this page (repeatable)")
    p.add_argument("--all", action="store_true", help="list fresh claims too in text output")
    # -v (a global option: tracebacks too) gives the long form: one line per claim with every reason
    p.add_argument(
        "--only-problems",
        action="store_true",
        help="JSON: list only the claims that are not fresh, lack their marker or are due (the summary still "
        "counts every claim; the report says \"only_problems\": true)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither use nor update the check cache (<git dir>/openwiki-git/check-cache-v2.pickle): parse every "
        "sidecar and read every cited file (--fix never uses the cache)",
    )
    p.add_argument(
        "--base",
        metavar="REV",
        help="CI: report the claims made stale between the merge base of REV and --head (evidence read from commits)",
    )
    p.add_argument("--head", metavar="REV", help="with --base: the head commit (default HEAD)")
    p.set_defaults(run=run)


def _width() -> int:
    """A claim's line is cut to the terminal's width (200 characters at most, and off a terminal)."""
    if not sys.stdout.isatty():
        return check_output.MAX_WIDTH
    import shutil

    return min(shutil.get_terminal_size().columns, check_output.MAX_WIDTH)


def run(args: argparse.Namespace) -> int:
    if (args.base or args.head) and not args.base:
        raise UsageError("--head needs --base", "e.g. check --base origin/main --head HEAD")
    if args.base and args.fix:
        raise UsageError("--fix cannot be combined with --base", "--base reads commits; it changes nothing")
    if args.fix:  # rewrites pages through YAML, whose nodes hold cycles: the collector keeps its memory bounded
        return _run(args)
    # Judging and reporting build tens of thousands of records and no cycles: the collector's passes
    # over them are pure cost (4-7 ms of a 10,000-claim `--no-cache` run), and main.entry freezes at exit.
    with no_gc():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    json_out = args.format == "json"
    checked = check_chain.run(check_chain.CheckOptions(
        directory=getattr(args, "directory", None),
        wiki_dir=getattr(args, "wiki_dir", None),
        source=args.source,
        pages=tuple(args.page or ()),
        fix=args.fix,
        use_cache=not args.no_cache,
        base=args.base,
        head=args.head,
        # -v's long form lists every claim, fresh ones too (cli/check_output.write_text), as --all does
        every=(args.all or bool(args.verbose)) if not json_out else not args.only_problems,
        only_problems=json_out and args.only_problems,
    ))
    for path in checked.written:
        print(f"Rewriting {path}", file=sys.stderr)
    out = checked.report
    if json_out:
        check_output.write_json(sys.stdout.write, out.head, (check_output.item_json(c, out.site) for c in out.claims), lambda: out.tail)
    else:
        check_output.write_text(sys.stdout.write, out.claims, out.tail, unlisted_unmarked=out.unlisted_unmarked,
                          verbose=bool(args.verbose), every=args.all, width=_width())
    if not args.base and out.tail["summary"]["total"] == 0:  # a gate that checked nothing says so and fails
        where = ", ".join(args.page) if args.page else f"{out.head['wiki_dir']}/"
        print(f"nothing to check: {where} holds no claim; `openwiki-git ground --all --plan` lists the claims its code "
              "references would make, `openwiki-git ground --all` writes them", file=sys.stderr)
        return 1
    return 0 if checked.ok else 1
