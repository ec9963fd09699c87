"""Definitions in source files other than Python, through tree-sitter (optional, lazy).

`pip install 'openwiki-git[ground]'` brings `tree-sitter` and the grammar wheels for JavaScript,
TypeScript, Go and Rust (each a self-contained wheel from PyPI; nothing is downloaded at run
time, unlike tree-sitter-language-pack 1.x, which fetches its grammars from GitHub on first use).
Without them, or for another language, a file contributes no definitions: its names are never
cited and never reported broken (`missing()` names the extra a claim on such a file needs).
Pure: text in, definitions out. The one adapter to tree-sitter, imported lazily by
evidence/definitions.py, the one owner of definition extents (ground's index and the claim
check both read them there).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

# extension -> (grammar module, language function)
GRAMMARS = {
    ".js": ("tree_sitter_javascript", "language"),
    ".mjs": ("tree_sitter_javascript", "language"),
    ".jsx": ("tree_sitter_javascript", "language"),
    ".ts": ("tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tree_sitter_typescript", "language_tsx"),
    ".go": ("tree_sitter_go", "language"),
    ".rs": ("tree_sitter_rust", "language"),
}
# node types that define a name (their `name` field), and whether they contain members
_DEFINING = {
    "class_declaration": "class", "class_definition": "class", "interface_declaration": "class",
    "function_declaration": "function", "generator_function_declaration": "function",
    "method_definition": "method", "method_declaration": "method", "method_signature": "method",
    "type_spec": "class", "type_alias_declaration": "class", "enum_declaration": "class",
    "struct_item": "class", "enum_item": "class", "trait_item": "class", "function_item": "function",
    "mod_item": "module", "const_item": "variable", "static_item": "variable",
}
_CONTAINERS = {"class_body", "declaration_list", "interface_body", "impl_item", "export_statement", "program", "source_file"}


@cache
def _parser(ext: str) -> Any:
    spec = GRAMMARS.get(ext)
    if spec is None:
        return None
    try:
        import tree_sitter

        grammar = __import__(spec[0])  # a top-level module: the same as import_module
    except ImportError:
        return None
    return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, spec[1])()))


def available() -> bool:
    return _parser(".js") is not None


def handles(path: str) -> bool:
    """Whether tree-sitter has a grammar for this file's extension (installed or not)."""
    return _ext(path) in GRAMMARS


def missing(path: str) -> str | None:
    """What is missing to read definitions in `path` (a known extension whose grammar is not
    installed): the extra to install; None when nothing is."""
    if handles(path) and _parser(_ext(path)) is None:
        return "the tree-sitter grammars are not installed: pip install 'openwiki-git[ground]'"
    return None


def _ext(path: str) -> str:
    return path[path.rfind(".") :] if "." in path else ""


def definitions(path: str, text: str) -> Iterator[tuple[str, int, int, str]]:
    """(qualified name, first line, last line, kind) of the file's definitions: `Class.method`
    within a class or impl block, `func` at the top."""
    for name, start, end, kind, _ in extents(path, text):
        yield name, start, end, kind


def extents(path: str, text: str) -> Iterator[tuple[str, int, int, str, int]]:
    """definitions() plus the last line of each definition's head (up to where its body starts)."""
    parser = _parser(_ext(path))
    if parser is None:
        return
    tree = parser.parse(text.encode("utf-8"))
    yield from _walk(tree.root_node, "", 0)


def _walk(node: Any, prefix: str, depth: int) -> Iterator[tuple[str, int, int, str, int]]:
    if depth > 6:
        return
    for child in node.named_children:
        kind = _DEFINING.get(child.type)
        if kind is None and child.type == "lexical_declaration" and not prefix:
            for decl in child.named_children:
                name = decl.child_by_field_name("name")
                value = decl.child_by_field_name("value")
                if name is not None and value is not None and value.type in ("arrow_function", "function_expression", "function"):
                    first = child.start_point[0] + 1
                    yield name.text.decode(), first, child.end_point[0] + 1, "function", first
            continue
        if kind is None and child.type == "type_declaration":
            yield from _walk(child, prefix, depth + 1)
            continue
        if kind is None and child.type == "impl_item":
            target = child.child_by_field_name("type")
            inner = child.child_by_field_name("body")
            if target is not None and inner is not None:
                yield from _walk(inner, f"{target.text.decode()}.", depth + 1)
            continue
        if kind is None:
            if child.type in _CONTAINERS:
                yield from _walk(child, prefix, depth + 1)
            continue
        name_node = child.child_by_field_name("name")
        if name_node is None:
            continue
        name = name_node.text.decode()
        if child.type == "method_declaration" and not prefix:  # Go: func (r *Recv) Name()
            recv = child.child_by_field_name("receiver")
            if recv is not None:
                rtype = recv.text.decode().strip("()").split()[-1].lstrip("*")
                name = f"{rtype.split('[')[0]}.{name}"
        if kind == "function" and prefix:
            kind = "method"  # a Rust `fn` inside `impl`
        body = child.child_by_field_name("body")
        head_end = body.start_point[0] + 1 if body is not None else child.end_point[0] + 1
        yield f"{prefix}{name}", child.start_point[0] + 1, child.end_point[0] + 1, kind, head_end
        if body is not None and kind in ("class", "module"):
            yield from _walk(body, f"{prefix}{name}.", depth + 1)
