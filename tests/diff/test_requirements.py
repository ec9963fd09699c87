"""diff/requirements.py: a packaging file's cited lines whose only change is version bounds."""

from __future__ import annotations

import pytest

from openwiki_git.diff.requirements import bounds_changed

DEPS = ["dependencies = [\n", '    "click >= 8.0.0",\n', '    "rich >=10.11.0",\n', "]\n"]


def _with(line: str) -> list[str]:
    return [DEPS[0], DEPS[1], line, DEPS[3]]


@pytest.mark.parametrize(
    ("path", "old", "new", "moved"),
    [
        pytest.param("pyproject.toml", DEPS, _with('    "rich >=12.3.0",\n'), ["rich"], id="a-bound-raised"),
        pytest.param("pyproject.toml", DEPS, _with('    "rich",\n'), ["rich"], id="a-bound-dropped"),
        pytest.param("pyproject.toml", DEPS, _with('    "Rich_Text >=10.11.0",\n'), None, id="another-distribution"),
        pytest.param("pyproject.toml", DEPS, _with('    "rich[jupyter] >=10.11.0",\n'), None, id="an-extra-asked-for"),
        pytest.param("pyproject.toml", DEPS, [*DEPS[:3], '    "shellingham",\n', DEPS[3]], None, id="a-requirement-added"),
        pytest.param("pyproject.toml", ['version = "0.1.0"\n'], ['version = "0.2.0"\n'], None, id="a-version-is-no-bound"),
        pytest.param("pyproject.toml", ['requires-python = ">=3.8"\n'], ['requires-python = ">=3.9"\n'], None, id="no-requirement"),
        pytest.param("pyproject.toml", ["  \"colorama>=0.4;sys_platform == 'win32'\",\n"],
                     ["  \"colorama>=0.4;sys_platform == 'linux'\",\n"], None, id="a-marker-changed"),
        pytest.param("pyproject.toml", ["  \"colorama>=0.4;sys_platform == 'win32'\",\n"],
                     ["  \"colorama>=0.5;sys_platform == 'win32'\",\n"], ["colorama"], id="with-a-marker"),
        pytest.param("setup.py", ["    install_requires=['h11>=0.8', \"click>=7.0\"],\n"],
                     ["    install_requires=['h11>=0.9', \"click>=7.0\"],\n"], ["h11"], id="setup-py"),
        pytest.param("requirements.txt", ["click>=7  # the CLI\n"], ["click>=8  # the CLI\n"], ["click"], id="requirements-file"),
        pytest.param("src/pkg/config.py", ['    "rich >=10.11.0",\n'], ['    "rich >=12.3.0",\n'], None, id="not-packaging"),
        pytest.param("pyproject.toml", DEPS, DEPS, None, id="unchanged"),
    ],
)
def test_bounds_changed(path: str, old: list[str], new: list[str], moved: list[str] | None) -> None:
    assert bounds_changed(path, old, new, (1, len(old)), (1, len(new))) == moved
