"""Evidence that names what it means, judged: a definition by name, a set of files, a set of
matching lines (evidence/kinds.py's grammar and tokens). Pure: files come in through readers.

Two entry points, one per way a claim is checked:

- `resolve`: the item against one source (`check`, `claim show/confirm`, the refresher), given a
  reader and the tracked paths (a glob ranges over them).
- `through_diff`: the item against one diff (the hook, `check --base`): a file the diff does not
  touch is never read, and a set's new members are its verified members (listed in its token)
  with the diff's additions, deletions and renames applied, so no tree is listed.

A definition is fresh while its text is (it may move anywhere in its file, or the file be
renamed), stale when its text changes, unresolved when no definition has its name (naming one of
the same body under another name when there is exactly one, in its file, else in another file of
the same extension: `moved_hint`). A set is fresh while its members
are, whatever else changes in their files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from openwiki_git.claims import docstring_edits, part
from openwiki_git.claims.causes import ANNOTATIONS_ONLY
from openwiki_git.claims.diff_texts import MODE_GITLINK, MODE_LINK, DiffTexts
from openwiki_git.claims.outcomes import EvidenceOutcome
from openwiki_git.claims.signature_edits import DEFAULTS_CHANGED as DEFAULTS_CHANGED
from openwiki_git.claims.signature_edits import DOCSTRING_ADDED as DOCSTRING_ADDED
from openwiki_git.claims.signature_edits import DOCSTRING_REWRITTEN as DOCSTRING_REWRITTEN
from openwiki_git.claims.signature_edits import PARAMETERS_ADDED as PARAMETERS_ADDED
from openwiki_git.claims.signature_edits import head_parameters_changed, whole_parameters_changed
from openwiki_git.claims.symbols import Elsewhere, before_v2, diff_elsewhere, head_v1, moved_hint, renamed, symbol_token, tracked_elsewhere
from openwiki_git.diff import cosmetic
from openwiki_git.diff.hunks import FileChange, Hunk
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import (
    MAX_LINE,
    MAX_MEMBERS,
    FileSet,
    GrepSet,
    Kind,
    Symbol,
    check_query,
    decode_members,
    glob_matches,
    kind_scope,
    set_version,
)
from openwiki_git.evidence.resource import ResourceError
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import Evidence, EvidenceResult, FileText, Status

__all__ = ["Member", "changed_scope", "members_now", "resolve", "set_reason", "symbol_result", "through_diff"]

Reader = Callable[[str], FileText]
Member = str | tuple[str, str]  # a path, or (path, line text)
MAX_SCAN = 64 * 1024 * 1024  # bytes a grep set reads at most (a bound on its cost)
SHOWN = 5  # members named in a reason; the rest are counted


def resolve(
    kind: Kind,
    resource: str,
    version: str,
    read: Reader,
    tracked: Callable[[], Sequence[str]] | None,
    *,
    verified: FileText | None = None,
    annotations: bool | None = False,
    parameters: bool | None = False,
) -> EvidenceResult:
    """The item now. `verified`: the file as it was verified (a definition's cosmetic edit is then
    recognised, as for lines; `annotations`, `parameters`: the config's `cosmetic_annotations` and
    `cosmetic_parameters_added`; annotations None: recognised, for claims/relevance.py to weigh
    against each claim's sentence)."""
    if isinstance(kind, Symbol):
        elsewhere = None if tracked is None else tracked_elsewhere(tracked, read)
        return symbol_result(
            kind, resource, version, read(kind.path), verified=verified, annotations=annotations, parameters=parameters,
            elsewhere=elsewhere,
        )
    scope, is_glob = kind_scope(kind)
    if is_glob and tracked is None:
        return EvidenceResult(resource, "unresolved", None, "the tracked files are not known here")
    paths = [p for p in tracked() if glob_matches(scope, p)] if is_glob and tracked is not None else [scope]
    if isinstance(kind, FileSet):
        return _set_result(resource, version, paths, kind.canonical)
    try:
        found = members_now(kind, paths, read)
    except ValueError as e:
        return EvidenceResult(resource, "unresolved", None, str(e))
    return _set_result(resource, version, found, kind.canonical, lines=True)


def symbol_result(
    sym: Symbol, resource: str, version: str, ft: FileText, *, verified: FileText | None = None, annotations: bool | None = False,
    parameters: bool | None = False, elsewhere: Elsewhere | None = None, recognise: bool = True,
) -> EvidenceResult:
    """A definition in `ft` (the file now) against its verified token; `elsewhere`: the files it
    may have moved to, searched only when it is gone (`moved_hint`). With `verified`, a cosmetic
    edit leaves it fresh (unless `recognise` is False: a marked claim stays marked) and an edit of
    its type annotations alone says so in the reason."""
    what = f"{sym.name}:head" if sym.head else sym.name
    if ft.text is None:
        reason = f"{sym.path}: {ft.problem}" + moved_hint(sym, version, elsewhere)
        return EvidenceResult(resource, "unresolved", None, reason, blob=ft.blob)
    missing = definitions.unsupported(sym.path)
    if missing is not None:
        return EvidenceResult(resource, "unresolved", None, f"{sym.path}: cannot read #{what}: {missing}", blob=ft.blob)
    lines = split_lines(ft.text)
    ext = definitions.find(sym.path, ft.text, sym.name)
    if ext is None:
        broken = definitions.parse_problem(sym.path, ft.text)
        if broken is not None:  # not gone: unreadable (the change may have left it where it was)
            return EvidenceResult(resource, "unresolved", None, f"{broken}: #{what} cannot be read", blob=ft.blob)
        hint = renamed(sym, ft.text, version) or moved_hint(sym, version, elsewhere)
        reason = f"no definition named {sym.name} in {sym.path}" + hint
        return EvidenceResult(resource, "unresolved", None, reason, blob=ft.blob)
    token = symbol_token(sym, ext, lines, version)
    current = sym.canonical
    if token == version:
        return EvidenceResult(resource, "fresh", current, "unchanged", token, ft.blob)
    if before_v2(version):  # changed as a v1 token read it: what a confirm writes now
        token = symbol_token(sym, ext, lines, "")
    now_at = part.at(ext.head if sym.head else ((ext.start, ext.end),))
    reason = f"definition {what} changed ({now_at} now)"
    if verified is not None and verified.text is not None:
        cosmetic_reason = _cosmetic(sym, verified.text, version, lines, ext, annotations)
        if cosmetic_reason is None and parameters is not False:
            cosmetic_reason = (head_parameters_changed(sym, verified.text, version, ft.text, ext, annotations) if sym.head
                               else whole_parameters_changed(sym, verified.text, version, ft.text, ext, annotations))
        if cosmetic_reason is not None and recognise:
            return EvidenceResult(resource, "fresh", current, cosmetic_reason, token, ft.blob)
        if cosmetic_reason is None and not annotations and _cosmetic(sym, verified.text, version, lines, ext, True) is not None:
            reason = f"definition {what} changed: {ANNOTATIONS_ONLY} ({now_at} now)"  # stale all the same
    return EvidenceResult(resource, "stale", current, reason, token, ft.blob)


def hunks_over(text: str | None, sym: Symbol, hunks: tuple[Hunk, ...]) -> tuple[Hunk, ...]:
    """The hunks inside the cited part in `text` (the new side): a head's, not its whole
    definition's (part.py's rule)."""
    spans = part.symbol_spans(sym, text)
    if spans is None:
        return hunks[:1]
    return part.hunks_inside(spans, hunks)


def _cosmetic(
    sym: Symbol, then: str, version: str, lines: list[str], ext: definitions.Extent, setting: bool | None
) -> str | None:
    """cosmetic.compare() on the definition (or its head) as verified and as it is now: the same
    rules as for lines, so an annotation-only edit of a signature is cosmetic unless
    `cosmetic_annotations: false` (whether it still marks a claim is claims/relevance.py's)."""
    annotations = setting is not False
    then_lines = split_lines(then)
    old = definitions.find(sym.path, then, sym.name)
    if old is None or symbol_token(sym, old, then_lines, version) != version:
        return None
    if head_v1(sym, version):  # the head's pieces (signature, docstring, __init__'s signature), compared as one text
        old_head, new_head = split_lines(old.text(then_lines, head=True, v1=True)), split_lines(ext.text(lines, head=True, v1=True))
        return cosmetic.compare(sym.path, old_head, new_head, annotations=annotations)
    if sym.head:  # its code compared; its summary's prose too (relevance.py weighs a summary edit)
        summary = docstring_edits.summary_edit(old.head_summary(then_lines), ext.head_summary(lines), sym)
        old_code, new_code = split_lines(old.head_code(then_lines)), split_lines(ext.head_code(lines))
        code = cosmetic.compare(sym.path, old_code, new_code, annotations=annotations) if old_code != new_code else ""
        if code is None or not code and not summary:
            return None
        return "cosmetic: " + ", ".join(filter(None, [code.removeprefix("cosmetic: "), summary]))
    added: frozenset[int] = frozenset()
    rewritten = ""
    if not before_v2(version):  # its docstrings' prose the same, only docstrings added, or rewritten in place: its code, compared
        then_docs, now_docs = old.docstring_proses(then_lines), ext.docstring_proses(lines)
        found = docstring_edits.docstrings_added(then_docs, now_docs)
        if found is None and len(then_docs) != len(now_docs):
            return None
        if found is None:  # as many docstrings, some reworded: the code decides, the words go to relevance.py
            rewritten = docstring_edits.summary_edit(" ".join(then_docs), " ".join(now_docs), sym)
        added = found or frozenset()
        then_lines, lines = old.code_lines(then_lines), ext.code_lines(lines, dropped=added)
    code = cosmetic.compare(
        sym.path, then_lines, lines, old_span=(old.start, old.end), new_span=(ext.start, ext.end), annotations=annotations
    )
    edit = rewritten or (DOCSTRING_ADDED if added else "")
    if not edit:
        return code
    if code is None and then_lines[old.start - 1 : old.end] != lines[ext.start - 1 : ext.end]:
        return None  # the code changed too
    return f"{code}, {edit}" if code else f"cosmetic: {edit}"


def members_now(kind: GrepSet, paths: Sequence[str], read: Reader) -> list[Member]:
    """The (path, line) pairs `kind`'s query matches in `paths`, or (path, what its first group
    captured) when it has a group (each line scanned up to
    MAX_LINE characters, MAX_SCAN bytes in all). Raises ValueError past MAX_MEMBERS."""
    try:
        query = check_query(kind.query)
    except ResourceError as e:
        raise ValueError(str(e)) from None
    found: list[Member] = []
    scanned = 0
    for path in paths:
        ft = read(path)
        if ft.text is None:
            continue
        scanned += len(ft.text)
        if scanned > MAX_SCAN:
            raise ValueError(f"the scope of {kind.canonical} is over {MAX_SCAN >> 20} MiB; narrow the glob")
        for line in ft.text.splitlines():
            m = query.search(line[:MAX_LINE])
            if m:
                # What the query's first group captured, when it has one (`^def ([a-z]\w*)`: the
                # names, whatever their signatures); else the line, stripped (re-indenting it
                # does not change the set).
                found.append((path, (m.group(1) or "") if query.groups else line.strip()))
        if len(found) > MAX_MEMBERS:
            raise ValueError(f"{kind.canonical} matches over {MAX_MEMBERS} lines; narrow the query or the glob")
    return found


def _as_members(kind_members: list[str] | list[list[str]]) -> list[Member]:
    return [tuple(m) if isinstance(m, list) else m for m in kind_members]  # type: ignore[misc]


def _token(members: Sequence[Member]) -> str:
    return set_version([list(m) if isinstance(m, tuple) else m for m in members])  # type: ignore[arg-type]


def _set_result(resource: str, version: str, members: Sequence[Member], current: str, *, lines: bool = False) -> EvidenceResult:
    """A set's outcome: fresh while its members are the verified ones, else stale; a set of lines
    (`lines`) that had members and has none is unresolved: the code no longer says what it cited
    (a name `ground` grounded in the lines that mention it, no longer mentioned anywhere)."""
    if len(members) > MAX_MEMBERS:
        return EvidenceResult(resource, "unresolved", None, f"{current} has over {MAX_MEMBERS} members; narrow it")
    token = _token(members)
    if token == version:
        return EvidenceResult(resource, "fresh", current, "unchanged", token)
    before = decode_members(version)
    reason = "its members changed" if before is None else set_reason(_as_members(before), members)
    if lines and before and not members:
        return EvidenceResult(resource, "unresolved", None, f"no line matches any more ({reason})", token)
    status: Status = "stale"
    return EvidenceResult(resource, status, current, reason, token)


def set_reason(before: Sequence[Member], after: Sequence[Member]) -> str:
    """`new: a.py; gone: b.py` (a line member: `new: a.py: raise X`), the first few named."""
    old, now = set(before), set(after)
    parts = [f"new: {_show(m)}" for m in sorted(now - old, key=str)] + [f"gone: {_show(m)}" for m in sorted(old - now, key=str)]
    if not parts:
        return "its members changed"
    more = f"; and {len(parts) - SHOWN} more" if len(parts) > SHOWN else ""
    return "; ".join(parts[:SHOWN]) + more


def _show(m: Member) -> str:
    return m if isinstance(m, str) else f"{m[0]}: {m[1].strip()[:120]}"


def changed_scope(kind: Kind, sides: DiffTexts) -> list[FileChange]:
    """The diff's changes that touch the item's scope (old or new path in it)."""
    return sides.in_scope(kind_scope(kind)[0])


def set_through_diff(
    kind: FileSet | GrepSet, resource: str, version: str, touched: Sequence[FileChange], read_new: Reader
) -> EvidenceResult:
    """A set after the diff: its verified members, those of the touched files replaced by what
    the new side has."""
    before = decode_members(version)
    if before is None:
        return EvidenceResult(resource, "unresolved", None, "its token does not list its members; `claim confirm` it again")
    members = _as_members(before)
    scope, _ = kind_scope(kind)
    gone = {c.old_path for c in touched if c.old_path is not None}
    # A link or a submodule is no member (the tracked files a glob ranges over are regular files):
    # a member replaced by a link is gone, as `check` finds it.
    new_paths = [
        c.new_path for c in touched
        if c.new_path is not None and c.status != "deleted" and c.new_mode not in (MODE_LINK, MODE_GITLINK)
        and glob_matches(scope, c.new_path)
    ]
    if isinstance(kind, FileSet):
        after: list[Member] = sorted({m for m in members if m not in gone} | set(new_paths), key=str)
    else:
        kept: list[Member] = [m for m in members if isinstance(m, tuple) and m[0] not in gone and m[0] not in new_paths]
        try:
            after = kept + members_now(kind, new_paths, read_new)
        except ValueError as e:
            return EvidenceResult(resource, "unresolved", None, str(e))
    return _set_result(resource, version, after, kind.canonical, lines=isinstance(kind, GrepSet))


def through_diff(
    kind: Kind, ev: Evidence, sides: DiffTexts, *, cosmetic_edits: str, annotations: bool | None, parameters: bool | None = False,
    marks: Callable[[str], bool] | None = None,
) -> EvidenceOutcome | None:
    """The item after the diff `sides` holds; None when the diff does not touch its scope (a
    definition: its file; a set: a file in it), which costs no read. `cosmetic_edits` as the
    hook's options say ("stale": never recognised; the claim is marked: pass "stale"). `marks`:
    whether a cosmetic edit (its reason) still marks the claim (claims/relevance.py's `marks`
    for its sentence): then the item is stale with that reason."""
    if isinstance(kind, Symbol):
        change = sides.by_old.get(kind.path)
        if change is None:
            return None
        elsewhere = diff_elsewhere(sides)
        if change.new_path is None or change.status == "deleted":
            r = EvidenceResult(ev.resource, "unresolved", None, f"{kind.path} deleted" + moved_hint(kind, ev.version, elsewhere))
            return _outcome(ev, r, change.hunks[:1], None)
        sym = kind.with_path(change.new_path)
        ft, _ = sides.new_file(sym.path)
        r = symbol_result(
            sym, ev.resource, ev.version, ft, verified=sides.old_file(kind.path)[0], annotations=annotations,
            parameters=parameters, elsewhere=elsewhere, recognise=cosmetic_edits != "stale",
        )
        if r.status == "fresh" and r.reason.startswith("cosmetic") and marks is not None and marks(r.reason):
            r = EvidenceResult(r.resource, "stale", r.current_resource, r.reason, r.current_version, r.blob)
        hunks = hunks_over(ft.text, sym, change.hunks) if r.status != "fresh" else ()
        return _outcome(ev, r, hunks, sym.path if sym.path != kind.path else None)
    touched = changed_scope(kind, sides)
    if not touched:
        return None
    r = set_through_diff(kind, ev.resource, ev.version, touched, lambda p: sides.new_file(p)[0])
    return _outcome(ev, r, (), None)


def _outcome(ev: Evidence, r: EvidenceResult, hunks: tuple[Hunk, ...], moved_to: str | None) -> EvidenceOutcome:
    """The outcome as the engine records it: a fresh item re-anchored (a rename, a cosmetic
    edit's new token), a changed one keeping its verified token at its new path."""
    after = ev
    if r.current_resource is not None and r.current_version is not None:
        if r.status == "fresh" and (r.current_resource, r.current_version) != (ev.resource, ev.version):
            after = Evidence(r.current_resource, r.current_version, r.blob or ev.blob)
        elif r.status == "stale" and r.current_resource != ev.resource:
            after = Evidence(r.current_resource, ev.version, ev.blob)
    return EvidenceOutcome(ev, after, r.status, r.reason, r.current_resource, hunks, None, None, moved_to, r.current_version, r.blob)


def texts(
    kind: Kind, version: str, read: Reader, tracked: Callable[[], Sequence[str]] | None, verified: FileText | None
) -> tuple[str | None, str | None]:
    """(the text as verified, the text now) for `claim show`: a definition's text (the verified
    one read from the blob it was verified in), a set's members one a line."""
    if isinstance(kind, Symbol):
        now = _definition_text(kind, read(kind.path).text, version)[0]
        then, token = _definition_text(kind, verified.text if verified is not None else None, version)
        return (then if token == version else None), now
    r = resolve(kind, kind.canonical, "", read, tracked)
    return members_text(version), members_text(r.current_version) if r.current_version else None


def members_text(token: str) -> str | None:
    """A set's members, one a line (`path`, or `path: line`), as its token lists them."""
    members = decode_members(token)
    return "".join(_show(m) + "\n" for m in sorted(_as_members(members), key=str)) if members is not None else None


def _definition_text(sym: Symbol, text: str | None, version: str) -> tuple[str | None, str | None]:
    """(the definition's or head's text in `text`, its token), read the way `version` was written."""
    if text is None or definitions.unsupported(sym.path) is not None:
        return None, None
    ext = definitions.find(sym.path, text, sym.name)
    if ext is None:
        return None, None
    lines = split_lines(text)
    return ext.text(lines, head=sym.head, v1=head_v1(sym, version)), symbol_token(sym, ext, lines, version)
