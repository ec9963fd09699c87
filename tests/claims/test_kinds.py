"""Evidence that names what it means (issue 23): a definition by name (`#Cart.add`, its head
`#Cart:head`), a set of files (`src/stores/*.py`) and a set of matching lines (`?grep=`),
through the real CLI: `claim add/show/confirm`, `check`, the hook on a staged diff and
`check --base` on commits."""

from __future__ import annotations

import json

import pytest

from tests.support.kinds_repo import first_claim, one_claim, staged_hook
from tests.support.repo import GitRepo

CART = '''import os


class Cart:
    """A shopping cart."""

    def __init__(self, limit: int) -> None:
        self.items = []
        self.limit = limit

    def add(self, item):
        if len(self.items) >= self.limit:
            raise OverflowError("full")
        self.items.append(item)
'''
PAGE = "---\ntype: Reference\ntitle: Guide\n---\n\n# Guide\n\n{}\n"


def _setup(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], sentence: str, resource: str, files: dict[str, str] | None = None,
    prose: str | None = None,
) -> str:
    return one_claim(repo, capsys, {"src/shop/cart.py": CART, **(files or {})}, PAGE.format(prose or sentence), sentence, resource)


def _claim(repo: GitRepo) -> dict:  # type: ignore[type-arg]
    return first_claim(repo)


def _hook(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return staged_hook(repo, capsys)


def _check(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    rc = repo.run("check", "--format", "json", *args)
    return rc, json.loads(capsys.readouterr().out)


ADD = "Cart.add raises OverflowError past its limit."


def test_a_definition_stays_fresh_when_it_moves_and_its_file_is_renamed(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add")
    assert _claim(repo)["evidence"][0]["resource"] == "repo://src/shop/cart.py#Cart.add"
    assert _claim(repo)["evidence"][0]["version"].startswith("repo-def-v2:sha256:")
    moved = CART.replace("import os\n", "import os\nimport sys\n\nLIMIT = 3\n").replace(
        "    def add(", "    def clear(self):\n        self.items = []\n\n    def add("
    )
    repo.write("src/shop/cart.py", moved)
    rc, out = _hook(repo, capsys)
    assert rc == 0, out
    assert "mark" not in _claim(repo)
    repo.commit_all("methods above")
    repo.git("mv", "src/shop/cart.py", "src/shop/basket.py")
    rc, out = _hook(repo, capsys)
    assert rc == 0, out
    assert _claim(repo)["evidence"][0]["resource"] == "repo://src/shop/basket.py#Cart.add"  # followed the rename
    repo.commit_all("renamed")
    rc, data = _check(repo, capsys)
    assert rc == 0 and data["summary"]["fresh"] == 1


def test_a_changed_definition_is_stale_naming_it_and_the_hunk(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    cid = _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add")
    check_none = 'raise OverflowError("full")\n        if item is None:\n            raise ValueError("none")'
    grown = CART.replace('raise OverflowError("full")', check_none)
    repo.write("src/shop/cart.py", grown)
    rc, out = _hook(repo, capsys)
    assert rc == 1
    assert "definition Cart.add changed (L11-L16 now) by @@ -13,0 +14,2 @@" in out
    mark = _claim(repo)["mark"]
    assert mark["causes"][0]["resource"] == "repo://src/shop/cart.py#Cart.add" and mark["causes"][0]["hunk"] == "@@ -13,0 +14,2 @@"
    repo.commit_all("grown")
    # `claim show` diffs the definition as verified against the definition now
    capsys.readouterr()
    assert repo.run("claim", "show", cid, "--format", "json") == 0
    item = json.loads(capsys.readouterr().out)["evidence_status"][0]
    assert '+            raise ValueError("none")' in item["diff"]
    assert item["verified_text"].startswith("    def add(self, item):\n")
    # confirmed, the claim covers the whole definition however much it grew
    assert repo.run("claim", "confirm", cid, "--by", "human:ann") == 0
    repo.commit_all("confirmed")
    rc, data = _check(repo, capsys)
    assert rc == 0 and data["summary"]["fresh"] == 1
    repo.write("src/shop/cart.py", grown.replace('"none"', '"no item"'))  # the last line of the grown body
    rc, out = _hook(repo, capsys)
    assert rc == 1 and "definition Cart.add changed" in out


def test_a_definition_that_is_gone_is_unresolved_naming_a_rename(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add")
    repo.write("src/shop/cart.py", CART.replace("def add(", "def put("))
    rc, out = _hook(repo, capsys)
    assert rc == 1
    assert "no definition named Cart.add in src/shop/cart.py; renamed to `Cart.put`?" in out
    assert _claim(repo)["mark"]["status"] == "unresolved"
    rc, data = _check(repo, capsys)
    assert rc == 1 and data["claims"][0]["status"] == "unresolved"


def test_a_head_claim_ignores_its_body_but_not_its_signature(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, "A `Cart` takes a limit.", "repo://src/shop/cart.py#Cart:head")
    repo.write("src/shop/cart.py", CART.replace("self.items.append(item)", "self.items.insert(0, item)"))
    rc, out = _hook(repo, capsys)
    assert rc == 0, out
    repo.commit_all("body")
    repo.write("src/shop/cart.py", CART.replace("limit: int", "limit: int = 10"))
    rc, out = _hook(repo, capsys)
    assert rc == 1 and "definition Cart:head changed" in out


@pytest.mark.parametrize(
    ("setting", "sentence", "edit", "stale"),
    [
        pytest.param("", "A `Cart` takes a limit.", ("limit: int", "limit: float"), False, id="default-sentence-names-no-type"),
        pytest.param("", "A `Cart` takes a limit, an int.", ("limit: int", "limit: float"), True,
                     id="default-sentence-names-int"),
        pytest.param("", "A `Cart` takes a limit, a float.", ("limit: int", "limit: float"), True,
                     id="default-sentence-names-float"),
        pytest.param("", "A `Cart` returns None.", ("-> None", "-> typing.Optional[None]"), False,
                     id="default-same-types-spelled-otherwise"),
        pytest.param("cosmetic_annotations: false\n", "A `Cart` takes a limit.", ("limit: int", "limit: float"), True,
                     id="false-always-code"),
        pytest.param("cosmetic_annotations: true\n", "A `Cart` takes a limit, an int.", ("limit: int", "limit: float"), False,
                     id="true-never-marks"),
    ],
)
def test_an_annotation_only_edit_of_a_head_marks_when_the_sentence_names_a_changed_type(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], setting: str, sentence: str, edit: tuple[str, str], stale: bool
) -> None:
    """The hook, `check` (before and after the commit) and `check --base` agree, claim by claim:
    by default an annotation-only edit marks only a claim whose sentence names a type it added or
    removed; `cosmetic_annotations` is the switch either way (claims/relevance.py)."""
    _setup(repo, capsys, sentence, "repo://src/shop/cart.py#Cart:head")
    repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + setting)
    repo.commit_all("config")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write("src/shop/cart.py", CART.replace(*edit))
    rc, data = _check(repo, capsys)
    assert data["claims"][0]["status"] == ("stale" if stale else "fresh") and rc == int(stale)
    got, out = _hook(repo, capsys)
    assert got == int(stale), out
    assert ("definition Cart:head changed" in out or "cosmetic: annotations" in out) if stale else "kept fresh" in out
    assert ("mark" in _claim(repo)) is stale
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "annotations")
    for args in ((), ("--base", base)):
        rc, data = _check(repo, capsys, *args)
        assert data["claims"][0]["status"] == ("stale" if stale else "fresh"), args


def test_an_edit_elsewhere_in_the_file_leaves_a_definition_fresh_in_check(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add")
    repo.write("src/shop/cart.py", CART.replace("self.limit = limit", "self.limit = max(limit, 1)"))
    rc, data = _check(repo, capsys)
    assert rc == 0 and data["claims"][0]["evidence"][0]["reason"] == "unchanged"
    repo.write("src/shop/cart.py", CART.replace(">= self.limit", "> self.limit"))
    rc, data = _check(repo, capsys)
    assert rc == 1 and data["claims"][0]["evidence"][0]["reason"].startswith("definition Cart.add changed")


STORES = {"src/shop/stores/memory.py": "class MemoryStore:\n    pass\n", "src/shop/stores/disk.py": "class DiskStore:\n    pass\n"}
SET = "The stores are MemoryStore and DiskStore."


def test_a_file_set_is_stale_when_a_file_is_added_deleted_or_renamed(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, SET, "repo://src/shop/stores/*.py", STORES)
    repo.write("src/shop/stores/memory.py", "class MemoryStore:\n    size = 0\n")  # a member's content
    rc, out = _hook(repo, capsys)
    assert rc == 0, out
    repo.commit_all("content")
    for change, expected in (
        (lambda: repo.write("src/shop/stores/cloud.py", "class CloudStore: ...\n"), "new: src/shop/stores/cloud.py"),
        (lambda: repo.git("rm", "-q", "src/shop/stores/disk.py"), "gone: src/shop/stores/disk.py"),
        (
            lambda: repo.git("mv", "src/shop/stores/disk.py", "src/shop/stores/files.py"),
            "new: src/shop/stores/files.py; gone: src/shop/stores/disk.py",
        ),
        (lambda: _replace_by_link(repo, "src/shop/stores/disk.py", "memory.py"), "gone: src/shop/stores/disk.py"),  # a typechange
    ):
        change()
        rc, out = _hook(repo, capsys)
        assert rc == 1 and expected in out, out
        rc, data = _check(repo, capsys)
        assert rc == 1 and expected in data["claims"][0]["evidence"][0]["reason"]
        repo.git("reset", "-q", "--hard")
        repo.git("clean", "-qfd")


def _replace_by_link(repo: GitRepo, path: str, target: str) -> None:
    """`path` replaced by a symbolic link to `target`, staged (git sees a typechange)."""
    (repo.root / path).unlink()
    (repo.root / path).symlink_to(target)
    repo.git("add", path)


def test_a_file_set_through_check_base_and_claim_show(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    cid = _setup(repo, capsys, SET, "repo://src/shop/stores/*.py", STORES)
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write("src/shop/stores/cloud.py", "class CloudStore: ...\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "cloud")  # without the hook: CI catches it
    rc, data = _check(repo, capsys, "--base", base)
    assert rc == 1 and data["claims"][0]["status"] == "stale"
    assert "new: src/shop/stores/cloud.py" in json.dumps(data["claims"][0])
    capsys.readouterr()
    assert repo.run("claim", "show", cid, "--format", "json") == 0
    diff = json.loads(capsys.readouterr().out)["evidence_status"][0]["diff"]
    assert "+src/shop/stores/cloud.py" in diff and " src/shop/stores/disk.py" in diff
    assert repo.run("claim", "confirm", cid, "--by", "human:ann") == 0
    rc, data = _check(repo, capsys)
    assert rc == 0


RAISES = "Only `Cart.add` raises OverflowError."


def test_a_line_set_is_stale_on_a_new_match_not_on_a_moved_one(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, RAISES, "repo://src/**/*.py?grep=raise%20OverflowError", {"src/shop/pricing.py": "def price(n):\n    return n\n"})
    claim = _claim(repo)
    assert claim["evidence"][0]["resource"] == "repo://src/**/*.py?grep=raise%20OverflowError"
    repo.write("src/shop/cart.py", "# moved down\n\n" + CART)
    rc, out = _hook(repo, capsys)
    assert rc == 0, out
    repo.commit_all("moved")
    repo.write("src/shop/pricing.py", "def price(n):\n    if n < 0:\n        raise OverflowError('neg')\n    return n\n")
    rc, out = _hook(repo, capsys)
    assert rc == 1 and "new: src/shop/pricing.py: raise OverflowError('neg')" in out
    rc, data = _check(repo, capsys)
    assert rc == 1 and "new: src/shop/pricing.py: raise OverflowError('neg')" in data["claims"][0]["evidence"][0]["reason"]


def test_a_line_set_with_a_group_covers_what_the_group_captures(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, "Cart defines __init__ and add.", "repo://src/shop/cart.py?grep=def%20(%5Cw%2B)")
    assert repo.run("claim", "show", _claim(repo)["id"], "--format", "json") == 0
    shown = json.loads(capsys.readouterr().out)["evidence_status"][0]["current_text"]
    assert shown == "src/shop/cart.py: __init__\nsrc/shop/cart.py: add\n"
    repo.write("src/shop/cart.py", CART.replace("def add(self, item):", "def add(self, item, count=1):"))
    rc, out = _hook(repo, capsys)
    assert rc == 0, out  # a signature changed, not the names
    repo.commit_all("signature")
    repo.write("src/shop/cart.py", CART + "\n    def clear(self):\n        self.items = []\n")
    rc, out = _hook(repo, capsys)
    assert rc == 1 and "new: src/shop/cart.py: clear" in out


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        ("repo://src/**/*.py?grep=(a%2B)%2Bb", "nests repeats"),
        ("repo://src/**/*.py?grep=(a%7Caa)*", "nests repeats, repeats an alternation"),
        ("repo://src/**/*.py?grep=(x)%5C1", "backreference"),
        ("repo://src/**/*.py?grep=.*.*x", "more unbounded repeats"),  # cubic on a long line
        ("repo://src/**/*.py?grep=(", "not a Python regular expression"),
        ("repo://src/shop/cart.py#Cart.missing", "no definition named Cart.missing"),
        ("repo://src/shop/cart.py#Cart.add:tail", "name a definition"),
        ("repo://../etc/*.py", "inside the repository"),
        ("repo://.openwiki/*.md", "generated wiki"),
    ],
)
def test_bad_evidence_of_the_new_kinds_is_refused_at_claim_add(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], resource: str, message: str
) -> None:
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add")
    before = repo.snapshot()
    capsys.readouterr()
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Other.", "--evidence", resource) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert repo.snapshot() == before


def test_openwiki_mode_refuses_the_new_kinds(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#L11-L14")
    repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + "sidecar_format: openwiki\n")
    before = repo.snapshot()
    capsys.readouterr()
    for resource in ("repo://src/shop/cart.py#Cart.add", "repo://src/**/*.py", "repo://src/**/*.py?grep=raise"):
        assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Other.", "--evidence", resource) == 2
        err = capsys.readouterr().err
        assert "OpenWiki cannot read this kind; use a line range" in err and "hint: " in err
    assert repo.snapshot() == before


def test_a_language_without_a_parser_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add", {"src/Main.kt": "fun main() {}\n"})
    capsys.readouterr()
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Other.", "--evidence", "repo://src/Main.kt#main") == 2
    assert "definitions are read in Python, JavaScript, TypeScript, Go and Rust files only" in capsys.readouterr().err


def test_a_javascript_method_by_name(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    js = "class Server {\n  listen(port) {\n    return port;\n  }\n}\n"
    _setup(repo, capsys, ADD, "repo://web/server.js#Server.listen", {"web/server.js": js})
    repo.write("web/server.js", "// the server\n" + js)
    rc, out = _hook(repo, capsys)
    assert rc == 0, out
    repo.write("web/server.js", js.replace("return port;", "return port + 1;"))
    rc, out = _hook(repo, capsys)
    assert rc == 1 and "definition Server.listen changed" in out


def test_validate_and_lint_accept_every_kind(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    more = (
        ("A `Cart` takes a limit.", "repo://src/shop/cart.py#Cart:head"),
        (SET, "repo://src/shop/stores/*.py"),
        (RAISES, "repo://src/**/*.py?grep=raise%20OverflowError"),
    )
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add", STORES, prose=" ".join([ADD, *(m[0] for m in more)]))
    for sentence, resource in more:
        assert repo.run("claim", "add", "--page", "guide.md", "--statement", sentence, "--evidence", resource) == 0
    capsys.readouterr()
    assert repo.run("validate") == 0, capsys.readouterr()
    repo.run("lint", "--fix")  # the generated index.md lists the page's new text
    capsys.readouterr()
    rc = repo.run("lint")
    out = capsys.readouterr()
    assert rc == 0, out
    page = repo.read(".openwiki/guide.md")
    assert "[`src/shop/stores/*.py`](../src/shop/stores)" in page  # the citation block links a set's directory
    assert "[`src/shop/cart.py#Cart.add`](../src/shop/cart.py)" in page


def test_checks_cached_answer_is_never_reused_for_a_set(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(repo, capsys, SET, "repo://src/shop/stores/*.py", STORES)
    assert _check(repo, capsys)[0] == 0
    assert _check(repo, capsys)[0] == 0  # warm: the page's summary is cached, but not a set's
    repo.write("src/shop/stores/cloud.py", "class CloudStore: ...\n")
    repo.git("add", "src/shop/stores/cloud.py")  # tracked now; no sidecar or cited file changed
    rc, data = _check(repo, capsys)
    assert rc == 1 and data["claims"][0]["evidence"][0]["reason"] == "new: src/shop/stores/cloud.py"


def test_validate_in_openwiki_mode_reports_the_kinds_openwiki_cannot_read(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    more = (
        ("A `Cart` takes a limit.", "repo://src/shop/cart.py#Cart:head"),
        (SET, "repo://src/shop/stores/*.py"),
        (RAISES, "repo://src/**/*.py?grep=raise%20OverflowError"),
        ("The cart module is short.", "repo://src/shop/cart.py#L11-L14"),
    )
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add", STORES, prose=" ".join([ADD, *(m[0] for m in more)]))
    for sentence, resource in more:  # written by hand in openwiki-git's format, then the wiki is switched
        assert repo.run("claim", "add", "--page", "guide.md", "--statement", sentence, "--evidence", resource) == 0
    repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + "sidecar_format: openwiki\n")
    before = repo.snapshot()
    capsys.readouterr()
    assert repo.run("validate") == 1
    out = capsys.readouterr()
    problems = [line for line in (out.out + out.err).splitlines() if "OpenWiki cannot read this kind" in line]
    assert [p.split(": ")[1] for p in problems] == [f"$.claims[{i}].evidence[0].resource" for i in range(4)]
    assert all(p.startswith(".openwiki/.claims/guide.json: ") and p.endswith("use a line range") for p in problems)
    assert "#L11-L14" not in out.out + out.err and "Traceback" not in out.err
    assert repo.snapshot() == before


def test_a_definition_in_a_file_that_no_longer_parses_is_unreadable_not_gone(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """tenacity's `from tenacity.async import AsyncRetrying` (`async` a keyword since Python 3.7):
    its file no longer parses, so its definitions cannot be read; the reason says so and where,
    rather than that the definition is gone (no rename is guessed)."""
    _setup(repo, capsys, ADD, "repo://src/shop/cart.py#Cart.add")
    repo.write("src/shop/cart.py", CART + "\nfrom shop.async import later\n")
    got, data = _check(repo, capsys)
    item = data["claims"][0]["evidence"][0]
    assert got == 1 and item["status"] == "unresolved", item
    assert item["reason"].startswith("src/shop/cart.py does not parse as Python (line ")
    assert item["reason"].endswith("#Cart.add cannot be read")
