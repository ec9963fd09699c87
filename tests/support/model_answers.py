"""Honest answers in the shapes a real model gave (issue 33), for the scripted model, the fake
OpenAI server, the scripted agent and bench/bench_semantic.py. It reads the context the refresher
(or `claims_for_change`) built, as text, and answers as the real model did on a real project:

- several quotes per definition: the class or `def` line and, apart, the line the sentence is
  about, both under the definition's own resource;
- a quote cut mid-line at a parameter (`port: int = 8000` out of a longer signature line);
- numbering as shown: `repo://path#L<n>-L<n>` with the number the context put in front of the line;
- docstring-and-signature quotes: the signature line and the docstring's line, as two quotes;
- revisions that name a deprecated parameter the quoted lines show.

Lines cited by range are quoted whole. The pattern is chosen from the claim id, so a run is
repeatable. On a retry (the previous answer refused) it answers as the real model did then:
one quote, one unbroken run of whole lines, under the evidence's own resource.

    answer(claim_id_or_None, text, retry=False) -> the verdict as a dict
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

PATTERNS = ("several quotes", "cut mid-line", "numbering as shown", "docstring and signature")
_CLAIM = re.compile(r'(?:Answer with claim_id|claim_id) "(claim_[0-9a-f]{32})"')
_STATEMENT = re.compile(r"<<<statement (\S+)\n(.*?)\n>>>statement \1", re.S)
_EVIDENCE = re.compile(r"^Evidence (\d+)(?: of \d+)?: (\S+?):? ", re.M)
_BLOCK = re.compile(r"<<<(current|part|around)-(\d+)(?:-\d+)? (\S+)\n(.*?)\n>>>\1-\2(?:-\d+)? \3", re.S)
_ROW = re.compile(r"^(?P<sign>[+\-]?)\s*(?P<n>\d+)(?P<flag>>?)\s?\|\s?(?P<text>.*)$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_PROSE_START = ('"""', "'''", "#")  # a docstring's or a comment's row
_PARAM = re.compile(r"\s*\*{0,2}[A-Za-z_]\w*\s*[:=,]")  # a parameter's line: `port: int = 8000,`


@dataclass
class Item:
    """One evidence item as the context shows it: its resource and its current rows."""

    index: int
    resource: str
    rows: list[tuple[int, str, bool]] = field(default_factory=list)  # (number as shown, text, marked as cited)

    @property
    def named(self) -> bool:
        return "#" in self.resource and "#L" not in self.resource and "?" not in self.resource

    @property
    def path(self) -> str:
        return self.resource.removeprefix("repo://").split("#", 1)[0]


def parse(text: str) -> tuple[str | None, str, list[Item]]:
    """(the claim id asked about, the statement, the evidence items with their current rows)."""
    claim = _CLAIM.search(text)
    statement = _STATEMENT.search(text)
    items = {int(m.group(1)): Item(int(m.group(1)), m.group(2)) for m in _EVIDENCE.finditer(text)}
    for m in _BLOCK.finditer(text):
        item = items.get(int(m.group(2)))
        if item is None:
            continue
        for line in m.group(4).splitlines():
            row = _ROW.match(line)
            if row and row.group("sign") != "-":
                marked = row.group("flag") == ">" or row.group("sign") == "+" or m.group(1) == "part"
                item.rows.append((int(row.group("n")), row.group("text"), marked))
    return (claim.group(1) if claim else None), (statement.group(2) if statement else ""), [i for i in items.values() if i.rows]


def pattern_of(claim_id: str) -> str:
    return PATTERNS[int(hashlib.sha256(claim_id.encode()).hexdigest()[:8], 16) % len(PATTERNS)]


def answer(claim_id: str | None, text: str, retry: bool = False) -> dict[str, Any]:
    """The verdict an honest model gives on the context `text` (see the module's docstring)."""
    found, statement, items = parse(text)
    cid = claim_id or found or ""
    if not items:
        return _verdict(cid, "retract", [], None, "Nothing current supports it.")
    if retry:
        return _verdict(cid, "confirm", [_plain(items[0])], None, "The cited lines still say so.")
    cited: list[dict[str, str]] = []
    for item in items:
        cited += _named(item, statement, pattern_of(cid)) if item.named else [_plain(item)]
    revised = _deprecated(statement, items) if _revises(cid) else None
    verdict = "revise" if revised else "confirm"
    return _verdict(cid, verdict, cited, revised, "The current lines support the statement as written.")


def _verdict(cid: str, verdict: str, cited: list[dict[str, str]], revised: str | None, why: str) -> dict[str, Any]:
    return {"claim_id": cid, "verdict": verdict, "revised_statement": revised, "cited_ranges": cited, "rationale": why}


def _plain(item: Item) -> dict[str, str]:
    """One unbroken run of whole lines: the marked rows (else the first row), under the item's
    resource when it names a definition, else by their numbers."""
    rows = _run([r for r in item.rows if r[2]] or item.rows[:1])
    if item.named:
        return {"resource": item.resource, "quote": "\n".join(t for _, t, _ in rows)}
    return {"resource": f"repo://{item.path}#L{rows[0][0]}-L{rows[-1][0]}", "quote": "\n".join(t for _, t, _ in rows)}


def _run(rows: list[tuple[int, str, bool]]) -> list[tuple[int, str, bool]]:
    """The first unbroken run of `rows` (consecutive numbers)."""
    out = rows[:1]
    for r in rows[1:]:
        if r[0] != out[-1][0] + 1:
            break
        out.append(r)
    return out


def _best(item: Item, statement: str, skip_first: bool = True) -> tuple[int, str, bool]:
    """The row that shares the most words with the statement (a parameter the sentence names)."""
    words = {w.lower() for w in _WORD.findall(statement)}
    rows = [r for r in (item.rows[1:] if skip_first and len(item.rows) > 1 else item.rows) if r[1].strip()]
    code = [r for r in rows if not r[1].lstrip().startswith(_PROSE_START)]  # a tie goes to code, as a reader quotes it
    rows = code or rows or item.rows
    return max(rows, key=lambda r: (len(words & {w.lower() for w in _WORD.findall(r[1])}), -r[0]))


def _named(item: Item, statement: str, pattern: str) -> list[dict[str, str]]:
    first = next((r for r in item.rows if r[1].strip()), item.rows[0])
    best = _best(item, statement)
    if pattern == "several quotes":
        return [{"resource": item.resource, "quote": first[1].strip()}, {"resource": item.resource, "quote": best[1].strip()}]
    if pattern == "cut mid-line":  # a parameter's line, its comma (or its neighbours) left out
        params = Item(item.index, item.resource, [r for r in item.rows if _PARAM.match(r[1]) and r[1].rstrip().endswith(",")])
        line = _best(params, statement, skip_first=False)[1] if params.rows else first[1].rstrip().rstrip(":")
        return [{"resource": item.resource, "quote": _fragment(line, statement)}]
    if pattern == "numbering as shown":
        return [{"resource": f"repo://{item.path}#L{best[0]}-L{best[0]}", "quote": best[1]}]
    doc = next((r for r in item.rows if r[1].lstrip().startswith(('"""', "'''", 'r"""'))), None)
    second = doc if doc is not None and doc != first else best
    return [{"resource": item.resource, "quote": first[1].strip()}, {"resource": item.resource, "quote": second[1].strip()}]


def _fragment(line: str, statement: str) -> str:
    """The piece of a line between commas that shares the most words with the statement (a
    parameter: `port: int = 8000`), without its comma."""
    words = {w.lower() for w in _WORD.findall(statement)}
    pieces = [p.strip() for p in line.split(",") if p.strip()]
    if len(pieces) < 2:
        return line.strip().removesuffix(",")
    return max(pieces, key=lambda p: (len(words & {w.lower() for w in _WORD.findall(p)}), len(p)))


def _revises(claim_id: str) -> bool:
    return int(hashlib.sha256(("revise" + claim_id).encode()).hexdigest()[:8], 16) % 10 == 0


def _deprecated(statement: str, items: list[Item]) -> str | None:
    """A revision naming a parameter of the lines shown as deprecated, as the real model wrote
    some: the sentence kept, one clause added."""
    for item in items:
        for _, text, _ in item.rows:
            m = re.match(r"\s*([a-z_][a-z0-9_]*)\s*[:=]", text)
            if m and len(m.group(1)) > 2:
                base = statement.rstrip().rstrip(".")
                return f"{base}; the `{m.group(1)}` parameter it names is deprecated in favour of its newer spelling."
    return None
