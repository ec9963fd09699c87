"""Safe YAML loading for configuration. ruamel.yaml is imported here and in frontmatter.py only.

A fresh YAML instance per call: ruamel keeps state on the instance. Timestamps stay strings so
that the exact text (and its offset) survives, as OKF asks.
"""

from __future__ import annotations

from typing import Any

from openwiki_git.errors import ConfigError


def load_yaml(text: str, *, filename: str) -> Any:
    """Parse YAML into plain Python values; raise ConfigError('<file>:<line>:<col>: …')."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="safe", pure=True)
    # Keep timestamps as text (OKF: load datetimes as strings to keep the exact offset).
    yaml.constructor.yaml_constructors["tag:yaml.org,2002:timestamp"] = yaml.constructor.yaml_constructors[
        "tag:yaml.org,2002:str"
    ]
    try:
        return yaml.load(text)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{filename}:{mark.line + 1}:{mark.column + 1}" if mark else filename
        raise ConfigError(f"{where}: invalid YAML: {e.problem or e.context}", "fix the YAML syntax") from None
    except YAMLError as e:
        raise ConfigError(f"{filename}: invalid YAML: {str(e).splitlines()[0]}", "fix the YAML syntax") from None
