"""`ground` and `check` on a package that re-exports private modules with star imports which
star-import each other (issue 21, item 1): each name resolved once, cycles cut, inherited members
found through star-imported bases, and the broken references check reports the same."""

from __future__ import annotations

import json

import pytest

from openwiki_git.ground.index import SourceIndex
from tests.support.repo import GitRepo

MODULES = ["_api", "_auth", "_client", "_config", "_models", "_types", "_urls", "_utils"]


def module(i: int) -> str:
    n = len(MODULES)
    stars = "".join(f"from .{MODULES[(i + k) % n]} import *\n" for k in (1, 2, 3))
    return f"{stars}\n\nclass Base{i}:\n    def close(self):\n        return None\n\n\nclass Kind{i}(Base{(i - 1) % n}):\n    pass\n"


@pytest.fixture
def star_repo(repo: GitRepo) -> GitRepo:
    repo.write("pkg/__init__.py", "".join(f"from .{m} import *\n" for m in MODULES))
    for i, m in enumerate(MODULES):
        repo.write(f"pkg/{m}.py", module(i))
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write(
        "docs/guide.md",
        "Each `pkg.Kind3.close()` call closes the transport for good.\n"
        "Old docs still mention `pkg.Kind5.reopen()` for the pool.\n"
        "Old docs also mention `pkg.nothing.deeper` in passing here.\n",
    )
    repo.commit_all()
    return repo


def test_ground_follows_a_star_web_once(star_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert star_repo.run("ground", "--all", "--format", "json") == 1
    data = json.loads(capsys.readouterr().out)
    page = data["pages"][0]
    # Kind3 (pkg._config) derives from Base2, which reaches it through three star imports
    assert [(a["reference"], a["evidence"]) for a in page["added"]] == [("pkg.Kind3.close()", "repo://pkg/_client.py#Base2.close")]
    assert sorted(b["reference"] for b in page["broken"]) == ["pkg.Kind5.reopen()", "pkg.nothing.deeper"]
    capsys.readouterr()
    star_repo.commit_all()
    assert star_repo.run("check", "--format", "json") == 1  # the same resolution: the broken references remain
    report = json.loads(capsys.readouterr().out)
    assert sorted(b["reference"] for b in report["broken_references"]) == ["pkg.Kind5.reopen()", "pkg.nothing.deeper"]


def test_expand_resolves_each_name_once_and_cuts_cycles() -> None:
    files = {
        "pkg/__init__.py": "from ._a import *\n",
        "pkg/_a.py": "from ._b import *\n",
        "pkg/_b.py": "from ._a import *\nfrom ._c import *\n",
        "pkg/_c.py": "def found():\n    return 1\n",
    }
    reads: list[str] = []
    index = SourceIndex(files, lambda p: reads.append(p) or files[p])
    index.build()
    assert [d.resource for d in index.expand("pkg.found")] == ["repo://pkg/_c.py#L1-L2"]
    assert [d.resource for d in index.expand("pkg._b.found")] == ["repo://pkg/_c.py#L1-L2"]
    assert index.expand("pkg.missing") == [] and index.expand("pkg._a.missing") == []
    assert index.expand("pkg._a._a._a.missing") == []  # never a name that grows through the stars
    assert sorted(reads) == sorted(files)  # each file read once
