"""The repository's definitions, indexed for `ground`: Python through `ast` (modules, classes,
functions, methods, module and class attributes, re-exports followed, inherited members looked up
in project base classes; a definition runs from its first decorator to its last line), other
languages through tree-sitter when the optional extra is installed (treesitter.py), and the lines
that define CLI flags and environment variables. Pure: the files come in through a reader.

One cohesive thing: one index of definitions, built in one pass and queried by `ground`, `check`'s
broken references and `review`'s suggested range; splitting the builder from its queries would
put the same records on both sides of a module boundary."""

from __future__ import annotations

import ast
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from openwiki_git.evidence import definitions

# Tests', docs' (and the docs' example code: `docs_src/`), examples', benchmarks' and scripts' paths:
# their definitions lose to the project's own.
SECONDARY = re.compile(
    r"(?:^|/)(?:tests?|testing|docs?(?:_src)?|examples?|bench(?:marks?)?|scripts?|changelog\.d)/|(?:^|/)(?:test_[^/]*|[^/]*_test\.py|conftest\.py)$"
)
CODE_EXT = (
    ".py", ".pyi", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".rb", ".c", ".h", ".cc", ".cpp", ".hpp",
    ".kt", ".swift", ".cs", ".php", ".sh",
)  # fmt: skip
_FLAG_LINE = re.compile(r"""["'](--[A-Za-z][\w-]*)["']""")
_ENV_LINE = re.compile(r"""["']([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)["']|process\.env\.([A-Z][A-Z0-9_]*)""")
_ENV_HINT = re.compile(r"environ|getenv|Getenv|env::var|process\.env|ENV\[|env_var|envvar|\benv\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Definition:
    qualname: str
    path: str
    start: int
    end: int
    kind: str  # module, class, function, method, variable, attribute
    toplevel: bool = False

    @property
    def resource(self) -> str:
        return f"repo://{self.path}#L{self.start}-L{self.end}"


@dataclass
class _Module:
    name: str
    path: str
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> qualified target
    stars: list[str] = field(default_factory=list)
    bases: dict[str, list[str]] = field(default_factory=dict)  # class qualname -> base expressions
    has_getattr: bool = False
    imported: set[str] = field(default_factory=set)  # the names its `import x` statements bind (`click`, `rich`)


class SourceIndex:
    """The repository's definitions, built lazily from `paths` (tracked files) and `read`."""

    def __init__(self, paths: Iterable[str], read: Callable[[str], str | None], files: Iterable[str] = ()) -> None:
        self.paths = sorted(set(paths))
        self.path_set = set(self.paths)
        self.files = self.path_set | set(files)  # every tracked file, the wiki's too: what a link may name
        self._read = read
        self._texts: dict[str, str | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._built = False
        self.defs: dict[str, list[Definition]] = defaultdict(list)
        self.by_last: dict[str, list[str]] = defaultdict(list)  # last segment -> qualnames
        self.modules: dict[str, _Module] = {}
        self.roots: set[str] = set()  # top-level module / package names
        self._flags: dict[str, list[tuple[str, int, str]]] | None = None
        self._envs: dict[str, list[tuple[str, int, str]]] | None = None
        self._words: set[str] | None = None
        self._imported: set[str] | None = None
        self._memo: dict[str, list[Definition]] = {}  # expand's answers, each name resolved once
        self._pending: dict[str, list[Definition]] = {}  # empty answers found through a cycle's cut
        self._active: set[str] = set()  # the names being resolved (the cycle guard)
        self._cut = False  # whether the current resolution met one of them again
        self._external: dict[str, bool] = {}
        self.mentions: dict[tuple[str, str], object] = {}  # names.lineset's answers, each name scanned for once
        self.dirs = _dirs(self.paths)
        self.file_dirs = _dirs(self.files)

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]

    def lines(self, path: str) -> list[str]:
        t = self.text(path)
        return t.splitlines() if t else []

    def tree(self, path: str) -> ast.Module | None:
        """A Python file's tree, parsed once a run when something reads it (None: no such file,
        or it does not parse)."""
        if path not in self._trees:
            text = self.text(path)
            self._trees[path] = definitions.parse_python(text, path) if text else None
        return self._trees[path]

    # -- building --------------------------------------------------------------------------
    def build(self) -> None:
        if self._built:
            return
        self._built = True
        self._memo.clear()
        self._external.clear()
        for path in self.paths:
            if path.endswith(".py") or path.endswith(".pyi") and path[:-1] not in self.path_set:
                self._index_python(path)  # a stub beside its module adds nothing but ambiguity
        for path in self.paths:
            if path.endswith(CODE_EXT) and not path.endswith((".py", ".pyi")):
                self._index_other(path)

    def module_name(self, path: str) -> str:
        """`src/attr/_make.py` -> `attr._make` (the directories holding `__init__.py` count)."""
        parts = path[: -len(posixpath.splitext(path)[1])].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        i = len(parts) - 1
        while i > 0 and "/".join(parts[:i]) + "/__init__.py" in self.path_set:
            i -= 1
        return ".".join(parts[max(i, 0) :])

    def _add(self, d: Definition) -> None:
        if not self.defs[d.qualname]:
            self.by_last[d.qualname.rsplit(".", 1)[-1]].append(d.qualname)
        self.defs[d.qualname].append(d)

    def _index_python(self, path: str) -> None:
        text = self.text(path)
        tree = definitions.parse_python(text, path) if text else None  # not kept: an index holds every file's
        if tree is None:
            return
        name = self.module_name(path)
        if not name:
            return
        mod = _Module(name, path)
        self.modules[name] = mod
        self.roots.add(name.split(".")[0])
        self._add(Definition(name, path, 1, 1, "module", True))
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        self._walk(tree.body, name, path, mod, package, toplevel=True, in_class=None)

    def _walk(
        self, body: list[ast.stmt], prefix: str, path: str, mod: _Module, package: str, *, toplevel: bool, in_class: str | None
    ) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start, end = definitions.python_extent(node)  # the one owner of extents
                q = f"{prefix}.{node.name}"
                is_class = isinstance(node, ast.ClassDef)
                kind = "class" if is_class else ("method" if in_class else "function")
                overload = any(_dec_name(d).rsplit(".", 1)[-1] == "overload" for d in node.decorator_list)  # `@t.overload` too
                accessor = any(_dec_name(d).endswith((".setter", ".deleter")) for d in node.decorator_list)
                if not overload and not accessor:
                    self._add(Definition(q, path, start, end, kind, toplevel))
                if toplevel and node.name == "__getattr__":
                    mod.has_getattr = True
                if isinstance(node, ast.ClassDef):
                    mod.bases[q] = [ast.unparse(b) for b in node.bases]
                    self._slots(node, q, path)
                    self._walk(node.body, q, path, mod, package, toplevel=False, in_class=q)
                elif in_class and node.name == "__init__":
                    for sub in ast.walk(node):
                        if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                            for t in targets:
                                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                                    self._add(
                                        Definition(f"{in_class}.{t.attr}", path, sub.lineno, sub.end_lineno or sub.lineno, "attribute")
                                    )
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        self._add(Definition(f"{prefix}.{t.id}", path, node.lineno, node.end_lineno or node.lineno, "variable", toplevel))
                        if toplevel and isinstance(node.value, (ast.Name, ast.Attribute)):
                            mod.aliases[t.id] = ast.unparse(node.value)  # `s = attributes = attrs`
                    elif isinstance(t, ast.Tuple):
                        for elt in t.elts:
                            if isinstance(elt, ast.Name):
                                self._add(
                                    Definition(
                                        f"{prefix}.{elt.id}", path, node.lineno, node.end_lineno or node.lineno, "variable", toplevel
                                    )
                                )
            elif toplevel and isinstance(node, ast.ImportFrom):
                base = _absolute(node.module, node.level, package)
                for a in node.names:
                    if a.name == "*":
                        mod.stars.append(base)
                    else:
                        mod.aliases[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
            elif toplevel and isinstance(node, ast.Import):
                for a in node.names:
                    mod.imported.add(a.asname or a.name.split(".")[0])
                    if a.asname:
                        mod.aliases[a.asname] = a.name
            elif isinstance(node, (ast.If, ast.Try, ast.With)) and toplevel:
                blocks = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
                blocks += [h.body for h in getattr(node, "handlers", [])]
                for b in blocks:
                    self._walk(b, prefix, path, mod, package, toplevel=True, in_class=None)

    def _slots(self, node: ast.ClassDef, q: str, path: str) -> None:
        """Names in a class's `__slots__` are its attributes (cited at the `__slots__` line)."""
        for stmt in node.body:
            slots = isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in stmt.targets)
            if slots and isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Tuple, ast.List)):
                for elt in stmt.value.elts:
                    if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                        self._add(Definition(f"{q}.{elt.value}", path, stmt.lineno, stmt.end_lineno or stmt.lineno, "attribute"))

    def _index_other(self, path: str) -> None:
        from openwiki_git.evidence import treesitter as ground_ts

        text = self.text(path)
        if not text:
            return
        for qual, start, end, kind in ground_ts.definitions(path, text):
            self._add(Definition(qual, path, start, end, kind, "." not in qual))

    # -- symbols ---------------------------------------------------------------------------
    def expand(self, name: str) -> list[Definition]:
        """Definitions `name` denotes exactly, re-exports and inheritance followed.

        Each name is resolved once: the answer is kept (a package's star imports of modules that
        star-import each other would otherwise be walked on every path through them, which is
        exponential). A name met again while it is being resolved (an import or inheritance
        cycle) denotes nothing on that path; an empty answer found through such a cut is kept
        only until the outermost call returns, since another entry point may find it."""
        got = self._memo.get(name)
        if got is None and self._active:
            got = self._pending.get(name)
        if got is not None:
            return got
        if name in self._active:
            self._cut = True
            return []
        outer_cut, self._cut = self._cut, False
        self._active.add(name)
        try:
            got = self._expand(name)
        finally:
            self._active.discard(name)
        (self._memo if got or not self._cut else self._pending)[name] = got
        self._cut = self._cut or outer_cut
        if not self._active:
            self._pending.clear()
            self._cut = False
        return got

    def _expand(self, name: str) -> list[Definition]:
        if name in self.defs:
            return self._pick(self.defs[name])
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            head, rest = ".".join(parts[:i]), parts[i:]
            mod = self.modules.get(head)
            if mod is not None:
                if rest[0] in mod.aliases:
                    target = mod.aliases[rest[0]]
                    if "." not in target and target not in self.modules:
                        target = f"{head}.{target}"  # `s = attrs`: a name in the same module
                    got = self.expand(".".join([target, *rest[1:]]))
                    if got:
                        return got
                for star in mod.stars:
                    got = self.expand(".".join([star, *rest]))
                    if got:
                        return got
                # `pkg._api.X` is found in `pkg._api` or nowhere: a shorter head would try
                # `pkg._api._api.X` through `pkg`'s star imports, a name that grows without end
                return []
            if head in self.defs and any(d.kind == "class" for d in self.defs[head]):
                got = self._inherited(head, rest)
                if got:
                    return got
        return []

    def _inherited(self, cls: str, rest: list[str]) -> list[Definition]:
        mod = self.modules.get(self.defs[cls][0].path and self.module_name(self.defs[cls][0].path))
        if mod is None:
            return []
        for base in mod.bases.get(cls, []):
            base_q = self._qualify(base, mod)
            if base_q and base_q != cls:
                got = self.expand(".".join([base_q, *rest]))
                if got:
                    return got
        return []

    def _qualify(self, expr: str, mod: _Module) -> str | None:
        head, _, tail = expr.partition(".")
        if head in mod.aliases:
            target = mod.aliases[head]
            return f"{target}.{tail}" if tail else target
        if f"{mod.name}.{head}" in self.defs:
            return f"{mod.name}.{expr}"
        for star in mod.stars:  # `from ._models import *` then `class Client(BaseClient)`
            if self.expand(f"{star}.{head}"):
                return f"{star}.{expr}"
        return None

    def external_bases(self, cls: str) -> bool:
        """The class derives from something outside the project (its attributes are unknowable).
        Each class is judged once; a base met again in its own ancestry (a cycle) adds nothing."""
        known = self._external.get(cls)
        if known is not None:
            return known
        self._external[cls] = False  # while judged: a cycle back to it finds nothing outside
        self._external[cls] = answer = self._external_bases(cls)
        return answer

    def _external_bases(self, cls: str) -> bool:
        defs = self.defs.get(cls)
        if not defs:
            return True
        mod = self.modules.get(self.module_name(defs[0].path))
        if mod is None:
            return True
        for base in mod.bases.get(cls, []):
            if base in ("object", "Exception", "Generic") or base.startswith(("Generic[", "Protocol")):
                continue
            q = self._qualify(base, mod)
            found = self.expand(q) if q is not None else []
            if not found or self.external_bases(found[0].qualname):
                return True
        return False

    @staticmethod
    def _pick(defs: list[Definition]) -> list[Definition]:
        unique = list({(d.path, d.start, d.end): d for d in defs}.values())
        # `Attribute = _add_hash(Attribute)`: a rebinding of a class or function is not another one
        real = {(d.qualname, d.path) for d in unique if d.kind in ("class", "function", "method")}
        declared = {d.qualname for d in unique if d.kind == "variable"}  # `_logger: X` beside `self._logger = x`
        return [
            d for d in unique
            if (d.kind in ("class", "function", "method") or (d.qualname, d.path) not in real)
            and not (d.kind == "attribute" and d.qualname in declared)
        ]

    def suffix(self, name: str) -> list[Definition]:
        last = name.rsplit(".", 1)[-1]
        out: list[Definition] = []
        for q in self.by_last.get(last, []):
            if q == name or q.endswith("." + name):
                out.extend(self.defs[q])
        # re-exports whose public name ends so: `attrs.define` found from `define`
        return self._pick(out)

    def imported(self) -> set[str]:
        """The names the project's own modules bind by importing (`click`, `echo` of `from click
        import echo`; not its tests' or docs' examples): in prose, `click.echo()` is that
        library's, never a method of an object of ours."""
        if self._imported is None:
            self.build()
            self._imported = {n for m in self.modules.values() if not SECONDARY.search(m.path) for n in (*m.imported, *m.aliases)}
        return self._imported

    def words(self) -> set[str]:
        if self._words is None:
            words: set[str] = set()
            for p in self.paths:
                if p.endswith(CODE_EXT):
                    words.update(_WORD.findall(self.text(p) or ""))
            self._words = words
        return self._words

    # -- flags and environment variables ---------------------------------------------------
    def flags(self) -> dict[str, list[tuple[str, int, str]]]:
        if self._flags is None:
            self._flags = self._scan(lambda line: [m.group(1) for m in _FLAG_LINE.finditer(line)])
        return self._flags

    def envs(self) -> dict[str, list[tuple[str, int, str]]]:
        if self._envs is None:
            def hits(line: str) -> list[str]:
                if not _ENV_HINT.search(line):
                    return []
                return [m.group(1) or m.group(2) for m in _ENV_LINE.finditer(line)]

            self._envs = self._scan(hits)
        return self._envs

    def _scan(self, hits: Callable[[str], list[str]]) -> dict[str, list[tuple[str, int, str]]]:
        out: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
        for p in self.paths:
            if not p.endswith(CODE_EXT) or SECONDARY.search(p):
                continue
            for n, line in enumerate(self.lines(p), 1):
                for h in hits(line):
                    out[h].append((p, n, line))
        return out


def _dirs(paths: Iterable[str]) -> set[str]:
    dirs = {posixpath.dirname(p) for p in paths}
    for p in list(dirs):
        while p:
            p = posixpath.dirname(p)
            dirs.add(p)
    return dirs


def _dec_name(d: ast.expr) -> str:
    return ast.unparse(d.func if isinstance(d, ast.Call) else d)


def _absolute(module: str | None, level: int, package: str) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, module] if module else base)


def enclosing_definition(path: str, text: str, start: int, end: int) -> Definition | None:
    """The smallest definition of one file (function, method, class, ...; not the module) whose
    lines hold `start`-`end`: review's suggested range for cited text that grew."""
    index = SourceIndex([path], lambda p: text if p == path else None)
    index.build()
    around = [
        d for defs in index.defs.values() for d in defs
        if d.path == path and d.kind != "module" and d.start <= start and end <= d.end
    ]
    return min(around, key=lambda d: (d.end - d.start, -d.start), default=None)
