"""The common `.openwiki/config.yml` (flat `key: scalar` lines) read without ruamel.yaml and
jsonschema, and the one rule for a wiki directory's name. Pure, and `re` alone: store/config.py
reads the config through it, and `check --no-cache`'s lean path (services/check_unchanged.py) too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from openwiki_git.errors import ConfigError
from openwiki_git.formats.pagenames import CLAIMS_DIR

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

CONFIG_DIR = ".openwiki"  # the config is always <root>/.openwiki/config.yml, wherever the wiki is
CONFIG_NAME = "config.yml"
DEFAULT_WIKI_DIR = ".openwiki"
OPENWIKI_WIKI_DIR = "openwiki"  # an OpenWiki wiki, used unconverted when there is no .openwiki/

# The common config (flat `key: scalar` lines of the settings below) is read without ruamel.yaml
# and jsonschema, which cost more than a whole check of a small wiki. Anything else, including
# every value these rules are unsure of, goes to the YAML parser and the schema, which have the
# last word and the error messages: simple_config accepts only what they accept, identically.
_SIMPLE_LINE = re.compile(
    r"([a-z_]+):(?:[ ]+(?:([A-Za-z0-9._/][A-Za-z0-9._/ -]*?)|\"([^\"\\]*)\"|'([^']*)'))?[ ]*(?:[ ]#.*)?"
)
_NOT_PLAIN_STRING = re.compile(r"[-+0-9].*|\.[0-9].*|\.(?:inf|Inf|INF|nan|NaN|NAN)|(?:true|True|TRUE|false|False|FALSE)")
_SIMPLE_SETTINGS: dict[str, Any] = {
    "wiki_dir": lambda v: type(v) is str and v != "",
    "sidecar_format": lambda v: v in ("openwiki-git", "openwiki"),
    "site": lambda v: v in ("mkdocs", "sphinx", "none"),
    "adjacent_insert": lambda v: v in ("fresh", "stale"),
    "rename_threshold": lambda v: type(v) is int and 0 <= v <= 100,
    "max_growth": lambda v: type(v) is int and v >= 0,
    "cosmetic_edits": lambda v: v in ("fresh", "mark", "stale"),
    "reverify_after": lambda v: v is None or (type(v) is str and re.fullmatch(r"[0-9]+[hdw]", v) is not None),
    "range_growth_factor": lambda v: type(v) is int and v >= 1,
    "range_growth_lines": lambda v: type(v) is int and v >= 0,
}
# Sections of flat settings (`hook:` then lines indented by two spaces).
_SIMPLE_SECTIONS: dict[str, dict[str, Any]] = {
    "hook": {
        "on_moved": lambda v: v in ("stage", "stop"),
        "on_stale": lambda v: v in ("stop", "stage"),
    },
}


def simple_config(text: str) -> dict[str, Any] | None:
    """The settings of a flat config, or None when the YAML parser and the schema must decide."""
    if not text.isascii() or re.search(r"[\x00-\x09\x0b-\x1f\x7f]", text):
        return None
    data: dict[str, Any] = {}
    section: dict[str, Any] | None = None  # the open `hook:` section's settings
    rules = _SIMPLE_SETTINGS
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if section is not None and line.startswith("  ") and not line.startswith("   "):
            line, target = line[2:], section
        else:
            section, rules, target = None, _SIMPLE_SETTINGS, data
        m = _SIMPLE_LINE.fullmatch(line)
        if m is None:
            return None
        key, plain, double, single = m.groups()
        if target is data and key in _SIMPLE_SECTIONS and plain is None and double is None and single is None:
            if key in data:
                return None
            section = data[key] = {}
            rules = _SIMPLE_SECTIONS[key]
            continue
        if key in target or key not in (rules if target is not data else _SIMPLE_SETTINGS):
            return None
        if plain is not None:
            if plain in ("null", "Null", "NULL"):
                value: Any = None
            elif re.fullmatch(r"0|[1-9][0-9]{0,17}", plain):
                value = int(plain)
            elif re.fullmatch(r"[0-9]+[hdw]", plain):
                value = plain  # a duration such as 90d
            elif _NOT_PLAIN_STRING.fullmatch(plain):
                return None
            else:
                value = plain
        else:
            value = double if double is not None else single
        if not (rules if target is not data else _SIMPLE_SETTINGS)[key](value):
            return None
        target[key] = value
    if any(v == {} for v in data.values()):
        return None  # `hook:` with nothing under it is null in YAML: let the schema say so
    return data


def clean_wiki_dir(value: str, where: str = "wiki_dir") -> str:
    cleaned = value.strip().rstrip("/")
    parts = cleaned.split("/")
    bad = not cleaned or cleaned.startswith("/") or "\\" in cleaned or ":" in parts[0]
    bad = bad or any(not c.isprintable() for c in cleaned) or any(p.lower() == CLAIMS_DIR for p in parts)
    if bad or any(p in ("", ".", "..") for p in parts) or parts[0].lower() == ".git":
        raise ConfigError(
            f"{where}: wiki_dir {value!r} must be a relative directory inside the repository", "e.g. .openwiki"
        )
    return cleaned


def configured_wiki_dir(data: dict[str, Any], is_dir: Callable[[str], bool]) -> str:
    """The wiki directory a config's settings name (without --wiki-dir): its `wiki_dir`, else
    OpenWiki's `openwiki/` when only that one is a directory (`is_dir` asks the tree it is in:
    the working tree, or a commit's for the health report's history), else `.openwiki`."""
    value = data.get("wiki_dir")
    if value is None and not is_dir(DEFAULT_WIKI_DIR) and is_dir(OPENWIKI_WIKI_DIR):
        return OPENWIKI_WIKI_DIR
    return str(value or DEFAULT_WIKI_DIR)
