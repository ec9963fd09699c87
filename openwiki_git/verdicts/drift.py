"""The cited text then and now, and trivial drift. Pure: files arrive as text, nothing is read here.

- `Source`: one evidence item with what was found for it, its current file and its text as last
  verified.
- `verified_text`: the cited text inside an older copy of the file, if it is exactly what was
  verified.
- `trivial_drift`: a claim whose cited text changed only in white space (or line endings, or
  comments and wrapping) needs no model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openwiki_git.evidence.relocation import relocate
from openwiki_git.evidence.resource import Resource, ResourceError, parse_resource
from openwiki_git.evidence.tokens import file_version, split_lines
from openwiki_git.model import ClaimResult, Evidence, EvidenceResult

TRIVIAL_MODES = ("whitespace", "line-endings", "off")


def verified_text(resource: str, text: str, version: str) -> str | None:
    """The cited text inside `text` (an older copy of the file) if it is exactly what was
    verified (its hash equals the stored version's), else None."""
    found = verified_at(resource, text, version)
    return found[0] if found is not None else None


def verified_at(resource: str, text: str, version: str) -> tuple[str, tuple[int, int] | None] | None:
    """(the cited text, its lines in `text`; None for a whole file) when `text` (an older copy of
    the file) holds exactly what was verified, else None."""
    try:
        res = parse_resource(resource, wiki_dir="\0")
    except ResourceError:
        return None
    if not res.is_range:
        return (text, None) if file_version(text) == version else None
    try:
        found = relocate(res, text, version)
    except ValueError:
        return None
    if found.status != "fresh" or found.content is None or found.resource is None:
        return None
    start, end = found.resource.start, found.resource.end
    return found.content, ((start, end) if start is not None and end is not None else None)


def normalize(text: str, mode: str) -> list[str]:
    """Lines compared by trivial-drift detection: `line-endings` ignores CR/LF and trailing
    blanks; `whitespace` also ignores indentation, runs of spaces and blank lines (never
    whether two tokens are separated)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if mode == "line-endings":
        out = [ln.rstrip() for ln in lines]
        while out and not out[-1]:
            out.pop()
        return out
    return [" ".join(ln.split()) for ln in lines if ln.strip()]


@dataclass(frozen=True, slots=True)
class Source:
    """One evidence item with what the adapter found for it."""

    evidence: Evidence
    result: EvidenceResult
    path: str | None  # the file to show now (None: nothing to show)
    text: str | None  # its current text
    old_text: str | None = None  # the cited text as last verified
    old_from: str | None = None  # where old_text was found ("blob 1a2b3c4d5e6f", "HEAD~2")
    named: bool = False  # a definition or a set (evidence/kinds.py): `text` is its text or members now
    old_file: str | None = None  # the file as verified, when known: the part's lines are numbered as they were
    old_span: tuple[int, int] | None = None  # a range's verified text in `old_file`
    file_text: str | None = None  # a definition's whole file now (`text` is then its text alone)

    @property
    def current_span(self) -> tuple[int, int] | None:
        """1-based inclusive lines of the cited text now (None: whole file or unknown)."""
        if self.named:
            return None
        res = parse_or_none(self.result.current_resource)
        if res is None or not res.is_range:
            return None
        return (res.start, res.end)  # type: ignore[return-value]

    @property
    def current_content(self) -> str | None:
        if self.named:
            return self.text
        if self.text is None or self.result.current_resource is None:
            return None
        res = parse_or_none(self.result.current_resource)
        if res is None:
            return None
        if not res.is_range:
            return self.text
        lines = split_lines(self.text)
        return "".join(lines[res.start - 1 : res.end])  # type: ignore[operator]


def parse_or_none(resource: str | None) -> Resource | None:
    """The resource parsed (any wiki directory), or None when absent or malformed."""
    if resource is None:
        return None
    try:
        return parse_resource(resource, wiki_dir="\0")
    except ResourceError:
        return None


def trivial_drift(result: ClaimResult, sources: Sequence[Source], mode: str) -> str | None:
    """Why the claim can be confirmed without a model, or None.

    Every evidence item must be found (none unresolved), and each changed one must equal its
    verified text after `normalize(mode)`. A marked claim whose text is back to exactly what was
    verified qualifies in every mode but "off". Claims that are merely due never qualify: they
    are due precisely because unchanged text is no proof.
    """
    if mode == "off" or result.status == "fresh":
        return None
    if any(s.result.status == "unresolved" or s.result.current_version is None for s in sources):
        return None
    changed = [s for s in sources if s.result.status != "fresh"]
    if not changed:
        return "the cited text is back to its verified version"
    cosmetic_reasons = []
    for s in changed:
        now = s.current_content
        if s.old_text is None or now is None:
            return None
        if normalize(s.old_text, mode) != normalize(now, mode):
            why = _cosmetic(s, now) if mode == "whitespace" else None
            if why is None:
                return None
            cosmetic_reasons.append(why)
    if cosmetic_reasons:
        return "; ".join(dict.fromkeys(cosmetic_reasons))
    return "only line endings changed" if mode == "line-endings" else "only white space changed"


def _cosmetic(s: Source, now: str) -> str | None:
    """cosmetic.compare on the verified and the current text (comments, wrapping), or None."""
    from openwiki_git.diff import cosmetic

    res = parse_or_none(s.result.current_resource)
    if res is None or s.old_text is None:
        return None
    return cosmetic.compare(res.path, split_lines(s.old_text), split_lines(now))
