"""Names that are not definitions (a CLI flag, an environment variable, a config key, a string
constant) grounded in the lines of the project's code that mention them. Pure: the files come
in through the index (index.py).

A plain word no definition has is such a name only when the project's code imports a module of
that name (a dependency: `watchgod`, `shellingham`); `python` or `reset` in backticks is not.

The evidence is a set of lines (evidence/kinds.py's `?grep=`): every line of the package's code
that mentions the name, as the code writes it (a flag quoted, `"--reload"`, `"--use-colors/--no-use-colors"`;
a variable as a word, `os.environ["WEB_CONCURRENCY"]` and the help text naming `$WEB_CONCURRENCY`;
a key or a constant quoted). Its scope is the folder that holds those lines (`uvicorn/**/*.py`),
so a mention that moves to another module of the package stays in it. The claim is stale when
a line that mentions the name changes, comes or goes (its default, its help text, the code that
reads it), and unresolved when no line mentions it any more (claims/kinds.py): the code stopped
reading the variable the docs describe.

A name mentioned on more than MAX_LINES lines is too common to guard a sentence (every change
near it would mark it): it is left to the definition lookup (resolve.py).
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import GrepSet, check_query, glob_matches
from openwiki_git.ground.index import CODE_EXT, SECONDARY, SourceIndex

MAX_LINES = 8
_DECLARES = re.compile(r"(?:add_argument|option|Option|argument|Argument)$")  # a call that declares a flag
_CONFIG_EXT = (".json", ".toml", ".yml", ".yaml", ".cfg", ".ini")  # a key in a schema, a dependency in pyproject.toml


@dataclass(frozen=True, slots=True)
class LineSet:
    """The lines that mention one name: the evidence, and where they are (path, line number,
    text); for a flag declared by one call written over several lines (click's
    `@click.option("--limit-concurrency", type=int, help=...)`), that call's lines too, which
    hold what the flag does (its help, type and default), not only its name."""

    resource: str
    hits: tuple[tuple[str, int, str], ...]
    declaration: str | None = None


def query(kind: str, name: str) -> str:
    """The regular expression that finds `name` of `kind` as code writes it."""
    literal = re.escape(name).replace("\\-", "-")  # `-` outside a class is literal: `--reload`, not `\-\-reload`
    if kind == "flag":
        return rf"""["'/]{literal}(?![\w-])"""
    if kind == "env":
        return rf"\b{literal}\b"
    if kind == "word":  # a name the code uses but does not define (`watchgod`); not a docstring's ``name``
        return rf"(?<![\w`]){literal}(?![\w`])"
    if kind == "writes":  # an attribute assigned: `self.idle_for = 0.0`, `rs.idle_for += sleep`; not `==`;
        # first of a tuple of attributes: `self.outcome, self.outcome_timestamp = fut, ts` (not `f(self.x, y=1)`)
        return rf"\.{literal}(?:, ?\w{{1,40}}\.[\w.]{{1,80}})?\s*(?:[-+*/|&]|//)?=(?!=)"
    if kind == "exposes":  # an attribute set on a plain name's object, not self's: `wrapped_f.statistics = {}`
        return rf"^\s*(?!self\b)\w{{1,40}}\.{literal} ?=(?!=)"
    if kind == "uses":  # a class used in code: `raise X`, `except X`, `isinstance(e, X)`, `cls: type[X] = X`;
        # not its definition, an import, a comment or a string (`__all__`)
        return rf"""^(?!\s*(?:from|import|class)\s)[^#"']*(?<![\w.]){literal}\b"""
    if kind == "literal":  # `X-Forwarded-For` as the code writes it, b"x-forwarded-for"; not a docstring's ``x=y``
        return rf"(?i)(?<![\w`-]){literal}(?![\w`-])"
    return rf"""["']{literal}["']"""  # a config key or a string constant, quoted


def lineset(index: SourceIndex, kind: str, name: str) -> LineSet | None:
    """The lines of the package's code that mention `name`, as a set of lines; None when no line
    of the project's own code does, or more than MAX_LINES do. Each name is scanned for once."""
    key = (kind, name)
    if key not in index.mentions:
        index.mentions[key] = _lineset(index, kind, name)
    got = index.mentions[key]
    return got if isinstance(got, LineSet) else None


def _lineset(index: SourceIndex, kind: str, name: str) -> LineSet | None:
    if kind == "word" and not _imported(index, name):
        return None  # a plain word the code says (`python`, `reset`) is no dependency of it
    pattern = query(kind, name)
    compiled = check_query(pattern)
    hits: list[tuple[str, int, str]] = []
    for path in index.paths:
        if not _searched(path, kind):
            continue
        text = index.text(path)
        if not text or (name not in text if kind != "literal" else name.lower() not in text.lower()):
            continue  # a literal in any case: `X-Forwarded-For` finds b"x-forwarded-for"
        hits.extend((path, n, line) for n, line in enumerate(text.splitlines(), 1) if compiled.search(line))
    scope = _scope([p for p, _, _ in hits if not SECONDARY.search(p)])
    if scope is None:
        return None
    members = tuple(h for h in hits if glob_matches(scope, h[0]))
    if not members or len(members) > MAX_LINES:
        return None
    declared = [d for p, n, _ in members if kind == "flag" and p.endswith(".py") for d in [_call_around(index, p, n)] if d]
    declaration = declared[0] if len(declared) == 1 else None
    return LineSet(GrepSet(scope, pattern).canonical, members, declaration)


def _call_around(index: SourceIndex, path: str, line: int) -> str | None:
    """The lines of the innermost call declaring a flag (`add_argument(...)`, `click.option(...)`,
    `typer.Option(...)`) written over several lines that holds `line`, as a line range; None when
    there is none."""
    text = index.text(path)
    tree = definitions.parse_python(text or "", path)
    if tree is None:
        return None
    calls = [
        (n.lineno, n.end_lineno) for n in ast.walk(tree)
        if isinstance(n, ast.Call) and n.end_lineno is not None and n.lineno <= line <= n.end_lineno and n.end_lineno > n.lineno
        and _DECLARES.search(ast.unparse(n.func))
    ]
    if not calls:
        return None
    start, end = min(calls, key=lambda se: se[1] - se[0])
    return f"repo://{path}#L{start}-L{end}"


def _imported(index: SourceIndex, name: str) -> bool:
    """Whether the project's own code imports a module of that name (`import shellingham`,
    `from watchgod import watch`): a dependency, which a page may name and a change may drop."""
    line = re.compile(rf"^\s*(?:from\s+{re.escape(name)}(?:\.\w+)*\s+import|import\s+{re.escape(name)}(?:\.\w+)*(?:\s|,|$))", re.M)
    for path in index.paths:
        if path.endswith((".py", ".pyi")) and not SECONDARY.search(path):
            text = index.text(path)
            if text and name in text and line.search(text):
                return True
    return False


def _searched(path: str, kind: str) -> bool:
    """Whether `path` is code a name is looked for in: code files, not under a dot-folder (CI
    workflows, issue templates); a key or a constant in config files too (a schema, pyproject.toml),
    a word (a dependency's name) in the repository root's config files only."""
    if path.startswith(".") or "/." in path:
        return False
    if path.endswith(CODE_EXT):
        return True
    if not path.endswith(_CONFIG_EXT) or kind in ("flag", "env", "writes", "uses", "exposes"):
        return False
    return kind != "word" or "/" not in path


def _scope(paths: list[str]) -> str | None:
    """The glob over the folder holding `paths` (of one extension: `pkg/**/*.py`), or the one file;
    when they are in several top folders (or at the root and in folders), the top folder holding
    most of them: the package, not a setup script beside it."""
    if not paths:
        return None
    files = sorted(set(paths))
    groups: dict[str, list[str]] = {}
    for p in files:
        groups.setdefault(p.split("/", 1)[0] if "/" in p else "", []).append(p)
    if len(groups) > 1:
        top = max(sorted(g for g in groups if g), key=lambda g: len(groups[g]))
        files = groups[top]
    if len(files) == 1:
        return files[0]
    exts = {posixpath.splitext(p)[1] for p in files}
    ext = f"*{exts.pop()}" if len(exts) == 1 and exts != {""} else "*"
    if "/" not in files[0]:
        return ext  # root files alone: `*.py` matches the root's only
    common = posixpath.commonpath([posixpath.dirname(p) for p in files])
    return f"{common}/**/{ext}" if ext != "*" else f"{common}/**"
