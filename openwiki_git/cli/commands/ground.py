"""`openwiki-git ground`: ground the docs a team already has.

Every code reference a page makes in backticks or links (a symbol such as `pkg.mod.func()` or
`Class.method`, a file path, a CLI flag, an environment variable, a config key) is resolved
against the repository's tracked files; each unique resolution becomes a claim (the sentence,
cited to the definition's lines) with its marker after the sentence. References that name nothing
in the code are reported broken; ambiguous ones are listed, never guessed. Running it again adds
nothing for sentences already grounded. Pages without front matter are accepted and left so,
unless --add-front-matter gives them the minimal OKF one (`type: Reference`).

With --model, sentences the references did not ground are shown to a model with candidate code;
only evidence whose quotes are exactly the cited lines is written (`verifiedBy: model:<name>`),
one claim at a time; sentences it finds unsupported are listed as ungrounded. The client,
endpoint, key variable and budgets are refresh's (the config's `refresh:` section).
--plan shows what would be written and sent (with estimated tokens and cost), and writes and
calls nothing. Pages are written one at a time (page, then sidecar, atomically, under the wiki
lock): a killed run leaves whole pages and whole claims.
Exit 0 when nothing is broken, 1 when a reference is broken, 2 on a usage or input error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from openwiki_git.cli.args import add_format, open_workspace, terminal_progress
from openwiki_git.errors import UsageError
from openwiki_git.ground import site as ground_site
from openwiki_git.services import ground as grounding
from openwiki_git.store.workspace import SOURCES_HELP


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ground", help="turn the code references of existing pages into claims", description=__doc__)
    p.add_argument("pages", nargs="*", metavar="PAGE", help="pages to ground (e.g. guides/setup.md)")
    p.add_argument("--all", action="store_true", help="every page of the wiki directory")
    p.add_argument("--plan", action="store_true", help="show what would be written (and sent, with --model); write and call nothing")
    p.add_argument(
        "--add-front-matter", action="store_true",
        help="give pages without front matter the minimal OKF one, and front matter without `type:` a `type: Reference`",
    )
    p.add_argument(
        "--reground-retracted", action="store_true",
        help="also ground sentences whose claim was retracted (their tombstones, `retracted` in the sidecar, are dropped)",
    )
    p.add_argument("--model", metavar="NAME", help="also ask this model to ground the sentences the references did not")
    p.add_argument("--base-url", metavar="URL", help="with --model: an OpenAI-compatible endpoint (default: refresh.base_url)")
    p.add_argument("--api-key-env", metavar="NAME", help="with --model: the variable holding the key (default: OPENAI_API_KEY)")
    p.add_argument("--max-sentences", type=int, metavar="N", help="with --model: send at most N sentences (default: refresh.max_claims)")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="with --model: per request")
    p.add_argument("--max-retries", type=int, metavar="N", help="with --model: retries per request")
    p.add_argument("--source", default="worktree", help=SOURCES_HELP)
    add_format(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if bool(args.pages) == bool(args.all):
        raise UsageError("name the pages to ground, or --all", "e.g. `openwiki-git ground --all --plan`")
    ws = open_workspace(args)
    pages = grounding.resolve_pages(ws, args.pages, every=args.all)
    tuning = (args.base_url, args.api_key_env, args.max_sentences, args.timeout, args.max_retries)
    if not args.model and any(v is not None for v in tuning):
        raise UsageError("--base-url, --api-key-env, --max-sentences, --timeout and --max-retries need --model", "add --model NAME")
    model = None
    if args.model:
        model = grounding.ModelOptions(
            args.model, base_url=args.base_url, api_key_env=args.api_key_env, max_sentences=args.max_sentences,
            timeout=args.timeout, max_retries=args.max_retries,
        )
    options = grounding.GroundOptions(
        pages=pages, plan=args.plan, add_front_matter=args.add_front_matter, source=args.source,
        model=model, progress=terminal_progress("ground: pages", args), named=not args.all, reground=args.reground_retracted,
    )
    data = grounding.ground(ws, options)
    if args.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(report_text(data))
    return 1 if data["summary"]["broken"] or data["summary"]["examples"]["broken"] else 0


SHOWN_CANDIDATES = 5  # an ambiguous reference's candidates in the text; the JSON has them all


def _examples_text(page: dict[str, Any], verb: str) -> list[str]:
    """A page's code examples: each guarded (or to be), each broken call named."""
    e = page.get("examples") or {}
    lines = [
        f"{page['page_path']}:{a['line']}: {verb} the example in " + ", ".join(r.removeprefix("repo://") for r in a["evidence"])
        for a in e.get("added", ())
    ]
    lines += [f"{page['page_path']}:{b['line']}: broken example call `{b['reference']}`: {b['reason']}" for b in e.get("broken", ())]
    return lines


def report_text(data: dict[str, Any]) -> str:
    lines = []
    verb = "would ground" if data["plan"] else "grounded"
    for p in data["pages"]:
        if p.get("left_alone"):
            lines.append(f"{p['page_path']}: left alone: {p['left_alone']}")
            continue
        if p.get("refused_by_policy"):
            lines.append(
                f"{p['page_path']}: not grounded ({len(p['added'])} to add): "
                f"the verify policy forbids ground's tool: claims here: {p['refused_by_policy']}"
            )
            continue
        for c in p["claims"]:
            label = "c-" + c["id"].removeprefix("claim_")[:8]
            how = f"added to {label}" if c["extends"] else f"as {label}"
            cited = ", ".join(f"`{i['reference']}` ({i['cites']}: {i['evidence'].removeprefix('repo://')})" for i in c["items"])
            lines.append(f"{p['page_path']}:{c['line']}: {verb} {how}: {cited}")
        for b in p["broken"]:
            lines.append(f"{p['page_path']}:{b['line']}: broken reference `{b['reference']}`: {b['reason']}")
        lines.extend(_examples_text(p, verb))
        for a in p["ambiguous"]:
            shown, every = a["candidates"][:SHOWN_CANDIDATES], a["candidates"]
            more = f" ({len(shown)} of {len(every)} candidates; --format json lists all)" if len(every) > len(shown) else ""
            lines.append(
                f"{p['page_path']}:{a['line']}: ambiguous `{a['reference']}`: "
                + ", ".join(c.removeprefix("repo://") for c in shown) + more
            )
        for u in p["undecided"]:
            lines.append(f"{p['page_path']}:{u['line']}: undecided `{u['reference']}`: cites {u['evidence'].removeprefix('repo://')}; "
                         f"{u['why']} (--model decides)")
    lines += _model_lines(data)
    if "site" in data:
        lines.append(ground_site.note(data["site"]))
    s = data["summary"]
    e = s["examples"]
    if e["found"]:
        left = ", ".join(f"{n} {why}" for why, n in e["left_alone"].items())
        lines.append(
            f"{e['found']} code examples: {e['added']} {'to guard' if data['plan'] else 'guarded'}, {e['already']} guarded already, "
            f"{e['broken']} broken calls" + (f"; left alone: {left}" if left else "")
        )
    lines.append(
        f"{s['references']} references: {s['added']} {'to ground' if data['plan'] else 'grounded'} ({s['claims']} new claims, "
        f"{s['extended']} claims given more evidence), {s['already_grounded']} already grounded, {s['broken']} broken, "
        f"{s['ambiguous']} ambiguous, {s['unknown']} not this project's, {s['no_claim']} in headings, tables or bare lists "
        f"(no claim there), {s['repeated']} citing what their sentence cites already, {s['retracted']} in retracted sentences; "
        f"{s['undecided']} undecided, {s['guarded']} guarded by their section or what they lead into, {s['left_alone']} pages left alone"
    )
    return "\n".join(lines) + "\n"


def _model_lines(data: dict[str, Any]) -> list[str]:
    m = data.get("model")
    if not m:
        return []
    lines = []
    for item in m["sent"] if data["plan"] else []:
        lines.append(f"{item['page_path']}:{item['line']}: would send ({item['tokens']} tokens): {item['statement']}")
    for g in m["grounded"]:
        cited = ", ".join(e.removeprefix("repo://") for e in g["evidence"])
        lines.append(f"{g['page_path']}:{g['line']}: grounded by the model in {cited}")
    for u in m["ungrounded"]:
        lines.append(f"{u['page_path']}:{u['line']}: ungrounded (the model found no support): {u['statement']}")
    for r in m["rejected"] + m["errors"]:
        lines.append(f"{r['page_path']}:{r['line']}: not grounded ({r['reason']}): {r['statement']}")
    for r in m.get("refused_by_policy", ()):
        lines.append(f"{r['page']}: not sent to the model: the verify policy forbids model:{m['model']}: {r['rule']}")
    lines.append(m["summary_line"] + (f"; stopped: {m['stopped']}" if m["stopped"] else ""))
    return lines
