"""`openwiki-git ground`: ground the docs a team already has.

Every code reference a page makes in backticks or links (a symbol such as `pkg.mod.func()` or
`Class.method`, a file path, a CLI flag, an environment variable, a config key) is resolved
against the repository's tracked files; each unique resolution becomes a claim (the sentence,
cited to the definition's lines) with its marker after the sentence. References that name nothing
in the code are reported broken; ambiguous ones are listed, never guessed. Running it again adds
nothing for sentences already grounded. Pages without front matter are accepted and left so,
unless --add-front-matter gives them the minimal OKF one (`type: Reference`).

--plan shows what would be written, and writes nothing. Pages are written one at a time (page,
then sidecar, atomically, under the wiki lock): a killed run leaves whole pages.
Exit 0 when nothing is broken, 1 when a reference is broken, 2 on a usage or input error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from openwiki_git import PRODUCER
from openwiki_git.commands import add_format, open_workspace
from openwiki_git.errors import UsageError
from openwiki_git.workspace import SOURCES_HELP


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ground", help="turn the code references of existing pages into claims", description=__doc__)
    p.add_argument("pages", nargs="*", metavar="PAGE", help="pages to ground (e.g. guides/setup.md)")
    p.add_argument("--all", action="store_true", help="every page of the wiki directory")
    p.add_argument("--plan", action="store_true", help="show what would be written; write nothing")
    p.add_argument("--add-front-matter", action="store_true", help="give pages without front matter the minimal OKF one (type: Reference)")
    p.add_argument("--source", default="worktree", help=SOURCES_HELP)
    add_format(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from openwiki_git import ground

    if bool(args.pages) == bool(args.all):
        raise UsageError("name the pages to ground, or --all", "e.g. `openwiki-git ground --all --plan`")
    ws = open_workspace(args)
    pages = ws.wiki.pages() if args.all else [ws.wiki.normalize_page(p) for p in args.pages]
    for page in pages:
        if not ws.wiki.page_path(page).is_file():
            raise UsageError(f"{ws.wiki.repo_path(page)}: no such page", "name a page of the wiki directory")
    index = ground.source_index(ws, args.source)
    reports = []
    taken = {c.id for sc in ws.wiki.load_all().values() for c in sc.claims}
    for page in pages:
        if args.plan:
            text = ws.page_text(page) or ""
            reports.append(ground.plan_page(ws, page, index, ws.wiki.load(page), text))
            continue
        with ws.wiki.lock():  # page by page: a killed run leaves whole pages, grounded or not
            text = ws.page_text(page) or ""
            rep = ground.plan_page(ws, page, index, ws.wiki.load(page), text)
            ground.apply_page(ws, rep, add_front_matter=args.add_front_matter, taken=taken, source=args.source)
        reports.append(rep)
    data = _data(ws, reports, plan=args.plan)
    if args.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(_text(data))
    return 1 if data["summary"]["broken"] else 0


def _data(ws: Any, reports: list[Any], *, plan: bool) -> dict[str, Any]:
    pages = []
    for r in reports:
        added = r.added if not plan else [
            {"statement": p.statement, "evidence": p.resource, "reference": p.reference, "kind": p.kind, "target": p.target, "line": p.sentence.line}
            for p in r.proposals
        ]
        pages.append({
            "page": r.page, "page_path": ws.wiki.repo_path(r.page), "added": added, "already_grounded": r.already,
            "broken": r.broken, "ambiguous": r.ambiguous, "unknown": r.unknown, "references": r.references,
            "front_matter_added": r.front_matter_added,
        })
    summary = {k: sum(len(p[k]) if isinstance(p[k], list) else int(p[k]) for p in pages)
               for k in ("references", "added", "already_grounded", "broken", "ambiguous", "unknown")}
    return {"tool": PRODUCER, "wiki_dir": ws.config.wiki_dir, "plan": plan, "pages": pages, "summary": summary}


def _text(data: dict[str, Any]) -> str:
    lines = []
    verb = "would ground" if data["plan"] else "grounded"
    for p in data["pages"]:
        for a in p["added"]:
            lines.append(f"{p['page_path']}:{a['line']}: {verb} `{a['reference']}` in {a['evidence'].removeprefix('repo://')}")
        for b in p["broken"]:
            lines.append(f"{p['page_path']}:{b['line']}: broken reference `{b['reference']}`: {b['reason']}")
        for a in p["ambiguous"]:
            lines.append(f"{p['page_path']}:{a['line']}: ambiguous `{a['reference']}`: " + ", ".join(c.removeprefix("repo://") for c in a["candidates"][:5]))
    s = data["summary"]
    lines.append(
        f"{s['references']} references: {s['added']} {'to ground' if data['plan'] else 'grounded'}, "
        f"{s['already_grounded']} already grounded, {s['broken']} broken, {s['ambiguous']} ambiguous, {s['unknown']} not this project's"
    )
    return "\n".join(lines) + "\n"
