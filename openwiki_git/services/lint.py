"""`lint`'s findings and fixes: the wiki's shape, apart from whether claims are still true (that
is `check`). What each kind of finding means and what `--fix` does: the `lint` command's help
(cli/commands/lint.py). `lint(ws)` finds, `apply(ws, plan)` fixes; both return data.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from openwiki_git.errors import OpenwikiError, SchemaError
from openwiki_git.formats import pagenames
from openwiki_git.markdown import refs
from openwiki_git.model import Sidecar
from openwiki_git.pages import citations, okf
from openwiki_git.pages import frontmatter as fmt
from openwiki_git.pages.frontmatter_core import uses_okf
from openwiki_git.services import check_examples, lint_ground, lint_markers
from openwiki_git.store import bundle, editing
from openwiki_git.store.workspace import Workspace

KINDS = (
    "front-matter", "ungrounded", "orphan-sidecar", "missing-marker", "broken-link", "out-of-step", "index", "broken-reference",
    "superseded-source", "prose-differs", "verify-policy", "several-claims", "stray-marker",
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_LOCATED = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): (?P<rest>.*)$")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    path: str  # repository-relative
    line: int
    message: str
    fixable: bool = False


@dataclass
class Plan:
    """What `--fix` would write."""

    moves: dict[str, str] = field(default_factory=dict)  # old page -> new page (sidecar follows)
    markers: dict[str, list[str]] = field(default_factory=dict)  # page -> claim ids to mark
    project: set[str] = field(default_factory=set)  # pages whose front matter/citations to redo
    indexes: dict[Path, str] = field(default_factory=dict)  # index file -> its text
    create_indexes: bool | None = None  # create missing indexes: None = when the tool keeps the wiki's (bundle.keeps_indexes)
    folds: set[str] = field(default_factory=set)  # pages with sentences carrying several claims (lint_ground.py)
    strays: dict[str, list[str]] = field(default_factory=dict)  # page -> labels of markers naming no claim of its sidecar

    def has_work(self) -> bool:
        return bool(self.moves or self.markers or self.project or self.indexes or self.folds or self.strays)


def run(ws: Workspace, *, fix: bool = False, create_indexes: bool = False) -> tuple[list[Finding], list[str]]:
    """The findings, after `fix` carried out what can be fixed (and what it did, one line each).
    `create_indexes`: a missing index.md counts even where the tool does not keep the wiki's
    indexes (a wiki that is an existing docs folder)."""
    create = True if create_indexes else None
    findings, plan = lint(ws, create_indexes=create)
    done: list[str] = []
    if fix and plan.has_work():
        done = apply(ws, plan)
        findings, _ = lint(ws, create_indexes=create)
    return findings, done


# -- the findings ----------------------------------------------------------------------------


def lint(ws: Workspace, *, create_indexes: bool | None = None) -> tuple[list[Finding], Plan]:
    wiki, plan = ws.wiki, Plan(create_indexes=create_indexes)
    pages = wiki.pages()
    texts = {p: ws.page_text(p) or "" for p in pages}
    sidecars = wiki.load_all()
    found: list[Finding] = []
    found += _front_matter(ws, texts)
    renames = _renames(ws, pages, sidecars, texts)
    plan.moves = {old: new for old, (new, _) in renames.items()}
    moved_to = set(plan.moves.values())
    for page in pages:
        sc = sidecars.get(page)
        if (sc is None or not sc.claims) and page not in moved_to:
            found.append(
                Finding("ungrounded", wiki.repo_path(page), 1, "no claims ground this page (add some with `openwiki-git claim add`)")
            )
    for page in sorted(p for p in sidecars if p not in texts):
        rel = wiki.sidecar_path(page).relative_to(wiki.root).as_posix()
        if page in renames:
            new, how = renames[page]
            msg = f"its page was renamed to {wiki.repo_path(new)} ({how}); --fix moves the sidecar along"
            found.append(Finding("orphan-sidecar", rel, 1, msg, True))
        else:
            msg = f"{wiki.repo_path(page)} does not exist; restore the page, or retract its claims (never deleted by lint)"
            found.append(Finding("orphan-sidecar", rel, 1, msg))
    found += [Finding(kind, ws.wiki.repo_path(page), line, msg, fixable) for kind, page, line, msg, fixable in
              lint_markers.findings(ws, texts, sidecars, plan.markers, plan.strays, plan.moves)]
    found += [Finding("several-claims", wiki.repo_path(p), n, m, True) for p, n, m in lint_ground.findings(texts, sidecars, plan.folds)]
    found += _links(ws)
    found += [Finding("broken-reference", p, n, m) for p, n, m in lint_ground.broken_references(ws, sidecars)]
    found += [Finding("broken-example", *where) for where in check_examples.lint_findings(ws, sidecars)]
    found += _out_of_step(ws, texts, sidecars, plan)
    found += _cited_documents(ws, sidecars)
    found += _policy(ws, sidecars)
    if not ws.config.strict_openwiki:  # an OpenWiki wiki's indexes are OpenWiki's
        found += _indexes(ws, plan)
    return found, plan


def _located(message: str, default_path: str) -> tuple[str, int, str]:
    m = _LOCATED.match(message)
    if m:
        return m.group("path"), int(m.group("line")), m.group("rest")
    return default_path, 1, message


def _front_matter(ws: Workspace, texts: dict[str, str]) -> list[Finding]:
    out = []
    site = ws.wiki.site is not None
    for page, text in texts.items():
        rel = ws.wiki.repo_path(page)
        if not uses_okf(text, site=site):
            continue  # a docs site's page: its front matter is the generator's, or none
        try:
            fm = fmt.parse(text, filename=rel)
        except SchemaError as e:
            path, line, rest = _located(e.message, rel)
            out.append(Finding("front-matter", path, line, rest))
            continue
        if fm is None:
            out.append(Finding("front-matter", rel, 1, "no front matter (OKF v0.2 pages start with --- lines holding at least `type:`)"))
            continue
        out.extend(Finding("front-matter", rel, line, f"{problem} ({fix})") for line, problem, fix in okf.problems(fm))
    return out


def _renames(
    ws: Workspace, pages: list[str], sidecars: dict[str, Sidecar], texts: dict[str, str]
) -> dict[str, tuple[str, str]]:
    """Orphan sidecar page -> (the page it was renamed to, how that was found). By git's rename
    detection from HEAD to the working tree; else by the claims' markers (or, on pages without
    markers, their statements) found on exactly one ungrounded page."""
    wiki = ws.wiki
    orphans = [p for p in sidecars if p not in texts and sidecars[p].claims]
    free = {p for p in pages if p not in sidecars or not sidecars[p].claims}
    out: dict[str, tuple[str, str]] = {}
    if not orphans or not free:
        return out
    prefix = wiki.wiki_dir + "/"
    try:
        renamed = ws.repo.renamed_in_worktree(wiki.wiki_dir, ws.config.rename_threshold)
    except OpenwikiError:
        renamed = {}  # best effort: the markers and statements below still find a rename
    by_git = {old[len(prefix) :]: new[len(prefix) :] for old, new in renamed.items()}
    for page in orphans:
        new = by_git.get(page)
        if new in free:
            out[page] = (new, "git rename detection")
            continue
        labels = {citations.label(c.id) for c in sidecars[page].claims}
        hits = [p for p in sorted(free) if labels & citations.markers_in(texts[p])]
        how = "its claims' markers are there"
        if not hits:
            hits = [p for p in sorted(free) if any(c.statement in texts[p] for c in sidecars[page].claims)]
            how = "its claims' statements are there"
        if len(hits) == 1:
            out[page] = (hits[0], how)
    targets = [new for new, _ in out.values()]
    return {old: v for old, v in out.items() if targets.count(v[0]) == 1}


def _cited_documents(ws: Workspace, sidecars: dict[str, Sidecar]) -> list[Finding]:
    """Claims citing a superseded or later-amended document (citestale), named with the replacement."""
    from openwiki_git.graph import citestale

    claims = {c.id: (page, c) for page, sc in sorted(sidecars.items()) for c in sc.claims}
    if not citestale.cited_documents([c for _, c in claims.values()], ws.config.wiki_dir):
        return []
    from openwiki_git.graph.doc_standing import stale_citations

    notices = stale_citations(ws, [c for _, c in claims.values()])
    return [
        Finding("superseded-source", ws.wiki.repo_path(claims[cid][0]), 1, f"{cid}: {n['note']}")
        for cid, got in notices.items() for n in got
    ]


def _policy(ws: Workspace, sidecars: dict[str, Sidecar]) -> list[Finding]:
    """Claims whose recorded verifier the config's verify_policy forbids on their page."""
    if not ws.config.verify_policy:
        return []
    from openwiki_git.claims import policy

    return [
        Finding("verify-policy", ws.wiki.repo_path(page), 1,
                f"{p['claim_id']}: verified by {p['verified_by']}, which the verify policy forbids: {p['rule']}")
        for page, sc in sorted(sidecars.items()) for p in policy.problems(ws.config.verify_policy, page, sc.claims)
    ]


def _wiki_markdown(ws: Workspace) -> list[Path]:
    top = ws.wiki.wiki_path
    if not top.is_dir():
        return []
    out = []
    for path in sorted(top.rglob("*.md")):
        rel = path.relative_to(top).parts
        if any(p.startswith(".") for p in rel) or path.is_symlink() or not path.is_file():
            continue
        out.append(path)
    return out


def _links(ws: Workspace) -> list[Finding]:
    """Relative links that point into the wiki, or at any `.md` in the repository, and lead nowhere."""
    root, wiki_top = ws.repo.root, ws.wiki.wiki_path
    out = []
    for path in _wiki_markdown(ws):
        rel = path.relative_to(root).as_posix()
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        try:
            body = fmt.split(text, filename=rel).body
        except SchemaError:
            body = text  # an unclosed front matter: reported as a front-matter finding
        offset = text[: len(text) - len(body)].count("\n")
        for n, target in refs.link_targets(body):
            where = _resolve(target, path, root, wiki_top)
            if where is not None and not where.exists():
                out.append(
                    Finding(
                        "broken-link",
                        rel,
                        n + offset,
                        f"link to {target} leads nowhere ({where.relative_to(root).as_posix()} does not exist)",
                    )
                )
    return out


def _resolve(target: str, page: Path, root: Path, wiki_top: Path) -> Path | None:
    """The file a relative link names, when lint should check it; None for URLs, anchors and
    links to non-Markdown files outside the wiki."""
    if not target or target.startswith(("#", "//")) or _SCHEME.match(target):
        return None
    path = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not path:
        return None
    if path.startswith("/"):  # OKF: bundle-absolute
        joined = posixpath.normpath(posixpath.join(wiki_top.relative_to(root).as_posix(), path.lstrip("/")))
    else:
        joined = posixpath.normpath(posixpath.join(page.parent.relative_to(root).as_posix(), path))
    if joined == ".." or joined.startswith("../"):
        return None  # outside the repository
    wiki_rel = wiki_top.relative_to(root).as_posix()
    inside = joined == wiki_rel or joined.startswith(wiki_rel + "/")
    if not inside and not joined.endswith(".md"):
        return None
    return root / joined


def _out_of_step(ws: Workspace, texts: dict[str, str], sidecars: dict[str, Sidecar], plan: Plan) -> list[Finding]:
    out = []
    for page, sc in sorted(sidecars.items()):
        if page not in texts:
            continue
        try:
            old, new = editing.render_page(ws.wiki, sc)
        except SchemaError:
            continue  # reported as a front-matter finding
        if old is not None and new is not None and old != new:
            what = _what_changed(old.decode("utf-8", "replace"), new.decode("utf-8", "replace"), ws.wiki.repo_path(page))
            out.append(Finding("out-of-step", ws.wiki.repo_path(page), 1, f"{what} out of step with the claims; --fix rewrites it", True))
            plan.project.add(page)
    return out


def _what_changed(old: str, new: str, filename: str) -> str:
    a, b = fmt.split(old, filename=filename), fmt.split(new, filename=filename)
    parts = []
    if a.yaml != b.yaml:
        keys = []
        fa, fb = fmt.parse(old, filename=filename), fmt.parse(new, filename=filename)
        if fa is not None and fb is not None:
            keys = [k for k in sorted(set(fa.data) | set(fb.data)) if fa.data.get(k) != fb.data.get(k)]
        parts.append("front matter (" + ", ".join(keys) + ")" if keys else "front matter")
    if a.body != b.body:
        parts.append("citations block")
    return " and ".join(parts) or "page"


def _indexes(ws: Workspace, plan: Plan) -> list[Finding]:
    out = []
    if plan.create_indexes is None and bundle.index_kind(ws.wiki.wiki_path / "index.md") == "missing":
        plan.create_indexes = bundle.generated_at_head(ws.wiki.wiki_path / "index.md", ws.repo) or None  # deleted since
    for path, text in bundle.expected_indexes(ws.wiki, create=plan.create_indexes).items():
        try:
            current = path.read_bytes().decode("utf-8", "replace")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            current = None
        if current != text:
            rel = path.relative_to(ws.repo.root).as_posix()
            why = "is missing" if current is None else "is out of date"
            out.append(Finding("index", rel, 1, f"{why}; --fix regenerates it", True))
            plan.indexes[path] = text
    return out


# -- the fixes -------------------------------------------------------------------------------


def apply(ws: Workspace, plan: Plan) -> list[str]:
    """Carry out the plan under the wiki lock; returns what was done, one line each. Every page's
    front matter is checked first: a malformed one raises (exit 2) before anything is written."""
    wiki = ws.wiki
    written: list[str] = []
    with wiki.lock():
        editing.preflight(wiki, wiki.pages())
        sidecars = wiki.load_all()
        written += lint_ground.fold_pages(ws, sidecars, plan.folds)
        for old, new in sorted(plan.moves.items()):
            if old not in sidecars or (new in sidecars and sidecars[new].claims):
                continue
            moved = sidecars.pop(old).replace(page=new)
            sidecars[new] = moved
            plan.project.add(new)
            old_rel = wiki.sidecar_path(old).relative_to(wiki.root).as_posix()
            new_rel = wiki.sidecar_path(new).relative_to(wiki.root).as_posix()
            written.extend(f"Rewriting {p}" for p in _save(ws, moved, plan.markers.get(new, [])) if p != new_rel)
            wiki.remove_file(wiki.sidecar_path(old))
            written.append(f"Moving {old_rel} -> {new_rel}")
        for page in sorted((set(plan.markers) | plan.project) - set(plan.moves.values())):
            if page in sidecars:
                written.extend(f"Rewriting {p}" for p in _save(ws, sidecars[page], plan.markers.get(page, [])))
        for page, names in sorted(plan.strays.items()):
            written += lint_markers.unmark(ws, page, names)
        current = bundle.expected_indexes(wiki, create=plan.create_indexes)  # judged again under the lock
        for path, text in sorted((p, current[p]) for p in plan.indexes if p in current):
            if wiki.write_bytes(path, text.encode("utf-8")):
                written.append(f"Rewriting {path.relative_to(wiki.root).as_posix()}")
    return written


def _save(ws: Workspace, sidecar: Sidecar, claim_ids: list[str]) -> list[str]:
    wanted = [c for c in sidecar.claims if c.id in claim_ids]

    def edit(text: str) -> str:
        for c in wanted:
            text = citations.insert_marker(text, c.statement, c.id, rst=pagenames.is_rst(sidecar.page)) or text
        return text

    return editing.save_page(ws.wiki, sidecar, edit=edit if wanted else None)

