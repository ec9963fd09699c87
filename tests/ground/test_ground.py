"""`openwiki-git ground`: the deterministic pass over an existing `docs/` folder, through the real
CLI in real git repositories: what it cites, what it reports broken or ambiguous, idempotence,
respect for existing claims and prose, --plan, --add-front-matter, and check/lint's broken
references."""

from __future__ import annotations

import json
import re

import pytest

from openwiki_git.ground import refs as ground_refs
from openwiki_git.pages import citations
from openwiki_git.pages.markers import MARKER
from tests.support.ground_docs import CORE, GUIDE
from tests.support.repo import GitRepo


def ground(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    rc = repo.run("ground", "--format", "json", *args)
    return rc, json.loads(capsys.readouterr().out)


def added(data: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {a["reference"]: a["evidence"] for p in data["pages"] for a in p["added"]}


def test_cites_definitions_and_reports_broken(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    rc, data = ground(docs_repo, capsys, "--all")
    assert rc == 1  # broken references are findings
    assert added(data) == {
        "widgets.make()": "repo://src/widgets/_core.py#make",  # re-export followed, cited by its name
        "Widget.grow": "repo://src/widgets/_core.py#Widget.grow",
        "--size": "repo://src/widgets/cli.py?grep=%5B%22'%2F%5D--size(%3F!%5B%5Cw-%5D)",  # the lines that mention it
        "WIDGET_TOKEN": "repo://src/widgets/cli.py?grep=%5CbWIDGET_TOKEN%5Cb",
        "src/widgets/cli.py": "repo://src/widgets/cli.py#L1-L1",
        "helper()": "repo://src/widgets/_core.py#helper",
    }
    broken = {b["reference"] for b in data["pages"][0]["broken"]}
    assert broken == {"widgets.Widget.shrink", "widgets.gone()"}
    text = docs_repo.read("docs/guide.md")
    sidecar = json.loads(docs_repo.read("docs/.claims/guide.json"))
    for claim in sidecar["claims"]:
        assert claim["verifiedBy"] == "tool:openwiki-git-ground"
        assert citations.has_marker(text, claim["id"])
    statements = {c["statement"] for c in sidecar["claims"]}
    assert "Call `widgets.make()` to build a widget." in statements
    # the link and the code span in one sentence cite the same lines: one claim
    assert sum(1 for c in sidecar["claims"] if "src/widgets/cli.py" in c["statement"]) == 1
    # the code example that calls `make` is guarded by one claim citing its head, marked by a comment after the fence
    (example,) = data["pages"][0]["examples"]["added"]
    assert example["evidence"] == ["repo://src/widgets/_core.py#make:head"]
    assert "    return make(3)\n```\n<!-- c-" in text
    # prose unchanged but for the markers; no front matter added
    assert citations.strip_block(re.sub(r"(?m)^<!-- c-[0-9a-f]{8} -->\n", "", MARKER.sub("", text))) == GUIDE
    capsys.readouterr()
    assert docs_repo.run("check") == 1  # every claim fresh; the two broken references remain
    out = capsys.readouterr().out
    assert "docs/guide.md:6: broken reference `widgets.gone()`" in out and "6 claims: 6 fresh" in out  # five sentences and the example
    # one claim per sentence: the flag and the variable of one sentence are one claim's evidence
    both = [c for c in sidecar["claims"] if c["statement"].startswith("Pass `--size`")]
    assert len(both) == 1 and len(both[0]["evidence"]) == 2


def test_idempotent_and_respects_existing_claims(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    docs_repo.run("claim", "add", "--page", "guide.md", "--statement", "The `Widget.grow` method returns a new one.",
                  "--evidence", "repo://src/widgets/_core.py#L19-L21", "--by", "human:alice")
    before = json.loads(docs_repo.read("docs/.claims/guide.json"))["claims"][0]
    _, first = ground(docs_repo, capsys, "--all")
    assert "Widget.grow" not in added(first)  # the person's claim already cites those lines
    page, sidecar = docs_repo.read("docs/guide.md"), docs_repo.read("docs/.claims/guide.json")
    _, again = ground(docs_repo, capsys, "guide.md")
    assert added(again) == {}
    # every reference cited before, plus the link beside its path span and the person's claim
    assert again["summary"]["already_grounded"] == len(added(first)) + 2
    assert docs_repo.read("docs/guide.md") == page and docs_repo.read("docs/.claims/guide.json") == sidecar
    assert json.loads(sidecar)["claims"][0] == before


def test_plan_writes_nothing(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    snap = docs_repo.snapshot()
    rc, data = ground(docs_repo, capsys, "--all", "--plan")
    assert rc == 1 and data["plan"] is True
    assert "widgets.make()" in added(data)
    assert docs_repo.snapshot() == snap


def test_add_front_matter(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ground(docs_repo, capsys, "--all", "--add-front-matter")
    text = docs_repo.read("docs/guide.md")
    assert text.startswith("---\ntype: Reference\n")
    assert "sources:" in text.split("\n---\n", 1)[0]  # projected from the claims
    assert docs_repo.run("validate") == 0


def test_ambiguous_never_guessed(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.write("src/a.py", "def run():\n    pass\n")
    repo.write("src/b.py", "def run():\n    pass\n")
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/x.md", "Use `run()` to start the engine now.\n")
    repo.commit_all()
    rc, data = ground(repo, capsys, "--all")
    assert rc == 0 and added(data) == {}
    assert data["pages"][0]["ambiguous"][0]["candidates"] == ["repo://src/a.py#L1-L2", "repo://src/b.py#L1-L2"]


def test_check_and_lint_report_broken_references_on_grounded_pages(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    docs_repo.write("docs/other.md", "Nothing here mentions `widgets.gone()` twice, said nobody.\n")
    docs_repo.commit_all()
    capsys.readouterr()
    assert docs_repo.run("check", "--format", "json") == 1  # never grounded: nothing to check, and no new findings
    said = capsys.readouterr()
    assert "broken_references" not in json.loads(said.out) and said.err.startswith("nothing to check: ")
    ground(docs_repo, capsys, "guide.md")
    docs_repo.commit_all()
    capsys.readouterr()
    assert docs_repo.run("check", "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    assert {b["reference"] for b in report["broken_references"]} == {"widgets.Widget.shrink", "widgets.gone()"}
    assert {b["page"] for b in report["broken_references"]} == {"guide.md"}  # other.md was not grounded
    capsys.readouterr()
    docs_repo.run("lint", "--format", "json")
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert sorted(f["line"] for f in findings if f["kind"] == "broken-reference") == [6, 6]


def test_renamed_function_breaks_the_claim(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ground(docs_repo, capsys, "--all")
    docs_repo.commit_all()
    docs_repo.write("src/widgets/_core.py", CORE.replace("def helper():", "def assistant():"))
    capsys.readouterr()
    assert docs_repo.run("check", "--format", "json") == 1
    stale = [c for c in json.loads(capsys.readouterr().out)["claims"] if c["status"] != "fresh"]
    assert [c["statement"] for c in stale] == ["A bare `helper()` is fine too, but `fixture_only()` is a test's."]


def test_usage_errors(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert docs_repo.run("ground") == 2
    assert docs_repo.run("ground", "missing.md") == 2
    assert "no such page" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        ("pkg.mod.func()", ("symbol", "pkg.mod.func", True)),
        ("Class.method", ("symbol", "Class.method", False)),
        ("--wiki-dir", ("flag", "--wiki-dir", False)),
        ("$OPENWIKI_MODEL", ("env", "OPENWIKI_MODEL", False)),
        ("wiki_dir", ("key", "wiki_dir", False)),
        ("src/app.py", ("path", "src/app.py", False)),
        ("setup.py", ("path", "setup.py", False)),
        ("name", ("symbol", "name", False)),  # a plain identifier: cited only when one definition has the name
        ("--workers <int>", ("flag", "--workers", False)),
        ("--use-colors / --no-use-colors", ("flag", "--use-colors", False)),
        ('"auto"', ("string", "auto", False)),
        ("@app.command()", ("symbol", "app.command", True)),  # a decorator: a call of the method
        ("@app.command", ("symbol", "app.command", True)),
        ("@frozen", ("symbol", "frozen", False)),  # a bare one may be a variable (`frozen = partial(define, ...)`)
        ("user@example.com", None),
        ("pip install -e .", None),
        ("x + 1", None),
        ("True", None),
    ],
)
def test_classify(span: str, expected: tuple[str, str, bool] | None) -> None:
    assert ground_refs.classify(span) == expected


def test_sentences_and_marker_places() -> None:
    text = "Intro, e.g. `a.b` here.[^c-87654321] Second `c.d()` one.[^c-12345678]\n\n- item `e.f`\n"
    refs = ground_refs.page_refs(text).refs
    assert [(r.name, r.sentence.text) for r in refs] == [
        ("a.b", "Intro, e.g. `a.b` here."),  # an abbreviation does not end it, a marker stays with it
        ("c.d", "Second `c.d()` one."),
        ("e.f", "item `e.f`"),
    ]
    assert refs[1].sentence.markers == ("c-12345678",)
    assert text[: refs[1].sentence.end].endswith("one.[^c-12345678]")


def test_check_caches_broken_references_and_sees_a_change(
    docs_repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import time

    from openwiki_git.caches import statkey
    from openwiki_git.ground import broken

    # git's racy rule (caches/statkey.py) reads the ctime too, which setting the mtime back moves
    # to now: a window of 0 ns lets the files written before the run be cached at once.
    monkeypatch.setattr(statkey, "RACY_NS", 0)

    docs_repo.write("docs/guide.md", GUIDE + "\nNow `widgets.Widget.grow()` grows a widget for sure.\n")
    ground(docs_repo, capsys, "--all")
    docs_repo.write("docs/guide.md", docs_repo.read("docs/guide.md") + "\nAnd `widgets.Widget.grow()` grows one more.\n")
    old = time.time() - 100
    for path in docs_repo.root.rglob("*"):
        if ".git" not in path.parts:
            os.utime(path, (old, old))
    capsys.readouterr()
    assert docs_repo.run("check", "--format", "json") == 1
    cache = docs_repo.root / ".git" / "openwiki-git" / broken.CACHE_NAME
    assert cache.is_file()
    first = json.loads(capsys.readouterr().out)["broken_references"]
    assert {b["reference"] for b in first} == {"widgets.Widget.shrink", "widgets.gone()"}
    docs_repo.write("src/widgets/_core.py", CORE.replace("def grow(", "def enlarge("))  # the new sentence breaks
    os.utime(docs_repo.root / "src/widgets/_core.py", (old + 1, old + 1))
    assert docs_repo.run("check", "--format", "json") == 1
    now = json.loads(capsys.readouterr().out)["broken_references"]
    assert {b["reference"] for b in now} == {"widgets.Widget.shrink", "widgets.gone()", "widgets.Widget.grow()"}


def test_a_warm_check_still_reports_broken_references(
    docs_repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check cache answers a warm run without judging pages; broken references depend on
    every tracked file, not only the cited ones, so they are still reported (and updated) then."""
    from openwiki_git.caches import check_entries as checkcache
    from openwiki_git.caches import statkey

    monkeypatch.setattr(statkey, "RACY_NS", 0)  # files written before a run may be cached at once
    answered = []
    real = checkcache.answer
    monkeypatch.setattr(checkcache, "answer", lambda *a: answered.append(real(*a)) or answered[-1])
    ground(docs_repo, capsys, "--all")
    docs_repo.commit_all()
    outputs = []
    for _ in range(2):  # the second run is the cache's fast answer
        capsys.readouterr()
        assert docs_repo.run("check") == 1
        outputs.append(capsys.readouterr().out)
    assert answered[-1] is not None  # the fast answer was taken
    assert outputs[0] == outputs[1]
    assert "broken reference `widgets.gone()`" in outputs[1]
    # The missing function is added in a file no claim cites: no page is judged again, yet the
    # reference is no longer broken.
    docs_repo.write("src/widgets/__init__.py", docs_repo.read("src/widgets/__init__.py") + "\n\ndef gone():\n    return None\n")
    capsys.readouterr()
    docs_repo.run("check")
    out = capsys.readouterr().out
    assert "broken reference `widgets.Widget.shrink`" in out and "`widgets.gone()`" not in out


def test_a_page_the_refresher_confirmed_is_not_grounded(docs_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """The refresher records its confirmations as `model:...` too: a page whose claim a nightly
    refresh confirmed has not opted in to the broken-reference check (its old docs stay as green
    as before); a page `ground` grounded has."""
    import dataclasses

    from openwiki_git.ground import deterministic as service
    from openwiki_git.store.workspace import Workspace

    assert docs_repo.run("claim", "add", "--page", "guide.md", "--statement", "Call `widgets.make()` to build a widget.",
                         "--evidence", "repo://src/widgets/_core.py#L10-L13") == 0
    ws = Workspace.open(docs_repo.root)
    sidecar = ws.wiki.load("guide.md")
    assert sidecar is not None
    refreshed = sidecar.replace(claims=tuple(dataclasses.replace(c, verified_by="model:gpt-4o-mini") for c in sidecar.claims))
    assert service.grounded_pages({"guide.md": refreshed}) == []
    capsys.readouterr()
    ground(docs_repo, capsys, "guide.md")
    assert service.grounded_pages(Workspace.open(docs_repo.root).wiki.load_all()) == ["guide.md"]


LONG = "class Engine:\n    \"\"\"Runs jobs.\"\"\"\n\n    def __init__(self, jobs):\n        self.jobs = jobs\n\n" + "".join(
    f"    def step{i}(self):\n        return {i}\n\n" for i in range(20)
) + "    def stop(self):\n        raise_engine_error('StopNow')\n"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("An `Engine` runs jobs.", "repo://src/engine.py#Engine:head"),  # a class: its head
        ("`Engine` calls `raise_engine_error` when it stops.", "repo://src/engine.py#Engine.stop"),  # the method that does it
    ],
)
def test_classes_are_cited_by_their_head_unless_the_sentence_quotes_the_body(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, expected: str
) -> None:
    _grounded_then_body_edited(repo, capsys, LONG, sentence, expected)


def _grounded_then_body_edited(repo: GitRepo, capsys: pytest.CaptureFixture[str], source: str, sentence: str, expected: str) -> None:
    """`ground --all` cites `sentence` by `expected`; an edit in the body (of `step3`) then leaves
    a head claim, or one of another method, fresh and marks a whole definition's claim (check
    exits 0 or 1)."""
    repo.write("src/engine.py", source)
    repo.write("docs/guide.md", f"# Guide\n\n{sentence}\n")
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.commit_all("initial")
    rc, data = ground(repo, capsys, "--all")
    assert rc == 0
    assert list(added(data).values()) == [expected]
    capsys.readouterr()
    repo.write("src/engine.py", source.replace("return 3", "return 33"))  # an edit in the body
    assert repo.run("check") == (1 if expected.endswith(("#Engine", "#make")) else 0)


ENGINE_DOCS = LONG.replace('"""Runs jobs."""', '"""Runs jobs.\n\n    Writes each result as JSON through logging.\n    """')


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # apostrophes are no quote marks: "'s ... doesn't" quotes no `step` from the body
        ("An `Engine`'s steps stop on error, it doesn't return early.", "repo://src/engine.py#Engine:head"),
        ("Each `Engine` object's steps stop on error, it doesn't return early.", "repo://src/engine.py#Engine:head"),
        ("An `Engine` writes its results as JSON.", "repo://src/engine.py#Engine:head"),  # an acronym is prose
        ('An `Engine` answers "how did this job stop?" for you.', "repo://src/engine.py#Engine:head"),  # a quoted question
        ("An `Engine` is no `logging.Logger`.", "repo://src/engine.py#Engine:head"),  # the standard library's definition
        ("An `Engine` raises 'StopNow' when it stops.", "repo://src/engine.py#Engine.stop"),  # a quoted literal of its body
        ("An `Engine` raises StopNow when it stops.", "repo://src/engine.py#Engine.stop"),  # spelt like code
    ],
)
def test_what_a_sentence_quotes_from_a_body_is_a_literal_or_code_not_its_prose(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, expected: str
) -> None:
    """A class's body changing marks a claim citing its head only when the sentence quotes that
    body: the sentences structlog's docs write ("standard library's ... doesn't", "JSON", a quoted
    question, `logging.Logger`) quote nothing of it, so each cites the head and a changed step
    leaves it fresh."""
    _grounded_then_body_edited(repo, capsys, ENGINE_DOCS, sentence, expected)


MAKE = (
    'def make(size, *, strict=False):\n    """\n    Build a widget.\n\n'
    + '    :param strict: refuse a size over MAX_SIZE; see Engine.\n    """\n'
    + "    # mutable widgets are cached\n"
    + "".join(f"    size += {i}\n" for i in range(40))
    + "    return size\n"
)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The function `make()` builds a widget.", "repo://src/widgets.py#make:head"),  # its summary's role: its head
        ("The function `make()` refuses a size over `MAX_SIZE` when strict.", "repo://src/widgets.py#make"),  # a parameter's docs
        ("The function `make()` keeps `mutable` widgets.", "repo://src/widgets.py#make:head"),  # only a comment says it
        ("The function `make()` builds what `engine.Engine` runs.", "repo://src/widgets.py#make:head"),  # another definition's name
    ],
)
def test_a_long_function_is_cited_by_its_head_unless_the_sentence_quotes_what_only_its_body_says(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, expected: str
) -> None:
    repo.write("src/widgets.py", MAKE)
    repo.write("src/engine.py", LONG)
    repo.write("docs/guide.md", f"# Guide\n\n{sentence}\n")
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.commit_all("initial")
    rc, data = ground(repo, capsys, "--all")
    assert rc in (0, 1)
    assert added(data).get("make()") == expected, json.dumps(data)
