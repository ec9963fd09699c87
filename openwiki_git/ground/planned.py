"""What `ground`'s plan is made of (an item of evidence, a sentence's proposed claim) and what a
run shares across pages (Context): the deterministic pass (deterministic.py), the section
subjects (subject.py) and the model pass (model_pass.py) propose with them; writing.py writes them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openwiki_git.errors import EvidenceError
from openwiki_git.ground import resolve as gr
from openwiki_git.ground.proves import Prover
from openwiki_git.ground.refs import Sentence
from openwiki_git.model import Evidence
from openwiki_git.pages import citations
from openwiki_git.store.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Item:
    """One reference of a sentence, grounded: what it names and the evidence that proves it."""

    reference: str  # as written
    kind: str  # symbol, path, flag, env, key, string
    target: str  # what was found: a qualified name, a file, a flag
    resource: str
    cites: str  # head, body, lines, parameter, lineset, file
    undecided: str = ""  # why the pass could not tell which code holds the behaviour (the model decides)
    # not a reference of the sentence's own: "heading" (a name of its section's heading),
    # "declaration" (the call declaring a flag it names, beside the lines that mention it),
    # "writes" (the lines assigning an attribute it names, beside the attribute's declaration),
    # "section" (the one parameter its section's sentences cite: subject.py),
    # "uses" (the lines raising, catching or testing for an exception it says is raised), "detects" (the lines
    # checking that a dependency it says is installed is: dependencies.py), "dispatch" (where a flag takes effect: dispatch.py)
    extra: str = ""

    def record(self, line: int, statement: str) -> dict[str, Any]:
        return {"reference": self.reference, "kind": self.kind, "target": self.target, "evidence": self.resource,
                "cites": self.cites, "line": line, "statement": statement, **({"extra": self.extra} if self.extra else {})}


@dataclass(frozen=True, slots=True)
class Proposal:
    """One sentence's claim: a new one (`claim_id` is the id it gets), or the sentence's claim
    given more evidence (`extends`). `place`: how a new claim's marker goes into the page (None:
    after the prose sentence); a planner of other things than prose sentences (a code example)
    supplies its own."""

    page: str
    sentence: Sentence
    items: tuple[Item, ...]
    evidence: tuple[Evidence, ...]  # the items' evidence, established when planned
    claim_id: str
    extends: bool = False
    place: Callable[[str, str], str] | None = None  # (page text, claim id) -> the text with its marker
    also: tuple[Sentence, ...] = ()  # the same sentence said again on the page: one claim, its marker after each

    @property
    def statement(self) -> str:
        return self.sentence.text


@dataclass
class Context:
    """What one run shares across pages: the index, the prover, the claim ids taken (ids planned
    are taken at once, so the run writes the ids its plan shows)."""

    ws: Workspace
    index: Any
    taken: set[str]
    labels: set[str]
    source: str = "worktree"
    reground: bool = False
    prover: Prover = field(init=False)
    tracked: Callable[[], Any] = field(init=False)
    guards: dict[tuple[str, str], gr.Resolution] = field(default_factory=dict)  # a guard's name, resolved once

    def __post_init__(self) -> None:
        self.prover = Prover(self.index)
        self.tracked = self.ws.tracked(self.source)  # listed once for the run
    def reserve(self, page: str, statement: str, resources: list[str]) -> str:
        from openwiki_git.store.editing import new_claim_id

        cid = stable_id(page, statement, resources, self.taken, self.labels) or new_claim_id(self.taken)
        self.taken.add(cid)
        self.labels.add(citations.label(cid))
        return cid


def establish(ctx: Context, items: list[Item]) -> tuple[list[Evidence], list[Item]]:
    """Each item's evidence established now (its token); an item whose evidence cannot be is left out."""
    from openwiki_git.store.editing import resolve_new_evidence

    evidence: list[Evidence] = []
    usable: list[Item] = []
    for item in items:
        try:
            got = resolve_new_evidence(ctx.ws, [item.resource], ctx.source, ctx.tracked)
        except EvidenceError:
            continue
        if any(e.resource == got[0].resource for e in evidence):
            continue
        evidence.extend(got)
        usable.append(item)
    return evidence, usable


def stable_id(page: str, statement: str, resources: list[str], taken: set[str], labels: set[str] | None = None) -> str | None:
    """The claim id `ground` gives a sentence and its evidence: the same on every run and machine
    (a nightly pull request rebuilt from the base branch changes nothing but timestamps); None
    when that id or its marker label is taken (`labels`: the labels of `taken`, when known)."""
    digest = hashlib.sha256("\0".join([page, statement, *resources]).encode("utf-8")).hexdigest()[:32]
    cid = "claim_" + digest
    if labels is None:
        labels = {citations.label(t) for t in taken}
    if cid in taken or citations.label(cid) in labels:
        return None
    return cid
