"""Nothing is lost: every malformed sidecar, config or resource yields exit 2, one line on stderr
naming the file and the place (plus an optional `hint:` line), no traceback, and an unchanged
tree, even for commands that would write (`check --fix`, `claim add`, `claim retract`)."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from typing import Any

import pytest

SIDE = ".openwiki/.claims/guide.json"
CONFIG = ".openwiki/config.yml"
ADD = ("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L1")
WRITERS = (("check",), ("check", "--fix"), ADD, ("claim", "list"), ("check", "--format", "json"))


def run(repo, capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        rc = repo.run(*argv)
    except SystemExit as e:
        rc = int(e.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def assert_refused(repo, capsys, argv, *needles: str) -> str:
    """Exit 2, one `error:` line (+ optional `hint:`), naming every needle, nothing written."""
    before = repo.snapshot()
    rc, out, err = run(repo, capsys, *argv)
    assert rc == 2, (argv, out, err)
    assert "Traceback" not in err and "error: unexpected" not in err, err
    lines = err.splitlines()
    assert 1 <= len(lines) <= 2, err
    assert lines[0].startswith("error: "), err
    if len(lines) == 2:
        assert lines[1].startswith("hint: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert repo.snapshot() == before, f"{argv} changed the tree"
    assert not [p for p in repo.snapshot() if p.endswith(".tmp")]
    return lines[0]


@pytest.fixture
def claimed(wiki_repo, capsys):
    """wiki_repo with one claim on guide.md and one on b.md, all committed."""
    wiki_repo.write(".openwiki/b.md", "# B\n\nB says one.\n")
    for page, statement, ev in (
        ("guide.md", "Line ten says ten.", "repo://src/app.py#L10-L12"),
        ("b.md", "B says one.", "repo://src/app.py"),
    ):
        rc, _, err = run(wiki_repo, capsys, "claim", "add", "--page", page, "--statement", statement, "--evidence", ev)
        assert rc == 0, err
    wiki_repo.commit_all("claims")
    return wiki_repo


def _sidecar(repo, path: str = SIDE) -> dict[str, Any]:
    return json.loads(repo.read(path))


Mutation = Callable[[dict[str, Any]], Any]


def _set(path: tuple[Any, ...], value: Any) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        d[path[-1]] = value

    return mutate


def _del(path: tuple[Any, ...]) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        del d[path[-1]]

    return mutate


def _dup_claim(d: dict[str, Any]) -> None:
    d["claims"].append(copy.deepcopy(d["claims"][0]))


def _dup_evidence(d: dict[str, Any]) -> None:
    d["claims"][0]["evidence"].append(copy.deepcopy(d["claims"][0]["evidence"][0]))


EV = ("claims", 0, "evidence", 0)
FILE_TOKEN = "repo-file-v1:sha256:" + "a" * 64

# (case id, mutation of the parsed sidecar, the JSON place the message must name)
SIDECAR_CASES = [
    ("schema-version-2", _set(("schemaVersion",), 2), "$.schemaVersion"),
    ("schema-version-true", _set(("schemaVersion",), True), "$.schemaVersion"),
    ("schema-version-string", _set(("schemaVersion",), "1"), "$.schemaVersion"),
    ("unknown-root-key", _set(("extra",), 1), "$.extra"),
    ("unknown-claim-key", _set(("claims", 0, "note"), "x"), "$.claims[0].note"),
    ("unknown-evidence-key", _set((*EV, "lines"), [1, 2]), "$.claims[0].evidence[0].lines"),
    ("bad-claim-id", _set(("claims", 0, "id"), "claim_XYZ"), "$.claims[0].id"),
    ("uppercase-claim-id", _set(("claims", 0, "id"), "claim_" + "A" * 32), "$.claims[0].id"),
    ("duplicate-id-on-page", _dup_claim, "$.claims[1].id"),
    ("empty-evidence", _set(("claims", 0, "evidence"), []), "$.claims[0].evidence"),
    ("missing-statement", _del(("claims", 0, "statement")), "$.claims[0].statement"),
    ("padded-statement", _set(("claims", 0, "statement"), " x "), "$.claims[0].statement"),
    ("claims-not-array", _set(("claims",), {}), "$.claims"),
    ("bad-page-version", _set(("pageVersion",), "md5:0"), "$.pageVersion"),
    ("non-canonical-resource", _set((*EV, "resource"), "repo://src/./app.py#L10-L12"), "$.claims[0].evidence[0].resource"),
    ("single-line-not-canonical", _set((*EV, "resource"), "repo://src/app.py#L10"), "$.claims[0].evidence[0].resource"),
    ("traversal-resource", _set((*EV, "resource"), "repo://../etc/passwd#L1-L1"), "$.claims[0].evidence[0].resource"),
    ("git-dir-resource", _set((*EV, "resource"), "repo://.git/config#L1-L1"), "$.claims[0].evidence[0].resource"),
    ("wiki-dir-resource", _set((*EV, "resource"), "repo://.openwiki/b.md#L1-L1"), "$.claims[0].evidence[0].resource"),
    ("not-repo-scheme", _set((*EV, "resource"), "file://src/app.py"), "$.claims[0].evidence[0].resource"),
    ("line-zero", _set((*EV, "resource"), "repo://src/app.py#L0-L1"), "$.claims[0].evidence[0].resource"),
    ("bad-version-token", _set((*EV, "version"), "repo-lines-v2:sha256:abc"), "$.claims[0].evidence[0].version"),
    ("whole-file-with-lines-token", _set((*EV, "resource"), "repo://src/app.py"), "$.claims[0].evidence[0].version"),
    ("range-with-file-token", _set((*EV, "version"), FILE_TOKEN), "$.claims[0].evidence[0].version"),
    ("duplicate-resource-in-claim", _dup_evidence, "$.claims[0].evidence[1].resource"),
    ("bad-blob", _set((*EV, "blob"), "xyz"), "$.claims[0].evidence[0].blob"),
    ("bad-mark-status", _set(("claims", 0, "mark"), {"status": "gone", "since": "2026-01-01T00:00:00Z"}), "$.claims[0].mark.status"),
    ("mark-without-since", _set(("claims", 0, "mark"), {"status": "stale"}), "$.claims[0].mark.since"),
    ("verification-without-at", _set(("verification",), {"by": "openwiki/0.3.3"}), "$.verification.at"),
    ("evidence-not-object", _set(("claims", 0, "evidence"), ["repo://src/app.py"]), "$.claims[0].evidence[0]"),
    ("root-is-array", lambda d: [d], "$"),
]


@pytest.mark.parametrize(("mutate", "place"), [c[1:] for c in SIDECAR_CASES], ids=[c[0] for c in SIDECAR_CASES])
def test_malformed_sidecar(claimed, capsys, mutate, place):
    data = _sidecar(claimed)
    replaced = mutate(data)
    claimed.write(SIDE, json.dumps(replaced if replaced is not None else data, indent=2) + "\n")
    for argv in WRITERS:
        assert_refused(claimed, capsys, argv, SIDE, place)


@pytest.mark.parametrize(
    ("raw", "place"),
    [
        ("{", ":1:2: invalid JSON"),
        ("", ":1:1: invalid JSON"),
        ('{"schemaVersion": 1,\n  "claims": [,]}', ":2:14: invalid JSON"),
        ("[1, 2", ":1:6: invalid JSON"),
    ],
    ids=["truncated", "empty", "stray-comma", "unterminated-array"],
)
def test_invalid_json_sidecar(claimed, capsys, raw, place):
    claimed.write(SIDE, raw)
    for argv in WRITERS:
        assert_refused(claimed, capsys, argv, SIDE + place)


def test_invalid_utf8_sidecar(claimed, capsys):
    (claimed.root / SIDE).write_bytes(b'{"schemaVersion": 1, "x": "\xff"}')
    for argv in WRITERS:
        assert_refused(claimed, capsys, argv, SIDE)


def test_deeply_nested_sidecar(claimed, capsys):
    claimed.write(SIDE, "[" * 100_000 + "]" * 100_000)
    for argv in WRITERS:
        assert_refused(claimed, capsys, argv, SIDE)


def test_duplicate_id_across_pages(claimed, capsys):
    a, b = _sidecar(claimed), _sidecar(claimed, ".openwiki/.claims/b.json")
    b["claims"][0]["id"] = a["claims"][0]["id"]
    claimed.write(".openwiki/.claims/b.json", json.dumps(b, indent=2) + "\n")
    for argv in WRITERS:
        line = assert_refused(claimed, capsys, argv, a["claims"][0]["id"])
        assert ".openwiki/.claims/" in line and ("b.md" in line or "guide.md" in line)


def test_symlinked_sidecar(claimed, capsys):
    target = claimed.root / "elsewhere.json"
    target.write_bytes((claimed.root / SIDE).read_bytes())
    (claimed.root / SIDE).unlink()
    os.symlink(target, claimed.root / SIDE)
    for argv in WRITERS:
        assert_refused(claimed, capsys, argv, SIDE, "symlink")


def test_symlinked_sidecar_directory(claimed, capsys):
    real = claimed.root / "real-sub"
    real.mkdir()
    (real / "c.json").write_bytes((claimed.root / ".openwiki/.claims/b.json").read_bytes())
    os.symlink(real, claimed.root / ".openwiki/.claims/sub")
    for argv in WRITERS:
        assert_refused(claimed, capsys, argv, ".openwiki/.claims/sub", "symlink")


# -- config ----------------------------------------------------------------------------------

CONFIG_CASES = [
    ("bad-yaml", "wiki_dir: [unclosed\n", f"{CONFIG}:2:1"),
    ("bad-yaml-tab", "wiki_dir: .openwiki\n\tmax_growth: 3\n", f"{CONFIG}:2:1"),
    ("duplicate-key", "max_growth: 1\nmax_growth: 2\n", f"{CONFIG}:2:1"),
    ("unknown-key", "wiki_dir: .openwiki\nmax_grwth: 3\n", "max_grwth"),
    ("wrong-type", "max_growth: lots\n", "$.max_growth"),
    ("negative", "max_growth: -1\n", "$.max_growth"),
    ("bad-enum", "sidecar_format: xml\n", "$.sidecar_format"),
    ("bad-duration", "reverify_after: soon\n", "$.reverify_after"),
    ("bad-duration-by-kind", "reverify_after:\n  Decision: 1y\n  default: 90d\n", "$.reverify_after.Decision"),
    ("empty-by-kind", "reverify_after: {}\n", "$.reverify_after"),
    ("not-a-mapping", "- a\n- b\n", "$"),
    ("wiki-dir-escapes", "wiki_dir: ../elsewhere\n", "wiki_dir"),
    ("wiki-dir-git", "wiki_dir: .git/wiki\n", "wiki_dir"),
]


@pytest.mark.parametrize(("text", "place"), [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
def test_malformed_config(claimed, capsys, text, place):
    claimed.write(CONFIG, text)
    for argv in (*WRITERS, ("init",), ("validate",)):
        assert_refused(claimed, capsys, argv, CONFIG, place)


def test_invalid_utf8_config(claimed, capsys):
    (claimed.root / CONFIG).write_bytes(b"wiki_dir: \xff\n")
    for argv in (*WRITERS, ("init",)):
        assert_refused(claimed, capsys, argv, CONFIG)


def test_symlinked_config(claimed, capsys):
    target = claimed.root / "cfg.yml"
    target.write_text("max_growth: 3\n")
    (claimed.root / CONFIG).unlink()
    os.symlink(target, claimed.root / CONFIG)
    for argv in (*WRITERS, ("init",)):
        assert_refused(claimed, capsys, argv, CONFIG, "symlink")


@pytest.mark.parametrize("wiki_dir", ["..", "/abs", ".git", "a/../../b"])
def test_bad_wiki_dir_flag(claimed, capsys, wiki_dir):
    for argv in WRITERS:
        assert_refused(claimed, capsys, ("--wiki-dir", wiki_dir, *argv), "wiki_dir")


# -- resources given to `claim add` ----------------------------------------------------------

RESOURCE_CASES = [
    ("traversal", "repo://../x", "repo://../x"),
    ("deep-traversal", "repo://src/../../x.py#L1", "repo://src/../../x.py#L1"),
    ("absolute", "repo:///etc/passwd", "/etc/passwd"),
    ("drive", "repo://C:/x.py", "C:/x.py"),
    ("line-zero", "repo://src/app.py#L0", "#L0"),
    ("reversed", "repo://src/app.py#L5-L3", "#L5-L3"),
    ("leading-zero", "repo://src/app.py#L05", "#L05"),
    ("lowercase-l", "repo://src/app.py#l3", "#l3"),
    ("no-second-l", "repo://src/app.py#L3-5", "#L3-5"),
    ("second-hash", "repo://src/app.py#L1#L2", "second '#'"),
    ("huge-line", "repo://src/app.py#L9007199254740992", "2**53"),
    ("bad-percent", "repo://src/a%zz.py", "%-escape"),
    ("truncated-percent", "repo://src/a%2", "%-escape"),
    ("bad-utf8-percent", "repo://src/a%ff.py", "UTF-8"),
    ("control-char", "repo://src/a\x01.py", "control character"),
    ("newline", "repo://src/a\nb.py", "control character"),
    ("encoded-newline", "repo://src/a%0Ab.py", "control character"),
    ("del-char", "repo://src/a\x7f.py", "control character"),
    ("wrong-scheme", "https://example.com/x.py", "repo://"),
    ("git-dir", "repo://.GIT/HEAD", ".git"),
    ("wiki-dir", "repo://.openwiki/guide.md", "wiki"),
    ("empty-path", "repo://#L1", "inside the repository"),
]


@pytest.mark.parametrize(("resource", "needle"), [c[1:] for c in RESOURCE_CASES], ids=[c[0] for c in RESOURCE_CASES])
def test_malformed_resource_for_claim_add(claimed, capsys, resource, needle):
    argv = ("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", resource)
    assert_refused(claimed, capsys, argv, needle)
    # A good resource before the bad one does not get written either.
    argv = (*argv[:-2], "--evidence", "repo://src/app.py#L2", "--evidence", resource)
    assert_refused(claimed, capsys, argv, needle)


def test_claim_add_cites_the_same_range_twice(claimed, capsys):
    argv = ("claim", "add", "--page", "guide.md", "--statement", "X.",
            "--evidence", "repo://src/app.py#L2", "--evidence", "repo://src/app.py#L2-L2")
    assert_refused(claimed, capsys, argv, "cited twice")


@pytest.mark.parametrize("page", ["index.md", "../outside.md", ".claims/guide.md", "log.md", "a/./b.md"])
def test_claim_add_bad_page(claimed, capsys, page):
    argv = ("claim", "add", "--page", page, "--statement", "X.", "--evidence", "repo://src/app.py#L2")
    assert_refused(claimed, capsys, argv, page)


def test_empty_statement(claimed, capsys):
    argv = ("claim", "add", "--page", "guide.md", "--statement", "  ", "--evidence", "repo://src/app.py#L2")
    assert_refused(claimed, capsys, argv, "--statement")


def test_malformed_sidecar_blocks_retract(claimed, capsys):
    """A retract on one page must not go ahead while another page's sidecar is broken."""
    cid = _sidecar(claimed)["claims"][0]["id"]
    claimed.write(".openwiki/.claims/b.json", "{")
    assert_refused(claimed, capsys, ("claim", "retract", cid), ".openwiki/.claims/b.json")


def test_symlinked_page_directory_refuses_write(claimed, capsys):
    """A write through a symlinked directory is refused, and nothing is written."""
    real = claimed.root / "real-pages"
    real.mkdir()
    (real / "p.md").write_text("# P\n\nP says.\n")
    os.symlink(real, claimed.root / ".openwiki/linked")
    argv = ("claim", "add", "--page", "linked/p.md", "--statement", "P says.", "--evidence", "repo://src/app.py#L2")
    assert_refused(claimed, capsys, argv, "symlink")


def test_page_not_utf8_is_never_rewritten(claimed, capsys):
    """Rewriting a page that is not UTF-8 would replace its bytes with U+FFFD: refused instead."""
    page = claimed.root / ".openwiki/guide.md"
    page.write_bytes(page.read_bytes().replace(b"# Guide", b"# Guid\xe9"))
    assert_refused(claimed, capsys, ADD, ".openwiki/guide.md", "UTF-8")
    cid = _sidecar(claimed)["claims"][0]["id"]
    assert_refused(claimed, capsys, ("claim", "retract", cid), ".openwiki/guide.md", "UTF-8")
    # check --fix with something to rewrite on that page
    claimed.write("src/app.py", "moved\n" + claimed.read("src/app.py"))
    assert_refused(claimed, capsys, ("check", "--fix"), ".openwiki/guide.md", "UTF-8")
    rc, out, err = run(claimed, capsys, "check")  # reading is fine (b.md cites the whole file)
    assert rc == 1 and err == "" and "1 fresh, 1 stale" in out
