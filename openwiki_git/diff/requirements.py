"""An edit of a packaging file's cited lines that only moves version bounds. Pure.

typer's `"rich >=10.11.0"` became `"rich >=12.3.0"`: every sentence saying Rich is installed, and
every `pip install typer` example, stays as true as it was, yet citing the requirement's line
marked them all. `bounds_changed` says when the lines of a packaging file (pyproject.toml,
setup.py, setup.cfg, requirements files, Pipfile) changed only in the version specifiers of the
requirements they hold: each line the same once every requirement in it is reduced to its name,
extras and environment marker. The reason names the distributions (`cosmetic: version bounds
(rich)`) and claims/relevance.py marks only a sentence that speaks of versions. A requirement
added, removed or renamed, an extra or a marker changed, or any other edit is code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

VERSION_BOUNDS = "version bounds"
PACKAGING = re.compile(r"(?:^|/)(?:pyproject\.toml|setup\.py|setup\.cfg|Pipfile|[^/]*requirements[^/]*\.(?:txt|in))$")
_QUOTED = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
_REQUIREMENT = re.compile(
    r"\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?P<extras>\[[^\]]*\])?"
    r"\s*(?P<spec>\(?\s*(?:(?:~=|===|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*,?\s*)+\)?)?"
    r"\s*(?P<marker>;.*)?"
)


def bounds_changed(
    path: str, old_lines: Sequence[str], new_lines: Sequence[str], old_span: tuple[int, int], new_span: tuple[int, int]
) -> list[str] | None:
    """The distributions whose version bounds alone changed in the cited lines (1-based inclusive
    spans of the whole file's lines), or None when anything else changed or nothing did."""
    if not PACKAGING.search(path):
        return None
    old = list(old_lines[old_span[0] - 1 : old_span[1]])
    new = list(new_lines[new_span[0] - 1 : new_span[1]])
    if len(old) != len(new) or old == new:
        return None
    quoted = not path.endswith((".txt", ".in", ".cfg"))
    moved: list[str] = []
    for a, b in zip(old, new, strict=True):
        if a == b:
            continue
        shape_a, bounds_a = _reduced(a, quoted)
        shape_b, bounds_b = _reduced(b, quoted)
        if shape_a != shape_b or len(bounds_a) != len(bounds_b):
            return None
        moved += [name for (name, was), (_, now) in zip(bounds_a, bounds_b, strict=True) if was != now]
    return sorted(set(moved)) or None


def _reduced(line: str, quoted: bool) -> tuple[str, list[tuple[str, str]]]:
    """The line with each requirement reduced to its name, extras and marker, and each one's
    (name, version specifier), in order. In a TOML or Python file a requirement is a quoted string;
    in a requirements file or setup.cfg it is the line (its comment aside)."""
    bounds: list[tuple[str, str]] = []

    def reduce(text: str) -> str:
        m = _REQUIREMENT.fullmatch(text)
        if m is None:
            return text
        name = re.sub(r"[-_.]+", "-", m.group("name")).lower()
        bounds.append((name, re.sub(r"\s+", "", m.group("spec") or "")))
        return f"{name}{m.group('extras') or ''}{m.group('marker') or ''}"

    if quoted:
        shape = _QUOTED.sub(lambda m: '"' + reduce(m.group(1) if m.group(1) is not None else m.group(2)) + '"', line)
    else:
        code, sep, comment = line.partition(" #")
        indent = code[: len(code) - len(code.lstrip())]
        shape = indent + reduce(code.strip()) + sep + comment
    return shape, bounds
