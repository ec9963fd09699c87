"""What a refresh run reports: one `Decision` per claim and the `RefreshResult` with its totals
(and a dry run's estimate), as data the CLI and the GitHub workflow render. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openwiki_git import PRODUCER


@dataclass
class Decision:
    """What happened to one claim. `verdict` is None when the claim stays as it was."""

    claim_id: str
    page: str
    verdict: str | None
    old_statement: str
    new_statement: str | None = None  # the statement after the decision (None: retracted or undecided)
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = 0.0
    error: str | None = None  # why the claim stays stale (rejected answer, model error, changed meanwhile)
    skipped: str | None = None  # why the claim was not sent (max-claims, budget, run stopped)
    trivial: str | None = None  # confirmed without a model: why
    rationale: str | None = None
    status: str = "stale"  # the check's status before the decision
    due: bool = False
    evidence_before: list[str] = field(default_factory=list)
    evidence_after: list[str] = field(default_factory=list)
    attempts: int = 0
    method: str | None = None
    applied: bool = False  # written (or, in a dry run, would be)
    quotes: list[dict[str, str]] = field(default_factory=list)  # the model's cited lines: resource, quote
    notes: list[str] = field(default_factory=list)  # what a reviewer should look at (e.g. quotes of comments)
    planned: dict[str, Any] | None = None  # dry run: would it be sent, estimated tokens and cost
    first_accepted: bool | None = None  # sent: whether the model's first answer passed every check
    decided_with: str | None = None  # decided by the request about this claim (another claim of its sentence)

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim_id": self.claim_id,
            "page": self.page,
            "verdict": self.verdict,
            "old_statement": self.old_statement,
            "new_statement": self.new_statement,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": self.cost,
            "error": self.error,
            "skipped": self.skipped,
            "trivial": self.trivial,
            "rationale": self.rationale,
            "status": self.status,
            "due": self.due,
            "evidence_before": list(self.evidence_before),
            "evidence_after": list(self.evidence_after),
            "attempts": self.attempts,
            "method": self.method,
            "applied": self.applied,
            "quotes": [dict(q) for q in self.quotes],
            "notes": list(self.notes),
            "first_accepted": self.first_accepted,
            **({"decided_with": self.decided_with} if self.decided_with else {}),
            **({"planned": dict(self.planned)} if self.planned is not None else {}),
        }


def cost_of(decisions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the model's pass cost, in the open (from decisions as `to_dict` gives them, a run's or
    merged shards'): the requests sent (one per sentence), the claims a model decided, model calls
    and tokens per claim it decided, the first answers accepted and the retries."""
    sent = [d for d in decisions if d.get("attempts")]
    decided = [d for d in decisions if d.get("applied") and (d.get("attempts") or d.get("decided_with"))]
    calls = sum(int(d["attempts"]) for d in sent)
    tokens = sum(int(d.get("tokens_in") or 0) + int(d.get("tokens_out") or 0) for d in sent)
    first = sum(bool(d.get("first_accepted")) for d in sent)
    n = len(decided)
    return {
        "requests": len(sent),
        "model_decided": n,
        "first_accepted": first,
        "retries": sum(max(0, int(d["attempts"]) - 1) for d in sent),
        "calls_per_claim": round(calls / n, 3) if n else None,
        "tokens_per_claim": round(tokens / n) if n else None,
        "first_acceptance": round(first / len(sent), 3) if sent else None,
    }


@dataclass
class RefreshResult:
    decisions: list[Decision] = field(default_factory=list)
    model: str | None = None
    dry_run: bool = False
    written: list[str] = field(default_factory=list)  # repo paths written (all under the wiki dir)
    diff: str = ""  # dry run: what would change, as a unified diff
    stopped: str | None = None  # why the run stopped early (the rest stays stale)
    fallbacks: list[str] = field(default_factory=list)  # structured-output methods given up, and why
    unusable: str | None = None  # the model cannot be used at all (401, 404, unreachable): why
    shard: tuple[int, int] | None = None

    @property
    def totals(self) -> dict[str, Any]:
        ds = self.decisions
        costs = [d.cost for d in ds]
        return {
            "claims": len(ds),
            "confirmed": sum(d.verdict == "confirm" for d in ds),
            "revised": sum(d.verdict == "revise" for d in ds),
            "retracted": sum(d.verdict == "retract" for d in ds),
            "trivial": sum(d.trivial is not None for d in ds),
            "failed": sum(d.error is not None for d in ds),
            "skipped": sum(d.skipped is not None for d in ds),
            "model_calls": sum(d.attempts for d in ds),
            "tokens_in": sum(d.tokens_in for d in ds),
            "tokens_out": sum(d.tokens_out for d in ds),
            "cost": None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6),
            **self.cost_per_claim,
        }

    @property
    def cost_per_claim(self) -> dict[str, Any]:
        return cost_of([d.to_dict() for d in self.decisions])

    @property
    def plan_totals(self) -> dict[str, Any]:
        """A dry run's estimate: the claims that would be sent, their tokens and cost."""
        planned = [d.planned for d in self.decisions if d.planned is not None and d.planned["send"]]
        costs = [p["cost"] for p in planned]
        claims = sum(len(p.get("claims", [None])) for p in planned)
        return {
            "claims_to_send": claims,
            "requests": len(planned),
            "claims_decided": claims,
            "tokens_per_claim": round(sum(p["tokens_in"] + p["tokens_out"] for p in planned) / claims) if claims else None,
            "tokens_in": sum(p["tokens_in"] for p in planned),
            "tokens_out": sum(p["tokens_out"] for p in planned),
            "cost": None if any(c is None for c in costs) else round(sum(costs), 6),
        }

    @property
    def ok(self) -> bool:
        """Every selected claim was decided."""
        return all(d.verdict is not None for d in self.decisions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": PRODUCER,
            "model": self.model,
            "dry_run": self.dry_run,
            "decisions": [d.to_dict() for d in self.decisions],
            "totals": self.totals,
            "written": list(self.written),
            "stopped": self.stopped,
            "fallbacks": list(self.fallbacks),
            "unusable": self.unusable,
            "shard": list(self.shard) if self.shard else None,
            **({"diff": self.diff, "plan": self.plan_totals} if self.dry_run else {}),
        }
