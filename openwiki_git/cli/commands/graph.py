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
from typing import Any

from openwiki_git.cli.args import add_format, open_workspace


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="build the evidence graph; report counts and unresolved references", description=__doc__)
    add_format(p)
    p.add_argument("--unresolved", action="store_true", help="list unresolved references; exit 1 if there is any")
    p.add_argument(
        "--edges", action="store_true", help="with --format json: also export every edge as {source, type, target} (forward types only)"
    )
    add_cache_flag(p)
    p.set_defaults(run=run)


def add_cache_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true", help="build from scratch and do not write the cache")


def open_session(args: argparse.Namespace) -> Any:
    from openwiki_git.graph.build import load
    from openwiki_git.graph.session import GraphSession

    ws = open_workspace(args)
    g, info = load(ws, use_cache=not args.no_cache)
    return GraphSession(ws, g, info)


def run(args: argparse.Namespace) -> int:
    session = open_session(args)
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


# -- text rendering shared by locate and expand ---------------------------------------------


def node_line(s: dict[str, Any]) -> str:
    """One line for a node summary: id, kind, label and the flags an agent must not miss."""
    line = f"{s['id']}  [{s['kind']}] {s['label']}"
    if s["kind"] == "claim":
        line += f"  ⚠ STALE ({s['status']})" if s["stale"] else f"  ({s['status']})"
    if s.get("superseded"):
        line += f"  (superseded by {', '.join(s['superseded_by'])}"
        line += f"; in force: {s['head']})" if s.get("head") and s["head"] not in s["superseded_by"] else ")"
    if s.get("amended"):
        line += f"  (amended by {', '.join(s['amended_by'])})"
    if s["kind"] == "span" and s.get("status"):
        line += f"  ({s['status']}" + (f", now {s['current_resource']}" if s.get("current_resource") else "") + ")"
    if s.get("lines") and s["kind"] == "paragraph":
        line += f"  (lines {s['lines'][0]}-{s['lines'][1]})"
    return line


def detail_lines(s: dict[str, Any], indent: str = "  ") -> list[str]:
    """The indented extras of a summary: asserted claims, evidence, cited lines."""
    out: list[str] = []
    for c in s.get("claims", ()):
        flag = f"⚠ STALE ({c['status']})" if c["stale"] else c["status"]
        out.append(f"{indent}asserts {c['id']} [{flag}] {c['statement']}")
    for ev in s.get("evidence", ()) if s["kind"] == "claim" else ():
        where = ev.get("current_resource") or ev["resource"]
        reason = f": {ev['reason']}" if ev.get("reason") else ""
        out.append(f"{indent}evidence {ev['resource']} {ev['status']}{reason}" + (f" (now {where})" if where != ev["resource"] else ""))
        out.extend(_cited(ev.get("text"), where, indent + "  "))
    if s["kind"] == "span":
        out.extend(_cited(s.get("text"), s.get("current_resource") or s["id"], indent + "  "))
    return out


def _cited(text: str | None, resource: str, indent: str) -> list[str]:
    if not text:
        return []
    start = 1
    if "#L" in resource:
        start = int(resource.rsplit("#L", 1)[1].split("-", 1)[0])
    return [f"{indent}{n:>5} | {line}" for n, line in enumerate(text.rstrip("\n").split("\n"), start)]
