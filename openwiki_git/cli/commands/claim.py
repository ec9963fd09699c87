"""`openwiki-git claim`: add, list, show, edit, confirm and retract claims.

Wherever a claim id is asked for, the full id, its hex without `claim_`, a unique prefix of 8+
characters, or the label the pages print (`c-1a2b3c4d`, `[^c-1a2b3c4d]`, `<!-- c-1a2b3c4d -->`) is accepted.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from openwiki_git.cli.args import add_format, open_workspace
from openwiki_git.errors import UsageError
from openwiki_git.evidence.resource import REPO_PREFIX
from openwiki_git.pages.labels import label, marker_text
from openwiki_git.services import claims
from openwiki_git.store.workspace import SOURCES_HELP

EVIDENCE_HELP = (
    "repo://path#Lx-Ly (lines), repo://path (a file), repo://path#Cart.add (a definition by name; "
    "#Cart:head its head), repo://src/stores/*.py (the files a glob matches) or "
    "repo://src/**/*.py?grep=raise%%20OverflowError (the lines a percent-encoded regular expression matches)"
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("claim", help="add, list, show, confirm or retract claims", description=__doc__)
    csub = p.add_subparsers(dest="claim_command", metavar="ACTION")
    csub.required = True

    a = csub.add_parser("add", help="ground a statement in source lines", description=cmd_add.__doc__)
    a.add_argument("--page", required=True, help="the wiki page, e.g. guides/setup.md")
    a.add_argument("--statement", required=True, help="one proposition, as written in the page")
    a.add_argument("--evidence", required=True, action="append", metavar="RES", help=EVIDENCE_HELP + " (repeatable)")
    a.add_argument("--by", help="who checked it, e.g. human:alice (recorded as the claim's verifier)")
    a.add_argument("--source", default="worktree", help=SOURCES_HELP)
    a.set_defaults(run=cmd_add)

    ls = csub.add_parser("list", help="list claims", description=cmd_list.__doc__)
    ls.add_argument("--page", help="only this page")
    add_format(ls)
    ls.set_defaults(run=cmd_list)

    sh = csub.add_parser("show", help="show one claim: verified text against the text now, cause, location", description=cmd_show.__doc__)
    sh.add_argument("id", help=ID_HELP)
    sh.add_argument("--source", default="worktree", help=SOURCES_HELP)
    add_format(sh)
    sh.set_defaults(run=cmd_show)

    ed = csub.add_parser("edit", help="re-point a claim's evidence or restate it, keeping its id", description=cmd_edit.__doc__)
    ed.add_argument("id", help=ID_HELP)
    ed.add_argument("--evidence", action="append", metavar="RES", help=EVIDENCE_HELP + " (repeatable): replaces all the evidence")
    ed.add_argument("--add-evidence", action="append", metavar="RES", help="an item to add to the claim's evidence (repeatable)")
    ed.add_argument("--drop-evidence", action="append", metavar="RES",
                    help="an item of the claim's evidence to drop, as `claim show` lists it (repeatable)")
    ed.add_argument("--statement", help="the new statement (write the page's sentence to match)")
    ed.add_argument("--by", help="who checked it, e.g. human:alice")
    ed.add_argument("--source", default="worktree", help=SOURCES_HELP)
    ed.set_defaults(run=cmd_edit)

    cf = csub.add_parser(
        "confirm", help="a person checked the cited text: refresh versions, clear the mark", description=cmd_confirm.__doc__
    )
    cf.add_argument("id", help=ID_HELP)
    cf.add_argument("--by", metavar="ACTOR", help="who checked it, e.g. human:alice (records a verified event)")
    cf.add_argument("--statement", help="confirm this statement instead (the page's prose changed it)")
    cf.add_argument(
        "--keep-statement", action="store_true", help="confirm the stored statement although the page's sentence differs"
    )
    cf.add_argument("--source", default="worktree", help=SOURCES_HELP)
    cf.set_defaults(run=cmd_confirm)

    rt = csub.add_parser("retract", help="remove a claim and its marker", description=cmd_retract.__doc__)
    rt.add_argument("id", help=ID_HELP)
    rt.add_argument("--by", metavar="ACTOR", help="who decided it, e.g. human:alice (the config's verify_policy may require it)")
    rt.set_defaults(run=cmd_retract)


ID_HELP = "claim id: claim_<hex>, a unique prefix of 8+ characters, or the page label c-xxxxxxxx"


def cmd_add(args: argparse.Namespace) -> int:
    """Resolve the evidence, allocate a claim_<32 hex> id, write it to the page's sidecar and print it.
    One claim per sentence: when the page's sentence that states it carries a claim already, the
    evidence goes to that claim (its id is printed, its verification and mark are kept)."""
    ws = open_workspace(args)
    page, claim, placed, extended = claims.add(ws, args.page, args.statement, args.evidence, by=args.by, source=args.source)
    print(claim.id)
    marker = marker_text(claim.id, page, ws.wiki.site is not None)  # as the page carries it
    if extended:
        print(f"the sentence carries {marker} already: the evidence was added to that claim (one claim per sentence)")
    if not placed:
        print(f"put {marker} after the sentence in {ws.wiki.repo_path(page)} that states it")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """List claims: page, id, statement (and the evidence with --format json)."""
    ws = open_workspace(args)
    rows = claims.rows(ws, args.page)
    if args.format == "json":
        print(json.dumps([claims.claim_json(p, c) for p, c in rows], indent=2, ensure_ascii=False))
    else:
        for p, c in rows:
            flag = f" [{c.mark.status}]" if c.mark else ""
            print(f"{ws.wiki.repo_path(p)}: {c.id}{flag}: {c.statement}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Show one claim: its status and cause, and per evidence item where the cited text is now and
    the text as verified against the text now, as a unified diff (the verified text is read from
    the blob recorded when it was verified). Also whether the page's sentence still states it."""
    ws = open_workspace(args)
    shown = claims.show(ws, args.id, args.source)
    if args.format == "json":
        print(json.dumps(shown.to_json(), indent=2, ensure_ascii=False))
        return 0
    claim, result = shown.claim, shown.result
    print(f"{claim.id} ({label(claim.id)}) on {ws.wiki.repo_path(shown.page)}: {result.status}")
    print(f"  {claim.statement}")
    if claim.mark is not None:
        print(
            f"  marked {claim.mark.status} since {claim.mark.since}" + (f" (against {claim.mark.commit[:12]})" if claim.mark.commit else "")
        )
        for c in claim.mark.causes:
            print(f"    cause: {c.resource.removeprefix(REPO_PREFIX)} {c.reason}" + (f" by {c.hunk}" if c.hunk else ""))
    for note in result.notes:
        print(f"  note: {note}")
    if shown.states is False:
        print(f"  the page's sentence differs from the statement: {shown.prose!r}")
    for item in shown.items:
        _print_evidence(item)
    return 0


def _print_evidence(item: dict[str, Any]) -> None:
    where = item["current_resource"] or "(not found)"
    print(
        f"  {item['status']}: {item['resource'].removeprefix(REPO_PREFIX)}"
        f" -> now {where.removeprefix(REPO_PREFIX)} ({item['reason']})"
    )
    if item["diff"]:
        for line in item["diff"].splitlines():
            print(f"    {line}")
    elif item["current_text"] is not None:
        start = item["current_lines"][0] if item["current_lines"] else 1
        for n, line in enumerate(item["current_text"].splitlines(), start):
            print(f"    {n:>5} | {line}")
    elif item["verified_text"] is None:
        print("    (the verified text is not available: no blob recorded, or it is not in this repository)")


def cmd_edit(args: argparse.Namespace) -> int:
    """Re-point a claim's evidence (`--evidence`, resolved at the literal lines given, as `claim
    add` does; or `--add-evidence`/`--drop-evidence` to change some items and keep the others)
    and/or restate it (`--statement`), keeping its id, its marker in the page and its place in the
    sidecar. New evidence is a person's verification: every item is resolved where it reads now,
    the mark is cleared and the verification (when, `--by`) recorded. A new statement alone keeps
    the mark."""
    if not (args.evidence or args.add_evidence or args.drop_evidence) and args.statement is None:
        raise UsageError("claim edit needs --evidence, --add-evidence, --drop-evidence or --statement",
                         "e.g. claim edit c-1a2b3c4d --add-evidence repo://src/a.py#L10-L14")
    if args.by is not None and not args.by.strip():
        raise UsageError("--by is empty", "name who checked it, e.g. --by human:alice")
    statement = args.statement.strip() if args.statement is not None else None
    if statement == "":
        raise UsageError("--statement is empty", "write the proposition the evidence supports")
    ws = open_workspace(args)
    page, claim, states = claims.edit(ws, args.id, evidence=args.evidence, statement=statement, by=args.by, source=args.source,
                                      add=tuple(args.add_evidence or ()), drop=tuple(args.drop_evidence or ()))
    print(f"edited {claim.id} on {ws.wiki.repo_path(page)}")
    if not states:
        print(
            f"the sentence before {marker_text(claim.id, page, ws.wiki.site is not None)} in {ws.wiki.repo_path(page)} "
            "does not state it yet: edit the prose to match"
        )
    return 0


def cmd_confirm(args: argparse.Namespace) -> int:
    """A person re-read the cited lines and the statement still holds: every evidence item is
    re-established where its text is now (new versions, refreshed anchors), the claim's mark is
    cleared, and with --by the verification (who, when) is recorded.

    When the page's sentence carrying the claim's marker no longer states the claim, confirming
    the old statement would verify something the page does not say: it is refused unless
    `--statement` gives the statement confirmed now, or `--keep-statement` says the stored one."""
    if args.by is not None and not args.by.strip():
        raise UsageError("--by is empty", "name who checked it, e.g. --by human:alice")
    if args.statement is not None and not args.statement.strip():
        raise UsageError("--statement is empty", "write the proposition the evidence supports")
    if args.statement is not None and args.keep_statement:
        raise UsageError("--statement and --keep-statement exclude each other", "give one of them")
    ws = open_workspace(args)
    page, claim, result = claims.confirm(
        ws, args.id, by=args.by, statement=args.statement, keep_statement=args.keep_statement, source=args.source
    )
    print(f"confirmed {claim.id} on {ws.wiki.repo_path(page)}")
    for r in result.evidence:
        if "past the bound" in r.reason:  # the range kept its size (relocation.bounded)
            print(f"  {r.current_resource}: {r.reason.split('; ', 1)[-1]}")
    return 0


def cmd_retract(args: argparse.Namespace) -> int:
    """Remove the claim from its sidecar and its marker from the page. On a page the config's
    verify_policy guards, only an actor of a kind it allows may retract (`--by`), as for confirm."""
    if args.by is not None and not args.by.strip():
        raise UsageError("--by is empty", "name who decided it, e.g. --by human:alice")
    ws = open_workspace(args)
    page, claim = claims.retract(ws, args.id, by=args.by)
    print(f"retracted {claim.id} from {ws.wiki.repo_path(page)}")
    return 0
