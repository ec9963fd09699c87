"""A section about one parameter (ground/subject.py), through the real CLI in a real repository:
typer's "Disable Local Variables for Security" sets `pretty_exceptions_show_locals=False` in one
sentence, and upstream rewrote the whole section, its examples too, when the parameter's default
flipped. The section's other sentences and its examples are guarded by that parameter's
declaration; a section setting several parameters, or a sentence naming one in passing, guards
nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openwiki_git.ground import subject
from openwiki_git.ground.refs import Sentence
from tests.support.ground_docs import ground_all
from tests.support.repo import GitRepo

APP = '''\
class App:
    """An application."""

    def __init__(
        self,
        name: str = "app",
        show_locals: bool = True,
        short: bool = True,
    ):
        self.name = name
        self.show_locals = show_locals
        self.short = short
'''

SETS = "You can set `show_locals=False` when creating the `pkg.App()`:"
GUARDED = [
    "If your app handles a password, the errors could show it in local variables.",
    "But if it was a password, you would have liked to hide it.",
    "Now the error shows no local variables at all.",
]
EXAMPLE = "The console example starting `python main.py secret` (2 lines) works with the code as it is."
PAGE = f"""# Errors

The errors of an app are printed with care.

## Hide local variables

{GUARDED[0]}

{GUARDED[1]}

{SETS}

```console
$ python main.py secret
Error: boom
```

{GUARDED[2]}

## Shorter output

You can set `short=False` and `show_locals=True` on `pkg.App()` together.

Then you will see the whole output in the terminal.

## Naming

The `pkg.App()` takes a `name`, shown in every error message it prints.

Each message starts with it, then the error itself.
"""
DECLARATION = "repo://pkg/app.py#L7-L7"


def grounded(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    return ground_all(repo, capsys, {"pkg/__init__.py": "from pkg.app import App\n", "pkg/app.py": APP, "docs/errors.md": PAGE})


def test_a_section_setting_one_parameter_guards_its_sentences_and_examples(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    data = grounded(repo, capsys)
    claims = {c["statement"]: c for p in data["pages"] for c in p["claims"]}
    assert claims[SETS]["evidence"] == [DECLARATION]
    for sentence in GUARDED:
        assert claims[sentence]["evidence"] == [DECLARATION], sentence
        assert [i.get("extra") for i in claims[sentence]["items"]] == ["section"]
    assert claims[EXAMPLE]["evidence"] == [DECLARATION]
    assert data["pages"][0]["examples"]["to_add"] == 1 and data["pages"][0]["examples"]["left_alone"] == {}
    # the page's intro, a section setting two parameters, one naming a parameter without setting it: nothing guarded
    for plain in ("The errors of an app are printed with care.", "Then you will see the whole output in the terminal.",
                  "Each message starts with it, then the error itself."):
        assert plain not in claims
    assert data["summary"]["guarded"] == len(GUARDED)

    # the default flips: the section's claims are stale, and only they
    repo.write("pkg/app.py", APP.replace("show_locals: bool = True", "show_locals: bool = False"))
    repo.commit_all("no locals by default")
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1
    stale = {c["statement"] for c in json.loads(capsys.readouterr().out)["claims"] if c["status"] == "stale"}
    assert {SETS, EXAMPLE, *GUARDED} <= stale
    assert not any("name" in s for s in stale)

    # grounding again adds nothing
    capsys.readouterr()
    repo.run("ground", "--all", "--format", "json")
    assert json.loads(capsys.readouterr().out)["summary"]["claims"] == 0


@pytest.mark.parametrize(
    ("sentence", "name", "sets"),
    [
        ("You can set `show_locals=False` when creating the app.", "show_locals", True),
        ("Pass `typer.Argument(default=...)` to require it.", "default", True),
        ("Pass `prompt=True` and `help=\"text\"` to `typer.Option()`.", "prompt", False),  # two settings: about neither
        ("The `show_locals` parameter hides them.", "show_locals", False),  # named, not set
        ("Compare with `a == b` where `show_locals=1`.", "show_locals", True),  # `==` sets nothing
    ],
)
def test_a_sentence_sets_one_parameter(sentence: str, name: str, sets: bool) -> None:
    assert subject.sets(sentence, name) is sets


def test_declared_names_and_sections() -> None:
    assert subject.declared_name("        show_locals: bool = True,") == "show_locals"
    assert subject.declared_name("    **kwargs,") == "kwargs"
    assert subject.declared_name("def launch(url: str, wait: bool = False) -> int:") is None
    # a page's headings (level, line): the innermost sections under level 2 or deeper, to the next heading
    spans = subject.sections([(1, 1), (2, 5), (3, 9), (2, 14)], 20)
    assert spans == [(5, 8), (9, 13), (14, 20)]
    found = subject.subjects(spans, [(6, "a"), (10, "b"), (12, "c"), (15, "d"), (16, "d")])
    assert found == {(5, 8): "a", (14, 20): "d"}  # the section citing b and c has no one subject
    sentences = [Sentence(t, line, 0, claimable, ()) for t, line, claimable in [
        ("Intro of the page.", 3, True), ("Plain words here.", 7, True), ("Set `a=1`.", 6, True), ("Heading", 5, False),
        ("{* docs_src/app.py hl[3] *}", 8, True), ("Other words.", 11, True), ("More words.", 17, True),
    ]]
    claimed = [sentences[2]]
    got = subject.guarded(found, sentences, claimed)
    assert {s.text: r for s, r in got.items()} == {"Plain words here.": "a", "More words.": "d"}
