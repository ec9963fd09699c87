"""`ground --model`: sentences the deterministic pass left without a claim, grounded by a model.

For each factual sentence with no marker yet, candidate code is found from the names and words
the sentence uses (definitions named like its code spans and identifiers, then definitions whose
name shares its words) and shown with line numbers. The model answers in the refresher's verdict
format (schemas/verdict.schema.json): `confirm` with `cited_ranges` (resource + quote) when the
lines shown support the sentence, `retract` when they do not. Only answers whose every quote is
exactly the text of the cited lines (lines shown, whitespace at line ends aside) are written, as
one claim per sentence with `verifiedBy: model:<name>`; `retract` answers are listed as
ungrounded (possibly false, for a person to read). A `revise` is never applied: `ground` does not
rewrite prose.

The client, its settings (model, endpoint, key variable, retries, prices) and the budgets
(`max_claims`: sentences sent; `max_total_tokens`; `context_tokens` per request) are the
refresher's (refresh/settings.py, the config's `refresh:` section). `plan=True` builds every request,
estimates tokens and cost, and calls nothing. Each accepted claim is saved on its own, under the
wiki lock, page then sidecar, atomically: a killed run loses at most the claim being written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from openwiki_git.claims import policy
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.ground import pageformat, planned
from openwiki_git.ground.model_decide import VERDICT_RULES, ask
from openwiki_git.ground.refs import Sentence
from openwiki_git.model import Claim
from openwiki_git.refresh.prompt import estimate_tokens
from openwiki_git.store.workspace import Workspace

MAX_CANDIDATES = 3
MAX_LINES = 60  # per candidate definition shown
EST_ANSWER_TOKENS = 150
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_STOP = frozenset(
    [
        "the", "and", "for", "with", "that", "this", "from", "are", "was", "were", "will", "can", "you", "your", "its", "into",
        "when", "then", "than", "which", "while", "has", "have", "not", "but", "all", "any", "each", "only", "also", "more",
        "most", "some", "such", "our", "their", "there", "these", "those", "them", "they", "what", "who", "how", "why", "use",
        "used", "using", "uses", "one", "two", "may", "must", "should", "would", "could", "does", "did", "done", "been", "being",
        "over", "under", "about", "after", "before",
    ]
)
SYSTEM = """\
You ground one sentence of a project's documentation in its source code.
You are shown the sentence and candidate code with line numbers. Answer with one JSON object:
- verdict "confirm" when some of the lines shown support the sentence: list them in cited_ranges,
  each {"resource": "repo://<path>#L<start>-L<end>", "quote": the exact text of exactly those lines,
  without line numbers}. Cite only files and lines shown.
- verdict "retract" when the lines shown do not support the sentence (cited_ranges empty).
""" + VERDICT_RULES


@dataclass(frozen=True, slots=True)
class _Shown:
    path: str
    start: int
    end: int
    what: str


@dataclass
class _Item:
    page: str
    sentence: Sentence
    shown: list[_Shown]
    user: str
    tokens: int


def run(
    ws: Workspace,
    pages: list[str],
    index: Any,
    *,
    options: Any,
    plan: bool,
    source: str = "worktree",
    client: Any = None,
    skip: frozenset[tuple[str, str]] = frozenset(),
    reports: list[Any] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """The model pass over `pages`: its report (`sent`, `grounded`, `ungrounded`, `rejected`,
    `errors`, `decide`/`decided`, usage and cost). `options`: a refresh.settings.RefreshOptions; `client`: a Refresher (the
    scripted fake in tests), else the refresher's own, built only when something is sent.
    `skip`: (page, statement) pairs the deterministic pass grounds (a plan has not written them);
    `reports`: its page reports, whose undecided items the model decides (model_decide.py)."""
    from openwiki_git.ground import model_decide
    from openwiki_git.refresh.client import model_client
    from openwiki_git.refresh.settings import Settings

    settings = Settings.resolve(ws.config.refresh, options)
    by = f"model:{settings.model}"
    refused = {p: r.describe() for p in pages if (r := policy.forbidding(ws.config.verify_policy, p, by)) is not None}
    items = [it for page in pages if page not in refused for it in _items(ws, page, index) if (it.page, it.sentence.text) not in skip]
    skipped = 0
    if settings.max_claims is not None and len(items) > settings.max_claims:
        skipped = len(items) - settings.max_claims
        items = items[: settings.max_claims]
    decide = [it for it in model_decide.undecided(ws, list(reports), index) if it.page not in refused]
    out: dict[str, Any] = {
        "model": settings.model, "sent": [], "grounded": [], "ungrounded": [], "rejected": [], "errors": [], "decide": [], "decided": [],
        "tokens_in": 0, "tokens_out": 0, "cost": None, "skipped_by_budget": skipped, "stopped": None,
        "refused_by_policy": [{"page": p, "rule": r} for p, r in sorted(refused.items())],  # not sent: nothing could be written
    }
    for it in items:
        out["sent"].append(
            {**_where(ws, it), "candidates": [f"repo://{s.path}#L{s.start}-L{s.end}" for s in it.shown], "tokens": it.tokens}
        )
    if plan:
        est_in = sum(it.tokens for it in items)
        out["tokens_in"], out["tokens_out"] = est_in, EST_ANSWER_TOKENS * (len(items) + len(decide))
        model_decide.run(ws, decide, None, settings, out, plan=True, source=source, index=index)
    else:
        if (items or decide) and client is None:
            client = model_client(settings, len(items) + len(decide))
        try:
            model_decide.run(ws, decide, client, settings, out, plan=False, source=source, index=index)
            _send(ws, items, client, settings, source, out)
        finally:
            if callable(getattr(client, "close", None)):
                client.close()
    out["cost"] = settings.cost(out["tokens_in"], out["tokens_out"])
    out["summary_line"] = _summary(out, plan=plan)
    return out


def _send(ws: Workspace, items: list[_Item], client: Any, settings: Any, source: str, out: dict[str, Any]) -> None:
    """Each sentence to the model in turn, within the token budget; what it grounds is saved, the
    rest is listed in `out` (ungrounded, rejected, errors)."""
    from openwiki_git.refresh import protocol as refresher

    by = f"model:{settings.model}"
    for n, it in enumerate(items):
        if settings.max_total_tokens is not None and out["tokens_in"] + out["tokens_out"] >= settings.max_total_tokens:
            out["stopped"] = f"max_total_tokens ({settings.max_total_tokens}) reached; {len(items) - n} sentence(s) not sent"
            break
        request = refresher.ReviewRequest(f"ground-{n + 1}", SYSTEM, (it.user,), refresher.model_schema(), 1)
        response = ask(client, request, out, _where(ws, it))
        if response is None:
            if out["stopped"]:
                break
            continue
        verdict = _judge(ws, it, response, source, refresher)
        if isinstance(verdict, str):
            key = "ungrounded" if verdict == "retract" else "rejected"
            out[key].append({**_where(ws, it), "reason": verdict if key == "rejected" else _rationale(response)})
            continue
        claim = _save(ws, it, verdict, by, source)
        if claim is not None:
            out["grounded"].append({**_where(ws, it), "id": claim.id, "evidence": [e.resource for e in claim.evidence]})


def _where(ws: Workspace, it: _Item) -> dict[str, Any]:
    return {"page": it.page, "page_path": ws.wiki.repo_path(it.page), "line": it.sentence.line, "statement": it.sentence.text}


def _rationale(response: Any) -> str:
    data = response.data if isinstance(response.data, dict) else {}
    return str(data.get("rationale") or "the model found no support in the code shown")


def _summary(out: dict[str, Any], *, plan: bool) -> str:
    cost = "cost unknown" if out["cost"] is None else f"${out['cost']:.4f}"
    if plan:
        return (f"model {out['model']}: would send {len(out['sent'])} sentence(s) and {len(out['decide'])} undecided claim(s), "
                f"about {out['tokens_in']} tokens in and {out['tokens_out']} out, {cost}; nothing was sent")
    return (f"model {out['model']}: {len(out['sent'])} sentence(s), {len(out['grounded'])} grounded, "
            f"{len(out['decided'])} undecided claim(s) decided, "
            f"{len(out['ungrounded'])} ungrounded, {len(out['rejected'])} rejected, {len(out['errors'])} failed; "
            f"{out['tokens_in']} tokens in, {out['tokens_out']} out, {cost}")


# -- what is sent ----------------------------------------------------------------------------


def _items(ws: Workspace, page: str, index: Any) -> list[_Item]:
    text = ws.page_text(page) or ""
    out = []
    for s in pageformat.sentences_of(page, text):
        if not s.claimable or s.markers or not _factual(s.text):
            continue
        shown = _candidates(s.text, index)
        if not shown:
            continue
        user = _render(page, s, shown, index)
        out.append(_Item(page, s, shown, user, estimate_tokens(SYSTEM + user)))
    return out


def _factual(statement: str) -> bool:
    """A statement about the code, not a question, a heading-like fragment or an instruction."""
    words = statement.split()
    return len(words) >= 5 and not statement.rstrip().endswith(("?", ":"))


def _candidates(statement: str, index: Any) -> list[_Shown]:
    index.build()
    words = [w for w in _WORD.findall(statement) if w.lower() not in _STOP]
    found: list[Any] = []

    def add(defs: list[Any]) -> None:
        for d in defs:
            if d.kind in ("class", "function", "method") and d not in found and len(found) < MAX_CANDIDATES:
                found.append(d)

    for w in words:  # definitions the sentence names (`Widgets` names Widget too)
        for name in dict.fromkeys((w, w.removesuffix("s"))):
            add([d for q in index.by_last.get(name, []) for d in index.defs[q]])
    if len(found) < MAX_CANDIDATES:  # then definitions whose names share its words
        lowered = {w.lower() for w in words if len(w) >= 4}
        scored: list[tuple[int, str]] = []
        for last, quals in index.by_last.items():
            parts = set(last.lower().strip("_").split("_"))
            score = len(parts & lowered)
            if score:
                scored.extend((-score, q) for q in quals)
        for _, q in sorted(scored)[: MAX_CANDIDATES * 3]:
            add(index.defs[q])
    return [_Shown(d.path, d.start, min(d.end, d.start + MAX_LINES - 1), d.qualname) for d in found]


def _render(page: str, s: Sentence, shown: list[_Shown], index: Any) -> str:
    parts = [f"Page: {page}", f"Sentence (line {s.line}): {s.text}", ""]
    for sh in shown:
        lines = index.lines(sh.path)[sh.start - 1 : sh.end]
        parts.append(f"Current text of repo://{sh.path}#L{sh.start}-L{sh.end} ({sh.what}):")
        parts.extend(f"{n:>5} | {line}" for n, line in enumerate(lines, sh.start))
        parts.append("")
    return "\n".join(parts)


# -- what is written -------------------------------------------------------------------------


def _judge(ws: Workspace, it: _Item, response: Any, source: str, refresher: Any) -> list[str] | str:
    """The resources to cite, or why not ("retract" when the model found no support)."""
    data = response.data
    if response.error is not None or data is None:
        return f"no usable answer: {response.error or 'empty'}"
    problems = refresher.schema_problems(data)
    if problems:
        return "the answer does not match the verdict schema: " + "; ".join(problems[:3])
    if data["verdict"] == "retract":
        return "retract"
    if data["verdict"] == "revise" and data.get("revised_statement"):
        return "the model rewrote the sentence; ground never rewrites prose"
    if not data["cited_ranges"]:
        return "no cited lines"
    resources = []
    for item in data["cited_ranges"]:
        why = _quote_problem(ws, it, item["resource"], item["quote"], source)
        if why:
            return why
        resources.append(parse_resource(item["resource"], wiki_dir=ws.config.wiki_dir).canonical)
    return list(dict.fromkeys(resources))


def _quote_problem(ws: Workspace, it: _Item, resource: str, quote: str, source: str) -> str | None:
    try:
        res = parse_resource(resource, wiki_dir=ws.config.wiki_dir, allow_nested_git=False)
    except ResourceError as e:
        return f"{resource[:200]!r}: {e}"
    if not res.is_range or res.start is None or res.end is None:
        return f"{res.canonical}: cite line ranges"
    if not any(sh.path == res.path and sh.start <= res.start and res.end <= sh.end for sh in it.shown):
        return f"{res.canonical}: lines outside those shown"
    text = ws.repo.read(res.path, source).text
    if text is None:
        return f"{res.canonical}: the file cannot be read"
    cited = [ln.rstrip() for ln in split_lines(text)[res.start - 1 : res.end]]
    given = [ln.rstrip() for ln in quote.replace("\r\n", "\n").strip("\n").split("\n")]
    if given != cited:
        return f"{res.canonical}: the quote is not the text of those lines"
    return None


def _save(ws: Workspace, it: _Item, resources: list[str], by: str, source: str) -> Claim | None:
    """One claim, saved on its own under the lock; None when the sentence gained a marker or
    changed meanwhile (another run, a person)."""
    from openwiki_git.store import editing
    from openwiki_git.store.workspace import now_iso

    with ws.wiki.lock():
        text = ws.page_text(it.page) or ""
        now_sentences = [s for s in pageformat.sentences_of(it.page, text) if s.text == it.sentence.text]
        if not now_sentences or any(s.markers for s in now_sentences):
            return None
        evidence = editing.resolve_new_evidence(ws, resources, source)
        sidecars = ws.wiki.load_all()
        taken = {c.id for sc in sidecars.values() for c in sc.claims}
        cid = planned.stable_id(it.page, it.sentence.text, [e.resource for e in evidence], taken) or editing.new_claim_id(taken)
        claim = Claim(cid, it.sentence.text, tuple(evidence), now_iso(), by)
        sidecar = sidecars.get(it.page) or editing.new_sidecar(it.page)
        editing.preflight(ws.wiki, [it.page])
        editing.save_page(
            ws.wiki, sidecar.replace(claims=(*sidecar.claims, claim)),
            edit=lambda current: pageformat.insert_markers(current, [(it.sentence, claim.id)], it.page),
        )
    return claim
