"""What a code example uses and when it is broken (claims/examples.py): its calls through its own
imports, a console's commands (read by pages/examples.py), a definition's signature, and the
check-side rule."""

from __future__ import annotations

from openwiki_git.claims import examples as ce
from openwiki_git.evidence.tokens import FILE_PREFIX
from openwiki_git.model import Claim, Evidence, FileText
from openwiki_git.pages import examples as pe


def one(code: str, lang: str = "python") -> pe.Example:
    (ex,) = pe.examples(f"```{lang}\n{code}```\n")
    return ex


def calls(code: str, lang: str = "python") -> list[tuple[str, str, tuple[str, ...]]]:
    return [(c.name, c.text, c.keywords) for c in ce.uses(one(code, lang)).calls]


def test_calls_are_named_through_the_examples_imports() -> None:
    code = (
        "import pkg\n"
        "import pkg.sub as s\n"
        "from pkg import Client as C\n"
        "from os import path\n"
        "client = C(verify=False, **extra)\n"
        "client.get('u', follow=True)\n"
        "with pkg.AsyncClient() as ac:\n"
        "    ac.post(u)\n"
        "pkg.Client().close()\n"
        "s.helper(1)\n"
        "def own():\n"
        "    pass\n"
        "own()\n"
        "path.join('a')\n"
        "x = unknown()\n"
        "x.method()\n"
    )
    assert calls(code) == [
        ("pkg.Client", "from pkg import Client", ()),
        ("os.path", "from os import path", ()),
        ("pkg.Client", "C(..., verify=...)", ("verify",)),
        ("pkg.Client.get", "client.get(..., follow=...)", ("follow",)),
        ("pkg.AsyncClient", "pkg.AsyncClient()", ()),
        ("pkg.AsyncClient.__enter__", "with pkg.AsyncClient(...)", ()),  # the context manager it makes
        ("pkg.AsyncClient.post", "ac.post(...)", ()),
        ("pkg.Client.close", "pkg.Client().close()", ()),
        ("pkg.Client", "pkg.Client()", ()),
        ("pkg.sub.helper", "s.helper(...)", ()),
        ("os.path.join", "path.join(...)", ()),
        ("unknown", "unknown()", ()),
    ]  # own() is the example's; x.method() is called on an object of unknown class


def test_decorators_annotations_and_defaults_are_calls_too() -> None:
    code = (
        "import typer\n"
        "from typing import Annotated\n"
        "app = typer.Typer()\n"
        "@app.command()\n"
        "def main(name: Annotated[str, typer.Argument()], age: int = typer.Option(1, min=0)):\n"
        "    typer.echo(name)\n"
        "@app.callback\n"
        "def cb():\n"
        "    pass\n"
        "app()\n"
    )
    names = [name for name, _, _ in calls(code)]
    assert names == ["typing.Annotated", "typer.Typer", "typer.Typer.command", "typer.Argument", "typer.Option", "typer.echo",
                     "typer.Typer.callback", "typer.Typer.__call__"]


def test_a_pycon_is_read_without_its_prompts_and_output() -> None:
    code = (
        ">>> import attr\n>>> @attr.s\n... class C:\n...     x = attr.ib()\n>>> C(1)\nC(x=1)\n"
        ">>> attr.asdict(C(1), recurse=False)\n{'x': 1}\n"
    )
    assert calls(code, "pycon") == [
        ("attr.s", "@attr.s", ()), ("attr.ib", "attr.ib()", ()), ("attr.asdict", "attr.asdict(..., recurse=...)", ("recurse",)),
    ]


def test_a_pages_examples_share_their_imports() -> None:
    found = pe.examples("```pycon\n>>> from attrs import define\n```\n\nthen\n\n```pycon\n>>> @define\n... class C: pass\n```\n")
    assert [c.name for c in ce.page_uses(found)[1].calls] == ["attrs.define"]
    assert [c.name for c in ce.uses(found[1]).calls] == ["define"]  # alone, the name is the example's own guess


def test_a_snippet_that_does_not_parse_whole_still_shows_its_calls() -> None:
    used = ce.uses(one("import pkg\n\npkg.run(port=1)\n\nthis is :: not python\n"))
    assert not used.parsed and [c.name for c in used.calls] == ["pkg.run"]


def test_console_commands_with_their_options_and_dotted_names() -> None:
    ex = one(
        "$ uvicorn main:app --reload --port=5000\nINFO: started\n$ python -m uvicorn \\\n    --host 0.0.0.0\n"
        "$ FOO=1 uv run gunicorn -k uvicorn.workers.UvicornWorker app.py\n",
        "console",
    )
    got = [(c.program, c.options, c.names, c.line) for c in pe.commands(ex)]
    assert got == [
        ("uvicorn", ("--reload", "--port"), (), 1),
        ("uvicorn", ("--host",), (), 3),  # a continued line is one command
        ("gunicorn", (), ("uvicorn.workers.UvicornWorker",), 5),  # app.py is a file, not a name
    ]


SOURCE = '''
import dataclasses
from typing import overload


class Client:
    def __init__(self, base, *, verify=True, timeout=None):
        pass

    def get(self, url, **kwargs):
        pass

    @staticmethod
    def make(size, /, colour):
        pass


@dataclasses.dataclass
class Point:
    x: int
    _y: int = 0


class Plain(Base):
    pass


@overload
def run(app: str, port: int) -> None: ...
@overload
def run(app: object, host: str) -> None: ...
def run(app, port=0, host=""):
    pass
'''


def test_signatures_read_from_the_definitions_file() -> None:
    from openwiki_git.claims import accepts as ce  # noqa: PLC0415 - claims/accepts.py, used by the rule here

    assert ce.signature(SOURCE, "Client") == ce.Signature(frozenset({"base", "verify", "timeout"}), False)
    assert ce.signature(SOURCE, "Client.get") == ce.Signature(frozenset({"url"}), True)
    assert ce.signature(SOURCE, "Client.make") == ce.Signature(frozenset({"colour"}), False)
    assert ce.signature(SOURCE, "Point") == ce.Signature(frozenset({"x", "_y", "y"}), False)  # attrs drops the underscore
    assert ce.signature(SOURCE, "Plain") is None  # its __init__ is a base's: not told here
    assert ce.signature(SOURCE, "run") == ce.Signature(frozenset({"app", "port", "host"}), False)
    assert ce.signature(SOURCE, "Gone") is None and ce.signature("def (:", "x") is None


def test_judge_names_the_call_and_the_parameter() -> None:
    call = ce.Call("pkg.Client", "Client(verify=...)", ("verify", "timeout"), 1)
    sig = ce.Signature(frozenset({"timeout"}), False)
    assert ce.why_broken(call, "pkg.Client", True, sig) == "`verify` is no longer a parameter of pkg.Client"
    assert ce.why_broken(call, "pkg.Client", True, ce.Signature(frozenset(), False), now=False) == (
        "`verify`, `timeout` are not a parameter of pkg.Client"
    )
    assert ce.why_broken(call, "pkg.Client", True, ce.Signature(frozenset(), True)) is None  # **kwargs takes it
    assert ce.why_broken(call, "pkg.Client", True, None) is None  # a signature that cannot be told is no finding
    assert ce.why_broken(call, "pkg.Client", False, None) == "pkg.Client is no longer defined"
    read = ce.Call("pkg.retry", "f.retry_with", ("stop",), 1, attribute="retry_with")  # `f.retry_with(stop=...)`
    assert ce.why_broken(read, "pkg.retry", True, ce.Signature(frozenset(), False)) is None  # not retry's own keywords


def reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return lambda path: FileText(path, files.get(path))


def _claim(*resources: str) -> Claim:
    return Claim("claim_1a2b3c4d" + "0" * 24, "S.", tuple(Evidence(r, FILE_PREFIX + "0" * 64) for r in resources))


PAGE = """\
# Use

```python
from pkg import Client, helper
c = Client("b", verify=False)
c.get("u", stream=True)
c.close(force=True)
helper()
```
<!-- c-1a2b3c4d -->
"""


def test_broken_calls_match_each_call_to_the_definition_the_claim_cites() -> None:
    claim = _claim("repo://pkg/_client.py#Client:head", "repo://pkg/_base.py#Base.close:head", "repo://pkg/util.py#helper:head")
    files = {
        "pkg/_client.py": "class Client(Base):\n    def __init__(self, base, *, timeout=None):\n        pass\n",
        "pkg/_base.py": "class Base:\n    def close(self, *, force=False):\n        pass\n",
    }
    assert ce.broken_calls(PAGE, claim, reader(files)) == (
        ("from pkg import helper", "pkg.helper is no longer defined"),  # its file is gone: said once, at the import
        ("Client(..., verify=...)", "`verify` is no longer a parameter of pkg.Client"),
    )
    # `c.get` cites nothing (no claim evidence names it); `c.close` matched `Base.close` by its last part
    files["pkg/_base.py"] = "class Base:\n    def close(self):\n        pass\n"
    assert ("c.close(force=...)", "`force` is no longer a parameter of pkg.Client.close") in ce.broken_calls(PAGE, claim, reader(files))
    # a claim whose marker is a footnote, or a page without the example, guards no example
    assert ce.broken_calls(PAGE.replace("<!-- c-1a2b3c4d -->", "Text.[^c-1a2b3c4d]"), claim, reader(files)) == ()
    records = ce.broken_records("use.md", "docs/use.md", PAGE, [claim], reader(files))
    assert {r["kind"] for r in records} == {"example"} and records[0]["line"] == 3 and records[0]["claim_id"] == claim.id


def test_hostile_code_is_read_in_bounded_time_without_a_crash() -> None:
    deep = "import pkg\npkg.run(" + "(" * 5000 + "1" + ")" * 5000 + ")\n"
    assert ce.uses(one(deep)).calls == ()  # too deep for `ast`: left alone, never a traceback
    wide = "import pkg\n" + "pkg.f(x=1)\n" * 20000
    assert len(ce.uses(one(wide)).calls) == 1  # one call, said once
    from openwiki_git.claims import accepts

    assert accepts.signature("def f(" + "(" * 5000, "f") is None


def test_overloads_are_what_a_call_is_held_to() -> None:
    """tenacity's `retry(*dargs, **dkw)` behind `@t.overload`s: a keyword no overload declares is
    not accepted (the implementation's `**dkw` takes what they declare), and the overload that
    declares every keyword a call passes is found by its lines."""
    from openwiki_git.claims.accepts import overload_accepting, signature

    source = ("import typing as t\n\n\n@t.overload\ndef retry(func): ...\n\n\n@t.overload\n"
              "def retry(*, stop=None, wait=None): ...\n\n\ndef retry(*dargs, **dkw):\n    return dkw\n")
    sig = signature(source, "retry")
    assert sig is not None and not sig.var_keyword and sig.keywords == {"func", "stop", "wait"}
    assert overload_accepting(source, "retry", ("stop", "wait")) == (8, 9)
    assert overload_accepting(source, "retry", ("stop", "wiat")) is None
    assert overload_accepting("def plain(**kw):\n    pass\n", "plain", ("x",)) is None


def test_what_an_example_calls_without_a_call() -> None:
    """An operator on an object the example made calls its class's special method (`|`: `__or__`),
    so does iterating it or using it as a context manager; `raise X` and `except X` use X; the
    body of an `except` is read too."""
    code = (
        "from pkg import Retrying, TryAgain, RetryError, stop_a, stop_b\n"
        "stop = stop_a(1) | stop_b(2)\n"
        "try:\n"
        "    for attempt in Retrying(stop=stop):\n"
        "        raise TryAgain\n"
        "except (RetryError, ValueError):\n"
        "    stop_a(3)\n"
        "r = Retrying()\n"
        "async def f():\n"
        "    async for a in r:\n"
        "        pass\n"
        "x = 1 + 2\n"
    )
    got = [(n, t) for n, t, _ in calls(code) if not t.startswith("from ")]
    assert got == [
        ("pkg.stop_a.__or__", "stop_a(...) | ..."), ("pkg.stop_a", "stop_a(...)"), ("pkg.stop_b", "stop_b(...)"),
        ("pkg.Retrying", "Retrying(stop=...)"), ("pkg.Retrying.__iter__", "for ... in Retrying(...)"),
        ("pkg.TryAgain", "raise TryAgain"), ("pkg.RetryError", "except RetryError"), ("ValueError", "except ValueError"),
        ("pkg.Retrying", "Retrying()"), ("pkg.Retrying.__aiter__", "async for ... in r"),
    ]  # `stop_a(3)` in the except body is read (and is one use with `stop_a(1)`); `1 + 2` makes no object of the project's


def test_a_class_without_init_is_judged_by_the_inherited_init_the_claim_cites() -> None:
    """`Retrying(wait=...)`: Retrying defines no `__init__`; the claim cites BaseRetrying's (as
    `ground` does), whose parameters judge the call; without it, the call is not judged."""
    source = "class BaseRetrying:\n    def __init__(self, stop=None):\n        pass\n\n\nclass Retrying(BaseRetrying):\n    pass\n"
    page = "```python\nfrom pkg import Retrying\nRetrying(wait=1)\n```\n<!-- c-1a2b3c4d -->\n"

    def claim(*names: str) -> Claim:
        return Claim(id="claim_1a2b3c4d" + "0" * 24, statement="s", evidence=tuple(
            Evidence(resource=f"repo://pkg/core.py#{n}:head", version=FILE_PREFIX + "0" * 64) for n in names))

    def read(path: str) -> FileText:
        return FileText(path, source)

    assert ce.broken_calls(page, claim("Retrying", "BaseRetrying.__init__"), read) == (
        ("Retrying(wait=...)", "`wait` is no longer a parameter of pkg.Retrying"),)
    assert ce.broken_calls(page, claim("Retrying"), read) == ()


def test_a_decorated_coroutine_and_the_attributes_a_decorator_sets() -> None:
    """`@retry` on an `async def` is marked (what it does with a coroutine is in its body); an
    attribute read on a function a decorator returned (`f.statistics`, `f.retry_with(...)`) is a
    use of what the decorator sets, named after it."""
    code = (
        "from pkg import retry\n"
        "@retry(stop=1)\n"
        "def f():\n"
        "    pass\n"
        "print(f.statistics)\n"
        "f.retry_with(stop=2)()\n"
        "@retry\n"
        "async def g():\n"
        "    pass\n"
    )
    got = [(c.name, c.text, c.coroutine, c.attribute, c.keywords) for c in ce.uses(one(code)).calls if not c.imported]
    assert got == [
        ("pkg.retry", "retry(stop=...)", False, "", ("stop",)), ("print", "print(...)", False, "", ()),
        ("pkg.retry", "f.statistics", False, "statistics", ()), ("pkg.retry", "f.retry_with", False, "retry_with", ("stop",)),
        ("pkg.retry", "@retry", True, "", ()),
    ]


def test_a_callback_passed_by_keyword_and_a_loops_elements_record_what_they_use() -> None:
    """A function of the example's passed as `before=` records what it reads on its first
    parameter; `for a in X(...)` records what the body uses of each element (`with a:`, `a.state`)."""
    code = (
        "from pkg import Retrying\n"
        "def log(state):\n"
        "    print(state.attempt, state.elapsed)\n"
        "for a in Retrying(before=log):\n"
        "    with a:\n"
        "        print(a.state)\n"
    )
    got = [(c.name, c.text, c.keyword, c.receives) for c in ce.uses(one(code)).calls if c.keyword]
    assert got == [
        ("pkg.Retrying", "for a in Retrying(...)", "__iter__", ("__enter__", "__exit__", "state")),
        ("pkg.Retrying", "before=log", "before", ("attempt", "elapsed")),
    ]


def test_members_of_members_are_recorded_as_chains() -> None:
    """`a.state.outcome.failed` records every step from the element on (ground follows each
    member's annotation); a chain longer than MEMBER_DEPTH keeps its first steps only."""
    code = (
        "from pkg import Retrying\n"
        "def log(state):\n"
        "    print(state.outcome.result())\n"
        "for a in Retrying(before=log):\n"
        "    if not a.state.outcome.failed:\n"
        "        a.state.set_result(a.state.attempt)\n"
        "    print(a.b.c.d.e)\n"
    )
    got = {c.keyword: c.receives for c in ce.uses(one(code)).calls if c.keyword}
    assert got == {
        "__iter__": ("state.outcome.failed", "state.outcome", "state.set_result", "state.attempt", "state", "b.c.d", "b.c", "b"),
        "before": ("outcome.result", "outcome"),
    }


def test_what_a_member_is_annotated_to_be_and_where_arguments_are_handed_on() -> None:
    """claims/accepts: a member's type from its annotation, the `__init__` parameter it is set
    from, or a property's return; a local function set as an attribute that hands `*args,
    **kwargs` on names what takes them, and one that hands on less names nothing."""
    from openwiki_git.claims.accepts import forwarded_to, member_annotation  # noqa: PLC0415 - the module under test

    source = (
        "class State:\n"                                          # 1
        "    def __init__(self, n: int, owner: 'Owner'):\n"       # 2
        "        self.n: int = n\n"                               # 3
        "        self.owner = owner\n"                            # 4
        "    @property\n"                                         # 5
        "    def done(self) -> 'Outcome | None':\n"               # 6
        "        return None\n"                                   # 7
        "    def wraps(self, f):\n"                               # 8
        "        def again(*args, **kwargs):\n"                   # 9
        "            return self.copy(*args, **kwargs).wraps(f)\n"  # 10
        "        def part(*args, **kwargs):\n"                    # 11
        "            return self.copy(*args)\n"                   # 12
        "        f.again = again\n"                               # 13
        "        f.part = part\n"                                 # 14
        "        return f\n"                                      # 15
    )
    assert member_annotation(source, "State.n", "attribute", 3) == "int"
    assert member_annotation(source, "State.owner", "attribute", 4) == "'Owner'"
    assert member_annotation(source, "State.done", "method", 6) == "'Outcome | None'"
    assert member_annotation(source, "State.n", "attribute", 99) is None
    assert member_annotation("def f(:\n", "State.n", "attribute", 3) is None
    assert forwarded_to(source, 13) == "State.copy"
    assert forwarded_to(source, 14) is None  # `**kwargs` not handed on: what takes the keywords is not told
    assert forwarded_to(source, 3) is None
