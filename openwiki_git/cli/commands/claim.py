"""`openwiki-git claim`: add, list, show, edit, confirm and retract claims.

Wherever a claim id is asked for, the full id, its hex without `claim_`, a unique prefix of 8+
characters, or the label the pages print (`c-1a2b3c4d`, `[^c-1a2b3c4d]`) is accepted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from openwiki_git.cli.args import add_format, open_workspace
from openwiki_git.errors import EvidenceError, StoreError, UsageError
from openwiki_git.evidence.resolver import LineIndex
from openwiki_git.evidence.resource import REPO_PREFIX, ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import Claim, Evidence
from openwiki_git.pages import citations
from openwiki_git.store import editing
from openwiki_git.store.editing import new_claim_id as _new_id
from openwiki_git.store.editing import resolve_new_evidence
from openwiki_git.store.workspace import SOURCES_HELP, Workspace, now_iso


def add_parser(sub: argparse._SubParsersAction) -> None:
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

    sh = csub.add_parser("show", help="show one claim: verified text against the text now, cause, location", description=cmd_show.__doc__)
    sh.add_argument("id", help=ID_HELP)
    sh.add_argument("--source", default="worktree", help=SOURCES_HELP)
    add_format(sh)
    sh.set_defaults(run=cmd_show)

    ed = csub.add_parser("edit", help="re-point a claim's evidence or restate it, keeping its id", description=cmd_edit.__doc__)
    ed.add_argument("id", help=ID_HELP)
    ed.add_argument("--evidence", action="append", metavar="RES", help="repo://path#Lx-Ly (repeatable): replaces all the evidence")
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
    rt.set_defaults(run=cmd_retract)


ID_HELP = "claim id: claim_<hex>, a unique prefix of 8+ characters, or the page label c-xxxxxxxx"


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
    """Show one claim: its status and cause, and per evidence item where the cited text is now and
    the text as verified against the text now, as a unified diff (the verified text is read from
    the blob recorded when it was verified). Also whether the page's sentence still states it."""
    from openwiki_git.claims import check as checker

    ws = open_workspace(args)
    page, _, claim = ws.wiki.find_claim(args.id)
    resolver = ws.resolver(args.source)
    text = ws.page_text(page)
    result = checker.check_claim(page, claim, resolver, page_text=text)
    items = [_evidence_view(ws, resolver, claim, ev, r) for ev, r in zip(claim.evidence, result.evidence, strict=True)]
    states = citations.states(text, claim.id, claim.statement) if text is not None else None
    prose = citations.prose_before(text, claim.id) if text is not None and states is False else None
    if args.format == "json":
        data = _claim_json(page, claim)
        data.update(
            label=citations.label(claim.id),
            status=result.status,
            notes=list(result.notes),
            cause=[dataclasses.asdict(c) for c in claim.mark.causes] if claim.mark else [],
            evidence_status=items,
            prose_states_statement=states,
            prose=prose,
        )
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"{claim.id} ({citations.label(claim.id)}) on {ws.wiki.repo_path(page)}: {result.status}")
    print(f"  {claim.statement}")
    if claim.mark is not None:
        print(
            f"  marked {claim.mark.status} since {claim.mark.since}" + (f" (against {claim.mark.commit[:12]})" if claim.mark.commit else "")
        )
        for c in claim.mark.causes:
            print(f"    cause: {c.resource.removeprefix(REPO_PREFIX)} {c.reason}" + (f" by {c.hunk}" if c.hunk else ""))
    for note in result.notes:
        print(f"  note: {note}")
    if states is False:
        print(f"  the page's sentence differs from the statement: {prose!r}")
    for item in items:
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
    return 0


def _evidence_view(ws: Workspace, resolver, claim: Claim, ev: Evidence, r) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """One evidence item for `claim show`: where it is now, and the verified and current texts."""
    import difflib

    from openwiki_git.claims import check as checker

    out: dict[str, Any] = {
        "resource": ev.resource, "status": r.status, "current_resource": r.current_resource, "reason": r.reason,
        "verified_text": None, "verified_from": None, "current_text": None, "current_lines": None, "diff": None,
    }
    try:
        res = parse_resource(ev.resource, wiki_dir="\0")
    except ResourceError:
        return out
    if r.current_resource:
        cur = parse_resource(r.current_resource, wiki_dir="\0")
        _, index = resolver.file(cur.path)
        if index is not None and cur.is_range and cur.start and cur.end:
            out["current_text"] = "".join(index.lines[cur.start - 1 : cur.end])
            out["current_lines"] = [cur.start, cur.end]
        elif index is not None:
            out["current_text"] = index.text
    if ev.blob and res.is_range:
        then = ws.repo.blob_text(res.path, ev.blob)
        if then.text is not None:
            idx = LineIndex(then.text)
            span = checker.verified_span(res, then.text, idx, ev.version)
            if span is not None:
                out["verified_text"] = "".join(idx.lines[span[0] - 1 : span[1]])
                out["verified_from"] = f"blob {ev.blob[:12]} L{span[0]}-L{span[1]}"
    cause = checker.cause_for(claim, ev.resource) if claim.mark is not None else None
    if out["verified_text"] is None and cause is not None and cause.blob and cause.old_lines:
        then = ws.repo.blob_text(res.path, cause.blob)  # the mark names the blob and lines it was verified at
        if then.text is not None:
            a, b = cause.old_lines
            out["verified_text"] = "".join(split_lines(then.text)[a - 1 : b])
            out["verified_from"] = f"blob {cause.blob[:12]} L{a}-L{b}"
    if out["verified_text"] is not None and out["current_text"] is not None and out["verified_text"] != out["current_text"]:
        now = (r.current_resource or ev.resource).removeprefix(REPO_PREFIX)
        out["diff"] = "".join(
            difflib.unified_diff(
                str(out["verified_text"]).splitlines(keepends=True),
                str(out["current_text"]).splitlines(keepends=True),
                f"verified ({out['verified_from']})",
                f"now ({now})",
                n=max(len(str(out["current_text"]).splitlines()), 3),
            )
        )
    return out


def cmd_edit(args: argparse.Namespace) -> int:
    """Re-point a claim's evidence (`--evidence`, resolved at the literal lines given, as `claim
    add` does) and/or restate it (`--statement`), keeping its id, its marker in the page and its
    place in the sidecar. New evidence is a person's verification: the mark is cleared and the
    verification (when, `--by`) recorded. A new statement alone keeps the mark."""
    if not args.evidence and args.statement is None:
        raise UsageError("claim edit needs --evidence or --statement", "e.g. claim edit c-1a2b3c4d --evidence repo://src/a.py#L10-L14")
    if args.by is not None and not args.by.strip():
        raise UsageError("--by is empty", "name who checked it, e.g. --by human:alice")
    statement = args.statement.strip() if args.statement is not None else None
    if statement == "":
        raise UsageError("--statement is empty", "write the proposition the evidence supports")
    ws = open_workspace(args)
    evidence = resolve_new_evidence(ws, args.evidence, args.source) if args.evidence else None
    with ws.wiki.lock():
        page, sidecar, claim = ws.wiki.find_claim(args.id)
        new = claim.replace(statement=statement or claim.statement)
        if evidence is not None:
            new = new.replace(evidence=tuple(evidence), mark=None, verified_at=now_iso(), verified_by=args.by or claim.verified_by)
        editing.save_page(ws.wiki, sidecar.with_claim(new))
    print(f"edited {claim.id} on {ws.wiki.repo_path(page)}")
    text = ws.page_text(page)
    if text is not None and citations.states(text, claim.id, new.statement) is False:
        print(
            f"the sentence before {citations.marker(claim.id)} in {ws.wiki.repo_path(page)} does not state it yet: edit the prose to match"
        )
    return 0


def cmd_confirm(args: argparse.Namespace) -> int:
    """A person re-read the cited lines and the statement still holds: every evidence item is
    re-established where its text is now (new versions, refreshed anchors), the claim's mark is
    cleared, and with --by the verification (who, when) is recorded.

    When the page's sentence carrying the claim's marker no longer states the claim, confirming
    the old statement would verify something the page does not say: it is refused unless
    `--statement` gives the statement confirmed now, or `--keep-statement` says the stored one."""
    from openwiki_git.claims import check as checker
    from openwiki_git.claims import fix as fixer

    if args.by is not None and not args.by.strip():
        raise UsageError("--by is empty", "name who checked it, e.g. --by human:alice")
    if args.statement is not None and not args.statement.strip():
        raise UsageError("--statement is empty", "write the proposition the evidence supports")
    if args.statement is not None and args.keep_statement:
        raise UsageError("--statement and --keep-statement exclude each other", "give one of them")
    ws = open_workspace(args)
    with ws.wiki.lock():
        page, sidecar, claim = ws.wiki.find_claim(args.id)
        text = ws.page_text(page)
        if (
            args.statement is None
            and not args.keep_statement
            and text is not None
            and citations.states(text, claim.id, claim.statement) is False
        ):
            said = citations.prose_before(text, claim.id)
            raise UsageError(
                f"{ws.wiki.repo_path(page)}: {claim.id}: the page's sentence before {citations.marker(claim.id)} "
                f"no longer states the claim (it says {said!r}; the claim says {claim.statement!r})",
                "confirm what the page says with --statement '...', or the stored statement with --keep-statement",
            )
        result = checker.check_claim(page, claim, ws.resolver(args.source), page_text=text)
        confirmed = fixer.verify_claim(claim, result, by=args.by, now=now_iso())
        if confirmed is None:
            gone = "; ".join(f"{r.resource}: {r.reason}" for r in result.evidence if r.current_resource is None)
            raise EvidenceError(
                f"{claim.id}: cannot confirm: {gone}",
                f"re-point the evidence (claim edit {citations.label(claim.id)} --evidence repo://...) or restore the cited file",
            )
        if args.statement is not None:
            confirmed = confirmed.replace(statement=args.statement.strip())
        editing.save_page(ws.wiki, sidecar.with_claim(confirmed))
    print(f"confirmed {claim.id} on {ws.wiki.repo_path(page)}")
    for r in result.evidence:
        if "past the bound" in r.reason:  # the range kept its size (relocation.bounded)
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
