"""What a sentence's references cite, through the real CLI in a real repository: the code that
proves the sentence (a body for behaviour, a head for naming, a parameter's lines, the method of
a class), names that are no definitions in the lines that mention them (unresolved once the code
stops mentioning them), a section heading's and a list item's lead name, plain identifiers, and
what the pass cannot decide (listed for the model)."""

from __future__ import annotations

import json

import pytest

from openwiki_git.evidence.kinds import GrepSet, check_query
from openwiki_git.ground.names import query
from openwiki_git.ground.proves import BEHAVIOUR, NAMING, NEUTRAL, sentence_kind
from tests.support.repo import GitRepo

CLIENT = '''\
import os


class Client:
    """An HTTP client."""

    def __init__(self, timeout: float = 5.0, *, verify=None, chunk_size: int = 65536):
        self.timeout = timeout
        self.verify = verify if verify is not None else os.environ.get("CLIENT_CA_BUNDLE")
        self.chunk_size = chunk_size

    def send(self, request):
        if request is None:
            raise ValueError("no request")
        return request

    def close(self):
        return None


class Server:
    def send(self, data):
        return data


def total(items):
    return sum(items)


def main(argv):
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument(
        "--retries", type=int, default=3,
        help="how often to retry",
    )
    p.add_argument("--debug/--no-debug")
    return p.parse_args(argv), "auto"
'''


def grounded(repo: GitRepo, capsys: pytest.CaptureFixture[str], page: str) -> dict:  # type: ignore[type-arg]
    repo.write("pkg/client.py", CLIENT)
    repo.write("pkg/__init__.py", "")
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/guide.md", page)
    repo.commit_all("docs")
    capsys.readouterr()
    repo.run("ground", "--all", "--format", "json")
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def cited(data: dict) -> dict[str, list[tuple[str, str]]]:  # type: ignore[type-arg]
    return {c["statement"]: [(i["cites"], i["evidence"]) for i in c["items"]] for p in data["pages"] for c in p["claims"]}


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("`Client.send` raises `ValueError` when the request is empty.", BEHAVIOUR),
        ("The timeout defaults to five seconds.", BEHAVIOUR),
        ("See `Client` for the details.", NAMING),
        ("`Client` is a class of its own.", NAMING),
        ("The `Client` of the package.", NEUTRAL),
    ],
)
def test_sentence_kinds(sentence: str, kind: str) -> None:
    assert sentence_kind(sentence) == kind


def test_evidence_that_proves_the_sentence(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    data = grounded(repo, capsys, (
        "# Guide\n\n"
        "`Client.send` raises `ValueError` when the request is empty.\n\n"  # behaviour: the method's body
        "See `Client.close` for the details.\n\n"  # naming: its head
        "Calling `.send()` on a `Client` returns the request.\n\n"  # a method named through its class
        "A `Client` waits `timeout` seconds at most.\n\n"  # a parameter: its declaration
        "The default chunk size of a `Client` is 64 KiB.\n\n"  # spelt out
        "A `Client` accepts `verify=` with a path to a CA bundle.\n\n"  # a None default: set in the body
        "A `Client` retries on its own when a request fails.\n\n"  # behaviour, no member named: undecided
    ))
    got = cited(data)
    assert got["`Client.send` raises `ValueError` when the request is empty."] == [("body", "repo://pkg/client.py#Client.send")]
    assert got["See `Client.close` for the details."] == [("head", "repo://pkg/client.py#Client.close:head")]
    assert got["Calling `.send()` on a `Client` returns the request."] == [("body", "repo://pkg/client.py#Client.send")]
    assert got["A `Client` waits `timeout` seconds at most."] == [("parameter", "repo://pkg/client.py#L7-L7")]
    assert got["The default chunk size of a `Client` is 64 KiB."] == [("parameter", "repo://pkg/client.py#L7-L7")]
    assert got["A `Client` accepts `verify=` with a path to a CA bundle."] == [("body", "repo://pkg/client.py#Client.__init__")]
    assert got["A `Client` retries on its own when a request fails."] == [("head", "repo://pkg/client.py#Client:head")]
    (undecided,) = data["pages"][0]["undecided"]
    assert undecided["reference"] == "Client" and "which method holds it" in undecided["why"]
    assert data["summary"]["cites"] == {"body": 3, "head": 2, "parameter": 2}


def test_names_that_are_no_definitions_cite_the_lines_that_mention_them(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    data = grounded(repo, capsys, (
        "# Guide\n\n"
        "Set `CLIENT_CA_BUNDLE` to trust your own CA.\n\n"
        "* `--retries <int>` - How often a request is retried. Zero turns retrying off.\n"
        "* `--debug / --no-debug` - Print every request.\n\n"
        "The answer is `\"auto\"` unless told otherwise.\n\n"
        "Use `total` to add the items up, and `send` to send them.\n\n"
        "## `CLIENT_CA_BUNDLE`\n\n"
        "The bundle is read once, when the client starts.\n"
    ))
    got = cited(data)
    env = "repo://pkg/client.py?grep=%5CbCLIENT_CA_BUNDLE%5Cb"
    retries = "repo://pkg/client.py?grep=%5B%22'%2F%5D--retries(%3F!%5B%5Cw-%5D)"
    assert got["Set `CLIENT_CA_BUNDLE` to trust your own CA."] == [("lineset", env)]
    start = CLIENT.splitlines().index("    p.add_argument(") + 1
    declared = f"repo://pkg/client.py#L{start}-L{start + 3}"  # the call declaring it: its help, type and default
    assert got["`--retries <int>` - How often a request is retried."] == [("lineset", retries), ("declaration", declared)]
    assert "Zero turns retrying off." not in got  # the list item's lead claim guards the item
    assert got["`--debug / --no-debug` - Print every request."] == [("lineset", "repo://pkg/client.py?grep=%5B%22'%2F%5D--debug(%3F!%5B%5Cw-%5D)")]
    assert got["The bundle is read once, when the client starts."] == [("lineset", env)]  # its section's heading
    assert got["The answer is `\"auto\"` unless told otherwise."] == [("lineset", "repo://pkg/client.py?grep=%5B%22'%5Dauto%5B%22'%5D")]
    assert got["Use `total` to add the items up, and `send` to send them."] == [("body", "repo://pkg/client.py#total")]  # one definition
    assert [a["reference"] for a in data["pages"][0]["ambiguous"]] == ["send"]  # two
    # the code stops reading the variable: the claims citing its lines are unresolved
    repo.write("pkg/client.py", CLIENT.replace('os.environ.get("CLIENT_CA_BUNDLE")', "None"))
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    gone = [c for c in report["claims"] if c["status"] == "unresolved"]
    assert {c["statement"] for c in gone} == {
        "Set `CLIENT_CA_BUNDLE` to trust your own CA.", "The bundle is read once, when the client starts."
    }
    assert "no line matches any more" in gone[0]["evidence"][0]["reason"]


def test_what_a_tutorial_names_of_its_own_is_left_alone(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """A tutorial's own `total` (its example code under docs_src/ defines one too), the reader's
    `client.py` (a bare file name), a word only a CI workflow mentions and a command's name are
    not cited."""
    repo.write("docs_src/first.py", "def total(prices):\n    return sum(prices)\n")
    repo.write(".github/workflows/ci.yml", "steps:\n  - run: gadget --check\n")
    repo.write("pkg/cli.py", "def serve(args):\n    return args\n\n\ndef parser(sub):\n    sub.add_parser(\"serve\")\n")
    data = grounded(repo, capsys, (
        "# Guide\n\n"
        "The `total` function of your program adds the prices up.\n\n"
        "Edit `client.py` in your own project first.\n\n"
        "Then run `gadget` over the whole tree.\n\n"
        "The `serve` command starts the server at once.\n"  # the command, not its function's body
    ))
    assert cited(data) == {} and data["summary"]["unknown"] == 4


RETRY = '''\
import typing as t


class Retrying:
    def __init__(self, stop=None, after=print):
        self.after = after


@t.overload
def retry(func: t.Callable[..., t.Any]) -> t.Any: ...


@t.overload
def retry(
    *,
    stop: int = ...,
    after: t.Callable[[int], None] | None = None,
) -> t.Any: ...


def retry(*dargs: t.Any, **dkw: t.Any) -> t.Any:
    """Wrap a function with a new `Retrying` object."""
    return Retrying(*dargs, **dkw)
'''


def test_a_keyword_that_kwargs_take_is_declared_in_an_overload(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """tenacity's `retry(*dargs, **dkw)` declares its keywords in `@overload`s only: a sentence on
    `after` cites that declaration, not the implementation that forwards every keyword."""
    repo.write("pkg/retrying.py", RETRY)
    data = grounded(repo, capsys, (
        "# Guide\n\n"
        "These functions can be used as the `after` keyword argument of `retry`.\n\n"
        "A `retry` can be called with `dkw` and `unknown` as well.\n\n"
    ))
    got = cited(data)
    assert got["These functions can be used as the `after` keyword argument of `retry`."] == [
        ("parameter", "repo://pkg/retrying.py#L17-L17")]
    # A keyword no overload declares keeps the rule before (the definition, not a made-up line).
    assert all(cites != "parameter" for cites, _ in got["A `retry` can be called with `dkw` and `unknown` as well."])


STATE = '''\
class CallState:
    """One call's state."""

    def __init__(self, fn):
        self.fn = fn
        self.attempts: int = 1
        self.slept: float = 0.0


class Retrying:
    def sleep(self, state, seconds):
        state.slept += seconds
        state.attempts += 1

    def fn(self):
        return None
'''


@pytest.mark.parametrize("suffix", ["md", "rst"])
def test_a_list_of_members_after_a_sentence_naming_their_class(repo: GitRepo, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    """"An object of `CallState`. Its attributes: ``attempts`` ...": each name is the class's
    member (its declaration, and the lines assigning it), though the item does not repeat the
    class; after an example or a new section, or from a sibling list item, the class does not
    speak for a bare name."""
    code = "``" if suffix == "rst" else "`"
    heading = "State\n=====\n\n" if suffix == "rst" else "# State\n\n"
    example = "::\n\n    x = 1\n\n" if suffix == "rst" else "```python\nx = 1\n```\n\n"
    repo.write("pkg/state.py", STATE)
    repo.write("pkg/__init__.py", "")
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    if suffix == "rst":
        repo.write("docs/conf.py", 'project = "state"\n')  # a Sphinx site: its .rst pages are read
    repo.write(f"docs/guide.{suffix}", (
        f"{heading}Each callback gets an object of the {code}CallState{code} class.\nIts attributes are:\n\n"
        f"* {code}attempts{code} - the number of the current attempt, from 1.\n"
        f"* {code}slept{code} - the seconds spent sleeping so far.\n\n"
        f"{example}"
        f"Set {code}fn{code} to change what is called.\n\n"
        f"* the {code}Retrying{code} object that runs the calls,\n"
        f"* {code}sleep{code}: the seconds to wait before the next call.\n"
    ))
    repo.commit_all("docs")
    capsys.readouterr()
    repo.run("ground", "--all", "--format", "json")
    got = cited(json.loads(capsys.readouterr().out))
    def writes(name: str) -> str:  # the lines of pkg/state.py assigning the attribute (ground/names.py's query)
        return GrepSet("pkg/state.py", query("writes", name)).canonical

    assert got[f"{code}attempts{code} - the number of the current attempt, from 1."] == [
        ("lines", "repo://pkg/state.py#L6-L6"), ("lineset", writes("attempts"))]
    assert got[f"{code}slept{code} - the seconds spent sleeping so far."] == [
        ("lines", "repo://pkg/state.py#L7-L7"), ("lineset", writes("slept"))]
    assert not any(s.startswith("Set ") for s in got)  # `fn`: CallState's and Retrying's; no class speaks for it now
    assert not any("seconds to wait" in s for s in got)  # a sibling item's class does not lead the next item


def test_the_lines_assigning_an_attribute_include_a_tuple_of_attributes() -> None:
    """tenacity's `self.outcome, self.outcome_timestamp = fut, ts` assigns `outcome` too; a call
    passing it (`f(self.outcome, x=1)`) and a comparison do not."""
    found = check_query(query("writes", "outcome"))
    assert [line for line in (
        "        self.outcome, self.outcome_timestamp = fut, ts", "self.outcome = None", "rs.outcome += 1",
        "f(self.outcome, x=1)", "if self.outcome == 1:", "self.outcome_timestamp = ts",
    ) if found.search(line)] == ["        self.outcome, self.outcome_timestamp = fut, ts", "self.outcome = None", "rs.outcome += 1"]


ERRORS = '''\
class TryAgain(Exception):
    """Retry at once when raised."""


class GiveUp(RuntimeError):
    """The last attempt failed."""


def run(fn, attempts):
    for _ in range(attempts):
        try:
            return fn()
        except TryAgain:  # raised by the caller: once more
            continue
    raise GiveUp(fn)
'''


def test_an_exception_said_to_be_raised_cites_where_the_code_raises_or_catches_it(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """"Raise `TryAgain` to retry at once": the class's head names it, the lines that catch it
    make the sentence true (a set of the package's lines using it: not its definition, a comment
    or an import); the pass has decided (nothing undecided for the model). A sentence that only
    names the exception cites its head alone."""
    repo.write("pkg/retrying.py", ERRORS)
    repo.write("pkg/__init__.py", "from pkg.retrying import GiveUp, TryAgain, run\n")
    data = grounded(repo, capsys, (
        "# Guide\n\n"
        "Raise `TryAgain` in the function to retry it at once.\n\n"
        "When every attempt failed, a `GiveUp` is raised.\n\n"
        "`TryAgain` is an exception class.\n\n"
    ))
    got = cited(data)
    assert got["Raise `TryAgain` in the function to retry it at once."] == [
        ("head", "repo://pkg/retrying.py#TryAgain:head"), ("lineset", GrepSet("pkg/retrying.py", query("uses", "TryAgain")).canonical)]
    assert got["When every attempt failed, a `GiveUp` is raised."] == [
        ("head", "repo://pkg/retrying.py#GiveUp:head"), ("lineset", GrepSet("pkg/retrying.py", query("uses", "GiveUp")).canonical)]
    assert got["`TryAgain` is an exception class."] == [("head", "repo://pkg/retrying.py#TryAgain:head")]
    assert not [i for p in data["pages"] for c in p["claims"] for i in c["items"] if i.get("undecided")]
    found = check_query(query("uses", "TryAgain"))
    assert [n for n, line in enumerate(ERRORS.splitlines(), 1) if found.search(line)] == [13]  # `except TryAgain:`


WORKERS = '''\
class Worker:
    """Runs the server in a process manager."""

    CONFIG_KWARGS = {"loop": "auto", "http": "auto"}

    def run(self) -> None:
        pass


class PlainWorker(Worker):
    CONFIG_KWARGS = {"loop": "asyncio", "http": "h11"}
'''


def test_a_class_that_defines_no_function_is_cited_whole(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """uvicorn's `UvicornH11Worker` is its `CONFIG_KWARGS`: a class defining no function, no
    longer than a screen, is cited whole whatever the sentence (a naming one included); a class
    with methods keeps its head for a naming sentence."""
    repo.write("pkg/workers.py", WORKERS)
    data = grounded(repo, capsys, "# Guide\n\nFor a pure-Python set-up use `pkg.workers.PlainWorker`.\n\n"
                                  "See `pkg.workers.Worker` for the details.\n")
    got = cited(data)
    assert got["For a pure-Python set-up use `pkg.workers.PlainWorker`."] == [("body", "repo://pkg/workers.py#PlainWorker")]
    assert got["See `pkg.workers.Worker` for the details."] == [("head", "repo://pkg/workers.py#Worker:head")]


_PARAMETERS = "".join(f"        option_{n}: int = {n},\n" for n in range(30))  # a head longer than a screen
CLI = f'''\
import click


class App:
    """A command-line program."""

    def __init__(self, callback=None):
        self.registered_callback = callback
        self.registered_commands = []

    def command(
        self,
        name=None,
{_PARAMETERS}    ):
        def decorator(f):
            self.registered_commands.append((name, f))
            return f

        return decorator

    def callback(self):
        def decorator(f):
            self.registered_callback = f
            return f

        return decorator


class Runner:
    def invoke(self, app, args):
        return app, args


class Group:
    def invoke(self, ctx):
        return click.echo(ctx)
'''


def test_a_method_called_on_the_readers_object_cites_the_method(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """typer's docs write `@app.callback()` and `@app.command()`: `app` is the reader's object, no
    name of the project's. The method is the member of the class the sentence names, else the one
    method of that name; the class's own reference then adds nothing. A long signature is no long
    body: `command` is cited whole for what it does. A name the package imports (`click.echo()`)
    is that library's; a method several classes define is listed as ambiguous, unless the page
    names one of their classes (typer's testing page: `CliRunner`, sections before)."""
    repo.write("pkg/cli.py", CLI)
    repo.write("docs/testing.md", "# Testing\n\nCreate a `pkg.cli.Runner` first.\n\n## Invoking\n\n"
                                  "The first parameter of `runner.invoke()` is the app.\n")
    data = grounded(repo, capsys, (
        "# Guide\n\n"
        "When you use `@app.command()` the function under the decorator is registered in the app.\n\n"
        "If you gave a callback to `pkg.cli.App()`, you can override it with `@app.callback()`.\n\n"
        "Call `click.echo()` to print what you like.\n\n"
        "The first parameter of `runner.invoke()` is the app.\n"
    ))
    got = cited(data)
    assert got["When you use `@app.command()` the function under the decorator is registered in the app."] == [
        ("body", "repo://pkg/cli.py#App.command")]
    assert got["If you gave a callback to `pkg.cli.App()`, you can override it with `@app.callback()`."] == [
        ("body", "repo://pkg/cli.py#App.callback")]
    assert "Call `click.echo()` to print what you like." not in got
    (ambiguous,) = data["pages"][0]["ambiguous"]
    assert ambiguous["reference"] == "runner.invoke()"
    invokes = [n for n, line in enumerate(CLI.splitlines(), 1) if "def invoke" in line]
    assert ambiguous["candidates"] == [f"repo://pkg/cli.py#L{n}-L{n + 1}" for n in invokes]
    assert got["The first parameter of `runner.invoke()` is the app."] == [("body", "repo://pkg/cli.py#Runner.invoke")]


SUPERVISOR = '''\
class Multiprocess:
    def __init__(self, config):
        self.config = config

    def run(self):
        for _ in range(self.config.workers):
            start(self.config)


def start(config):
    return config
'''
MAIN = '''\
import argparse

from pkg.supervisors import Multiprocess


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=1, help="Number of worker processes.")
    config = p.parse_args(argv)
    if config.workers > 1:
        Multiprocess(config).run()
    return config
'''


def test_a_sentence_about_what_an_option_does_cites_what_a_branch_on_it_runs(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """uvicorn's "run multiple worker processes, for example `--workers 4`, but does not provide
    any process monitoring": `run` reads `elif config.workers > 1:` and runs
    `Multiprocess(config, ...).run()`, which the new multiprocess manager rewrote. A sentence that
    only says what the option is keeps the declaration and the lines naming it."""
    repo.write("pkg/supervisors.py", SUPERVISOR)
    repo.write("pkg/main.py", MAIN)
    data = grounded(repo, capsys, (
        "# Guide\n\nRun `--workers 4` to start four processes; a process that dies is not restarted.\n\n"
        "* `--workers <int>` - The number of worker processes.\n"
    ))
    got = cited(data)
    flag = "repo://pkg/main.py?grep=%5B%22'%2F%5D--workers(%3F!%5B%5Cw-%5D)"
    assert got["Run `--workers 4` to start four processes; a process that dies is not restarted."] == [
        ("lineset", flag), ("body", "repo://pkg/supervisors.py#Multiprocess.run")]
    assert got["`--workers <int>` - The number of worker processes."] == [("lineset", flag)]


SETTINGS = '''\
import logging
import os


class Config:
    def __init__(self, log_config=None, use_colors=None, env_file=None, host="127.0.0.1"):
        self.log_config = log_config
        self.use_colors = use_colors
        self.host = host
        if env_file is not None:
            os.environ["ENV_FILE"] = env_file

    def configure_logging(self):
        if self.log_config is not None:
            logging.config.dictConfig(self.log_config)
        elif self.use_colors:
            logging.basicConfig()


def trusted(hosts, allowed):
    for host in hosts:
        if host not in allowed:
            return False
    return True


class Server:
    def __init__(self, config):
        self.reload = config.reload

    @property
    def should_reload(self):
        return self.reload

    def warn(self):
        if self.reload:
            logging.warning("Do not reload in production.")
'''
SETTINGS_MAIN = '''\
import argparse


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--log-config", help="Logging configuration file.")
    p.add_argument("--env-file", help="Environment configuration file.")
    p.add_argument("--host", help="Bind socket to this host.")
    p.add_argument("--reload", action="store_true", help="Enable auto-reload.")
    args = p.parse_args(argv)
    return {"log_config": args.log_config, "env_file": args.env_file}
'''


def test_where_an_option_takes_effect_without_calling_the_project_its_branch_is_cited(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """uvicorn's "This option is ignored if the `--log-config` CLI option is used": the
    `if self.log_config is not None:` statement of `configure_logging` holds it, and calls none of
    the project's code: its lines are cited (the `elif` with it: the other values' effect). A bare
    name is the option's value where it is a parameter of the function testing it (`env_file`);
    a loop's `host` is a local that shares the name: `--host` takes effect nowhere here. An option
    read outside its branches (`should_reload` returns `self.reload`) takes effect there too: its
    branch (a warning) is not cited; passing a value on under its own name (`{"log_config": ...}`,
    `self.reload = config.reload`) is no such read."""
    repo.write("pkg/config.py", SETTINGS)
    repo.write("pkg/main.py", SETTINGS_MAIN)
    data = grounded(repo, capsys, (
        "# Guide\n\nThe colours are ignored if the `--log-config` option is used.\n\n"
        "The file given to `--env-file` is loaded before the application starts.\n\n"
        "The server only listens when `--host` is given.\n\n"
        "The server restarts when `--reload` is given and a file changes.\n"
    ))
    got = cited(data)
    flag = "repo://pkg/main.py?grep=%5B%22'%2F%5D{}(%3F!%5B%5Cw-%5D)".format
    assert got["The colours are ignored if the `--log-config` option is used."] == [
        ("lineset", flag("--log-config")), ("lines", "repo://pkg/config.py#L14-L17")]
    assert got["The file given to `--env-file` is loaded before the application starts."] == [
        ("lineset", flag("--env-file")), ("lines", "repo://pkg/config.py#L10-L11")]
    assert got["The server only listens when `--host` is given."] == [("lineset", flag("--host"))]
    assert got["The server restarts when `--reload` is given and a file changes."] == [("lineset", flag("--reload"))]


COVERAGE = '[project]\nname = "pkg"\n\n[tool.coverage.report]\nprecision = 2\nfail_under = 98.35\n'


def test_a_setting_a_message_quotes_cites_the_line_setting_it_and_guards_the_sentence_leading_to_it(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """uvicorn's contributing guide: "If tests succeed but coverage doesn't reach our current
    threshold, you will see this message under the coverage report:" then a paragraph that is only
    `Coverage failure: total of 88 is less than fail-under=95`. The setting the message quotes is
    the line of pyproject.toml setting it; the span, a statement of its own there, and the
    sentence leading into it both cite it, and the commit raising the threshold to 100 (the one
    that rewrote both upstream) marks both. A message quoting no setting of the project's, or
    another tool's setting, is nothing to ground."""
    repo.write("pyproject.toml", COVERAGE)
    lead = "If coverage does not reach our current threshold, you will see this message:"
    quoted = "`Coverage failure: total of 88 is less than fail-under=95`"
    data = grounded(repo, capsys, (
        f"# Contributing\n\n{lead}\n\n{quoted}\n\nIf the tests fail you will see this message:\n\n"
        "`=== 1 failed, 354 passed ===`\n\nAnother linter prints `error: max-line-length=80 exceeded` for a long line.\n"
    ))
    got = cited(data)
    line = "repo://pyproject.toml#L6-L6"
    assert got == {lead: [("lines", line)], quoted: [("lines", line)]}
    repo.write("pyproject.toml", COVERAGE.replace("98.35", "100"))
    repo.commit_all("100% coverage")
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    assert sorted(c["statement"] for c in report["claims"] if c["status"] == "stale") == sorted([lead, quoted])


def test_a_short_script_a_sentence_says_does_something_is_cited_whole(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """uvicorn's "If something goes wrong with the PyPI job the release can be published using the
    `scripts/publish` script." cited the script's shebang line: what publishes is the rest of it.
    A short script (`#!` first, no longer than a screen) in a sentence about what it does is cited
    whole; a sentence only naming it, or a long one, keeps its first line (the file exists)."""
    repo.write("scripts/publish", "#!/bin/sh -e\n\ntwine upload dist/*\nmkdocs gh-deploy --force\n")
    repo.write("scripts/big", "#!/bin/sh -e\n" + "echo step\n" * 60)
    data = grounded(repo, capsys, (
        "# Releasing\n\nIf the job fails, the release can be published using the `scripts/publish` script.\n\n"
        "See `scripts/publish` for the details.\n\nIf the job fails, the docs are rebuilt by the `scripts/big` script.\n"
    ))
    got = cited(data)
    assert got["If the job fails, the release can be published using the `scripts/publish` script."] == [
        ("file", "repo://scripts/publish#L1-L4")]
    assert got["See `scripts/publish` for the details."] == [("lines", "repo://scripts/publish#L1-L1")]
    assert got["If the job fails, the docs are rebuilt by the `scripts/big` script."] == [("lines", "repo://scripts/big#L1-L1")]


def test_an_expression_nested_too_deep_to_walk_is_left_alone(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """A file with an expression of a thousand terms parses, but is nested deeper than a walk
    over the tree can recurse: where `--log-config` takes effect is not looked for there, and
    `ground` goes on (exit 0, the flag's own lines cited) instead of failing."""
    deep = " + ".join(["log_config"] * 1000)
    got = _log_config_cited(repo, capsys, "pkg/deep.py", f"def f(log_config):\n    x = {deep}\n    if log_config:\n        return x\n")
    assert got == [("lineset", LOG_CONFIG_FLAG)]


LOG_CONFIG_FLAG = "repo://pkg/main.py?grep=%5B%22'%2F%5D--log-config(%3F!%5B%5Cw-%5D)"


def _log_config_cited(repo: GitRepo, capsys: pytest.CaptureFixture[str], path: str, code: str) -> list[tuple[str, str]]:
    """What "The colours are ignored if the `--log-config` option is used." cites, uvicorn's
    settings beside `code` at `path`."""
    repo.write("pkg/config.py", SETTINGS)
    repo.write("pkg/main.py", SETTINGS_MAIN)
    repo.write(path, code)
    data = grounded(repo, capsys, "# Guide\n\nThe colours are ignored if the `--log-config` option is used.\n")
    return cited(data)["The colours are ignored if the `--log-config` option is used."]


def test_a_file_nested_deeper_than_the_parser_can_read_is_skipped(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """A package file whose expression is nested deeper than Python's parser can follow (three
    thousand terms: ast.parse raises RecursionError) has no definitions to index: `ground` goes on
    with the others (it stopped with exit 3 while indexing)."""
    deep = " + ".join(["log_config"] * 3000)
    got = _log_config_cited(repo, capsys, "pkg/deeper.py", f"def f(log_config):\n    return {deep}\n")
    assert got == [("lineset", LOG_CONFIG_FLAG), ("lines", "repo://pkg/config.py#L14-L17")]
