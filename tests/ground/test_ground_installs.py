"""A console example that installs the project (`pip install "pkg[extra]"`) is guarded by the
packaging lines it relies on (ground/installs.py): the line naming the distribution and the lines
declaring the extra; dropping the extra flags it. typer's commit making typer-slim a shallow
wrapper deleted `[project.optional-dependencies] standard` under two `pip install
"typer-slim[standard]"` examples. Through the real CLI and the hook on a real repository."""

from __future__ import annotations

import pytest

from openwiki_git.ground.index import SourceIndex
from openwiki_git.ground.installs import installs
from tests.support.ground_docs import PYPROJECT, ground_all
from tests.support.kinds_repo import staged_hook
from tests.support.repo import GitRepo

SETUP = """from setuptools import setup

setup(
    name="widgets",
    extras_require={
        "standard": [
            "rich",
        ],
    },
)
"""

PAGE = """# Install

```console
$ pip install "widgets[standard]"
```

```bash
uv add widgets
```

```console
$ pip install requests
```
"""


@pytest.mark.parametrize(
    ("command", "cited"),
    [
        (
            'pip install "widgets[standard]"',
            {"repo://pyproject.toml#L2-L2": "widgets", "repo://pyproject.toml#L8-L11": "widgets[standard]"},
        ),  # `[project]` is short, but the project's own: its name only (its version moves with every release)
        ("python -m pip install -U Widgets", {"repo://pyproject.toml#L2-L2": "Widgets"}),  # names compare as PEP 503 does
        ("uv add widgets[missing]", {"repo://pyproject.toml#L2-L2": "widgets"}),  # no such extra: the name alone
        ("pip install requests", {}),  # another project's
        ("pip list", {}),
    ],
)
def test_what_an_install_relies_on(command: str, cited: dict[str, str]) -> None:
    files = {"pyproject.toml": PYPROJECT, "widgets/__init__.py": ""}
    assert installs(SourceIndex(files, files.get), command) == cited


def test_setup_py_extras_are_read_too() -> None:
    files = {"setup.py": SETUP}
    assert installs(SourceIndex(files, files.get), "pip install 'widgets[standard]'") == {
        "repo://setup.py#L4-L4": "widgets", "repo://setup.py#L6-L8": "widgets[standard]",
    }


def test_an_install_example_is_flagged_when_its_extra_is_dropped(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    data = ground_all(repo, capsys, {"pyproject.toml": PYPROJECT, "widgets/__init__.py": "", "docs/install.md": PAGE})
    added = data["pages"][0]["examples"]["added"]
    assert [(a["line"], a["evidence"]) for a in added] == [
        (3, ["repo://pyproject.toml#L2-L2", "repo://pyproject.toml#L8-L11"]), (7, ["repo://pyproject.toml#L2-L2"]),
    ]  # not `pip install requests`
    repo.commit_all("grounded")
    assert repo.run("check") == 0

    extra = '[project.optional-dependencies]\nstandard = [\n    "rich >=10.11.0",\n    "shellingham >=1.3.0",\n]\n'
    assert extra in PYPROJECT
    repo.write("pyproject.toml", PYPROJECT.replace(extra, ""))
    rc, out = staged_hook(repo, capsys)
    assert rc == 1 and "marked 1 claim" in out, out
    assert 'pip install "widgets[standard]"' in out


LONG = """[project]
name = "widgets"
description = "Widgets."
readme = "README.md"
classifiers = [
    "Typing :: Typed",
]
dependencies = [
    "click >= 8.0.0",
]

[tool.build.packages.widgets-slim.project]
name = "widgets-slim"

[tool.build.packages.widgets.project]
optional-dependencies = {}
"""


def test_an_install_cites_what_the_distribution_brings(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """`pip install pkg` relies on what pkg's table declares it brings: the whole table, to the
    blank line ending it, when it is short and not the project's own `[project]` (whose version
    and dependencies' minimum versions move with no install example going false): its name alone. typer's typer-slim table was its header
    and name; the commit making typer-slim a shallow wrapper of typer added its dependencies
    there, under `pip install typer-slim`: the example is marked."""
    files = {"pyproject.toml": LONG, "widgets/__init__.py": ""}
    index = SourceIndex(files, files.get)
    assert installs(index, "pip install widgets") == {"repo://pyproject.toml#L2-L2": "widgets"}
    assert installs(index, "pip install widgets-slim") == {"repo://pyproject.toml#L12-L14": "widgets-slim"}
    page = "# Install\n\n```console\n$ pip install widgets-slim\n```\n\n```console\n$ pip install widgets\n```\n"
    ground_all(repo, capsys, {**files, "docs/install.md": page})
    repo.commit_all("grounded")
    slim = '[tool.build.packages.widgets-slim.project]\nname = "widgets-slim"\n'
    repo.write("pyproject.toml", LONG.replace(slim, slim + 'dependencies = [\n    "widgets",\n]\n').replace("8.0.0", "8.2.1"))
    rc, out = staged_hook(repo, capsys)
    assert rc == 1 and "marked 1 claim" in out and "pip install widgets-slim" in out, out
