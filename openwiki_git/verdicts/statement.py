"""THE statement rule: a statement written by a model, an agent or a person restating a claim is
one plain sentence on one line, no markers, no block syntax, bounded, and reads like a statement
about the code, not instructions to the next model. The refresher, the MCP tools, `review` and
`ground --model` all ask here. Pure."""

from __future__ import annotations

import re

from openwiki_git.verdicts.edits import VerdictError

MAX_STATEMENT = 500
_BLOCK_START = re.compile(r"^\s*(?:#|>|[-*+]\s|\d+[.)]\s|\||---|===|```|~~~)")
_FORBIDDEN_IN_STATEMENT = ("[^", "<!--", "-->", "\n", "\r", "\x00")
INSTRUCTION = re.compile(
    r"(?i)\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|previous|above|rules?)\b|\byou (must|should) "
    r"(answer|confirm|revise|retract|reply|respond)|\b(answer|verdict)\s*[:=]\s*[\"']?(confirm|revise|retract)|"
    r"\bsystem prompt\b|\bas an ai\b"
)


def check_statement(text: str) -> str | None:
    """The first problem of a statement (see the module's docstring), None when it is fine."""
    try:
        checked_statement(text)
    except VerdictError as e:
        return str(e).removeprefix("revised_statement ")
    return None


def checked_statement(text: str, field: str = "revised_statement") -> str:
    """The statement, white space collapsed; raises VerdictError naming the first problem."""
    statement = " ".join(text.split()) if "\n" not in text.strip() else text.strip()
    if not statement:
        raise VerdictError(f"{field} is empty: give the corrected sentence, or null to keep the statement")
    bad = next((s for s in _FORBIDDEN_IN_STATEMENT if s in statement), None)
    if bad is not None:
        raise VerdictError(f"{field} must be one plain sentence on one line, without {bad!r}")
    if _BLOCK_START.match(statement):
        raise VerdictError(f"{field} must be plain prose: it cannot start a heading, list, quote, table or fence")
    if len(statement) > MAX_STATEMENT:
        raise VerdictError(f"{field} is {len(statement)} characters long; keep it under {MAX_STATEMENT}")
    if INSTRUCTION.search(statement):  # a wiki sentence is read by the next model too
        raise VerdictError(f"{field} reads like instructions to a model; state what the code does")
    return statement
