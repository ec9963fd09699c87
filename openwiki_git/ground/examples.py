"""`ground` for a page's code examples: each example that uses the project's API gets one claim,
its marker a comment on the line after the closing fence (pages/examples.py), its evidence the
heads of the project's definitions the example calls, constructs or imports (`#Client:head`); a
console example's evidence is the line that declares the program it runs (`[project.scripts]`, or
a console script of setup.cfg or setup.py; for `pip install "pkg[extra]"`, the lines naming the
distribution and declaring the extra: installs.py), the head of the function it runs when the example shows
its `--help` (every option is declared there, with click), and the lines
that declare the options it passes (cited as ground cites a flag named in prose). The calls are
read by claims/examples.py and resolved here through ground's own resolver (resolve.py): a name
whose root is not one of the project's packages is not looked up (the standard library, other
libraries, the example's own names). Pure: the files come in through the index's reader.

An example that calls a name the project does not define, or passes a keyword the callee does not
accept (and it takes no `**kwargs`), is reported broken with the call named; once it carries a
claim, `check` and the hook say so whenever that becomes true (claims/examples.broken_calls). A
bare name only a `from pkg import *` could have bound is not broken when pkg lacks it (it may be
the example's own, or Python's). Where the head does not show what a call passes, the evidence
adds it: the `@overload` declaring the keywords of a function that takes `**kwargs`, the
inherited `__init__` of a class that defines none. A reStructuredText page's code blocks are its
examples too (pages/rst_examples.py), each guarded by a marker line after it.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openwiki_git.claims import examples as claim_examples
from openwiki_git.ground import example_evidence
from openwiki_git.ground import installs as ground_installs
from openwiki_git.ground import resolve as gr
from openwiki_git.ground import subcommands as ground_subcommands
from openwiki_git.ground.index import SECONDARY, Definition, SourceIndex
from openwiki_git.ground.proves import HEAD_AFTER, named_resource
from openwiki_git.ground.refs import Ref, Sentence
from openwiki_git.model import Claim
from openwiki_git.pages import citations, example_reader, rst_markers
from openwiki_git.pages import examples as page_examples
from openwiki_git.pages.examples import CONSOLE, Example

KIND = claim_examples.KIND  # the `kind` of an example's entry in ground's report
# Why an example gets no claim (the report's `left_alone` counts).
NOT_PYTHON = "did not parse as Python"
NO_PROJECT_CALL = "uses nothing of the project's"
NONE_RESOLVED = "no call of the project's resolved to one definition"
NO_PROGRAM = "runs none of the project's programs"


@dataclass(frozen=True, slots=True)
class ExampleProposal:
    example: Example
    statement: str
    resources: tuple[str, ...]  # the evidence, in the example's order, each once
    targets: tuple[str, ...]  # what each resource is: a qualified name, a program, an option
    sentence: Sentence  # where the example stands (its line) and where its marker goes (`end`)


@dataclass
class ExamplePlan:
    """What grounding a page's examples would add, and what was found in them."""

    proposals: list[ExampleProposal] = field(default_factory=list)
    broken: list[dict[str, Any]] = field(default_factory=list)  # {line, reference, kind, statement, reason}
    ambiguous: list[dict[str, Any]] = field(default_factory=list)
    found: int = 0  # examples on the page (python, pycon, console)
    already: int = 0  # examples a claim guards already (a comment marker of one of the page's claims)
    left_alone: Counter[str] = field(default_factory=Counter)  # why an example gets no claim
    calls: Counter[str] = field(default_factory=Counter)  # resolved, ambiguous, broken, unknown
    unclaimed: list[tuple[Example, Sentence, str]] = field(default_factory=list)  # each left alone, with why

    def adopt(self, ex: Example, resource: str, target: str) -> None:
        """An example left alone, guarded by what its section is about (ground/subject.py)."""
        entry = next(u for u in self.unclaimed if u[0] is ex)
        self.unclaimed.remove(entry)
        self.left_alone[entry[2]] -= 1
        self.left_alone += Counter()  # drops a reason counted no more
        self.proposals.append(ExampleProposal(ex, ex.statement, (resource,), (target,), entry[1]))

    def data(self) -> dict[str, Any]:
        return {"found": self.found, "guarded": len(self.proposals) + self.already, "to_add": len(self.proposals),
                "already": self.already, "left_alone": dict(sorted(self.left_alone.items())),
                "calls": {k: self.calls.get(k, 0) for k in ("resolved", "ambiguous", "broken", "unknown")},
                "broken": self.broken, "ambiguous": self.ambiguous}


@dataclass(frozen=True, slots=True)
class Program:
    path: str  # the file that declares it: pyproject.toml, setup.cfg or setup.py
    line: int  # its line there
    target: str  # the function it runs, dotted: `pkg.cli:main` -> `pkg.cli.main`
    table: int = 0  # the line of its table's header (`[project.scripts]`), when it is one of pyproject's; else 0


_ENTRY_POINT = re.compile(r"""^\s*["']?([\w.-]+)\s*=\s*([\w.]+:[\w.]+)""")  # `name = pkg.mod:func`, in setup.py or setup.cfg


def programs(index: SourceIndex) -> dict[str, Program]:
    """The project's programs, each with the line that declares it and the function it runs:
    `[project.scripts]` of pyproject.toml, else the console scripts of setup.cfg or setup.py."""
    text = index.text("pyproject.toml")
    out: dict[str, Program] = {}
    try:
        tables = _script_tables(tomllib.loads(text)) if text else []
    except tomllib.TOMLDecodeError:
        tables = []
    lines = text.splitlines() if text else []
    for table, scripts in tables:
        header = next((n for n, ln in enumerate(lines, 1) if ln.strip().replace(" ", "") == f"[{table}]"), 0)  # 0: written inline
        for name, target in scripts.items():
            pattern = re.compile(r"^\s*[\"']?" + re.escape(name) + r"[\"']?\s*=")
            inline = re.compile(r"\bscripts\s*=\s*\{.*[\"']?" + re.escape(name) + r"[\"']?\s*=")  # `scripts = { name = ... }`
            line = next((n for n, ln in enumerate(lines[header:], header + 1) if pattern.match(ln) or inline.search(ln)), 1)
            out.setdefault(name, Program("pyproject.toml", line, str(target).split("[", 1)[0].strip().replace(":", "."), header))
    for path in ("setup.cfg", "setup.py"):
        if out:
            break
        scripts_at = False
        for n, ln in enumerate((index.text(path) or "").splitlines(), 1):
            scripts_at = scripts_at or "console_scripts" in ln
            m = _ENTRY_POINT.match(ln) if scripts_at else None
            if m:
                out.setdefault(m.group(1), Program(path, n, m.group(2).replace(":", ".")))
    return out


def _script_tables(data: Any, path: tuple[str, ...] = ()) -> list[tuple[str, dict[str, str]]]:
    """(dotted table name, its scripts) of every `scripts` table of a project's or Poetry's
    (`[project.scripts]`, `[tool.poetry.scripts]`, and such tables nested in a build tool's own
    (typer's `[tool.tiangolo._internal-slim-build.packages.typer.project.scripts]`), in order."""
    if not isinstance(data, dict) or len(path) > 8:
        return []
    found = []
    for key, value in data.items():
        if key == "scripts" and path[-1:] in (("project",), ("poetry",)) and isinstance(value, dict):
            found.append((".".join((*path, key)), {k: v for k, v in value.items() if isinstance(v, str)}))
        elif isinstance(value, dict):
            found.extend(_script_tables(value, (*path, key)))
    return sorted(found, key=lambda t: (t[0] != "project.scripts", t[0]))


_AS_PROGRAM = r"(?:command|program|CLI|executable|script)s?\b"
# What a package gives or withholds: "have the `typer` command", "it adds a `typer` command",
# "the `typer` command is only included in ...". What the command does is its code's, not this.
_GIVES = r"(?:ha(?:ve|s|ving)|includ(?:e|es|ed|ing)|add(?:s|ed)?|install(?:s|ed)?|comes? with|ships?)"
_GIVEN = r"(?:is|are)\s+(?:only\s+|not\s+)?(?:included|installed|shipped|added)"


def named_program(index: SourceIndex, sentence: str, name: str) -> Program | None:
    """The program a sentence says a package installs or lacks ("If you don't want to have the
    `typer` command, install `typer-slim`"): a name the project declares as a program, written
    as one. A project's own name alone is the project (`typer` is a library too), and what the
    command does is in its code, not in the line declaring it."""
    span = rf"`{re.escape(name)}`\s+{_AS_PROGRAM}"
    said = rf"\b{_GIVES}\s+(?:(?:a|an|the|its)\s+)?{span}|{span}(?:/\w+)?\s+{_GIVEN}"
    return programs(index).get(name) if re.search(said, sentence, re.IGNORECASE) else None


def through_programs(pairs: list[tuple[Ref, gr.Resolution]], index: SourceIndex) -> list[tuple[Ref, gr.Resolution]]:
    """Each unknown name a sentence says a package has or installs as a program (named_program)
    resolved to the lines declaring it, from its table's header; the other pairs as they are."""
    out = []
    for ref, res in pairs:
        p = named_program(index, ref.sentence.text, ref.name) if res.outcome == gr.UNKNOWN else None
        found = None if p is None else Definition(ref.name, p.path, p.table or p.line, p.line, "line")
        out.append((ref, res if found is None else gr.Resolution(ref, gr.RESOLVED, found)))
    return out


def plan(index: SourceIndex, page_repo_path: str, text: str, claims: Iterable[Claim], *, rst: bool = False) -> ExamplePlan:
    """The page's examples, each proposed for a claim, left alone (with why) or already guarded.
    `rst`: the page is reStructuredText (its code blocks are read, pages/rst_examples.py)."""
    index.build()
    out = ExamplePlan()
    labels = {citations.label(c.id) for c in claims}
    progs: dict[str, Program] | None = None
    found, used = claim_examples.read_page(text, rst)
    for k, ex in enumerate(found):
        out.found += 1
        if labels.intersection(ex.markers):
            out.already += 1
            continue
        sentence = Sentence(ex.statement, ex.line, ex.end, False, ex.markers)
        before = Counter(out.left_alone)
        if ex.kind == CONSOLE:
            progs = programs(index) if progs is None else progs
            got = _console(index, ex, sentence, progs, out)
        else:
            got = _python(index, ex, used[k], sentence, page_repo_path, out)
        if got is not None:
            resources, targets = got
            out.proposals.append(ExampleProposal(ex, ex.statement, resources, targets, sentence))
        else:
            out.unclaimed.append((ex, sentence, next(iter(out.left_alone - before))))
    return out


Found = tuple[tuple[str, ...], tuple[str, ...]]  # an example's evidence and what each item is


def _python(
    index: SourceIndex, ex: Example, used: claim_examples.Uses, sentence: Sentence, page_repo_path: str, out: ExamplePlan
) -> Found | None:
    cited: dict[str, str] = {}
    ours = 0
    for call in used.calls:
        if call.name.split(".")[0] not in index.roots:
            continue  # the standard library's, another library's, or the example's own
        ours += 1
        if call.attribute:  # `f.statistics` on a function a decorator of the project's returned
            example_evidence.attribute(index, call, cited, out.calls)
            continue
        if call.keyword in example_evidence.ELEMENT_METHODS:  # `for attempt in Retrying(...)`: `with attempt`, `attempt.retry_state`
            example_evidence.elements(index, call, page_repo_path, sentence, cited)
            continue
        if call.keyword == claim_examples.SUBCLASS:  # `class MyWorker(UvicornWorker): CONFIG_KWARGS = ...`
            example_evidence.overrides(index, call, page_repo_path, sentence, cited)
            continue
        if call.keyword:  # `before_sleep=my_before_sleep`: what the callback reads on what it is given
            example_evidence.callback(index, call, page_repo_path, sentence, cited)
            continue
        ref = Ref("symbol", call.name, call.text, sentence, called=not call.imported)
        where = {"line": ex.code_line + call.line - 1, "reference": call.text, "kind": KIND, "statement": ex.statement}
        _cite(index, gr.resolve(ref, index, page_repo_path=page_repo_path), where, cited, out, call)
    if cited:
        return tuple(cited), tuple(cited.values())
    out.left_alone[NOT_PYTHON if not used.parsed and not used.calls else NONE_RESOLVED if ours else NO_PROJECT_CALL] += 1
    return None


def _console(index: SourceIndex, ex: Example, sentence: Sentence, progs: dict[str, Program], out: ExamplePlan) -> Found | None:
    cited: dict[str, str] = {}
    for cmd in page_examples.commands(ex):
        for resource, what in ground_installs.installs(index, cmd.text).items():  # `pip install "pkg[extra]"`
            cited.setdefault(resource, what)
        for name in cmd.names:  # `gunicorn -k pkg.workers.Worker`: the class it names
            if name.split(".")[0] in index.roots:
                _console_name(index, ex, sentence, name, cmd, cited, out)
        if cmd.program not in progs and cmd.program not in index.roots:
            continue  # another program's options are not the project's
        prog = progs.get(cmd.program) or next((p for p in progs.values() if p.target.split(".")[0] == cmd.program), None)
        main = _main_module(index, cmd.program) if cmd.module else None
        if main is not None:  # `python -m typer`: typer/__main__.py runs, whatever the console script says
            cited.setdefault(main, f"{cmd.program}.__main__")
        elif prog is not None and cmd.program in progs:
            cited.setdefault(f"repo://{prog.path}#L{prog.line}-L{prog.line}", cmd.program)
        if prog is not None and cmd.program in progs:  # `typer main.py run`: where the program declares `run`
            for resource, what in ground_subcommands.declared(index, prog.target, cmd.words).items():
                cited.setdefault(resource, what)
        if cmd.help and prog is not None:  # its help shows every option: the head of the function declaring them
            _console_name(index, ex, sentence, prog.target, cmd, cited, out)
        for option in (o for o in cmd.options if o != "--help"):
            res = gr.resolve(Ref("flag", option, option, sentence), index, page_repo_path="")
            if res.outcome == gr.RESOLVED and res.target is not None:
                out.calls["resolved"] += 1
                cited.setdefault(_option_resource(index, res, sentence.text), option)
            elif res.outcome == gr.AMBIGUOUS:
                out.calls["ambiguous"] += 1
            else:
                out.calls["unknown"] += 1  # an option the framework adds (`--help`) or the user's own app defines
    if cited:
        return tuple(cited), tuple(cited.values())
    out.left_alone[NO_PROGRAM] += 1
    return None


def _main_module(index: SourceIndex, package: str) -> str | None:
    """The lines of the package's `__main__.py`, what `python -m package` runs (cited whole up to a
    screen, else its first line); None when it has none."""
    tail = package.replace(".", "/") + "/__main__.py"
    found = [p for p in index.paths if (p == tail or p.endswith("/" + tail)) and not SECONDARY.search(p)]
    n = len(index.lines(found[0])) if len(found) == 1 else 0
    return f"repo://{found[0]}#L1-L{n if n <= HEAD_AFTER else 1}" if n else None


def _option_resource(index: SourceIndex, res: gr.Resolution, sentence: str) -> str:
    """An option's evidence: the call that declares it (its help, type and default), else the
    lines that mention it (names.py), else its definition."""
    if res.lineset is not None:
        return res.lineset.declaration or res.lineset.resource
    assert res.target is not None
    return named_resource(index, res.target, sentence)


def _console_name(
    index: SourceIndex, ex: Example, sentence: Sentence, name: str, cmd: page_examples.Command, cited: dict[str, str], out: ExamplePlan
) -> None:
    res = gr.resolve(Ref("symbol", name, name, sentence), index, page_repo_path="")
    where = {"line": ex.code_line + cmd.line - 1, "reference": name, "kind": KIND, "statement": ex.statement}
    _cite(index, res, where, cited, out)


def _cite(
    index: SourceIndex, res: gr.Resolution, where: dict[str, Any], cited: dict[str, str], out: ExamplePlan,
    call: claim_examples.Call | None = None,
) -> None:
    """One name's resolution counted, its head cited when resolved (and `call` judged against its
    signature: a keyword it does not accept is broken), reported when broken or ambiguous."""
    why = None
    if res.outcome == gr.RESOLVED and res.target is not None:
        for resource, target in example_evidence.called(index, res.target, call):
            cited.setdefault(resource, target)
        why = example_evidence.keyword_problem(index, call, res.target) if call is not None else None
        if why is None:
            out.calls["resolved"] += 1
            return
    elif res.outcome == gr.AMBIGUOUS:
        out.calls["ambiguous"] += 1
        out.ambiguous.append({**where, "candidates": list(res.candidates)})
        return
    elif res.outcome != gr.BROKEN or (call is not None and call.starred):
        out.calls["unknown"] += 1  # a bare name under `from pkg import *` may be the example's own, or Python's
        return
    out.calls["broken"] += 1
    out.broken.append({**where, "reason": why or res.reason})


def insert_markers(text: str, items: Iterable[tuple[ExampleProposal, str]], *, rst: bool = False) -> str:
    """`text` with each claim's marker after its example (found again by its statement, the one
    nearest the line it was read on): a comment on the line after a fence, or in
    reStructuredText (`rst`) a marker line after the code block; nothing else changes."""
    for prop, claim_id in sorted(items, key=lambda item: item[0].example.end, reverse=True):
        same = [ex for ex in example_reader.read(text, rst) if ex.statement == prop.statement]
        same = [ex for ex in same if not ex.markers] or same  # of two alike examples, the one not yet guarded
        if not same:
            continue  # the example changed since it was read: the next run proposes it again
        ex = min(same, key=lambda e: abs(e.line - prop.example.line))
        if rst:
            text = rst_markers.insert(text, ex.end, [citations.label(claim_id)], ex.indent)
        else:
            text = citations.insert_comment_after(text, ex, claim_id)
    return text


# -- ground's report ----------------------------------------------------------------------------
def added(prop: ExampleProposal) -> dict[str, Any]:
    """An example's entry in ground's report (`examples.added`)."""
    return {"statement": prop.statement, "line": prop.example.line, "evidence": list(prop.resources), "targets": list(prop.targets)}


def page_data(found: ExamplePlan | None, planned: list[dict[str, Any]]) -> dict[str, Any]:
    """A page's `examples` in ground's report: the counts, and what was (or, in a plan, would be)
    added, each with the id its claim gets."""
    return {**(found or ExamplePlan()).data(), "added": planned}


def summary(pages: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The report's `summary.examples`: every page's counts added up."""
    out: dict[str, Any] = {"found": 0, "guarded": 0, "added": 0, "already": 0, "broken": 0, "ambiguous": 0,
                           "left_alone": Counter(), "calls": Counter()}
    for p in pages:
        for k in ("found", "guarded", "already"):
            out[k] += p[k]
        out["added"] += len(p["added"])
        out["broken"] += len(p["broken"])
        out["ambiguous"] += len(p["ambiguous"])
        out["left_alone"].update(p["left_alone"])
        out["calls"].update(p["calls"])
    out["left_alone"] = dict(sorted(out["left_alone"].items()))
    out["calls"] = {k: out["calls"].get(k, 0) for k in ("resolved", "ambiguous", "broken", "unknown")}
    return out
