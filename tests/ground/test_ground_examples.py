"""Code examples guarded, through the real CLI in a real repository: `ground` gives each example
that uses the project's API one claim (a comment marker after its fence, the heads of what it calls
as evidence; a console's program and options), reports a broken call at once, and leaves the rest
alone with a reason; then a change to a called signature marks the claim in the hook, which names
the broken call, as `check`, `check --base` and `lint` do."""

from __future__ import annotations

import json

import pytest

from openwiki_git.evidence.kinds import GrepSet, check_query
from openwiki_git.formats import schema
from openwiki_git.ground.names import query
from tests.support.ground_docs import ground_all
from tests.support.kinds_repo import staged_hook
from tests.support.repo import GitRepo

PYPROJECT = '[project]\nname = "pkg"\nversion = "1"\n\n[project.scripts]\npkgcli = "pkg.cli:main"\n'
INIT = "from ._client import Client, connect\n"
CLIENT = '''\
"""The client."""


class Client:
    """A client."""

    def __init__(self, base, *, verify=True, timeout=None):
        self.base = base

    def get(self, url, **options):
        """Fetch a URL."""
        return url


def connect(base, retries=3):
    """Connect."""
    return Client(base)
'''
CLI = '''\
import argparse


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int)
    p.add_argument("--reload", action="store_true")
    return p
'''
GUIDE = """\
---
type: Reference
---

# Guide

Make a client:

```python
import pkg

client = pkg.Client("https://x", verify=False)
client.get("/a", stream=True)
```

Connect in a console session:

    >>> from pkg import connect
    >>> connect("https://x", retries=1)

Serve it:

```console
$ pkgcli --port 5000 --reload
```

Its options:

```
$ pkgcli --help
usage: pkgcli [--port PORT] [--reload]
```

Old examples:

```python
import pkg
pkg.connect("https://x", retry=2)
pkg.gone()
```

Your own code:

```python
import json
def app():
    return json.dumps({})
```
"""


@pytest.fixture
def examples_repo(repo: GitRepo) -> GitRepo:
    repo.write("pyproject.toml", PYPROJECT)
    repo.write("pkg/__init__.py", INIT)
    repo.write("pkg/_client.py", CLIENT)
    repo.write("pkg/cli.py", CLI)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/guide.md", GUIDE)
    repo.commit_all("docs")
    return repo


PORT = "repo://pkg/cli.py?grep=%5B%22'%2F%5D--port(%3F!%5B%5Cw-%5D)"
RELOAD = "repo://pkg/cli.py?grep=%5B%22'%2F%5D--reload(%3F!%5B%5Cw-%5D)"


def _json(repo: GitRepo, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    rc = repo.run(*argv, "--format", "json")
    return rc, json.loads(capsys.readouterr().out)


def _planned(repo: GitRepo, capsys: pytest.CaptureFixture[str], exports: str, source: str, page: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    """`ground --all --plan` on a package `pkg` (its `pkg/core.py` is `source`, `exports` what
    `pkg/__init__.py` imports from it) and one docs page, `docs/use.md`."""
    repo.write("pkg/__init__.py", f"from pkg.core import {exports}\n")
    repo.write("pkg/core.py", source)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/use.md", page)
    repo.commit_all("docs")
    return _json(repo, capsys, "ground", "--all", "--plan")


def test_ground_guards_examples_and_the_hook_check_and_lint_name_a_broken_call(
    examples_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = examples_repo
    rc, plan = _json(repo, capsys, "ground", "--all", "--plan")
    assert rc == 1  # the old example's calls are broken at once
    examples = plan["pages"][0]["examples"]
    assert [(a["line"], a["evidence"]) for a in examples["added"]] == [
        (9, ["repo://pkg/_client.py#Client:head", "repo://pkg/_client.py#Client.get:head"]),
        (18, ["repo://pkg/_client.py#connect:head"]),
        # each option: the lines that mention it, as a flag named in prose is cited (ground/names.py)
        (23, ["repo://pyproject.toml#L6-L6", PORT, RELOAD]),
        (29, ["repo://pyproject.toml#L6-L6", "repo://pkg/cli.py#main:head"]),  # a help shows what the entry point declares
        (36, ["repo://pkg/_client.py#connect:head"]),
    ]
    assert [(b["line"], b["reference"], b["reason"]) for b in examples["broken"]] == [
        (38, "pkg.connect(..., retry=...)", "`retry` is not a parameter of pkg.connect"),
        (39, "pkg.gone()", "pkg has no gone"),
    ]
    assert examples["left_alone"] == {"uses nothing of the project's": 1} and examples["found"] == 6
    assert examples["calls"] == {"resolved": 7, "ambiguous": 0, "broken": 2, "unknown": 0}
    assert plan["summary"]["examples"]["added"] == 5
    assert repo.read("docs/guide.md") == GUIDE  # a plan writes nothing

    capsys.readouterr()
    assert repo.run("ground", "--all") == 1
    out = capsys.readouterr().out
    assert "docs/guide.md:9: grounded the example in pkg/_client.py#Client:head, pkg/_client.py#Client.get:head" in out
    assert "docs/guide.md:38: broken example call `pkg.connect(..., retry=...)`: `retry` is not a parameter of pkg.connect" in out
    text = repo.read("docs/guide.md")
    sidecar = json.loads(repo.read("docs/.claims/guide.json"))
    by_line = {c["statement"]: c for c in sidecar["claims"]}
    first = by_line['The python example starting `client = pkg.Client("https://x", verify=False)` (4 lines) works with the code as it is.']
    label = "c-" + first["id"][6:14]
    assert f'client.get("/a", stream=True)\n```\n<!-- {label} -->\n\nConnect' in text
    assert "    >>> connect(\"https://x\", retries=1)\n<!-- c-" in text  # after the indented block
    assert "[^c-" not in text and "openwiki-git:citations" not in text  # comment markers only: no footnote block
    assert [e["resource"] for e in first["evidence"]] == ["repo://pkg/_client.py#Client:head", "repo://pkg/_client.py#Client.get:head"]
    # idempotent: the guarded examples are guarded already
    rc, again = _json(repo, capsys, "ground", "--all", "--plan")
    assert again["summary"]["examples"]["added"] == 0 and again["summary"]["examples"]["already"] == 5
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "grounded")

    # The signature loses `verify`: the hook marks the example's claim and names the broken call.
    repo.write("pkg/_client.py", CLIENT.replace("*, verify=True, timeout=None", "*, timeout=None"))
    repo.git("add", "pkg/_client.py")
    capsys.readouterr()
    assert repo.run("hook") == 1
    out = capsys.readouterr().out
    assert (
        f"{first['id']}: {first['statement']} (pkg/_client.py#Client:head definition Client:head changed (L4-L5, L7-L7 now) "
        "by @@ -7 +7 @@; "
        "breaks `pkg.Client(..., verify=...)`: `verify` is no longer a parameter of pkg.Client)"
    ) in " ".join(line.strip() for line in out.splitlines())  # the hook wraps its lines at the terminal's width
    assert out.count("breaks `") == 1  # connect's examples did not change
    rc, report = _json(repo, capsys, "check")
    assert rc == 1 and schema.problems("check-report", report) == []
    marked = next(c for c in report["claims"] if c["id"] == first["id"])
    line = marked["line"]  # PAGE:LINE is the example's opening fence (the hook's re-render added front matter)
    page = repo.read("docs/guide.md").splitlines()
    assert marked["status"] == "stale" and page[line - 1] == "```python" and page[line + 2].startswith("client = pkg.Client(")
    broken = [b for b in report["broken_references"] if b["kind"] == "example"]
    assert [(b["line"], b["reference"], b["reason"], b["claim_id"]) for b in broken][0] == (
        line, "pkg.Client(..., verify=...)", "`verify` is no longer a parameter of pkg.Client", first["id"]
    )
    # the old example, broken when it was grounded, keeps being reported while its claim stands
    assert [b["reference"] for b in broken[1:]] == ["pkg.connect(..., retry=...)"]
    capsys.readouterr()
    assert repo.run("check") == 1
    said = f"docs/guide.md:{line}: broken example call `pkg.Client(..., verify=...)`: `verify` is no longer a parameter of pkg.Client"
    assert said in capsys.readouterr().out
    capsys.readouterr()
    repo.run("lint")
    assert f"docs/guide.md:{line}: broken-example: `pkg.Client(..., verify=...)` breaks the example" in capsys.readouterr().out
    repo.git("commit", "-q", "-m", "verify goes")
    rc, ci = _json(repo, capsys, "check", "--base", "HEAD~1")
    assert rc == 1
    ci_claim = next(c for c in ci["claims"] if c["id"] == first["id"])
    assert "breaks `pkg.Client(..., verify=...)`: `verify` is no longer a parameter of pkg.Client" in ci_claim["notes"]


def test_the_projects_programs_from_pyproject_setup_cfg_or_setup_py() -> None:
    from openwiki_git.ground.examples import Program, programs
    from openwiki_git.ground.index import SourceIndex

    def index(files: dict[str, str]) -> SourceIndex:
        return SourceIndex(files, files.get)

    assert programs(index({"pyproject.toml": PYPROJECT})) == {"pkgcli": Program("pyproject.toml", 6, "pkg.cli.main", table=5)}
    poetry = '[tool.poetry]\nname = "pkg"\n\n[tool.poetry.scripts]\npkgcli = "pkg.cli:main"\n'
    assert programs(index({"pyproject.toml": poetry})) == {"pkgcli": Program("pyproject.toml", 5, "pkg.cli.main", table=4)}
    nested = (  # typer's build tool: its `typer` distribution's scripts, in a table of its own
        '[project]\nname = "typer-slim"\n\n[tool.build.packages.typer.project]\noptional-dependencies = {}\n\n'
        '[tool.build.packages.typer.project.scripts]\ntyper = "typer.cli:main"\n'
    )
    assert programs(index({"pyproject.toml": nested})) == {"typer": Program("pyproject.toml", 8, "typer.cli.main", table=7)}
    inline = '[project]\nname = "pkg"\nscripts = { pkgcli = "pkg.cli:main" }\n'  # no header of its own: its line alone
    assert programs(index({"pyproject.toml": inline})) == {"pkgcli": Program("pyproject.toml", 3, "pkg.cli.main", table=0)}
    setup_py = 'setup(\n    entry_points="""\n    [console_scripts]\n    uvicorn=uvicorn.main:main\n    """,\n)\n'
    assert programs(index({"setup.py": setup_py})) == {"uvicorn": Program("setup.py", 4, "uvicorn.main.main")}
    setup_cfg = "[options.entry_points]\nconsole_scripts =\n    tool = pkg.cli:run\n"
    assert programs(index({"setup.cfg": setup_cfg, "pyproject.toml": "[project]\nname = 'x'\n"})) == {
        "tool": Program("setup.cfg", 3, "pkg.cli.run")
    }
    assert programs(index({"pyproject.toml": "not = [toml"})) == {}


def test_a_name_the_package_imports_from_another_library_is_not_broken(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """`typer.echo` is click's, re-exported by `from click.utils import echo as echo`: it exists."""
    repo.write("pkg/__init__.py", "from json import dumps as dumps\nfrom ._client import Client\n")
    repo.write("pkg/_client.py", CLIENT)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/use.md", "# Use\n\n```python\nimport pkg\npkg.dumps({})\npkg.Client('b')\npkg.nothere()\n```\n")
    repo.commit_all("docs")
    rc, plan = _json(repo, capsys, "ground", "--all", "--plan")
    examples = plan["pages"][0]["examples"]
    assert rc == 1 and [b["reference"] for b in examples["broken"]] == ["pkg.nothere()"]
    assert examples["calls"] == {"resolved": 1, "ambiguous": 0, "broken": 1, "unknown": 1}


STRATEGIES = '''\
class stop_base:
    def __or__(self, other):
        return stop_any(self, other)


class stop_any(stop_base):
    def __init__(self, *stops):
        self.stops = stops


class stop_after(stop_base):
    def __init__(self, attempts):
        self.attempts = attempts


class BaseRetrying:
    def __init__(self, stop=None, reraise=False):
        self.stop = stop

    def __iter__(self):
        yield self


class Retrying(BaseRetrying):
    """Retrying controller."""
'''


def test_an_example_cites_what_it_calls_implicitly_and_an_inherited_init(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """tenacity's examples: `stop_after(1) | stop_after(2)` calls the base class's `__or__`,
    `for a in Retrying(...)` its `__iter__`, and `Retrying(stop=...)` takes its keywords with
    BaseRetrying's `__init__`: each is cited, and a keyword that `__init__` does not take is broken."""
    rc, plan = _planned(repo, capsys, "Retrying, stop_after", STRATEGIES, "# Use\n\n```python\nfrom pkg import Retrying, stop_after\n\n"
                              "for attempt in Retrying(stop=stop_after(1) | stop_after(2), reraise=True):\n    pass\n```\n\n"
                              "```python\nimport pkg\npkg.Retrying(wait=1)\n```\n")
    examples = plan["pages"][0]["examples"]
    first = examples["added"][0]
    assert first["evidence"] == [
        "repo://pkg/core.py#Retrying:head", "repo://pkg/core.py#stop_after:head", "repo://pkg/core.py#BaseRetrying.__init__:head",
        "repo://pkg/core.py#BaseRetrying.__iter__:head", "repo://pkg/core.py#stop_base.__or__:head",
    ]
    assert rc == 1 and [(b["reference"], b["reason"]) for b in examples["broken"]] == [
        ("pkg.Retrying(wait=...)", "`wait` is not a parameter of pkg.Retrying")]


DECORATOR = '''\
import asyncio


def retry(f):
    """Retry the function."""
    if asyncio.iscoroutinefunction(f):
        return _async(f)

    def wrapped():
        return f()

    wrapped.statistics = {}
    return wrapped


def _async(f):
    async def wrapped():
        return await f()

    wrapped.statistics = {}
    return wrapped
'''


def test_a_decorated_coroutine_cites_the_short_decorator_whole_and_an_attribute_its_setting(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """tenacity's examples: `@retry` on an `async def` cites retry's whole definition (short: its
    body tells what it does with a coroutine), and `f.statistics` the lines that set it on the
    function a decorator returns (not `self`'s)."""
    rc, plan = _planned(repo, capsys, "retry", DECORATOR, "# Use\n\n```python\nfrom pkg import retry\n\n@retry\nasync def f():\n"
                        "    pass\n```\n\n```python\nfrom pkg import retry\n\n@retry\ndef g():\n    pass\n\nprint(g.statistics)\n```\n")
    first, second = plan["pages"][0]["examples"]["added"]
    assert first["evidence"] == ["repo://pkg/core.py#retry:head", "repo://pkg/core.py#retry"]
    assert second["evidence"] == ["repo://pkg/core.py#retry:head", GrepSet("pkg/core.py", query("exposes", "statistics")).canonical]
    found = check_query(query("exposes", "statistics"))
    assert [n for n, line in enumerate(DECORATOR.splitlines(), 1) if found.search(line)] == [12, 20]


STATE = '''\
import typing as t


class CallState:
    def __init__(self, attempt: int):
        self.attempt = attempt

    @property
    def elapsed(self) -> float:
        return 0.0


class Attempt:
    def __init__(self, state: CallState):
        self.state = state

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass


class Retrying:
    def __init__(self, before: t.Callable[["CallState"], None] | None = None):
        self.before = before

    def __iter__(self) -> t.Generator[Attempt, None, None]:
        yield Attempt(CallState(1))
'''


def test_what_a_callback_and_a_loop_use_of_the_objects_they_are_given_is_cited(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """tenacity's examples: a callback passed as `before=` reads `state.attempt` and
    `state.elapsed` on the CallState its annotation `Callable[["CallState"], None]` says it gets;
    `for a in Retrying(...)` then `with a:` and `a.state` use the Attempt `__iter__` is annotated
    to generate. Each member used is cited: an attribute's declaration, a method's head."""
    rc, plan = _planned(repo, capsys, "Retrying", STATE, "# Use\n\n```python\nfrom pkg import Retrying\n\ndef log(state):\n"
                        "    print(state.attempt, state.elapsed)\n\nfor a in Retrying(before=log):\n    with a:\n"
                        "        print(a.state)\n```\n")
    [added] = plan["pages"][0]["examples"]["added"]
    assert rc == 0 and added["targets"] == [
        "pkg.core.Retrying", "pkg.core.Attempt.__enter__", "pkg.core.Attempt.__exit__", "pkg.core.Attempt.state",
        "pkg.core.Retrying.__iter__", "pkg.core.CallState.attempt", "pkg.core.CallState.elapsed",
    ], added
    assert "repo://pkg/core.py#L6-L6" in added["evidence"] and "repo://pkg/core.py#CallState.elapsed:head" in added["evidence"]


CHAIN = '''\
import typing as t


class Outcome:
    @property
    def failed(self) -> bool:
        return False


class CallState:
    def __init__(self, attempt: int):
        self.attempt: int = attempt
        self.outcome: Outcome | None = None

    def set_result(self, value: object) -> None:
        self.outcome = Outcome()


class Attempt:
    def __init__(self, state: "CallState"):
        self.state = state


class Retrying:
    def __iter__(self) -> t.Generator[Attempt, None, None]:
        yield Attempt(CallState(1))

    def copy(self, stop: int | None = None) -> "Retrying":
        return Retrying()

    def wraps(self, f):
        def retry_with(*args, **kwargs):
            return self.copy(*args, **kwargs).wraps(f)

        f.retry_with = retry_with
        return f


def retry(f):
    return Retrying().wraps(f)
'''


def test_members_of_members_and_what_a_decorators_attribute_hands_its_keywords_to_are_cited(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """tenacity's `attempt.retry_state.outcome.failed`: each member of the chain is cited through
    what the project's annotations say the previous one is (`state: "CallState"`, `outcome:
    Outcome | None`); `g.retry_with(stop=3)` cites the `copy` its local function hands `*args,
    **kwargs` to, whose head tells that `stop` is taken."""
    rc, plan = _planned(repo, capsys, "Retrying, retry", CHAIN, "# Use\n\n```python\nfrom pkg import Retrying\n\nfor a in Retrying():\n"
                              "    if not a.state.outcome.failed:\n        a.state.set_result(a.state.attempt)\n```\n\n"
                              "```python\nfrom pkg import retry\n\n@retry\ndef g():\n    pass\n\ng.retry_with(stop=3)()\n```\n")
    loop, decorated = plan["pages"][0]["examples"]["added"]
    assert rc == 0 and loop["targets"] == [
        "pkg.core.Retrying", "pkg.core.Attempt.state", "pkg.core.CallState.outcome", "pkg.core.Outcome.failed",
        "pkg.core.CallState.set_result", "pkg.core.CallState.attempt", "pkg.core.Retrying.__iter__",
    ], loop
    assert "repo://pkg/core.py#Outcome.failed:head" in loop["evidence"] and "repo://pkg/core.py#L13-L13" in loop["evidence"], loop
    assert decorated["evidence"] == [
        "repo://pkg/core.py#retry:head", GrepSet("pkg/core.py", query("exposes", "retry_with")).canonical,
        "repo://pkg/core.py#Retrying.copy:head",
    ]


WORKER = '''\
class Worker:
    CONFIG_KWARGS = {"loop": "auto"}

    def run(self) -> None:
        pass
'''


def test_a_subclass_cites_what_it_sets_again_of_the_projects_class(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """uvicorn's `class MyUvicornWorker(UvicornWorker): CONFIG_KWARGS = {...}`: the example relies
    on the base's `CONFIG_KWARGS` (its lines) and on the method it defines again (its head)."""
    rc, plan = _planned(repo, capsys, "Worker", WORKER, "# Use\n\n```python\nfrom pkg import Worker\n\nclass Mine(Worker):\n"
                        "    CONFIG_KWARGS = {\"loop\": \"asyncio\"}\n\n    def run(self):\n        pass\n```\n")
    [added] = plan["pages"][0]["examples"]["added"]
    assert rc == 0 and added["evidence"] == [
        "repo://pkg/core.py#Worker:head", "repo://pkg/core.py#L2-L2", "repo://pkg/core.py#Worker.run:head",
    ], added


_CLI_PACKAGE = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/cli.py": "def main():\n    return 0\n"}


def test_a_sentence_saying_a_package_has_a_command_cites_the_lines_declaring_it(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """typer's "If you don't want to have the `typer` command, install `typer-slim`": the
    table and line declaring the program, so moving the command to another distribution (the
    commit making typer-slim a shallow wrapper) marks it. What the command does, or the project's
    name alone, is no such sentence."""
    from openwiki_git.ground.examples import named_program
    from openwiki_git.ground.index import SourceIndex

    index = SourceIndex(["pyproject.toml"], {"pyproject.toml": PYPROJECT}.get)
    assert named_program(index, "If you don't want to have the `pkgcli` command, install pkg-slim.", "pkgcli") is not None
    assert named_program(index, "The `pkgcli` command is only included in the full package.", "pkgcli") is not None
    assert named_program(index, "The `pkgcli` command runs any script.", "pkgcli") is None  # its code's
    assert named_program(index, "Installing `pkgcli` is easy.", "pkgcli") is None  # the name alone
    page = "# Guide\n\nWhen you install `pkg`, it adds a `pkgcli` command to your shell.\n"
    (claim,) = ground_all(repo, capsys, {**_CLI_PACKAGE, "docs/guide.md": page})["pages"][0]["claims"]
    assert claim["evidence"] == ["repo://pyproject.toml#L5-L6"]


def test_python_dash_m_cites_the_packages_main_module(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m pkg` runs pkg/__main__.py, not the console script pyproject declares: its lines
    are the evidence; a package without one keeps the console script's line."""
    page = "# Guide\n\n```console\n$ python -m pkg\n```\n\n```console\n$ pkgcli\n```\n"
    files = {**_CLI_PACKAGE, "pkg/__main__.py": "from pkg.cli import main\n\nmain()\n", "docs/guide.md": page}
    claims = ground_all(repo, capsys, files)["pages"][0]["claims"]
    assert [c["evidence"] for c in claims] == [["repo://pkg/__main__.py#L1-L3"], ["repo://pyproject.toml#L6-L6"]]


PROGRAM = '''\
import click

app = click.Group()
utils = click.Group()
app.add_command(utils, name="utils")


def add_run(cli):
    if "run" not in cli.commands:
        cli.add_command(click.Command("run"), "run")


@utils.command()
def docs(output=None, name=None):
    return output, name


def main():
    return app()
'''


def test_a_console_example_cites_where_the_program_declares_the_commands_it_runs(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """typer's `typer main.py run --name Camila` and `typer pkg.main utils docs --output README.md`:
    beside the console script's line, the code of the program's module declaring `run` (the
    short function adding it, whole), `utils` (the line passing the name) and `docs` (the
    command's head: it declares its options). The script's path, its own options and their
    values are nothing of the program's."""
    page = ("# Guide\n\n```console\n$ pkgcli main.py run --name camila\nHello camila\n```\n\n"
            "```console\n$ pkgcli pkg.main utils docs --output readme.md\n```\n")
    files = {**_CLI_PACKAGE, "pkg/cli.py": PROGRAM, "docs/guide.md": page}
    claims = ground_all(repo, capsys, files)["pages"][0]["claims"]
    assert [c["evidence"] for c in claims] == [
        ["repo://pyproject.toml#L6-L6", "repo://pkg/cli.py#add_run"],
        ["repo://pyproject.toml#L6-L6", "repo://pkg/cli.py#L5-L5", "repo://pkg/cli.py#docs:head"],
    ]


def test_a_list_of_bare_usages_led_into_by_a_sentence_is_grounded(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """typer's "those *CLI options* take a value with the name of the shell, e.g.:" then the
    items `--install-completion bash`. and `--show-completion powershell`.: each usage, a
    statement there, gets its claim (the option's lines), and the sentence leading into them is
    guarded by them; a bare usage nothing leads into stays no statement."""
    cli = ('import argparse\n\n\ndef main():\n    p = argparse.ArgumentParser()\n'
           '    p.add_argument("--install-completion")\n    p.add_argument("--show-completion")\n')
    page = ("# Guide\n\nThe options take the name of the shell, e.g.:\n\n* `--install-completion bash`.\n"
            "* `--show-completion powershell`.\n\nMore:\n\nText between.\n\n`--show-completion zsh`\n")
    claims = ground_all(repo, capsys, {**_CLI_PACKAGE, "pkg/cli.py": cli, "docs/guide.md": page})["pages"][0]["claims"]
    install = "repo://pkg/cli.py?grep=%5B%22'%2F%5D--install-completion(%3F!%5B%5Cw-%5D)"
    show = "repo://pkg/cli.py?grep=%5B%22'%2F%5D--show-completion(%3F!%5B%5Cw-%5D)"
    assert {c["statement"]: c["evidence"] for c in claims} == {
        "The options take the name of the shell, e.g.:": [install, show],
        "`--install-completion bash`.": [install],
        "`--show-completion powershell`.": [show],
    }


def test_usages_say_what_their_lead_says_and_a_consequence_what_its_condition_says(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """typer's "If you didn't add `shellingham` (...) those *CLI options* take a value with the
    name of the shell to install completion for, e.g.:", its items `--install-completion bash`.
    and `--show-completion powershell`., and "Then you can tell the user to install completion
    after installing your CLI program and the rest will just work.": when shellingham became
    required upstream rewrote all four, and only the lead carried what changed. Each usage is
    guarded by the names its lead makes too, and the sentence starting "Then" by the evidence of
    the "If" sentence it continues (ground/continuation.py); not across a heading."""
    cli = ('import argparse\n\n\ndef main():\n    p = argparse.ArgumentParser()\n'
           '    p.add_argument("--install-completion")\n    p.add_argument("--show-completion")\n\n\n'
           'def detect():\n    import shellingham\n\n    return shellingham.detect_shell()\n')
    lead = "If you did not add `shellingham`, the options take the name of the shell, e.g.:"
    then = "Then you can tell the user to install completion and the rest will just work."
    page = (f"# Guide\n\n{lead}\n\n* `--install-completion bash`.\n* `--show-completion powershell`.\n\n{then}\n\n"
            "## Other\n\nThen nothing here follows from a condition at all.\n")
    claims = ground_all(repo, capsys, {**_CLI_PACKAGE, "pkg/cli.py": cli, "docs/guide.md": page})["pages"][0]["claims"]
    shell = "repo://pkg/cli.py?grep=(%3F%3C!%5B%5Cw%60%5D)shellingham(%3F!%5B%5Cw%60%5D)"
    install = "repo://pkg/cli.py?grep=%5B%22'%2F%5D--install-completion(%3F!%5B%5Cw-%5D)"
    show = "repo://pkg/cli.py?grep=%5B%22'%2F%5D--show-completion(%3F!%5B%5Cw-%5D)"
    got = {c["statement"]: c["evidence"] for c in claims}
    assert got == {
        lead: [shell, install, show],
        "`--install-completion bash`.": [install, shell],
        "`--show-completion powershell`.": [show, shell],
        then: [shell, install, show],
    }, got
    repo.commit_all("grounded")

    repo.write("pkg/cli.py", cli.replace("    import shellingham\n\n    return shellingham.detect_shell()", "    return None"))
    rc, out = staged_hook(repo, capsys)
    assert rc == 1 and "marked 4 claims stale" in out, out
