"""A definition by name (`#Cart.add`, `#Cart:head`) judged: its token read the way it was
written, and where it went when it is gone. Pure: texts in, tokens and reasons out.

- `symbol_token`: a whole definition's token (`repo-def-v2`: its text, its docstrings as prose),
  a head's (`repo-head-v2`: its signature and docstring summary), or one verified before v2
  (`repo-def-v1`: a whole definition's text as it is; on a head, its signature and whole
  docstring), so an old token is still read the way it was written.
- `renamed` / `moved_hint`: a definition gone from its file, and exactly one definition with its
  verified text under another name in the same file (`renamed to X?`), else in another file of
  the same extension (`moved to path#Name?`, with the command that re-points the claim).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from openwiki_git.claims.diff_texts import DiffTexts
from openwiki_git.claims.outcomes import EvidenceOutcome
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import DEF_PREFIX, Symbol, def_v2_version, def_version, head_version
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.model import EvidenceResult, FileText
from openwiki_git.pages import citations

__all__ = [
    "Elsewhere",
    "before_v2",
    "diff_elsewhere",
    "extension",
    "for_claim",
    "head_v1",
    "moved_hint",
    "moved_target",
    "renamed",
    "same_body",
    "symbol_token",
    "tracked_elsewhere",
]

Reader = Callable[[str], FileText]
_Result = TypeVar("_Result", EvidenceResult, EvidenceOutcome)
Elsewhere = Callable[[str], Iterable[FileText]]  # a cited path -> the other files a definition may have moved to
MOVED_FILES = 2000  # files searched for a moved definition, at most (past it: no hint)
MOVED_BYTES = 16 * 1024 * 1024  # bytes of them read, at most (past it: no hint)


def head_v1(sym: Symbol, version: str) -> bool:
    """A head verified before `repo-head-v2`: its token covers the whole docstring."""
    return sym.head and version.startswith(DEF_PREFIX)


def before_v2(version: str) -> bool:
    """A token written before `repo-def-v2`/`repo-head-v2` (a whole definition's text as it is, a
    head's whole docstring): read so until it is confirmed again."""
    return version.startswith(DEF_PREFIX)


def symbol_token(sym: Symbol, ext: definitions.Extent, lines: list[str], version: str, rename: tuple[str, str] | None = None) -> str:
    """The token of the definition (or its head) in `lines`, read the way `version` was written:
    a whole definition's text with its docstrings as prose (`repo-def-v2`), a head's signature
    and docstring summary (`repo-head-v2`), for any `version` but `repo-def-v1` ("" for a new
    claim); with `repo-def-v1`, a whole definition's text as it is, a head's signature and whole
    docstring. `rename`: (new, old) name, the first occurrence of new put back to old (a renamed
    definition recognised)."""

    def named(text: str) -> str:
        return text.replace(rename[0], rename[1], 1) if rename else text

    if not sym.head:
        return def_version(named(ext.text(lines))) if before_v2(version) else def_v2_version(named(ext.whole_token_text(lines)))
    if head_v1(sym, version):
        return def_version(named(ext.text(lines, head=True, v1=True)))
    return head_version(named(ext.head_token_text(lines)))


def renamed(sym: Symbol, text: str, version: str) -> str:
    """`; renamed to X?` when exactly one definition of the file has the verified text with its
    own name in place of the old one."""
    same = [name for name in same_body(sym, sym.path, text, version) if name != sym.name]
    return f"; renamed to `{same[0]}`?" if len(same) == 1 else ""


@functools.lru_cache(maxsize=512)
def _parsed(path: str, text: str) -> tuple[tuple[definitions.Extent, ...], list[str]]:
    """A file's definitions and lines, kept for the last files read: a check with several gone
    definitions searches the same files for each (14 of them over this repository's 311 Python
    files took 5 s more than none without it)."""
    return tuple(definitions.definitions(path, text)), split_lines(text)


def same_body(sym: Symbol, path: str, text: str, version: str) -> list[str]:
    """The definitions of `text` whose text is the verified one, their own name read as the old."""
    old_last = sym.name.rsplit(".", 1)[-1]
    extents, lines = _parsed(path, text)
    found = []
    for ext in extents:
        new_last = ext.name.rsplit(".", 1)[-1]
        if symbol_token(sym, ext, lines, version, (new_last, old_last) if new_last != old_last else None) == version:
            found.append(ext.name)
    return found


def moved_hint(sym: Symbol, version: str, elsewhere: Elsewhere | None) -> str:
    """`; moved to `src/b.py#Cart.add`? ...` when exactly one definition in another file has the
    verified text (under its name or another: a definition moved to another module), with the
    command that re-points the claim. Computed only for a definition that is gone, and bounded:
    only files with the cited file's extension (the same parser; `elsewhere` gives those),
    at most MOVED_FILES files and MOVED_BYTES bytes (past either: no hint, never a guess)."""
    if elsewhere is None or definitions.unsupported(sym.path) is not None:
        return ""
    found: list[tuple[str, str]] = []
    read_bytes = 0
    for n, ft in enumerate(elsewhere(sym.path)):
        if ft.text is None or ft.path == sym.path:
            continue
        read_bytes += len(ft.text)
        if n >= MOVED_FILES or read_bytes > MOVED_BYTES:
            return ""
        found.extend((ft.path, name) for name in same_body(sym, ft.path, ft.text, version))
        if len(found) > 1:
            return ""
    if len(found) != 1:
        return ""
    target = Symbol(found[0][0], found[0][1], sym.head).canonical
    return f"; moved to `{found[0][0]}#{found[0][1]}`? {_UNNAMED}{target}` re-points it"


_MOVED = re.compile(r"`claim edit \S+(?: --evidence \S+)* --evidence (\S+)` re-points it")  # the last: the target
_UNNAMED = "`claim edit ID --evidence "


def for_claim(result: _Result, claim_id: str, evidence: Sequence[str] = ()) -> _Result:
    """An unresolved result with the claim's label (`c-1a2b3c4d`, which `claim edit` takes) in
    `moved_hint`'s command, so that it runs as printed, and the claim's other `evidence` before
    the new target: `claim edit` replaces the whole list, and the others must stay. The hint is
    computed per evidence item, which several claims may share (the resolver caches its results
    per item): the claim's judge (check_claim, the hook's) puts its id and evidence in."""
    if result.status != "unresolved" or _UNNAMED not in result.reason:
        return result
    cited = result.resource if isinstance(result, EvidenceResult) else result.before.resource
    others = "".join(f" --evidence {r}" for r in evidence if r != cited)
    command = f"`claim edit {citations.label(claim_id)}{others} --evidence "
    return dataclasses.replace(result, reason=result.reason.replace(_UNNAMED, command))


def moved_target(reason: str) -> str | None:
    """The resource `moved_hint` suggests in a reason (`review` offers it as the new evidence)."""
    m = _MOVED.search(reason)
    return m.group(1) if m else None


def extension(path: str) -> str:
    """`.py` of `src/a.py` ("" without one): the files a moved definition is looked for in."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


def tracked_elsewhere(tracked: Callable[[], Sequence[str]], read: Reader) -> Elsewhere:
    """The tracked files with the cited file's extension (`check`, `claim show`: any file may be
    where a definition went), read lazily, one at a time."""

    def files(path: str) -> Iterator[FileText]:
        ext = extension(path)
        return (read(p) for p in tracked() if p != path and extension(p) == ext)

    return files


def diff_elsewhere(sides: DiffTexts) -> Elsewhere:
    """The diff's added, modified or renamed files with the cited file's extension, new side (the
    hook, `check --base`: a definition moved in this diff went to a file the diff touches)."""

    def files(path: str) -> Iterator[FileText]:
        ext = extension(path)
        for c in sides.changes:
            if c.new_path is not None and c.status != "deleted" and c.new_path != path and extension(c.new_path) == ext:
                yield sides.new_file(c.new_path)[0]

    return files
