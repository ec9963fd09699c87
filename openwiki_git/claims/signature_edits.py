"""A signature's edits that are not code to every sentence: parameters added with defaults, and
existing parameters' defaults changed (compared through `ast`, diff/signatures.py), in a head, in a
whole definition whose body is otherwise the same (the new parameters at most handed on by keyword),
or in a cited line range that holds one `def` (an `@overload` declaration); and the one judgement of
a cited range's cosmetic edit that claims/freshness.py (check) and claims/staleness.py (the hook)
share. The reason names them, `cosmetic: parameters added (a, b), defaults changed (c)`, for
claims/relevance.py to weigh against the sentence. Pure.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from openwiki_git.claims.symbols import symbol_token
from openwiki_git.diff import cosmetic, requirements, signatures
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol
from openwiki_git.evidence.tokens import split_lines

PARAMETERS_ADDED, DEFAULTS_CHANGED = "parameters added", "defaults changed"  # a signature's, nothing else
DOCSTRING_ADDED, DOCSTRING_REWRITTEN = "docstring added", "docstring rewritten"  # a head's summary edited, its code not
DOCSTRING_EXTENDED = "docstring extended"  # words added to it, none taken out


def range_cosmetic(
    path: str, old_lines: Sequence[str], new_lines: Sequence[str], old_span: tuple[int, int], new_span: tuple[int, int], *,
    annotations: bool | None, parameters: bool | None,
) -> str | None:
    """Why a cited range's edit is cosmetic (`cosmetic: ...`: the same tokens, or a declaration's
    parameters added), or None: code changed. `annotations`, `parameters`: the config's
    `cosmetic_annotations` and `cosmetic_parameters_added`."""
    reason = cosmetic.compare(path, old_lines, new_lines, old_span=old_span, new_span=new_span, annotations=annotations is not False)
    if reason is None and parameters is not False:
        reason = lines_parameters_changed(path, old_lines, new_lines, old_span, new_span, annotations)
    if reason is None:
        moved = requirements.bounds_changed(path, old_lines, new_lines, old_span, new_span)
        reason = f"cosmetic: {requirements.VERSION_BOUNDS} ({', '.join(moved)})" if moved else None
    return reason


def head_parameters_changed(
    sym: Symbol, then: str, version: str, now: str, ext: definitions.Extent, setting: bool | None
) -> str | None:
    """A head whose only change is parameters added with defaults and existing parameters'
    defaults changed (signatures.parameters_changed, through `ast`; its summary's prose the same):
    the reason, `cosmetic: parameters added (a, b), defaults changed (c)`, which relevance.py weighs
    against the sentence. A whole definition's token covers its body too: whole_parameters_changed
    compares it. A summary added where there was none goes with them (`docstring added`: it marks
    nothing). Annotations are compared as written with `cosmetic_annotations: false`, not at all
    with `true`, and unset with `Annotated[T, ...]` read as T (typer's `Doc("...")` metadata)."""
    then_lines = split_lines(then)
    old = definitions.find(sym.path, then, sym.name)
    if old is None or symbol_token(sym, old, then_lines, version) != version:
        return None
    summary_then, summary_now = old.head_summary(then_lines), ext.head_summary(split_lines(now))
    if summary_then != summary_now and summary_then:  # rewritten: the sentence may have its words from it
        return None
    reason = _changed_with_annotations(sym.path, then, now, sym.name, setting)[0]
    if reason is not None and summary_then != summary_now:  # typer's `command` given a docstring with its `Doc(...)`s
        reason += f", {DOCSTRING_ADDED}"
    return reason


def _changed_with_annotations(
    path: str, then: str, now: str, name: str, setting: bool | None
) -> tuple[str | None, tuple[tuple[str, ...], tuple[str, ...]] | None]:
    """The parameters rule's reason and the parameters it found (added, defaults changed); with
    `cosmetic_annotations` unset, also when annotations changed beside the defaults (uvicorn's
    `run`: `ssl_version: int = int(SSL_PROTOCOL_VERSION)` becoming `= SSL_PROTOCOL_VERSION` in the
    commit that widened a dozen annotations), the annotations' types named as the annotation rule
    names them, for relevance.py to weigh both."""
    found = signatures.parameters_changed(path, then, now, name, annotations=setting)
    if found is not None or setting is not None:
        return _parameters_reason(found), found
    found = signatures.parameters_changed(path, then, now, name, annotations=True)
    reason = _parameters_reason(found)
    if reason is None:
        return None, None
    return reason.replace("cosmetic: ", f"cosmetic: annotations{_types_changed(then, now, name)}, ", 1), found


def _types_changed(then: str, now: str, name: str) -> str:
    """` (removed X; added Y)` of the existing parameters' annotations (and the return's), by
    cosmetic.types_changed; a new parameter's annotation is the parameters rule's."""
    old, new = signatures.annotations_of(then, name) or {}, signatures.annotations_of(now, name) or {}
    shared = sorted(set(old) & set(new))
    tokens = [[(site, re.findall(r"[\w.]+|'[^']*'|\"[^\"]*\"|\S", side[site])) for site in shared] for side in (old, new)]
    return cosmetic.types_changed(*tokens)


def whole_parameters_changed(
    sym: Symbol, then: str, version: str, now: str, ext: definitions.Extent, setting: bool | None
) -> str | None:
    """A whole definition whose signature only gained parameters with defaults or changed
    defaults (head_parameters_changed's rule), and whose body is the same but for the new
    parameters handed on by keyword (signatures.same_body): the same reason, for relevance.py to
    weigh. uvicorn's `run` gaining `h11_max_incomplete_event_size` and passing it to `Config`;
    typer's `command` given `Doc("...")` annotations, sentinel defaults and a docstring, its body
    the same (`docstring added`: it marks nothing). `ext`: the definition in `now`."""
    then_lines = split_lines(then)
    old = definitions.find(sym.path, then, sym.name)
    if old is None or symbol_token(sym, old, then_lines, version) != version:
        return None
    reason, found = _changed_with_annotations(sym.path, then, now, sym.name, setting)
    if reason is None or found is None or not signatures.same_body(sym.path, then, now, sym.name, found[0]):
        return None
    if not old.head_summary(then_lines) and ext.head_summary(split_lines(now)):  # same_body let a docstring added by
        reason += f", {DOCSTRING_ADDED}"
    elif old.docstring_proses(then_lines) != ext.docstring_proses(split_lines(now)):  # or one only extended
        reason += f", {DOCSTRING_EXTENDED}"
    return reason


def _parameters_reason(found: tuple[tuple[str, ...], tuple[str, ...]] | None) -> str | None:
    """`cosmetic: parameters added (a, b), defaults changed (c)`, or None."""
    if found is None:
        return None
    added, defaults = found
    parts = [f"{PARAMETERS_ADDED} ({', '.join(added)})" if added else "", f"{DEFAULTS_CHANGED} ({', '.join(defaults)})" if defaults else ""]
    return "cosmetic: " + ", ".join(filter(None, parts))


def lines_parameters_changed(
    path: str, old_lines: Sequence[str], new_lines: Sequence[str], old_span: tuple[int, int], new_span: tuple[int, int],
    setting: bool | None,
) -> str | None:
    """A cited line range that holds one whole `def` on both sides (an `@overload` declaration, which
    has no name of its own to cite its head by) whose only change is parameters added with defaults
    or defaults changed: the reason as a head's (`_parameters_changed`), for claims/relevance.py to
    weigh against the sentence; None else."""
    old = textwrap.dedent("".join(old_lines[old_span[0] - 1 : old_span[1]]))
    new = textwrap.dedent("".join(new_lines[new_span[0] - 1 : new_span[1]]))
    name = signatures.only_function(old)
    if name is None or name != signatures.only_function(new):
        return None
    return _parameters_reason(signatures.parameters_changed(path, old, new, name, annotations=setting))
