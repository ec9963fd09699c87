"""A page's code examples: the fenced `python`/`py`/`pycon`/`console` blocks (and shell blocks,
and blocks of `>>>` lines, fenced without a language or indented), where each ends, the comment
markers on the line right after it, the statement a claim guarding it carries, and a console
example's command lines (the program each runs, the long options and dotted names it passes).
Pure: text in, records out.

A fenced block without a language is an example when it opens with a prompt (`>>>`, `$ `).

A claim guards an example through a comment marker, `<!-- c-1a2b3c4d -->`, on the line right after
the closing fence, indented as the fence is (so it stays inside an admonition or a tab): a footnote
there would be read as code, a comment is not rendered. The claim's "sentence" is the example: its
statement names the example's first line that does something (not an import, a comment or a blank
line; for a console, its first command) and how long it is, so that `review`, the refresher and
`claim show` read one line, not thirty; the code itself is the page's (the refresher's paragraph
shows it whole).

Fences are read as MkDocs' SuperFences reads them: indented by any amount (inside an admonition or
a content tab), closed by a line of at least as many of the same character.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from openwiki_git.pages.frontmatter_core import body_start
from openwiki_git.pages.markers import COMMENT

_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^\n]*?)[ \t]*$")
_LANGUAGE = re.compile(r"\{?\.?([A-Za-z][\w+-]*)\}?")
_DIRECTIVE = re.compile(r"\{(code-block|code|sourcecode)\}[ \t]+([A-Za-z][\w+-]*)")  # MyST: ```{code-block} python
_MARKER_LINE = re.compile(r"^[ \t]*(?:<!--[ \t]*c-[0-9a-f]{8,32}[ \t]*-->[ \t]*)+$")
_BEGIN = "<!-- openwiki-git:citations:begin"

PYTHON, PYCON, CONSOLE = "python", "pycon", "console"
LANGUAGES = {
    "python": PYTHON, "py": PYTHON, "python3": PYTHON, "py3": PYTHON,
    "pycon": PYCON, "python-repl": PYCON, "pyrepl": PYCON,
    "console": CONSOLE, "shell-session": CONSOLE, "bash": CONSOLE, "sh": CONSOLE, "shell": CONSOLE, "zsh": CONSOLE,
    "doctest": PYCON, "testcode": PYTHON,  # MyST's ```{doctest} and ```{testcode} (sphinx.ext.doctest)
}  # fmt: skip
FIRST_LINE_CHARS = 80  # a statement quotes at most this much of the example's first line


@dataclass(frozen=True, slots=True)
class Example:
    kind: str  # python, pycon or console
    lang: str  # the fence's language as written ("" for a block of `>>>` lines without one)
    code: str  # the lines between the fences, the fence's indentation removed
    line: int  # 1-based page line of the opening fence (of the first line, for an indented block)
    code_line: int  # 1-based page line of the code's first line
    end: int  # offset where the line after the closing fence starts: where a marker line goes
    indent: str  # the fence's indentation, which a marker line takes
    markers: tuple[str, ...]  # labels of the comment markers on the line right after the example

    @property
    def statement(self) -> str:
        return statement(self)


@dataclass(frozen=True, slots=True)
class Command:
    program: str  # the program the line runs (`python -m pkg` counts as `pkg`)
    options: tuple[str, ...]  # its long options, `--port`, without their values
    names: tuple[str, ...]  # dotted names it passes (`-k pkg.workers.Worker`): a class or function by its path
    text: str  # the command line, its prompt removed
    line: int
    help: bool = False  # it asks for the program's help (`--help`, `-h`): the example shows what the CLI declares
    module: bool = False  # run as `python -m pkg`: the package's `__main__.py` runs, not its console script
    words: tuple[str, ...] = ()  # the plain words before its first option (`typer pkg.main utils docs`: utils, docs)


def examples(text: str) -> list[Example]:
    """The page's code examples, in order (the front matter and the citations block are not read)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))
    first = text.count("\n", 0, body_start(text))
    out: list[Example] = []
    i = first
    while i < len(lines):
        raw = lines[i].rstrip("\r\n")
        if raw.startswith(_BEGIN):
            break
        m = _OPEN.match(raw)
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            i = _fenced(lines, starts, i, m, out)
            continue
        if raw.startswith("    ") and raw[4:].lstrip().startswith(">>>") and (i == first or not lines[i - 1].strip()):
            i = _indented(lines, starts, i, out)
            continue
        i += 1
    return out


def _fenced(lines: list[str], starts: list[int], i: int, m: re.Match[str], out: list[Example]) -> int:
    """The fenced block opening at line i (its match `m`); the index of the line after it."""
    indent, fence, info = m.group(1), m.group(2), m.group(3)
    close = re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
    j = i + 1
    while j < len(lines) and not close.match(lines[j].rstrip("\r\n")):
        j += 1
    if j >= len(lines):
        return len(lines)  # never closed: no place after it for a marker
    body = [_dedent(ln, indent) for ln in lines[i + 1 : j]]
    code = "".join(body)
    lang_m = _DIRECTIVE.match(info) or _LANGUAGE.match(info)
    lang = lang_m.group(lang_m.lastindex or 1) if lang_m else ""
    kind = LANGUAGES.get(lang.lower())
    if kind is None and not lang and code.lstrip().startswith((">>>", "$ ")):  # a session shown without a language
        kind = PYCON if code.lstrip().startswith(">>>") else CONSOLE
    if kind is not None:
        out.append(Example(kind, lang, code, i + 1, i + 2, starts[j + 1], indent, _markers_after(lines, j + 1)))
    return j + 1


def _indented(lines: list[str], starts: list[int], i: int, out: list[Example]) -> int:
    """An indented block of `>>>` lines starting at line i; the index of the line after it."""
    j = i
    while j < len(lines) and (lines[j].startswith("    ") or (not lines[j].strip() and "".join(lines[j + 1 : j + 2]).startswith("    "))):
        j += 1
    code = "".join(_dedent(ln, "    ") for ln in lines[i:j])
    out.append(Example(PYCON, "", code, i + 1, i + 1, starts[j], "", _markers_after(lines, j)))
    return j


def _dedent(line: str, indent: str) -> str:
    return line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t")


def _markers_after(lines: list[str], k: int) -> tuple[str, ...]:
    if k >= len(lines) or not _MARKER_LINE.match(lines[k].rstrip("\r\n")):
        return ()
    return tuple(COMMENT.findall(lines[k]))


def closed_by(text: str, at: int, found: list[Example] | None = None) -> Example | None:
    """The example whose marker line holds offset `at` (a comment marker's start), or None.
    `found`: the page's examples already read."""
    for ex in examples(text) if found is None else found:
        if ex.end <= at and "\n" not in text[ex.end : at]:
            return ex if ex.markers else None
    return None


_IMPORT = re.compile(r"^\s*(?:import\s+(.+)|from\s+\S+\s+import\s+\(?([^)#]+))")
_AS = re.compile(r"\s+as\s+")


def first_line(ex: Example) -> str:
    """The example's first line that does something: the first that names what it imports (the
    API it shows), else the first not blank, a comment, an import or a decorator; a console's
    first command (its prompt removed); a pycon's first statement."""
    lines = ex.code.splitlines()
    if ex.kind == PYCON:
        lines = [ln.lstrip()[4:] for ln in lines if ln.lstrip().startswith(">>> ")] or lines
    elif ex.kind == CONSOLE:
        prompted = [ln.lstrip()[2:] for ln in lines if ln.lstrip().startswith(("$ ", "% "))]
        lines = prompted or [ln for ln in lines if not ln.lstrip().startswith("#")]
    stripped = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    doing = [ln for ln in stripped if not ln.startswith(("import ", "from ", "@"))]
    names = _imported(stripped) if ex.kind != CONSOLE else set()
    naming = [ln for ln in doing if names.intersection(re.findall(r"[A-Za-z_]\w*", ln))]
    chosen = (naming or doing or stripped or [""])[0]
    return chosen if len(chosen) <= FIRST_LINE_CHARS else chosen[: FIRST_LINE_CHARS - 1].rstrip() + "…"


def _imported(lines: list[str]) -> set[str]:
    """The local names the lines' imports bind."""
    out: set[str] = set()
    for ln in lines:
        m = _IMPORT.match(ln)
        if m:
            for part in (m.group(1) or m.group(2) or "").split(","):
                bits = _AS.split(part.strip())
                if bits[0]:
                    out.add(bits[-1].split(".")[0].strip())
    return out


def statement(ex: Example) -> str:
    """The statement of the claim guarding `ex`: one sentence naming its first line and its size."""
    line = first_line(ex)
    ticks = "``" if "`" in line else "`"
    pad = " " if ticks == "``" else ""
    n = len(ex.code.splitlines())
    return f"The {ex.kind} example starting {ticks}{pad}{line}{pad}{ticks} ({n} line{'s' if n != 1 else ''}) works with the code as it is."


_STATEMENT = re.compile(r"The [\w-]+ example starting `.*` \(\d+ lines?\) works with the code as it is\.")


def is_statement(text: str) -> bool:
    """Whether a claim's statement is one `statement` wrote: the claim guards a code example."""
    return _STATEMENT.fullmatch(text) is not None


def shows_output(text: str) -> bool:
    """Whether the example a claim's statement names shows what running it prints: a session
    (`pycon`, doctest) or a console's commands with their output; a `python` block shows code."""
    return is_statement(text) and text.startswith((f"The {PYCON} example", f"The {CONSOLE} example"))


# -- a console example's commands ------------------------------------------------------------
_DOTTED = re.compile(r"(?:--[\w-]+=)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?::[A-Za-z_]\w*)?")


def commands(ex: Example) -> tuple[Command, ...]:
    """A console example's command lines (its output left out when it shows prompts), each with
    the program it runs, the long options and the dotted names it passes."""
    out = []
    prompted = any(ln.lstrip().startswith(("$ ", "% ")) for ln in ex.code.splitlines())
    for n, raw in _command_lines(ex.code):
        s = raw.strip()
        if prompted and not s.startswith(("$ ", "% ")):
            continue  # output
        s = s[2:] if s.startswith(("$ ", "% ")) else s
        try:
            words = shlex.split(s, comments=True)
        except ValueError:
            words = s.split()
        program, rest, module = _program(words)
        if program is None:
            continue
        options = tuple(dict.fromkeys(w.split("=", 1)[0] for w in rest if w.startswith("--") and len(w) > 3))
        names = tuple(dict.fromkeys(m.group(1) for w in rest if (m := _DOTTED.fullmatch(w)) and not _FILE.search(m.group(1))))
        leading = rest[: next((i for i, w in enumerate(rest) if w.startswith("-")), len(rest))]
        plain = tuple(dict.fromkeys(w for w in leading if _WORD.fullmatch(w)))
        out.append(Command(program, options, names, s, n, "--help" in rest or "-h" in rest, module, plain))
    return tuple(out)


_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")  # a subcommand's spelling: not a path, a value or a dotted name
_FILE = re.compile(r"\.(?:py|pyi|txt|md|toml|cfg|ini|json|ya?ml|pem|key|crt|sock|html|sh|log|zip|gz|tar|whl)$", re.I)


def _command_lines(code: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each command line, a trailing backslash's continuation joined on."""
    lines = code.splitlines()
    i = 0
    while i < len(lines):
        n, text = i + 1, lines[i]
        while text.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-1] + " " + lines[i].strip()
        yield n, text
        i += 1


def _program(words: list[str]) -> tuple[str | None, list[str], bool]:
    """The program a command line runs, past an environment assignment, `uv run`, `poetry run`,
    `pipx run` or `python -m` (then True: the module runs, not a console script)."""
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]
    if words[:2] in (["uv", "run"], ["poetry", "run"], ["pipx", "run"], ["pdm", "run"], ["hatch", "run"]):
        words = words[2:]
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1].startswith("python") and words[1] == "-m":
        return words[2], words[3:], True
    return (words[0], words[1:], False) if words else (None, [], False)
