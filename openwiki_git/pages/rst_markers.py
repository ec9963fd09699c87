"""The claim marker in reStructuredText: a comment line `.. c-1a2b3c4d`, invisible in the built
page. Pure, and `re` alone.

A reST comment is a block of its own, so the marker cannot stand after the sentence as a Markdown
marker does: it follows the paragraph that holds the sentence, after a blank line, at the
paragraph's indentation (inside the same list item or directive body), one line per claim:

    Tenacity retries forever by default. It never waits between attempts.

    .. c-1a2b3c4d
    .. c-5e6f7a8b

The claim's sentence is the one of that paragraph whose text is the claim's statement; the
paragraph as a whole is "the prose before the marker" when none is.
"""

from __future__ import annotations

import re

from openwiki_git.pages.labels import rst_comment as comment

# Directives whose content is code (a marker never goes into it): Sphinx's and its doctest extension's.
CODE_DIRECTIVES = frozenset({
    "code-block", "sourcecode", "code", "testcode", "testsetup", "testcleanup", "testoutput", "doctest",
    "ipython", "jupyter-execute", "code-cell", "prompt", "console", "literalinclude", "parsed-literal",
})
_DIRECTIVE_START = re.compile(r"\.\.[ \t]+([A-Za-z][\w.:+-]*)::")
LINE = re.compile(r"^([ \t]*)\.\.[ \t]+(c-[0-9a-f]{8,32})[ \t]*$", re.MULTILINE)  # group 2: the label


def labels_in(text: str) -> set[str]:
    return {m.group(2) for m in LINE.finditer(text)}


def following(text: str, end: int) -> tuple[int, list[str]]:
    """After a paragraph ending at offset `end` (the end of its last line): where a new marker
    line goes (after the marker lines already there), and the labels of those lines."""
    labels: list[str] = []
    at = end
    pos = end
    while True:
        m = _NEXT_MARKER.match(text, pos)
        if m is None:
            return at, labels
        labels.append(m.group(2))
        at = pos = m.end()


_NEXT_MARKER = re.compile(r"(?:[ \t]*\n)+([ \t]*)\.\.[ \t]+(c-[0-9a-f]{8,32})[ \t]*(?=\n|$)")


def insert(text: str, end: int, labels: list[str], indent: str) -> str:
    """`text` with a marker line for each of `labels` after the paragraph ending at `end`: after
    its existing marker lines, else after a blank line. The paragraph's following text keeps a
    blank line before it (a comment runs on into an indented line, and an unindented one right
    after it is a warning)."""
    at, present = following(text, end)
    lines = "".join("\n" + comment(label, indent) for label in labels)
    new = ("\n" + lines) if not present else lines
    rest = text[at:]
    if rest and not rest.startswith("\n\n") and rest.strip():
        new += "\n"  # the next block was right after the paragraph: keep it a block apart
    return text[:at] + new + rest


def paragraph_before(text: str, at: int) -> tuple[int, int] | None:
    """The paragraph a marker line starting at offset `at` follows (its first character, the
    end of its last line), past blank lines and the other marker lines; None when none does, or
    when what it follows is explicit markup at its own indentation (a directive left without its
    content, a comment, a target): no paragraph, so no sentence of a claim."""
    lines_end = text.rfind("\n", 0, at)
    pos = lines_end
    while pos > 0:
        start = text.rfind("\n", 0, pos) + 1
        line = text[start:pos]
        if line.strip() == "" or LINE.fullmatch(line):
            pos = start - 1
            continue
        end = pos
        while start > 0:
            prev = text.rfind("\n", 0, start - 1) + 1
            if text[prev : start - 1].strip() == "" or LINE.fullmatch(text[prev : start - 1]):
                break
            start = prev
        first = start + len(text[start:end]) - len(text[start:end].lstrip())
        marker_indent = len(text[at:]) - len(text[at:].lstrip(" \t"))
        if _EXPLICIT.match(text, first) and first - start <= marker_indent:
            return None
        return first, end
    return None


_EXPLICIT = re.compile(r"\.\.(?:[ \t]|$)", re.MULTILINE)  # `.. directive::`, `.. comment`, `.. _target:`


def marker_at(text: str, label: str) -> int:
    """Where the marker line of `label` starts (its indentation), or -1."""
    for m in LINE.finditer(text):
        if m.group(2) == label:
            return m.start()
    return -1


def remove(text: str, label: str) -> str:
    """`text` without the marker line of `label` (and the blank line before it, when it was the
    paragraph's only marker line)."""
    for m in LINE.finditer(text):
        if m.group(2) != label:
            continue
        start, end = m.start(), m.end()
        end += text.startswith("\n", end)
        _, others = following(text, (paragraph_before(text, start) or (start, start))[1])
        if others == [label] and text[:start].endswith("\n\n"):
            start -= 1
        return text[:start] + text[end:]
    return text


def indent_of(text: str, start: int) -> str:
    """The indentation a marker after the block starting at `start` takes: that of the block's
    first character (a list item's text, not its bullet)."""
    line_start = text.rfind("\n", 0, start) + 1
    return " " * (start - line_start) if text[line_start:start].strip(" \t-*+#|>0123456789.()") == "" else ""


def paragraphs(text: str) -> list[tuple[int, int]]:
    """The page's paragraphs as text finds them, without parsing (claim add and lint place a
    marker with it; ground reads the page through docutils): runs of non-blank lines, less
    explicit markup (`.. directive::`, comments, targets) and the literal block after a `::`."""
    out: list[tuple[int, int]] = []
    pos, run_start, run_end, literal_of = 0, -1, -1, -1
    for line in text.split("\n") + [""]:
        start, end = pos, pos + len(line)
        pos = end + 1
        if line.strip():
            if run_start < 0:
                run_start = start
            run_end = end
            continue
        if run_start < 0:
            continue
        first = text[run_start:run_end]
        indent = len(first) - len(first.lstrip())
        directive = _DIRECTIVE_START.match(first.lstrip())
        if literal_of >= 0 and indent > literal_of:
            pass  # a literal block's or a code directive's content
        elif first.lstrip().startswith(".."):
            code = directive is not None and directive.group(1).split(":")[-1] in CODE_DIRECTIVES
            literal_of = indent if code else -1
        else:
            out.append((run_start + indent, run_end))
            literal_of = indent if first.rstrip().endswith("::") else -1
        run_start = -1
    return out
