"""A code example's claim under the real pre-commit: a commit that drops a keyword the example
passes stops once, the hook's line naming the broken call; the same `git commit` then passes with
the mark staged."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from .test_precommit import commit, hooked

pytestmark = pytest.mark.e2e

CLIENT = "class Client:\n    def __init__(self, base, *, verify=True, timeout=None):\n        self.base = base\n"
PAGE = (
    "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\nMake a client:\n\n"
    "```python\nfrom pkg import Client\n\nclient = Client(\"https://x\", verify=False)\n```\n"
)


def test_a_dropped_keyword_stops_the_commit_naming_the_broken_call(repo, hook_repo) -> None:  # type: ignore[no-untyped-def]
    project = hooked(repo, hook_repo, {"pkg/__init__.py": "from ._client import Client\n", "pkg/_client.py": CLIENT}, PAGE, [])
    with contextlib.redirect_stdout(io.StringIO()):
        assert project.run("ground", "--all") == 0
    project.git("add", "-A")
    rc, out = commit(project, "-m", "ground the example")
    assert rc == 0, out
    (claim,) = json.loads(project.git("show", "HEAD:.openwiki/.claims/guide.json"))["claims"]
    assert [e["resource"] for e in claim["evidence"]] == ["repo://pkg/_client.py#Client:head"]
    assert f"```\n<!-- c-{claim['id'][6:14]} -->\n" in project.read(".openwiki/guide.md")

    project.write("pkg/_client.py", CLIENT.replace("*, verify=True, timeout=None", "*, timeout=None"))
    rc, out = commit(project, "-a", "-m", "verify goes")
    assert rc == 1
    assert "breaks `Client(..., verify=...)`: `verify` is no longer a parameter of pkg.Client" in out
    rc, out = commit(project, "-a", "-m", "verify goes")
    assert rc == 0, out
    (marked,) = json.loads(project.git("show", "HEAD:.openwiki/.claims/guide.json"))["claims"]
    assert marked["mark"]["status"] == "stale"
