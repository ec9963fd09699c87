"""`openwiki-git claim`: add, list, show, confirm and retract claims."""

from __future__ import annotations

import argparse
import json

from openwiki_git import citations, compat, editing
from openwiki_git.commands import add_format, open_workspace
from openwiki_git.editing import new_claim_id as _new_id
from openwiki_git.editing import resolve_new_evidence
from openwiki_git.errors import EvidenceError, StoreError, UsageError
from openwiki_git.model import Claim
from openwiki_git.workspace import SOURCES_HELP, Workspace, now_iso


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("claim", help="add, list, show, confirm or retract claims", description=__doc__)
    csub = p.add_subparsers(dest="claim_command", metavar="ACTION")
    csub.required = True

    a = csub.add_parser("add", help="ground a statement in source lines", description=cmd_add.__doc__)
    a.add_argument("--page", required=True, help="the wiki page, e.g. guides/setup.md")
    a.add_argument("--statement", required=True, help="one proposition, as written in the page")
    a.add_argument("--evidence", required=True, action="append", metavar="RES", help="repo://path#Lx-Ly (repeatable)")
    a.add_argument("--by", help="who checked it, e.g. human:alice (recorded as the claim's verifier)")
    a.add_argument("--source", default="worktree", help=SOURCES_HELP)
    a.set_defaults(run=cmd_add)

    ls = csub.add_parser("list", help="list claims", description=cmd_list.__doc__)
    ls.add_argument("--page", help="only this page")
    add_format(ls)
    ls.set_defaults(run=cmd_list)

    sh = csub.add_parser("show", help="show one claim and the lines it cites", description=cmd_show.__doc__)
    sh.add_argument("id", help="claim id (or a unique prefix of 8+ characters)")
    add_format(sh)
    sh.set_defaults(run=cmd_show)

    cf = csub.add_parser("confirm", help="a person checked the cited text: refresh versions, clear the mark", description=cmd_confirm.__doc__)
    cf.add_argument("id", help="claim id (or a unique prefix of 8+ characters)")
    cf.add_argument("--by", metavar="ACTOR", help="who checked it, e.g. human:alice (records a verified event)")
    cf.add_argument("--source", default="worktree", help=SOURCES_HELP)
    cf.set_defaults(run=cmd_confirm)

    rt = csub.add_parser("retract", help="remove a claim and its marker", description=cmd_retract.__doc__)
    rt.add_argument("id", help="claim id")
    rt.set_defaults(run=cmd_retract)


def cmd_add(args: argparse.Namespace) -> int:
    """Resolve the evidence, allocate a claim_<32 hex> id, write it to the page's sidecar and print it."""
    ws = open_workspace(args)
    page = ws.wiki.normalize_page(args.page)
    if not ws.wiki.page_path(page).is_file():
        raise StoreError(f"{ws.wiki.repo_path(page)}: no such page", "write the page first, then add claims to it")
    statement = args.statement.strip()
    if not statement:
        raise UsageError("--statement is empty", "write the proposition the evidence supports")
    evidence = resolve_new_evidence(ws, args.evidence, args.source)
    with ws.wiki.lock():
        sidecars = ws.wiki.load_all()
        taken = {c.id for sc in sidecars.values() for c in sc.claims}
        claim = Claim(_new_id(taken), statement, tuple(evidence), now_iso(), args.by)
        sidecar = sidecars.get(page) or editing.new_sidecar(page)
        sidecar = sidecar.replace(claims=(*sidecar.claims, claim))
        placed: list[bool] = []

        def edit(text: str) -> str:
            new = citations.insert_marker(text, statement, claim.id)
            placed.append(new is not None)
            return new if new is not None else text

        editing.save_page(ws.wiki, sidecar, edit=edit)
    print(claim.id)
    if not placed or not placed[0]:
        print(f"put {citations.marker(claim.id)} after the sentence in {ws.wiki.repo_path(page)} that states it")
    return 0


def _claims_rows(ws: Workspace, page: str | None) -> list[tuple[str, Claim]]:
    sidecars = ws.wiki.load_all()
    if page is not None:
        page = ws.wiki.normalize_page(page)
        sidecars = {page: sidecars[page]} if page in sidecars else {}
    return [(p, c) for p in sorted(sidecars) for c in sidecars[p].claims]


def cmd_list(args: argparse.Namespace) -> int:
    """List claims: page, id, statement (and the evidence with --format json)."""
    ws = open_workspace(args)
    rows = _claims_rows(ws, args.page)
    if args.format == "json":
        print(json.dumps([_claim_json(p, c) for p, c in rows], indent=2, ensure_ascii=False))
    else:
        for p, c in rows:
            flag = f" [{c.mark.status}]" if c.mark else ""
            print(f"{ws.wiki.repo_path(p)}: {c.id}{flag}: {c.statement}")
    return 0


def _claim_json(page: str, c: Claim) -> dict[str, object]:
    return {
        "id": c.id,
        "page": page,
        "statement": c.statement,
        "evidence": [{"resource": e.resource, "version": e.version} for e in c.evidence],
        "verified_at": c.verified_at,
        "verified_by": c.verified_by,
        "marked": c.mark.status if c.mark else None,
    }


def cmd_show(args: argparse.Namespace) -> int:
    """Show one claim, its evidence and the lines it cites now."""
    ws = open_workspace(args)
    page, _, claim = ws.wiki.find_claim(args.id)
    resolver = ws.resolver()
    results = [resolver.resolve(e.resource, e.version) for e in claim.evidence]
    if args.format == "json":
        data = _claim_json(page, claim)
        data["evidence_status"] = [
            {"resource": r.resource, "status": r.status, "current_resource": r.current_resource, "reason": r.reason}
            for r in results
        ]
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"{claim.id} on {ws.wiki.repo_path(page)}")
    print(f"  {claim.statement}")
    for r in results:
        print(f"  {r.status}: {r.current_resource or r.resource} ({r.reason})")
        if r.current_resource:
            res = compat.parse_resource(r.current_resource, wiki_dir="\0")
            _, index = resolver.file(res.path)
            if index is not None and res.is_range and res.start and res.end:
                for n, line in enumerate(index.lines[res.start - 1 : res.end], res.start):
                    print(f"    {n:>5} | {line.rstrip(chr(10))}")
    return 0


def cmd_confirm(args: argparse.Namespace) -> int:
    """A person re-read the cited lines and the statement still holds: every evidence item is
    re-established where its text is now (new versions, refreshed anchors), the claim's mark is
    cleared, and with --by the verification (who, when) is recorded."""
    from openwiki_git import checker, fixer

    if args.by is not None and not args.by.strip():
        raise UsageError("--by is empty", "name who checked it, e.g. --by human:alice")
    ws = open_workspace(args)
    with ws.wiki.lock():
        page, sidecar, claim = ws.wiki.find_claim(args.id)
        result = checker.check_claim(page, claim, ws.resolver(args.source), page_text=ws.page_text(page))
        confirmed = fixer.verify_claim(claim, result, by=args.by, now=now_iso())
        if confirmed is None:
            gone = "; ".join(f"{r.resource}: {r.reason}" for r in result.evidence if r.current_resource is None)
            raise EvidenceError(
                f"{claim.id}: cannot confirm: {gone}",
                "fix the evidence (claim retract, then claim add with the new lines) or restore the cited file",
            )
        editing.save_page(ws.wiki, sidecar.with_claim(confirmed))
    print(f"confirmed {claim.id} on {ws.wiki.repo_path(page)}")
    for r in result.evidence:
        if "past the bound" in r.reason:  # the range kept its size (diffmap.bounded)
            print(f"  {r.current_resource}: {r.reason.split('; ', 1)[-1]}")
    return 0


def cmd_retract(args: argparse.Namespace) -> int:
    """Remove the claim from its sidecar and its marker from the page."""
    ws = open_workspace(args)
    with ws.wiki.lock():
        page, sidecar, claim = ws.wiki.find_claim(args.id)
        editing.save_page(
            ws.wiki, sidecar.without_claim(claim.id), edit=lambda text: citations.remove_marker(text, claim.id)
        )
    print(f"retracted {claim.id} from {ws.wiki.repo_path(page)}")
    return 0
