"""reStructuredText pages read with docutils, the parser Sphinx itself uses: the only docutils user
(imported lazily, only when a `.rst` page is read).

A page becomes blocks with offsets into its text, the shape pages/sentences.py gives a Markdown
page: `prose` (paragraphs, list items, definitions, an admonition's or a Sphinx directive's
body), `code` (literal blocks after `::`, `code-block`/`sourcecode`/`code`, doctest blocks and
the doctest extension's `testcode`/`doctest`/`testsetup`/`testoutput`), `other` (section titles,
terms, table cells, line blocks). A paragraph that introduces a literal block (it ends in `::`)
is `other`: a marker after it would take the literal block's place.

Sphinx's own directives and roles are unknown to plain docutils: before parsing, each one the
page uses is registered as what it is to a reader (code, a body of prose, or nothing to read:
`toctree`, `automodule`), and each unknown role as inline literal text keeping its name, so
``:func:`pkg.f` `` stays a reference to `pkg.f`. Nothing is included, nothing raw is passed,
no message is printed: a page docutils finds faulty is still read as far as it goes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from openwiki_git.pages.rst_markers import CODE_DIRECTIVES

_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w.:+-]*)::", re.MULTILINE)
_ROLE = re.compile(r"(?<![\w`]):([A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*):`")
# Sphinx's version notes: the text after the version is prose.
VERSION_DIRECTIVES = frozenset({"versionadded", "versionchanged", "deprecated", "versionremoved"})
# Directives whose content is no prose to ground: lists of pages, generated API docs' options.
SKIPPED_DIRECTIVES = frozenset({
    "toctree", "autosummary", "automodule", "autoclass", "autofunction", "automethod", "autoattribute",
    "autodata", "autoexception", "currentmodule", "module", "py:module", "py:currentmodule", "index",
    "highlight", "include", "graphviz", "mermaid", "plot", "release-notes", "towncrier-draft-entries",
    "literalinclude", "csv-table", "list-table",
})


@dataclass(frozen=True, slots=True)
class Block:
    kind: str  # "prose", "code" or "other"
    start: int  # offset of the block's first character in the page (after a bullet)
    end: int  # offset of the end of its last line (before the line break)


def blocks(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the page's blocks, in page order (as sentences.blocks gives them)."""
    return [(b.kind, b.start, b.end) for b in read(text)]


def read(text: str) -> list[Block]:
    """The page's blocks, parsed by docutils."""
    doctree = _parse(text)
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out: list[Block] = []
    for node, kind in _walk(doctree):
        span = _locate(node, lines, starts, anywhere=kind != "prose")
        if span is not None:
            out.append(Block(kind, *span))
    out.sort(key=lambda b: b.start)
    return _without_overlaps(out)


def _without_overlaps(found: list[Block]) -> list[Block]:
    out: list[Block] = []
    for b in found:
        if out and b.start < out[-1].end:
            continue  # a block located inside the previous one (a nested literal's own copy)
        out.append(b)
    return out


def _walk(doctree: Any) -> list[tuple[Any, str]]:
    from docutils import nodes

    out: list[tuple[Any, str]] = []
    skip = (nodes.system_message, nodes.comment, nodes.substitution_definition, nodes.problematic, nodes.raw, nodes.target)

    def visit(node: Any, in_table: bool) -> None:
        if isinstance(node, skip):
            return
        if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            out.append((node, "code"))
            return
        if isinstance(node, nodes.paragraph):
            intro = node.rawsource.rstrip().endswith("::")
            out.append((node, "other" if in_table or intro else "prose"))
            return
        if isinstance(node, (nodes.title, nodes.term, nodes.line_block, nodes.rubric, nodes.field_name)):
            out.append((node, "other"))
            return
        for child in node.children:
            if isinstance(child, nodes.Element):
                visit(child, in_table or isinstance(node, nodes.table))

    visit(doctree, False)
    return out


def _locate(node: Any, lines: list[str], starts: list[int], *, anywhere: bool = False) -> tuple[int, int] | None:
    """The node's place in the page: its first source line found near the line docutils gives
    (a title's is its underline's), the block as long as its source. Prose starts a line, after
    its indentation or bullet; `anywhere`: other text (a table's cell) may start mid-line."""
    raw = node.get("owg_source") or node.rawsource or node.astext()
    raw_lines = [ln.strip() for ln in str(raw).strip("\n").split("\n")]
    if not raw_lines or not raw_lines[0]:
        return None
    first = raw_lines[0]
    given = node.get("owg_line") or node.line or _line_of_parent(node)
    if given is None:
        return None
    for line in sorted(range(max(1, given - 3), min(len(lines), given + 3) + 1), key=lambda n: abs(n - given)):
        at = lines[line - 1].find(first)
        if at >= 0 and (anywhere or lines[line - 1][:at].strip(" \t-*+#|>0123456789.()") == ""):
            if len(raw_lines) == 1:  # one line: the node's own text (a table cell, not its row)
                return starts[line - 1] + at, starts[line - 1] + at + len(first)
            last = min(len(lines), line + len(raw_lines) - 1)
            return starts[line - 1] + at, starts[last - 1] + len(lines[last - 1].rstrip())
    return None


def _line_of_parent(node: Any) -> int | None:
    parent = node.parent
    while parent is not None:
        if parent.line:
            return int(parent.line)
        parent = parent.parent
    return None


def roles(text: str) -> list[tuple[str, str, int]]:
    """(role, target, offset) of each interpreted text with a role in `text` (`:func:`x``,
    `:py:class:`~a.B``): the most precise references a page makes."""
    out = []
    for m in re.finditer(r"(?<![\w`]):([A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*):`([^`]+)`", text):
        out.append((m.group(1), m.group(2), m.start()))
    return out


# -- docutils ----------------------------------------------------------------------------------


def _parse(text: str) -> Any:
    from docutils import frontend, utils
    from docutils.parsers.rst import Parser

    _register(text)
    parser = Parser()
    settings = frontend.get_default_settings(Parser)
    settings.report_level = 5
    settings.halt_level = 5
    settings.warning_stream = False
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    settings.character_level_inline_markup = False
    document = utils.new_document("<page>", settings)
    parser.parse(text, document)
    return document


class _AnyOptions(dict[str, Any]):
    """Every option a Sphinx directive may take is accepted, as text."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        from docutils.parsers.rst import directives

        return directives.unchanged


def _register(text: str) -> None:
    """The page's directives and roles that docutils does not know, registered as what they are."""
    from docutils.parsers.rst import directives, languages
    from docutils.parsers.rst import roles as rst_roles

    language = languages.get_language("en")
    for name in set(_DIRECTIVE.findall(text)):
        known = name in _registered_directives or directives._directives.get(name) or (
            name in language.directives or name in directives._directive_registry
        )
        if name in CODE_DIRECTIVES:
            directives.register_directive(name, _directive("code"))
        elif name in VERSION_DIRECTIVES:
            directives.register_directive(name, _directive("note"))
        elif name in SKIPPED_DIRECTIVES:
            directives.register_directive(name, _directive("skipped"))
        elif not known:
            directives.register_directive(name, _directive("body"))
        _registered_directives.add(name)
    for name in set(_ROLE.findall(text)):
        if name not in rst_roles._roles and name not in language.roles and name not in rst_roles._role_registry:
            rst_roles.register_local_role(name, _literal_role)


_registered_directives: set[str] = set()


def _literal_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None) -> Any:
    from docutils import nodes

    return [nodes.literal(rawtext, text, role=name)], []


def _directive(kind: str) -> Any:
    """The directive class of a Sphinx directive docutils does not know, by what it is to a reader:
    "code" (its content a literal block), "body" (its content prose), "note" (a version note: the
    text after the version, on its line or the next, is prose too) or "skipped" (nothing to read).
    Every option is accepted."""
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class Lenient(Directive):
        has_content = True
        required_arguments = 1 if kind == "note" else 0
        optional_arguments = 1 if kind in ("code", "note") else 3
        final_argument_whitespace = True
        option_spec = _AnyOptions()

        def run(self) -> list[Any]:
            if kind == "skipped" or (kind == "code" and not self.content):
                return []
            if kind == "code":
                source = "\n".join(self.content)
                node = nodes.literal_block(source, source)
                node["owg_line"] = self.content_offset + 1
                node["owg_source"] = source
                return [node]
            body = nodes.container()
            if kind == "note" and len(self.arguments) > 1:
                para = nodes.paragraph(self.arguments[1], self.arguments[1])
                para["owg_line"] = self.lineno + 1
                body += para
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, body)
            return [body]

    return Lenient
