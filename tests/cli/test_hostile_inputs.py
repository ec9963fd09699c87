"""Hostile input, by class: every case runs the real CLI in a subprocess against a real repository
and must come out clean: the exit code the contract names, at most a one-line `error:` (plus a
`hint:`) naming the file, no traceback, not one byte of the work tree changed, and no hang (the
subprocess is killed after 30 s: a bound on hangs, not a timing assertion).

Classes (issue 11): silent passes, hangs on bombs and held locks, exit 3 where exit 2 belongs,
bytes changed where nothing should be."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.repo import GitRepo

HANG_BOUND = 30  # seconds; the bound for "no hang"
GUIDE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\nLine ten says ten.\n"


def cli(root: Path, *argv: str | bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "openwiki_git", *argv],
        cwd=root,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=HANG_BOUND,
    )


def tree_digest(root: Path) -> dict[str, str]:
    """Every path of the work tree (outside .git) with a digest of its bytes, or `dir`/`link`."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) == root and d == ".git")]
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            key = os.fsencode(p.relative_to(root)).hex()
            if p.is_symlink():
                out[key] = "link:" + os.readlink(p)
            elif p.is_dir():
                out[key] = "dir"
            else:
                out[key] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@dataclass
class Case:
    name: str
    setup: Callable[[GitRepo], None]
    argv: tuple[str | bytes, ...]
    code: int = 2
    names: str = ""  # what the error line must mention (a file, an option)
    env: dict[str, str] = field(default_factory=dict)


def claim(repo: GitRepo, statement: str = "Line ten says ten.", page: str = "guide.md") -> str:
    p = cli(repo.root, "claim", "add", "--page", page, "--statement", statement, "--evidence", "repo://src/app.py#L10")
    assert p.returncode == 0, p.stderr
    return p.stdout.decode().split()[0]


def with_claim(repo: GitRepo) -> None:
    claim(repo)
    repo.commit_all("claim")


def nothing(repo: GitRepo) -> None:
    return None


def config(text: str) -> Callable[[GitRepo], None]:
    def setup(repo: GitRepo) -> None:
        repo.write(".openwiki/config.yml", text)
        repo.commit_all("config")

    return setup


def front_matter(yaml: str) -> Callable[[GitRepo], None]:
    def setup(repo: GitRepo) -> None:
        repo.write(".openwiki/guide.md", f"---\n{yaml}---\n\n# Guide\n\nLine ten says ten.\n")
        repo.git("add", "-A")

    return setup


def both(*setups: Callable[[GitRepo], None]) -> Callable[[GitRepo], None]:
    def setup(repo: GitRepo) -> None:
        for step in setups:
            step(repo)

    return setup


def claimed_page_front_matter(yaml: str) -> Callable[[GitRepo], None]:
    """A page with a committed claim whose front matter is then replaced, and a staged source edit."""

    def setup(repo: GitRepo) -> None:
        with_claim(repo)
        page = repo.read(".openwiki/guide.md")
        repo.write(".openwiki/guide.md", f"---\n{yaml}---\n" + page.split("---\n", 2)[2])
        repo.write("src/app.py", "# new first line\n" + repo.read("src/app.py"))
        repo.git("add", "-A")

    return setup


def sidecar_text(text: str) -> Callable[[GitRepo], None]:
    def setup(repo: GitRepo) -> None:
        repo.write(".openwiki/.claims/guide.json", text)

    return setup


def duplicate_ids(repo: GitRepo) -> None:
    claim(repo)
    repo.write(".openwiki/other.md", GUIDE.replace("Guide", "Other"))
    sidecar = repo.read(".openwiki/.claims/guide.json").replace('"pageVersion"', '"pageVersion"')
    repo.write(".openwiki/.claims/other.json", sidecar)
    repo.commit_all("two pages, one id")
    repo.write("src/app.py", repo.read("src/app.py").replace("line 10\n", "line ten\n"))
    repo.git("add", "-A")


def no_wiki(repo: GitRepo) -> None:
    repo.git("rm", "-r", "-q", ".openwiki")
    import shutil

    shutil.rmtree(repo.root / ".openwiki", ignore_errors=True)
    repo.commit_all("no wiki")


def wiki_link_outside(repo: GitRepo) -> None:
    outside = repo.root.parent / "elsewhere"
    outside.mkdir()
    repo.write(".openwiki/config.yml", "wiki_dir: docs/wiki\n")
    (repo.root / "docs").mkdir()
    (repo.root / "docs/wiki").symlink_to(outside)
    repo.commit_all("linked wiki")


def corrupt_head(repo: GitRepo) -> None:
    (repo.root / ".git/HEAD").write_bytes(b"garbage\n")


def garbage_file(repo: GitRepo) -> None:
    (repo.root / ".git/garbage").write_bytes(b"not an index at all\n" * 10)
    (repo.root / "garbage").symlink_to(repo.root / ".git/garbage")


def missing_object(repo: GitRepo) -> None:
    """HEAD's blob of the cited file is gone (a damaged object store), and an edit is staged."""
    with_claim(repo)
    blob = repo.git("rev-parse", "HEAD:src/app.py").strip()
    (repo.root / ".git/objects" / blob[:2] / blob[2:]).unlink()
    repo.write("src/app.py", "# new first line\n" + repo.read("src/app.py"))
    repo.git("add", "src/app.py")


def corrupt_index(repo: GitRepo) -> None:
    (repo.root / ".git/index").write_bytes(b"DIRC" + os.urandom(64))


def sidecar_is_directory(repo: GitRepo) -> None:
    (repo.root / ".openwiki/.claims/guide.json").mkdir(parents=True)


def claims_is_file(repo: GitRepo) -> None:
    import shutil

    shutil.rmtree(repo.root / ".openwiki/.claims")
    repo.write(".openwiki/.claims", "not a directory\n")


def bad_file_name(repo: GitRepo) -> None:
    (repo.root / ".openwiki").joinpath(os.fsdecode(b"bad\xff.md")).write_bytes(GUIDE.encode())


def bad_sidecar_name(repo: GitRepo) -> None:
    (repo.root / ".openwiki/.claims").joinpath(os.fsdecode(b"bad\xff.json")).write_bytes(b"{}")


def latin1_sidecar(repo: GitRepo) -> None:
    """A sidecar whose bytes are not UTF-8 and cite no document, committed before the range (check
    --base's byte test for cited documents leaves it unparsed, and must still refuse it)."""
    claim(repo)
    (repo.root / ".openwiki/.claims/other.json").write_bytes(b'{"schemaVersion": 1, "claims": [], "note": "caf\xe9"}\n')
    repo.commit_all("a sidecar in Latin-1")
    repo.write("notes.txt", "a change no claim cites\n")
    repo.commit_all("the range")


def config_is_directory(repo: GitRepo) -> None:
    (repo.root / ".openwiki/config.yml").unlink()
    (repo.root / ".openwiki/config.yml").mkdir()


def crlf_page(repo: GitRepo, *, linted: bool = False) -> None:
    claim(repo)
    if linted:
        assert cli(repo.root, "lint", "--fix").returncode in (0, 1)
    page = repo.root / ".openwiki/guide.md"
    page.write_bytes(page.read_bytes().replace(b"\n", b"\r\n"))
    repo.git("-c", "core.autocrlf=false", "add", "-A")
    repo.git("-c", "core.autocrlf=false", "commit", "-q", "-m", "crlf page")


BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9)
)
DEEP_YAML = "type: Reference\nx: " + "[" * 10_000 + "]" * 10_000 + "\n"
DEEP_JSON = '{"schemaVersion": 1, "pageVersion": ' + "[" * 100_000 + "]" * 100_000 + ', "claims": []}\n'
SURROGATE = (
    '{"schemaVersion": 1, "pageVersion": "sha256:' + "0" * 64 + '", "claims": [{"id": "claim_' + "0" * 32 + '", '
    '"statement": "x \\ud800", "evidence": [{"resource": "repo://src/app.py#L10-L10", '
    '"version": "repo-lines-v1:sha256:' + "0" * 64 + ':abc"}]}]}\n'
)

CASES = [
    # silent passes
    Case("typo --wiki-dir", nothing, ("--wiki-dir", ".openwik", "check"), names=".openwik"),
    Case("typo --wiki-dir after the command", nothing, ("check", "--wiki-dir", ".openwik"), names=".openwik"),
    Case("config wiki_dir missing", config("wiki_dir: docs/wiki\n"), ("lint",), names="docs/wiki"),
    Case("validate, typo wiki dir", nothing, ("--wiki-dir", "nowiki", "validate"), names="nowiki"),
    Case("--page naming no page", nothing, ("check", "--page", "nosuch.md"), names="nosuch.md"),
    Case("no wiki at all", no_wiki, ("check",), names="openwiki-git init"),
    Case("no wiki, hook", no_wiki, ("hook",), names="openwiki-git init"),
    Case("duplicate ids: validate", duplicate_ids, ("validate",), code=1, names="is also on page"),
    Case("duplicate ids: hook", duplicate_ids, ("hook",), names="other"),
    Case("duplicate ids: hook --check", duplicate_ids, ("hook", "--check"), names="other"),
    Case("wiki dir linked outside", wiki_link_outside, ("hook",), names="docs/wiki"),
    Case("corrupt HEAD", corrupt_head, ("check",), names="HEAD"),
    Case("corrupt HEAD, hook", corrupt_head, ("hook",), names="HEAD"),
    # hangs
    Case("alias bomb: validate", front_matter(BILLION_LAUGHS), ("validate",), code=1, names="guide.md:2: front matter: aliases expand"),
    Case("alias cycle: validate", front_matter("type: Reference\na: &a [*a, *a]\n"), ("validate",), code=0, names="0 problem(s)"),
    Case("alias bomb: lint", front_matter(BILLION_LAUGHS), ("lint",), code=1, names="guide.md:2: front-matter"),
    Case("alias bomb: hook", claimed_page_front_matter(BILLION_LAUGHS), ("hook",), names="guide.md"),
    Case("deep front matter: hook", claimed_page_front_matter(DEEP_YAML), ("hook",), names="guide.md"),
    Case(
        "alias bomb: claim add",
        front_matter(BILLION_LAUGHS),
        ("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10"),
        names="guide.md",
    ),
    Case(
        "2 MiB front matter: claim add",
        front_matter("type: Reference\n" + "k: " + "v" * (2 << 20) + "\n"),
        ("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10"),
        names="guide.md",
    ),
    Case("alias bomb: config", config(BILLION_LAUGHS), ("check",), names="config.yml"),
    Case("10k-deep YAML config", config(DEEP_YAML), ("check",), names="config.yml"),
    Case("huge config", config("wiki_dir: .openwiki\n" + "# " + "x" * (2 << 20) + "\n"), ("check",), names="config.yml"),
    # exit 3 where exit 2 belongs
    Case("lone surrogate in a sidecar", sidecar_text(SURROGATE), ("check",), names="guide.json"),
    Case("lone surrogate, validate", sidecar_text(SURROGATE), ("validate",), code=1, names="surrogate"),
    Case("100k-deep JSON sidecar: validate", sidecar_text(DEEP_JSON), ("validate",), code=1, names="nested"),
    Case("100k-deep JSON sidecar: check", sidecar_text(DEEP_JSON), ("check",), names="guide.json"),
    Case("sidecar is a directory", sidecar_is_directory, ("check",), names="guide.json"),
    Case("sidecar is a directory: validate", sidecar_is_directory, ("validate",), names="guide.json"),
    Case("sidecar is a directory: hook", sidecar_is_directory, ("hook",), names="guide.json"),
    Case("sidecar is a directory: lint", sidecar_is_directory, ("lint",), names="guide.json"),
    Case(
        "sidecar is a directory: claim add",
        sidecar_is_directory,
        ("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10"),
        names="guide.json",
    ),
    Case("claims dir is a file", claims_is_file, ("check",), names=".claims"),
    Case("non-UTF-8 sidecar name: check", bad_sidecar_name, ("check",), names="bad"),
    Case("non-UTF-8 page name: validate", bad_file_name, ("validate",), names="bad"),
    Case("non-UTF-8 page name: lint", bad_file_name, ("lint",), names="bad"),
    Case(
        "non-UTF-8 --statement",
        nothing,
        ("claim", "add", "--page", "guide.md", "--statement", b"caf\xe9", "--evidence", "repo://src/app.py#L10"),
        names="--statement",
    ),
    Case("corrupt index: hook", corrupt_index, ("hook",), names="index"),
    Case("corrupt index: check --source index", both(with_claim, corrupt_index), ("check", "--source", "index"), names="index"),
    Case("missing GIT_INDEX_FILE", with_claim, ("hook",), names="GIT_INDEX_FILE", env={"GIT_INDEX_FILE": "/dev/null/x"}),
    Case("garbage GIT_INDEX_FILE", both(with_claim, garbage_file), ("hook",), names="garbage", env={"GIT_INDEX_FILE": "garbage"}),
    Case("object missing from the store: hook", missing_object, ("hook",), names="git fsck"),
    Case("object missing from the store: check --base", missing_object, ("check", "--base", "HEAD~1"), names="git fsck"),
    Case("non-UTF-8 sidecar bytes: check --base", latin1_sidecar, ("check", "--base", "HEAD~1"), names="other.json"),
    Case("-C to a non-repository", nothing, ("-C", "/", "check"), names="/"),
    Case("GIT_DIR naming nothing", nothing, ("check",), names="GIT_DIR", env={"GIT_DIR": "/nonexistent"}),
    Case("wiki_dir with a NUL", config('wiki_dir: "a\\0b"\n'), ("check",), names="config.yml"),
    Case("wiki_dir inside .claims", config("wiki_dir: .openwiki/.claims\n"), ("check",), names="config.yml"),
    Case("wiki_dir names a file", config("wiki_dir: src/app.py\n"), ("lint",), names="src/app.py"),
    Case("config.yml is a directory", config_is_directory, ("check",), names="config.yml"),
    Case("merge driver given a missing file", nothing, ("merge-driver", "/nonexistent", "a", "b", "c.md"), names="/nonexistent"),
    # bytes changed where nothing should be: exit 0 and zero bytes changed
    Case("hook, CRLF page, nothing staged", crlf_page, ("hook",), code=0),
    Case("check --fix, CRLF page", crlf_page, ("check", "--fix"), code=0),
    Case("lint --fix, CRLF page", lambda repo: crlf_page(repo, linted=True), ("lint", "--fix"), code=0),
    Case("hook --all-files, CRLF page", crlf_page, ("hook", "--from-ref", "HEAD~1", "--to-ref", "HEAD"), code=0),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_comes_out_clean(wiki_repo: GitRepo, case: Case) -> None:
    case.setup(wiki_repo)
    before = tree_digest(wiki_repo.root)
    p = cli(wiki_repo.root, *case.argv, env=case.env)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == case.code, (p.returncode, err, p.stdout[-2000:])
    assert "Traceback" not in err and "unexpected" not in err, err
    if case.code == 2:
        lines = err.splitlines()
        assert lines and lines[0].startswith("error: ") and all(x.startswith("hint: ") for x in lines[1:]), err
    assert case.names in err + p.stdout.decode("utf-8", "replace"), err
    assert tree_digest(wiki_repo.root) == before, "the work tree changed"


# -- held locks: the wait is bounded, then exit 2 naming the lock file ------------------------

HOLDER = """
import sys, time
from pathlib import Path
from openwiki_git.store import locking
with locking.hold(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(120)
"""


def hold_lock(repo: GitRepo) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(repo.root / ".git/openwiki-git.lock")], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def release(holder: subprocess.Popen[str]) -> None:
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert holder.stdout is not None
    holder.stdout.close()


def staged_edit(repo: GitRepo) -> None:
    with_claim(repo)
    repo.write("src/app.py", "# new first line\n" + repo.read("src/app.py"))
    repo.git("add", "-A")


WRITERS = [
    ("hook",),
    ("check", "--fix"),
    ("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10"),
]


@pytest.mark.parametrize("argv", WRITERS, ids=[" ".join(a[:2]) for a in WRITERS])
@pytest.mark.parametrize("how", ["option", "option after the command", "environment"])
def test_a_held_lock_is_waited_for_a_bounded_time(wiki_repo: GitRepo, argv: tuple[str, ...], how: str) -> None:
    staged_edit(wiki_repo)
    holder = hold_lock(wiki_repo)
    try:
        before = tree_digest(wiki_repo.root)
        if how == "option":
            p = cli(wiki_repo.root, "--lock-timeout", "0.2", *argv)
        elif how == "option after the command":
            p = cli(wiki_repo.root, *argv, "--lock-timeout", "0.2")
        else:
            p = cli(wiki_repo.root, *argv, env={"OPENWIKI_GIT_LOCK_TIMEOUT": "0.2"})
        err = p.stderr.decode()
        assert p.returncode == 2, err
        assert err.startswith("error: ") and "openwiki-git.lock" in err.splitlines()[0] and "Traceback" not in err
        assert "--lock-timeout" in err
        assert tree_digest(wiki_repo.root) == before
    finally:
        release(holder)


def test_a_lock_whose_holder_was_killed_is_free(wiki_repo: GitRepo) -> None:
    """SIGKILL of the holder: the OS drops the lock, the lock file left behind is harmless."""
    staged_edit(wiki_repo)
    holder = hold_lock(wiki_repo)
    release(holder)  # SIGKILL
    assert (wiki_repo.root / ".git/openwiki-git.lock").exists()
    p = cli(wiki_repo.root, "hook", env={"OPENWIKI_GIT_LOCK_TIMEOUT": "5"})
    assert p.returncode in (0, 1), p.stderr  # it took the lock and re-anchored the claim
    assert b"updated" in p.stderr


def test_a_bad_lock_timeout_is_a_usage_error(wiki_repo: GitRepo) -> None:
    p = cli(wiki_repo.root, "check", "--fix", env={"OPENWIKI_GIT_LOCK_TIMEOUT": "soon"})
    assert p.returncode == 2 and b"OPENWIKI_GIT_LOCK_TIMEOUT" in p.stderr.splitlines()[0], p.stderr
    p = cli(wiki_repo.root, "--lock-timeout", "-1", "check")
    assert p.returncode == 2 and b"--lock-timeout" in p.stderr, p.stderr


def test_sigkill_mid_write_leaves_a_readable_wiki(wiki_repo: GitRepo) -> None:
    """A writer killed at any moment leaves each file old or new (atomic renames): the wiki still
    validates and checks, and the next writer gets the lock."""
    argv = ("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10")
    for delay in (0.05, 0.15, 0.3, 0.5):
        writer = subprocess.Popen(
            [sys.executable, "-m", "openwiki_git", *argv], cwd=wiki_repo.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(delay)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        p = cli(wiki_repo.root, "validate")
        assert p.returncode == 0, (delay, p.stdout, p.stderr)
        p = cli(wiki_repo.root, "check")  # the claim written whole, or not yet (nothing to check: exit 1, said)
        written = p.returncode == 0 and b"1 claims: 1 fresh" in p.stdout
        assert written or (p.returncode == 1 and p.stderr.startswith(b"nothing to check: ")), (delay, p.stdout, p.stderr)
    assert cli(wiki_repo.root, *argv).returncode == 0


# -- options where users type them ------------------------------------------------------------


def test_global_options_after_the_command(wiki_repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from openwiki_git.cli.main import main

    claim(wiki_repo)
    assert main(["check", "-C", str(wiki_repo.root), "--wiki-dir", ".openwiki", "-v"]) == 0
    assert "1 claims: 1 fresh" in capsys.readouterr().out
    assert main(["claim", "list", "-C", str(wiki_repo.root), "--format", "json"]) == 0
    assert '"statement": "Line ten says ten."' in capsys.readouterr().out
    # After the command it wins over the one before it; absent, the one before stands.
    assert main(["-C", str(tmp_path), "check", "-C", str(wiki_repo.root)]) == 0
    assert main(["-C", str(wiki_repo.root), "--wiki-dir", "nowiki", "lint", "--wiki-dir", ".openwiki"]) in (0, 1)
    capsys.readouterr()
    assert main(["-C", str(wiki_repo.root), "validate", "--wiki-dir", "nowiki"]) == 2
    assert "--wiki-dir nowiki: no such directory" in capsys.readouterr().err


# -- exit 3 is for our bugs, and leaves a log -------------------------------------------------


def test_exit_3_writes_last_error_log(wiki_repo: GitRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from openwiki_git.cli.commands import check
    from openwiki_git.cli.main import main

    def broken(args: object) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(check, "run", broken)
    assert main(["-C", str(wiki_repo.root), "check"]) == 3
    err = capsys.readouterr().err
    log = wiki_repo.root / ".git/openwiki-git/last-error.log"
    assert err.count("\n") == 1 and str(log) in err and "ZeroDivisionError: a bug" in err
    text = log.read_text()
    assert "Traceback" in text and "ZeroDivisionError: a bug" in text and "openwiki-git 0.1.0" in text and "python " in text


def test_the_cli_imports_without_fcntl() -> None:
    """Portable imports: nothing imports a POSIX-only module at import time (Windows has no fcntl)."""
    code = (
        "import sys; sys.modules['fcntl'] = None\n"
        "import openwiki_git.cli.main, openwiki_git.store.wiki, openwiki_git.store.locking\n"
        "from openwiki_git.cli.main import build_parser; build_parser()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=HANG_BOUND)


def test_concurrent_writers_are_serialised(wiki_repo: GitRepo) -> None:
    """Four `claim add`s of one sentence at once: each waits its turn for the lock, none is lost
    (one claim per sentence: the first makes the claim, the others' evidence goes to it)."""
    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "openwiki_git", "claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.",
             "--evidence", f"repo://src/app.py#L{i}"],
            cwd=wiki_repo.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for i in range(1, 5)
    ]
    ids = set()
    for w in writers:
        out, err = w.communicate(timeout=HANG_BOUND)
        assert w.returncode == 0, err
        ids.add(out.split()[0])
    assert len(ids) == 1
    claims = json.loads(wiki_repo.read(".openwiki/.claims/guide.json"))["claims"]
    assert sorted(e["resource"] for e in claims[0]["evidence"]) == [f"repo://src/app.py#L{i}-L{i}" for i in range(1, 5)]
    assert cli(wiki_repo.root, "validate").returncode == 0
    listed = cli(wiki_repo.root, "claim", "list").stdout.decode()
    assert all(i.decode() in listed for i in ids)


def test_check_cache_never_answers_for_a_wiki_that_is_gone(wiki_repo: GitRepo) -> None:
    """check's caches (a whole answer, a located repository) vouch for unchanged files; a wiki
    removed or mistyped after a cached run is still exit 2, not the cached "1 claims"."""
    import shutil

    claim(wiki_repo)
    for _ in range(2):
        assert cli(wiki_repo.root, "check").returncode == 0
    assert cli(wiki_repo.root, "--wiki-dir", ".openwik", "check").returncode == 2
    shutil.move(wiki_repo.root / ".openwiki", wiki_repo.root.parent / "away")
    p = cli(wiki_repo.root, "check")
    assert p.returncode == 2 and b"openwiki-git init" in p.stderr, p.stderr


@pytest.mark.parametrize("command", [("check",), ("validate",), ("check", "--no-cache"), ("lint",)])
def test_a_page_linked_outside_the_repository_is_refused_by_every_reader(wiki_repo: GitRepo, command: tuple[str, ...]) -> None:
    """validate, check and lint agree (one rule, Wiki.sidecar_pages): a page with claims that is a
    symlink leading outside the repository is refused, exit 2, the page named, nothing written."""
    with_claim(wiki_repo)
    outside = wiki_repo.root.parent / "outside-guide.md"
    outside.write_text(wiki_repo.read(".openwiki/guide.md"), "utf-8")
    (wiki_repo.root / ".openwiki/guide.md").unlink()
    (wiki_repo.root / ".openwiki/guide.md").symlink_to(outside)
    before = tree_digest(wiki_repo.root)
    p = cli(wiki_repo.root, *command)
    err = p.stderr.decode()
    assert p.returncode == 2, (p.stdout, err)
    assert err.startswith("error: .openwiki/guide.md: a symlink leading outside the repository") and "Traceback" not in err
    assert tree_digest(wiki_repo.root) == before
