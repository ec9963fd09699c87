"""What a page's cached `check` answer depends on besides its sidecar and page, taken when the
page is judged (caches/check_reuse.py): each cited file's key (stat and blob), a set's glob's
candidates (the index's regular files it matches) and each one's presence or content, and the
tree-sitter modules a definition is read through. check_entries.py checks these keys on the fast answer;
this module takes them, with the Workspace's repository and resolver.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from openwiki_git.caches.check_entries import file_key_now, grammars_key
from openwiki_git.caches.statkey import racy
from openwiki_git.evidence.kinds import looks_like_kind

if TYPE_CHECKING:
    from openwiki_git.caches.check_entries import FileKey


def file_key_after(ws: Any, root: str, path: str, resolver: Any, real_dirs: dict[str, str], started_ns: int) -> FileKey | None:
    """The key of a cited file after judging it, None when its results cannot be cached."""
    if not ws.repo.is_tracked(path):
        return "untracked"
    st = file_key_now(root, path, real_dirs)
    if st is None:
        return "missing" if not os.path.lexists(os.path.join(root, path)) else None
    ft = resolver.texts.get(path)
    if ft is None or racy(started_ns, st) or not verbatim(ft, st[1]):
        return None
    return (*st, ft.blob)


Scope = tuple[str | None, str | None, bool, bool]


def scope_of(resource: str) -> Scope:
    """(the one file a resource cites, the glob it ranges over, whether its members' lines count,
    whether it is a definition), parsed as the resolver parses it; all None and False when it
    does not parse (unresolved whatever the files hold). A definition, or lines matched in one
    file, cite that file."""
    from openwiki_git.evidence.kinds import FileSet, GrepSet, Symbol, kind_scope, parse_kind
    from openwiki_git.evidence.resource import ResourceError, parse_resource
    from openwiki_git.formats import sidecar

    if not looks_like_kind(resource):
        plain = sidecar.canonical_parts(resource)
        if plain is not None:
            return plain[0], None, False, False
        try:
            return parse_resource(resource, wiki_dir="\0").path, None, False, False
        except ResourceError:
            return None, None, False, False
    try:
        kind = parse_kind(resource, wiki_dir="\0")
    except ResourceError:
        return None, None, False, False
    if kind is None:
        return None, None, False, False
    scope, is_glob = kind_scope(kind)
    if not is_glob:
        return scope, None, False, isinstance(kind, Symbol)
    return None, scope, isinstance(kind, GrepSet) and not isinstance(kind, FileSet), False


def may_name_elsewhere(e: Any) -> bool:
    """Whether an evidence result's reason may name another file: a definition gone from its
    file (its reason then says where one of the same body is, claims/kinds.py's `moved_hint`).
    Such an answer depends on files the claim does not cite, which no cache key covers: check's
    summary judges it again. (The graph's resolver is given no tracked files, so its reasons
    never name another file.)"""
    return bool(e.status == "unresolved" and scope_of(e.resource)[3])


def grammar_modules(path: str) -> tuple[str, ...]:
    """The modules a definition in `path` is read through: tree-sitter and the grammar of its
    extension (none for Python, read by `ast`). Installing or removing them changes the answer
    (unresolved, naming the extra) without any file of the repository changing."""
    from openwiki_git.evidence import treesitter

    grammar = treesitter.GRAMMARS.get(os.path.splitext(path)[1].lower())
    return ("tree_sitter", grammar[0]) if grammar is not None else ()


class Globs:
    """A glob's candidates: the index's regular files it matches, listed once per run. A set's
    members are those of them on disk (Repo.tracked_paths), so an entry holding a set keys the
    candidates (the index) and each one's presence, or its content for a set of lines."""

    def __init__(self, repo: Any) -> None:
        self.repo = repo
        self.index: list[str] | None = None
        self.matched: dict[str, tuple[str, ...]] = {}
        self.listed: frozenset[str] | None = None

    def on_disk(self, resolver: Any) -> frozenset[str]:
        """The members the judging ranged over (the resolver's tracked paths, listed once)."""
        if self.listed is None:
            self.listed = frozenset(resolver.tracked() if resolver.tracked is not None else ())
        return self.listed

    def candidates(self, glob: str) -> tuple[str, ...]:
        from openwiki_git.evidence.kinds import glob_matches

        got = self.matched.get(glob)
        if got is None:
            if self.index is None:
                self.index = self.repo.tracked_paths("index")
            got = self.matched[glob] = tuple(p for p in self.index if glob_matches(glob, p))
        return got


class PageKeys:
    """What one judged page's answer depends on: each cited file's key (`files`), each glob's
    candidates (`sets`) and, for a set of files, each candidate's presence (`members`: "present"
    or "missing"; a set of lines keys its candidates in `files`, content included). `stable`:
    every key could be taken (no symlink, racy or converted file, no set past MAX_MEMBERS)."""

    def __init__(self, ws: Any, root: str, resolver: Any, real_dirs: dict[str, str], started_ns: int, globs: Globs) -> None:
        self.ws, self.root, self.resolver, self.real_dirs, self.started_ns, self.globs = ws, root, resolver, real_dirs, started_ns, globs
        self.files: dict[str, FileKey] = {}
        self.sets: dict[str, tuple[str, ...]] = {}
        self.members: dict[str, str | None] = {}
        self.grammars: set[str] = set()  # the modules a definition is read through (tree-sitter's)
        self.stable = True

    def add(self, resource: str) -> None:
        from openwiki_git.evidence.kinds import MAX_MEMBERS

        path, glob, lines, definition = scope_of(resource)
        if path is not None:
            self._file(path)
        if definition and path is not None:
            self.grammars.update(grammar_modules(path))
        if glob is None:
            return
        candidates = self.sets.get(glob)
        if candidates is None:
            candidates = self.sets[glob] = self.globs.candidates(glob)
            self.stable = self.stable and len(candidates) <= MAX_MEMBERS
        for member in candidates:
            if lines:
                self._file(member)
            elif member not in self.members:
                self.members[member] = present = self._presence(member)
                self.stable = self.stable and present is not None

    def grammars_key(self) -> tuple[Any, ...] | None:
        return grammars_key(sorted(self.grammars)) if self.grammars else None

    def _file(self, path: str) -> None:
        if path not in self.files:
            self.files[path] = fk = file_key_after(self.ws, self.root, path, self.resolver, self.real_dirs, self.started_ns)
            self.stable = self.stable and fk is not None

    def _presence(self, path: str) -> str | None:
        """"present" (a regular file, as Repo.tracked_paths sees it), "missing", or None: neither
        for sure (a symlink, a directory in the way), or not what the judging saw (it changed
        during the run)."""
        seen = path in self.globs.on_disk(self.resolver)
        if file_key_now(self.root, path, self.real_dirs) is not None:
            return "present" if seen else None
        return "missing" if not seen and not os.path.lexists(os.path.join(self.root, path)) else None


def verbatim(ft: Any, size: int) -> bool:
    """Whether git's text of the file is its bytes on disk: no CRLF conversion (no CR at all) and
    valid UTF-8 (no replacement character), hence as many bytes as the file has. Only then do the
    results follow from the file's bytes alone, not from attributes that can change around it."""
    text = ft.text
    if text is None or ft.blob is None or "\r" in text or "\ufffd" in text:
        return False
    return len(text.encode("utf-8")) == size
