"""The check cache answers exactly what `check --no-cache` answers, after any sequence of edits.

A real git repository with three cited files and three pages; each step makes one random edit
(seeded) — to a cited file (a line changed, a line inserted, the same bytes rewritten, a
same-size edit with the mtime put back, deleted, untracked, tracked again), to a sidecar (a
statement, a claim retracted, a sidecar removed or restored), to a page (a marker dropped or put
back, a `stale_after`), to the config — then compares the cached check (fast answer or partial
re-judging, whichever applies) with `--no-cache`: exit code, JSON report, `--only-problems` and
text. The racy window is shrunk to 50 ms and some steps wait it out, some do not, so entries are
both stored and refused; the same-size edits within one tick are what git's racy rule is for.
"""

from __future__ import annotations

import json
import os
import random
import time

import pytest

from openwiki_git.caches import check_entries as checkcache
from openwiki_git.caches import check_reuse, statkey
from tests.support.repo import add_claim

FILES = {
    "src/a.py": "".join(f"alpha {i}\n" for i in range(1, 31)),
    "src/b.py": "".join(f"beta {i}\n" for i in range(1, 21)),
    "lib/c.py": "".join(f"gamma {i}\n" for i in range(1, 26)),
}
WINDOW_NS = 50_000_000


@pytest.fixture
def small_window(monkeypatch):
    monkeypatch.setattr(statkey, "RACY_NS", WINDOW_NS)



@pytest.fixture
def wiki(wiki_repo, capsys):
    repo = wiki_repo
    for path, text in FILES.items():
        repo.write(path, text)
    for name in ("second", "third"):
        repo.write(f".openwiki/{name}.md", f"---\ntype: Reference\ntitle: {name}\n---\n\n# {name}\n\nText.\n")
    repo.commit_all("sources")
    add_claim(repo, "guide.md", "Alpha three.", "repo://src/a.py#L3-L4")
    add_claim(repo, "guide.md", "Alpha and beta.", "repo://src/a.py#L10-L12", "repo://src/b.py#L2-L2")
    add_claim(repo, "second.md", "All of beta.", "repo://src/b.py")
    add_claim(repo, "second.md", "Gamma five.", "repo://lib/c.py#L5-L6")
    add_claim(repo, "third.md", "Gamma twenty.", "repo://lib/c.py#L20-L20")
    add_claim(repo, "third.md", "Alpha twenty-five.", "repo://src/a.py#L25-L26")
    repo.commit_all("claims")
    capsys.readouterr()
    return repo


def run(repo, capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = repo.run("check", *argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def same_size_edit(path, rng: random.Random) -> None:
    """Swap one character's case, then put the mtime back: only the ctime shows it."""
    st = os.stat(path)
    text = path.read_text("utf-8")
    i = rng.randrange(len(text))
    if not text[i].isalpha():
        return
    path.write_text(text[:i] + text[i].swapcase() + text[i + 1 :], "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def edit(repo, rng: random.Random, saved: dict[str, str]) -> str:
    root = repo.root
    kind = rng.choice([
        "line", "insert", "touch", "same-size", "same-size", "delete", "untrack", "track",
        "statement", "retract", "drop-sidecar", "restore-sidecar", "marker", "restore-page", "stale-after",
        "config", "nothing",
    ])
    path = rng.choice(sorted(FILES))
    full = root / path
    page = rng.choice(["guide", "second", "third"])
    sidecar = root / f".openwiki/.claims/{page}.json"
    page_file = root / f".openwiki/{page}.md"
    if kind == "line" and full.exists():
        lines = full.read_text("utf-8").splitlines(keepends=True)
        lines[rng.randrange(len(lines))] = f"changed {rng.random()}\n"
        full.write_text("".join(lines), "utf-8")
    elif kind == "insert" and full.exists():
        full.write_text("# inserted\n" + full.read_text("utf-8"), "utf-8")
    elif kind == "touch" and full.exists():
        full.write_bytes(full.read_bytes())
    elif kind == "same-size" and full.exists():
        same_size_edit(full, rng)
    elif kind == "delete" and full.exists():
        full.unlink()
    elif kind == "untrack":
        repo.git("rm", "-q", "-f", "--cached", "--ignore-unmatch", path)
    elif kind == "track":
        if not full.exists():
            full.write_text(FILES[path], "utf-8")
        repo.git("add", path)
    elif kind == "statement" and sidecar.exists():
        data = json.loads(sidecar.read_text("utf-8"))
        if data["claims"]:
            data["claims"][0]["statement"] = f"Restated {rng.randrange(1000)}."
        sidecar.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    elif kind == "retract" and sidecar.exists():
        data = json.loads(sidecar.read_text("utf-8"))
        if data["claims"]:
            data["claims"].pop(rng.randrange(len(data["claims"])))
        sidecar.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    elif kind == "drop-sidecar" and sidecar.exists():
        saved.setdefault(str(sidecar), sidecar.read_text("utf-8"))
        sidecar.unlink()
    elif kind == "restore-sidecar" and str(sidecar) in saved:
        sidecar.write_text(saved.pop(str(sidecar)), "utf-8")
    elif kind == "marker" and page_file.exists():
        saved.setdefault(str(page_file), page_file.read_text("utf-8"))
        page_file.write_text(page_file.read_text("utf-8").replace("[^c-", "[^x-", 1), "utf-8")
    elif kind == "restore-page" and str(page_file) in saved:
        page_file.write_text(saved.pop(str(page_file)), "utf-8")
    elif kind == "stale-after" and page_file.exists():
        text = page_file.read_text("utf-8")
        when = rng.choice(["2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z"])
        page_file.write_text(text.replace("---\ntype:", f"---\nstale_after: {when}\ntype:", 1), "utf-8")
    elif kind == "config":
        config = root / ".openwiki/config.yml"
        text = config.read_text("utf-8")
        config.write_text(text.replace("max_growth: 9\n", "") if "max_growth: 9" in text else text + "max_growth: 9\n")
    return kind


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cached_check_equals_no_cache_after_random_edits(wiki, capsys, small_window, seed, monkeypatch):
    used = {"fast": 0, "reused": 0, "judged": 0, "located": 0}
    real_answer, real_judge_pages, real_trusted = checkcache.answer, check_reuse._FullRule.judge_loaded, checkcache.trusted_location

    def trusted(*args):
        got = real_trusted(*args)
        used["located"] += got is not None  # judged without opening git until it is needed
        return got

    def answer(*args):
        got = real_answer(*args)
        used["fast"] += got is not None
        return got

    def judge_pages(rule, judged, loaded):
        used["judged"] += len(loaded)
        used["reused"] += len(judged.entries)  # the entries taken from the cache
        return real_judge_pages(rule, judged, loaded)

    monkeypatch.setattr(checkcache, "answer", answer)
    monkeypatch.setattr(checkcache, "trusted_location", trusted)
    monkeypatch.setattr(check_reuse._FullRule, "judge_loaded", judge_pages)
    rng = random.Random(seed)
    saved: dict[str, str] = {}
    kinds = []
    for _step in range(30):
        kinds.append(edit(wiki, rng, saved))
        if rng.random() < 0.6:
            time.sleep(2 * WINDOW_NS / 1e9)  # out of the racy window: the next run may store entries
        for argv in (("--format", "json"), ("--format", "json", "--only-problems"), ("--all",), ()):
            cached = run(wiki, capsys, *argv)
            again = run(wiki, capsys, *argv)  # the fast answer, when the first stored everything
            reference = run(wiki, capsys, *argv, "--no-cache")
            assert cached == reference == again, (seed, kinds)
    assert {"same-size", "line", "statement"} & set(kinds)
    assert all(used.values()), used  # every path was compared


def _unmarked_page(repo, claims: int) -> None:
    """A page of `claims` fresh claims on src/a.py whose prose carries none of their markers."""
    from openwiki_git.evidence.resource import format_resource
    from openwiki_git.evidence.tokens import lines_version, split_lines
    from openwiki_git.formats import sidecar
    from openwiki_git.model import Claim, Evidence, Sidecar
    from openwiki_git.store.wiki import page_version

    lines = split_lines(FILES["src/a.py"])
    made = []
    for n in range(claims):
        start = n % 28
        evidence = Evidence(format_resource("src/a.py", (start + 1, start + 2)), lines_version(lines, start, start + 2))
        made.append(Claim(f"claim_{n + 1:032x}", f"Alpha {n} holds.", (evidence,)))
    text = "---\ntype: Reference\ntitle: Many\n---\n\n# Many\n\n" + "".join(f"{c.statement}\n" for c in made)
    repo.write(".openwiki/many.md", text)
    repo.write(".openwiki/.claims/many.json", sidecar.dumps(Sidecar("many.md", page_version(text.encode()), tuple(made))))


def test_claims_without_markers_are_summarised_alike_cached_or_not(wiki, capsys, small_window):
    """Past report.UNMARKED_LISTED claims whose only line is their missing marker, the text says
    so in one line; the cache keeps them as ids; JSON lists each. Cached equals --no-cache as the
    number crosses the limit, and with a stale claim among them."""
    from openwiki_git.claims.records import UNMARKED_LISTED
    from openwiki_git.cli.check_output import unlisted_unmarked_line

    base = json.loads(run(wiki, capsys, "--format", "json")[1])["summary"]["missing_markers"]  # the fixture's own
    _unmarked_page(wiki, UNMARKED_LISTED + 10)
    wiki.commit_all("many claims, no markers")
    path = wiki.root / ".openwiki/.claims/many.json"

    def keep(n: int) -> None:
        data = json.loads(path.read_text("utf-8"))
        data["claims"] = data["claims"][:n]
        path.write_text(json.dumps(data, indent=2) + "\n", "utf-8")

    def source(text: str) -> None:
        (wiki.root / "src/a.py").write_text(text, "utf-8")

    def back_to(claims: int) -> None:
        source(FILES["src/a.py"])
        _unmarked_page(wiki, claims)

    steps = [  # (the change, how many claims the text then summarises; None: some are stale)
        (lambda: None, base + UNMARKED_LISTED + 10),
        (lambda: source(FILES["src/a.py"].replace("alpha 2\n", "ALPHA 2\n")), None),
        (lambda: keep(UNMARKED_LISTED - 10), None),
        (lambda: back_to(UNMARKED_LISTED - base), 0),
        (lambda: back_to(UNMARKED_LISTED - base + 1), UNMARKED_LISTED + 1),
    ]
    for change, summarised in steps:
        change()
        time.sleep(2 * WINDOW_NS / 1e9)
        for argv in (("--format", "json"), ("--format", "json", "--only-problems"), ("--all",), ()):
            cached, again, reference = run(wiki, capsys, *argv), run(wiki, capsys, *argv), run(wiki, capsys, *argv, "--no-cache")
            assert cached == again == reference, argv
        text = run(wiki, capsys)[1]
        if summarised:
            assert unlisted_unmarked_line(summarised) in text and "is missing from the page's prose" not in text
        elif summarised == 0:
            assert "are fresh but their markers are missing" not in text
            assert text.count("is missing from the page's prose") == UNMARKED_LISTED
        listed = json.loads(run(wiki, capsys, "--format", "json", "--only-problems")[1])["claims"]
        assert sum(1 for c in listed if c["page"] == "many.md" and not c["marker_present"]) == len(json.loads(path.read_text())["claims"])
    entry = checkcache.read(wiki.root / ".git/openwiki-git" / checkcache.CACHE_NAME)["pages"]["many.md"]
    assert entry["notable"] == [] and entry["unmarked"].count("\n") + 1 == UNMARKED_LISTED - base + 1  # ids, not records


STORES = {
    "src/stores/mem.py": (
        "class MemoryStore:\n    def add(self, item):\n        raise OverflowError('full')\n\n\ndef helper():\n    return 1\n"
    ),
    "src/stores/disk.py": "class DiskStore:\n    def add(self, item):\n        return item\n",
}
SET_EVIDENCE = {  # page -> the set or definition claims added to it
    "guide.md": ("The stores are the memory and disk ones.", "repo://src/stores/*.py"),
    "second.md": ("Only MemoryStore.add raises OverflowError.", "repo://src/**/*.py?grep=raise%20OverflowError"),
    "third.md": ("MemoryStore.add refuses a full store.", "repo://src/stores/mem.py#MemoryStore.add"),
    "fourth.md": ("The stores define one helper.", "repo://src/stores/mem.py#helper:head"),
}


@pytest.fixture
def set_wiki(wiki, capsys):
    """The wiki above plus a claim of each kind whose answer depends on files it does not name:
    a set of files, a set of matching lines, a definition and a definition's head."""
    for path, text in STORES.items():
        wiki.write(path, text)
    wiki.write(".openwiki/fourth.md", "---\ntype: Reference\ntitle: fourth\n---\n\n# fourth\n\nText.\n")
    wiki.commit_all("stores")
    for page, (statement, evidence) in SET_EVIDENCE.items():
        add_claim(wiki, page, statement, evidence)
    wiki.commit_all("set claims")
    capsys.readouterr()
    return wiki


def set_edit(repo, rng: random.Random) -> str:
    """One edit that changes a set's members or a definition, or leaves them alone."""
    root = repo.root
    kind = rng.choice(["add-tracked", "add-untracked", "remove", "rename", "gain-match", "lose-match",
                       "delete-member", "restore", "def-body", "def-moved", "touch-member"])
    name = rng.choice(["cloud", "extra", "mem"])
    path = f"src/stores/{name}.py"
    full = root / path
    existing = sorted(p.relative_to(root).as_posix() for p in (root / "src/stores").glob("*.py"))
    if kind == "add-tracked":
        full.write_text(f"class {name.title()}Store:\n    pass\n", "utf-8")
        repo.git("add", path)
    elif kind == "add-untracked":
        (root / "src/stores/scratch.py").write_text("raise OverflowError('untracked')\n", "utf-8")
    elif kind == "remove":
        repo.git("rm", "-q", "-f", "--ignore-unmatch", path)
    elif kind == "rename" and full.exists() and repo.git("ls-files", path).strip():
        repo.git("mv", "-f", path, "src/stores/renamed.py")
    elif kind in ("gain-match", "lose-match") and existing:
        target = root / rng.choice(existing)
        text = target.read_text("utf-8")
        if kind == "gain-match":
            target.write_text(text + "raise OverflowError('more')\n", "utf-8")
        else:
            target.write_text(text.replace("raise OverflowError", "return OverflowError"), "utf-8")
    elif kind == "delete-member" and existing:
        (root / rng.choice(existing)).unlink()
    elif kind == "restore":
        for store, text in STORES.items():
            repo.write(store, text)
        repo.git("add", "src/stores")
    elif kind == "def-body" and (root / "src/stores/mem.py").exists():
        mem = root / "src/stores/mem.py"
        mem.write_text(mem.read_text("utf-8").replace("raise OverflowError('full')", "raise OverflowError('no room')"), "utf-8")
    elif kind == "def-moved" and (root / "src/stores/mem.py").exists():
        mem = root / "src/stores/mem.py"
        mem.write_text("import os\n\n\n" + mem.read_text("utf-8"), "utf-8")
    elif kind == "touch-member" and existing:
        target = root / rng.choice(existing)
        target.write_bytes(target.read_bytes())
    return kind


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_cached_check_equals_no_cache_with_sets_and_definitions(set_wiki, capsys, small_window, seed, monkeypatch):
    """Set and definition claims under random edits: matching files added (tracked or not),
    removed, renamed, deleted from disk, members gaining or losing a match, definitions edited or
    moved; the cached check (fast answer, partial re-judging) always equals --no-cache, and the
    pages holding sets are answered from the cache while nothing they depend on changed."""
    used = {"fast": 0, "reused_set_pages": 0}
    real_answer, real_judge_pages = checkcache.answer, check_reuse._FullRule.judge_loaded

    def answer(*args):
        got = real_answer(*args)
        used["fast"] += got is not None
        return got

    def judge_pages(rule, judged, loaded):
        used["reused_set_pages"] += sum(1 for e in judged.entries.values() if "sets" in e)
        return real_judge_pages(rule, judged, loaded)

    monkeypatch.setattr(checkcache, "answer", answer)
    monkeypatch.setattr(check_reuse._FullRule, "judge_loaded", judge_pages)
    rng = random.Random(seed)
    kinds = []
    for _step in range(30):
        kinds.append(set_edit(set_wiki, rng) if rng.random() < 0.8 else edit(set_wiki, rng, {}))
        if rng.random() < 0.6:
            time.sleep(2 * WINDOW_NS / 1e9)
        for argv in (("--format", "json"), ()):
            cached = run(set_wiki, capsys, *argv)
            again = run(set_wiki, capsys, *argv)
            reference = run(set_wiki, capsys, *argv, "--no-cache")
            assert cached == reference == again, (seed, kinds)
    assert all(used.values()), used  # both cached paths were compared, with set pages reused
    assert {"add-tracked", "remove", "gain-match", "lose-match"} & set(kinds)


def test_a_page_holding_a_set_is_kept_in_the_cache(set_wiki, capsys, small_window):
    """Once judged out of the racy window, the pages holding sets have entries keyed on their
    globs' candidates, and a warm check answers without judging any page."""
    time.sleep(2 * WINDOW_NS / 1e9)
    first = run(set_wiki, capsys, "--format", "json")
    time.sleep(2 * WINDOW_NS / 1e9)
    run(set_wiki, capsys, "--format", "json")
    pages = checkcache.read(set_wiki.root / ".git/openwiki-git" / checkcache.CACHE_NAME)["pages"]
    assert pages["guide.md"]["sets"] == {"src/stores/*.py": ("src/stores/disk.py", "src/stores/mem.py")}
    assert pages["guide.md"]["members"] == {"src/stores/disk.py": "present", "src/stores/mem.py": "present"}
    assert set(pages["second.md"]["files"]) >= {"src/a.py", "src/b.py", "src/stores/disk.py", "src/stores/mem.py"}
    assert "src/stores/mem.py" in pages["third.md"]["files"] and "sets" not in pages["third.md"]
    assert checkcache.answer(str(set_wiki.root), None) is not None
    assert run(set_wiki, capsys, "--format", "json") == first == run(set_wiki, capsys, "--format", "json", "--no-cache")


def test_a_definition_read_through_tree_sitter_follows_the_grammar_being_installed(wiki, capsys, tmp_path):
    """A JavaScript definition's answer depends on the grammar being importable, which no file
    of the repository shows: a cached answer from a run with the grammar is not reused by a run
    where it cannot be imported (shadowed by a package that fails to import, as if uninstalled),
    and the other way round; each equals --no-cache in the same environment."""
    import subprocess
    import sys

    wiki.write("src/web/app.js", "function greet(name) {\n  return 'hi ' + name;\n}\n")
    wiki.commit_all("js")
    add_claim(wiki, "guide.md", "greet says hi.", "repo://src/web/app.js#greet")
    wiki.commit_all("js claim")
    shadow = tmp_path / "shadow" / "tree_sitter_javascript"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('the grammar is not installed here')\n", "utf-8")
    time.sleep(statkey.RACY_NS / 1e9 + 0.1)  # a new process keeps the racy window of 2 s

    def check(*argv: str, hidden: bool) -> tuple[int, dict]:
        env = dict(os.environ, PYTHONPATH=str(shadow.parent)) if hidden else dict(os.environ)
        if not hidden:
            env.pop("PYTHONPATH", None)
        proc = subprocess.run([sys.executable, "-m", "openwiki_git", "check", "--format", "json", *argv],
                              cwd=wiki.root, env=env, capture_output=True, text=True, check=False)
        return proc.returncode, json.loads(proc.stdout)

    def state(report: dict) -> str:
        return next((c["status"] for c in report["claims"] if c["statement"] == "greet says hi."), "not listed")

    for hidden in (False, True, False):
        cached, again, reference = check(hidden=hidden), check(hidden=hidden), check("--no-cache", hidden=hidden)
        assert cached == again == reference, hidden
        assert state(reference[1]) == ("unresolved" if hidden else "fresh")
