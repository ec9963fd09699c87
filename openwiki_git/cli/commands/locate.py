"""`openwiki-git locate TERMS…`: ranked starting points in the evidence graph.

Matches the words against page titles, document titles (and their ids, such as ADR-0012),
headings, claim statements and every prose paragraph with BM25; ties are broken by node id, so the
same query always gives the same answer. A page or document is listed once, by its best match,
with its standing (`superseded`, `head`: the document in force; `amended`) and its first lines.
`--within NODE` keeps what NODE contains (and the claims its paragraphs assert). Claims carry their status; stale ones are flagged.

JSON (`--format json`): {query, terms, within, limit, results: [{rank, score, matched, id, kind,
label, …}], stale_claims}; a claim result adds statement, status, stale, page, evidence.
"""

from __future__ import annotations

import argparse
import json
import sys

from openwiki_git.cli.args import add_cache_flag, add_format, open_workspace
from openwiki_git.cli.graph_text import detail_lines, node_line
from openwiki_git.services.graph import open_session


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("locate", help="find starting points in the evidence graph", description=__doc__)
    p.add_argument("terms", nargs="+", metavar="TERMS", help="words to look for")
    p.add_argument("--within", metavar="NODE", help="only nodes inside this page, document or section (its text too)")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="at most N results (default: 10)")
    add_format(p)
    add_cache_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    session = open_session(open_workspace(args), use_cache=not args.no_cache)
    data = session.locate(args.terms, within=args.within, limit=args.limit)
    if args.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return 0
    if not data["results"]:
        print(f"nothing matches {data['query']!r}")
    for hit in data["results"]:
        print(f"{hit['rank']:>3}. {hit['score']:7.3f}  {node_line(hit)}")
        for line in detail_lines({**hit, "evidence": []}, indent="      "):
            print(line)
        if hit.get("text"):
            print("      > " + hit["text"].split("\n", 1)[0])
    if data["stale_claims"]:
        print(f"⚠ stale claims in these results (do not take them as facts): {', '.join(data['stale_claims'])}")
    return 0
