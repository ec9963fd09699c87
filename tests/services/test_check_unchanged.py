"""The quick judge (stage 2 of check's chain, `check --no-cache`) answers each page exactly as
the full rule answers it, or hands the page over.

Each state is a real git repository changed one way; `check --no-cache` runs through the real CLI
in the five output forms (text, `--all`, `-v`, JSON, JSON `--only-problems`), then again with the
quick judge switched off (check_unchanged.answer_unchanged answering None, so the full rule judges every
page): exit code, stdout and stderr must be equal. Each state also says whether the quick judge
answers the whole wiki (so the comparison is not vacuous) or hands pages over (so what it is
unsure of goes to the full rule, page by page: the other pages stay its answers).
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable

import pytest

from openwiki_git import parallel
from openwiki_git.cli.main import main
from openwiki_git.services import check_unchanged
from tests.support.repo import IMPORTS_PROBE, add_claim, claims_over

FILES = {
    "src/a.py": "".join(f"alpha {i}\n" for i in range(1, 31)),
    "lib/b.py": "".join(f"beta {i}\n" for i in range(1, 21)),
    "src/odd.py": "".join(f"odd {i}\n" for i in range(1, 11)),
}
FORMS = ((), ("--all",), ("-v",), ("--format", "json"), ("--format", "json", "--only-problems"))



@pytest.fixture
def wiki(wiki_repo, capsys):
    repo = wiki_repo
    pages = {
        ".openwiki/guide.md": "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\nAlpha three. Alpha and beta.\n",
        ".openwiki/second.md": "---\ntype: Reference\ntitle: Second\n---\n\n# Second\n\nBeta nineteen.\n\nOdd one.\n",
    }
    claims_over(repo, {**FILES, **pages}, [
        ("guide.md", "Alpha three.", "repo://src/a.py#L3-L4"),
        ("guide.md", "Alpha and beta.", "repo://src/a.py#L10-L12", "repo://lib/b.py#L2-L2"),
        ("second.md", "Beta nineteen.", "repo://lib/b.py#L19-L20"),
        ("second.md", "Odd one.", "repo://src/odd.py#L1-L1"),
    ])
    capsys.readouterr()
    assert repo.run("check") == 0 and "4 claims: 4 fresh, 0 stale, 0 unresolved\n" in capsys.readouterr().out
    return repo


def sidecar_edit(repo, page: str, change: Callable[[dict], None]) -> None:
    path = f".openwiki/.claims/{page[:-3]}.json"
    data = json.loads(repo.read(path))
    change(data)
    repo.write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def drop_marker(repo) -> None:
    text = repo.read(".openwiki/guide.md")
    marker = text[text.index("[^c-") : text.index("]", text.index("[^c-")) + 1]
    prose, block = text.split("<!-- openwiki-git:citations:begin", 1)
    repo.write(".openwiki/guide.md", prose.replace(marker, "", 1) + "<!-- openwiki-git:citations:begin" + block)


def edit_line(repo, path: str, number: int, text: str) -> None:
    lines = repo.read(path).splitlines(keepends=True)
    lines[number - 1] = text
    repo.write(path, "".join(lines))


def first_id(repo, page: str) -> str:
    return json.loads(repo.read(f".openwiki/.claims/{page[:-3]}.json"))["claims"][0]["id"]


# state name -> (what is done to the repository, whether the quick judge answers every page, extra arguments)
STATES: dict[str, tuple[Callable[..., None], bool, tuple[str, ...]]] = {
    "every claim plain": (lambda r: None, True, ()),
    "a marker missing": (drop_marker, True, ()),
    "--wiki-dir given": (lambda r: None, True, ("--wiki-dir", ".openwiki")),
    "a line separator and non-ASCII outside the range": (
        lambda r: edit_line(r, "src/odd.py", 8, "odd \u2028 é\n"), True, ()),
    "HEAD detached": (lambda r: r.git("checkout", "-q", "--detach"), True, ()),
    "a packed branch": (lambda r: r.git("pack-refs", "--all"), True, ()),
    "a sidecar without claims": (lambda r: sidecar_edit(r, "second.md", lambda d: d.update(claims=[])), True, ()),
    "sixty claims without their markers": (lambda r: sidecar_edit(r, "second.md", many_unmarked), True, ()),
    "a statement with quotes and a backslash": (lambda r: sidecar_edit(r, "guide.md", lambda d: d["claims"][0].update(
        statement='Alpha "three" \\ says é.')), True, ()),
    "a repository format libgit2 refuses": (lambda r: r.git("config", "core.repositoryformatversion", "9"), False, ()),
    "a bare repository's config": (lambda r: r.git("config", "core.bare", "true"), False, ()),
    "a line changed outside every cited range": (lambda r: edit_line(r, "src/a.py", 25, "alpha changed\n"), True, ()),
    "verified by a person": (lambda r: sidecar_edit(r, "second.md", lambda d: d["claims"][0].update(
        verifiedAt="2026-11-30T10:00:00Z", verifiedBy="human:ada")), True, ()),
    "the last cited line without its newline": (lambda r: r.write("lib/b.py", FILES["lib/b.py"].rstrip("\n")), False, ()),
    "the index in version 4": (lambda r: r.git("update-index", "--index-version", "4"), False, ()),
    "a cited line changed": (lambda r: edit_line(r, "src/a.py", 3, "alpha three changed\n"), False, ()),
    "the context changed": (lambda r: edit_line(r, "src/a.py", 6, "alpha six changed\n"), False, ()),
    "a cited file moved down": (lambda r: r.write("src/a.py", "# header\n" + FILES["src/a.py"]), False, ()),
    "a cited file deleted": (lambda r: (r.root / "lib/b.py").unlink(), False, ()),
    "a cited file untracked": (lambda r: r.git("rm", "-q", "--cached", "lib/b.py"), False, ()),
    "a cited file with CRLF, text attribute": (lambda r: (
        r.write(".gitattributes", "*.py text\n"), r.write("src/odd.py", FILES["src/odd.py"].replace("\n", "\r\n")),
        r.commit_all("crlf")), False, ()),
    "a cited file not UTF-8": (lambda r: (r.root / "src/odd.py").write_bytes(FILES["src/odd.py"].encode() + b"\xff\n"), False, ()),
    "a cited file binary": (lambda r: (r.root / "src/odd.py").write_bytes(FILES["src/odd.py"].encode() + b"\0\n"), False, ()),
    "a cited file through a symlinked directory": (lambda r: (
        os.rename(r.root / "lib", r.root / "lib2"), os.symlink("lib2", r.root / "lib")), False, ()),
    "a page deleted": (lambda r: (r.root / ".openwiki/second.md").unlink(), False, ()),
    "a page symlinked": (lambda r: (
        os.rename(r.root / ".openwiki/second.md", r.root / "second.md"), os.symlink("../second.md", r.root / ".openwiki/second.md")),
        False, ()),
    "a page with stale_after": (lambda r: r.write(".openwiki/second.md", r.read(".openwiki/second.md").replace(
        "type: Reference\n", "type: Reference\nstale_after: 2020-01-01\n")), False, ()),
    "reverify_after configured": (lambda r: r.write(".openwiki/config.yml", "wiki_dir: .openwiki\nreverify_after: 1d\n"), False, ()),
    "a YAML config": (lambda r: r.write(".openwiki/config.yml", "wiki_dir: .openwiki\ndocs:\n  - docs/*.md\n"), False, ()),
    "an invalid config": (lambda r: r.write(".openwiki/config.yml", "wiki_dir: [\n"), False, ()),
    "a mark": (lambda r: sidecar_edit(r, "guide.md", lambda d: d["claims"][0].update(
        mark={"status": "stale", "since": "2026-11-30T10:00:00Z"})), False, ()),
    "a tool's verification": (lambda r: sidecar_edit(r, "guide.md", lambda d: d["claims"][0].update(
        verifiedBy="tool:openwiki-git-ground")), False, ()),
    "a whole-file citation": (lambda r: (add_claim(r, "second.md", "All of odd.", "repo://src/odd.py"), r.commit_all("file")), False, ()),
    "a definition cited": (lambda r: (r.write("src/d.py", "def handler():\n    return 1\n"), r.commit_all("d"),
                                      add_claim(r, "second.md", "The handler.", "repo://src/d.py#handler")), False, ()),
    "a Markdown document cited": (lambda r: (r.write("NOTES.md", "# Notes\n\nA note.\n"), r.commit_all("notes"),
                                             add_claim(r, "second.md", "A note.", "repo://NOTES.md#L3-L3")), False, ()),
    "a claim id on two pages": (lambda r: r.write(".openwiki/.claims/third.json", r.read(".openwiki/.claims/guide.json")), False, ()),
    "a sidecar with an unknown key": (lambda r: sidecar_edit(r, "guide.md", lambda d: d["claims"][0].update(extra=1)), False, ()),
    "a sidecar that is not JSON": (lambda r: r.write(".openwiki/.claims/guide.json", "{"), False, ()),
    "a missing wiki": (lambda r: None, False, ("--wiki-dir", "nowhere")),
    "no .claims directory": (lambda r: [p.unlink() for p in (r.root / ".openwiki/.claims").iterdir()]
                             and (r.root / ".openwiki/.claims").rmdir(), False, ()),
    "a conflict in the index": (lambda r: conflict(r, "lib/b.py"), False, ()),
    # What the one lister (store/listing.py) passes over or refuses, as the full path does.
    "a page with a non-ASCII name": (lambda r: rename_page(r, "second.md", "séconde.md"), True, ()),
    "a symlink to a file among the sidecars": (lambda r: os.symlink("../guide.md", r.root / ".openwiki/.claims/notes.txt"), True, ()),
    "a folder of no sidecar": (lambda r: (r.root / ".openwiki/.claims/old").mkdir(), True, ()),
    "a directory named like a sidecar": (lambda r: (r.root / ".openwiki/.claims/third.json").mkdir(), False, ()),
    "a file name not UTF-8 among the sidecars": (
        lambda r: (r.root / ".openwiki/.claims").joinpath(os.fsdecode(b"caf\xe9.txt")).write_text("x"), False, ()),
}


def rename_page(repo, page: str, new: str) -> None:
    """`page` and its sidecar renamed to `new` (the claims move with them)."""
    wiki = repo.root / ".openwiki"
    os.rename(wiki / page, wiki / new)
    os.rename(wiki / ".claims" / f"{page[:-3]}.json", wiki / ".claims" / f"{new[:-3]}.json")


def many_unmarked(data: dict) -> None:
    """Sixty more claims on the page, citing what its first claim cites, none with a marker."""
    first = data["claims"][0]
    data["claims"] += [{**first, "id": f"claim_{i:032x}", "statement": f"Beta again {i}."} for i in range(60)]


def conflict(repo, path: str) -> None:
    """`path` in the index at stages 1 and 2 (a merge stopped on it), as `git merge` leaves it."""
    blob = repo.git("rev-parse", f"HEAD:{path}").strip()
    info = f"0 {'0' * 40}\t{path}\n100644 {blob} 1\t{path}\n100644 {blob} 2\t{path}\n"
    subprocess.run(["git", "update-index", "--index-info"], cwd=repo.root, input=info, text=True, check=True)


def answers_whole(lean: check_unchanged.UnchangedAnswer | None) -> bool:
    """Whether the quick judge answered every page (none left to the full rule)."""
    return lean is not None and not lean.rest


def run(repo, capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = repo.run("check", "--no-cache", *argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def forks(monkeypatch) -> list[int]:
    """The split forced on (every wiki large enough): the children parallel.map_in_halves forks, listed."""
    children: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    monkeypatch.setattr(check_unchanged, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(parallel.os, "fork", fork)
    return children


@pytest.mark.parametrize("split", [False, True], ids=["one process", "split"])
@pytest.mark.parametrize("state", list(STATES))
def test_lean_answer_equals_the_full_path(wiki, capsys, monkeypatch, state, split):
    """With `split`, a forked child judges second.md (parallel.halves: the pages alternate by
    size), so the states that change second.md are ones where the page the child judges needs the
    full path."""
    change, answers, extra = STATES[state]
    change(wiki)
    wiki_dir = extra[1] if extra[:1] == ("--wiki-dir",) else None
    children = forks(monkeypatch) if split else []
    assert answers_whole(check_unchanged.answer_unchanged(str(wiki.root), wiki_dir)) == answers
    if split and answers:
        assert children, "the child judged nothing"
    lean = [run(wiki, capsys, *extra, *form) for form in FORMS]
    monkeypatch.setattr(check_unchanged, "answer_unchanged", lambda *args: None)
    full = [run(wiki, capsys, *extra, *form) for form in FORMS]
    assert lean == full
    assert all(rc in (0, 1, 2) for rc, _, _ in full)


def die_in_the_child(how: str) -> Callable[..., object]:
    """check_unchanged._judge_page, failing `how` in a forked child (an exception or SIGKILL)."""
    parent, judge_page = os.getpid(), check_unchanged._judge_page

    def judge(*args: object) -> object:
        if os.getpid() != parent:
            if how == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            raise RuntimeError("the child fails")
        return judge_page(*args)

    return judge


@pytest.mark.parametrize("how", ["raises", "killed"])
@pytest.mark.parametrize("state", ["every claim plain", "a marker missing", "a cited line changed", "a page deleted"])
def test_a_failed_child_leaves_the_answer_as_it_was(wiki, capsys, monkeypatch, state, how):
    """The child dies before it answers: its pages are judged in this process, and the answer is
    the full path's still (the child reaped: no process left behind)."""
    change, answers, extra = STATES[state]
    change(wiki)
    children = forks(monkeypatch)
    monkeypatch.setattr(check_unchanged, "_judge_page", die_in_the_child(how))
    assert answers_whole(check_unchanged.answer_unchanged(str(wiki.root), None)) == answers
    assert children
    lean = [run(wiki, capsys, *form) for form in FORMS]
    monkeypatch.setattr(check_unchanged, "answer_unchanged", lambda *args: None)
    assert lean == [run(wiki, capsys, *form) for form in FORMS]
    for pid in children:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_the_split_with_sigchld_ignored_judges_here(wiki, capsys, monkeypatch):
    """SIGCHLD ignored (the child reaped by the kernel, its exit status unknown): its pages are
    judged in this process, and the answer is the one-process answer."""
    forks(monkeypatch)
    alone = run(wiki, capsys, "--format", "json")
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        assert answers_whole(check_unchanged.answer_unchanged(str(wiki.root), None))
        split = run(wiki, capsys, "--format", "json")
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert split == alone and split[0] == 0


@pytest.mark.parametrize("split", [False, True], ids=["one process", "split"])
@pytest.mark.parametrize("state", ["a cited line changed", "a mark", "a page deleted", "a cited file moved down"])
def test_a_page_the_quick_judge_leaves_goes_to_the_full_rule_alone(wiki, capsys, monkeypatch, state, split):
    """One page not plain: the quick judge answers the other, the full rule judges that one only
    (its entry), and the report is the one the full rule gives every page."""
    change, _, _ = STATES[state]
    change(wiki)
    if split:
        forks(monkeypatch)
    lean = check_unchanged.answer_unchanged(str(wiki.root), None)
    assert lean is not None and len(lean.rest) == 1 and len(lean.pages) == 1, (lean.pages if lean else None)
    from openwiki_git.caches import check_reuse

    judged_by_rule: list[str] = []
    real = check_reuse._FullRule.judge_loaded
    monkeypatch.setattr(check_reuse._FullRule, "judge_loaded", lambda rule, judged, loaded: (judged_by_rule.extend(loaded),
                                                                                       real(rule, judged, loaded))[1])
    mixed = [run(wiki, capsys, *form) for form in FORMS]
    assert set(judged_by_rule) == set(lean.rest)
    monkeypatch.setattr(check_unchanged, "answer_unchanged", lambda *args: None)
    assert mixed == [run(wiki, capsys, *form) for form in FORMS]


def test_the_split_is_by_size_in_page_order():
    mine, theirs = parallel.halves(["a.md", "b.md", "c.md", "d.md", "e.md"], [10, 3, 3, 3, 1])
    assert (mine, theirs) == (["a.md"], ["b.md", "c.md", "d.md", "e.md"])  # 10 bytes against 3 + 3 + 3 + 1
    assert parallel.halves(["a.md"], [5]) == (["a.md"], [])


def test_lean_answer_in_a_linked_worktree_equals_the_full_path(wiki, capsys, monkeypatch, tmp_path):
    """A linked worktree (`.git` is a file naming its git directory, the index is that one's)."""
    linked = tmp_path / "linked"
    wiki.git("worktree", "add", "-q", str(linked))
    assert check_unchanged.answer_unchanged(str(linked), None) is not None

    def both() -> list[tuple[int, str]]:
        out = []
        for form in FORMS:
            capsys.readouterr()
            rc = main(["-C", str(linked), "check", "--no-cache", *form])
            out.append((rc, capsys.readouterr().out))
        return out

    lean = both()
    monkeypatch.setattr(check_unchanged, "answer_unchanged", lambda *args: None)
    assert lean == both()
    assert lean[0][0] == 0 and "4 claims: 4 fresh" in lean[0][1]


def test_verbose_text_lists_every_claim_through_the_cache_as_without_it(wiki, capsys):
    """`check -v` (the long form: one line per claim) answered from the check cache's entries
    lists the fresh claims too, as the report built whole does (it listed only the notable ones)."""
    drop_marker(wiki)
    capsys.readouterr()
    assert wiki.run("check") == 1  # writes the cache
    cached = [run_cached(wiki, capsys, "-v") for _ in range(2)]
    whole = run(wiki, capsys, "-v")
    assert cached[0] == cached[1] == whole
    assert whole[1].count(": fresh: ") == 4 and "marker [^c-" in whole[1]


def run_cached(repo, capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = repo.run("check", *argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


PROBE = IMPORTS_PROBE
# What the lean answer must never import: git's library, the model and checker (dataclasses),
# YAML, the schemas, the writers' lock; nor what only other paths need (pathlib, datetime, traceback,
# the check cache's pickle, a token writer's base64, typing for annotations: TYPE_CHECKING = False).
HEAVY = {"pygit2", "_cffi_backend", "dataclasses", "inspect", "ruamel", "jsonschema", "sqlite3", "fcntl", "tempfile",
         "pathlib", "datetime", "traceback", "pickletools", "pickle", "base64", "typing"}
HEAVY_OWN = {"openwiki_git.model", "openwiki_git.claims.freshness", "openwiki_git.store.workspace", "openwiki_git.git.repo",
             "openwiki_git.evidence.resource", "openwiki_git.formats.sidecar", "openwiki_git.pages.citations"}


def test_the_lean_answer_imports_nothing_heavy(wiki):
    """The lean path's cost is mostly the interpreter's start: it imports the standard library's
    json, hashlib and re and the pure rules, never git's library or the checker."""
    for form in ((), ("--format", "json")):
        proc = subprocess.run([sys.executable, "-c", PROBE, "-C", str(wiki.root), "check", "--no-cache", *form],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        out, _, modules = proc.stdout.rstrip("\n").rpartition("\n")
        loaded = set(ast.literal_eval(modules))
        assert "openwiki_git.services.check_unchanged" in loaded and ("4 claims: 4 fresh" in out or "\"total\": 4" in out)
        assert not {m.split(".")[0] for m in loaded} & HEAVY, sorted({m.split(".")[0] for m in loaded} & HEAVY)
        assert not loaded & HEAVY_OWN, sorted(loaded & HEAVY_OWN)
