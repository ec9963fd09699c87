"""The cited-path lookup: the SQLite index (the hook's) and the one-shot scan (`check --base`, CI's
fresh runner) name the same sidecars, whatever the resources' spelling, and the scan reads the
commit's sidecars, not the working tree's edits."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from openwiki_git import parallel
from openwiki_git.caches import cite_bytes, cites
from openwiki_git.git.repo import Repo
from tests.support.repo import GitRepo

SPELLINGS = {
    # sidecar (under .openwiki/.claims/) -> the resources its claims cite, as written
    "plain.json": ["repo://src/a.py#L1-L2"],
    "escaped.json": ["repo://src/%61.py#L1"],  # %-escape: src/a.py
    "dotted.json": ["repo://./src/b.py", "repo://src/x/../c.py#L3"],  # normalised: src/b.py, src/c.py
    "doubled.json": ["repo://src//d.py#L1"],
    "deep/nested.json": ["repo://src/b.py#L2-L4"],
    "other.json": ["repo://src/zzz.py#L1"],
}


def sidecar_bytes(resources: list[str], *, json_escaped: bool = False) -> str:
    claims = [{"id": f"claim_{i:032x}", "statement": "s.", "evidence": [{"resource": r, "version": "v"}]} for i, r in enumerate(resources)]
    text = json.dumps({"schemaVersion": 1, "claims": claims}, indent=2)
    return text.replace("/", "\\/") if json_escaped else text


def build(repo: GitRepo) -> str:
    for name, resources in SPELLINGS.items():
        repo.write(f".openwiki/.claims/{name}", sidecar_bytes(resources))
    repo.write(".openwiki/.claims/json_escaped.json", sidecar_bytes(["repo://src/c.py#L1"], json_escaped=True))
    repo.write("src/a.py", "a\n")
    return repo.commit_all("sidecars")


QUERIES = [{"src/a.py"}, {"src/b.py"}, {"src/c.py"}, {"src/d.py"}, {"src/a.py", "src/zzz.py"}, {"src/none.py"}]
EXPECTED = [
    {"plain.json", "escaped.json"},
    {"dotted.json", "deep/nested.json"},
    {"dotted.json", "json_escaped.json"},
    {"doubled.json"},
    {"plain.json", "escaped.json", "other.json"},
    set(),
]


def test_the_scan_and_the_index_name_the_same_sidecars(repo: GitRepo) -> None:
    head = build(repo)
    git = Repo(repo.root)
    scanned = [cites.CiteIndex(git, ".openwiki/.claims", persist=False).sidecars_citing(head, q) for q in QUERIES]
    indexed = [cites.CiteIndex(git, ".openwiki/.claims").sidecars_citing(head, q) for q in QUERIES]
    assert scanned == indexed == EXPECTED


def test_the_scan_reads_the_commit_not_the_working_tree_and_writes_no_index(repo: GitRepo) -> None:
    head = build(repo)
    repo.write(".openwiki/.claims/plain.json", sidecar_bytes(["repo://src/elsewhere.py#L1"]))  # an unstaged edit
    (repo.root / ".openwiki/.claims/other.json").unlink()
    index = cites.CiteIndex(Repo(repo.root), ".openwiki/.claims", persist=False)
    assert index.sidecars_citing(head, {"src/a.py", "src/zzz.py"}) == {"plain.json", "escaped.json", "other.json"}
    assert index.sidecars_citing(head, {"src/elsewhere.py"}) == set()
    assert not index.path.exists()


def test_may_cite_is_false_only_for_a_plain_sidecar_without_the_path() -> None:
    plain = sidecar_bytes(["repo://src/a.py#L1-L2"]).encode()
    assert cite_bytes.may_cite(plain, [b"src/a.py"])
    assert not cite_bytes.may_cite(plain, [b"src/b.py"])
    for unusual in ("repo://src/%62.py", "repo://./src/b.py", "repo://src//b.py", "repo://src/q/../b.py"):
        assert cite_bytes.may_cite(sidecar_bytes([unusual]).encode(), [b"src/b.py"]), unusual
    assert cite_bytes.may_cite(sidecar_bytes(["repo://src/b.py"], json_escaped=True).encode(), [b"src/b.py"])


def test_a_pattern_character_makes_a_sidecar_parsed() -> None:
    for pattern in ("repo://src/*.py", "repo://src/[ab].py", "repo://src/{a,b}.py"):
        assert cite_bytes.may_cite(sidecar_bytes([pattern]).encode(), [b"src/b.py"]), pattern


def test_the_id_scan_and_the_index_name_the_same_carriers(repo: GitRepo) -> None:
    """`sidecars_carrying` one-shot (a byte pass for `"id"` values, check --base's fresh runner)
    and through the index agree, an id written with JSON escapes included, and the scan writes no
    index."""
    build(repo)
    repo.write(".openwiki/.claims/copy.json", sidecar_bytes(["repo://src/q.py#L1"]))  # claim_0…0 again
    escaped = json.dumps({"schemaVersion": 1, "claims": [{"id": "claim_\u00e9", "statement": "s.", "evidence": []}]})
    repo.write(".openwiki/.claims/escaped_id.json", escaped)  # json.dumps writes \u00e9
    repo.write(".openwiki/.claims/mention.json", sidecar_bytes(["repo://src/q.py#L1"]).replace('"s."', '"claim_\u00e9 is named."'))
    head = repo.commit_all("copies")
    git = Repo(repo.root)
    ids = {f"claim_{0:032x}", "claim_\u00e9", "claim_missing"}
    scanned = cites.CiteIndex(git, ".openwiki/.claims", persist=False).sidecars_carrying(head, ids)
    assert not (git.git_dir / "openwiki-git" / "cites-v1.sqlite3").exists()
    indexed = cites.CiteIndex(git, ".openwiki/.claims").sidecars_carrying(head, ids)
    assert scanned == indexed
    assert scanned[f"claim_{0:032x}"] >= {"plain.json", "copy.json"} and scanned["claim_\u00e9"] == {"escaped_id.json"}
    assert "claim_missing" not in scanned


def test_one_shot_ids_noted_by_the_path_scan_serve_another_tree(repo: GitRepo) -> None:
    """The one-shot index notes each sidecar's ids while it scans for paths, by blob: asked for the
    carriers at another commit (check --base reads ids at the head, paths at the base), it gives
    the index's answer there: a sidecar added or edited since is read, not the noted one."""
    base = build(repo)
    repo.write(".openwiki/.claims/copy.json", sidecar_bytes(["repo://src/q.py#L1"]))  # claim_0…0 again
    repo.write(".openwiki/.claims/plain.json", sidecar_bytes(["repo://src/a.py#L1"]).replace("claim_0", "claim_f"))
    head = repo.commit_all("a copy, an edit")
    git = Repo(repo.root)
    one_shot = cites.CiteIndex(git, ".openwiki/.claims", persist=False)
    assert one_shot.sidecars_citing(base, {"src/a.py"}) == {"plain.json", "escaped.json"}
    for ids in ({f"claim_f{0:031x}"}, {f"claim_{0:032x}", f"claim_{1:032x}"}):  # only at the head; at both
        carrying = one_shot.sidecars_carrying(head, ids)
        assert carrying == cites.CiteIndex(git, ".openwiki/.claims").sidecars_carrying(head, ids)
    assert one_shot.sidecars_carrying(head, {f"claim_f{0:031x}"}) == {f"claim_f{0:031x}": {"plain.json"}}
    carrying = one_shot.sidecars_carrying(head, {f"claim_{0:032x}"})[f"claim_{0:032x}"]
    assert "plain.json" not in carrying and {"copy.json", "escaped.json"} <= carrying


def _two_processes(monkeypatch: pytest.MonkeyPatch) -> tuple[list[bool], cite_bytes.Split]:
    """parallel.map_all_in_halves for sidecars of any size (a real fork), and a list of whether each
    call split: a test that means to scan on two CPUs asserts that it did."""
    split_calls: list[bool] = []

    def split(items: list[str], sizes: list[int], answer: Callable[[str], object]) -> dict[str, object] | None:
        got = parallel.map_all_in_halves(items, sizes, answer, min_size=0)
        split_calls.append(got is not None)
        return got

    return split_calls, split


def test_the_scan_on_two_cpus_answers_as_in_one(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """check --base's one-shot scan shared with a forked child gives every answer of the scan in
    one process and of the index: the paths, the carriers of ids and the sidecars mentioning a
    document; a sidecar whose working-tree bytes are not the commit's (an unstaged edit) is read
    from git, in this process."""
    head = build(repo)
    repo.write(".openwiki/.claims/plain.json", sidecar_bytes(["repo://src/elsewhere.py#L1"]))  # unstaged
    git = Repo(repo.root)
    split_calls, split = _two_processes(monkeypatch)
    ids = {f"claim_{0:032x}", f"claim_{1:032x}"}
    for query, expected in zip(QUERIES, EXPECTED, strict=True):
        two = cites.CiteIndex(git, ".openwiki/.claims", persist=False, mention=b".md", split=split)
        one = cites.CiteIndex(git, ".openwiki/.claims", persist=False, mention=b".md")
        assert two.sidecars_citing(head, query) == one.sidecars_citing(head, query) == expected, query
        assert two.sidecars_carrying(head, ids) == one.sidecars_carrying(head, ids)
        assert two.sidecars_carrying(head, ids) == cites.CiteIndex(git, ".openwiki/.claims").sidecars_carrying(head, ids)
        assert two.sidecars_mentioning(head) == one.sidecars_mentioning(head) == {"json_escaped.json"}  # escapes may spell .md
    assert split_calls == [True] * len(QUERIES), "the scan was not shared with a second process"


def test_the_sidecars_mentioning_a_document_are_those_whose_bytes_do(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """sidecars_mentioning (check --base's cited documents, read in the same pass as the paths)
    names the sidecars at the head whose `repo://` strings hold `.md` (what their claims
    cite) and those that are not UTF-8 (for the caller to refuse): from the scan's notes for the
    blobs it read at the base, from a read for the others, or with no scan at all."""
    repo.write(".openwiki/.claims/code.json", sidecar_bytes(["repo://src/a.py#L1"]))
    repo.write(".openwiki/.claims/doc.json", sidecar_bytes(["repo://src/a.py#L1", "repo://docs/adr/1.md#L2"]))
    repo.write(".openwiki/.claims/escaped.json", sidecar_bytes(["repo://docs/adr/1.md"], json_escaped=True))
    repo.write(".openwiki/.claims/statement.json", sidecar_bytes(["repo://src/a.py#L1"]).replace('"s."', '"See docs/x.md."'))
    repo.write("src/a.py", "a\n")
    base = repo.commit_all("sidecars")
    repo.write(".openwiki/.claims/later.json", sidecar_bytes(["repo://docs/adr/2.md"]))  # only at the head
    repo.write(".openwiki/.claims/code.json", sidecar_bytes(["repo://src/a.py#L1", "repo://docs/c.md"]))  # edited
    (repo.root / ".openwiki/.claims/latin1.json").write_bytes(b'{"schemaVersion": 1, "claims": [], "x": "caf\xe9"}')
    head = repo.commit_all("more")
    expected = {"doc.json", "escaped.json", "later.json", "code.json", "latin1.json"}
    folder = repo.root / ".openwiki/.claims"
    parsed = {
        p.name for p in folder.glob("*.json") if p.name != "latin1.json"
        for c in json.loads(p.read_bytes())["claims"] for e in c["evidence"] if ".md" in e["resource"]
    }
    assert parsed == expected - {"latin1.json"}  # what the claims cite; the Latin-1 sidecar is added for the caller
    git = Repo(repo.root)
    _, split = _two_processes(monkeypatch)
    for scanner in (None, split):
        scanned = cites.CiteIndex(git, ".openwiki/.claims", persist=False, mention=b".md", split=scanner)
        assert scanned.sidecars_citing(base, {"src/a.py"}) == {"code.json", "doc.json", "statement.json"}
        assert scanned.sidecars_mentioning(head) == expected
    assert cites.CiteIndex(git, ".openwiki/.claims", persist=False, mention=b".md").sidecars_mentioning(head) == expected


SETS = {
    # sidecar -> the sets its claims cite (files by glob, lines by query over a glob)
    "star.json": ["repo://src/*.py"],
    "deep.json": ["repo://src/**/x.py"],
    "one.json": ["repo://lib/m?.py?grep=def%20f"],
    "class.json": ["repo://src/[ab].py"],
    "anywhere.json": ["repo://**/*.md"],  # no literal start at all
    "mixed.json": ["repo://lib/plain.py#L1", "repo://lib/sub/*.txt"],
}
SET_QUERIES = [
    {"src/a.py"}, {"src/c.py"}, {"src/q/r/x.py"}, {"lib/m1.py"}, {"lib/m12.py"}, {"docs/a.md", "lib/plain.py"},
    {"lib/sub/n.txt"}, {"srcx/a.py"}, {"lib/sub/deeper/n.txt"}, set(),
]


def _brute_force(repo: GitRepo, paths: set[str], members: set[str] | None = None) -> set[str]:
    """Every sidecar read whole: what the index and the scan must both say."""
    folder = repo.root / ".openwiki/.claims"
    return {
        side.relative_to(folder).as_posix()
        for side in folder.rglob("*.json")
        if (cited := cite_bytes.cited_paths(side.read_bytes())) & paths
        or cite_bytes.globs_hit(cited, paths, paths if members is None else members)
    }


def test_sets_are_found_by_their_globs_literal_start_as_by_reading_every_sidecar(repo: GitRepo) -> None:
    """The index keeps sets' globs by their literal start and reads only those that may match a
    changed path: the same sidecars as the one-shot scan and as reading every sidecar, before and
    after a commit that edits a set's glob (the index follows the tree diff), and for a diff with
    more literal starts than are looked up one by one (every glob row read)."""
    for name, resources in SETS.items():
        repo.write(f".openwiki/.claims/{name}", sidecar_bytes(resources))
    first = repo.commit_all("sets")
    git = Repo(repo.root)
    many = {f"src/generated/{i:05d}/deep/x.py" for i in range(cites.MAX_STARTS // 20)}
    for query in [*SET_QUERIES, many, many | {"lib/m1.py"}]:
        expected = _brute_force(repo, query)
        assert cites.CiteIndex(git, ".openwiki/.claims").sidecars_citing(first, query) == expected, query
        assert cites.CiteIndex(git, ".openwiki/.claims", persist=False).sidecars_citing(first, query) == expected, query
    assert cites.CiteIndex(git, ".openwiki/.claims").sidecars_citing(first, {"src/a.py"}) == {"star.json", "class.json"}
    assert sum(len(p) + 1 for p in many) > cites.MAX_STARTS
    repo.write(".openwiki/.claims/star.json", sidecar_bytes(["repo://tools/*.py"]))
    second = repo.commit_all("a glob edited")
    index = cites.CiteIndex(git, ".openwiki/.claims")
    assert index.sidecars_citing(second, {"src/c.py"}) == set() and not index.rebuilt  # moved by the tree diff
    assert index.sidecars_citing(second, {"tools/t.py"}) == {"star.json"} == _brute_force(repo, {"tools/t.py"})


def test_a_set_of_files_is_looked_up_only_for_files_that_come_or_go(repo: GitRepo) -> None:
    """A set of files is about which files exist: a commit that only edits a member cannot move
    it, so its sidecar is not named for the paths the diff merely modifies (the hook then does
    not load its page); it is for a path added, deleted or renamed. A set of lines over the same
    glob is named for any change in scope. The index, the one-shot scan and reading every
    sidecar agree."""
    repo.write(".openwiki/.claims/files.json", sidecar_bytes(["repo://src/*.py"]))
    repo.write(".openwiki/.claims/lines.json", sidecar_bytes(["repo://src/*.py?grep=raise"]))
    repo.write(".openwiki/.claims/one.json", sidecar_bytes(["repo://src/a.py?grep=raise"]))
    first = repo.commit_all("sets")
    git = Repo(repo.root)
    for paths, members, expected in [
        ({"src/a.py"}, set(), {"lines.json", "one.json"}),  # src/a.py edited
        ({"src/b.py"}, {"src/b.py"}, {"files.json", "lines.json"}),  # src/b.py added
        ({"src/a.py", "src/c.py"}, {"src/a.py", "src/c.py"}, {"files.json", "lines.json", "one.json"}),  # renamed
        ({"lib/a.py"}, set(), set()),
    ]:
        assert _brute_force(repo, paths, members) == expected, paths
        for persist in (True, False):
            index = cites.CiteIndex(git, ".openwiki/.claims", persist=persist)
            assert index.sidecars_citing(first, paths, members) == expected, (paths, persist)
            assert index.sidecars_citing(first, paths) == _brute_force(repo, paths), (paths, persist)


def test_an_index_of_the_previous_schema_is_rebuilt_in_place(repo: GitRepo) -> None:
    """A cache file written by schema 5 (sets' globs in a `globs` table without the set's kind)
    is rebuilt on first use, not read by the fallback on every run after."""
    import sqlite3

    repo.write(".openwiki/.claims/files.json", sidecar_bytes(["repo://src/*.py"]))
    first = repo.commit_all("a set")
    git = Repo(repo.root)
    index = cites.CiteIndex(git, ".openwiki/.claims")
    index.path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(index.path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("CREATE TABLE globs (start TEXT NOT NULL, pattern TEXT NOT NULL, sidecar TEXT NOT NULL)")
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("tree", "0" * 40), ("claims_dir", ".openwiki/.claims"), ("schema", "5")])
    db.commit()
    db.close()
    assert index.sidecars_citing(first, {"src/new.py"}, {"src/new.py"}) == {"files.json"}
    assert index.rebuilt
    again = cites.CiteIndex(git, ".openwiki/.claims")
    assert again.sidecars_citing(first, {"src/new.py"}, set()) == set() and not again.rebuilt
    tables = {row[0] for row in sqlite3.connect(again.path).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "globs" not in tables and "sets" in tables
