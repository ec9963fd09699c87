"""The layering of docs/architecture.md, checked on the source (ast), plus what `check` imports.

- Pure cores import only the standard library (minus I/O, process, clock and network modules)
  and lower pure layers.
- No module imports a module of a higher layer (same-layer imports are allowed).
- Third-party libraries stay in their adapter: pygit2 in git.py/gitdiff.py, langchain in
  refresher.py, PyGithub in github_api.py, ruamel.yaml in yamlio.py/frontmatter.py.
- Only main.py, commands/* and report.py print.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "openwiki_git"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

# Pure modules (layers 0-3 of docs/architecture.md). Modules that the document adds to layer 3
# later are picked up from its table as well (see `documented_layers`).
PURE = {
    "errors", "model", "compat", "checker", "fixer", "citations", "sidecar", "mdrefs", "mddoc", "graph_search", "graph_refs",
    "graph_link", "graph_context", "citestale",
}
# Standard-library modules a pure core must not use: no file system, process, env, clock, network.
IMPURE_STDLIB = {
    "os", "pathlib", "shutil", "tempfile", "glob", "fcntl", "io", "subprocess", "socket", "ssl",
    "http", "urllib.request", "time", "signal", "threading", "multiprocessing", "sqlite3",
    "importlib", "sys", "random", "uuid",
}
# third-party top-level package -> the only modules allowed to import it
# agent_tools.py (the evidence graph's LangChain tools) imports langchain_core inside a function;
# docs/architecture.md names only refresher.py: tolerated while lazy (see test_lazy_langchain).
OWNERS = {
    "pygit2": {"git", "gitdiff"},
    "langchain": {"refresher"},
    "langchain_core": {"refresher", "agent_tools"},
    "langchain_openai": {"refresher"},
    "openai": {"refresher"},
    "github": {"github_api"},
    "tree_sitter": {"ground_ts"},
    "ruamel": {"yamlio", "frontmatter"},
    "filelock": {"locking"},
    "pygments": {"cosmetic"},
}
PRINTERS = {"main", "report", "__main__"}
# Third-party libraries a pure core may use: computation only. Pygments' lexers turn text into
# tokens (cosmetic.py asks it for a lexer class by file name, without its plugin lookup).
PURE_THIRD_PARTY = {"cosmetic": {"pygments"}}


def module_name(path: Path) -> str:
    return path.relative_to(PKG).with_suffix("").as_posix().replace("/", ".")


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py")) if p.name != "__init__.py" or p.parent != PKG}


def documented_layers() -> dict[str, int]:
    """`module -> layer` from the layer table of docs/architecture.md (`commands/<name>.py` is
    every command module)."""
    layers: dict[str, int] = {}
    for line in ARCHITECTURE.read_text("utf-8").splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
        if not m:
            continue
        for name in re.findall(r"`([\w/<>]+)\.py`", m.group(2)):
            if name == "commands/<name>":
                layers.update({n: int(m.group(1)) for n in MODULES if n.startswith("commands.")})
            else:
                layers[name.replace("/", ".")] = int(m.group(1))
    return layers


LAYERS = documented_layers()
PURE_ALL = PURE | {name for name, layer in LAYERS.items() if layer <= 3}


def imports(path: Path) -> list[tuple[str, int]]:
    """Absolute names of every runtime import (TYPE_CHECKING blocks excluded), with line numbers."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    out = []
    package = module_name(path).rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
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
            if mod == "openwiki_git" or (mod.startswith("openwiki_git.") and not node.level):
                # `from openwiki_git import compat` imports the module compat
                out.extend(
                    (f"{mod}.{alias.name}", node.lineno)
                    for alias in node.names
                    if f"{mod}.{alias.name}".removeprefix("openwiki_git.") in MODULES
                )
    return out


def internal(name: str) -> str | None:
    """`openwiki_git.x.y` -> `x.y` when it is a module of the package; `openwiki_git` -> ''."""
    if name == "openwiki_git":
        return ""
    if name.startswith("openwiki_git."):
        rest = name.removeprefix("openwiki_git.")
        while rest and rest not in MODULES:
            rest = rest.rpartition(".")[0]
        return rest
    return None


def test_architecture_table_is_parsed():
    assert LAYERS.get("model") == 1 and LAYERS.get("compat") == 2 and LAYERS.get("checker") == 3
    assert LAYERS.get("main") == 8 and LAYERS.get("commands.check") == 7


@pytest.mark.parametrize("name", sorted(PURE_ALL & set(MODULES)))
def test_pure_core_imports(name):
    layer = LAYERS.get(name, 3)
    bad = []
    for imported, line in imports(MODULES[name]):
        top = imported.split(".")[0]
        mod = internal(imported)
        if mod is not None:
            if mod == "":
                continue  # the package root: __version__ and PRODUCER, stdlib only
            if mod not in PURE_ALL or LAYERS.get(mod, 3) > layer:
                bad.append(f"line {line}: {imported} (not a lower pure layer)")
        elif top not in sys.stdlib_module_names and top != "__future__":
            if top not in PURE_THIRD_PARTY.get(name, ()):
                bad.append(f"line {line}: {imported} (third-party)")
        elif imported in IMPURE_STDLIB or top in IMPURE_STDLIB:
            bad.append(f"line {line}: {imported} (I/O, process, clock or network)")
    assert not bad, f"openwiki_git/{name}.py is pure but imports:\n" + "\n".join(bad)


def test_package_root_is_stdlib_only():
    for imported, line in imports(PKG / "__init__.py"):
        assert imported.split(".")[0] in sys.stdlib_module_names | {"__future__"}, (imported, line)


@pytest.mark.parametrize("name", sorted(set(LAYERS) & set(MODULES)))
def test_no_upward_imports(name):
    layer = LAYERS[name]
    bad = [
        f"line {line}: {imported} (layer {LAYERS[mod]})"
        for imported, line in imports(MODULES[name])
        if (mod := internal(imported)) and mod in LAYERS and LAYERS[mod] > layer
    ]
    assert not bad, f"openwiki_git/{name}.py (layer {layer}) imports upward:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_third_party_stays_in_its_adapter(name):
    bad = []
    for imported, line in imports(MODULES[name]):
        top = imported.split(".")[0]
        owners = OWNERS.get(top)
        if owners is not None and name not in owners:
            bad.append(f"line {line}: {imported} (only {', '.join(sorted(owners))} may)")
    assert not bad, f"openwiki_git/{name}.py:\n" + "\n".join(bad)


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
    if name in PRINTERS or name.startswith("commands."):
        return
    tree = ast.parse(MODULES[name].read_text("utf-8"))
    bad = [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print")
        or (isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr")
            and isinstance(node.value, ast.Name) and node.value.id == "sys")
    ]
    assert not bad, f"openwiki_git/{name}.py prints (lines {bad}); return data and let report/commands print"


FORBIDDEN_ON_CHECK_PATH = ("langchain", "langchain_core", "langchain_openai", "openai", "github", "jsonschema", "ruamel")


@pytest.mark.parametrize("module", ["openwiki_git.commands.check", "openwiki_git.main"])
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


def test_check_run_without_config_imports_nothing_heavy(wiki_repo):
    """A full `check` run (no config.yml) loads neither jsonschema, ruamel, nor any model or
    GitHub client. With a config.yml only the config reader's imports may be added."""
    (wiki_repo.root / ".openwiki" / "config.yml").unlink()
    code = (
        "import sys\n"
        "from openwiki_git.main import main\n"
        f"rc = main(['-C', {str(wiki_repo.root)!r}, 'check'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    loaded = set(ast.literal_eval(proc.stdout.strip().splitlines()[-1]))
    assert not loaded & set(FORBIDDEN_ON_CHECK_PATH), sorted(loaded & set(FORBIDDEN_ON_CHECK_PATH))


def test_check_run_with_config_imports_no_clients(wiki_repo):
    code = (
        "import sys\n"
        "from openwiki_git.main import main\n"
        f"rc = main(['-C', {str(wiki_repo.root)!r}, 'check'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    loaded = set(ast.literal_eval(proc.stdout.strip().splitlines()[-1]))
    assert not loaded & {"langchain", "langchain_core", "langchain_openai", "openai", "github"}
