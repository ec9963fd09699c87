"""`openwiki-git lint`: the wiki's shape, apart from whether claims are still true (that is `check`).

Finds pages with no claims (ungrounded), sidecars without a page (orphans; a renamed page's
sidecar is recognised and `--fix` moves it along, it is never deleted), claims whose marker is
missing from the prose, broken relative links between pages, front matter that is malformed or out
of step with the claims (`sources`, `verified`), and directory `index.md` files out of date.
Exit 0 when there is nothing to report, 1 when there is, 2 on an input error.

`--fix` moves renamed pages' sidecars, puts missing markers after statements found verbatim,
re-projects front matter and regenerates the indexes; it writes only files whose bytes change
and reports what is left. A malformed front matter stops `--fix` before it writes anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from openwiki_git import PRODUCER
from openwiki_git.cli.args import add_format, open_workspace
from openwiki_git.services import lint


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lint", help="ungrounded pages, orphan sidecars, missing markers, broken links, indexes", description=__doc__)
    add_format(p)
    p.add_argument(
        "--fix", action="store_true", help="move renamed pages' sidecars, add markers, re-project front matter, regenerate indexes"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    findings, done = lint.run(ws, fix=args.fix)
    for line in done:
        print(line, file=sys.stderr)
    if args.format == "json":
        summary = {"total": len(findings), **{k: sum(1 for f in findings if f.kind == k) for k in lint.KINDS}}
        data = {"tool": PRODUCER, "wiki_dir": ws.config.wiki_dir, "findings": [asdict(f) for f in findings], "summary": summary}
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        for f in findings:
            sys.stdout.write(f"{f.path}:{f.line}: {f.kind}: {f.message}\n")
        fixable = sum(1 for f in findings if f.fixable)
        tail = f" ({fixable} fixable with --fix)" if fixable and not args.fix else ""
        sys.stdout.write(f"{len(findings)} finding(s){tail}\n" if findings else "no findings\n")
    return 1 if findings else 0
