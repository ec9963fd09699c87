"""`lint`'s findings that come from grounding: code references that name nothing in the code
(`broken-reference`, on pages `ground` grounded: ground/broken.py), and the one-claim-per-sentence
rule: sentences that carry several claims are reported (`several-claims`), and `lint --fix` folds
each into one claim (claims/fold.py: the rule), the other claims' markers taken out of the page
and their ids kept as the sidecar's aliases."""

from __future__ import annotations

from openwiki_git.claims import fold
from openwiki_git.model import Sidecar
from openwiki_git.pages import citations
from openwiki_git.store import editing
from openwiki_git.store.workspace import Workspace


def findings(texts: dict[str, str], sidecars: dict[str, Sidecar], pages: set[str]) -> list[tuple[str, int, str]]:
    """(page, page line, message) of every sentence that carries several claims; their pages
    are added to `pages` (what `--fix` folds)."""
    out = []
    for page, sc in sorted(sidecars.items()):
        text = texts.get(page)
        if text is None or len(sc.claims) < 2:
            continue
        for group in fold.shared(text, sc.claims):
            line = citations.sentence_line(text, group[0].id) or 1
            ids = ", ".join(citations.label(c.id) for c in group)
            out.append((page, line, f"{len(group)} claims on one sentence ({ids}); --fix folds them into one "
                                    f"({citations.label(group[0].id)}; the other ids resolve to it)"))
            pages.add(page)
    return out


def broken_references(ws: Workspace, sidecars: dict[str, Sidecar]) -> list[tuple[str, int, str]]:
    """(page path, line, message) of each code reference that names nothing in the code."""
    from openwiki_git.ground import broken

    return [(b["page_path"], b["line"], f"`{b['reference']}` names nothing in the code: {b['reason']}")
            for b in broken.broken_references(ws, sidecars)]


def fold_pages(ws: Workspace, sidecars: dict[str, Sidecar], pages: set[str]) -> list[str]:
    """`pages` folded (the caller holds the wiki lock; `sidecars` updated): what was written."""
    written: list[str] = []
    for page in sorted(pages & set(sidecars)):
        sidecars[page], paths = apply(ws, sidecars[page])
        written.extend(f"Rewriting {p} (claims of one sentence folded into one)" for p in paths)
    return written


def apply(ws: Workspace, sidecar: Sidecar) -> tuple[Sidecar, list[str]]:
    """The page's sentences folded and saved (the caller holds the wiki lock): the sidecar as
    written and the repo paths written."""
    text = ws.page_text(sidecar.page)
    if text is None:
        return sidecar, []
    folded, _ = fold.fold_page(text, sidecar)
    if folded == sidecar:
        return sidecar, []
    gone = {c.id for c in sidecar.claims} - {c.id for c in folded.claims}

    def edit(current: str) -> str:
        for old in gone:
            current = citations.remove_marker(current, old)
        return current

    return folded, editing.save_page(ws.wiki, folded, edit=edit)
