"""A sentence about an optional dependency being installed, grounded in the code that checks it.
Pure: the files come in through the index (index.py).

"If you have **Rich** installed, Typer will use it to show nicely printed errors" names no code
span, yet typer's `HAS_RICH = importlib.util.find_spec("rich") is not None` is what makes it true,
and the commit that made Rich a required dependency rewrote that line and 40 such sentences. The
code that decides whether a dependency is there is small and findable:

- a `try:` whose body imports the dependency, or imports a module of the package that imports it
  at its top level (uvicorn's `from uvicorn.supervisors.watchgodreload import ...`), with an
  `except ImportError` (or `ModuleNotFoundError`): the whole `try` statement (not when the
  handler imports it again from elsewhere: typer's `click.shell_completion` or `click.parser` is
  a shim for Click's versions);
- a call `find_spec("name")` (importlib's): the statement that makes it, or an `if`'s test.

A sentence is about such a dependency when it names it as a word (any case: `**Rich**`,
`[watchgod](https://...)`, `` `uvloop` ``) and says something of its presence: installed,
install, available, optional, or "don't have" / "can't use" right before its name (not "the flag
doesn't have effect on the `websockets` implementation"). Its claim cites those lines (up to
MAX_SITES of them), so a change to how the package finds the dependency marks it. A dependency
the code never checks is there because the packaging requires it: a sentence saying it is
installed cites the lines requiring it (installs.requirements: uvicorn's "`PyYAML` will be
installed to allow you to provide a `.yaml` file to `--log-config`" is true of `"PyYAML>=5.1",`
in its `standard` extra), so dropping the requirement marks it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from openwiki_git.evidence import definitions
from openwiki_git.ground import installs
from openwiki_git.ground.index import SECONDARY, SourceIndex

__all__ = ["Detection", "detections", "named"]

MAX_SITES = 3  # a dependency checked in more places than this is everywhere: no one place proves a sentence
MAX_LINES = 40  # a `try` longer than this holds more than the check
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}
_INSTALLING = re.compile(r"\b(?:install(?:ed|ing|s)?|dependenc(?:y|ies))\b", re.I)
_PRESENCE = re.compile(r"\b(?:install(?:ed|ing|s)?|available|optional(?:ly)?)\b", re.I)
# "If you don't have Rich", "if you can't use Rich": the name right after; not "doesn't have effect"
_LACKING = r"(?:n't|not)\s+(?:have|use)\s+[*_`\[]*"


@dataclass(frozen=True, slots=True)
class Detection:
    """Where the package decides whether the dependency `name` is installed, and the packaging
    lines requiring it: line ranges."""

    name: str
    resources: tuple[str, ...]  # the code checking it
    required: tuple[str, ...] = ()  # the packaging lines requiring it


def detections(index: SourceIndex) -> dict[str, Detection]:
    """Every optional dependency of the package (by its import name, lower case) and the lines
    that check it, and every distribution it requires (by its PEP 503 name) and the lines
    requiring it; computed once per index."""
    cached = index.mentions.get(("dependencies", ""))
    if isinstance(cached, dict):
        return cached
    sites: dict[str, list[tuple[str, int, int]]] = {}
    for path in index.paths:
        if not path.endswith(".py") or SECONDARY.search(path) or path.startswith(".") or "/." in path:
            continue
        text = index.text(path) or ""
        if not any(word in text for word in ("ImportError", "ModuleNotFoundError", "find_spec")):
            continue  # no check here: not parsed (ground reads every file of the package)
        tree = _parse(index, path)
        if tree is None:
            continue
        for name, start, end in _checks(index, path, tree):
            if end - start < MAX_LINES and (path, start, end) not in sites.get(name, []):
                sites.setdefault(name, []).append((path, start, end))
    found = {
        name: Detection(name, tuple(f"repo://{p}#L{s}-L{e}" for p, s, e in spots))
        for name, spots in sites.items() if len(spots) <= MAX_SITES
    }
    for name, lines in installs.requirements(index).items():  # what installs it: `"PyYAML>=5.1",` of the extra
        found[name] = Detection(name, found[name].resources if name in found else (), tuple(lines[:MAX_SITES]))
    index.mentions[("dependencies", "")] = found
    return found


def named(sentence: str, known: dict[str, Detection]) -> list[tuple[str, str]]:
    """(name, resource) of what proves the presence of each dependency `sentence` names as a word
    and says something of the presence of: the code checking it; for a dependency the code does
    not check, the packaging lines requiring it, when the sentence says it is installed or a
    dependency ("Only available for `h11`" is no sentence about installing h11). Not both: a
    requirement's line moves with every minimum version raised (typer's `"rich >=10.11.0"` became
    `>=12.3.0`, and would have marked nine sentences saying Rich is installed)."""
    if not known:
        return []
    lower = sentence.lower()
    presence = _PRESENCE.search(lower) is not None
    installing = _INSTALLING.search(lower) is not None
    return [
        (name, r) for name, d in sorted(known.items())
        if name in lower and re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w-])", lower)
        and (presence or re.search(_LACKING + re.escape(name), lower))
        for r in (d.resources or (d.required if installing else ()))
    ]


def _parse(index: SourceIndex, path: str) -> ast.Module | None:
    text = index.text(path)
    if not text or ("import" not in text and "find_spec" not in text):
        return None
    return definitions.parse_python(text, path)


def _checks(index: SourceIndex, path: str, tree: ast.Module) -> list[tuple[str, int, int]]:
    """(dependency, first line, last line) of each check in the file."""
    found: list[tuple[str, int, int]] = []
    own = _package_of(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            fallback = _imported_in([s for h in node.handlers for s in h.body], index, path, own)
            for name in _imported_in(node.body, index, path, own) - fallback:  # the same module again: a version shim
                found.append((name, node.lineno, node.end_lineno or node.lineno))
        elif isinstance(node, (ast.If, ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)):
            part = node.test if isinstance(node, ast.If) else node
            for call in (n for n in ast.walk(part) if isinstance(n, ast.Call)):
                checked = _find_spec_of(call)
                if checked is not None:
                    found.append((checked, node.lineno, part.end_lineno or node.lineno))
    return found


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type] if handler.type else []
    return any(isinstance(t, ast.Name) and t.id in _IMPORT_ERRORS for t in types)


def _imported_in(body: list[ast.stmt], index: SourceIndex, path: str, own: str) -> set[str]:
    """The third-party modules `body` imports (top-level names), directly or through a module of
    the package that imports them at its top level."""
    names: set[str] = set()
    for stmt in body:
        for module in _modules(stmt):
            top = module.split(".", 1)[0]
            if top == own:
                names |= _top_imports(index, _module_path(index, path, module), own)
            elif top and top not in _STDLIB:
                names.add(top.lower())
    return names


def _module_path(index: SourceIndex, path: str, module: str) -> str:
    """The file of the package's `module` (`uvicorn.supervisors.x`), under `src/` when the package is."""
    base = module.replace(".", "/")
    prefix = "src/" if path.startswith("src/") else ""
    for candidate in (f"{prefix}{base}.py", f"{prefix}{base}/__init__.py"):
        if candidate in index.path_set:
            return candidate
    return ""


def _modules(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.Import):
        return [a.name for a in stmt.names]
    if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
        return [stmt.module]
    return []


def _top_imports(index: SourceIndex, path: str, own: str) -> set[str]:
    """The third-party modules `path` (a module of the package) imports at its top level."""
    tree = _parse(index, path) if path else None
    if tree is None:
        return set()
    return {m.split(".", 1)[0].lower() for stmt in tree.body for m in _modules(stmt) if m.split(".", 1)[0] not in (own, "")} - _STDLIB


def _find_spec_of(call: ast.Call) -> str | None:
    """`find_spec("rich")` (importlib.util's, however imported): "rich"."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if called != "find_spec" or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and re.fullmatch(r"[A-Za-z_]\w*", arg.value):
        return arg.value.lower()
    return None


def _package_of(path: str) -> str:
    """The top-level package a file belongs to (`uvicorn` for uvicorn/supervisors/x.py; the
    folder under `src/`)."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return parts[0] if len(parts) > 1 else ""


_STDLIB = frozenset(getattr(__import__("sys"), "stdlib_module_names", ()))
