"""Claims made visible in the prose: GFM footnote markers and their rendered definitions.

Each claim's sentence carries `[^c-1a2b3c4d]` (the first 8 hex of its id), or the comment form
`<!-- c-1a2b3c4d -->` (markers.py: after a code example, or on a docs site). The tool owns one
block of footnote definitions at the end of the page, between two HTML comments, rendered from
the sidecar: each links to the cited lines with a relative link, which GitHub renders as a link
to the highlighted lines; a claim marked only by a comment gets none (nothing refers to it).
Pure: text in, text out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping

from openwiki_git.evidence.kinds import kind_link_path, looks_like_kind
from openwiki_git.evidence.resource import parse_resource
from openwiki_git.model import Claim
from openwiki_git.pages import examples as page_examples
from openwiki_git.pages import markers, rst_examples, rst_markers, sentences
from openwiki_git.pages.frontmatter_core import body_start
from openwiki_git.pages.markers import ANY, comment, footnote, markers_in
from openwiki_git.pages.markers import BLOCK as _BLOCK

BEGIN = "<!-- openwiki-git:citations:begin (generated from .claims; edit claims, not these lines) -->"
END = "<!-- openwiki-git:citations:end -->"


def label(claim_id: str) -> str:
    return markers.label(claim_id)


def marker(claim_id: str) -> str:
    """The claim's footnote marker, `[^c-1a2b3c4d]`."""
    return footnote(label(claim_id))


def comment_marker(claim_id: str) -> str:
    """The claim's comment marker, `<!-- c-1a2b3c4d -->` (invisible when rendered)."""
    return comment(label(claim_id))


def strip_block(text: str) -> str:
    return _BLOCK.sub("\n", text).rstrip("\n") + "\n" if _BLOCK.search(text) else text


def has_marker(text: str, claim_id: str) -> bool:
    return label(claim_id) in markers_in(text)


def link_for(page_repo_path: str, resource: str) -> str:
    """A relative link from the page to the cited file, with GitHub's #Lx-Ly line anchor (a
    definition: its file; a set: the directory its glob starts in)."""
    if looks_like_kind(resource):
        target_path = kind_link_path(resource)
        return posixpath.relpath(target_path or ".", posixpath.dirname(page_repo_path) or ".")
    res = parse_resource(resource, wiki_dir="\0")
    encoded = res.canonical.removeprefix("repo://").split("#", 1)[0]
    target = posixpath.relpath(encoded, posixpath.dirname(page_repo_path) or ".")
    return f"{target}#L{res.start}-L{res.end}" if res.is_range else target


def definition(page_repo_path: str, claim: Claim) -> str:
    cites = []
    for ev in claim.evidence:
        if looks_like_kind(ev.resource):
            where = "`" + ev.resource.removeprefix("repo://") + "`"  # a glob's `*` is no emphasis
        else:
            res = parse_resource(ev.resource, wiki_dir="\0")
            where = f"{res.path}#L{res.start}-L{res.end}" if res.is_range else res.path
        cites.append(f"[{where}]({link_for(page_repo_path, ev.resource)})")
    line = f"[^{label(claim.id)}]: " + ", ".join(cites)
    if claim.mark is not None:
        line += f" (⚠ {claim.mark.status}: the cited code changed; this statement awaits review)"
    return line


def render_block(page_repo_path: str, claims: tuple[Claim, ...] | list[Claim]) -> str:
    if not claims:
        return ""
    lines = [BEGIN, *(definition(page_repo_path, c) for c in claims), END]
    return "\n".join(lines) + "\n"


def sync(text: str, page_repo_path: str, claims: tuple[Claim, ...] | list[Claim]) -> str:
    """The page with its definitions block brought in step with `claims` (only that block changes)."""
    block = render_block(page_repo_path, claims)
    match = _BLOCK.search(text)
    if match:
        start, end = match.span()
        prefix = "\n\n" if block and start > 0 else ("\n" if start > 0 else "")
        return text[:start] + prefix + block + text[end:] if block else text[:start].rstrip("\n") + "\n" + text[end:]
    if not block:
        return text
    if not text.strip("\n"):
        return block  # an empty page: the block alone (and a second sync leaves it so)
    body = text if text.endswith("\n") else text + "\n"
    return body + "\n" + block


def insert_marker(text: str, statement: str, claim_id: str, *, rst: bool = False) -> str | None:
    """Put the claim's marker after the prose sentence that is its statement (split as
    pages/sentences.py splits, white space and other markers aside: after its punctuation and the
    markers already there), else after the first verbatim occurrence of the statement in the prose.
    In reStructuredText (`rst`) the marker is a comment line after the sentence's paragraph.

    A code example's statement (pages/examples.py) puts the comment form on the line after its
    closing fence. Returns None when the statement is not in the page (the user places the marker
    by hand).
    """
    if rst:
        return _insert_rst(text, statement, claim_id)
    body = body_start(text)  # never inside the front matter (a title may repeat the sentence)
    if has_marker(text, claim_id):
        return None
    block = _BLOCK.search(text, body)
    prose_end = block.start() if block else len(text)
    wanted = _norm(statement)
    for span in sentences.prose(text[:prose_end], body):
        if _norm(text[span.start : span.stop]) == wanted:
            return text[: span.end] + marker(claim_id) + text[span.end :]
    for ex in page_examples.examples(text):
        if _norm(ex.statement) == wanted:
            return insert_comment_after(text, ex, claim_id)
    at = text.find(statement, body, prose_end) if statement else -1
    if at < 0:
        return None
    at += len(statement)
    return text[:at] + marker(claim_id) + text[at:]


def labels_after(text: str, statement: str) -> list[str]:
    """The labels of the markers after the first prose sentence that is `statement` (split and
    compared as insert_marker does): the claims that sentence carries already."""
    body = body_start(text)
    block = _BLOCK.search(text, body)
    wanted = _norm(statement)
    for span in sentences.prose(text[: block.start() if block else len(text)], body):
        if _norm(text[span.start : span.stop]) == wanted:
            return ANY.findall(text, span.stop, span.end)
    return []


def insert_comment_after(text: str, ex: page_examples.Example, claim_id: str) -> str:
    """`text` with the claim's comment marker on the line right after example `ex`, indented as
    its fence (added to the marker line already there)."""
    at = ex.end
    if ex.markers:
        eol = text.find("\n", at)
        eol = len(text) if eol < 0 else eol
        at = eol - (text[at:eol].endswith("\r"))
        return text[:at] + " " + comment_marker(claim_id) + text[at:]
    newline = "\r\n" if text[:at].endswith("\r\n") else "\n"
    lead = "" if at == 0 or text[:at].endswith("\n") else newline  # a fence closing the page without a newline
    return text[:at] + lead + ex.indent + comment_marker(claim_id) + newline + text[at:]


def _insert_rst(text: str, statement: str, claim_id: str) -> str | None:
    if has_marker(text, claim_id):
        return None
    wanted = _norm(statement)
    for start, end in rst_markers.paragraphs(text):
        if any(_norm(text[s.start : s.stop]) == wanted for s in sentences.split(text, start, end)):
            return rst_markers.insert(text, end, [label(claim_id)], rst_markers.indent_of(text, start))
    if page_examples.is_statement(statement):
        for ex in rst_examples.examples(text):
            if _norm(ex.statement) == wanted:
                return rst_markers.insert(text, ex.end, [label(claim_id)], ex.indent)
    return None


def example_marker_at(text: str, claim_id: str) -> int:
    """Where the claim's marker starts when it is one that can close a code example: the comment
    form (Markdown) or a reST marker line; -1 otherwise."""
    m = own_marker(claim_id).search(text)
    if m is not None and m.group(0).startswith("<!--"):
        return m.start()
    return rst_markers.marker_at(text, label(claim_id)) if ".. c-" in text else -1


def rst_example(text: str, claim_id: str) -> page_examples.Example | None:
    """The reStructuredText code example the claim's marker line follows, or None. The page is
    parsed only when the block before the marker line is indented deeper than the marker, or is a
    session (`>>>`): a paragraph's marker stands at the paragraph's own indentation."""
    at = rst_markers.marker_at(text, label(claim_id)) if ".. c-" in text else -1
    para = rst_markers.paragraph_before(text, at) if at >= 0 else None
    if para is None:
        return None
    deeper = para[0] - (text.rfind("\n", 0, para[0]) + 1) > len(text[at:]) - len(text[at:].lstrip(" \t"))
    if not deeper and not text.startswith(">>>", para[0]):
        return None
    return rst_examples.closed_by(text, at)


def rst_paragraph(text: str, claim_id: str) -> tuple[int, int] | None:
    """The paragraph (or a code block's last lines) a reStructuredText marker line of the claim
    follows: its first character and the end of its last line; None without such a line."""
    if ".. c-" not in text:
        return None
    at = rst_markers.marker_at(text, label(claim_id))
    return rst_markers.paragraph_before(text, at) if at >= 0 else None


def is_rst_marked(text: str, claim_id: str) -> bool:
    """Whether the claim's marker is a reStructuredText comment line after a paragraph."""
    return rst_paragraph(text, claim_id) is not None


def paragraph_sentences(text: str, claim_id: str) -> list[str]:
    """The sentences of the reStructuredText paragraph the claim's marker line follows, each as a
    statement reads (white space collapsed); [] when there is none."""
    para = rst_paragraph(text, claim_id)
    if para is None:
        return []
    ex = rst_example(text, claim_id)
    if ex is not None:
        return [_norm(ex.statement)]
    return [s for s in (_norm(text[sp.start : sp.end]) for sp in sentences.split(text, para[0], para[1])) if s]


def rst_sentence(text: str, claim_id: str, statement: str) -> tuple[int, int] | None:
    """Where the claim's sentence is in a reStructuredText page: the sentence of the paragraph its
    marker line follows whose text is the statement (start, stop), or None."""
    para = rst_paragraph(text, claim_id)
    if para is None or rst_example(text, claim_id) is not None:
        return None  # no marker line; or it closes a code example, which is no sentence
    return _sentence_in(text, para, statement)


def _sentence_in(text: str, para: tuple[int, int], statement: str) -> tuple[int, int] | None:
    wanted = _norm(statement)
    return next(((s.start, s.stop) for s in sentences.split(text, *para) if _norm(text[s.start : s.stop]) == wanted), None)


def _norm(text: str) -> str:
    """A sentence as the reader reads it: markers and `ground`'s ignore comments aside."""
    return " ".join(IGNORE.sub("", ANY.sub("", text)).split())


# `ground`'s inline comment after a reference it is to leave alone (docs/grounding.md): no part of the sentence
IGNORE = re.compile(r"<!--\s*openwiki-git:\s*ignore\s*-->")


def own_marker(claim_id: str) -> re.Pattern[str]:
    """The claim's marker in either form (never its footnote definition)."""
    lab = re.escape(label(claim_id))
    return re.compile(r"\[\^" + lab + r"\](?!:)|<!--[ \t]*" + lab + r"[ \t]*-->")


def _marker_at(text: str, claim_id: str) -> int:
    """Where the claim's first marker stands in the prose (not its footnote definition), or -1."""
    body = body_start(text)
    block = _BLOCK.search(text, body)
    m = own_marker(claim_id).search(text, body, block.start() if block else len(text))
    return m.start() if m else -1


def prose_before(text: str, claim_id: str) -> str | None:
    """The sentence the claim's marker follows (markers removed, white space collapsed), or None
    when the page has no such marker. In reStructuredText: the paragraph the marker line follows."""
    para = rst_paragraph(text, claim_id)
    if para is not None:
        ex = rst_example(text, claim_id)
        return ex.statement if ex is not None else _norm(text[para[0] : para[1]])
    at = _marker_at(text, claim_id)
    if at < 0:
        return None
    span = sentences.before(text, at, body_start(text))
    if span is None:  # a code example's comment marker: the example's statement
        ex = page_examples.closed_by(text, at)
        return ex.statement if ex is not None else ""
    return _norm(text[span.start : at])


def sentence_line(text: str, claim_id: str, statement: str | None = None) -> int | None:
    """The 1-based page line where the sentence the claim's marker follows starts (None: no
    marker): what `check` and `review` name as PAGE:LINE. The sentence is the one splitter's; in
    reStructuredText, where the marker line follows the paragraph, the sentence of that paragraph
    that is the `statement` (the paragraph's first line when none is, or no statement is given)."""
    para = rst_paragraph(text, claim_id)
    if para is not None:
        ex = rst_example(text, claim_id)
        if ex is not None:
            return ex.line
        found = _sentence_in(text, para, statement) if statement is not None else None
        return text.count("\n", 0, found[0] if found is not None else para[0]) + 1
    return _sentence_line(text, _marker_at(text, claim_id), body_start(text), None)


def marker_lines(
    text: str, claim_ids: Iterable[str], *, unmarked_page_ok: bool = False, statements: Mapping[str, str] | None = None
) -> dict[str, int | None]:
    """The claims of `claim_ids` whose marker the page carries (has_marker), each with its
    sentence_line, the page's markers found and its blocks split once, not once per claim (`check
    --base` asks for every claim of a page a commit touched). `unmarked_page_ok`: on a page with no
    marker at all every claim counts as marked, with no line (OpenWiki's pages carry none).
    `statements` (claim id -> statement) find a reStructuredText claim's sentence in its paragraph."""
    markers = markers_in(text)
    if unmarked_page_ok and not markers:
        return dict.fromkeys(claim_ids)
    if ".. c-" in text and rst_markers.labels_in(text):
        said = statements or {}
        return {cid: sentence_line(text, cid, said.get(cid)) for cid in claim_ids if label(cid) in markers}
    body = body_start(text)
    found = sentences.blocks(text, body)
    first = first_markers(text, body)
    exs = page_examples.examples(text) if "<!--" in text else []
    return {cid: _sentence_line(text, first.get(label(cid), -1), body, found, exs) for cid in claim_ids if label(cid) in markers}


def first_markers(text: str, body: int | None = None) -> dict[str, int]:
    """Each label's first marker in the prose (_marker_at's answer), from one pass: a search per
    claim scanned the generated block again each time (40 ms for a page of 100 claims)."""
    body = body_start(text) if body is None else body
    block = _BLOCK.search(text, body)
    first: dict[str, int] = {}
    for m in ANY.finditer(text, body, block.start() if block else len(text)):
        first.setdefault(m.group(1), m.start())
    return first


def _sentence_line(
    text: str, at: int, body: int, found: list[tuple[str, int, int]] | None, exs: list[page_examples.Example] | None = None
) -> int | None:
    """The 1-based line where the sentence before the marker at `at` starts (None: at is -1); for
    a code example's comment marker, the line of its opening fence. `exs`: the page's examples."""
    if at < 0:
        return None
    span = sentences.before(text, at, body, found)
    if span is None and text.startswith("<!--", at):
        ex = page_examples.closed_by(text, at, exs)
        if ex is not None:
            return ex.line
    start = span.start if span is not None else at
    while start < at and text[start] in " \t\n":
        start += 1
    return text.count("\n", 0, start) + 1


def states(text: str, claim_id: str, statement: str) -> bool | None:
    """Whether the prose right before the claim's marker is its statement (white space and other
    markers aside); None when the page has no marker for it. A page edited so that the sentence
    carrying the marker no longer reads as the statement gives False. In reStructuredText: whether
    a sentence of the paragraph the marker line follows is the statement."""
    if rst_paragraph(text, claim_id) is not None:
        ex = rst_example(text, claim_id)
        if ex is not None:
            return _norm(ex.statement) == _norm(statement)
        return rst_sentence(text, claim_id, statement) is not None
    body = body_start(text)
    prose = _BLOCK.sub("", text[body:])
    m = own_marker(claim_id).search(prose)
    if m is None:
        return None
    if prose.startswith("<!--", m.start()):  # after a code example: its statement is the example's
        ex = page_examples.closed_by(text, _marker_at(text, claim_id))
        if ex is not None:
            return _norm(ex.statement) == _norm(statement)
    return _norm(prose[: m.start()]).endswith(_norm(statement))


def remove_marker(text: str, claim_id: str) -> str:
    """`text` without the claim's markers, in either form: a comment marker goes with the blanks
    before it, and with its line when it stands alone on it."""
    return remove_label(text, label(claim_id))


def remove_label(text: str, name: str) -> str:
    """`text` without the markers of label `name` (`c-1a2b3c4d`), in any form (remove_marker)."""
    if ".. c-" in text:
        text = rst_markers.remove(text, name)
    if "<!--" in text:
        lab = re.escape(name)
        text = re.sub(r"(?m)^[ \t]*<!--[ \t]*" + lab + r"[ \t]*-->[ \t]*(?:\r?\n|\Z)", "", text)
        text = re.sub(r"[ \t]*<!--[ \t]*" + lab + r"[ \t]*-->", "", text)
    return text.replace(footnote(name), "")
