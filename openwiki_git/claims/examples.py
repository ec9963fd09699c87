"""When a code example is broken, and which example a claim guards. Pure: text in, records out
(files come in through a reader).

- (claims/example_calls.py reads what an example calls: `uses`, `page_uses`, `Call`; and
  claims/accepts.py what a definition accepts: `signature`, `Signature`.)
- `why_broken`: one call against what its name means now: broken when the name is no longer defined,
  or when it passes a keyword the signature no longer accepts and takes no `**kwargs`.
- `broken_calls`: THE check-side rule, the one function every route calls for a claim that
  guards an example (its marker closes the example: a comment after a fence, a reST marker line
  after a code block): the example's calls matched to the definitions the claim cites, each
  judged against the cited file's text now.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from openwiki_git.claims.accepts import Signature, signature
from openwiki_git.claims.example_calls import SUBCLASS, Call, Uses, page_uses, uses
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.resource import ResourceError
from openwiki_git.model import Claim, FileText
from openwiki_git.pages import citations, example_reader
from openwiki_git.pages.examples import CONSOLE, Example
from openwiki_git.pages.markers import COMMENT

__all__ = ["KIND", "SUBCLASS", "Call", "Signature", "Uses", "broken_calls", "broken_records", "may_guard", "page_uses",
           "read_page", "signature", "uses", "why_broken"]

KIND = "example"  # the `kind` of a broken example call in `broken_references`


# -- the rule -----------------------------------------------------------------------------------
def why_broken(call: Call, shown: str, defined: bool, sig: Signature | None, *, now: bool = True) -> str | None:
    """Why `call` is broken, or None: `shown` names what it means (`pkg.Client`); `defined`:
    whether the project still defines it; `sig`: what it accepts (None: unknown). `now`: say
    "no longer" (a claim's example, judged after a change) rather than "not". The call itself
    is named beside the reason by the caller: `Client(verify=...)`."""
    if not defined:
        return f"{shown} is {'no longer' if now else 'not'} defined"
    if call.imported or call.attribute or sig is None or sig.var_keyword:  # `f.retry_with(stop=...)`: not retry's keywords
        return None
    bad = [k for k in call.keywords if k not in sig.keywords]
    if not bad:
        return None
    which = ", ".join(f"`{k}`" for k in bad)
    verb = "is" if len(bad) == 1 else "are"
    return f"{which} {verb} {'no longer ' if now else 'not '}a parameter of {shown}"


def broken_calls(
    page_text: str | None, claim: Claim, read: Callable[[str], FileText], page: tuple[list[Example], list[Uses]] | None = None
) -> tuple[tuple[str, str], ...]:
    """The calls of the example the claim guards that are broken now, each (the call as written,
    why: `why_broken`), each said once;
    () when the claim guards no example (its marker closes no code example) or nothing broke.
    `read(path)` reads a cited file now (its text None: the file is gone). Each call is matched to
    the definition the claim cites by name: its dotted name ends with the cited one's
    (`pkg.Client` with `#Client:head`), or, failing that, their last parts are the same and only
    one cited definition has it (a method a base class defines). `page`: the page's examples and
    their uses (`read_page`), when the caller judges several claims of one page."""
    if page_text is None or not may_guard(page_text):
        return ()
    at = citations.example_marker_at(page_text, claim.id)
    if at < 0:
        return ()
    cited = _cited(claim)
    found, used = page or read_page(page_text)
    ex = example_reader.closed_by(page_text, at, found)
    if ex is None or ex.kind == CONSOLE or not cited:
        return ()
    out: list[tuple[str, str]] = []
    gone: set[Symbol] = set()
    for call in used[found.index(ex)].calls:
        sym = _match(call.name, cited)
        if sym is None or sym in gone:
            continue
        text = read(sym.path).text
        defined = text is not None and definitions.find(sym.path, text, sym.name) is not None
        if not defined:
            gone.add(sym)
        sig = signature(text, sym.name) if text and defined else None
        if sig is None and defined and call.keywords:
            sig = _inherited_init(cited, sym, read)
        why = why_broken(call, call.name, defined, sig)
        if why is not None and (call.text, why) not in out:
            out.append((call.text, why))
    return tuple(out)


def may_guard(page_text: str) -> bool:
    """Whether the page may carry a claim guarding an example: a comment marker (Markdown) or a
    reST marker line. Nothing is parsed for a page without either."""
    return COMMENT.search(page_text) is not None or example_reader.is_rst_text(page_text)


def _inherited_init(cited: list[Symbol], cls: Symbol, read: Callable[[str], FileText]) -> Signature | None:
    """What a class that defines no `__init__` accepts: the one other `__init__` the claim cites
    (ground cites the base class's that it inherits: tenacity's `Retrying(stop=...)` and
    BaseRetrying.__init__), or None (unknown: not judged)."""
    inits = [s for s in cited if s.name.endswith(".__init__") and s.name != f"{cls.name}.__init__"]
    if len(inits) != 1:
        return None
    text = read(inits[0].path).text
    return signature(text, inits[0].name) if text else None


def read_page(page_text: str, rst: bool | None = None) -> tuple[list[Example], list[Uses]]:
    """A page's examples and their uses, read once for all of its claims (`rst`: the page's
    syntax, when the caller knows it)."""
    found = example_reader.read(page_text, rst)
    return found, page_uses(found)


def _cited(claim: Claim) -> list[Symbol]:
    out = []
    for ev in claim.evidence:
        if not looks_like_kind(ev.resource):
            continue
        try:
            kind = parse_kind(ev.resource, wiki_dir="\0")
        except ResourceError:
            continue
        if isinstance(kind, Symbol) and definitions.unsupported(kind.path) is None and kind.path.endswith((".py", ".pyi")):
            out.append(kind)
    return out


def _match(name: str, cited: list[Symbol]) -> Symbol | None:
    exact = [s for s in cited if name == s.name or name.endswith("." + s.name)]
    if len(exact) == 1:
        return exact[0]
    if exact:
        return None
    last = name.rsplit(".", 1)[-1]
    same = [s for s in cited if s.name.rsplit(".", 1)[-1] == last]
    return same[0] if len(same) == 1 else None


def broken_records(
    page: str, page_path: str, text: str | None, claims: Iterable[Claim], read: Callable[[str], FileText]
) -> list[dict[str, Any]]:
    """The broken calls of the page's guarded examples (`broken_calls`), as `broken_references`
    entries of kind `example` (`check` and `lint` report them), each naming the claim that guards
    it. Nothing is read unless the page carries a comment marker."""
    if text is None or not may_guard(text):
        return []
    out = []
    read_once = functools.cache(read)
    page_read = read_page(text)
    for claim in claims:
        found = broken_calls(text, claim, read_once, page_read)
        line = citations.sentence_line(text, claim.id) if found else None
        for call, reason in found:
            out.append({"page": page, "page_path": page_path, "line": line or 1, "reference": call, "kind": KIND,
                        "statement": claim.statement, "reason": reason, "claim_id": claim.id})
    return out
