"""`openwiki-git graph`: build (or refresh the cache of) the evidence graph and report its size.

Counts nodes by kind and edges by type (each edge is also stored with its inverse). With
`--unresolved`, lists every explicit reference that names nothing in the repository (and every
status whose wording is not recognised) and exits 1 when there is any. `--edges --format json`
exports the edges (`edge_list`: [{source, type, target}], one per edge, forward types). The graph
is cached under the git directory (`<git dir>/openwiki-git/`).
"""

from __future__ import annotations

import argparse
import json
import sys

from openwiki_git.cli.args import add_cache_flag, add_format, open_workspace
from openwiki_git.services.graph import open_session


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="build the evidence graph; report counts and unresolved references", description=__doc__)
    add_format(p)
    p.add_argument("--unresolved", action="store_true", help="list unresolved references; exit 1 if there is any")
    p.add_argument(
        "--edges", action="store_true", help="with --format json: also export every edge as {source, type, target} (forward types only)"
    )
    add_cache_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    session = open_session(open_workspace(args), use_cache=not args.no_cache)
    g = session.graph
    data = g.counts()
    unresolved = [u.to_json() for u in g.unresolved]
    data["unresolved"] = unresolved
    data["build"] = session.info.to_json()
    if args.edges:
        data["edge_list"] = g.edge_list()
    if args.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        nodes = ", ".join(f"{n} {k}" for k, n in data["nodes"].items())
        edges = ", ".join(f"{n} {k}" for k, n in data["edges"].items())
        print(f"nodes: {data['total_nodes']} ({nodes})")
        print(f"edges: {data['total_edges']}, each with its inverse ({edges})")
        if args.unresolved:
            for u in unresolved:
                print(f"unresolved: {u['source']}: {u['kind']} {u['target']!r}: {u['reason']}")
        print(f"{len(unresolved)} unresolved reference(s)" + ("" if args.unresolved or not unresolved else " (--unresolved lists them)"))
    return 1 if args.unresolved and unresolved else 0
