"""Resolving a page's code references against the repository's definitions (index.py's
`SourceIndex`). Pure: the files come in through a reader; nothing here touches the file system,
git or the clock.

- Symbols: modules (`pkg.mod`), classes, functions, methods, module and class attributes, as
  the index knows them (Python through `ast`, other languages through tree-sitter).
- Paths: the tracked file, cited by its first line (the claim is that the file exists and starts
  so; it goes unresolved when the file goes, and does not go stale on every edit of the file).
- CLI flags, environment variables and config keys: the one line that defines them (a quoted
  `"--flag"` in an add_argument/option call, a quoted name next to `environ`/`getenv`, a config
  class's field or a quoted key in a config module).

Every outcome is one of: resolved (exactly one definition), ambiguous (several, listed, never
picked), broken (the reference names something of this project that does not exist) and unknown
(not recognisably this project's: stdlib, other tools, a tutorial's own names).
"""

from __future__ import annotations

import builtins
import posixpath
import re
import sys
from dataclasses import dataclass
from functools import cache

from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.ground.index import SECONDARY, Definition, SourceIndex
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
        return _resolve_flag(ref, index)
    if ref.kind == "env":
        got = _resolve_symbol(ref, index, local_names, quiet=True)
        return got if got.outcome in (RESOLVED, AMBIGUOUS) else _resolve_env(ref, index)
    if ref.kind == "key":
        got = _resolve_symbol(ref, index, local_names, quiet=True)
        if got.outcome in (RESOLVED, AMBIGUOUS):
            return got
        got = _resolve_key(ref, index)
        return got if got.outcome != UNKNOWN else _unheard_of(ref, index, local_names)
    return _resolve_symbol(ref, index, local_names)


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


def _resolve_bare(ref: Ref, index: SourceIndex, local_names: frozenset[str], *, quiet: bool) -> Resolution:
    """A bare name is cited only to a public definition of the project's own code: never a test
    helper, never a method (`bind()` of which class?) unless written as a call."""
    name = ref.name
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
            if mod is None or mod.has_getattr:
                return Resolution(ref, UNKNOWN)
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
    if not candidates and not ref.link:
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


HEAD_AFTER = 40  # lines: a definition longer than a screen is cited by its head
# A code span, or a quoted literal. A single quote opens one only where a word cannot have just
# ended (not after a letter, a closing backtick or emphasis) and closes one only where no word
# goes on: the apostrophes of "library's ... doesn't" quote nothing.
_CODE_SPAN = re.compile(r"`([^`]+)`|\"([^\"]+)\"|(?<![\w`*'])'([^'\s][^']*)'(?!\w)")
_CODE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def named_resource(index: SourceIndex, d: Definition, sentence: str) -> str:
    """The evidence `ground` cites for a resolved definition: the definition by name
    (`repo://p.py#Cart.add`), by its head (`#Cart:head`) for a class or a definition longer than
    a screen unless the sentence quotes something only its body has (a literal, a raised
    exception, a called name); lines for anything else (flags, variables, a file)."""
    if d.kind not in ("class", "function", "method") or definitions.unsupported(d.path) is not None:
        return d.resource
    text = index.text(d.path)
    name = _in_file(index, d)
    ext = definitions.find(d.path, text, name) if text else None
    if text is None or ext is None or (ext.start, ext.end) != (d.start, d.end):
        return d.resource
    head = d.kind == "class" or ext.end - ext.start + 1 > HEAD_AFTER
    if head and body_quotes(index, sentence, ext, split_lines(text)):
        head = False
    return Symbol(d.path, name, head).canonical


def _in_file(index: SourceIndex, d: Definition) -> str:
    """`attr._make.Attribute.evolve` -> `Attribute.evolve`: the name inside its file."""
    if not d.path.endswith((".py", ".pyi")):
        return d.qualname
    module = index.module_name(d.path)
    return d.qualname[len(module) + 1 :] if module and d.qualname.startswith(module + ".") else d.qualname


def body_quotes(index: SourceIndex, sentence: str, ext: definitions.Extent, lines: list[str]) -> list[str]:
    """The words the sentence names that its definition's body has and its head does not (none:
    the sentence is about the head):
    a quoted literal (matched whole), or a code word (in a code span, or spelt like code: `_`,
    a capital inside a word with small letters), matched as a whole word. The body is the code
    and the docstring past its summary (a parameter's docs), not comments. A code span that is
    a dotted name of another definition of the project (`attr.attrs` beside `attr.attrib`) is a
    reference to that one, which gets its own claim: its words are not quoted from this body; so
    is one in a standard library module (`logging.Logger`) the project has none of its name."""
    head_text = ext.text(lines, head=True)
    body_text = ext.body_text(lines)
    words: set[str] = set()
    for m in _CODE_SPAN.finditer(sentence):
        code, literal = m.group(1), m.group(2) or m.group(3)
        if literal is not None:  # a quoted literal is matched whole: the words of a quoted question are prose
            words.add(literal)
            continue
        name = code.strip("~.@").removesuffix("()")
        if "." in name and _QUALIFIED.fullmatch(name) and (index.expand(name) or _in_stdlib(index, name)):
            continue
        words.add(code)
        words.update(_CODE_WORD.findall(code))
    words.update(w for w in _CODE_WORD.findall(_CODE_SPAN.sub(" ", sentence)) if _spelt_like_code(w))
    own = set(ext.name.split("."))
    return sorted(w for w in words if len(w) >= 3 and w not in own and _has_word(body_text, w) and not _has_word(head_text, w))


def _in_stdlib(index: SourceIndex, name: str) -> bool:
    """Whether a dotted name starts with a standard library module's (and no module of the project's)."""
    root = name.split(".", 1)[0]
    return root in sys.stdlib_module_names and root not in index.roots


def _spelt_like_code(word: str) -> bool:
    """`max_size`, `maxSize`, `JSONRenderer`: an underscore, or a capital inside a word that has
    small letters too. An all-capitals word (`JSON`, `HTTP`) is how prose writes an acronym."""
    return "_" in word or (any(c.isupper() for c in word[1:]) and any(c.islower() for c in word))


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None
