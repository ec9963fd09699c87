"""Malformed front matter: one clear line `file:line: problem (fix)`, exit 2 for commands that
write, and nothing written; `validate` and `lint` report the same page (exit 1)."""

from __future__ import annotations

import re

import pytest

from tests.support.repo import GitRepo

BODY = "\n# Bad\n\nLine ten says ten.\n"
T = '"2026-01-01T00:00:00Z"'

CASES = [
    pytest.param("---\ntype: Reference\n\n# Bad\n\nLine ten says ten.\n", 1, "never closed", id="unclosed-fence"),
    pytest.param("---\ntype: Reference\ntitle: [unclosed\n---\n" + BODY, 4, "invalid YAML", id="bad-yaml"),
    pytest.param("---\ntitle: No type\n---\n" + BODY, 2, "`type` is missing", id="type-missing"),
    pytest.param('---\ntype: ""\n---\n' + BODY, 2, "`type` must be a non-empty string, found empty", id="type-empty"),
    pytest.param('---\ntype: "   "\n---\n' + BODY, 2, "`type` must be a non-empty string", id="type-blank"),
    pytest.param("---\ntype: 3\n---\n" + BODY, 2, "found a number", id="type-number"),
    pytest.param("---\ntype: [Reference]\n---\n" + BODY, 2, "found a list", id="type-list"),
    pytest.param("---\ntype:\n---\n" + BODY, 2, "`type` must be a non-empty string", id="type-null"),
    pytest.param("---\ntype: R\ntags: jobs\n---\n" + BODY, 3, "`tags` must be a list of strings, found a string", id="tags-string"),
    pytest.param("---\ntype: R\ntags:\n  - a\n  - {b: c}\n---\n" + BODY, 5, "tags[1] must be a non-empty string", id="tags-item-mapping"),
    pytest.param(
        '---\ntype: R\ngenerated: {by: x/1, at: "2026-01-01T10:00:00"}\n---\n' + BODY,
        3,
        "generated.at '2026-01-01T10:00:00' has no offset",
        id="naive-generated-at",
    ),
    pytest.param(
        "---\ntype: R\nstale_after: 2026-01-01T10:00:00\n---\n" + BODY,
        3,
        "`stale_after` '2026-01-01T10:00:00' has no offset",
        id="naive-stale-after",
    ),
    pytest.param("---\ntype: R\nstale_after: 2026-01-01\n---\n" + BODY, 3, "is not a date-time with an offset", id="stale-after-date-only"),
    pytest.param('---\ntype: R\nstale_after: "2026-13-01T00:00:00Z"\n---\n' + BODY, 3, "is not a date-time", id="stale-after-month-13"),
    pytest.param(
        "---\ntype: R\nverified: yesterday\n---\n" + BODY, 3, "`verified` must be a list of {by, at} events", id="verified-string"
    ),
    pytest.param(f"---\ntype: R\nverified:\n  - {{at: {T}}}\n---\n" + BODY, 4, "verified[0] has no `by`", id="verified-no-by"),
    pytest.param(
        f'---\ntype: R\nverified: [{{by: "", at: {T}}}]\n---\n' + BODY,
        3,
        "verified[0].by must be a non-empty actor",
        id="verified-by-empty",
    ),
    pytest.param("---\ntype: R\nverified:\n  - human:alice\n---\n" + BODY, 4, "verified[0] must be a mapping", id="verified-item-string"),
    pytest.param(
        '---\ntype: R\nverified: {by: "human:a", at: "2026-01-01 10:00"}\n---\n' + BODY, 3, "verified.at", id="verified-bare-naive"
    ),
    pytest.param("---\ntype: A\ntitle: T\ntype: B\n---\n" + BODY, 4, "duplicate key 'type'", id="duplicate-key"),
    pytest.param("---\ntype: A\ntags:\n\t- a\n---\n" + BODY, 4, "a tab in the indentation", id="tab-indent"),
    pytest.param("---\n- a\n- b\n---\n" + BODY, 2, "front matter is a list, not a mapping", id="non-mapping-list"),
    pytest.param("---\njust some text\n---\n" + BODY, 2, "front matter is a single value", id="non-mapping-scalar"),
    pytest.param("---\n---\n" + BODY, 2, "`type` is missing", id="empty-front-matter"),
    pytest.param("---\ntype: R\nsources: repo://src/app.py\n---\n" + BODY, 3, "`sources` must be a list", id="sources-not-list"),
    pytest.param("---\ntype: R\nsources:\n  - id: x\n---\n" + BODY, 4, "sources[0] has no `resource`", id="source-without-resource"),
    pytest.param(
        "---\ntype: R\nsources:\n  - resource: a\n    usage_count: -1\n---\n" + BODY,
        5,
        "usage_count must be a whole number",
        id="usage-count-negative",
    ),
    pytest.param(f"---\ntype: R\ngenerated: {{at: {T}}}\n---\n" + BODY, 3, "generated has no `by`", id="generated-no-by"),
    pytest.param("---\ntype: R\ngenerated: today\n---\n" + BODY, 3, "`generated` must be a mapping", id="generated-string"),
    pytest.param("---\ntype: R\nstatus: final\n---\n" + BODY, 3, "`status` must be draft, stable or deprecated", id="status-unknown"),
    pytest.param("---\ntype: R\ntitle: {a: b}\n---\n" + BODY, 3, "`title` must be a string, found a mapping", id="title-mapping"),
    pytest.param(
        "---\ntype: R\nx-openwiki-git-marks: {claim_x: 1}\n---\n" + BODY, 3, "x-openwiki-git-marks` is malformed", id="marks-malformed"
    ),
    pytest.param("---\ntype: R\ntitle: 'unterminated\n---\n" + BODY, 4, "invalid YAML", id="unterminated-quote"),
]
ONE_LINE = re.compile(r"^error: \.openwiki/bad\.md:(\d+): (.+) \((.+)\)$")


def _setup(repo: GitRepo, page: str) -> None:
    repo.write(".openwiki/bad.md", page)
    repo.commit_all("a malformed page")


@pytest.mark.parametrize(("page", "line", "problem"), CASES)
def test_claim_add_refuses_with_one_line_and_writes_nothing(
    wiki_repo: GitRepo, capsys: pytest.CaptureFixture[str], page: str, line: int, problem: str
) -> None:
    _setup(wiki_repo, page)
    before = wiki_repo.snapshot()
    capsys.readouterr()
    rc = wiki_repo.run("claim", "add", "--page", "bad.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10-L10")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1, err
    m = ONE_LINE.match(err[0])
    assert m, err[0]
    assert int(m.group(1)) == line and problem in m.group(2), err[0]
    assert wiki_repo.snapshot() == before


@pytest.mark.parametrize(("page", "line", "problem"), CASES)
def test_validate_and_lint_report_the_page(
    wiki_repo: GitRepo, capsys: pytest.CaptureFixture[str], page: str, line: int, problem: str
) -> None:
    _setup(wiki_repo, page)
    before = wiki_repo.snapshot()
    capsys.readouterr()
    assert wiki_repo.run("validate") == 1
    out = capsys.readouterr().out
    assert re.search(rf"^\.openwiki/bad\.md:{line}: ", out, re.M), out
    assert wiki_repo.run("lint") == 1
    out = capsys.readouterr().out
    assert f".openwiki/bad.md:{line}: front-matter: " in out and problem in out, out
    assert wiki_repo.run("lint", "--fix") == 2  # lint --fix writes: it refuses before writing anything
    assert ONE_LINE.match(capsys.readouterr().err.strip())
    assert wiki_repo.snapshot() == before


@pytest.mark.parametrize("broken", ["type: R\ntype: S\n", "title: [\n", "type: R\nverified: nope\n"])
def test_check_fix_refuses_before_writing_any_page(wiki_repo: GitRepo, capsys: pytest.CaptureFixture[str], broken: str) -> None:
    repo = wiki_repo
    repo.write(".openwiki/other.md", "---\ntype: Reference\n---\n\nLine twenty says twenty.\n")
    for page, stmt, res in [("guide.md", "Line ten says ten.", "#L10-L10"), ("other.md", "Line twenty says twenty.", "#L20-L20")]:
        assert repo.run("claim", "add", "--page", page, "--statement", stmt, "--evidence", "repo://src/app.py" + res) == 0
    repo.commit_all("claims")
    text = repo.read(".openwiki/other.md")
    repo.write(".openwiki/other.md", text.replace("type: Reference\n", broken, 1))
    repo.write("src/app.py", repo.read("src/app.py").replace("line 10\n", "line ten\n").replace("line 20\n", "line twenty\n"))
    before = repo.snapshot()
    capsys.readouterr()
    assert repo.run("check", "--fix") == 2
    assert ONE_LINE.match(capsys.readouterr().err.strip().replace("other.md", "bad.md"))
    assert repo.snapshot() == before


def test_at_least_twenty_cases() -> None:
    assert len(CASES) >= 20
