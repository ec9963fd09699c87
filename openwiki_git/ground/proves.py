"""What a sentence's reference cites: the code that makes the sentence true, not only the code
that names it. Pure: the files come in through the index.

A sentence says what code **does** (it raises, returns, defaults to, retries, is called when,
accepts, ...), or only **names** a thing (use X, see X, X exists, X is a class), or neither
plainly. Then, for a definition the sentence refers to:

- a parameter the sentence names (`timeout`, "the chunk size") of the function, or of the class's
  `__init__`: the lines that declare it (its annotation and default), and the whole function
  when its default is `None` (the default is then set in the body);
- a function or a method: its whole definition (the body holds the behaviour) for a behaviour
  sentence, its head (signature and docstring summary) for a naming one; otherwise its whole
  definition when short, its head when its body (the lines past the head: a long signature is no
  long body) is longer than a screen unless the sentence quotes what only the body has
  (body_quotes). A behaviour sentence about a definition whose body is longer than a screen that
  quotes nothing only its body has cites the head and is `undecided`: which of its lines hold the
  behaviour is the model's to say (a 300-line body cited whole is marked by every docstring
  rewrite and refactoring in it);
- a class: its head for a naming sentence or a neutral one. For a behaviour sentence that names no
  member, the deterministic pass cannot tell which method holds the behaviour: it cites the head,
  and says so (`undecided`; `ground --plan` lists it, `ground --model` decides). A class that
  defines no function, no longer than a screen, is its attributes (uvicorn's `UvicornH11Worker`
  is `CONFIG_KWARGS = {"loop": "asyncio", "http": "h11"}`; an enum, a dataclass's fields): its
  whole definition, whatever the sentence (not an exception's: where it is raised says what it does);
- a short script (`#!` first, no longer than a screen) a behaviour sentence names ("the release
  can be published using the `scripts/publish` script"): the whole script;
- anything else (a variable's assignment, a module, a file, a line): its lines.

A method the sentence names through its class (`Client.send`, "`.send()` on a `Client`") cites the
method, and the class's own reference then adds nothing (deterministic.py drops it).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol, stored_kind
from openwiki_git.evidence.tokens import split_lines
from openwiki_git.ground.index import Definition, SourceIndex

BEHAVIOUR, NAMING, NEUTRAL = "behaviour", "naming", "neutral"
_BEHAVIOUR = re.compile(
    r"\b(?:raise[sd]?|rais(?:es|ing)|returns?|returned|returning|defaults?|defaulted|retr(?:y|ies|ied|ying)|"
    r"(?:is|are|gets?|being) (?:called|invoked|triggered|used|ignored|skipped|run)|accepts?|rejects?|ignores?|"
    r"requires?|disables?|enables?|closes?|sends?|reads?|writes?|creates?|yields?|emits?|logs?|triggers?|waits?|"
    r"stops?|starts?|validates?|converts?|sets?|checks?|skips?|fails?|times? out|timeouts?|limits?|handles?|"
    r"parses?|loads?|stores?|caches?|overrides?|takes?|produces?|generates?|computes?|resolves?|matches?|"
    r"allows?|prevents?|blocks?|encodes?|decodes?|serializes?|compress(?:es)?|sorts?|filters?|"
    r"only|never|always|unless|instead|automatically|by default|must|cannot|can't|doesn't|does not|won't|"
    r"when|whenever|if|after|before|until)\b",
    re.IGNORECASE,
)
_NAMING = re.compile(
    r"^(?:use|see|refer to|read|try|import|install|check out|for (?:more|details))\b|"
    r"\b(?:is|are) (?:a|an|the) (?:class|function|method|decorator|helper|module|type|object|alias|subclass|"
    r"exception|protocol|field|attribute|constant)\b|\b(?:is|are) (?:available|defined|provided|exported|documented)\b|"
    r"\b(?:exists?|see also|api reference)\b",
    re.IGNORECASE,
)


_EXCEPTION_SUFFIXES = ("Exception", "Error", "Warning")
_RAISED = re.compile(r"\b(?:rais(?:e|es|ed|ing)|throw(?:s|n|ing)?|thrown|catch(?:es|ing)?|caught)\b", re.IGNORECASE)


def says_raised(sentence: str) -> bool:
    """Whether the sentence is about an exception being raised or caught."""
    return _RAISED.search(re.sub(r"`[^`]*`", " X ", sentence)) is not None


def says_does(sentence: str) -> bool:
    """Whether the sentence is about what code does (BEHAVIOUR)."""
    return sentence_kind(sentence) == BEHAVIOUR


def sentence_kind(sentence: str) -> str:
    """behaviour, naming or neutral (see the module docstring)."""
    prose = re.sub(r"`[^`]*`", " X ", sentence)
    if _BEHAVIOUR.search(prose):
        return BEHAVIOUR
    return NAMING if _NAMING.search(prose.strip()) else NEUTRAL


@dataclass(frozen=True, slots=True)
class Cite:
    """One evidence item for a reference: the resource, what it cites (head, body, lines, a
    parameter's lines, a set of lines, a file), and, when the pass could not tell what holds the
    behaviour, why (`undecided`)."""

    resource: str
    cites: str
    undecided: str = ""


class Prover:
    """Picks each reference's evidence (see the module docstring); files parsed once per run."""

    def __init__(self, index: SourceIndex) -> None:
        self.index = index
        self._extents: dict[str, list[definitions.Extent]] = {}

    def span(self, resource: str) -> tuple[str, int, int]:
        """(path, first line, last line) a resource cites: a line range's lines, a definition's
        (or its head's) lines now; a set is its own point, (resource, -1, -1)."""
        if "?grep=" in resource:
            return resource, -1, -1
        kind = stored_kind(resource)
        if isinstance(kind, Symbol):
            if kind.path not in self._extents:
                text = self.index.text(kind.path)
                self._extents[kind.path] = definitions.definitions(kind.path, text) if text else []
            ext = next((e for e in reversed(self._extents[kind.path]) if e.name == kind.name), None)
            if ext is not None:
                return (kind.path, ext.head[0][0], ext.head[-1][1]) if kind.head else (kind.path, ext.start, ext.end)
        if kind is not None or "#L" not in resource:
            return resource, -1, -1
        path, _, lines = resource.removeprefix("repo://").partition("#")
        start, _, end = lines.partition("-")
        return path, int(start[1:]), int(end[1:] or start[1:])

    def cite(self, d: Definition, sentence: str, fallback: str) -> Cite:
        """The evidence for definition `d` in `sentence`; `fallback`: what named_resource
        cites (the rule before sentences were read, kept for neutral sentences)."""
        if d.kind in ("attribute", "variable") and not d.toplevel:
            param = self._init_parameter(d)
            if param is not None:
                return param
        lines = self.index.lines(d.path) if d.kind == "line" and d.qualname == d.path else []
        if _short_script(lines) and sentence_kind(sentence) == BEHAVIOUR:  # "published using the `scripts/publish` script"
            return Cite(f"repo://{d.path}#L1-L{len(lines)}", "file")
        if d.kind not in ("class", "function", "method") or definitions.unsupported(d.path) is not None:
            return Cite(d.resource, "file" if d.kind == "module" else "lines")
        kind = sentence_kind(sentence)
        if _what(fallback) not in ("head", "body"):
            return Cite(fallback, _what(fallback))
        name = fallback.split("#", 1)[1].removesuffix(":head")
        param = self.parameter(d, name, sentence)
        if param is not None:
            return param
        if d.kind == "class" and d.end - d.start + 1 <= HEAD_AFTER and self.attributes_only(d) and not self.is_exception(d):
            return Cite(Symbol(d.path, name).canonical, "body")  # `CONFIG_KWARGS = {"loop": "asyncio", ...}`: what it is
        if kind == NAMING:
            return Cite(Symbol(d.path, name, True).canonical, "head")
        if d.kind == "class":
            return self._class(d, name, sentence, kind)
        if kind == BEHAVIOUR and _what(fallback) == "body":  # named_resource found its body short
            return Cite(Symbol(d.path, name).canonical, "body")
        if kind == BEHAVIOUR:  # longer than a screen, quoting nothing only its body has
            return Cite(fallback, "head", "a sentence about what a long definition does: which of its lines hold it?")
        return Cite(fallback, _what(fallback))

    def _class(self, d: Definition, name: str, sentence: str, kind: str) -> Cite:
        """A class in a sentence that does not only name it: the one method whose body has what
        the sentence quotes from the class's body (body_quotes); the whole class when several do;
        else its head, undecided when the sentence is about behaviour."""
        text = self.index.text(d.path) or ""
        lines = split_lines(text)
        found = definitions.definitions(d.path, text)
        ext = next((e for e in found if e.name == name), None)
        quoted = body_quotes(self.index, sentence, ext, lines) if ext is not None else []
        if quoted:
            members = [e for e in found if e.name.startswith(name + ".") and e.kind != "class"
                       and all(_has_word(e.body_text(lines), w) for w in quoted)]
            if len(members) == 1:
                return Cite(Symbol(d.path, members[0].name).canonical, "body")
            return Cite(Symbol(d.path, name).canonical, "body")
        why = "a sentence about what the class does names none of its members: which method holds it?" if kind == BEHAVIOUR else ""
        return Cite(Symbol(d.path, name, True).canonical, "head", why)

    def _init_parameter(self, d: Definition) -> Cite | None:
        """An attribute its class's `__init__` takes as a parameter of the same name: that
        parameter's declaration (`Client.timeout`, set from `timeout=5.0`)."""
        owner, _, attr = d.qualname.rpartition(".")
        cls = next((c for c in self.index.defs.get(owner, ()) if c.kind == "class"), None)
        if cls is None:
            return None
        return self.parameter(cls, _in_file(self.index, cls), f"`{attr}`")

    def parameter(self, d: Definition, name: str, sentence: str) -> Cite | None:
        """The declaration of a parameter `sentence` names, of the function or of the class's
        `__init__`; the whole function too when its default is `None` (set in the body). A
        function that takes `**kwargs` and declares its keywords in `@overload`s (tenacity's
        `retry(*dargs, **dkw)`) has them declared there: the last overload naming it."""
        node = self._node(d, name)
        if node is None:
            return None
        cite = self._declared(node, d, name, sentence)
        if cite is not None or node.args.kwarg is None:
            return cite
        for overload in reversed(self._overloads(d.path, node)):
            cite = self._declared(overload, d, name, sentence, none_set_in_body=False)
            if cite is not None:
                return cite
        return None

    def _declared(self, node: ast.FunctionDef | ast.AsyncFunctionDef, d: Definition, name: str, sentence: str,
                  none_set_in_body: bool = True) -> Cite | None:
        """The parameter's declaration lines; the function's body when `None` is its default and
        the body sets it (an overload's `= None` has no body: its line)."""
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        first_default = len(positional) - len(args.defaults)
        pairs: list[tuple[ast.arg, ast.expr | None]] = list(zip(positional[first_default:], args.defaults, strict=True))
        pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
        defaults = {a.arg: dflt for a, dflt in pairs}
        for a in [*positional, *args.kwonlyargs]:
            if a.arg in ("self", "cls") or not _names(sentence, a.arg):
                continue
            default = defaults.get(a.arg)
            end = max(a.end_lineno or a.lineno, (default.end_lineno or default.lineno) if default is not None else 0)
            lines = f"repo://{d.path}#L{a.lineno}-L{end}"
            if none_set_in_body and isinstance(default, ast.Constant) and default.value is None:
                owner = name if d.kind != "class" else f"{name}.__init__"
                return Cite(Symbol(d.path, owner).canonical, "body")
            return Cite(lines, "parameter")
        return None

    def _overloads(self, path: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The `@overload`-decorated functions of `node`'s name in the body that holds it."""
        tree = self.tree(path)
        for parent in ast.walk(tree) if tree is not None else ():
            body = getattr(parent, "body", None)
            if isinstance(body, list) and any(n is node for n in body):
                return [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and n.name == node.name and n is not node and any(_is_overload(dec) for dec in n.decorator_list)]
        return []

    def _node(self, d: Definition, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function's (or the class's `__init__`'s) node."""
        if not d.path.endswith((".py", ".pyi")):
            return None
        tree = self.tree(d.path)
        if tree is None:
            return None
        defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        for node in ast.walk(tree):
            if isinstance(node, defs) and definitions.python_extent(node) == (d.start, d.end):
                if isinstance(node, ast.ClassDef):
                    init = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"]
                    return init[0] if init else None
                return node
        return None

    def is_exception(self, d: Definition) -> bool:
        """Whether class `d` is an exception: a base of its is named `...Exception`, `...Error`
        or `...Warning` (`class TryAgain(Exception)`), or it is named so itself."""
        if d.kind != "class":
            return False
        if d.qualname.rsplit(".", 1)[-1].endswith(_EXCEPTION_SUFFIXES):
            return True
        tree = self.tree(d.path) if d.path.endswith((".py", ".pyi")) else None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ClassDef) and definitions.python_extent(node) == (d.start, d.end):
                return any(ast.unparse(b).rsplit(".", 1)[-1].endswith(_EXCEPTION_SUFFIXES) for b in node.bases)
        return False

    def attributes_only(self, d: Definition) -> bool:
        """Whether class `d` defines no function: its body is its docstring and its attributes
        (a worker's `CONFIG_KWARGS`, an enum's members, a dataclass's fields), which say what it is."""
        tree = self.tree(d.path) if d.path.endswith((".py", ".pyi")) else None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ClassDef) and definitions.python_extent(node) == (d.start, d.end):
                inner = (n for n in ast.walk(node) if n is not node)
                return not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in inner)
        return False

    def tree(self, path: str) -> ast.Module | None:
        """The file parsed, once a run (None: unparsable)."""
        return self.index.tree(path)


def _is_overload(decorator: ast.expr) -> bool:
    """`@overload`, `@typing.overload`, `@t.overload`."""
    return (isinstance(decorator, ast.Name) and decorator.id == "overload") or (
        isinstance(decorator, ast.Attribute) and decorator.attr == "overload")


def _what(resource: str) -> str:
    fragment = resource.split("#", 1)[1] if "#" in resource else ""
    if not fragment:
        return "file"
    if fragment.startswith("L"):
        return "lines"
    return "head" if fragment.endswith(":head") else "body"


def _names(sentence: str, arg: str) -> bool:
    """Whether the sentence names parameter `arg`: in a code span (`timeout`, `verify=...`), or a
    snake_case name spelt out (`chunk_size`, "the chunk size"). A one-word name in plain prose
    ("timeout") is too common a word to decide on."""
    spans = [m.group(1) for m in re.finditer(r"`([^`]+)`", sentence)]
    if any(s == arg or s.startswith((f"{arg}=", f"{arg} =")) for s in spans):
        return True
    if "_" not in arg.strip("_"):
        return False
    spelt = " ".join(w for w in arg.split("_") if w)
    return re.search(rf"\b(?:{re.escape(arg)}|{re.escape(spelt)})\b", sentence, re.IGNORECASE) is not None


# -- the rule before sentences were read: a definition by name, or its head past a screen --------

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
    head = d.kind == "class" or long_body(ext)
    if head and body_quotes(index, sentence, ext, split_lines(text)):
        head = False
    return Symbol(d.path, name, head).canonical


def long_body(ext: definitions.Extent) -> bool:
    """Whether a definition's lines past its head fill more than a screen. The head is not
    counted: typer's `Typer.callback` declares twenty parameters over a twenty-line body, and it
    is the body that a sentence about what the decorator does needs."""
    return ext.end - ext.head[-1][1] > HEAD_AFTER


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


def _short_script(lines: list[str]) -> bool:
    """`#!` first and no longer than a screen: what a sentence says the script does is all of it."""
    return bool(lines) and lines[0].startswith("#!") and len(lines) <= HEAD_AFTER


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None
