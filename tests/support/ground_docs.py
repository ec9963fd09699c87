"""A small Python project with a docs/ wiki that names its code (`docs_repo`): the references
`ground` must cite, the ambiguous and broken ones, a test's function and an example's own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.repo import GitRepo

PKG_INIT = "from ._core import make, Widget\n\n__all__ = ['make', 'Widget']\n"
CORE = '''\
"""Core."""

import functools


def helper():
    return 1


@functools.cache
def make(size):
    """Make a widget."""
    return Widget(size)


class Widget:
    def __init__(self, size):
        self.size = size

    def grow(self, by=1):
        return Widget(self.size + by)
'''
CLI = '''\
import argparse
import os


def parser():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int)
    return p


TOKEN = os.environ.get("WIDGET_TOKEN")
'''
TEST = "def make():\n    pass\n\n\ndef fixture_only():\n    pass\n"
GUIDE = """\
# Guide

Call `widgets.make()` to build a widget. The `Widget.grow` method returns a new one.
Pass `--size` on the command line, and set `WIDGET_TOKEN` for access.
The entry point lives in `src/widgets/cli.py`, see [the CLI](../src/widgets/cli.py).
Old docs mention `widgets.Widget.shrink` and `widgets.gone()`, which no longer exist.
A bare `helper()` is fine too, but `fixture_only()` is a test's.

```python
from widgets import make
def my_own():
    return make(3)
```

Then `my_own()` is the example's own function, and `json.dumps` is the standard library's.
"""


@pytest.fixture
def docs_repo(repo: GitRepo) -> GitRepo:
    repo.write("src/widgets/__init__.py", PKG_INIT)
    repo.write("src/widgets/_core.py", CORE)
    repo.write("src/widgets/cli.py", CLI)
    repo.write("tests/test_core.py", TEST)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/guide.md", GUIDE)
    repo.commit_all("docs")
    return repo


def ground_all(repo: GitRepo, capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> dict[str, Any]:
    """`files` written (a docs/ wiki among them), committed, `init` done by config, and
    `ground --all --format json` run: its report."""
    for path, text in {".openwiki/config.yml": "wiki_dir: docs\n", **files}.items():
        repo.write(path, text)
    repo.commit_all("docs")
    capsys.readouterr()
    repo.run("ground", "--all", "--format", "json")
    return dict(json.loads(capsys.readouterr().out))


# A package's pyproject.toml with a dependency, an extra and another tool's key of the extra's name
# (installs.py and dependencies.py read it).
PYPROJECT = """[project]
name = "widgets"
dependencies = [
    "click >= 8.0.0",
]

[project.optional-dependencies]
standard = [
    "rich >=10.11.0",
    "shellingham >=1.3.0",
]

[tool.other]
standard = ["not", "an", "extra"]
"""
