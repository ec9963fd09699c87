"""A cited parameter whose lines an edit rewrote follows that parameter by name (diff/units.py),
in the hook on a staged diff, in `check` and in `check --base`: typer's commit rewriting every
parameter of `Typer.__init__` as `Annotated[bool, Doc("...")]` moved the claim citing
`pretty_exceptions_show_locals` onto another parameter's first line, and the later commit that
changed its default marked nothing. Through the real CLI on a real repository."""

from __future__ import annotations

import json

import pytest

from tests.support.annotated_app import ANNOTATED_APP, APP
from tests.support.kinds_repo import first_claim, one_claim, staged_hook
from tests.support.repo import GitRepo

ANNOTATED = """from typing import Annotated


def Doc(text: str) -> str:
    return text


""" + ANNOTATED_APP

SENTENCE = "Set `show_locals=False` when creating an `App` to hide local variables."
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n{}\n"


def _check(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    rc = repo.run("check", "--format", "json", *args)
    return rc, json.loads(capsys.readouterr().out)["claims"][0]


def _cited_lines(repo: GitRepo) -> list[str]:
    resource = first_claim(repo)["evidence"][0]["resource"]
    start, end = (int(n) for n in resource.rsplit("#L", 1)[1].split("-L"))
    return repo.read("src/app.py").splitlines()[start - 1 : end]


def test_a_parameter_rewritten_with_its_neighbours_is_followed_and_its_default_change_then_marks(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    one_claim(repo, capsys, {"src/app.py": APP}, PAGE.format(SENTENCE), SENTENCE, "repo://src/app.py#L5-L5")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write("src/app.py", ANNOTATED)

    rc, claim = _check(repo, capsys)  # before the hook: check reads the edit the same way
    assert (rc, claim["status"]) == (0, "fresh"), claim
    assert claim["evidence"][0]["reason"].startswith("cosmetic:") and "annotations" in claim["evidence"][0]["reason"]

    rc, out = staged_hook(repo, capsys)
    assert rc == 0, out
    assert _cited_lines(repo) == ANNOTATED.splitlines()[14:18]  # all of show_locals, not `name`'s first line
    assert "mark" not in first_claim(repo)
    repo.commit_all("annotated")
    assert repo.run("check") == 0
    rc, claim = _check(repo, capsys, "--base", base)
    assert (rc, claim["status"]) == (0, "fresh"), claim

    shown = 'Doc("Show the values of local variables in tracebacks."),\n        ] = '
    repo.write("src/app.py", ANNOTATED.replace(shown + "True", shown + "False"))
    rc, claim = _check(repo, capsys)
    assert (rc, claim["status"]) == (1, "stale"), claim
    rc, out = staged_hook(repo, capsys)
    assert rc == 1 and "src/app.py#L15-L18 changed" in out, out
    repo.commit_all("default off")
    rc, claim = _check(repo, capsys, "--base", base)
    assert (rc, claim["status"]) == (1, "stale"), claim


def test_a_parameter_renamed_is_not_followed_and_stays_stale(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    one_claim(repo, capsys, {"src/app.py": APP}, PAGE.format(SENTENCE), SENTENCE, "repo://src/app.py#L5-L5")
    repo.write("src/app.py", ANNOTATED.replace("show_locals: Annotated", "locals_shown: Annotated"))
    rc, out = staged_hook(repo, capsys)
    assert rc == 1, out
    assert first_claim(repo)["mark"]["status"] in ("stale", "unresolved")
    rc, claim = _check(repo, capsys)
    assert rc == 1 and claim["status"] != "fresh", claim
