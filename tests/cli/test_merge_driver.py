"""The sidecar/page merge driver: claim by claim, field by field; and through a real `git merge`."""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path

from openwiki_git.claims.merge import merge, merge_claim, merge_page
from openwiki_git.formats import sidecar as codec
from openwiki_git.model import Cause, Claim, Evidence, Mark, Sidecar
from openwiki_git.pages import citations

TOKEN = "repo-lines-v1:sha256:" + "0" * 64 + ":e30"
V1 = "repo-lines-v1:sha256:" + "1" * 64 + ":e30"
V2 = "repo-lines-v1:sha256:" + "2" * 64 + ":e30"


def claim(n: int, *, resource: str = "repo://a.py#L1-L2", version: str = TOKEN, **kw: object) -> Claim:
    base = Claim(f"claim_{n:08x}{0:024x}", f"Statement {n}.", (Evidence(resource, version),), "2026-01-01T00:00:00Z")
    return base.replace(**kw)


def sc(*claims: Claim) -> Sidecar:
    return Sidecar("p.md", "sha256:" + "0" * 64, tuple(claims))


MARK = Mark("stale", "2026-02-01T00:00:00Z", (Cause("repo://a.py#L1-L2", "changed", "@@ -1 +1 @@"),))


def test_one_side_changes_take_that_side() -> None:
    o = sc(claim(1), claim(2))
    a = sc(claim(1, resource="repo://a.py#L5-L6"), claim(2))  # ours re-anchored claim 1
    b = sc(claim(1), claim(2, mark=MARK), claim(3))  # theirs marked 2 and added 3
    merged, conflicts = merge(o, a, b)
    assert conflicts == []
    assert [c.id for c in merged.claims] == [claim(1).id, claim(2).id, claim(3).id]
    assert merged.claims[0].evidence[0].resource == "repo://a.py#L5-L6"
    assert merged.claims[1].mark == MARK


def test_re_anchored_on_one_side_and_marked_on_the_other() -> None:
    o = claim(1)
    a = claim(1, mark=MARK)
    b = claim(1, resource="repo://a.py#L3-L4", version=V1)
    merged, fields = merge_claim(o, a, b)
    assert fields == []
    assert merged.mark == MARK and merged.evidence == b.evidence


def test_both_re_anchored_keeps_ours_without_conflict() -> None:
    o = claim(1)
    merged, fields = merge_claim(o, claim(1, resource="repo://a.py#L3-L4"), claim(1, resource="repo://a.py#L7-L8"))
    assert fields == [] and merged.evidence[0].resource == "repo://a.py#L3-L4"


def test_the_newer_verification_wins_and_the_other_sides_mark_survives() -> None:
    o = claim(1)
    a = claim(1, version=V1, verified_at="2026-03-01T00:00:00Z", verified_by="human:ada")
    b = claim(1, version=V2, verified_at="2026-04-01T00:00:00Z", verified_by="human:bob", mark=None)
    merged, fields = merge_claim(o, a, b)
    assert (merged.verified_by, merged.evidence[0].version) == ("human:bob", V2) and fields == []
    # a mark made on one branch survives a confirmation made on the other
    marked = claim(1, mark=MARK)
    confirmed = claim(1, version=V1, verified_at="2026-05-01T00:00:00Z", verified_by="human:ada")
    merged, _ = merge_claim(o, marked, confirmed)
    assert merged.mark == MARK and merged.evidence[0].version == V1


def test_two_different_marks_become_one() -> None:
    other = Mark("unresolved", "2026-01-15T00:00:00Z", (Cause("repo://a.py#L1-L2", "deleted"),))
    merged, _ = merge_claim(claim(1), claim(1, mark=MARK), claim(1, mark=other))
    assert merged.mark is not None and merged.mark.status == "unresolved"
    assert merged.mark.since == "2026-01-15T00:00:00Z" and len(merged.mark.causes) == 2


def test_true_conflicts_keep_ours_and_are_reported() -> None:
    o = sc(claim(1), claim(2))
    a = sc(claim(1, statement="Ours."), claim(2, mark=MARK))
    b = sc(claim(1, statement="Theirs."))  # and retracted claim 2, which ours only marked
    merged, conflicts = merge(o, a, b)
    assert [c.statement for c in merged.claims] == ["Ours."]
    assert len(conflicts) == 1 and "statement" in conflicts[0]
    # a retraction against an edit is a conflict; the edited claim is kept
    a = sc(claim(1), claim(2, statement="Edited."))
    merged, conflicts = merge(o, a, sc(claim(1)))
    assert [c.statement for c in merged.claims] == ["Statement 1.", "Edited."] and len(conflicts) == 1


def page(links: dict[int, str], prose: str = "Statement 1. Statement 2.\n") -> str:
    claims = [claim(n, resource=r) for n, r in links.items()]
    return citations.sync(f"---\ntype: Reference\n---\n\n# P\n\n{prose}", ".openwiki/p.md", claims)


def naive_merge3(o: str, a: str, b: str) -> tuple[str, bool]:
    if a == b or b == o:
        return a, False
    if a == o:
        return b, False
    return f"<<<<<<< ours\n{a}=======\n{b}>>>>>>> theirs\n", True


def test_page_generated_parts_never_conflict() -> None:
    o = page({1: "repo://a.py#L1-L2", 2: "repo://a.py#L5-L6"})
    marked = citations.sync(o, ".openwiki/p.md", [claim(1, mark=MARK), claim(2, resource="repo://a.py#L5-L6")])
    moved = page({1: "repo://a.py#L3-L4", 2: "repo://a.py#L7-L8"})
    merged, conflicted = merge_page(o, marked, moved, naive_merge3)
    assert not conflicted
    want = citations.sync(o, ".openwiki/p.md", [claim(1, resource="repo://a.py#L3-L4", mark=MARK), claim(2, resource="repo://a.py#L7-L8")])
    assert merged == want


def test_page_prose_conflict_is_a_true_conflict() -> None:
    o = page({1: "repo://a.py#L1-L2"})
    merged, conflicted = merge_page(o, page({1: "repo://a.py#L1-L2"}, "Ours.\n"), page({1: "repo://a.py#L1-L2"}, "Theirs.\n"), naive_merge3)
    assert conflicted and "<<<<<<<" in merged and citations.BEGIN in merged


def merged_through_git(repo, path: str, ours: str, theirs: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    """`path` committed as the base, `theirs` on a branch `topic`, `ours` on main, then a real
    `git merge topic` with the driver `install` set up. The driver line runs as written:
    `openwiki-git` is found on PATH, here the console script of the environment running the tests
    (as in a user's activated venv)."""
    scripts = Path(sysconfig.get_path("scripts"))
    assert (scripts / "openwiki-git").is_file() or (scripts / "openwiki-git.exe").is_file(), scripts
    env = {**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}"}
    repo.commit_all("base")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write(path, theirs)
    repo.commit_all("theirs")
    repo.git("checkout", "-q", "main")
    repo.write(path, ours)
    repo.commit_all("ours")
    return subprocess.run(["git", "merge", "--no-edit", "topic"], cwd=repo.root, capture_output=True, text=True, env=env)


def test_driver_command_through_git_merge(repo) -> None:  # type: ignore[no-untyped-def]
    """`install`, then two branches editing the same sidecar merge without a conflict."""
    o, a, b = sc(claim(1), claim(2)), sc(claim(1, mark=MARK), claim(2)), sc(claim(1), claim(2, resource="repo://a.py#L9-L10"))
    repo.write("a.py", "x\n" * 20)
    repo.write(".openwiki/.claims/p.json", codec.dumps(o))
    assert repo.run("install") == 0
    assert repo.git("config", "merge.openwiki-git.driver").strip() == "openwiki-git merge-driver %O %A %B %P"
    p = merged_through_git(repo, ".openwiki/.claims/p.json", codec.dumps(a), codec.dumps(b))
    assert p.returncode == 0, p.stdout + p.stderr
    data = json.loads(repo.read(".openwiki/.claims/p.json"))
    assert data["claims"][0]["mark"]["status"] == "stale"
    assert data["claims"][1]["evidence"][0]["resource"] == "repo://a.py#L9-L10"


RST = """\
--------
Shop API
--------

The cart holds items.

.. c-aaaaaaaa

The total adds them up.
"""


def test_a_rst_page_merges_whole_through_git(repo) -> None:  # type: ignore[no-untyped-def]
    """A Sphinx site's `.rst` page (issue 35): `install` routes it through the driver, which merges
    it as git would, the overline title (`--------`, no front matter) and the comment markers as
    text: two branches editing different paragraphs and adding a marker each merge cleanly."""
    repo.write("docs/conf.py", 'project = "shop"\n')
    repo.write("docs/api.rst", RST)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    assert repo.run("install") == 0
    assert "docs/**/*.rst merge=openwiki-git" in repo.read(".gitattributes").splitlines()
    ours = RST.replace("The cart holds items.", "The cart holds the items of one order.")
    theirs = RST.replace("The total adds them up.\n", "The total adds them up, tax included.\n\n.. c-bbbbbbbb\n")
    p = merged_through_git(repo, "docs/api.rst", ours, theirs)
    assert p.returncode == 0, p.stdout + p.stderr
    assert repo.read("docs/api.rst") == RST.replace("The cart holds items.", "The cart holds the items of one order.").replace(
        "The total adds them up.\n", "The total adds them up, tax included.\n\n.. c-bbbbbbbb\n"
    )
    p = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=repo.root, capture_output=True, text=True)
    assert p.stdout.startswith("Merge branch 'topic'")


def test_a_rst_pages_sidecar_merges_claim_by_claim_through_git(repo) -> None:  # type: ignore[no-untyped-def]
    """A `.rst` page's sidecar is `.claims/<page>.rst.json` (formats/pagenames): the `.json` line
    `install` writes covers it, and the driver reads it as that page's sidecar (its `page` field
    is `api.rst`, not `api.rst.md`, in its errors): a mark on one branch and a re-anchoring on the other merge."""
    def rst_sc(*claims: Claim) -> Sidecar:
        return Sidecar("api.rst", "sha256:" + "0" * 64, tuple(claims))

    o, a = rst_sc(claim(1), claim(2)), rst_sc(claim(1, mark=MARK), claim(2))
    b = rst_sc(claim(1), claim(2, resource="repo://a.py#L9-L10"))
    repo.write("a.py", "x\n" * 20)
    repo.write("docs/conf.py", 'project = "shop"\n')
    repo.write("docs/api.rst", RST)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/.claims/api.rst.json", codec.dumps(o))
    assert repo.run("install") == 0
    assert "docs/.claims/**/*.json merge=openwiki-git" in repo.read(".gitattributes").splitlines()
    attr = repo.git("check-attr", "merge", "docs/.claims/api.rst.json")
    assert attr.strip().endswith("merge: openwiki-git"), attr
    p = merged_through_git(repo, "docs/.claims/api.rst.json", codec.dumps(a), codec.dumps(b))
    assert p.returncode == 0, p.stdout + p.stderr
    data = json.loads(repo.read("docs/.claims/api.rst.json"))
    assert data["claims"][0]["mark"]["status"] == "stale"
    assert data["claims"][1]["evidence"][0]["resource"] == "repo://a.py#L9-L10"
