"""Safe YAML loading for configuration. ruamel.yaml is imported here and in frontmatter.py only.

A fresh YAML instance per call: ruamel keeps state on the instance. Timestamps stay strings so
that the exact text (and its offset) survives, as OKF asks.
"""

from __future__ import annotations

from openwiki_git.errors import ConfigError

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

MAX_BYTES = 64 * 1024  # a config or a page's front matter is a few hundred bytes of settings
MAX_DEPTH = 32  # and a few levels deep
# Nodes once aliases are followed: 64 KiB of YAML without aliases holds far fewer, so only an
# alias bomb ("billion laughs", or an alias cycle) reaches it.
MAX_NODES = 100_000


def hostile(text: str, *, limit: int = MAX_BYTES) -> tuple[int, str, str] | None:
    """Why this YAML is not parsed at all, as (0-based line, problem, fix), or None.

    Bounded work before the parser: text over `limit` is refused unread; then one pass of the
    scanner (linear) refuses nesting deeper than MAX_DEPTH (the parser recurses per level).
    Aliases are allowed (OKF pages use them); what they expand to is bounded by `too_big` after
    parsing. A YAML syntax error is left to the parser, which reports it."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        return 0, f"{size} bytes of YAML, over the limit of {limit}", "keep it short; move long text into the page body"
    if not any(c in text for c in "[{-:?"):
        return None
    from ruamel.yaml import YAML
    from ruamel.yaml import tokens as t
    from ruamel.yaml.error import YAMLError

    opening = (t.BlockMappingStartToken, t.BlockSequenceStartToken, t.FlowMappingStartToken, t.FlowSequenceStartToken)
    closing = (t.BlockEndToken, t.FlowMappingEndToken, t.FlowSequenceEndToken)
    depth = 0
    try:
        for token in YAML(typ="safe", pure=True).scan(text):
            if isinstance(token, opening):
                depth += 1
                if depth > MAX_DEPTH:
                    return token.start_mark.line, f"nested deeper than {MAX_DEPTH} levels", "flatten it"
            elif isinstance(token, closing):
                depth -= 1
    except YAMLError:
        return None  # a syntax error: the parser says where
    return None


def too_big(value: Any, limit: int = MAX_NODES) -> bool:
    """Whether `value`, with aliases followed (shared and even cyclic references), has more than
    `limit` nodes; walked iteratively, at most `limit` steps."""
    stack, seen = [value], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


_TEXT_TIMESTAMPS: dict[type, type] = {}


def text_timestamps(typ: str) -> Any:
    """A fresh `YAML(typ=typ, pure=True)` that loads timestamps as their text (OKF: keep the exact
    offset). The change lives in a subclass of its constructor: ruamel's own constructor classes,
    and every other YAML instance in the process, are left as they are."""
    from ruamel.yaml import YAML

    yaml = YAML(typ=typ, pure=True)
    base = yaml.Constructor
    sub = _TEXT_TIMESTAMPS.get(base)
    if sub is None:
        table = dict(base.yaml_constructors)
        table["tag:yaml.org,2002:timestamp"] = table["tag:yaml.org,2002:str"]
        sub = _TEXT_TIMESTAMPS[base] = type(f"TextTimestamp{base.__name__}", (base,), {"yaml_constructors": table})
    yaml.Constructor = sub
    return yaml


ALIAS_BOMB = f"aliases expand to more than {MAX_NODES} values (an alias bomb?)"


def load_yaml(text: str, *, filename: str) -> Any:
    """Parse YAML into plain Python values; raise ConfigError('<file>:<line>:<col>: …')."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    refused = hostile(text)
    if refused is not None:
        line, problem, fix = refused
        raise ConfigError(f"{filename}:{line + 1}: {problem}", fix)

    yaml = text_timestamps("safe")
    try:
        data = yaml.load(text)
        if too_big(data):
            raise ConfigError(f"{filename}: {ALIAS_BOMB}", "write the values out instead of aliasing them")
        return data
    except RecursionError:
        raise ConfigError(f"{filename}: nested too deeply", "flatten it") from None
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{filename}:{mark.line + 1}:{mark.column + 1}" if mark else filename
        raise ConfigError(f"{where}: invalid YAML: {e.problem or e.context}", "fix the YAML syntax") from None
    except YAMLError as e:
        raise ConfigError(f"{filename}: invalid YAML: {str(e).splitlines()[0]}", "fix the YAML syntax") from None
