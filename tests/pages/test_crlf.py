"""A CRLF checkout changes no version: reading the working tree applies git's line-ending rules
(core.autocrlf, `text`/`eol` attributes), so tokens equal those of the committed (LF) text."""

from __future__ import annotations

import json
import subprocess

import pytest

from openwiki_git.evidence.tokens import file_version, lines_version, split_lines

LF_TEXT = "".join(f"def f{i}():\n    return {i}\n" for i in range(1, 21))
PAGE = "---\ntype: Reference\n---\n\n# Guide\n\n" + " ".join(f"F five returns five ({n})." for n in range(6)) + "\n"


def _claims(repo) -> list[dict]:
    return json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"]


def _add(repo, *extra: str, evidence: str = "repo://src/app.py#L9-L10") -> None:
    """A claim of its own (one claim per sentence: each add states the page's next sentence)."""
    n = len(_claims(repo)) if (repo.root / ".openwiki/.claims/guide.json").is_file() else 0
    argv = ("claim", "add", "--page", "guide.md", "--statement", f"F five returns five ({n}).", "--evidence", evidence, *extra)
    assert repo.run(*argv) == 0


def _recheckout(repo, path: str) -> bytes:
    (repo.root / path).unlink()
    repo.git("checkout", "--", path)
    return (repo.root / path).read_bytes()


def _crlf_repo(repo, mode: str):
    if mode == "autocrlf":
        repo.git("config", "core.autocrlf", "true")
    else:
        repo.write(".gitattributes", "* text=auto eol=crlf\n")
    repo.write("src/app.py", LF_TEXT)
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", PAGE)
    repo.commit_all("initial")
    data = _recheckout(repo, "src/app.py")
    assert data == LF_TEXT.replace("\n", "\r\n").encode(), "the checkout should have CRLF line endings"
    stored = subprocess.run(["git", "show", "HEAD:src/app.py"], cwd=repo.root, capture_output=True, check=True).stdout
    assert stored == LF_TEXT.encode()  # git stores LF
    assert repo.git("status", "--porcelain") == ""
    return repo


@pytest.mark.parametrize("mode", ["autocrlf", "gitattributes"])
def test_crlf_checkout_versions_equal_head(repo, capsys, mode):
    _crlf_repo(repo, mode)
    _add(repo, "--source", "HEAD")
    _add(repo)  # from the working tree (CRLF on disk)
    _add(repo, "--source", "index", evidence="repo://src/app.py")
    _add(repo, evidence="repo://src/app.py")
    head, work, index_file, work_file = _claims(repo)
    expected = lines_version(split_lines(LF_TEXT), 8, 10)
    assert head["evidence"][0]["version"] == work["evidence"][0]["version"] == expected
    assert index_file["evidence"][0]["version"] == work_file["evidence"][0]["version"] == file_version(LF_TEXT)
    blob = repo.git("rev-parse", "HEAD:src/app.py").strip()
    assert {c["evidence"][0]["blob"] for c in (head, work, index_file, work_file)} == {blob}

    for source in ("worktree", "index", "HEAD"):
        capsys.readouterr()
        assert repo.run("check", "--format", "json", "--source", source) == 0, source
        report = json.loads(capsys.readouterr().out)
        assert report["summary"]["fresh"] == 4
    # --fix has nothing to rewrite in a sidecar, and never touches the CRLF source file.
    sidecar_before = repo.read(".openwiki/.claims/guide.json")
    assert repo.run("check", "--fix") == 0
    assert repo.read(".openwiki/.claims/guide.json") == sidecar_before
    assert (repo.root / "src/app.py").read_bytes() == LF_TEXT.replace("\n", "\r\n").encode()


@pytest.mark.parametrize("mode", ["autocrlf", "gitattributes"])
def test_crlf_checkout_edit_is_stale_and_move_is_fresh(repo, capsys, mode):
    _crlf_repo(repo, mode)
    _add(repo)
    crlf = LF_TEXT.replace("\n", "\r\n")
    (repo.root / "src/app.py").write_bytes(("# header\r\n" + crlf).encode())
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 0
    ev = json.loads(capsys.readouterr().out)["claims"][0]["evidence"][0]
    assert ev["current_resource"] == "repo://src/app.py#L10-L11"
    (repo.root / "src/app.py").write_bytes(crlf.replace("return 5", "return 55").encode())
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1
    assert json.loads(capsys.readouterr().out)["claims"][0]["status"] == "stale"


def test_autocrlf_input_treats_crlf_edit_as_lf(repo, capsys):
    """core.autocrlf=input: a CRLF file in the worktree would be committed as LF."""
    repo.git("config", "core.autocrlf", "input")
    repo.write("src/app.py", LF_TEXT)
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", PAGE)
    repo.commit_all("initial")
    _add(repo)
    (repo.root / "src/app.py").write_bytes(LF_TEXT.replace("\n", "\r\n").encode())
    assert repo.run("check") == 0


def test_binary_attribute_keeps_crlf(repo, capsys):
    """`-text`: git stores the CRLF bytes, so the version is that of the CRLF text, both ways."""
    repo.git("config", "core.autocrlf", "true")
    repo.write(".gitattributes", "*.bat -text\n")
    crlf = LF_TEXT.replace("\n", "\r\n")
    (repo.root / "run.bat").write_bytes(crlf.encode())
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", PAGE)
    repo.commit_all("initial")
    stored = subprocess.run(["git", "show", "HEAD:run.bat"], cwd=repo.root, capture_output=True, check=True).stdout
    assert stored == crlf.encode()
    _add(repo, evidence="repo://run.bat#L9-L10")
    _add(repo, "--source", "HEAD", evidence="repo://run.bat#L9-L10")
    work, head = _claims(repo)
    assert work["evidence"][0]["version"] == head["evidence"][0]["version"]
    assert work["evidence"][0]["version"] == lines_version(split_lines(crlf), 8, 10)
    assert repo.run("check") == 0


def test_crlf_without_conversion_is_a_change(repo, capsys):
    """No autocrlf and no attributes: git would commit the CRLF bytes, so the text changed."""
    repo.write("src/app.py", LF_TEXT)
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", PAGE)
    repo.commit_all("initial")
    _add(repo, evidence="repo://src/app.py")
    (repo.root / "src/app.py").write_bytes(LF_TEXT.replace("\n", "\r\n").encode())
    assert repo.run("check") == 1


def test_autocrlf_keeps_a_file_already_stored_with_crlf(repo, capsys):
    """git's auto conversion never normalises a file whose index copy already has CRLF."""
    crlf = LF_TEXT.replace("\n", "\r\n")
    (repo.root / "src").mkdir()
    (repo.root / "src/app.py").write_bytes(crlf.encode())
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", PAGE)
    repo.commit_all("initial, stored with CRLF")
    repo.git("config", "core.autocrlf", "true")
    _add(repo, "--source", "HEAD")
    _add(repo)
    head, work = _claims(repo)
    assert head["evidence"][0]["version"] == work["evidence"][0]["version"]
    assert work["evidence"][0]["version"] == lines_version(split_lines(crlf), 8, 10)
    assert repo.run("check") == 0


def test_autocrlf_lone_cr_is_not_converted(repo, capsys):
    """git treats a file with a lone CR as binary for auto conversion: its bytes are kept."""
    repo.git("config", "core.autocrlf", "true")
    repo.write("src/app.py", LF_TEXT)
    assert repo.run("init") == 0
    repo.write(".openwiki/guide.md", PAGE)
    repo.commit_all("initial")
    odd = LF_TEXT.replace("\n", "\r\n").replace("return 1\r\n", "return 1\r")
    (repo.root / "src/app.py").write_bytes(odd.encode())
    repo.git("add", "src/app.py")
    stored = subprocess.run(["git", "show", ":src/app.py"], cwd=repo.root, capture_output=True, check=True).stdout
    assert stored == odd.encode()
    _add(repo, "--source", "index", evidence="repo://src/app.py")
    _add(repo, evidence="repo://src/app.py")
    index, work = _claims(repo)
    assert index["evidence"][0]["version"] == work["evidence"][0]["version"] == file_version(odd)


@pytest.mark.parametrize("data", [b"", b"a\n", b"a\r\nb", "é\n".encode(), bytes(range(256)) * 40])
def test_blob_id_is_gits(data):
    import pygit2

    from openwiki_git.git.repo import blob_id

    assert blob_id(data) == str(pygit2.hash(data))
