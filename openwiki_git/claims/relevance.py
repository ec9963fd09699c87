"""Whether a cosmetic edit of cited code still marks a claim: what its sentence says decides. Pure.

The cosmetic rules (diff/cosmetic.py, and signatures.py for parameters added) say what an edit
did and name it in the reason (`cosmetic: comments`, `cosmetic: annotations (removed int; added
str)`); `marks` says whether that edit matters to the claim's sentence. It is the one rule every
route asks, per evidence item: the hook and `check --base` (claims/staleness.py, through
claims/kinds.py's `marks` predicate) and `check` (claims/freshness.py's check_claim, through
`result`), so they agree by construction.

- `cosmetic_edits: mark`: every cosmetic edit marks (the claim is stale with the cosmetic reason,
  for the refresher to confirm).
- An annotation-only edit, by default (`cosmetic_annotations` unset): it marks a claim only when
  the sentence names a type the edit added or removed (`int` becoming `str` marks "the port is an
  int"; `typing.Callable[P, typing.Any]` becoming `Callable[P, Any]` names no new type and marks
  nothing). `cosmetic_annotations: true` never marks for annotations; `false` makes them code, as
  before, so the edit is not cosmetic at all and the claim is stale whatever its sentence says.
- A docstring edited, the code the same or cosmetically so (claims/docstring_edits.py says how):
  added where there was none, or extended (words added, none taken out), it marks nothing (the
  code says what it said); rewritten, it marks a sentence that has two of the words it took out
  (one, when it took out one; the reason lists them: `docstring rewritten (identical, attr.ib, ...)`;
  a role's markup, `{func}` before a code span, is no word on either side),
  which may have been repeated from it, but not a sentence that has none, nor a code example's
  claim: an example runs the code, not its docstring. (Measured on attrs' docstring transplant:
  45 flags in one commit became 2; the window's one catch, a sentence upstream reworded in the same
  commit, was one of the 43.)
- A packaging file's cited lines whose only change is the version bounds of the requirements
  they hold (diff/requirements.py: `"rich >=10.11.0"` becoming `"rich >=12.3.0"`) mark a sentence
  that speaks of versions (a version number, "version", a bound, "at least", "newer"), not one
  saying Rich is installed nor a `pip install typer` example.
- A head's signature whose only change is parameters added with defaults or existing defaults
  changed (`cosmetic_parameters_added` unset, the default): it marks a sentence that names one of
  those parameters, a sentence about defaults when a default changed, and, when a default changed,
  the claim of a code example that shows its output (a `pycon` session, a console), not of one that
  shows code; `true` never marks for added parameters, `false` makes any signature
  change code (the claim is stale whatever its sentence says).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from openwiki_git.claims import docstring_edits, kinds
from openwiki_git.diff import cosmetic, requirements
from openwiki_git.model import EvidenceResult
from openwiki_git.pages import examples as page_examples

__all__ = ["marks", "names_type", "result"]

# How prose names a builtin or an abstract type (compared without case; plurals included).
_WORDS = {
    "str": ("str", "string", "strings"),
    "int": ("int", "ints", "integer", "integers"),
    "float": ("float", "floats", "floating"),
    "bool": ("bool", "bools", "boolean", "booleans"),
    "bytes": ("bytes", "bytestring", "bytestrings"),
    "bytearray": ("bytearray",),
    "list": ("list", "lists"),
    "tuple": ("tuple", "tuples"),
    "dict": ("dict", "dicts", "dictionary", "dictionaries"),
    "set": ("set", "sets"),
    "frozenset": ("frozenset", "frozensets"),
    "type": ("type", "types"),
    "Callable": ("callable", "callables"),
    "Iterable": ("iterable", "iterables"),
    "Iterator": ("iterator", "iterators"),
    "Sequence": ("sequence", "sequences"),
    "Mapping": ("mapping", "mappings"),
    "Awaitable": ("awaitable", "awaitables"),
    "Coroutine": ("coroutine", "coroutines"),
    "Generator": ("generator", "generators"),
    "AsyncIterator": ("async iterator", "asynchronous iterator"),
    "Path": ("path", "paths"),
}
_EDGE = r"(?<![A-Za-z0-9_])({})(?![A-Za-z0-9_])"


def names_type(statement: str, types: Iterable[str]) -> bool:
    """Whether the sentence names one of `types`: a builtin or an abstract type by its usual words
    ("an int", "a string", "a callable"), any other by its name as written (`Cart`, `None`, `Any`).
    One-letter names (type variables) are never counted."""
    for name in types:
        if len(name) < 2:
            continue
        words = _WORDS.get(name)
        if words is not None:
            if re.search(_EDGE.format("|".join(re.escape(w) for w in words)), statement, re.IGNORECASE):
                return True
        elif re.search(_EDGE.format(re.escape(name)), statement):
            return True
    return False


def marks(statement: str, reason: str, *, edits: str, annotations: bool | None, parameters: bool | None = None) -> bool:
    """Whether a cosmetic edit (its `reason`, `cosmetic: ...`) still marks the claim stating
    `statement`; `edits`, `annotations`, `parameters`: the config's `cosmetic_edits`,
    `cosmetic_annotations` and `cosmetic_parameters_added` (None when unset). Any other reason is
    not this rule's: False."""
    if not reason.startswith("cosmetic:"):
        return False
    if edits == "mark":
        return True
    if requirements.VERSION_BOUNDS in reason and _VERSIONS.search(statement):
        return True
    example = page_examples.is_statement(statement)
    if kinds.DOCSTRING_REWRITTEN in reason and not example and _took_words(statement, _named_in(reason, kinds.DOCSTRING_REWRITTEN)):
        return True
    if _parameters(statement, reason, example=page_examples.shows_output(statement), added_too=parameters is None):
        return True
    if annotations is None:
        types = cosmetic.annotation_types(reason)
        return types is not None and names_type(statement, types)
    return False


def _parameters(statement: str, reason: str, *, example: bool, added_too: bool) -> bool:
    """A signature whose only change is parameters added with defaults or defaults changed marks a
    sentence that names one of them (`` `limit` ``, "the limit", "the chunk size" for
    `chunk_size`) or speaks of defaults; a changed default marks the claim of a code example that
    shows its output too (a session's or a console's output may follow the default), not one that
    shows code (`uvicorn.run(app, port=5000)` runs as written whatever `log_config` defaults to), and
    an added parameter marks no example (its call runs as before).
    `added_too`: whether added parameters are weighed at all (`cosmetic_parameters_added` unset;
    `true` never marks for them)."""
    names = list(_named_in(reason, kinds.DEFAULTS_CHANGED))
    if names and (example or _DEFAULT.search(statement)):
        return True
    if added_too:
        names += _named_in(reason, kinds.PARAMETERS_ADDED)
    return any(_names_parameter(statement, n) for n in names)


def _took_words(statement: str, gone: list[str]) -> bool:
    """Whether a sentence may have taken its words from a docstring a rewrite took them out of: it
    has two of the words the rewrite removed (one when the rewrite removed no more than two), or
    the reason lists none (the rewrite is not known word by word: it marks)."""
    if not gone:
        return True
    said = set(docstring_edits.words(statement))
    return sum(1 for w in gone if w in said) >= min(2, len(gone))


_DEFAULT = re.compile(r"\bdefaults?\b|\bby default\b", re.IGNORECASE)
# A sentence that speaks of versions: a version bound moved under it may make it false.
_VERSIONS = re.compile(r"\d+\.\d+|\bversions?\b|[<>~=!]=|\bat least\b|\bminimum\b|\bnewer\b|\bolder\b|\bupgrad|\bpinn?(?:ed|ing)?\b", re.I)


def _named_in(reason: str, what: str) -> list[str]:
    """The names a reason lists after `what`: `parameters added (a, b)` -> [a, b]."""
    m = re.search(re.escape(what) + r" \(([^)]*)\)", reason)
    return [n.strip() for n in m.group(1).split(",")] if m else []


def _names_parameter(statement: str, name: str) -> bool:
    """Whether the sentence names a parameter: as written (`chunk_size`, `--chunk-size`), in words
    ("chunk size"), or its last word inflected ("verifies" for `verify`, "timeouts")."""
    words = [w for w in name.strip("_").split("_") if w]
    if not words:
        return False
    stem = words[-1][:-1] if len(words[-1]) > 4 else words[-1]
    spelled = r"[\s_-]+".join([*(re.escape(w) for w in words[:-1]), re.escape(stem) + r"[a-z]{0,4}"])
    return re.search(_EDGE.format(spelled), statement, re.IGNORECASE) is not None


def result(
    statement: str, r: EvidenceResult, *, edits: str, annotations: bool | None, parameters: bool | None = None
) -> EvidenceResult:
    """`r`, one evidence item as `check` found it, for the claim stating `statement`: a fresh
    cosmetic edit that `marks` is stale (its token and place as found, the reason kept)."""
    if r.status != "fresh" or not marks(statement, r.reason, edits=edits, annotations=annotations, parameters=parameters):
        return r
    return EvidenceResult(r.resource, "stale", r.current_resource, r.reason, r.current_version, r.blob, r.hunk)
