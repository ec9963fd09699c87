"""`ground`'s report as data: per page the claims written (or, in a plan, to write) with what each
evidence item cites, the references grounded, already grounded, broken, ambiguous, undecided and
left alone; the pages left alone and why; the summary. A plan's report and the run's are the
same records (tests/ground compare them)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from openwiki_git import PRODUCER
from openwiki_git.ground import examples as ground_examples
from openwiki_git.ground.deterministic import PageReport
from openwiki_git.store.workspace import Workspace

COUNTS = ("already_grounded", "unknown", "no_claim", "repeated", "retracted", "unusable", "ignored", "guarded")


def report_data(ws: Workspace, reports: list[PageReport], *, plan: bool, model: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report (see the module docstring); `model`: the model pass's report when it ran. A
    page the verify policy keeps from the tool lists what it would have added (nothing is written)."""
    pages = [_page(ws, r) for r in reports]
    summary: dict[str, Any] = {
        "pages": len(reports),
        "references": sum(p["references"] for p in pages),
        "added": sum(len(p["added"]) for p in pages),
        "claims": sum(1 for p in pages for c in p["claims"] if not c["extends"]),
        "extended": sum(1 for p in pages for c in p["claims"] if c["extends"]),
        **{k: sum(len(p[k]) for p in pages) for k in ("broken", "ambiguous", "undecided")},
        **{k: sum(p[k] for p in pages) for k in COUNTS},
        "refused_by_policy": sum(1 for r in reports if r.refused),
        "left_alone": sum(1 for r in reports if r.left_alone),
        "cites": dict(sorted(Counter(i["cites"] for p in pages for c in p["claims"] for i in c["items"]).items())),
        "examples": ground_examples.summary(p["examples"] for p in pages),
    }
    # every reference is counted once: references == added + already_grounded + broken + ambiguous
    # + unknown + no_claim + repeated + retracted + unusable (`ignored` and `guarded` are apart)
    out: dict[str, Any] = {"tool": PRODUCER, "wiki_dir": ws.config.wiki_dir, "plan": plan, "pages": pages, "summary": summary}
    if model is not None:
        out["model"] = model
    return out


def _page(ws: Workspace, r: PageReport) -> dict[str, Any]:
    claims: list[dict[str, Any]] = [
        {"id": p.claim_id, "statement": p.statement, "line": p.sentence.line, "extends": p.extends,
         "evidence": [e.resource for e in p.evidence], "items": [i.record(p.sentence.line, p.statement) for i in p.items]}
        for p in r.proposals
    ]
    added = [{**i, "id": c["id"]} for c in claims for i in c["items"] if not i.get("extra")]
    return {
        "page": r.page, "page_path": ws.wiki.repo_path(r.page), "claims": claims, "added": added,
        "already_grounded": r.already, "broken": r.broken, "ambiguous": r.ambiguous, "undecided": r.undecided,
        "unknown": r.unknown, "references": r.references, "front_matter_added": r.front_matter_added,
        "no_claim": r.no_claim, "repeated": r.repeated, "retracted": r.retracted, "unusable": r.unusable,
        "ignored": r.ignored, "guarded": r.guarded,
        **({"refused_by_policy": r.refused} if r.refused else {}),
        **({"left_alone": r.left_alone} if r.left_alone else {}),
        "examples": ground_examples.page_data(r.examples, [{"id": cid, **ground_examples.added(ex)} for ex, cid in r.examples_planned]),
    }
