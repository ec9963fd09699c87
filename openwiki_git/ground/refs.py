"""Code references in a Markdown page: what `ground` tries to resolve. Pure: text in, records out.

A reference is the text of an inline code span (`` `attrs.define()` ``, `` `--wiki-dir` ``,
`` `OPENWIKI_MODEL` ``, `` `src/app.py` ``) or the target of a relative link, with the sentence it
stands in. Fenced and indented code blocks are examples, not statements: their spans are not
references, but the names they define (def, class, assignment) are collected (`local_names`) so
that a tutorial's own `my_func()` is never reported broken. Headings, tables, HTML, MyST
directives and comments are scanned for references but get no claims (a marker there would spoil
the page); the front matter and the generated citations block are not scanned.

Each sentence knows where it ends in the page (after its closing punctuation and any markers that
already follow it), which is where a new claim's marker goes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from openwiki_git.markdown import rstdoc
from openwiki_git.pages import rst_markers, sentences
from openwiki_git.pages.citations import IGNORE
from openwiki_git.pages.frontmatter_core import body_start as front_matter_end
from openwiki_git.pages.markers import ANY, strip

KINDS = ("symbol", "path", "flag", "env", "key", "string", "literal", "setting")
# Names that are not definitions: grounded in the lines that mention them (names.py) or, a
# setting, in the configuration line setting it (resolve.py); one in a section heading guards its
# section's sentences.
NAME_KINDS = ("flag", "env", "key", "string", "literal", "setting")

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
# A header-like word written in prose, each part capitalised (`X-Forwarded-Port`, `Keep-Alive`),
# not in a code span or a link's target: grounded, like a literal in a code span, only where the
# package's code mentions it (uvicorn's proxy middleware dropping b"x-forwarded-port").
_HEADER_WORD = re.compile(r"(?<![\w`/.-])([A-Z][A-Za-z0-9]*(?:-[A-Z][A-Za-z0-9]*)+)(?![\w`/-])")
_LINK_TEXT = re.compile(r"\]\([^)]*\)|<[^>]*>")  # a link's target and HTML tags: not prose
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_ROLE = re.compile(r"(?:\{(?:py:)?([a-z]+)\}|(?<![\w`]):(?:py:)?([a-z]+):)$")  # MyST {func}`x`, reST :func:`x`
_LIST = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_BLOCK = re.compile(r"\n*<!-- openwiki-git:citations:begin[^\n]*-->\n.*?<!-- openwiki-git:citations:end -->\n?", re.DOTALL)
_DEF_IN_CODE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]", re.MULTILINE)

_PY_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_SYMBOL = re.compile(rf"^{_PY_IDENT}(?:\.{_PY_IDENT})*$")
_FLAG = re.compile(r"^--?[A-Za-z][A-Za-z0-9-]*$")
# `--workers <int>`, `--use-colors / --no-use-colors`, `--port=8000`: the flag is the first word
_FLAG_USAGE = re.compile(r"^(--[A-Za-z][A-Za-z0-9-]*)(?:=\S*|\s+(?:<[^<>]+>|\[[^\[\]]+\]|/\s*--[A-Za-z][\w-]*|[^\s-]\S*))$")
# one token with a separator inside (a header `X-Forwarded-For`, an extra `pkg[all]`, a file
# `last-error.log`), not a word with its full stop (`etc.`)
_LITERAL = re.compile(r"^(?=[^\s`]*[A-Za-z]{2})(?=[^\s`]*[-_=:\[./][\w\[])[A-Za-z0-9_][\w.:\[\]=+-]{2,59}$")
_STRING = re.compile(r"""^(["'])([\w.:/@<>*+-]{2,60})\1$""")  # `"auto"`, `'127.0.0.1'`: a string constant
_ENV = re.compile(r"^\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\}?$")
# a setting quoted with its value inside a longer span, in a configuration file's spelling
# (`fail-under=95`, `fail_under = 95`); not a flag's (`--cov-fail-under=95`)
_SETTING = re.compile(r"(?<![\w-])([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+) ?= ?[\w\"'.]")
_BARE_SPAN = re.compile(r"(`+)(?!`)(?:(?!\1).)+(?<!`)\1[.;,]?")  # a sentence that is one code span, no words around it
_KEY = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_PATH = re.compile(r"^\.{0,2}/?[\w.@+-]+(?:/[\w.@+-]+)*/?$")
_EXT = re.compile(r"\.[A-Za-z0-9]{1,8}$")
_CALL = re.compile(r"^(.+?)\((.*)\)$", re.DOTALL)
_TITLED = re.compile(r"^[^<]*<([^<>]+)>$")


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str  # the statement: the sentence as written, markers removed, whitespace collapsed
    line: int  # 1-based line where it starts
    end: int  # offset in the page where a marker goes (after punctuation and existing markers)
    claimable: bool  # a prose sentence (not a heading, table row or HTML)
    markers: tuple[str, ...]  # labels of the claim markers that follow it already


@dataclass(frozen=True, slots=True)
class Ref:
    kind: str  # symbol, path, flag, env, key
    name: str  # normalised: `~attrs.define()` -> attrs.define; `$FOO` -> FOO
    raw: str  # the span or link target as written
    sentence: Sentence
    called: bool = False  # written with parentheses: `f()`
    role: str | None = None  # MyST/Sphinx role before the span: func, class, meth, mod, attr
    link: bool = False  # from a link target rather than a code span


@dataclass(frozen=True, slots=True)
class PageRefs:
    refs: tuple[Ref, ...]
    local_names: frozenset[str]  # names the page's own code blocks define or import
    # per prose sentence, the names (NAME_KINDS) of its section's headings: what the sentence is
    # about though it does not repeat them (a heading carries no marker, so each sentence of the
    # section carries them). A list item led by a name (`* `--workers <int>` - ...`) is guarded by
    # its first sentence's claim: the item is one unit for a reader and for the report. A sentence
    # leading into sentences that are each one code span ("you will see this message:" then
    # `... fail-under=95`; "e.g.:" then a list of `--install-completion bash`) is guarded by those
    # spans' names, and each such span, a statement of its own there, gets a claim, guarded in turn
    # by the names its lead sentence makes (`shellingham` in "If you didn't add `shellingham`, ... e.g.:").
    guards: dict[Sentence, tuple[Ref, ...]] = field(default_factory=dict)
    ignored: int = 0  # references followed by `<!-- openwiki-git: ignore -->`
    # per prose sentence, the class-like names (`Client`, :class:`x.Retrying`) that the earlier
    # sentences of its section name: "Its most useful attributes are: ``attempt_number`` ..." after
    # a sentence naming `RetryCallState` names that class's member (deterministic.py resolves them).
    context: dict[Sentence, tuple[Ref, ...]] = field(default_factory=dict)
    sentences: tuple[Sentence, ...] = ()  # the prose sentences, in page order: all_sentences's, read once


def classify(raw: str, role: str | None = None) -> tuple[str, str, bool] | None:
    """(kind, name, called) of one code span's text, or None when it is no reference (prose in
    backticks, a shell command, an expression, a literal)."""
    text = raw.strip()
    if not text or "\n" in text or len(text) > 200:
        return None
    if role in ("file", "download"):
        return ("path", text, False) if _PATH.match(text) else None
    text = text.lstrip("~!") if role else text
    titled = _TITLED.match(text) if role else None
    text = titled.group(1).lstrip("~!") if titled else text  # reST `:class:`the retrier <pkg.Retrying>``
    if _FLAG.match(text) and text.startswith("--") and len(text) > 3:
        return "flag", text, False
    usage = _FLAG_USAGE.match(text)
    if usage:
        return "flag", usage.group(1), False
    literal = _STRING.match(text)
    if literal and re.search(r"[A-Za-z]{2}", literal.group(2)):
        return "string", literal.group(2), False
    m = _ENV.match(text)
    if m and (text.startswith("$") or "_" in text):
        return "env", m.group(1), False
    if text.startswith("@") and text[1:2].isidentifier() and not role:  # a decorator: `@app.command()`, `@define`
        got = classify(text[1:])  # a bare `@frozen` may be a variable (`frozen = partial(define, ...)`): not called
        return ("symbol", got[1], got[2] or "." in got[1]) if got is not None and got[0] == "symbol" else None
    if text.startswith(".") and not role:  # `.auth_flow()`: a method of something, named by its own name
        call = _CALL.match(text[1:])
        if not call or not _SYMBOL.match(call.group(1).strip()):
            return None  # `.py`, `.env`: a suffix, not a method
        return "symbol", call.group(1).strip(), True
    called = False
    call = _CALL.match(text)
    if call and _SYMBOL.match(call.group(1).strip()):
        text, called = call.group(1).strip(), True
    if _SYMBOL.match(text):
        if text in ("True", "False", "None") or text.isdigit():
            return None
        if "." in text:
            last = text.rsplit(".", 1)[1]
            if last.lower() in _FILE_EXTS and not called and not role:
                return "path", text, False  # `setup.py`, `conf.py`: a file name, not an attribute
            return "symbol", text, called
        if called or role or text[:1].isupper() or text.startswith("_") or (text.islower() and "_" in text):
            return ("key" if _KEY.match(text) and not called and not role else "symbol"), text, called
        return "symbol", text, False  # a plain identifier (`total`): cited only when one definition has the name
    if "/" in text and _PATH.match(text) and not text.startswith("/") and "//" not in text:
        return "path", text, False
    if _LITERAL.match(text) and not text.startswith("-"):
        return "literal", text, False  # `X-Forwarded-For`: grounded only where the code mentions it (names.py)
    setting = _SETTING.search(text) if " " in text else None
    if setting:  # `Coverage failure: total of 88 is less than fail-under=95`: a message quoting a setting
        return "setting", setting.group(1), False
    return None


_FILE_EXTS = {
    "py", "pyi", "md", "rst", "txt", "toml", "cfg", "ini", "yml", "yaml", "json", "js", "ts", "tsx", "jsx",
    "go", "rs", "c", "h", "cpp", "hpp", "java", "rb", "sh", "lock", "in", "html", "css", "xml", "csv", "sql",
}


Blocks = Callable[[str], list[tuple[str, int, int]]]


def page_refs(text: str, blocks: Blocks | None = None) -> PageRefs:
    """Every reference in the page, each with its sentence, in page order; the names that guard
    each sentence (its Markdown section headings'). `blocks`: the page's blocks when it is not
    Markdown (pages/rst.py's for a reStructuredText page, whose markers follow the paragraph:
    rst_markers.py); ground/formats.py picks them by the page's name."""
    refs: list[Ref] = []
    local: set[str] = set()
    guards: dict[Sentence, tuple[Ref, ...]] = {}
    headings: list[tuple[int, tuple[Ref, ...]]] = []  # the open sections: (level, their names)
    context: dict[Sentence, tuple[Ref, ...]] = {}
    prose: list[Sentence] = []
    classes: list[Ref] = []  # the class-like names the current section's sentences made so far
    ignored = [0]
    lead: Sentence | None = None  # the previous paragraph's last sentence, when it leads into what follows (`...:`)
    masked, found_blocks = _blocks(text, blocks)
    for kind, start, end in found_blocks:
        chunk = masked[start:end]
        before, lead = lead, None
        if kind == "code":
            for m in _DEF_IN_CODE.finditer(chunk):
                local.add(m.group(1) or m.group(2))
            classes = []  # after an example the text moves on: "the `retry` attribute" is no longer `Retrying`'s
            continue
        spans = _sentences(text, start, end, claimable=kind == "prose", rst=blocks is not None)
        if kind == "prose":
            prose.extend(sn for sn, _, _ in spans)
        if before is not None and kind == "prose":  # "e.g.:" then `--install-completion bash`: the usage is the statement
            spans = [(replace(sn, claimable=True) if _BARE_SPAN.fullmatch(sn.text) else sn, a, z) for sn, a, z in spans]
        found = [(sentence, _refs_in(text, s_start, s_end, sentence, ignored)) for sentence, s_start, s_end in spans]
        bare = [sn for sn, _ in found if _BARE_SPAN.fullmatch(sn.text)] if kind == "prose" else []
        items = {sentence for sentence, s_start, _ in spans if _list_item(text, s_start)}
        refs.extend(r for _, got in found for r in got)
        level = _HEADING_LEVEL.match(chunk) if blocks is None else None
        if level or blocks is not None and kind == "other" and rstdoc.is_adornment(_next_line(text, end)):
            classes = []
        if level:
            headings = [h for h in headings if h[0] < len(level.group(1))]
            headings.append((len(level.group(1)), tuple(r for _, got in found for r in got if r.kind in NAME_KINDS)))
        elif kind == "prose":
            names = tuple(r for _, rs in headings for r in rs)
            for sentence, got in found:
                if names:
                    guards[sentence] = names
                if classes:
                    context[sentence] = tuple(classes)
                if sentence not in items:  # a list item's class is its own: "- the `Retrying` object" is no lead for "- ``sleep``"
                    classes.extend(r for r in got if _class_like(r) and r.name not in {c.name for c in classes})
            quoted = [r for sn, got in found if sn in bare for r in got if r.kind in NAME_KINDS]
            if before is not None and quoted:  # "..., you will see this message:" then `... fail-under=95`
                guards[before] = guards.get(before, ()) + tuple(quoted)
            said = tuple(r for r in refs if r.sentence == before and r.kind in (*NAME_KINDS, "symbol")) if bare and before else ()
            for sn in bare if said else ():  # and the usage says what its lead says: "If you didn't add `shellingham` ..., e.g.:"
                guards[sn] = guards.get(sn, ()) + said
            if found and found[-1][0].text.endswith(":"):
                lead = found[-1][0]
            elif before is not None and found and len(bare) == len(found):
                lead = before  # the next item of a list of usages it leads into
    return PageRefs(tuple(refs), frozenset(local), guards, ignored[0], context, tuple(prose))


_BULLET = re.compile(r"[ \t]*(?:[-*+]|\d+[.)]|#\.)[ \t]+")


def _list_item(text: str, at: int) -> bool:
    """Whether the sentence starting at `at` leads a list item (its line's bullet comes first)."""
    bullet = _BULLET.match(text, text.rfind("\n", 0, at) + 1)
    return bullet is not None and at <= bullet.end()


def _next_line(text: str, at: int) -> str:
    """The line after the one `at` is on ("" at the end): a reST title's underline ends a section's context."""
    start = text.find("\n", at) + 1
    if not start:
        return ""
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]


def _class_like(ref: Ref) -> bool:
    """A reference that may name a class: written with a class role, or a capitalised symbol."""
    last = ref.name.rsplit(".", 1)[-1]
    return ref.kind == "symbol" and (ref.role in ("class", "exc") or ref.role is None and last[:1].isupper() and not last.isupper())


_HEADING_LEVEL = re.compile(r"^ {0,3}(#{1,6})\s")
_IGNORE = re.compile(r"[ \t]*" + IGNORE.pattern)


def _blocks(text: str, blocks: Blocks | None) -> tuple[str, list[tuple[str, int, int]]]:
    """The page as scanned (generated parts blanked) and its blocks."""
    if blocks is not None:
        return text, blocks(text)
    masked = _mask_generated(text)
    return masked, sentences.blocks(masked, front_matter_end(text))


def _refs_in(text: str, start: int, end: int, sentence: Sentence, ignored: list[int] | None = None) -> list[Ref]:
    out = []
    span = text[start:end]
    for m in _CODE_SPAN.finditer(span):
        if len(m.group(1)) == 1 and span.startswith("_", m.end()):
            continue  # reST's `Retrying`_: a hyperlink reference to a target, not code
        before = span[: m.start()]
        role_m = _ROLE.search(before)
        role = (role_m.group(1) or role_m.group(2)) if role_m else None
        got = classify(m.group(2), role)
        if got is not None and _IGNORE.match(text, start + m.end()):
            if ignored is not None:
                ignored[0] += 1
            continue
        if got is not None:
            out.append(Ref(got[0], got[1], m.group(2), sentence, got[2], role))
    bare = _CODE_SPAN.sub(_blanked, _LINK_TEXT.sub(_blanked, span)) if "-" in span else ""
    for m in _HEADER_WORD.finditer(bare):  # X-Forwarded-Port in prose: a literal the code may spell out
        if not _IGNORE.match(text, start + m.end()):
            out.append(Ref("literal", m.group(1), m.group(1), sentence))
    for m in _LINK.finditer(span):
        target = m.group(1).split("#", 1)[0]
        if not target or ":" in target or target.startswith(("/", "#", "mailto")):
            continue
        if "/" not in target and "." in target and _SYMBOL.match(target) and target.rsplit(".", 1)[-1].lower() not in _FILE_EXTS:
            out.append(Ref("symbol", target, m.group(1), sentence, link=True))  # MyST: [`x()`](pkg.x)
            continue
        if target.endswith((".md", ".html", ".rst", "/")) or not _EXT.search(target):
            continue  # links between pages are lint's broken-link business
        out.append(Ref("path", target, m.group(1), sentence, link=True))
    return out


def _blanked(m: re.Match[str]) -> str:
    """A match replaced by as many spaces: offsets into the sentence stay where they were."""
    return " " * len(m.group(0))


def _mask_generated(text: str) -> str:
    """The page with the generated citations block and HTML comments blanked (same length)."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    text = _BLOCK.sub(blank, text)
    return re.sub(r"<!--.*?-->", blank, text, flags=re.DOTALL)


def _sentences(text: str, start: int, end: int, *, claimable: bool, rst: bool = False) -> list[tuple[Sentence, int, int]]:
    """One block's sentences (pages/sentences.py splits them); offsets refer to `text`. In
    reStructuredText a marker follows the paragraph: each sentence's marker place is the
    paragraph's end, and the markers after the paragraph are every sentence's."""
    out = []
    after = rst_markers.following(text, end)[1] if rst else []
    for span in sentences.split(text, start, end):
        raw_body = text[span.start : span.end]
        statement = _statement(raw_body)
        if statement:
            markers = tuple(after) if rst else tuple(m.group(1) for m in ANY.finditer(raw_body))
            line = text.count("\n", 0, span.start) + 1
            place = end if rst else span.end
            out.append((Sentence(statement, line, place, claimable and _claimable(statement), markers), span.start, span.end))
    return out


def _statement(raw: str) -> str:
    raw = IGNORE.sub("", strip(raw))  # what the reader sees: an inline `<!-- openwiki-git: ignore -->` is not said
    lines = [_QUOTE.sub("", _LIST.sub("", ln, count=1)) for ln in raw.splitlines()]
    return " ".join(" ".join(lines).split())


def _claimable(statement: str) -> bool:
    """A sentence worth a claim: some words besides the references."""
    words = re.findall(r"[A-Za-z]{2,}", _CODE_SPAN.sub(" ", statement))
    return len(words) >= 3


def statement_of(text: str) -> str:
    """The statement key of a sentence as stored: markers and ignore comments removed, whitespace collapsed."""
    return " ".join(IGNORE.sub("", strip(text)).split())


def headings(text: str, blocks: Blocks | None = None) -> list[tuple[int, int]]:
    """(level, line) of each Markdown heading, in page order; none on a page read through
    `blocks` (a reStructuredText page's sections are not read here)."""
    if blocks is not None:
        return []
    masked, found = _blocks(text, None)
    return [(len(m.group(1)), text.count("\n", 0, start) + 1)
            for kind, start, end in found if kind != "code" for m in [_HEADING_LEVEL.match(masked[start:end])] if m]


def all_sentences(text: str, blocks: Blocks | None = None) -> list[Sentence]:
    """The sentences of the page's prose blocks, in page order (the model pass reads the
    claimable ones; markers go after any of them). `blocks`: as page_refs takes it."""
    out: list[Sentence] = []
    for kind, start, end in _blocks(text, blocks)[1]:
        if kind == "prose":
            out.extend(s for s, _, _ in _sentences(text, start, end, claimable=True, rst=blocks is not None))
    return out
