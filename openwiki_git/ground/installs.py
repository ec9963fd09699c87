"""A console example that installs the project (`pip install "typer-slim[standard]"`, `uv add
pkg`, `poetry add pkg`) grounded in the packaging lines that make it work: the line naming the
distribution (`name = "typer-slim"`; in pyproject.toml its whole table instead, when the table is
short) and, for each extra it asks for, the lines declaring that
extra (`standard = [...]` under `[project.optional-dependencies]`, or `"standard": [...]` in
setup.py's `extras_require`). When the project drops the extra (typer's commit making typer-slim
a shallow wrapper deleted `standard`), the lines go and the claim is flagged. Pure: the files come
in through the index.
"""

from __future__ import annotations

import re
import shlex

from openwiki_git.ground.index import SourceIndex

__all__ = ["dependency_lists", "installs", "requirements"]

PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg")
_INSTALLERS = {("pip", "install"), ("pip3", "install"), ("pipx", "install"), ("uv", "add"), ("poetry", "add")}
_NAME_LINE = re.compile(r"""\s*name\s*[=:]\s*["']?([A-Za-z0-9._-]+)["']?\s*,?\s*$""")  # `name = "typer-slim"`, `name="uvicorn",`
_SPEC = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[([A-Za-z0-9_,.\s-]+)\])?")


def installs(index: SourceIndex, command: str) -> dict[str, str]:
    """The packaging lines an install command relies on (resource -> what it is), when it installs
    a distribution the repository declares; {} else."""
    specs = _specs(command)
    if not specs:
        return {}
    cited: dict[str, str] = {}
    for name, extras in specs:
        for path in PACKAGING:
            text = index.text(path) if path in index.path_set else None
            if not text:
                continue
            lines = text.splitlines()
            named = [n for n, ln in enumerate(lines, 1) if _names(ln, name)]
            if not named:
                continue
            for n in named[:3]:
                spans = _declares(lines, n) if path == "pyproject.toml" else []
                for a, z in spans if any(a <= n <= z for a, z in spans) else [(n, n), *spans]:  # a short table holds its name
                    cited.setdefault(f"repo://{path}#L{a}-L{z}", name)
            for extra in extras:
                span = _extra(lines, extra, python=path.endswith(".py"))
                if span is not None:
                    cited.setdefault(f"repo://{path}#L{span[0]}-L{span[1]}", f"{name}[{extra}]")
    return cited


_LIST_START = re.compile(r"""^\s*["']?([\w.-]+)["']?\s*[=:]\s*\[""")  # `dependencies = [`, `"standard": [`, `install_requires=[`
_REQUIREMENT = re.compile(r"""^\s*["']([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;,@ ]|["'])""")


def requirements(index: SourceIndex) -> dict[str, list[str]]:
    """The distributions the project declares it requires, by PEP 503 name, each with the lines
    declaring it (`"PyYAML>=5.1",` in `[project.optional-dependencies] standard`, an item of
    setup.py's `install_requires` or of a list named like `extra_requirements`): what installs
    it. Only lines inside such a list: a keyword or a classifier is no requirement."""
    out: dict[str, list[str]] = {}
    own: set[str] = set()  # the project's own distributions (typer-cli requiring typer): packaging, not a dependency
    for path in PACKAGING:
        table, key, depth, extras, opened = "", "", 0, -99, 0
        for n, line in enumerate((index.text(path) or "").splitlines() if path in index.path_set else [], 1):
            named = _NAME_LINE.match(line)
            own |= {_norm(named.group(1))} if named else set()
            if depth == 0 and line.startswith("["):
                table = line
            extras = n if "extras_require" in line else extras  # setup.py's `extras_require={"standard": [`
            start = _LIST_START.match(line) if depth == 0 else None
            if start:  # a quoted key just after `extras_require={` is an extra's: `"standard": [`
                key, opened = start.group(1).lower(), (n if line.lstrip()[:1] in "\"'" else 0)
            listed = depth > 0 and ("depend" in key or "require" in key or "optional-dependencies" in table or 0 <= opened - extras < 10)
            m = _REQUIREMENT.match(line) if listed else None
            if m:
                out.setdefault(_norm(m.group(1)), []).append(f"repo://{path}#L{n}-L{n}")
            if start or depth > 0:
                depth = max(0, depth + line.count("[") - line.count("]"))
    return {name: lines for name, lines in out.items() if name not in own}


# "Its only internal required dependency is Click", "it also comes with extra standard dependencies:"
_DEPENDENCY_SET = re.compile(r"\b((?:(?:only|internal|required|optional|extra|standard|default)\s+){1,3})dependenc(?:y|ies)\b", re.I)


def dependency_lists(index: SourceIndex, sentence: str) -> dict[str, str]:
    """The lists of pyproject.toml a sentence about the project's own dependencies speaks of
    (resource -> what it is): `dependencies = [...]` of `[project]` for its required ones ("its
    only required dependency is Click"), the `[project.optional-dependencies]` table for its
    optional ones ("it also comes with extra standard dependencies"). A dependency added or
    dropped marks the sentence; a version bound moved does not (claims/relevance.py)."""
    said = [m.group(1).lower() for m in _DEPENDENCY_SET.finditer(sentence)]
    text = index.text("pyproject.toml") if said and "pyproject.toml" in index.path_set else None
    if not text:
        return {}
    lines = text.splitlines()
    cited: dict[str, str] = {}
    if any(re.search(r"optional|extra|standard", q) for q in said):
        header = next((n for n, ln in enumerate(lines, 1) if ln.strip() == "[project.optional-dependencies]"), 0)
        end = next((n - 1 for n in range(header + 1, len(lines) + 1) if lines[n - 1].startswith("[")), len(lines)) if header else 0
        while end > header and not lines[end - 1].strip():
            end -= 1
        if header:
            cited[f"repo://pyproject.toml#L{header}-L{end}"] = "optional-dependencies"
    if any(re.search(r"only|required", q) for q in said):  # not "internal" alone: a project's dev dependencies are "internal" too
        span = _project_list(lines, "dependencies")
        if span is not None:
            cited[f"repo://pyproject.toml#L{span[0]}-L{span[1]}"] = "dependencies"
    return cited


def _project_list(lines: list[str], key: str) -> tuple[int, int] | None:
    """The lines of `key = [...]` in pyproject.toml's `[project]` table."""
    table = ""
    for n, ln in enumerate(lines, 1):
        if ln.startswith("["):
            table = ln.strip()
        if table == "[project]" and re.match(rf"\s*{key}\s*=\s*\[", ln):
            return _list_at(lines, n)
    return None


def _list_at(lines: list[str], n: int) -> tuple[int, int] | None:
    """The lines of the list that opens on line `n`, to its closing bracket; None when it never closes."""
    depth = 0
    for m, rest in enumerate(lines[n - 1 :], n):
        depth += rest.count("[") - rest.count("]")
        if depth <= 0:
            return (n, m)
    return None


def _specs(command: str) -> list[tuple[str, tuple[str, ...]]]:
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    if words[:3] in (["python", "-m", "pip"], ["python3", "-m", "pip"]):
        words = ["pip", *words[3:]]
    if words[:2] == ["uv", "pip"]:
        words = ["pip", *words[2:]]
    if len(words) < 3 or (words[0], words[1]) not in _INSTALLERS:
        return []
    out = []
    for w in words[2:]:
        m = _SPEC.fullmatch(w.split(";", 1)[0].split("==", 1)[0].split(">=", 1)[0].strip())
        if w.startswith("-") or m is None:
            continue
        extras = tuple(e.strip() for e in (m.group(2) or "").split(",") if e.strip())
        out.append((m.group(1), extras))
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _names(line: str, name: str) -> bool:
    """`name = "typer-slim"` (pyproject.toml, setup.cfg) or `name="uvicorn",` (setup.py)."""
    m = _NAME_LINE.match(line)
    return m is not None and _norm(m.group(1)) == _norm(name)


SHORT_TABLE = 6  # lines: a distribution's table this short is cited whole (with the blank line ending it)
_PROJECT_TABLES = ("[project]", "[tool.poetry]")


def _declares(lines: list[str], named: int) -> list[tuple[int, int]]:
    """What installing the distribution named on line `named` of pyproject.toml brings, when its
    table is short: the whole table, to the blank line before the next one (typer's typer-slim
    table was its header and name; making typer-slim a shallow wrapper added its dependencies
    there, under `pip install typer-slim`). Not the project's own table, however short: its
    `version` moves with every release and its `dependencies` with every minimum version raised,
    which makes no install example false (typer's four such commits in 40 would have marked its
    ten `pip install typer` examples each time)."""
    header = next((n for n in range(named, 0, -1) if lines[n - 1].startswith("[")), 0)
    end = next((n - 1 for n in range(named + 1, len(lines) + 1) if lines[n - 1].startswith("[")), len(lines))
    if not header or lines[header - 1].strip() in _PROJECT_TABLES:
        return []  # the project's own table: its `version` moves with every release
    return [(header, end)] if end - header + 1 <= SHORT_TABLE else []


def _extra(lines: list[str], extra: str, *, python: bool) -> tuple[int, int] | None:
    """The lines declaring `extra`: `"standard": [` through its `]` in setup.py's `extras_require`
    (`python`), else `standard = [` through its `]` under a TOML optional-dependencies table (not
    another table's key of that name: typer's build tool has one)."""
    key = re.escape(extra)
    start = re.compile(rf"""\s*["']{key}["']\s*:\s*\[""" if python else rf"""\s*["']?{key}["']?\s*=\s*\[""")
    table = ""
    for n, ln in enumerate(lines, 1):
        if ln.startswith("["):
            table = ln
        if not start.match(ln) or (not python and "optional-dependencies" not in table):
            continue
        return _list_at(lines, n)
    return None
