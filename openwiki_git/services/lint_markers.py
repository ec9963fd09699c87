"""`lint`'s rules on claim markers: a claim whose marker is missing from its page
(`missing-marker`: `--fix` puts it after the statement when found verbatim), one whose marker
follows a sentence that no longer states it (`prose-differs`), and a marker naming no claim of its
page (`stray-marker`), left behind by a retracted claim (an example's code deleted by hand, its
marker line kept) or copied from another page: `--fix` takes it out of the page and nothing else
(a marker quoted as code in a guide is no marker; the page's bytes, line endings included, are kept)."""

from __future__ import annotations

from openwiki_git.formats import pagenames
from openwiki_git.model import Claim, Sidecar
from openwiki_git.pages import citations, markers, sentences
from openwiki_git.pages.labels import label, marker_text
from openwiki_git.store.workspace import Workspace

Found = tuple[str, str, int, str, bool]  # (kind, page, line, message, fixable by --fix)


def findings(
    ws: Workspace, texts: dict[str, str], sidecars: dict[str, Sidecar], to_mark: dict[str, list[str]], strays: dict[str, list[str]],
    moves: dict[str, str] | None = None,
) -> list[Found]:
    """Every marker finding; what `--fix` will do is added to `to_mark` (page -> claim ids whose
    marker it places) and `strays` (page -> labels it removes). `moves`: renamed pages' sidecars
    `--fix` moves along (old page -> new): their claims' markers on the new page are no strays."""
    out = _claims_markers(ws, texts, sidecars, to_mark)
    arriving = {new: sidecars[old] for old, new in (moves or {}).items() if old in sidecars}
    for page, line, name, msg in stray_markers(ws, texts, {**sidecars, **arriving}):
        out.append(("stray-marker", page, line, msg, True))
        strays.setdefault(page, []).append(name)
    return out


def _required(ws: Workspace, text: str) -> bool:
    """OpenWiki's pages carry no markers: on an OpenWiki wiki they are needed only on pages that use them."""
    return not ws.config.strict_openwiki or bool(citations.markers_in(text))


def _claims_markers(ws: Workspace, texts: dict[str, str], sidecars: dict[str, Sidecar], to_mark: dict[str, list[str]]) -> list[Found]:
    out, site = [], ws.wiki.site is not None  # site mode: the markers' form (marker_text)
    for page, sc in sorted(sidecars.items()):
        text = texts.get(page)
        if text is None or not _required(ws, text):
            continue
        for c in sc.claims:
            if citations.has_marker(text, c.id):
                if citations.states(text, c.id, c.statement) is False:
                    said = citations.prose_before(text, c.id) or ""
                    out.append(("prose-differs", page, 1, _differs(c, said, marker_text(c.id, page, site)), False))
                continue
            placeable = citations.insert_marker(text, c.statement, c.id, rst=pagenames.is_rst(page)) is not None
            how = "--fix puts it after the statement" if placeable else "put it after the sentence that states the claim"
            out.append(("missing-marker", page, 1, f"{c.id}: marker {marker_text(c.id, page, site)} is not in the prose; {how}", placeable))
            if placeable:
                to_mark.setdefault(page, []).append(c.id)
    return out


def _differs(c: Claim, said: str, marker: str) -> str:
    cid, statement = c.id, c.statement
    return (
        f"{cid}: the prose before {marker} no longer states the claim: it says {said!r}, "
        f"the claim says {statement!r}; re-read the cited lines, then `claim edit {citations.label(cid)} "
        "--statement ...` (or restore the sentence)"
    )


def stray_markers(ws: Workspace, texts: dict[str, str], sidecars: dict[str, Sidecar]) -> list[tuple[str, int, str, str]]:
    """Markers naming no claim of their page: a retracted claim's left behind (an example's code
    deleted by hand, its marker line kept), or text copied from another page. A plain wiki renders
    one as a footnote with nothing to show; none has a claim to check. (page, line, label, message)
    of each; `lint --fix` removes them (`unmark`)."""
    out = []
    for page, text in sorted(texts.items()):
        known = {label(c.id) for c in sidecars[page].claims} if page in sidecars else set()
        shown = text if pagenames.is_rst(page) else sentences.without_code(text)  # a marker quoted as code is no marker
        for name in sorted(citations.markers_in(shown) - known):
            line = shown.count("\n", 0, max(shown.find(name), 0)) + 1
            msg = f"marker {name} names no claim of this page (a retracted claim's, or copied from another page); --fix removes it"
            out.append((page, line, name, msg))
    return out


def unmark(ws: Workspace, page: str, names: list[str]) -> list[str]:
    """The page without the stray markers `names` (still naming no claim, read again under the lock)."""
    try:  # the bytes as they are: a universal-newline read would turn a CRLF page into LF
        text = ws.wiki.page_path(page).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    sidecar = ws.wiki.load(page)
    known = {label(c.id) for c in sidecar.claims} if sidecar is not None else set()
    stray = [n for n in names if n not in known]
    edited = without_markers(text, stray) if not pagenames.is_rst(page) else text
    for name in stray if pagenames.is_rst(page) else ():  # a comment line of its own: never inside code
        edited = citations.remove_label(edited, name)
    if edited == text or not ws.wiki.write_bytes(ws.wiki.page_path(page), edited.encode("utf-8")):
        return []
    return [f"Removing {len(names)} stray marker{'s' if len(names) != 1 else ''} from {ws.wiki.repo_path(page)}"]


def without_markers(text: str, names: list[str]) -> str:
    """A Markdown page without the prose's markers of `names` (the same label quoted as code
    stays), each with the blanks before it, and with its line when it stood alone there."""
    shown = sentences.without_code(text)
    for m in reversed([m for m in markers.ANY.finditer(shown) if m.group(1) in names]):
        start, end = m.start(), m.end()
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", end)
        if not text[line_start:start].strip() and not text[end : line_end if line_end >= 0 else len(text)].strip():
            start, end = line_start, (line_end + 1 if line_end >= 0 else len(text))
        text = text[:start] + text[end:]
    return text
