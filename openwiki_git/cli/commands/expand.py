"""`openwiki-git expand NODE`: a node of the evidence graph and its typed edges.

NODE is an id printed by `locate` or `expand`, or a shorthand: a claim id prefix or `c-` label,
an identifier such as ADR-0012, a page name or a repository path. `--edges TYPE…` keeps those
edge types (contains, contained_in, asserts, asserted_by, cites, cited_by, refers_to,
referred_by, supersedes, superseded_by, amends, amended_by, attaches_to, has_attachment).
With `--hops N` (N > 1) and one edge type, it walks that edge while there is a single way on and
stops at a branch, the end, a cycle or after N hops, returning the path and the last node
expanded. A claim's evidence comes with the cited lines as they are now; stale claims are flagged.
`--depth` adds context in the same call (1, the default: the paragraphs of the node's section, or
of the whole page or document, and each neighbour's first lines; 2: also the text of the documents
it supersedes, is superseded by, amends or is amended by), at most `--max-chars` characters.

JSON (`--format json`): {node, edges: [{type, target}], stale_claims}; with --hops > 1: {start,
edge, hops, path, stopped (end|branch|cycle|hops), branches?, end: {node, edges}, stale_claims}.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from openwiki_git.cli.args import add_cache_flag, add_format, open_workspace
from openwiki_git.cli.graph_text import detail_lines, node_line
from openwiki_git.services.graph import open_session


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("expand", help="show a node of the evidence graph and its typed edges", description=__doc__)
    p.add_argument("node", metavar="NODE", help="node id (or a claim prefix, ADR-0012, a path)")
    p.add_argument("--edges", nargs="+", metavar="TYPE", help="only these edge types")
    p.add_argument("--hops", type=int, default=1, metavar="N", help="walk one edge type up to N hops (default: 1)")
    p.add_argument(
        "--depth", type=int, default=1, choices=(0, 1, 2),
        help="context: 0 none; 1 the node's section (or document) paragraphs and neighbours' first lines (default); "
        "2 also the text of the documents it supersedes, amends or is replaced by",
    )
    p.add_argument("--max-chars", type=int, default=6000, metavar="N", help="at most N characters of text in the context (default: 6000)")
    add_format(p)
    add_cache_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    session = open_session(open_workspace(args), use_cache=not args.no_cache)
    data = session.expand(args.node, edges=args.edges, hops=args.hops, depth=args.depth, max_chars=args.max_chars)
    if args.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return 0
    if "path" in data:
        print(f"walk {data['edge']} from {data['start']['id']} (at most {data['hops']} hops): stopped at {data['stopped']}")
        for i, step in enumerate(data["path"]):
            print(("  " if i == 0 else "  → ") + node_line(step))
        for b in data.get("branches", ()):
            print(f"  branch: {node_line(b)}")
        print()
        _print_expansion(data["end"])
    else:
        _print_expansion(data)
    if data["stale_claims"]:
        print(f"⚠ stale claims in this result (do not take them as facts): {', '.join(data['stale_claims'])}")
    return 0


def _print_expansion(data: dict[str, Any]) -> None:
    node = data["node"]
    print(node_line(node))
    if node.get("ids"):
        print(f"  ids: {', '.join(node['ids'])}")
    if node.get("text") and node["kind"] == "paragraph":
        for line in node["text"].split("\n"):
            print(f"  > {line}")
    for line in detail_lines(node):
        print(line)
    for p in node.get("paragraphs", ()):
        print(f"  ¶ {p['id']}  (lines {p['lines'][0]}-{p['lines'][1]})")
        for line in p["text"].split("\n"):
            print(f"    > {line}")
    width = max((len(e["type"]) for e in data["edges"]), default=0)
    for e in data["edges"]:
        print(f"  {e['type']:<{width}}  {node_line(e['target'])}")
        for line in detail_lines(e["target"], indent=" " * (width + 6)):
            print(line)
        if e["target"].get("text"):
            print(" " * (width + 6) + "> " + e["target"]["text"].split("\n", 1)[0])
        for p in e["target"].get("paragraphs", ()):
            print(" " * (width + 6) + f"¶ {p['text'].split(chr(10), 1)[0]}")
    if data.get("truncated"):
        print("  … context cut at --max-chars; expand a section or paragraph, or raise --max-chars")
