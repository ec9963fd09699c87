"""Writing one page's claims: the page's citation block and its sidecar, kept in step.

The caller holds the wiki lock. The page is written first, then the sidecar with the page's new
`pageVersion`; each write is atomic and skipped when the bytes would not change.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from openwiki_git.errors import EvidenceError, StoreError
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, openwiki_cannot_read, parse_kind
from openwiki_git.evidence.resolver import resolve
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.formats import pagenames
from openwiki_git.model import Claim, Evidence, Sidecar
from openwiki_git.pages import badge, citations
from openwiki_git.pages.frontmatter_core import opens, uses_okf
from openwiki_git.pages.markers import as_comments, comment_only
from openwiki_git.store.wiki import Wiki, page_version

PageEdit = Callable[[str], str]


def render_page(wiki: Wiki, sidecar: Sidecar, *, edit: PageEdit | None = None) -> tuple[bytes | None, bytes | None]:
    """The page's bytes now and as `save_page` would write them (None: no page). Nothing is
    written. Besides the citations block, the OKF front matter is projected from the claims
    (okf.py: `sources`, `verified`, `generated`; marks on an OpenWiki wiki); a malformed front
    matter raises SchemaError (`file:line: problem (fix)`)."""
    page_path = wiki.page_path(sidecar.page)
    data = page_path.read_bytes() if page_path.is_file() else None
    if data is None:
        return None, None
    text = _utf8(data, wiki.repo_path(sidecar.page))
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:  # a CRLF page is rendered as LF text and written back with CRLF: same bytes when in step
        text = text.replace("\r\n", "\n")
    new_text = edit(text) if edit else text
    if wiki.site is not None and not pagenames.is_rst(sidecar.page):
        new_text = as_comments(new_text)  # a site's readers see no marker: the comment form (store/site.py)
    new_text = citations.sync(new_text, wiki.repo_path(sidecar.page), rendered_claims(wiki, new_text, sidecar))
    if wiki.site is not None:  # the review badge, only when the config asks (pages/badge.py)
        marked = sum(c.mark is not None for c in sidecar.claims) if wiki.config.raw.get("site_review_badge") else 0
        new_text = badge.sync(new_text, marked, rst=pagenames.is_rst(sidecar.page))
    if opens(new_text) and uses_okf(new_text, site=wiki.site is not None):
        from openwiki_git.pages import okf
        from openwiki_git.store.workspace import now_iso

        new_text = okf.project(
            sidecar,
            text,
            new_text,
            filename=wiki.repo_path(sidecar.page),
            openwiki_mode=wiki.config.strict_openwiki,
            now=now_iso(),
            marks_in_front_matter=wiki.config.strict_openwiki,
        )
    if crlf:
        new_text = new_text.replace("\r\n", "\n").replace("\n", "\r\n")
    return data, new_text.encode("utf-8")


def rendered_claims(wiki: Wiki, text: str, sidecar: Sidecar) -> tuple[Claim, ...]:
    """The claims whose footnote definitions the page carries: not those marked only by a
    comment (`<!-- c-1a2b3c4d -->`: nothing refers to a footnote). On an OpenWiki wiki (whose
    pages have no markers) only claims whose marker is in the prose, so its pages get no block. A
    docs site's page carries none: its markers are invisible comments, and readers see no block."""
    if wiki.site is not None:
        return ()
    commented = comment_only(text)
    claims = tuple(c for c in sidecar.claims if citations.label(c.id) not in commented) if commented else sidecar.claims
    if not wiki.config.strict_openwiki:
        return claims
    present = citations.markers_in(text)
    return tuple(c for c in claims if citations.label(c.id) in present)


def save_page(wiki: Wiki, sidecar: Sidecar, *, edit: PageEdit | None = None) -> list[str]:
    """Persist `sidecar` and re-render its page's citations and OKF front matter; returns the
    repo paths written."""
    written = []
    page_path = wiki.page_path(sidecar.page)
    before, data = render_page(wiki, sidecar, edit=edit)
    wiki.require_writable(wiki.sidecar_path(sidecar.page))  # refused now, not after the page is written
    if data is not None:
        if wiki.write_bytes(page_path, data):
            written.append(wiki.repo_path(sidecar.page))
    version = page_version(data or b"")
    try:
        if wiki.save(sidecar.replace(page_version=version)):
            written.append(wiki.sidecar_path(sidecar.page).relative_to(wiki.root).as_posix())
    except BaseException:
        if before is not None:  # a writer that fails leaves the page as it was
            wiki.write_bytes(page_path, before)
        raise
    return written


def preflight(wiki: Wiki, pages: list[str]) -> None:
    """Check the front matter of every page a command is about to write, before it writes any:
    a malformed one raises SchemaError (`file:line: problem (fix)`, exit 2) and nothing is written."""
    for page in pages:
        path = wiki.page_path(page)
        if not path.is_file():
            continue
        text = _utf8(path.read_bytes(), wiki.repo_path(page))
        if opens(text) and uses_okf(text, site=wiki.site is not None):
            from openwiki_git.pages import okf

            okf.load_valid(text, filename=wiki.repo_path(page))


def _utf8(data: bytes, filename: str) -> str:
    """A page's text; a page that is not UTF-8 is refused (rewriting it would lose its bytes)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StoreError(f"{filename}: byte {e.start}: not valid UTF-8", "save the page as UTF-8") from None


def new_sidecar(page: str) -> Sidecar:
    return Sidecar(page=page, page_version=page_version(b""), claims=())


def new_claim_id(taken: set[str]) -> str:
    labels = {citations.label(t) for t in taken}
    for _ in range(64):
        cid = "claim_" + uuid.uuid4().hex
        if cid not in taken and citations.label(cid) not in labels:
            return cid
    raise StoreError("could not allocate a unique claim id")  # pragma: no cover - 2^-32 odds


def resolve_new_evidence(ws: Any, resources: list[str], source: str) -> list[Evidence]:
    """Resolve evidence at the literal lines given; every refusal names the resource and the fix."""
    out: list[Evidence] = []
    for raw in resources:
        if looks_like_kind(raw):
            named = _new_kind_evidence(ws, raw, source)
            if any(e.resource == named.resource for e in out):
                raise EvidenceError(f"{raw}: {named.resource} is cited twice", "cite each resource once")
            out.append(named)
            continue
        try:
            res = parse_resource(raw, wiki_dir=ws.config.wiki_dir)
        except ResourceError as e:
            raise EvidenceError(f"--evidence: {e}") from None  # the message shows the input, escaped
        ft = ws.repo.read(res.path, source)
        if ft.text is None:
            hint = f"`git add {res.path}` first" if ft.problem == "not tracked by git" else "cite a tracked text file"
            raise EvidenceError(f"{raw}: {res.path}: {ft.problem}", hint)
        got = resolve(res, ft.text, None)
        if got is None:
            n = len(split_lines(ft.text))
            raise EvidenceError(f"{raw}: the range ends past the end of {res.path} ({n} lines)", "cite lines that exist")
        if any(e.resource == got.resource.canonical for e in out):
            raise EvidenceError(f"{raw}: {got.resource.canonical} is cited twice", "cite each resource once")
        out.append(Evidence(got.resource.canonical, got.version, ft.blob))
    return out


def add_claim(wiki: Wiki, page: str, statement: str, evidence: list[Evidence], by: str | None, now: str) -> tuple[Claim, bool]:
    """A new claim (a fresh claim_<32 hex> id) written to the page's sidecar, its marker after
    the statement in the prose, under the wiki's lock; (the claim, whether the marker was placed).
    `claim add` and the agents' add_claim both write through here."""
    with wiki.lock():
        sidecars = wiki.load_all()
        taken = {c.id for sc in sidecars.values() for c in sc.claims}
        claim = Claim(new_claim_id(taken), statement, tuple(evidence), now, by)
        sidecar = sidecars.get(page) or new_sidecar(page)
        sidecar = sidecar.replace(claims=(*sidecar.claims, claim))
        placed: list[bool] = []

        def edit(text: str) -> str:
            new = citations.insert_marker(text, statement, claim.id, rst=pagenames.is_rst(page))
            placed.append(new is not None)
            return new if new is not None else text

        save_page(wiki, sidecar, edit=edit)
    return claim, bool(placed and placed[0])


def _new_kind_evidence(ws: Any, raw: str, source: str) -> Evidence:
    """A definition by name or a set, established now (claims/kinds.py); refused in OpenWiki
    mode, whose reader knows line ranges and whole files only."""
    from openwiki_git.claims import kinds

    try:
        kind = parse_kind(raw, wiki_dir=ws.config.wiki_dir)
    except ResourceError as e:
        raise EvidenceError(f"--evidence: {e}") from None
    assert kind is not None
    unreadable = openwiki_cannot_read(raw) if ws.config.strict_openwiki else None
    if unreadable:
        raise EvidenceError(
            f"{raw}: {unreadable} (sidecar_format: openwiki)",
            "cite lines (repo://path#L10-L24) or a whole file, or set sidecar_format: openwiki-git in .openwiki/config.yml",
        )
    r = kinds.resolve(kind, kind.canonical, "", lambda p: ws.repo.read(p, source), ws.tracked(source))
    if r.current_resource is None or r.current_version is None:
        hint = "pip install 'openwiki-git[ground]'" if "pip install" in r.reason else "name a definition or a scope that exists"
        raise EvidenceError(f"{raw}: {r.reason}", hint)
    blob = r.blob if isinstance(kind, Symbol) else None
    return Evidence(r.current_resource, r.current_version, blob)
