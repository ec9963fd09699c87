"""What an example's claim cites beyond the head of each name it calls (ground/examples.py asks):
where the head does not show what the call passes, or what the example then uses of what the
project hands it. Pure: the files come in through the index.

- `head_resource`: a called class's, function's or method's head (`repo://pkg/x.py#Client:head`);
- `overload_resource`, `inherited_init`, `keyword_problem`: the `@overload` declaring the keywords
  a call passes, the `__init__` a class inherits, and what either accepts;
- `whole_if_short`: a decorator applied to a coroutine function, whole when short;
- `attribute`: an attribute read on a decorated function, by the lines setting it (`exposes`),
  and the method a local function set there hands its arguments to;
- `overrides`: what a class of the example's sets again of the project's class it derives from;
- `callback`, `elements`: the members a callback, or a loop's body, uses of the object the
  project's annotations say it gets (`Callable[["RetryCallState"], ...]`, `__iter__`'s
  `Generator[AttemptManager, ...]`), and their members in turn, as annotated.
"""

from __future__ import annotations

from collections import Counter

from openwiki_git.claims import accepts
from openwiki_git.claims import examples as claim_examples
from openwiki_git.evidence import definitions
from openwiki_git.evidence.kinds import Symbol
from openwiki_git.ground import resolve as gr
from openwiki_git.ground.index import Definition, SourceIndex
from openwiki_git.ground.names import lineset
from openwiki_git.ground.proves import HEAD_AFTER
from openwiki_git.ground.refs import Ref, Sentence

CITED_KINDS = ("class", "function", "method")  # what an example can call: what a head is cited for


def attribute(index: SourceIndex, call: claim_examples.Call, cited: dict[str, str], calls: Counter[str]) -> None:
    """An attribute the example reads on a function the project's decorator returned: the lines
    of the package that set it on such an object (`wrapped_f.statistics = {}`: not `self`'s), as
    a set; unknown (never broken) when none or too many do. Called with keywords, and set to a
    local function handing its `*args, **kwargs` on (`retry_with` to `self.copy`): the head of
    what takes them too. Read further (`f.retry.wait`, or patched: `mock.patch.object(f.retry,
    "wait", ...)`) when set to the object itself (`wrapped_f.retry = self`): its class's members."""
    found = lineset(index, "exposes", call.attribute)
    if found is None:
        calls["unknown"] += 1
        return
    calls["resolved"] += 1
    cited.setdefault(found.resource, f"{call.name}: .{call.attribute}")
    for path, line, _ in found.hits if call.keywords or call.receives else ():
        text, module = index.text(path), index.module_name(path)
        target = accepts.forwarded_to(text, line) if text and call.keywords else None  # `f.retry_with(stop=...)`
        methods = [d for d in index.expand(f"{module}.{target}") if d.kind in CITED_KINDS] if module and target else []
        head = head_resource(index, methods[0]) if len(methods) == 1 else None
        if head is not None:
            cited.setdefault(head, methods[0].qualname)
        owner = accepts.set_to_self(text, line) if text and call.receives else None  # `f.retry.wait`: `wrapped_f.retry = self`
        classes = [d for d in index.expand(f"{module}.{owner}") if d.kind == "class"] if module and owner else []
        cite_members(index, classes[0] if len(classes) == 1 else None, call.receives, cited)


def callback(index: SourceIndex, call: claim_examples.Call, page_repo_path: str, sentence: Sentence, cited: dict[str, str]) -> None:
    """A function of the example's passed as a keyword whose annotation is a `Callable[[T, ...],
    ...]` of a class of the project's (tenacity's `before_sleep: Callable[["RetryCallState"], None]`):
    the attributes the callback reads on its first parameter are T's, each cited (its declaration
    lines; a property's or a method's head). Nothing is reported when any step is unknown."""
    res = gr.resolve(Ref("symbol", call.name, call.text, sentence, called=True), index, page_repo_path=page_repo_path)
    if res.outcome != gr.RESOLVED or res.target is None or res.target.kind not in CITED_KINDS:
        return
    d = inherited_init(index, res.target) or res.target
    text = index.text(d.path)
    written = accepts.parameter_annotation(text, in_file(index, d), call.keyword) if text else None
    given = first_argument(written) if written else None
    cite_members(index, class_named(index, d, given) if given else None, call.receives, cited)


def overrides(index: SourceIndex, call: claim_examples.Call, page_repo_path: str, sentence: Sentence, cited: dict[str, str]) -> None:
    """A class of the example's deriving from one of the project's: the base's head, and each
    member the subclass sets or defines again that the base has (its attribute's lines, its
    method's head): what the subclass relies on keeping its meaning."""
    res = gr.resolve(Ref("symbol", call.name, call.text, sentence, called=True), index, page_repo_path=page_repo_path)
    if res.outcome != gr.RESOLVED or res.target is None or res.target.kind != "class":
        return
    head = head_resource(index, res.target)
    if head is not None:
        cited.setdefault(head, res.target.qualname)
    cite_members(index, res.target, call.receives, cited)


ELEMENT_METHODS = ("__iter__", "__anext__")
_ITERATORS = ("Generator", "Iterator", "Iterable", "AsyncGenerator", "AsyncIterator", "AsyncIterable")


def elements(index: SourceIndex, call: claim_examples.Call, page_repo_path: str, sentence: Sentence, cited: dict[str, str]) -> None:
    """What a loop does with the elements of iterating an object of the project's: the element's
    type is what `__iter__` is annotated to generate (`Generator[AttemptManager, None, None]`) or
    `__anext__` to return, and each member used on it (`__enter__`, `retry_state`) is cited."""
    res = gr.resolve(Ref("symbol", call.name, call.text, sentence, called=True), index, page_repo_path=page_repo_path)
    if res.outcome != gr.RESOLVED or res.target is None or res.target.kind != "class":
        return
    methods = [d for d in index.expand(f"{res.target.qualname}.{call.keyword}") if d.kind == "method"]
    text = index.text(methods[0].path) if len(methods) == 1 else None
    written = accepts.return_annotation(text, in_file(index, methods[0])) if text else None
    given = element_type(written) if written else None
    cite_members(index, class_named(index, methods[0], given) if given else None, call.receives, cited)


def element_type(annotation: str) -> str | None:
    """`t.Generator[AttemptManager, None, None]` -> `AttemptManager`; a plain (or quoted) name as
    it is; None else."""
    import ast

    try:
        node: ast.expr = ast.parse(annotation, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).rsplit(".", 1)[-1] in _ITERATORS:
        node = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip()
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else None


def cite_members(index: SourceIndex, cls: Definition | None, members: tuple[str, ...], cited: dict[str, str]) -> None:
    """Each of `members` of class `cls` (inheritance followed): a method's or property's head, an
    attribute's declaration lines. A chain (`retry_state.attempt_number`) goes on through what the
    project's annotations say each member is (`retry_state: "RetryCallState"`), while they say."""
    for chain in members:
        owner = cls
        for name in chain.split("."):
            found = index.expand(f"{owner.qualname}.{name}") if owner is not None else []
            if len(found) != 1:
                break
            cited.setdefault(head_resource(index, found[0]) or found[0].resource, found[0].qualname)
            owner = member_class(index, found[0])


def member_class(index: SourceIndex, d: Definition) -> Definition | None:
    """The project's class that member `d` is annotated to be (an attribute's annotation, or that
    of the `__init__` parameter assigned to it; a property's or method's return), else None."""
    text = index.text(d.path)
    written = accepts.member_annotation(text, in_file(index, d), d.kind, d.start) if text else None
    given = plain_type(written) if written else None
    return class_named(index, d, given) if given else None


def plain_type(annotation: str) -> str | None:
    """The one class an annotation names: `"RetryCallState"`, `Future | None`, `t.Optional[Future]`
    -> the name as written; None for anything else (a union of classes, a generic)."""
    import ast

    try:
        node: ast.expr = ast.parse(annotation, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return plain_type(node.value) if len(node.value) < len(annotation) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [s for s in (node.left, node.right) if not (isinstance(s, ast.Constant) and s.value is None)]
        return plain_type(ast.unparse(sides[0])) if len(sides) == 1 else None
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).rsplit(".", 1)[-1] == "Optional":
        return plain_type(ast.unparse(node.slice))
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else None


def first_argument(annotation: str) -> str | None:
    """The type of a `Callable[[T, ...], R]`'s first argument (through `X | None` and `Optional`),
    as written, quotes removed: `RetryCallState`; None else."""
    import ast

    try:
        node: ast.expr = ast.parse(annotation, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and ast.unparse(sub.value).rsplit(".", 1)[-1] == "Callable":
            args = sub.slice.elts[0] if isinstance(sub.slice, ast.Tuple) and sub.slice.elts else None
            first = args.elts[0] if isinstance(args, ast.List) and args.elts else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return first.value.strip()
            return ast.unparse(first) if first is not None else None
    return None


def class_named(index: SourceIndex, where: Definition, name: str) -> Definition | None:
    """The project's class `name` as the module defining `where` sees it, else the one class of
    that name in the project."""
    module = index.module_name(where.path)
    found = [d for d in index.expand(f"{module}.{name}") if d.kind == "class"] if module else []
    if not found and "." not in name:
        found = [d for d in index.suffix(name) if d.kind == "class"]
    return found[0] if len(found) == 1 else None


def called(index: SourceIndex, d: Definition, call: claim_examples.Call | None) -> list[tuple[str, str]]:
    """(resource, what it is) of what an example's call of `d` cites: its head (whole when it
    decorates a coroutine function and is short), the overload declaring the keywords passed
    (the head takes `**kwargs`), the `__init__` a class inherits when the call passes arguments
    (`Retrying(stop=...)`: BaseRetrying's). Nothing for what an example cannot call."""
    head = head_resource(index, d)
    if head is None:
        return []
    out = [(whole_if_short(index, d, head) if call is not None and call.coroutine else head, d.qualname)]
    declared = overload_resource(index, d, call.keywords) if call is not None else None
    if declared is not None:
        out.append((declared, d.qualname))
    init = inherited_init(index, d) if call is not None and passes_arguments(call) else None
    init_head = head_resource(index, init) if init is not None else None
    if init is not None and init_head is not None:
        out.append((init_head, init.qualname))
    return out


def in_file(index: SourceIndex, d: Definition) -> str:
    """`pkg._client.Client.get` -> `Client.get`: the definition's name inside its file."""
    module = index.module_name(d.path)
    return d.qualname[len(module) + 1 :] if module and d.qualname.startswith(module + ".") else d.qualname


def head_resource(index: SourceIndex, d: Definition) -> str | None:
    """The head of a class, function or method (`repo://pkg/x.py#Client:head`): what a caller
    sees of it (its signature, decorators and docstring summary; a class's `__init__` signature);
    None for what an example cannot call (a module, a variable)."""
    if d.kind not in CITED_KINDS or not d.path.endswith((".py", ".pyi")) or definitions.unsupported(d.path) is not None:
        return None
    return Symbol(d.path, in_file(index, d), True).canonical


def whole_if_short(index: SourceIndex, d: Definition, head: str) -> str:
    """A decorator applied to a coroutine function: its whole definition when short (its body
    tells what it does with one: tenacity's `retry` hands it to AsyncRetrying), else its head."""
    if d.kind != "function" or d.end - d.start + 1 > HEAD_AFTER:
        return head
    return Symbol(d.path, in_file(index, d)).canonical


def overload_resource(index: SourceIndex, d: Definition, keywords: tuple[str, ...]) -> str | None:
    """The lines of the `@overload` of function `d` that declares every keyword a call passes
    (claims/accepts.overload_accepting), as a line range; None without one."""
    text = index.text(d.path) if d.kind in ("function", "method") and keywords else None
    lines = accepts.overload_accepting(text, in_file(index, d), keywords) if text else None
    return f"repo://{d.path}#L{lines[0]}-L{lines[1]}" if lines else None


def passes_arguments(call: claim_examples.Call) -> bool:
    """Whether a call passes arguments its callee's signature must accept (`X(...)`, not `X()`,
    not a name only raised or caught)."""
    return bool(call.keywords) or (not call.imported and call.text.endswith("...)"))


def inherited_init(index: SourceIndex, d: Definition) -> Definition | None:
    """The `__init__` a class of the project takes its arguments with when it defines none
    itself: its base class's, inheritance followed (tenacity's `Retrying` and BaseRetrying's)."""
    if d.kind != "class":
        return None
    found = [x for x in index.expand(f"{d.qualname}.__init__") if x.kind == "method"]
    return found[0] if len(found) == 1 and found[0].qualname != f"{d.qualname}.__init__" else None


def keyword_problem(index: SourceIndex, call: claim_examples.Call, d: Definition) -> str | None:
    if d.kind not in CITED_KINDS or not call.keywords:
        return None
    text = index.text(d.path)
    sig = accepts.signature(text, in_file(index, d)) if text else None
    init = inherited_init(index, d) if sig is None else None
    if init is not None and (init_text := index.text(init.path)):
        sig = accepts.signature(init_text, in_file(index, init))
    return claim_examples.why_broken(call, call.name, True, sig, now=False)
