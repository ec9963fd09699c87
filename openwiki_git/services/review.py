"""What `review` does, as data: the claims needing attention in page order, those that share a
change (the same cited place, marked by the same change) side by side, one claim as a person
judges it (the cited part's diff, the cause, a suggested new range), and each decision applied
through `services/claims.py`'s confirm/edit/retract (one code path, whatever checks they make),
with the page's and sidecar's bytes kept so the decision can be undone; a group's confirm is one
decision, undone as one; "retract and rewrite the paragraph" (`retraction`, `retract_and_rewrite`)
through the verdicts package's plan and writer, as the refresher and `verify_claim` retract. The
terminal dialogue is `cli/commands/review.py`'s."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openwiki_git.claims.symbols import moved_target
from openwiki_git.errors import OpenwikiError, UsageError
from openwiki_git.evidence.relocation import extent_in
from openwiki_git.evidence.resource import REPO_PREFIX, ResourceError, parse_resource
from openwiki_git.model import Claim, ClaimResult, Mark, Sidecar
from openwiki_git.pages import citations
from openwiki_git.services import claims
from openwiki_git.store.workspace import Workspace, now_iso

ACTIONS = ("confirm", "restate", "repoint", "retract", "skip")
# A definition suggested as the new range may be this much larger than the text's new extent:
# a method that grew is suggested whole, the class around three changed lines is not.
_DEFINITION_SLACK = (3, 20)


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """A claim needing attention: stale, unresolved, or fresh but due for re-verification."""

    page: str
    claim_id: str
    status: str  # stale | unresolved | due
    line: int | None  # the page line of its marker's sentence (None: no marker)
    statement: str = ""
    change: tuple[str, ...] | None = None  # what marked it (the commit, each cause's place, hunks and kind); None: unmarked


@dataclasses.dataclass(frozen=True, slots=True)
class View:
    """One claim as review shows it: `claims.show`'s data, and per evidence item the suggested
    new resource (None: keep it where it is now)."""

    entry: Entry
    shown: claims.Shown
    suggested: tuple[str | None, ...]

    @property
    def has_suggestion(self) -> bool:
        return any(s is not None for s in self.suggested)


@dataclasses.dataclass(frozen=True, slots=True)
class Done:
    """A decision applied: what it was, and the files' bytes before it (None: no file)."""

    entry: Entry
    action: str
    before: tuple[tuple[Path, bytes | None], ...]
    also: tuple[Entry, ...] = ()  # a group's confirm: the other claims it confirmed

    @property
    def entries(self) -> tuple[Entry, ...]:
        return (self.entry, *self.also)


def default_actor(ws: Workspace) -> str:
    """`human:NAME <EMAIL>` from git's user.name and user.email (as a commit's author)."""
    name = ws.repo.config_value("user.name")
    email = ws.repo.config_value("user.email")
    if not name:
        raise UsageError(
            "review: git config user.name is not set, so the verifier is unknown",
            "set it (git config user.name 'Ada Lovelace') or name the verifier: review --by human:ada",
        )
    return f"human:{name}" + (f" <{email}>" if email else "")


def queue(ws: Workspace, pages: tuple[str, ...] = (), claim_ids: tuple[str, ...] = (), source: str = "worktree") -> list[Entry]:
    """The claims needing attention, in page then claim order; only `pages` and `claim_ids`
    when given (either matches)."""
    from openwiki_git.claims import freshness as checker

    sidecars = ws.wiki.load_all()
    wanted_pages = {ws.wiki.normalize_page(p) for p in pages}
    wanted_ids = {ws.wiki.find_claim(c, sidecars)[2].id for c in claim_ids}
    if wanted_pages or wanted_ids:
        sidecars = {
            p: sc.replace(claims=tuple(c for c in sc.claims if p in wanted_pages or c.id in wanted_ids))
            for p, sc in sidecars.items()
        }
    # A marked claim needs attention whatever its text now: only the unmarked ones are judged
    # (1,000 marked claims would cost seconds of relocation before the first prompt).
    unmarked = {p: sc.replace(claims=tuple(c for c in sc.claims if c.mark is None)) for p, sc in sidecars.items()}
    results = checker.check_all(
        unmarked, ws.resolver(source), ws.page_text, now=datetime.now(UTC), reverify_after=ws.config.reverify_policy
    )
    judged = {r.claim.id: r for r in results}
    out = []
    for page in sorted(sidecars):
        text = ws.page_text(page)
        for c in sidecars[page].claims:
            r = judged.get(c.id)
            if c.mark is not None:
                line = citations.sentence_line(text, c.id, c.statement) if text else None
                out.append(Entry(page, c.id, c.mark.status, line, c.statement, change_of(c.mark)))
            elif r is not None and (r.status != "fresh" or r.due):
                out.append(Entry(page, c.id, r.status if r.status != "fresh" else "due", r.line, c.statement))
    return side_by_side(out)


def change_of(mark: Mark) -> tuple[str, ...]:
    """What marked a claim, as review groups claims: the commit it was measured against, and each
    cause's cited place, hunks and kind of change (not its reason's words about this claim)."""
    from openwiki_git.claims import causes

    return (mark.commit or "", *sorted(f"{c.resource} {c.hunk or ''} {causes.kind(c.reason)}" for c in mark.causes))


def side_by_side(entries: list[Entry]) -> list[Entry]:
    """`entries` in their order, each claim sharing a change with an earlier one moved right after
    it (a group is then offered together)."""
    groups: dict[tuple[str, ...] | str, list[Entry]] = {}
    for e in entries:
        groups.setdefault(e.change if e.change is not None else e.claim_id, []).append(e)
    return [e for members in groups.values() for e in members]


def group_at(entries: list[Entry], i: int, decided: set[str]) -> list[Entry]:
    """The undecided claims of entry i's group, from i on (just it when it shares no change)."""
    change = entries[i].change
    if change is None:
        return [entries[i]]
    out = []
    for e in entries[i:]:
        if e.change != change:
            break
        if e.claim_id not in decided:
            out.append(e)
    return out


def view(ws: Workspace, entry: Entry, source: str = "worktree") -> View:
    shown = claims.show(ws, entry.claim_id, source, page=entry.page)
    suggested = tuple(
        suggest_range(ws, item["current_resource"], extent_in(item["reason"] or ""))
        if item["current_resource"]
        else moved_target(item["reason"] or "")  # a definition gone: where one of the same body is
        for item in shown.items
    )
    return View(entry, shown, suggested)


def suggest_range(ws: Workspace, current: str, extent: tuple[int, int] | None) -> str | None:
    """Where the cited text grew past the bound (`extent`: the lines the resolver found the
    changed text to span now): the smallest definition holding the range where the text is now
    (ground's definition index), unless it is much larger than the extent; else the extent.
    None without an extent: the range already follows text that moved or grew within the bound."""
    from openwiki_git.ground.index import enclosing_definition

    if extent is None:
        return None  # the range already follows text that moved, or grew within the bound
    try:
        res = parse_resource(current, wiki_dir="\0")
    except ResourceError:
        return None
    if not (res.is_range and res.start and res.end):
        return None
    start, end = min(res.start, extent[0]), max(res.end, extent[1])
    text = ws.repo.read(res.path).text
    if text is None:
        return None
    # The definition around where the text is now: the resolver's extent may run from an edge
    # of the file when the verified text's context is gone; the definition is what was cited.
    found = enclosing_definition(res.path, text, res.start, res.end)
    size = end - start + 1
    factor, lines = _DEFINITION_SLACK
    if found is not None and found.end - found.start + 1 <= max(factor * size, size + lines):
        start, end = found.start, found.end
    if (start, end) == (res.start, res.end):
        return None
    return f"{REPO_PREFIX}{res.path}#L{start}-L{end}"


def repoint_target(current: str, typed: str) -> str:
    """What a person typed at the re-point prompt as a resource: `repo://...` as given, or
    `Lx-Ly` / `x-y` for the same file as `current`."""
    typed = typed.strip()
    if typed.startswith(REPO_PREFIX):
        return typed
    bare = typed.removeprefix("#")
    parts = bare.replace("L", "").split("-")
    if len(parts) in (1, 2) and all(p.isdigit() for p in parts):
        path = current.removeprefix(REPO_PREFIX).split("#", 1)[0]
        a, b = parts[0], parts[-1]
        return f"{REPO_PREFIX}{path}#L{a}-L{b}"
    raise UsageError(f"{typed!r} is not a range", "type repo://path#Lx-Ly, or Lx-Ly for the same file")


def _snapshot(ws: Workspace, page: str) -> tuple[tuple[Path, bytes | None], ...]:
    out: list[tuple[Path, bytes | None]] = []
    for path in (ws.wiki.page_path(page), ws.wiki.sidecar_path(page)):
        try:
            out.append((path, path.read_bytes()))
        except FileNotFoundError:
            out.append((path, None))
    return tuple(out)


def apply(
    ws: Workspace, v: View, action: str, *, by: str, statement: str | None = None, evidence: list[str] | None = None,
    source: str = "worktree",
) -> Done:
    """One decision, saved now through claims' confirm/edit/retract (under the lock, atomic)."""
    entry = v.entry
    if action == "confirm" and v.has_suggestion and v.shown.states is False:  # as claims.confirm refuses it
        raise UsageError(
            f"{ws.wiki.repo_path(entry.page)}: {entry.claim_id}: the page's sentence no longer states the claim "
            f"(it says {v.shown.prose!r})",
            "restate it, or edit the page's sentence back",
        )
    before = _snapshot(ws, entry.page)  # read before the lock is taken: the decision's own write follows at once
    if action == "confirm" and v.has_suggestion:
        items = zip(v.suggested, v.shown.items, v.shown.claim.evidence, strict=True)
        chosen = [s or item["current_resource"] or ev.resource for s, item, ev in items]
        claims.edit(ws, entry.claim_id, evidence=chosen, statement=None, by=by, source=source, page=entry.page)
    elif action == "confirm":
        claims.confirm(ws, entry.claim_id, by=by, statement=None, keep_statement=False, source=source, page=entry.page)
    elif action == "restate":
        claims.confirm(
            ws, entry.claim_id, by=by, statement=statement, keep_statement=False, source=source, page=entry.page, restate_prose=True
        )
    elif action == "repoint":
        claims.edit(ws, entry.claim_id, evidence=evidence, statement=None, by=by, source=source, page=entry.page)
    elif action == "retract":
        claims.retract(ws, entry.claim_id, by=by, page=entry.page)
    elif action != "skip":
        raise ValueError(action)
    return Done(entry, action, before)


def confirm_group(ws: Workspace, entries: list[Entry], *, by: str, source: str = "worktree") -> tuple[Done | None, list[tuple[Entry, str]]]:
    """The claims of one change confirmed together, each as `apply` confirms one (with its
    suggested range or evidence), as one decision: the files' bytes before any of them (undone
    as one). A claim the confirm refuses stays undecided: (the decision, or None when every
    one was refused; the refused claims with the reason)."""
    before: dict[Path, bytes | None] = {}
    confirmed: list[Entry] = []
    refused: list[tuple[Entry, str]] = []
    for entry in entries:
        for path, data in _snapshot(ws, entry.page):
            before.setdefault(path, data)
        try:
            apply(ws, view(ws, entry, source), "confirm", by=by, source=source)
        except OpenwikiError as e:
            refused.append((entry, e.message))
            continue
        confirmed.append(entry)
    if not confirmed:
        return None, refused
    return Done(confirmed[0], "confirm", tuple(before.items()), tuple(confirmed[1:])), refused


def undo(ws: Workspace, done: Done) -> None:
    """The page and sidecar bytes restored as they were before the decision (under the lock)."""
    with ws.wiki.lock():
        for path, data in done.before:
            if data is None:
                ws.wiki.remove_file(path)
            else:
                ws.wiki.write_bytes(path, data)


def summary(decisions: list[Done]) -> str:
    """`3 confirmed, 1 retracted, 2 skipped` (every kind, zero counts left out)."""
    words = {"confirm": "confirmed", "restate": "restated", "repoint": "re-pointed", "retract": "retracted", "skip": "skipped"}
    counts = {a: sum(len(d.entries) for d in decisions if d.action == a) for a in ACTIONS}
    parts = [f"{counts[a]} {words[a]}" for a in ACTIONS if counts[a]]
    return ", ".join(parts) if parts else "nothing decided"


# -- retract and rewrite the paragraph (one decision) -----------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class Retraction:
    """What removing a claim's sentence does to its paragraph (`said`), what a person should look
    at in what is left (`warnings`), and the sentence it leaves unfinished (None: none), which
    `retract_and_rewrite` rewrites in the same decision."""

    said: str
    warnings: tuple[str, ...]
    neighbour: str | None


def _sentence_claims(ws: Workspace, entry: Entry) -> tuple[str | None, list[Claim]]:
    from openwiki_git.verdicts.sources import sentences

    sidecar = ws.wiki.load(entry.page)
    text = ws.page_text(entry.page)
    claims_ = list(sidecar.claims) if sidecar is not None else []
    group = next((g for g in sentences(text, claims_) if any(c.id == entry.claim_id for c in g)), [])
    first = [c for c in group if c.id == entry.claim_id]
    if not first:
        raise UsageError(f"{ws.wiki.repo_path(entry.page)}: {entry.claim_id} is no longer on the page", "run review again")
    return text, first + [c for c in group if c.id != entry.claim_id]


def retraction(ws: Workspace, entry: Entry) -> Retraction:
    """What retracting the claim's sentence would do (nothing is written): for `review` to offer
    "retract and rewrite the paragraph" when a sentence would be left unfinished."""
    from openwiki_git.verdicts import prose

    text, group = _sentence_claims(ws, entry)
    if text is None:
        return Retraction("no page to edit", (), None)
    ids = [c.id for c in group[1:]]
    done = prose.retract(text, group[0].id, group[0].statement, ids)
    return Retraction(done.said, done.warnings, prose.neighbour(text, group[0].id, group[0].statement, ids))


def retract_and_rewrite(ws: Workspace, v: View, *, by: str, revised: str | None) -> tuple[Done, Retraction]:
    """Retract the claim's sentence (the sentence removed with every claim it carries, the
    paragraph's other sentences kept) and, with `revised`, rewrite the sentence that leaves
    unfinished: one decision, through the verdicts package's plan and writer (the ones the
    refresher and `verify_claim` use), checked under the lock and undone as one."""
    from openwiki_git.verdicts.edits import Plan, VerdictError, apply_plan
    from openwiki_git.verdicts.statement import checked_statement
    from openwiki_git.verdicts.writer import Writer

    entry = v.entry
    preview = retraction(ws, entry)
    _, group = _sentence_claims(ws, entry)
    neighbour = None
    if revised is not None:
        if preview.neighbour is None:
            raise UsageError("no sentence is left unfinished by this retraction", "retract it alone (x)")
        try:
            neighbour = (preview.neighbour, checked_statement(revised, "the rewritten sentence"))
        except VerdictError as e:
            raise UsageError(str(e), "write one plain sentence") from None
    claim = group[0]
    plan = Plan(claim.id, "retract", claim.statement, None, group=tuple(c.id for c in group[1:]), neighbour=neighbour)
    before = _snapshot(ws, entry.page)
    writer = Writer(ws, dry_run=False, now=now_iso())
    edits: list[Any] = []

    def decide(sidecar: Sidecar, text: str | None, results: dict[str, ClaimResult]) -> tuple[Sidecar, Any]:
        got = apply_plan(sidecar, plan, results=results, by=by, now=writer.now)
        edits.append(got[1])
        return got

    try:
        writer.apply(entry.page, group, decide, by=by)
    except VerdictError as e:
        raise UsageError(f"{ws.wiki.repo_path(entry.page)}: {entry.claim_id}: {e}", "run review again") from None
    edit = edits[-1]
    return Done(entry, "retract", before), Retraction(edit.said or preview.said, edit.warnings, preview.neighbour)
