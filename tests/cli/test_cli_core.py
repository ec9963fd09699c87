"""The CLI core end to end, on real git repositories: init, claim add/list/show/retract, check
(text, JSON, exit codes, --fix), validate, and --help everywhere."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from openwiki_git.cli import main as main_module
from openwiki_git.evidence.tokens import file_version, lines_version, split_lines

ROOT = Path(__file__).resolve().parents[2]
CLAIM_ID = re.compile(r"^claim_[0-9a-f]{32}$")


def run(repo, capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        rc = repo.run(*argv)
    except SystemExit as e:  # argparse rejects the command line (usage error)
        rc = int(e.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def add(repo, capsys, statement: str, *evidence: str, page: str = "guide.md", extra: tuple[str, ...] = ()) -> str:
    argv = ["claim", "add", "--page", page, "--statement", statement, *extra]
    for ev in evidence:
        argv += ["--evidence", ev]
    rc, out, err = run(repo, capsys, *argv)
    assert rc == 0, err
    claim_id = out.splitlines()[0]
    assert CLAIM_ID.match(claim_id), out
    return claim_id


def sidecar(repo, page: str = "guide") -> dict:
    return json.loads(repo.read(f".openwiki/.claims/{page}.json"))


def check_json(repo, capsys, *extra: str) -> tuple[int, dict]:
    rc, out, err = run(repo, capsys, "check", "--format", "json", *extra)
    data = json.loads(out)
    schema = json.loads((ROOT / "schemas" / "check-report.schema.json").read_text("utf-8"))
    Draft202012Validator(schema).validate(data)
    return rc, data


def lines_token(text: str, start: int, end: int) -> str:
    return lines_version(split_lines(text), start - 1, end)


SRC = "".join(f"line {i}\n" for i in range(1, 41))


# -- init ------------------------------------------------------------------------------------


def test_init_creates_layout_and_is_idempotent(repo, capsys):
    rc, out, _ = run(repo, capsys, "init")
    assert rc == 0
    assert {".openwiki/config.yml", ".openwiki/index.md", ".openwiki/.claims/.gitkeep"} <= set(repo.snapshot())
    assert 'okf_version: "0.2"' in repo.read(".openwiki/index.md")
    assert "created .openwiki/config.yml" in out
    before = repo.snapshot()
    rc, out, _ = run(repo, capsys, "init")
    assert rc == 0
    assert "nothing changed" in out
    assert repo.snapshot() == before


def test_init_never_overwrites(repo, capsys):
    repo.write(".openwiki/config.yml", "# mine\nmax_growth: 7\n")
    repo.write(".openwiki/index.md", "---\nokf_version: \"0.2\"\n---\n\nMy own index.\n")
    rc, out, _ = run(repo, capsys, "init")
    assert rc == 0
    assert repo.read(".openwiki/config.yml") == "# mine\nmax_growth: 7\n"
    assert "My own index." in repo.read(".openwiki/index.md")
    assert out.count("created ") == 1  # only .claims/.gitkeep


# -- claim add -------------------------------------------------------------------------------


def test_claim_add_records_token_marker_and_definition(wiki_repo, capsys):
    cid = add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10-L12")
    data = sidecar(wiki_repo)
    assert data["schemaVersion"] == 1
    [claim] = data["claims"]
    assert claim["id"] == cid and claim["statement"] == "Line ten says ten."
    assert claim["evidence"][0]["resource"] == "repo://src/app.py#L10-L12"
    assert claim["evidence"][0]["version"] == lines_token(SRC, 10, 12)
    page = wiki_repo.read(".openwiki/guide.md")
    label = "c-" + cid.removeprefix("claim_")[:8]
    assert f"Line ten says ten.[^{label}]" in page
    assert f"[^{label}]: [src/app.py#L10-L12](../src/app.py#L10-L12)" in page


def test_claim_add_canonicalises_single_line_and_whole_file(wiki_repo, capsys):
    add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L8", "repo://src\\app.py")
    ev = sidecar(wiki_repo)["claims"][0]["evidence"]
    assert [e["resource"] for e in ev] == ["repo://src/app.py#L8-L8", "repo://src/app.py"]
    assert ev[1]["version"] == file_version(SRC)


def test_claim_add_statement_not_in_page_asks_for_marker(wiki_repo, capsys):
    rc, out, _ = run(
        wiki_repo, capsys, "claim", "add", "--page", "guide.md", "--statement", "Elsewhere.",
        "--evidence", "repo://src/app.py#L1",
    )
    assert rc == 0
    assert "put [^c-" in out
    rc, out, _ = run(wiki_repo, capsys, "check")
    assert rc == 1
    assert "is missing from the page's prose" in out


def test_claim_add_untracked_file_names_it(wiki_repo, capsys):
    wiki_repo.write("src/new.py", "x = 1\n")
    before = wiki_repo.snapshot()
    rc, out, err = run(wiki_repo, capsys, "claim", "add", "--page", "guide.md", "--statement", "X.",
                       "--evidence", "repo://src/new.py#L1")
    assert rc == 2 and out == ""
    assert "src/new.py" in err and "not tracked" in err and "git add src/new.py" in err
    assert wiki_repo.snapshot() == before


@pytest.mark.parametrize(
    ("setup", "resource", "needle"),
    [
        ("symlink", "repo://src/link.py#L1", "symlink"),
        ("dir-symlink", "repo://lib/x.py#L1", "through a symlink"),
        ("binary", "repo://src/blob.bin#L1", "binary"),
        ("none", "repo://src/app.py#L39-L41", "past the end"),
        ("none", "repo://src/app.py#L41", "past the end"),
        ("none", "repo://src/gone.py#L1", "src/gone.py"),
        ("none", "repo://.openwiki/guide.md#L1", "wiki"),
        ("none", "repo://.git/config", ".git"),
    ],
)
def test_claim_add_refusals(wiki_repo, capsys, setup, resource, needle):
    if setup == "symlink":
        os.symlink("app.py", wiki_repo.root / "src" / "link.py")
        wiki_repo.commit_all("link")
    elif setup == "dir-symlink":
        wiki_repo.write("lib/x.py", "x = 1\n")
        wiki_repo.commit_all("lib")
        (wiki_repo.root / "lib").rename(wiki_repo.root / "lib_real")
        os.symlink("lib_real", wiki_repo.root / "lib")
    elif setup == "binary":
        (wiki_repo.root / "src" / "blob.bin").write_bytes(b"abc\0def\n")
        wiki_repo.commit_all("binary")
    before = wiki_repo.snapshot()
    rc, out, err = run(wiki_repo, capsys, "claim", "add", "--page", "guide.md", "--statement", "X.",
                       "--evidence", resource)
    assert rc == 2, err
    assert needle in err
    assert "Traceback" not in err and err.startswith("error: ")
    assert len([ln for ln in err.splitlines() if not ln.startswith("hint: ")]) == 1
    assert wiki_repo.snapshot() == before


def test_claim_add_source_index_and_head(wiki_repo, capsys):
    index_text = SRC.replace("line 10\n", "staged ten\n")
    work_text = SRC.replace("line 10\n", "worktree ten\n")
    wiki_repo.write("src/app.py", index_text)
    wiki_repo.git("add", "src/app.py")
    wiki_repo.write("src/app.py", work_text)

    add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10", extra=("--source", "index"))
    add(wiki_repo, capsys, "Head.", "repo://src/app.py#L10", extra=("--source", "HEAD"))
    add(wiki_repo, capsys, "Work.", "repo://src/app.py#L10")
    versions = [c["evidence"][0]["version"] for c in sidecar(wiki_repo)["claims"]]
    assert versions == [lines_token(index_text, 10, 10), lines_token(SRC, 10, 10), lines_token(work_text, 10, 10)]
    # Checked against each source, only the claim taken from it is fresh.
    for source, fresh in (("index", 0), ("HEAD", 1), ("worktree", 2)):
        _, data = check_json(wiki_repo, capsys, "--source", source)
        assert [c["status"] == "fresh" for c in data["claims"]] == [i == fresh for i in range(3)], source


def test_claim_add_unknown_revision(wiki_repo, capsys):
    before = wiki_repo.snapshot()
    rc, _, err = run(wiki_repo, capsys, "claim", "add", "--page", "guide.md", "--statement", "X.",
                     "--evidence", "repo://src/app.py#L1", "--source", "no-such-rev")
    assert rc == 2 and "no-such-rev" in err
    assert wiki_repo.snapshot() == before


def test_claim_add_missing_page(wiki_repo, capsys):
    rc, _, err = run(wiki_repo, capsys, "claim", "add", "--page", "nope.md", "--statement", "X.",
                     "--evidence", "repo://src/app.py#L1")
    assert rc == 2 and ".openwiki/nope.md" in err


def test_claim_ids_unique_across_pages(wiki_repo, capsys):
    wiki_repo.write(".openwiki/sub/other.md", "# Other\n\nOther says one.\n")
    ids = {add(wiki_repo, capsys, f"Line {i} is cited.", f"repo://src/app.py#L{i}") for i in range(1, 6)}
    ids |= {add(wiki_repo, capsys, "Other says one.", "repo://src/app.py#L1", page="sub/other.md")}
    assert len(ids) == 6
    assert (wiki_repo.root / ".openwiki/.claims/sub/other.json").is_file()


# -- list / show / retract -------------------------------------------------------------------


def test_list_show_retract(wiki_repo, capsys):
    wiki_repo.write(".openwiki/guide.md", wiki_repo.read(".openwiki/guide.md").replace("ten.\n", "ten. Line twenty says twenty.\n"))
    cid = add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10-L11")
    other = add(wiki_repo, capsys, "Line twenty says twenty.", "repo://src/app.py#L20")

    rc, out, _ = run(wiki_repo, capsys, "claim", "list")
    assert rc == 0
    assert f".openwiki/guide.md: {cid}: Line ten says ten." in out.splitlines()
    rc, out, _ = run(wiki_repo, capsys, "claim", "list", "--format", "json")
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [cid, other]
    assert rows[0]["evidence"][0]["resource"] == "repo://src/app.py#L10-L11"

    rc, out, _ = run(wiki_repo, capsys, "claim", "show", cid)
    assert rc == 0
    assert "fresh: src/app.py#L10-L11 -> now src/app.py#L10-L11 (unchanged)" in out
    assert "   10 | line 10" in out and "   11 | line 11" in out
    rc, out, _ = run(wiki_repo, capsys, "claim", "show", cid.removeprefix("claim_")[:10], "--format", "json")
    assert json.loads(out)["evidence_status"][0]["status"] == "fresh"

    rc, out, _ = run(wiki_repo, capsys, "claim", "retract", cid)
    assert rc == 0 and cid in out
    page = wiki_repo.read(".openwiki/guide.md")
    assert "c-" + cid[6:14] not in page
    assert "c-" + other[6:14] in page
    assert [c["id"] for c in sidecar(wiki_repo)["claims"]] == [other]

    run(wiki_repo, capsys, "claim", "retract", other)
    data = sidecar(wiki_repo)
    assert data["claims"] == [] and "verification" not in data
    assert "openwiki-git:citations" not in wiki_repo.read(".openwiki/guide.md")
    rc, _, err = run(wiki_repo, capsys, "claim", "show", other)
    assert rc == 2 and "does not exist" in err


def test_show_unknown_and_ambiguous(wiki_repo, capsys):
    rc, _, err = run(wiki_repo, capsys, "claim", "show", "claim_" + "0" * 32)
    assert rc == 2 and "does not exist" in err
    rc, _, err = run(wiki_repo, capsys, "claim", "retract", "abc")
    assert rc == 2


# -- check -----------------------------------------------------------------------------------


def test_check_exit_codes_and_reports(wiki_repo, capsys):
    rc, out, err = run(wiki_repo, capsys, "check")
    assert rc == 1 and "0 claims" in out and err.startswith("nothing to check: ")  # never a silent green
    cid = add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10-L12")
    rc, data = check_json(wiki_repo, capsys)
    assert rc == 0
    assert data["summary"] == {"total": 1, "fresh": 1, "stale": 0, "unresolved": 0, "missing_markers": 0, "due": 0}
    [c] = data["claims"]
    assert c["id"] == cid and c["page"] == "guide.md" and c["page_path"] == ".openwiki/guide.md"
    assert c["evidence"] == [
        {"resource": "repo://src/app.py#L10-L12", "status": "fresh",
         "current_resource": "repo://src/app.py#L10-L12", "reason": "unchanged"}
    ]

    wiki_repo.write("src/app.py", SRC.replace("line 11\n", "line eleven\n"))
    rc, out, _ = run(wiki_repo, capsys, "check")
    assert rc == 1
    line = next(n for n, text in enumerate(wiki_repo.read(".openwiki/guide.md").splitlines(), 1) if "Line ten says ten." in text)
    assert f".openwiki/guide.md:{line} c-{cid[6:14]} stale Line ten says ten.\n" in out
    assert "1 claims: 0 fresh, 1 stale, 0 unresolved" in out
    rc, data = check_json(wiki_repo, capsys)
    assert rc == 1 and data["summary"]["stale"] == 1

    wiki_repo.write("src/app.py", "".join(f"other {i}\n" for i in range(40)))
    rc, data = check_json(wiki_repo, capsys)
    assert rc == 1 and data["claims"][0]["status"] == "unresolved"
    assert data["claims"][0]["evidence"][0]["current_resource"] is None

    (wiki_repo.root / "src/app.py").unlink()
    rc, out, _ = run(wiki_repo, capsys, "check")
    assert rc == 1 and "unresolved" in out and "missing" in out

    for argv in (("check", "--source", "no-such-rev"), ("check", "--format", "xml"), ("check", "--bogus")):
        rc, out, err = run(wiki_repo, capsys, *argv)
        assert rc == 2, argv
        assert "Traceback" not in err


def test_check_outside_a_repository(tmp_path, capsys):
    from openwiki_git.cli.main import main

    rc = main(["-C", str(tmp_path), "check"])
    _, err = capsys.readouterr()
    assert rc == 2 and "not inside a git repository" in err


def test_check_moved_range_fresh_and_fix_rewrites(wiki_repo, capsys):
    cid = add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10-L12")
    wiki_repo.commit_all("claim")
    moved = "header 1\nheader 2\n" + SRC
    wiki_repo.write("src/app.py", moved)
    rc, data = check_json(wiki_repo, capsys)
    assert rc == 0
    ev = data["claims"][0]["evidence"][0]
    assert ev["current_resource"] == "repo://src/app.py#L12-L14" and "moved" in ev["reason"]

    rc, _, err = run(wiki_repo, capsys, "check", "--fix")
    assert rc == 0 and "Rewriting .openwiki/.claims/guide.json" in err
    [claim] = sidecar(wiki_repo)["claims"]
    assert claim["evidence"][0]["resource"] == "repo://src/app.py#L12-L14"
    assert claim["evidence"][0]["version"] == lines_token(moved, 12, 14)  # anchors refreshed
    assert "mark" not in claim
    page = wiki_repo.read(".openwiki/guide.md")
    assert "(../src/app.py#L12-L14)" in page and "#L10-L12" not in page
    # A second fix has nothing to do.
    before = wiki_repo.snapshot()
    rc, _, err = run(wiki_repo, capsys, "check", "--fix")
    assert rc == 0 and err == "" and wiki_repo.snapshot() == before
    assert cid


def test_fix_marks_stale_keeps_version_and_revert_clears(wiki_repo, capsys):
    add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10-L12")
    verified = sidecar(wiki_repo)["claims"][0]["evidence"][0]["version"]
    wiki_repo.write("src/app.py", "top\n" + SRC.replace("line 11\n", "line eleven\n"))

    rc, _, _ = run(wiki_repo, capsys, "check", "--fix")
    assert rc == 1
    [claim] = sidecar(wiki_repo)["claims"]
    ev = claim["evidence"][0]
    assert ev["resource"] == "repo://src/app.py#L11-L13"  # line numbers follow the text
    assert ev["version"] == verified  # the verified version is kept
    assert claim["mark"]["status"] == "stale"
    assert claim["mark"]["causes"][0]["oldLines"] == [10, 12]
    assert claim["mark"]["causes"][0]["newLines"] == [11, 13]
    assert "⚠ stale" in wiki_repo.read(".openwiki/guide.md")
    rc, data = check_json(wiki_repo, capsys)
    assert rc == 1 and data["claims"][0]["mark"]["status"] == "stale"

    # A second fix keeps the mark and its timestamp.
    since = claim["mark"]["since"]
    assert run(wiki_repo, capsys, "check", "--fix")[0] == 1
    assert sidecar(wiki_repo)["claims"][0]["mark"]["since"] == since

    # Revert: the text is back to what was verified; check still says stale until --fix.
    wiki_repo.write("src/app.py", "top\n" + SRC)
    rc, out, _ = run(wiki_repo, capsys, "check")
    assert rc == 1 and "back to its verified version" in out
    rc, _, _ = run(wiki_repo, capsys, "check", "--fix")
    assert rc == 0
    claim = sidecar(wiki_repo)["claims"][0]
    assert "mark" not in claim
    assert "⚠" not in wiki_repo.read(".openwiki/guide.md")
    assert run(wiki_repo, capsys, "check")[0] == 0


def test_fix_marks_unresolved(wiki_repo, capsys):
    add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10-L12")
    original = sidecar(wiki_repo)["claims"][0]["evidence"][0]
    wiki_repo.write("src/app.py", "nothing\n")
    rc, _, _ = run(wiki_repo, capsys, "check", "--fix")
    assert rc == 1
    claim = sidecar(wiki_repo)["claims"][0]
    assert claim["mark"]["status"] == "unresolved"
    assert claim["evidence"][0] == original


def test_missing_marker_reported(wiki_repo, capsys):
    cid = add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10")
    page = wiki_repo.read(".openwiki/guide.md")
    label = "[^c-" + cid[6:14] + "]"
    wiki_repo.write(".openwiki/guide.md", page.replace("ten." + label, "ten.", 1))
    rc, out, _ = run(wiki_repo, capsys, "check")
    assert rc == 1
    assert f".openwiki/guide.md c-{cid[6:14]} no-marker Line ten says ten.\n    marker {label} is missing from the page's prose\n" in out
    rc, data = check_json(wiki_repo, capsys)
    assert data["summary"]["missing_markers"] == 1 and data["claims"][0]["marker_present"] is False


def test_check_page_filter(wiki_repo, capsys):
    wiki_repo.write(".openwiki/b.md", "# B\n\nB one.\n")
    add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10")
    add(wiki_repo, capsys, "B one.", "repo://src/app.py#L1", page="b.md")
    _, data = check_json(wiki_repo, capsys, "--page", "b.md")
    assert [c["page"] for c in data["claims"]] == ["b.md"]


# -- validate --------------------------------------------------------------------------------


def test_validate_clean_and_problems(wiki_repo, capsys):
    add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10")
    rc, out, _ = run(wiki_repo, capsys, "validate")
    assert rc == 0, out
    data = sidecar(wiki_repo)
    del data["claims"][0]["statement"]
    data["claims"][0]["evidence"][0]["resource"] = "file://x"
    wiki_repo.write(".openwiki/.claims/guide.json", json.dumps(data))
    wiki_repo.write(".openwiki/.claims/orphan.json", json.dumps({"schemaVersion": 1, "pageVersion": "sha256:" + "0" * 64, "claims": []}))
    rc, out, _ = run(wiki_repo, capsys, "validate")
    assert rc == 1
    problems = out.splitlines()[:-1]
    assert len(problems) >= 3
    for line in problems:
        assert re.match(r"^\.openwiki/\.claims/[\w/]+\.json: \$[^:]*: \S.*$", line), line
    assert any("statement" in ln for ln in problems)
    assert any(ln.startswith(".openwiki/.claims/guide.json: $.claims[0].evidence[0].resource: ") for ln in problems)
    assert any("orphan" in ln for ln in problems)


# -- help ------------------------------------------------------------------------------------


def _subparsers(parser: argparse.ArgumentParser) -> list[tuple[list[str], argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.append(([name], sub))
                out.extend(([name, *path], p) for path, p in _subparsers(sub))
    return out


def test_every_command_and_subcommand_has_help(capsys):
    parser = main_module.build_parser()
    found = _subparsers(parser)
    names = {path[0] for path, _ in found}
    assert set(main_module.COMMANDS) <= names
    assert ["claim", "add"] in [p for p, _ in found] and ["claim", "retract"] in [p for p, _ in found]
    for path, _ in found:
        with pytest.raises(SystemExit) as exc:
            main_module.main([*path, "--help"])
        assert exc.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith("usage: openwiki-git " + " ".join(path)), path


def test_console_script_help_lists_commands():
    proc = subprocess.run([sys.executable, "-m", "openwiki_git", "--help"], capture_output=True, text=True, check=True)
    for name in main_module.COMMANDS:
        assert name in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "openwiki_git"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["check"], "check"),
        (["-C", "/x", "--wiki-dir", "w", "-v", "check", "--fix"], "check"),
        (["--wiki-dir=w", "claim", "list", "--page", "p.md"], "claim"),
        (["-C", "check", "claim", "list"], "claim"),  # -C's value is not the command
        (["-vC", "claim", "check"], None),  # combined flags: the full parser decides
        (["--help"], None),
        (["chek"], None),
        ([], None),
    ],
)
def test_only_the_named_command_is_loaded(argv, named):
    assert main_module.command_named(argv) == named
    if named is None:
        return
    full = vars(main_module.build_parser().parse_args(argv))
    lazy = vars(main_module.build_parser(named).parse_args(argv))
    assert {k: v for k, v in lazy.items() if k != "run"} == {k: v for k, v in full.items() if k != "run"}
    assert lazy["run"].__qualname__ == full["run"].__qualname__


def test_fix_with_page_touches_only_that_page(wiki_repo, capsys):
    wiki_repo.write(".openwiki/b.md", "# B\n\nB one.\n")
    add(wiki_repo, capsys, "Line ten says ten.", "repo://src/app.py#L10")
    add(wiki_repo, capsys, "B one.", "repo://src/app.py#L1", page="b.md")
    wiki_repo.write("src/app.py", "top\n" + SRC)
    # b.md's generated block is out of date too (edited by hand)
    b_page = wiki_repo.read(".openwiki/b.md").replace("](../src/app.py#L1-L1)", "](elsewhere)")
    wiki_repo.write(".openwiki/b.md", b_page)
    b_sidecar = wiki_repo.read(".openwiki/.claims/b.json")
    rc, _, err = run(wiki_repo, capsys, "check", "--fix", "--page", "guide.md")
    assert rc == 0, err
    assert sidecar(wiki_repo)["claims"][0]["evidence"][0]["resource"] == "repo://src/app.py#L11-L11"
    assert wiki_repo.read(".openwiki/b.md") == b_page
    assert wiki_repo.read(".openwiki/.claims/b.json") == b_sidecar


def test_dash_c_makes_relative_paths_relative_to_dir(wiki_repo, capsys, tmp_path, monkeypatch):
    """Like `git -C`: a page named relative to DIR is found, whatever the process's cwd."""
    from openwiki_git.cli.main import main

    wiki_repo.write(".openwiki/sub/x.md", "# X\n\nX says.\n")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".openwiki").mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    capsys.readouterr()
    rc = main(["-C", str(wiki_repo.root / ".openwiki" / "sub"), "claim", "add", "--page", "x.md",
               "--statement", "X says.", "--evidence", "repo://src/app.py#L1"])
    assert rc == 0, capsys.readouterr().err
    assert (wiki_repo.root / ".openwiki/.claims/sub/x.json").is_file()
    assert Path.cwd() == elsewhere  # restored
    rc = main(["-C", str(tmp_path / "missing"), "check"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: -C ") and "No such file or directory" in err
