"""Resolving a page's code references against the repository's definitions (index.py's
`SourceIndex`). Pure: the files come in through a reader; nothing here touches the file system,
git or the clock.

- Symbols: modules (`pkg.mod`), classes, functions, methods, module and class attributes, as
  the index knows them (Python through `ast`, other languages through tree-sitter).
- Paths: the tracked file, cited by its first line (the claim is that the file exists and starts
  so; it goes unresolved when the file goes, and does not go stale on every edit of the file).
- Names that are no definitions (CLI flags, environment variables, config keys, string
  constants): the lines of the package's code that mention them, as a set of lines (names.py);
  else, as before, the one line that defines them (a quoted `"--flag"` in an add_argument/option
  call, a quoted name next to `environ`/`getenv`, a config class's field or a quoted key in a
  config module).
- Plain identifiers (`total`): the one definition of the project's own code with that name.

Every outcome is one of: resolved (exactly one definition), ambiguous (several, listed, never
picked), broken (the reference names something of this project that does not exist) and unknown
(not recognisably this project's: stdlib, other tools, a tutorial's own names).

One cohesive thing: every kind of reference goes through the same outcomes, and the kinds defer
to one another (a variable's name tried as a constant first, a key as a config field, a symbol
as a member of a class or a method of the reader's object), so the rules live side by side.
"""

from __future__ import annotations

import builtins
import posixpath
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from keyword import iskeyword

from openwiki_git.ground.index import SECONDARY, Definition, SourceIndex
from openwiki_git.ground.names import LineSet, lineset
from openwiki_git.ground.refs import Ref

RESOLVED, AMBIGUOUS, BROKEN, UNKNOWN = "resolved", "ambiguous", "broken", "unknown"
_FLAG_DEF = re.compile(r"add_argument|add_option|option\(|Option\(|argument\(|flag|Flag\(|\.arg\(|long\s*=")
_CONFIG_PATH = re.compile(r"config|settings|schema|options", re.IGNORECASE)
_BUILTINS = set(dir(builtins)) | set(sys.stdlib_module_names) | {"self", "cls", "typing", "pytest", "np", "pd"}


@dataclass(frozen=True, slots=True)
class Resolution:
    ref: Ref
    outcome: str
    target: Definition | None = None
    candidates: tuple[str, ...] = ()  # resources of an ambiguous reference
    reason: str = ""
    lineset: LineSet | None = None  # a name that is no definition: the lines that mention it (names.py)


def _primary(defs: list[Definition]) -> list[Definition]:
    """Definitions in the project's own code win over tests', docs' and examples' ones."""
    main = [d for d in defs if not SECONDARY.search(d.path)]
    return main or defs


# A role names the kind of what it names: `:func:`pkg.retry`` is never the module pkg/retry.py.
_ROLE_KINDS = {"func": "function method class", "meth": "method function", "class": "class", "exc": "class", "mod": "module"}


def _one(ref: Ref, defs: list[Definition], what: str) -> Resolution:
    defs = _primary(defs)
    kinds = _ROLE_KINDS.get(ref.role or "", "").split()
    defs = [d for d in defs if d.kind in kinds] if len(defs) > 1 and any(d.kind in kinds for d in defs) else defs
    if len(defs) == 1:
        return Resolution(ref, RESOLVED, defs[0], reason=what)
    return Resolution(ref, AMBIGUOUS, candidates=tuple(sorted(d.resource for d in defs)), reason=f"{len(defs)} definitions")


def _line_def(path: str, line: int, what: str) -> Definition:
    return Definition(what, path, line, line, "line")


def resolve(ref: Ref, index: SourceIndex, *, page_repo_path: str, local_names: frozenset[str] = frozenset()) -> Resolution:
    """One reference's outcome."""
    if ref.kind == "path":
        return _resolve_path(ref, index, page_repo_path)
    index.build()
    if ref.kind == "flag":
        return _mentioned(ref, index) or _resolve_flag(ref, index)
    if ref.kind == "setting":
        return _setting(ref, index) or Resolution(ref, UNKNOWN, reason="no configuration file of the project sets it")
    if ref.kind in ("string", "literal"):
        return _mentioned(ref, index) or Resolution(ref, UNKNOWN, reason="no line of the project's code has it")
    if ref.kind == "env":
        got = _resolve_symbol(ref, index, local_names, quiet=True)  # a constant of the project (`MAX_SIZE`)
        return got if got.outcome in (RESOLVED, AMBIGUOUS) else _mentioned(ref, index) or _resolve_env(ref, index)
    if ref.kind == "key":
        got = _resolve_symbol(ref, index, local_names, quiet=True)
        if got.outcome in (RESOLVED, AMBIGUOUS):
            return got
        got = _mentioned(ref, index) or _resolve_key(ref, index)
        return got if got.outcome != UNKNOWN else _unheard_of(ref, index, local_names)
    return _resolve_symbol(ref, index, local_names)


def _mentioned(ref: Ref, index: SourceIndex, kind: str | None = None) -> Resolution | None:
    """A name that is no definition, grounded in the lines of the package that mention it."""
    found = lineset(index, kind or ref.kind, ref.name)
    if found is None:
        return None
    path, line, _ = found.hits[0]
    return Resolution(ref, RESOLVED, _line_def(path, line, ref.name), reason=f"mentioned on {len(found.hits)} line(s)", lineset=found)


def _resolve_symbol(ref: Ref, index: SourceIndex, local_names: frozenset[str], *, quiet: bool = False) -> Resolution:
    name = ref.name
    parts = name.split(".")
    if parts[0] in local_names and parts[0] not in index.roots:
        return Resolution(ref, UNKNOWN, reason="defined by the page's own example")
    if len(parts) == 1 and name.startswith("__") and name.endswith("__"):
        return Resolution(ref, UNKNOWN, reason="a protocol name (every class may define it)")
    if parts[0] in sys.stdlib_module_names and parts[0] not in index.roots:
        return Resolution(ref, UNKNOWN, reason="the standard library's")
    exact = index.expand(name)
    if len(parts) == 1:  # a bare name never means a test's, a script's or a benchmark's module
        exact = [d for d in exact if not SECONDARY.search(d.path)]
        if exact and all(d.kind == "module" and d.qualname in index.roots for d in exact):
            return Resolution(ref, UNKNOWN, reason="the project's own name")  # "each `uvicorn` process": no module's first line
    if len(exact) > 1 and ref.called:
        # `pkg.retry(...)`: the function pkg/__init__.py defines is the package's attribute, which
        # shadows its submodule pkg/retry.py (a module is never called)
        exact = [d for d in exact if d.kind != "module"] or exact
    if exact:
        return _one(ref, exact, "definition")
    if len(parts) == 1:
        return _resolve_bare(ref, index, local_names, quiet=quiet)
    found = [d for d in index.suffix(name) if d.kind != "module"]
    if not found:  # `MutableHeaders._list`: the class named, its member inherited
        classes = _primary([d for d in index.suffix(parts[0]) if d.kind == "class"]) if parts[0] not in _BUILTINS else []
        if len(classes) == 1:
            found = index.expand(".".join([classes[0].qualname, *parts[1:]]))
    if found:
        return _one(ref, found, "definition")
    if quiet or parts[0] not in index.roots:
        return Resolution(ref, UNKNOWN)
    return _missing_member(ref, index, parts)


def through_receiver(ref: Ref, index: SourceIndex, classes: list[Definition], page: Sequence[Definition] = ()) -> Resolution | None:
    """`@app.command()`, `runner.invoke()`: a method called on an object, written through the
    reader's name for it (a lower-case name that is none of the project's modules and no name
    its modules import: `click.echo()` is click's). The member of a class the sentence or its
    section names (`classes`); else the one method of that name in the project's own code, or of
    several the one whose class the page names somewhere (`page`: typer's testing page names
    `CliRunner` sections before `runner.invoke()`); else ambiguous, listed. None when the
    reference is no such call (the caller keeps its outcome)."""
    receiver, _, member = ref.name.partition(".")
    if (
        not ref.called or not member or "." in member or ref.role is not None or not receiver[:1].islower()
        or receiver in _BUILTINS or receiver in index.roots or receiver in index.imported() or member.startswith("_")
    ):
        return None
    members = {(d.path, d.start): d for c in classes for d in index.expand(f"{c.qualname}.{member}") if d.kind == "method"}
    if len(members) == 1:
        return Resolution(ref, RESOLVED, next(iter(members.values())), reason="a method of the class the sentence names")
    methods = [
        d for q in index.by_last.get(member, []) for d in index.defs[q]
        if d.kind == "method" and not SECONDARY.search(d.path) and not q.rsplit(".", 2)[-2].startswith("_")
    ]
    named = {c.qualname for c in page}
    on_page = [d for d in methods if d.qualname.rpartition(".")[0] in named]
    if len(methods) == 1 or len(on_page) == 1:
        return Resolution(ref, RESOLVED, (on_page or methods)[0], reason="the one method of the name")
    if 1 < len(methods) <= PLAIN_AMBIGUOUS:
        return Resolution(ref, AMBIGUOUS, candidates=tuple(sorted(d.resource for d in methods)), reason=f"{len(methods)} methods")
    return None


def _resolve_bare(ref: Ref, index: SourceIndex, local_names: frozenset[str], *, quiet: bool) -> Resolution:
    """A bare name is cited only to a public definition of the project's own code: never a test
    helper, never a method (`bind()` of which class?) unless written as a call."""
    name = ref.name
    if _plain(ref) and any(_EXAMPLES.search(d.path) for d in index.suffix(name)):
        return Resolution(ref, UNKNOWN, reason="the docs' example code defines it too")  # a tutorial's `main`
    if _plain(ref) and name not in _BUILTINS and name not in local_names and not _stdlib_name(name):
        return _plain_identifier(ref, index)
    allowed = _bare_kinds(ref)
    found = [
        d for d in index.suffix(name)
        if d.kind in allowed and not SECONDARY.search(d.path) and (d.toplevel or d.kind in ("method", "class") and "method" in allowed)
    ]
    if found:
        return _one(ref, found, "definition")
    if quiet:
        return Resolution(ref, UNKNOWN, reason="not this project's")
    return _unheard_of(ref, index, local_names)


PLAIN_AMBIGUOUS = 5  # a plain word more definitions have is too common a name to list as ambiguous
_EXAMPLES = re.compile(r"(?:^|/)(?:docs?(?:_src)?|examples?)/")  # the docs' own example code


def _plain(ref: Ref) -> bool:
    """A plain identifier: one lower-case word (`total`, `get`), written without parentheses or a
    role, not a keyword of Python's (`yield`)."""
    name = ref.name
    return name.isidentifier() and name.islower() and "_" not in name and not ref.called and ref.role is None and not iskeyword(name)


def _plain_identifier(ref: Ref, index: SourceIndex) -> Resolution:
    """Cited when exactly one definition of the project's own code has the name (a function, a
    class, a module-level variable); a few: ambiguous; none or many: not decidable. A method's or
    an attribute's name is not counted: a plain word in backticks that is one is most often a
    value the page talks about (`stale`, `default`), not that member."""
    if _command(index, ref.name):
        return Resolution(ref, UNKNOWN, reason="a command's name (`ground`): the command, not a function of its name")
    every = [d for d in index.suffix(ref.name) if d.kind != "module" and not SECONDARY.search(d.path)]
    found = [d for d in every if d.kind in ("function", "class") or d.kind == "variable" and d.toplevel]
    if len(found) == 1:
        return Resolution(ref, RESOLVED, found[0], reason="the one definition of the name")
    listed = found or every  # members only: several are listed, one is not guessed
    if 1 < len(listed) <= PLAIN_AMBIGUOUS:
        return Resolution(ref, AMBIGUOUS, candidates=tuple(sorted(d.resource for d in listed)), reason=f"{len(listed)} definitions")
    if not every:  # no definition, but the code may use the name (`watchgod`, a module it imports)
        return _mentioned(ref, index, "word") or Resolution(ref, UNKNOWN, reason="a plain word")
    return Resolution(ref, UNKNOWN, reason=f"a member's name, or a common one ({len(every)} definitions)")


def _command(index: SourceIndex, name: str) -> bool:
    """Whether the project declares a command of that name (`add_parser("ground", ...)`,
    `@app.command("ground")`): a page naming it names the command."""
    declared = re.compile(rf"""(?:add_parser|command)\(\s*(?:name\s*=\s*)?["']{re.escape(name)}["']""")
    return any(
        declared.search(text) for p in index.paths
        if p.endswith(".py") and not SECONDARY.search(p) and (text := index.text(p)) and name in text
    )


# snake_case words, each starting with a letter (`remove_item`); `adr_0032` or `v1_2` name an
# identifier or a version, not a function.
_SNAKE_WORDS = re.compile(r"_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z][A-Za-z0-9]*)+_*")


def _unheard_of(ref: Ref, index: SourceIndex, local_names: frozenset[str]) -> Resolution:
    """A bare name no definition has: broken when it is recognisably an identifier of this
    project's kind (snake_case with an underscore, `remove_item`, with or without parentheses;
    or written with a role, `{func}`x()``) and appears nowhere in the code. A single plain word
    (`helper()`, `data`) says too little to be called broken."""
    name = ref.name
    if name in _BUILTINS or name in local_names or _stdlib_name(name):
        return Resolution(ref, UNKNOWN, reason="not this project's")
    identifier = _SNAKE_WORDS.fullmatch(name) is not None or (ref.called and ref.role is not None)
    if identifier and index.roots and name not in index.words():
        return Resolution(ref, BROKEN, reason="no definition, and the name appears nowhere in the code")
    return Resolution(ref, UNKNOWN)


def _missing_member(ref: Ref, index: SourceIndex, parts: list[str]) -> Resolution:
    """Broken only when the reference is recognisably this project's: it starts with a project
    package or module, and its deepest existing prefix is a module or class whose members are
    all known (no module __getattr__, no base class from outside the project)."""
    for i in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:i])
        head_defs = _primary(index.expand(head))
        if len(head_defs) > 1:
            return Resolution(ref, UNKNOWN, reason=f"{head} is ambiguous")
        if not head_defs:
            continue
        d = head_defs[0]
        if parts[i].startswith("__") or d.kind not in ("module", "class"):
            return Resolution(ref, UNKNOWN)
        if d.kind == "module":
            mod = index.modules.get(d.qualname)
            if mod is None or mod.has_getattr or parts[i] in mod.aliases or any(s.split(".")[0] not in index.roots for s in mod.stars):
                return Resolution(ref, UNKNOWN)  # its __getattr__, or a name it imports from another library (`from click import echo`)
        if d.kind == "class" and index.external_bases(d.qualname):
            return Resolution(ref, UNKNOWN, reason="inherits from outside the project")
        return Resolution(ref, BROKEN, reason=f"{d.qualname} has no {parts[i]}")
    return Resolution(ref, UNKNOWN)


_STDLIB_MODULES = ("typing", "dataclasses", "collections", "collections.abc", "enum", "functools", "itertools",
                   "pathlib", "abc", "os", "os.path", "json", "re", "datetime", "decimal", "fractions", "types",
                   "contextlib", "inspect", "copy", "weakref", "io", "logging", "subprocess", "unittest", "asyncio",
                   "argparse", "operator", "string", "textwrap", "uuid", "warnings", "threading", "multiprocessing.pool",
                   "concurrent.futures", "socket", "time", "math", "random", "pickle", "shutil", "tempfile", "contextvars")


@cache
def _stdlib_names() -> frozenset[str]:
    import importlib

    names: set[str] = set()
    for m in _STDLIB_MODULES:
        try:
            names.update(n for n in dir(importlib.import_module(m)) if not n.startswith("_"))
        except ImportError:  # pragma: no cover - a trimmed interpreter
            continue
    return frozenset(names)


def _stdlib_name(name: str) -> bool:
    return name in _stdlib_names()


def _bare_kinds(ref: Ref) -> set[str]:
    if ref.called or ref.role in ("func", "meth", "function", "method"):
        return {"function", "method", "class"}
    if ref.role in ("class", "exc", "type"):
        return {"class"}
    if ref.role in ("data", "const", "attr", "obj"):
        return {"variable", "class", "function"}
    if ref.name[:1].isupper():
        return {"class", "variable"} if ref.name.isupper() else {"class"}  # `MAX_SIZE`, `Widget`
    return {"function", "class"}


def _resolve_path(ref: Ref, index: SourceIndex, page_repo_path: str) -> Resolution:
    if ref.name.endswith("/"):
        return Resolution(ref, UNKNOWN, reason="a directory")  # `docs/`: never a file that ends so
    raw = ref.name
    rel = raw.removeprefix("./")
    candidates = []
    if ref.link:  # against every tracked file: `../img/progress.gif` beside the page is no code, but exists
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(page_repo_path), raw))
        if joined in index.files and joined not in index.path_set:
            return Resolution(ref, UNKNOWN, reason="a file of the docs")  # exists; the docs' own, not code to cite
        if joined in index.files:
            candidates = [joined]
        elif joined in index.file_dirs:
            return Resolution(ref, UNKNOWN, reason="a directory")
    if not candidates and rel in index.path_set:
        candidates = [rel]
    if not candidates and (rel in index.dirs):
        return Resolution(ref, UNKNOWN, reason="a directory")
    if not candidates and not ref.link and "/" in rel:  # a bare `main.py` is the reader's file, or the root's
        candidates = [p for p in index.paths if p.endswith("/" + rel)]
        candidates = _primary_paths(candidates)
    if len(candidates) == 1:
        path = candidates[0]
        if not index.lines(path):
            return Resolution(ref, UNKNOWN, reason="an empty or binary file")
        return Resolution(ref, RESOLVED, _line_def(path, 1, path), reason="file")
    if len(candidates) > 1:
        return Resolution(ref, AMBIGUOUS, candidates=tuple(f"repo://{p}" for p in sorted(candidates)), reason=f"{len(candidates)} files")
    top = rel.split("/")[0]
    if ref.link or ("/" in rel and (top in index.dirs and top != "" or posixpath.dirname(rel) in index.dirs)):
        return Resolution(ref, BROKEN, reason="no such tracked file")
    return Resolution(ref, UNKNOWN)


def _primary_paths(paths: list[str]) -> list[str]:
    main = [p for p in paths if not SECONDARY.search(p)]
    return main or paths


def _resolve_flag(ref: Ref, index: SourceIndex) -> Resolution:
    flag = ref.name.split("=", 1)[0]
    hits = index.flags().get(flag, [])
    if len(hits) > 1:
        hits = [h for h in hits if _FLAG_DEF.search(h[2])] or hits
    if len(hits) == 1:
        p, n, _ = hits[0]
        return Resolution(ref, RESOLVED, _line_def(p, n, flag), reason="flag")
    if hits:
        return Resolution(ref, AMBIGUOUS, candidates=tuple(f"repo://{p}#L{n}-L{n}" for p, n, _ in hits), reason=f"{len(hits)} lines")
    defined = any(_FLAG_DEF.search(line) for v in index.flags().values() for _, _, line in v)
    if defined and flag.lstrip("-").replace("-", "_") in index.words():
        return Resolution(ref, UNKNOWN, reason="no line quotes it; a parameter of that name may make it (typer, click)")
    return Resolution(ref, BROKEN if defined else UNKNOWN, reason="no line defines the flag" if defined else "")


def _resolve_env(ref: Ref, index: SourceIndex) -> Resolution:
    hits = index.envs().get(ref.name, [])
    if len(hits) > 1:
        hits = [h for h in hits if re.search(r"environ|getenv|Getenv|env::var|process\.env", h[2])] or hits
    if len(hits) > 1:
        reader = _one_reader(index, ref.name, hits)
        if reader is not None:
            return Resolution(ref, RESOLVED, reader, reason="environment variable")
    if len(hits) == 1:
        p, n, _ = hits[0]
        return Resolution(ref, RESOLVED, _line_def(p, n, ref.name), reason="environment variable")
    if hits:
        return Resolution(ref, AMBIGUOUS, candidates=tuple(f"repo://{p}#L{n}-L{n}" for p, n, _ in hits), reason=f"{len(hits)} lines")
    prefix = ref.name.split("_", 1)[0] + "_"
    if any(k.startswith(prefix) and k != ref.name for k in index.envs()) and ref.name not in index.words():
        return Resolution(ref, BROKEN, reason="no code reads it, though the project reads other " + prefix + "* variables")
    return Resolution(ref, UNKNOWN)


_NEAR = 3  # lines: reads this close together in a file no function holds are one reading


def _one_reader(index: SourceIndex, name: str, hits: list[tuple[str, int, str]]) -> Definition | None:
    """Several lines naming a variable are one definition when one function holds them all
    (`os.environ["SSL_CERT_FILE"]` tested, then read): the innermost such function; in code
    without one, lines a few apart are one reading, cited at the first."""
    paths = {p for p, _, _ in hits}
    if len(paths) != 1:
        return None
    path = paths.pop()
    first, last = min(n for _, n, _ in hits), max(n for _, n, _ in hits)
    holders = [
        d for defs in index.defs.values() for d in defs
        if d.path == path and d.kind in ("function", "method") and d.start <= first and last <= d.end
    ] if path.endswith((".py", ".pyi")) else []
    if holders:
        return min(holders, key=lambda d: d.end - d.start)
    return _line_def(path, first, name) if last - first <= _NEAR else None


SETTINGS_FILES = ("pyproject.toml", "setup.cfg", "tox.ini", ".coveragerc", "pytest.ini")  # where a project sets its tools


def _setting(ref: Ref, index: SourceIndex) -> Resolution | None:
    """A setting a span quotes (`fail-under=95`): the line of the repository's own configuration
    that sets it (`fail_under = 98.35` in pyproject.toml), under either spelling; None when no
    file sets it or several lines do (a message about another tool's setting is not broken)."""
    spelt = "|".join(re.escape(n) for n in dict.fromkeys((ref.name, ref.name.replace("-", "_"), ref.name.replace("_", "-"))))
    sets = re.compile(rf"""^\s*["']?(?:{spelt})["']?\s*[=:]""")
    hits = [(p, n) for p in SETTINGS_FILES for n, line in enumerate(index.lines(p), 1) if sets.match(line)]
    if len(hits) != 1:
        return None
    return Resolution(ref, RESOLVED, _line_def(hits[0][0], hits[0][1], ref.name), reason="a configuration file sets it")


def _resolve_key(ref: Ref, index: SourceIndex) -> Resolution:
    fields = [
        d for q in index.by_last.get(ref.name, []) for d in index.defs[q]
        if d.kind == "variable" and not d.toplevel and re.search(r"(Config|Settings|Options)\.[^.]+$", d.qualname)
    ]
    if fields:
        return _one(ref, fields, "config field")
    quoted = re.compile(rf"""^\s*"{re.escape(ref.name)}"\s*:""")
    hits: list[tuple[str, int]] = []
    for p in index.paths:  # a JSON schema's property: `"wiki_dir": {...}`
        if p.endswith(".json") and _CONFIG_PATH.search(p) and not SECONDARY.search(p):
            hits.extend((p, n) for n, line in enumerate(index.lines(p), 1) if quoted.search(line))
    if len(hits) == 1:
        return Resolution(ref, RESOLVED, _line_def(hits[0][0], hits[0][1], ref.name), reason="config key")
    if hits:
        return Resolution(ref, AMBIGUOUS, candidates=tuple(f"repo://{p}#L{n}-L{n}" for p, n in hits), reason=f"{len(hits)} lines")
    return Resolution(ref, UNKNOWN)
