"""A definition moved to another file (issue 23): when no definition of the cited name is left in
its file and exactly one definition elsewhere, in a tracked file of the same extension, has its
verified text (under the same name or another), the unresolved reason says where it went and
what re-points the claim, through `check` (cached or not), `claim show`, `review`, the PR
comment and `check --base`."""

from __future__ import annotations

import json
import time

import pytest

from openwiki_git.caches import statkey
from tests.support.kinds_repo import one_claim, unwrapped
from tests.support.pty_session import PtySession, openwiki_git
from tests.support.repo import GitRepo

CART = "TAX = 2\n\n\nclass Cart:\n    def add(self, item):\n        self.items.append(item)\n"
MOVED = "import os\n\n\nclass Cart:\n    def add(self, item):\n        self.items.append(item)\n"
SENTENCE = "Cart.add appends the item."
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n" + SENTENCE + "\n"
TARGET = "repo://src/shop/basket.py#Cart.add"


def hint(cid: str, target: str = TARGET) -> str:
    """The reason's hint: where the definition went, and the command that re-points the claim."""
    where = target.removeprefix("repo://")
    return f"moved to `{where}`? `claim edit c-{cid.removeprefix('claim_')[:8]} --evidence {target}` re-points it"


def _setup(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> str:
    return one_claim(repo, capsys, {"src/shop/cart.py": CART}, PAGE, SENTENCE, "repo://src/shop/cart.py#Cart.add")


def _reason(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    rc = repo.run("check", "--format", "json", *args)
    return rc, json.loads(capsys.readouterr().out)["claims"][0]["evidence"][0]["reason"]


def test_check_names_the_one_definition_elsewhere_and_never_from_a_stale_cache(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(statkey, "RACY_NS", 50_000_000)  # files written here leave git's racy window at once
    cid = _setup(repo, capsys)
    repo.write("src/shop/cart.py", "TAX = 2\n")
    rc, reason = _reason(repo, capsys)
    assert (rc, reason) == (1, "no definition named Cart.add in src/shop/cart.py")  # gone, and nowhere else yet
    repo.write("src/shop/basket.py", MOVED)
    repo.write("src/shop/basket.pyi", MOVED)  # another extension: not searched
    repo.write("src/shop/other.py", "import os\n")
    repo.git("add", "-A")  # tracked files only
    for _ in range(2):  # the second run may answer from check's cache: the same answer
        time.sleep(0.2)
        rc, reason = _reason(repo, capsys)
        assert (rc, reason) == (1, f"no definition named Cart.add in src/shop/cart.py; {hint(cid)}")
    repo.write("src/shop/other.py", MOVED)  # two of the same body (the index unchanged, so is the cited file): no guess
    time.sleep(0.2)
    rc, reason = _reason(repo, capsys)
    assert (rc, reason) == (1, "no definition named Cart.add in src/shop/cart.py")
    repo.write("src/shop/other.py", MOVED.replace("def add(", "def put("))
    repo.write("src/shop/basket.py", "import os\n")
    rc, reason = _reason(repo, capsys)  # moved and renamed
    assert (rc, reason) == (1, f"no definition named Cart.add in src/shop/cart.py; {hint(cid, 'repo://src/shop/other.py#Cart.put')}")


def test_claim_show_the_pr_comment_and_check_base_carry_the_hint(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    cid = _setup(repo, capsys)
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write("src/shop/cart.py", "TAX = 2\n")
    repo.write("src/shop/basket.py", MOVED)
    repo.commit_all("move Cart")
    capsys.readouterr()
    assert repo.run("claim", "show", cid) == 0
    assert hint(cid) in capsys.readouterr().out
    rc, reason = _reason(repo, capsys, "--base", base)
    assert rc == 1 and reason.endswith(hint(cid))
    capsys.readouterr()
    assert repo.run("github", "comment", "--print", "--base", base) == 0
    assert hint(cid).replace("`", "") in capsys.readouterr().out.replace("`", "")


def test_review_offers_the_moved_definition_and_c_confirms_with_it(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    cid = _setup(repo, capsys)
    repo.write("src/shop/cart.py", "TAX = 2\n")
    repo.write("src/shop/basket.py", MOVED)
    repo.git("add", "-A")
    capsys.readouterr()
    assert repo.run("hook") == 1  # the hook marks it unresolved, naming where it went
    assert hint(cid) in unwrapped(capsys.readouterr().out)
    s = PtySession(openwiki_git("-C", str(repo.root), "review", "--no-color", "--by", "human:ann"), cwd=repo.root)
    assert "suggested evidence: src/shop/basket.py#Cart.add (c confirms with it)" in s.read_until("[c,e,r,x,s,u,q,?]? ")
    s.send("c\n")
    assert s.wait() == 0
    claim = json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]
    assert claim["evidence"][0]["resource"] == TARGET and "mark" not in claim
    capsys.readouterr()
    assert repo.run("check") == 0


def test_a_deleted_file_names_where_its_definition_went(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    cid = _setup(repo, capsys)
    repo.git("rm", "-q", "src/shop/cart.py")
    other = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(30))  # too unlike cart.py for a rename
    repo.write("src/shop/basket.py", other + MOVED.removeprefix("import os\n\n\n"))
    repo.git("add", "-A")
    capsys.readouterr()
    assert repo.run("hook") == 1
    out = unwrapped(capsys.readouterr().out)
    assert f"src/shop/cart.py deleted; {hint(cid)}" in out, out


def test_the_printed_command_keeps_the_claims_other_evidence(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """`claim edit --evidence` replaces the whole list: the hint of a claim citing two items lists
    the one still in place before the moved one's new place, so that running it as printed
    re-points the one and keeps the other."""
    cid = _setup(repo, capsys)
    capsys.readouterr()
    tax = "repo://src/shop/cart.py#L1-L1"
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", SENTENCE, "--evidence", tax) == 0  # evidence added to it
    repo.commit_all("two items")
    repo.write("src/shop/cart.py", "TAX = 2\n")
    repo.write("src/shop/basket.py", MOVED)
    repo.git("add", "-A")
    capsys.readouterr()
    assert repo.run("check", "--format", "json") == 1
    [item] = [i for i in json.loads(capsys.readouterr().out)["claims"][0]["evidence"] if i["status"] == "unresolved"]
    label = f"c-{cid.removeprefix('claim_')[:8]}"
    command = f"claim edit {label} --evidence {tax} --evidence {TARGET}"
    assert f"`{command}` re-points it" in item["reason"], item
    assert repo.run(*command.split()) == 0
    assert [e["resource"] for e in json.loads(repo.read(".openwiki/.claims/guide.json"))["claims"][0]["evidence"]] == [tax, TARGET]
    assert repo.run("check") == 0
