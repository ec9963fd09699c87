"""`.openwiki/config.yml`: the settings, validated by schemas/config.schema.json."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwiki_git.errors import ConfigError
from openwiki_git.formats.flatconfig import CONFIG_DIR, CONFIG_NAME, DEFAULT_WIKI_DIR, OPENWIKI_WIKI_DIR, configured_wiki_dir
from openwiki_git.formats.flatconfig import clean_wiki_dir as _clean_wiki_dir
from openwiki_git.formats.flatconfig import simple_config as _simple_config

if TYPE_CHECKING:
    from openwiki_git.claims.due import ReverifyAfter
    from openwiki_git.claims.policy import Rule

DURATION = re.compile(r"^(\d+)([dhw])$")


@dataclass(frozen=True, slots=True)
class Config:
    wiki_dir: str = DEFAULT_WIKI_DIR
    # "openwiki-git" sidecars may carry our optional keys; "openwiki" sidecars carry none, so
    # OpenWiki's strict reader accepts them (marks then live in front matter and reports only).
    sidecar_format: str = "openwiki-git"
    adjacent_insert: str = "fresh"
    rename_threshold: int = 50
    max_growth: int = 200
    cosmetic_edits: str = "fresh"  # a cited range edited only cosmetically: "fresh" (reason recorded), "mark" or "stale"
    # Python type annotations: True cosmetic, False code, None (unset) cosmetic unless the claim's sentence
    # names a type the edit added or removed (claims/relevance.py)
    cosmetic_annotations: bool | None = None
    cosmetic_parameters_added: bool | None = None  # None: a head's parameters added or defaults changed, by sentence
    range_growth_factor: int = 2  # a changed range keeps within max(factor x, + lines) of its cited size
    range_growth_lines: int = 10
    hook_on_moved: str = "stage"  # hook.on_moved: a commit that only re-anchors: stage (pass) | stop
    hook_on_stale: str = "stop"  # hook.on_stale: a commit that newly marks a claim: stop (once) | stage
    reverify_after: str | dict[str, str] | None = None  # one duration, or per page glob / OKF type (+ default)
    docs: tuple[str, ...] = ()
    verify_policy: tuple[Rule, ...] = ()  # who may verify which pages (claims/policy.py)
    refresh: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def strict_openwiki(self) -> bool:
        return self.sidecar_format == "openwiki"

    @property
    def reverify_after_seconds(self) -> int | None:
        """The default duration (the one `reverify_after`, or a mapping's `default`)."""
        policy = self.reverify_policy
        return policy.default if policy is not None else None

    @property
    def reverify_policy(self) -> ReverifyAfter | None:
        """`reverify_after` as check applies it, page by page (None: nothing is ever due by age).
        A mapping's keys are page globs (first match in the order written wins), else OKF types,
        and `default`; see claims/freshness.py's ReverifyAfter."""
        from openwiki_git.claims.due import ReverifyAfter, is_page_glob, page_glob

        value = self.reverify_after
        if not value:
            return None
        if isinstance(value, str):
            return ReverifyAfter(default=duration_seconds(value))
        globs = tuple((page_glob(k), duration_seconds(v)) for k, v in value.items() if k != "default" and is_page_glob(k))
        types = tuple((k, duration_seconds(v)) for k, v in value.items() if k != "default" and not is_page_glob(k))
        default = value.get("default")
        return ReverifyAfter(duration_seconds(default) if default else None, globs, types)


def duration_seconds(value: str) -> int:
    m = DURATION.match(value)
    assert m, "validated by the schema"
    return int(m.group(1)) * {"h": 3600, "d": 86400, "w": 604800}[m.group(2)]


def config_path(root: Path) -> Path:
    return root / CONFIG_DIR / CONFIG_NAME


def load_config(root: Path, *, wiki_dir: str | None = None) -> Config:
    """Read the config (defaults when absent); `wiki_dir` (from --wiki-dir) overrides the file.

    Without a config file and without --wiki-dir, an OpenWiki wiki (`openwiki/`) is used when
    `.openwiki/` does not exist, so openwiki-git works on OpenWiki repositories unconverted.
    """
    path = config_path(root)
    data: dict[str, Any] = {}
    if path.is_symlink():
        raise ConfigError(f"{CONFIG_DIR}/{CONFIG_NAME}: a symlinked config is refused", "replace the link with the file")
    if path.is_file():
        data = _read(path, root)
    elif path.exists():
        raise ConfigError(f"{CONFIG_DIR}/{CONFIG_NAME}: not a file", "move it away; the config is a YAML file")
    where = "--wiki-dir"
    if wiki_dir is None:
        where = f"{CONFIG_DIR}/{CONFIG_NAME}: $.wiki_dir"
        wiki_dir = configured_wiki_dir(data, lambda d: (root / d).is_dir())
    wiki_dir = _clean_wiki_dir(wiki_dir or DEFAULT_WIKI_DIR, where)
    fmt = data.get("sidecar_format") or ("openwiki" if wiki_dir == OPENWIKI_WIKI_DIR else "openwiki-git")
    return Config(
        wiki_dir=wiki_dir,
        sidecar_format=fmt,
        adjacent_insert=data.get("adjacent_insert", "fresh"),
        rename_threshold=data.get("rename_threshold", 50),
        max_growth=data.get("max_growth", 200),
        cosmetic_edits=data.get("cosmetic_edits", "fresh"),
        cosmetic_annotations=data.get("cosmetic_annotations"),
        cosmetic_parameters_added=data.get("cosmetic_parameters_added"),
        range_growth_factor=data.get("range_growth_factor", 2),
        range_growth_lines=data.get("range_growth_lines", 10),
        hook_on_moved=(data.get("hook") or {}).get("on_moved", "stage"),
        hook_on_stale=(data.get("hook") or {}).get("on_stale", "stop"),
        reverify_after=data.get("reverify_after"),
        docs=tuple(data.get("docs", ())),
        verify_policy=_policy(data.get("verify_policy")),
        refresh=dict(data.get("refresh") or {}),
        raw=data,
    )


def _policy(raw: Any) -> tuple[Rule, ...]:
    if not raw:
        return ()
    from openwiki_git.claims.policy import rules

    return rules(raw)


def config_settings(text: str, place: str) -> dict[str, Any]:
    """A config file's text as its settings, validated (ConfigError naming `place` when not)."""
    simple = _simple_config(text)
    if simple is not None:
        return simple  # no YAML parser, no jsonschema: `check` starts fast

    from openwiki_git.formats import schema
    from openwiki_git.formats.yamlio import load_yaml

    data = load_yaml(text, filename=place)
    if data is None:
        return {}
    found = schema.problems("config", data)
    if found:
        raise ConfigError(f"{place}: {found[0]}", "see schemas/config.schema.json for the settings")
    return dict(data)


def _read(path: Path, root: Path) -> dict[str, Any]:
    from openwiki_git.formats.yamlio import MAX_BYTES

    rel = path.relative_to(root).as_posix()
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:  # refused unread
            raise ConfigError(f"{rel}: {size} bytes, over the limit of {MAX_BYTES} for a config", "keep only the settings")
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{rel}: cannot read: {e}") from None
    return config_settings(text, rel)
