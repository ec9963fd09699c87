"""The package layering of docs/architecture.md, checked on the source (ast), plus what `check` imports.

- The layers come from the package table of docs/architecture.md: a module's layer is its
  package's. Every import counts: module level, inside functions, and under `TYPE_CHECKING`.
- No module imports a module of a package below its own (same package: allowed).
- No import cycle: not between modules, not between packages (a cycle between packages that the
  table's order hides is still a cycle).
- The module map of docs/architecture.md and the tree hold the same modules; the README's
  architecture section names every package.
- Pure modules (the table's `pure` column) import only the standard library (minus I/O, process,
  clock and network modules) and pure modules of their own or higher packages.
- Third-party libraries stay in their adapter; only `cli/` prints; a command never imports
  another command.
- One owner each (docs/architecture.md's Conventions): no module but `parallel.py` starts a
  process, none but `caches/statkey.py` writes git's racy-file rule, none but
  `formats/pagenames.py` spells a page's sidecar path.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "openwiki_git"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
README = ROOT / "README.md"
ROOT_PACKAGE = "(root)"

# Standard-library modules a pure core must not use: no file system, process, env, clock, network.
IMPURE_STDLIB = {
    "os", "pathlib", "shutil", "tempfile", "glob", "fcntl", "io", "subprocess", "socket", "ssl",
    "http", "urllib.request", "time", "signal", "threading", "multiprocessing", "sqlite3",
    "importlib", "sys", "random", "uuid",
}
# third-party top-level package -> the only modules allowed to import it
OWNERS = {
    "pygit2": {"git.repo", "git.diff", "git.history"},
    "langchain": {"refresh.client"},
    "langchain_core": {"refresh.client", "agents.langchain_tools"},
    "langchain_openai": {"refresh.client"},
    "openai": {"refresh.client"},
    "github": {"github.api"},
    "tree_sitter": {"evidence.treesitter"},
    "ruamel": {"formats.yamlio", "pages.frontmatter"},
    "filelock": {"store.locking"},
    "pygments": {"diff.cosmetic"},
    "mcp": {"agents.mcp_server"},
    "jsonschema": {"formats.schema", "store.bundle"},
}
# Third-party libraries a pure core may use: computation only. Pygments' lexers turn text into
# tokens (cosmetic.py asks it for a lexer class by file name, without its plugin lookup).
PURE_THIRD_PARTY = {"diff.cosmetic": {"pygments"}, "evidence.treesitter": {"tree_sitter"}, "pages.rst": {"docutils"}}


def module_name(path: Path) -> str:
    """`openwiki_git/store/wiki.py` -> `store.wiki`; a package's `__init__.py` -> the package."""
    name = path.relative_to(PKG).with_suffix("").as_posix().replace("/", ".")
    return name.removesuffix(".__init__").removesuffix("__init__")


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def package_of(module: str) -> str:
    """The table's package a module belongs to: its first dotted part, or the root.
    `__main__` is the CLI's (`python -m openwiki_git` runs `cli.main`)."""
    if module == "__main__":
        return "cli"
    head, dot, _ = module.partition(".")
    return head if head and (dot or (PKG / head).is_dir()) else ROOT_PACKAGE


@cache
def package_table() -> dict[str, tuple[int, str]]:
    """`package -> (layer, pure cell)` from the package table of docs/architecture.md."""
    table: dict[str, tuple[int, str]] = {}
    for line in ARCHITECTURE.read_text("utf-8").splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|\s*`([\w/]+)`( \(root\))?\s*\|[^|]*\|([^|]*)\|", line)
        if m:
            name = ROOT_PACKAGE if m.group(3) else m.group(2).rstrip("/")
            table[name] = (int(m.group(1)), m.group(4).strip())
    return table


def layer(module: str) -> int:
    return package_table()[package_of(module)][0]


def pure_modules() -> set[str]:
    out = set()
    for package, (_, cell) in package_table().items():
        members = [m for m in MODULES if package_of(m) == package and m != "__main__"]
        if cell == "all":
            out.update(m for m in members if m != package)
        elif cell != "none":
            prefix = "" if package == ROOT_PACKAGE else package + "."
            out.update(prefix + name for name in re.findall(r"`([\w]+)\.py`", cell))
    return out


def imports(path: Path) -> list[tuple[str, int]]:
    """Absolute names of every import, TYPE_CHECKING and function-level ones too, with line numbers."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    out = []
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = ["openwiki_git", *filter(None, package.split("."))]
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            out.append((mod, node.lineno))
            if mod == "openwiki_git" or mod.startswith("openwiki_git."):
                # `from openwiki_git.store import wiki` imports the module store.wiki
                prefix = mod.removeprefix("openwiki_git").lstrip(".")
                out.extend(
                    (f"{mod}.{alias.name}", node.lineno)
                    for alias in node.names
                    if (f"{prefix}.{alias.name}" if prefix else alias.name) in MODULES
                )
    return out


def internal(name: str) -> str | None:
    """`openwiki_git.x.y.Thing` -> `x.y` (the longest module prefix); `openwiki_git` -> ''."""
    if name == "openwiki_git":
        return ""
    if name.startswith("openwiki_git."):
        rest = name.removeprefix("openwiki_git.")
        while rest and rest not in MODULES:
            rest = rest.rpartition(".")[0]
        return rest
    return None


@cache
def module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = {internal(imported) for imported, _ in imports(path)}
        # A package's `__init__` is imported on the way to any of its modules: not an edge of
        # its own (ours are docstrings only; see test_package_inits_are_empty).
        graph[name] = {t for t in targets if t and t != name and t in MODULES and not (PKG / t.replace(".", "/")).is_dir()}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_table_is_parsed_and_names_every_package():
    table = package_table()
    assert table[ROOT_PACKAGE][0] == 0 and table["cli"][0] == max(layer for layer, _ in table.values())
    on_disk = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert on_disk == set(table) - {ROOT_PACKAGE}, "docs/architecture.md's package table and the tree differ"
    assert len({layer for layer, _ in table.values()}) == len(table), "two packages share a layer"


def test_module_map_matches_the_tree():
    text = ARCHITECTURE.read_text("utf-8")
    start = text.index("## Module map")
    section = text[start : text.index("\n## ", start + 1)]
    documented = set()
    for line in re.split(r"\n- ", section):
        m = re.match(r"(root|`(\w+)/`):", line.strip("- \n"))
        if not m:
            continue
        prefix = "" if m.group(1) == "root" else m.group(2) + "."
        documented.update(prefix + name.replace("/", ".") for name in re.findall(r"`([\w/<>]+)\.py`", line))
    documented.discard("cli.commands.<name>")
    tree = {m for m in MODULES if not (PKG / m.replace(".", "/")).is_dir() and not m.startswith("cli.commands.")}
    assert documented == tree, f"missing from the map: {sorted(tree - documented)}; not in the tree: {sorted(documented - tree)}"


def test_readme_architecture_names_every_package():
    text = README.read_text("utf-8")
    section = text[text.index("## Developing openwiki-git") :]
    missing = [p for p in package_table() if p != ROOT_PACKAGE and f"`{p}/`" not in section]
    assert not missing, f"README's architecture section does not name {missing}"


def test_package_inits_are_empty():
    """Importing a package must not import anything (check's fast answer depends on it)."""
    for path in PKG.rglob("__init__.py"):
        bad = [imported for imported, _ in imports(path) if imported != "__future__"]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_no_module_import_cycle():
    assert cycles(module_graph()) == []


def test_no_package_import_cycle():
    packages: dict[str, set[str]] = {}
    for module, targets in module_graph().items():
        own = package_of(module)
        packages.setdefault(own, set()).update(package_of(t) for t in targets if package_of(t) != own)
    assert cycles(packages) == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_upward_imports(name):
    bad = [
        f"line {line}: {imported} ({package_of(mod)}/, layer {layer(mod)})"
        for imported, line in imports(MODULES[name])
        if (mod := internal(imported)) and layer(mod) > layer(name)
    ]
    assert not bad, f"openwiki_git/{name} ({package_of(name)}/, layer {layer(name)}) imports a lower package:\n" + "\n".join(bad)


PURE = pure_modules()


def test_pure_set_is_what_the_table_says():
    assert {"errors", "model", "claims.freshness", "claims.staleness", "diff.cosmetic", "graph.core"} <= PURE
    assert "store.wiki" not in PURE and PURE <= set(MODULES)


@pytest.mark.parametrize("name", sorted(PURE))
def test_pure_core_imports(name):
    bad = []
    for imported, line in imports(MODULES[name]):
        top = imported.split(".")[0]
        mod = internal(imported)
        if mod is not None:
            if mod == "" or mod in {p for p in package_table()}:
                continue  # the package root (__version__ and PRODUCER, stdlib only) or an empty package
            if mod not in PURE:
                bad.append(f"line {line}: {imported} (not a pure module)")
        elif top not in sys.stdlib_module_names and top != "__future__":
            if top not in PURE_THIRD_PARTY.get(name, ()):
                bad.append(f"line {line}: {imported} (third-party)")
        elif imported in IMPURE_STDLIB or top in IMPURE_STDLIB:
            bad.append(f"line {line}: {imported} (I/O, process, clock or network)")
    assert not bad, f"openwiki_git/{name} is pure but imports:\n" + "\n".join(bad)


def test_package_root_is_stdlib_only():
    for imported, line in imports(PKG / "__init__.py"):
        assert imported.split(".")[0] in sys.stdlib_module_names | {"__future__"}, (imported, line)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_third_party_stays_in_its_adapter(name):
    bad = []
    for imported, line in imports(MODULES[name]):
        top = imported.split(".")[0]
        owners = OWNERS.get(top)
        if owners is not None and name not in owners:
            bad.append(f"line {line}: {imported} (only {', '.join(sorted(owners))} may)")
    assert not bad, f"openwiki_git/{name}:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_lazy_langchain(name):
    """langchain, wherever it is allowed, is imported inside a function, never at module level."""
    tree = ast.parse(MODULES[name].read_text("utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert not [m for m in names if m.split(".")[0].startswith(("langchain", "openai"))], name


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_the_cli_prints(name):
    if package_of(name) == "cli":
        return
    tree = ast.parse(MODULES[name].read_text("utf-8"))
    bad = [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print")
        or (isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr")
            and isinstance(node.value, ast.Name) and node.value.id == "sys")
    ]
    assert not bad, f"openwiki_git/{name} prints (lines {bad}); return data and let cli/ print"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("cli.commands.")))
def test_commands_do_not_import_commands(name):
    """A command parses, calls a service and renders: what two commands share is a service."""
    bad = [
        f"line {line}: {imported}"
        for imported, line in imports(MODULES[name])
        if (mod := internal(imported)) and mod.startswith("cli.commands.") and mod != name
    ]
    assert not bad, f"openwiki_git/{name} imports another command:\n" + "\n".join(bad)


FORBIDDEN_ON_CHECK_PATH = ("langchain", "langchain_core", "langchain_openai", "openai", "github", "jsonschema", "ruamel")


@pytest.mark.parametrize("module", ["openwiki_git.cli.commands.check", "openwiki_git.cli.main"])
def test_check_path_import_is_light(module):
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True, check=True
    )
    loaded = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            loaded.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "openwiki_git" in loaded
    heavy = sorted(loaded & set(FORBIDDEN_ON_CHECK_PATH))
    assert not heavy, f"importing {module} loads {heavy}"


def _modules_after_check(root: Path) -> set[str]:
    code = (
        "import sys\n"
        "from openwiki_git.cli.main import main\n"
        f"rc = main(['-C', {str(root)!r}, 'check'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith("nothing to check: "), proc.stderr  # the wiki holds no claim
    return set(ast.literal_eval(proc.stdout.strip().splitlines()[-1]))


def test_check_run_without_config_imports_nothing_heavy(wiki_repo):
    """A full `check` run (no config.yml) loads neither jsonschema, ruamel, nor any model or
    GitHub client. With a config.yml only the config reader's imports may be added."""
    (wiki_repo.root / ".openwiki" / "config.yml").unlink()
    loaded = _modules_after_check(wiki_repo.root)
    assert not loaded & set(FORBIDDEN_ON_CHECK_PATH), sorted(loaded & set(FORBIDDEN_ON_CHECK_PATH))


def test_check_run_with_config_imports_no_clients(wiki_repo):
    loaded = _modules_after_check(wiki_repo.root)
    assert not loaded & {"langchain", "langchain_core", "langchain_openai", "openai", "github"}


@pytest.mark.parametrize("name", sorted(m for m in MODULES if package_of(m) != "cli"))
def test_only_the_cli_parses_arguments(name):
    """Services take typed options, never an argparse Namespace: argparse stays in cli/."""
    bad = [line for imported, line in imports(MODULES[name]) if imported.split(".")[0] == "argparse"]
    assert not bad, f"openwiki_git/{name} imports argparse (lines {bad}); take a typed options object"


MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_and_function_sizes(name):
    """No function over 60 lines; no module over ~400 unless its docstring says why it is one
    cohesive thing ("One cohesive thing: ..."), so a newcomer reads one job per file."""
    source = MODULES[name].read_text("utf-8")
    tree = ast.parse(source)
    long = [
        f"{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"openwiki_git/{name}: functions over {MAX_FUNCTION_LINES} lines: {long}"
    lines = source.count("\n")
    doc = " ".join((ast.get_docstring(tree) or "").split())
    assert lines <= MAX_MODULE_LINES or "One cohesive thing" in doc, (
        f"openwiki_git/{name}: {lines} lines; split it, or say at its top why it is one cohesive thing"
    )


def test_tests_mirror_the_packages():
    """tests/<package>/ for every test module but the architecture's own; no stray test directory."""
    tests = ROOT / "tests"
    top = sorted(p.name for p in tests.glob("test_*.py"))
    assert top == ["test_layers.py"], f"test modules outside a package directory: {top}"
    dirs = {p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"}
    stray = dirs - set(package_table()) - {"e2e", "support", "fixtures", "data"}
    assert not stray, f"tests/{sorted(stray)} names no package of openwiki_git"


# -- one owner each (issue 34): a rule written a second time fails here, naming its owner ------------
# Each checker reads a module's source and returns the lines where it spells the rule itself.
FORK_OWNER = "parallel"  # the one parallel map: the only module that forks
RACY_OWNER = "caches.statkey"  # the stat key and git's racy-file rule, for every cache
SIDECAR_PATH_OWNER = "formats.pagenames"  # a page's sidecar path, the sidecars' folder
SIDECAR_FOLDER = re.compile(r"(?:^|/)\.claims(?:/|$)")  # `.claims` as a path segment, not `$.claims[2]`
FORKING_NAMES = {"fork", "forkpty", "ProcessPoolExecutor"}
FILE_TIMES = {"st_mtime", "st_mtime_ns", "st_ctime", "st_ctime_ns"}


def _code_strings(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of the code, f-strings' literal parts included; not docstrings."""
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def forks(source: str) -> list[int]:
    """Where a module starts a process of its own: os.fork and the like, multiprocessing, a
    process pool, the "fork" start method."""
    tree = ast.parse(source)
    lines = [n.lineno for n in _code_strings(tree) if n.value == "fork"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in FORKING_NAMES or isinstance(node, ast.Name) and node.id in FORKING_NAMES:
            lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "multiprocessing" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and ((node.module or "").split(".")[0] == "multiprocessing"
                                                   or any(a.name in FORKING_NAMES for a in node.names)):
            lines.append(node.lineno)
    return sorted(lines)


def racy_rules(source: str) -> list[int]:
    """Where a module writes git's racy-file rule itself: RACY_NS named (defined, imported or
    measured from), or a file's mtime or ctime compared."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id == "RACY_NS" or isinstance(node, ast.Attribute) and node.attr == "RACY_NS":
            lines.append(node.lineno)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(a.name == "RACY_NS" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare) and any(isinstance(n, ast.Attribute) and n.attr in FILE_TIMES for n in ast.walk(node)):
            lines.append(node.lineno)
    return sorted(lines)


def sidecar_paths(source: str) -> list[int]:
    """Where a module spells the sidecars' folder or a page's sidecar path itself: `.claims` as a
    path segment in a string, or sidecar_name (the name half of the rule) called."""
    tree = ast.parse(source)
    lines = [n.lineno for n in _code_strings(tree) if SIDECAR_FOLDER.search(n.value)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "sidecar_name" or isinstance(func, ast.Attribute) and func.attr == "sidecar_name":
                lines.append(node.lineno)
    return sorted(lines)


def test_the_owner_checkers_find_a_second_spelling():
    assert forks("import os\npid = os.fork()\n") == [2]
    assert forks("import multiprocessing\nctx = multiprocessing.get_context('fork')\n") == [1, 2]
    assert forks("from concurrent.futures import ProcessPoolExecutor\n") == [1]
    assert forks("from os import fork\n") == [1]
    assert forks("import subprocess\nsubprocess.run(['git'])\n") == []
    assert racy_rules("limit = started - RACY_NS\n") == [1]
    assert racy_rules("racy = st.st_mtime_ns >= limit\n") == [1]
    assert racy_rules("key = (st.st_mtime_ns, st.st_size)\n") == []
    assert sidecar_paths('path = f"{wiki}/.claims/{name}"\n') == [1]
    assert sidecar_paths('claims = os.path.join(wiki, ".claims")\nside = pagenames.sidecar_name(page)\n') == [1, 2]
    assert sidecar_paths('where = "$.claims[2].id"\nNOTE = "generated from .claims; edit claims"\n"""`.claims/`: docs."""\n') == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_the_parallel_map_forks(name):
    lines = [] if name == FORK_OWNER else forks(MODULES[name].read_text("utf-8"))
    assert not lines, f"openwiki_git/{name} starts a process (lines {lines}): share the work through openwiki_git/parallel.py"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_statkey_writes_the_racy_rule(name):
    lines = [] if name == RACY_OWNER else racy_rules(MODULES[name].read_text("utf-8"))
    assert not lines, f"openwiki_git/{name} writes git's racy rule (lines {lines}): ask caches/statkey.py (racy, stat_key)"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_pagenames_spells_the_sidecar_path(name):
    lines = [] if name == SIDECAR_PATH_OWNER else sidecar_paths(MODULES[name].read_text("utf-8"))
    assert not lines, (
        f"openwiki_git/{name} spells the sidecars' path (lines {lines}): ask formats/pagenames.py "
        "(sidecar_path, claims_folder, page_of_path) or Wiki.sidecar_path"
    )
