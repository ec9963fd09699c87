"""A sentence about an optional dependency being installed is grounded in the lines where the
package checks for it (ground/dependencies.py), and the commit that changes that check marks it:
typer's "If you have **Rich** installed ..." sentences and its `HAS_RICH = find_spec("rich")`,
rewritten when Rich became required. Through the real CLI and the hook on a real repository."""

from __future__ import annotations

import pytest

from openwiki_git.ground.dependencies import detections, named
from openwiki_git.ground.index import SourceIndex
from tests.support.ground_docs import PYPROJECT, ground_all
from tests.support.kinds_repo import staged_hook
from tests.support.repo import GitRepo

CORE = '''import importlib.util

HAS_RICH = importlib.util.find_spec("rich") is not None

try:
    import uvloop
except ImportError:
    uvloop = None

try:
    from click.shell_completion import split
except ImportError:
    from click.parser import split


def show(error: Exception) -> str:
    return str(error)
'''

RELOAD = '''from watchgod import watch


def changes(path: str) -> object:
    return watch(path)
'''

SUPERVISORS = '''try:
    from pkg.watchgodreload import changes
except ImportError:
    changes = None
'''

PAGE = """# Errors

If you have **Rich** installed, errors are printed nicely.

If you don't have Rich installed, the error is printed plainly.

Rich text makes errors readable.

Install [watchgod](https://pypi.org/project/watchgod/) to reload on changes.

The loop is faster when `uvloop` is available.

Click is what the package is built on, once installed.
"""


def _index(files: dict[str, str]) -> SourceIndex:
    return SourceIndex(files, files.get)


def test_the_checks_found_and_the_sentences_that_name_them() -> None:
    found = detections(_index({"pkg/core.py": CORE, "pkg/watchgodreload.py": RELOAD, "pkg/supervisors.py": SUPERVISORS,
                               "tests/test_core.py": "try:\n    import pytest_xdist\nexcept ImportError:\n    pass\n"}))
    assert {n: d.resources for n, d in found.items()} == {
        "rich": ("repo://pkg/core.py#L3-L3",),
        "uvloop": ("repo://pkg/core.py#L5-L8",),
        "watchgod": ("repo://pkg/supervisors.py#L1-L4",),  # through the package's module that imports it
    }  # not click: imported again in the handler, a shim for its versions; not a test's import
    assert named("If you have **Rich** installed, errors are printed nicely.", found) == [("rich", "repo://pkg/core.py#L3-L3")]
    assert named("Rich text makes errors readable.", found) == []  # says nothing of it being there
    assert named("Set `rich_markup_mode` when Rich is installed.", found)[0][0] == "rich"
    assert named("Installing enriched output.", found) == []  # not the word


def test_a_presence_sentence_is_grounded_in_the_check_and_marked_when_it_changes(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/watchgodreload.py": RELOAD, "pkg/supervisors.py": SUPERVISORS}
    data = ground_all(repo, capsys, {**files, "docs/errors.md": PAGE})
    got = {c["statement"]: [(i["kind"], i["evidence"]) for i in c["items"]] for p in data["pages"] for c in p["claims"]}
    rich = [("dependency", "repo://pkg/core.py#L3-L3")]
    assert got["If you have **Rich** installed, errors are printed nicely."] == rich
    assert got["If you don't have Rich installed, the error is printed plainly."] == rich
    assert got["Install [watchgod](https://pypi.org/project/watchgod/) to reload on changes."] == [
        ("dependency", "repo://pkg/supervisors.py#L1-L4")
    ]
    # `uvloop` in backticks is the name the `except` binds (line 8): the check's lines overlap it, cited once
    assert got["The loop is faster when `uvloop` is available."] == [("symbol", "repo://pkg/core.py#L8-L8")]
    assert "Rich text makes errors readable." not in got
    assert not any(s.startswith("Click is") for s in got)
    repo.commit_all("grounded")
    assert repo.run("check") == 0

    repo.write("pkg/core.py", CORE.replace('HAS_RICH = importlib.util.find_spec("rich") is not None', "HAS_RICH = True"))
    rc, out = staged_hook(repo, capsys)
    assert rc == 1, out
    assert "marked 2 claims stale" in out, out
    assert "If you have **Rich** installed" in out and "If you don't have Rich installed" in out




def test_the_packaging_lines_requiring_a_dependency_prove_it_is_installed() -> None:
    """uvicorn's "`PyYAML` will be installed to allow you to provide a `.yaml` file to
    `--log-config`" is true of `"PyYAML>=5.1",` in its `standard` extra: a sentence saying a
    dependency the code never checks (here shellingham) is installed (or a dependency) cites the
    lines requiring it; one the code checks (Rich) keeps the check, whose lines do not move with
    its minimum version; a sentence saying only that something is available for it ("Only
    available for `h11`") cites nothing. The project's own distributions are not its dependencies."""
    found = detections(_index({"pyproject.toml": PYPROJECT, "pkg/core.py": CORE}))
    assert named("`shellingham` will be installed to detect the shell.", found) == [("shellingham", "repo://pyproject.toml#L10-L10")]
    assert named("If you have **Rich** installed, errors are printed nicely.", found) == [("rich", "repo://pkg/core.py#L3-L3")]
    assert named("Only available for `click` 8.", found) == []
    assert "widgets" not in found


def test_a_sentence_about_the_projects_dependencies_cites_their_list_and_a_bound_moved_marks_nothing(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """typer's "Its only internal required dependency is Click." and "By default it also comes
    with extra standard dependencies:" went false when its typer-slim commit added Rich and
    shellingham to `dependencies` and dropped the `standard` extra: they cite `[project]`'s
    `dependencies` list and the `[project.optional-dependencies]` table. A version bound moved in
    them marks neither (diff/requirements.py, claims/relevance.py); a dependency added does. A
    project's "internal" dependencies are its development ones: nothing cited."""
    only = "Its only required dependency is Click."
    extra = "By default it also comes with extra standard dependencies:"
    page = f"# Install\n\n{only}\n\n{extra}\n\n- Rich, for errors.\n\nInternal dependencies for development are pinned elsewhere.\n"
    data = ground_all(repo, capsys, {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/core.py": CORE, "docs/install.md": page})
    got = {c["statement"]: [(i["extra"], i["evidence"]) for i in c["items"]] for p in data["pages"] for c in p["claims"]}
    assert got[only] == [("requires", "repo://pyproject.toml#L3-L5")]
    assert got[extra] == [("requires", "repo://pyproject.toml#L7-L11")]
    assert not any(s.startswith("Internal") for s in got)
    repo.commit_all("grounded")

    repo.write("pyproject.toml", PYPROJECT.replace('"rich >=10.11.0"', '"rich >=12.3.0"').replace('"click >= 8.0.0"', '"click >= 8.1"'))
    rc, out = staged_hook(repo, capsys)
    assert rc == 0 and "marked" not in out, out
    repo.commit_all("bounds raised")
    capsys.readouterr()
    assert repo.run("check") == 0

    added = repo.read("pyproject.toml").replace('    "click >= 8.1",\n', '    "click >= 8.1",\n    "rich >=12.3.0",\n')
    repo.write("pyproject.toml", added)
    rc, out = staged_hook(repo, capsys)
    assert rc == 1 and "marked 1 claim stale" in out and only in out and extra not in out, out
