"""`ground`'s deterministic pass, planned: a page's references resolved and one claim per sentence
proposed. Reads only; writing.py writes the plan. How grounding decides is docs/grounding.md:

- every reference a sentence makes (refs.py) is resolved (resolve.py) and cited by the code that
  proves the sentence (proves.py: a body for behaviour, a head for naming, a parameter's lines;
  names.py: the lines that mention a flag, a variable, a key, a constant); the names its
  section's heading or its list item's lead carry (refs.py's guards) are cited too, and a
  section setting one parameter guards its sentences and examples with it (subject.py);
- the sentence gets ONE claim with every item as evidence; a sentence that carries a claim
  already gets only the items that claim does not cite yet (it keeps its id, verification and
  mark); a sentence whose claim was retracted (the sidecar's tombstone) is left alone unless the
  run re-grounds retracted sentences;
- each item's evidence is established while planning, so a plan is what the run writes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from openwiki_git.formats import pagenames
from openwiki_git.ground import continuation, dependencies, dispatch, installs, pageformat, subject
from openwiki_git.ground import examples as ground_examples
from openwiki_git.ground import refs as ground_refs
from openwiki_git.ground import resolve as gr
from openwiki_git.ground.broken import GROUND_BY, broken_references, grounded_pages  # noqa: F401 (check and lint import them here)
from openwiki_git.ground.index import Definition
from openwiki_git.ground.names import lineset
from openwiki_git.ground.planned import Context, Item, Proposal, establish
from openwiki_git.ground.proves import named_resource, says_does, says_raised
from openwiki_git.ground.refs import Ref, Sentence
from openwiki_git.model import Claim, Sidecar
from openwiki_git.pages import citations


@dataclass
class PageReport:
    page: str
    proposals: list[Proposal] = field(default_factory=list)
    already: int = 0  # cited already by the sentence's claim
    broken: list[dict[str, Any]] = field(default_factory=list)
    ambiguous: list[dict[str, Any]] = field(default_factory=list)
    undecided: list[dict[str, Any]] = field(default_factory=list)
    unknown: int = 0
    no_claim: int = 0  # resolved, in a heading, table, HTML or a sentence of references only
    repeated: int = 0  # cites what another reference of its sentence cites (a link beside its path, a class beside its method)
    retracted: int = 0  # in a sentence whose claim was retracted
    unusable: int = 0  # resolved, but its evidence could not be established
    ignored: int = 0  # followed by `<!-- openwiki-git: ignore -->` (not counted in `references`)
    guarded: int = 0  # evidence items a sentence got from its section's heading or its list item's lead
    references: int = 0
    front_matter_added: bool = False
    refused: str | None = None  # the verify_policy rule that forbids ground's claims on this page
    left_alone: str | None = None  # why the page is not grounded (history, opted out)
    examples: Any = None  # the page's code examples as found (ground/examples.py: ExamplePlan)
    examples_planned: list[tuple[Any, str]] = field(default_factory=list)  # (ExampleProposal, its claim id)


def plan_page(ctx: Context, page: str, sidecar: Sidecar | None, text: str) -> PageReport:
    """What grounding `page` adds: one proposal per sentence, and its broken, ambiguous and
    undecided references. Reads only."""
    rep = PageReport(page)
    found = pageformat.refs_of(page, text)
    rep.references, rep.ignored = len(found.refs), found.ignored
    page_repo = ctx.ws.wiki.repo_path(page)
    by_sentence: dict[Sentence, list[tuple[Ref, gr.Resolution]]] = {s: [] for s in found.guards}
    for ref in found.refs:
        res = gr.resolve(ref, ctx.index, page_repo_path=page_repo, local_names=found.local_names)
        by_sentence.setdefault(ref.sentence, []).append((ref, res))
    known = dependencies.detections(ctx.index)
    sentences = list(found.sentences)  # as pageformat.sentences_of reads them, split once
    present = {s: got for s in (sentences if known else ()) for got in [dependencies.named(s.text, known)] if got}
    lists = {s: got for s in sentences for got in [installs.dependency_lists(ctx.index, s.text)] if got}
    for sentence in [*present, *lists]:
        by_sentence.setdefault(sentence, [])
    sidecar = sidecar or Sidecar(page, "")
    page_classes = _classes(res for pairs in by_sentence.values() for _, res in pairs)  # `runner.invoke()`: CliRunner's, named above
    params: list[tuple[Sentence, Item]] = []  # the parameters sentences set, for their sections (subject.py)
    for sentence, pairs in sorted(by_sentence.items(), key=lambda kv: kv[0].end):
        context = [_resolved(ctx, r, page_repo, found.local_names) for r in found.context.get(sentence, ())]
        named = _through_classes(pairs, ctx.index, context, page_classes)
        items = _items(rep, ctx, sentence, ground_examples.through_programs(named, ctx.index))
        items += [  # "If you have Rich installed": the lines that check it is
            Item(name, "dependency", name, r, "lines", extra="detects") for name, r in present.get(sentence, ())
        ] + [Item(what, "dependency", what, r, "lines", extra="requires") for r, what in lists.get(sentence, {}).items()]
        if not sentence.claimable:
            rep.no_claim += len(items)
            continue
        guards = [_guard(ctx, g, page_repo, found.local_names) for g in found.guards.get(sentence, ())]
        _propose(rep, ctx, sidecar, sentence, items, [g for g in guards if g is not None])
        params += [(sentence, i) for i in items if i.cites == "parameter" and not i.extra and _sets(ctx, i, sentence.text)]
    subjects = _section_subjects(rep, ctx, sidecar, page, text, sentences, params)
    _consequences(rep, ctx, sidecar, page, text, sentences)
    rep.proposals += _examples(ctx, rep, sidecar, text, page_repo, subjects)
    return rep


def _consequences(rep: PageReport, ctx: Context, sidecar: Sidecar, page: str, text: str, sentences: list[Sentence]) -> None:
    """A sentence drawing the consequence of a condition said just before it ("Then you can ..."),
    citing nothing itself, guarded by the condition's evidence (ground/continuation.py)."""
    if not any(s.text.lstrip("*_").startswith("Then") for s in sentences):
        return
    proposed = {p.sentence: p for p in rep.proposals}
    heads = [line for _, line in ground_refs.headings(text, pageformat.page_blocks(page))]
    for then, condition in continuation.conditions(sentences, heads).items():
        if then in proposed or _claim_of(sidecar, then) is not None:
            continue
        claim = _claim_of(sidecar, condition)
        items = list(proposed[condition].items) if condition in proposed else [
            Item(e.resource, "condition", e.resource, e.resource, "lines") for e in (claim.evidence if claim is not None else ())
        ]
        _propose(rep, ctx, sidecar, then, [], [dataclasses.replace(i, extra="condition") for i in items])


def _section_subjects(
    rep: PageReport, ctx: Context, sidecar: Sidecar, page: str, text: str, sentences: list[Sentence], cited: list[tuple[Sentence, Item]]
) -> dict[tuple[int, int], Item]:
    """The sentences of a section setting one parameter, guarded by it (ground/subject.py); each
    such section's parameter, for its examples. `cited`: the parameters the page's sentences set."""
    if not cited:
        return {}
    claimed = {p.sentence for p in rep.proposals} | {s for s in sentences if _claim_of(sidecar, s) is not None}
    spans = subject.sections(ground_refs.headings(text, pageformat.page_blocks(page)), text.count("\n") + 1)
    found = subject.subjects(spans, [(sn.line, i.resource) for sn, i in cited])
    items = {i.resource: dataclasses.replace(i, extra="section") for _, i in cited}
    for sentence, resource in subject.guarded(found, sentences, claimed).items():
        _propose(rep, ctx, sidecar, sentence, [], [items[resource]])
    return {span: items[resource] for span, resource in found.items()}


def _sets(ctx: Context, item: Item, sentence: str) -> bool:
    """Whether the sentence sets the parameter the item cites: `show_locals=False` in a code span."""
    path, start, _ = ctx.prover.span(item.resource)
    lines = ctx.index.lines(path)
    name = subject.declared_name(lines[start - 1]) if 0 < start <= len(lines) else None
    return name is not None and subject.sets(sentence, name)


def _examples(
    ctx: Context, rep: PageReport, sidecar: Sidecar, text: str, page_repo: str, subjects: dict[tuple[int, int], Item]
) -> list[Proposal]:
    """One claim per code example that uses the project's API (ground/examples.py), its evidence
    the heads of what it calls, or that stands in a section about one parameter (`subjects`),
    its evidence that parameter's; its marker a comment on the line after the closing fence (in
    reStructuredText, a marker line after the code block)."""
    rst = pagenames.is_rst(rep.page)
    rep.examples = ground_examples.plan(ctx.index, page_repo, text, sidecar.claims, rst=rst)
    for ex, _, _ in list(rep.examples.unclaimed):
        span = subject.section_of(subjects, ex.line)
        if span is not None:
            rep.examples.adopt(ex, subjects[span].resource, subjects[span].target)
    out = []
    for ex in rep.examples.proposals:
        items = [Item(target, ground_examples.KIND, target, resource, "head" if resource.endswith(":head") else "lines", extra="example")
                 for resource, target in zip(ex.resources, ex.targets, strict=True)]
        evidence, usable = establish(ctx, items)
        if not usable:
            continue
        cid = ctx.reserve(rep.page, ex.statement, [e.resource for e in evidence])
        rep.examples_planned.append((ex, cid))
        out.append(Proposal(rep.page, ex.sentence, tuple(usable), tuple(evidence), cid, place=partial(_place_example, ex, rst)))
    return out


def _place_example(ex: Any, rst: bool, text: str, claim_id: str) -> str:
    return ground_examples.insert_markers(text, [(ex, claim_id)], rst=rst)


def _items(rep: PageReport, ctx: Context, sentence: Sentence, pairs: list[tuple[Ref, gr.Resolution]]) -> list[Item]:
    """The sentence's broken, ambiguous and unknown references reported; its resolved ones as items."""
    items = []
    for ref, res in pairs:
        where = {"reference": ref.raw, "kind": ref.kind, "line": sentence.line, "statement": sentence.text}
        if res.outcome == gr.BROKEN:
            rep.broken.append({**where, "reason": res.reason})
        elif res.outcome == gr.AMBIGUOUS:
            rep.ambiguous.append({**where, "candidates": list(res.candidates)})
        elif res.outcome == gr.UNKNOWN:
            rep.unknown += 1
        elif res.reason == SUBSUMED:
            rep.repeated += 1
        elif not sentence.claimable:
            items.append(Item(ref.raw, ref.kind, "", "", ""))  # counted as no claim; no evidence needed
        elif res.lineset is not None:
            assert res.target is not None
            items.append(Item(ref.raw, ref.kind, res.target.qualname, res.lineset.resource, "lineset"))
            if res.lineset.declaration is not None:  # the flag's call: its help, type and default
                items.append(Item(ref.raw, ref.kind, res.target.qualname, res.lineset.declaration, "declaration", extra="declaration"))
            effect = dispatch.dispatched(ctx.index, ref.name, ctx.prover.tree) if ref.kind == "flag" and says_does(sentence.text) else None
            switched = effect.definitions if effect else ()
            cites = [ctx.prover.cite(d, sentence.text, named_resource(ctx.index, d, sentence.text)) for d in switched]
            found = [*((c.resource, c.cites) for c in cites), *((r, "lines") for r in (effect.resources if effect else []))]
            items.extend(Item(ref.raw, ref.kind, ref.name, r, how, extra="dispatch") for r, how in found)  # where it takes effect
        else:
            assert res.target is not None
            fallback = named_resource(ctx.index, res.target, sentence.text)
            cite = ctx.prover.cite(res.target, sentence.text, fallback)
            raised = _raised(ctx, ref, res.target, sentence.text) if cite.undecided else []
            items.append(Item(ref.raw, ref.kind, res.target.qualname, cite.resource, cite.cites, "" if raised else cite.undecided))
            items.extend(raised)
            if res.target.kind == "attribute" and cite.cites != "parameter":
                items.extend(_writes(ctx, ref, res.target.qualname))
    return items


def _raised(ctx: Context, ref: Ref, d: Definition, sentence: str) -> list[Item]:
    """An exception in a sentence about raising or catching it ("a `RetryError` is raised",
    "by raising `TryAgain`"): what makes it true is where the code raises, catches or tests for
    it, not the class's head: the lines of the package that use it, as a set, beside the head."""
    if not says_raised(sentence) or not ctx.prover.is_exception(d):
        return []
    found = lineset(ctx.index, "uses", d.qualname.rsplit(".", 1)[-1])
    return [Item(ref.raw, ref.kind, d.qualname, found.resource, "lineset", extra="uses")] if found else []


def _writes(ctx: Context, ref: Ref, qualname: str) -> list[Item]:
    """An instance attribute's value is what the code assigns to it, not only its first
    assignment (`self.idle_for = 0.0`, then `rs.idle_for += sleep`): the lines that assign it,
    as a set, beside its declaration."""
    found = lineset(ctx.index, "writes", qualname.rsplit(".", 1)[-1])
    return [Item(ref.raw, ref.kind, qualname, found.resource, "lineset", extra="writes")] if found else []


def _guard(ctx: Context, ref: Ref, page_repo: str, local: frozenset[str]) -> Item | None:
    """A name of the sentence's section heading, its list item's lead or the code span it leads
    into, as an item of the sentence."""
    res = _resolved(ctx, ref, page_repo, local)
    if res.outcome != gr.RESOLVED or res.target is None or res.lineset is None and ref.kind != "setting":
        return None  # a setting is cited by the configuration line setting it (resolve._setting)
    resource, how = (res.lineset.resource, "lineset") if res.lineset is not None else (res.target.resource, "lines")
    return Item(ref.raw, ref.kind, ref.name, resource, how, extra="heading")


SUBSUMED = "subsumed: the sentence names one of its members"


def _through_classes(
    pairs: list[tuple[Ref, gr.Resolution]], index: Any, context: list[gr.Resolution] | None = None, page: list[Any] | None = None
) -> list[tuple[Ref, gr.Resolution]]:
    """A method named through its class (`.send()` on a `Client`): a bare name that one class the
    sentence names has as a member resolves to the member; a class whose member the sentence cites
    adds nothing of its own (SUBSUMED). A sentence that names no class reads its section's earlier
    ones (`context`: "an object of `RetryCallState`. Its attributes: ``attempt_number`` ...").
    The member wins over an unresolved or ambiguous name and over the lines that merely mention
    it (a quoted `"attempt_number"` key of another dict). A method called on the reader's object
    (`@app.callback()`, `runner.invoke()`) is the member of a class the sentence or its section
    names, else the project's one method of the name, or of several the one whose class the page
    names (resolve.through_receiver)."""
    classes = _classes(r for _, r in pairs) or _classes(context or ())
    around = [*_classes(r for _, r in pairs), *_classes(context or ())]
    out = []
    for ref, res in pairs:
        unsure = res.outcome in (gr.AMBIGUOUS, gr.UNKNOWN) or res.lineset is not None
        if classes and ref.kind in ("symbol", "key") and "." not in ref.name and unsure:
            members = {(d.path, d.start, d.end): d for c in classes for d in index.expand(f"{c.qualname}.{ref.name}")}
            if len(members) == 1:
                res = gr.Resolution(ref, gr.RESOLVED, next(iter(members.values())), reason="a member of the class the sentence names")
        elif ref.kind == "symbol" and res.outcome == gr.UNKNOWN:  # `@app.callback()`: the method on the object
            res = gr.through_receiver(ref, index, around, page or []) or res
        out.append((ref, res))
    named = {r.target.qualname for _, r in out if r.outcome == gr.RESOLVED and r.target is not None}
    return [
        (ref, gr.Resolution(ref, gr.RESOLVED, res.target, reason=SUBSUMED))
        if res.target is not None and res.target.kind == "class" and any(q.startswith(res.target.qualname + ".") for q in named)
        else (ref, res)
        for ref, res in out
    ]


def _classes(resolutions: Iterable[gr.Resolution]) -> list[Any]:
    return [r.target for r in resolutions if r.outcome == gr.RESOLVED and r.target is not None and r.target.kind == "class"]


def _resolved(ctx: Context, ref: Ref, page_repo: str, local: frozenset[str]) -> gr.Resolution:
    """A name of the sentence's context (a heading's, a class its section named), resolved once a run."""
    key = (ref.kind, ref.name)
    if key not in ctx.guards:
        ctx.guards[key] = gr.resolve(ref, ctx.index, page_repo_path=page_repo, local_names=local)
    return ctx.guards[key]


def _propose(rep: PageReport, ctx: Context, sidecar: Sidecar, sentence: Sentence, items: list[Item], guards: list[Item]) -> None:
    """The sentence's proposal: its items not cited yet, as a new claim or added to its claim."""
    claim = _claim_of(sidecar, sentence)
    own = sum(1 for i in items if not i.extra)
    if claim is None and sentence.text in {t.statement for t in sidecar.retracted} and not ctx.reground:
        rep.retracted += own
        return
    span = ctx.prover.span
    cited = [span(e.resource) for e in claim.evidence] if claim is not None else []
    kept: list[Item] = []
    for item in [*items, *guards]:
        here = span(item.resource)
        if any(_overlap(here, s) for s in cited):
            rep.already += 0 if item.extra else 1
            continue
        if any(_overlap(here, span(k.resource)) for k in kept):
            rep.repeated += 0 if item.extra else 1
            continue
        kept.append(item)
    evidence, usable = establish(ctx, kept)
    rep.unusable += sum(1 for i in kept if not i.extra) - sum(1 for i in usable if not i.extra)
    if not usable or all(i.extra for i in usable) and claim is None and own == 0 and not _worth_guarding(sentence):
        return
    rep.guarded += sum(1 for i in usable if i.extra in ("heading", "section", "condition"))
    for i in usable:
        if i.undecided:
            rep.undecided.append({**i.record(sentence.line, sentence.text), "why": i.undecided})
    twin = next((n for n, p in enumerate(rep.proposals) if claim is None and not p.extends and p.statement == sentence.text), None)
    if twin is not None:  # the page says the sentence again: one claim, with what each says it of
        p = rep.proposals[twin]
        have = {e.resource for e in p.evidence}
        more = [(i, e) for i, e in zip(usable, evidence, strict=True) if e.resource not in have]
        rep.proposals[twin] = dataclasses.replace(
            p, items=(*p.items, *(i for i, _ in more)), evidence=(*p.evidence, *(e for _, e in more)), also=(*p.also, sentence)
        )
        return
    cid = claim.id if claim is not None else ctx.reserve(rep.page, sentence.text, [e.resource for e in evidence])
    rep.proposals.append(Proposal(rep.page, sentence, tuple(usable), tuple(evidence), cid, extends=claim is not None))


def _worth_guarding(sentence: Sentence) -> bool:
    """A sentence with no reference of its own gets a claim from its section's names only when
    it says something (a few words, not a heading-like fragment)."""
    return len(sentence.text.split()) >= 4


def _claim_of(sidecar: Sidecar, sentence: Sentence) -> Claim | None:
    """The claim the sentence carries: its first marker's; on a page without markers, the claim
    stating it. A reStructuredText page's markers follow the paragraph (each sentence of it
    carries them all): there, the claim among them stating the sentence."""
    by_label = {citations.label(c.id): c for c in sidecar.claims}
    carried = [by_label[label] for label in sentence.markers if label in by_label]
    if pagenames.is_rst(sidecar.page):
        return next((c for c in carried if c.statement == sentence.text), None)
    if carried:
        return carried[0]
    return next((c for c in sidecar.claims if c.statement == sentence.text), None)


def _overlap(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    """Two cited spans share a line (a set only overlaps itself)."""
    return a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


def proposed(reports: Iterable[PageReport]) -> frozenset[tuple[str, str]]:
    """(page, statement) of every sentence the pass grounds: the model pass skips them (a plan has
    not written them)."""
    return frozenset((r.page, p.statement) for r in reports for p in r.proposals)
