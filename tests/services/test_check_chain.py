"""Each stage of check's chain (services/check_chain.run) answers a page as the full rule does.

Every stage gives a page the same entry (summary, notable records, unmarked ids, findings), from
which the one assembler (services/check_report.assemble) builds the report. So the report is the
full rule's when each stage's entry for a page is the full rule's entry for it, and its claims
(`items`) are the ones the full rule's entry and sidecar give. Each state is a real repository:
the full rule's entries (caches/check_reuse.reuse_or_judge with the cache off, no earlier stage) are
compared with

- stage 1, the cache: the entries a warm check answers from (checkcache.answer, no git) and the
  entries held page by page with a Workspace (check_reuse.reuse_or_judge with the cache on);
- stage 2, the quick judge (check_unchanged.answer_unchanged): the pages it answers.

The whole reports are compared through the CLI in tests/caches/test_check_differential.py
(cache against --no-cache) and tests/services/test_check_unchanged.py (quick judge off and on).
"""

from __future__ import annotations

import time

import pytest

from openwiki_git.caches import check_entries as checkcache
from openwiki_git.caches import statkey
from openwiki_git.services import check_chain, check_unchanged
from openwiki_git.services.check_report import items_of
from openwiki_git.store.workspace import Workspace
from tests.support.repo import claims_over

WINDOW_NS = 50_000_000
A = "".join(f"alpha {i}\n" for i in range(1, 31))
B = "".join(f"beta {i}\n" for i in range(1, 21))
REPORTED = ("summary", "notable", "unmarked", "findings")  # what the assembler reads of an entry


@pytest.fixture
def wiki(wiki_repo, capsys, monkeypatch):
    monkeypatch.setattr(statkey, "RACY_NS", WINDOW_NS)
    repo = wiki_repo
    second = "---\ntype: Reference\ntitle: Second\n---\n\n# Second\n\nBeta nineteen.\n"
    claims_over(repo, {"src/a.py": A, "lib/b.py": B, ".openwiki/second.md": second}, [
        ("guide.md", "Alpha three.", "repo://src/a.py#L3-L4"),
        ("guide.md", "Alpha and beta.", "repo://src/a.py#L10-L12", "repo://lib/b.py#L2-L2"),
        ("second.md", "Beta nineteen.", "repo://lib/b.py#L19-L20"),
        ("second.md", "Beta five.", "repo://lib/b.py#L5-L5"),
    ])
    capsys.readouterr()
    return repo


def drop_marker(repo, page: str) -> None:
    text = repo.read(f".openwiki/{page}")
    at = text.index("[^c-")
    repo.write(f".openwiki/{page}", text[:at] + text[text.index("]", at) + 1 :])


def edit_line(repo, path: str, number: int, text: str) -> None:
    lines = repo.read(path).splitlines(keepends=True)
    lines[number - 1] = text
    repo.write(path, "".join(lines))


STATES = {
    "every claim fresh": lambda r: None,
    "a marker missing": lambda r: drop_marker(r, "guide.md"),
    "a cited line changed": lambda r: edit_line(r, "src/a.py", 3, "alpha three changed\n"),
    "a cited file moved down": lambda r: r.write("src/a.py", "# header\n" + A),
    "a line changed outside every range": lambda r: edit_line(r, "src/a.py", 25, "alpha changed\n"),
}


def full_rule(root) -> tuple[Workspace, dict]:
    """Every page's entry from the full rule alone (no cache, no quick judge)."""
    ws = Workspace.open(root)
    judged = check_chain.page_entries(ws, check_chain.CheckOptions(use_cache=False), use_cache=False)
    return ws, judged


def reported(entry: dict) -> dict:
    return {k: entry[k] for k in REPORTED}


def claims_of(ws: Workspace, judged, page: str, entry: dict) -> list:
    return list(items_of(page, f"{ws.config.wiki_dir}/{page}", entry, judged.sidecars.get(page) or ws.wiki.load(page)))


@pytest.mark.parametrize("state", list(STATES))
def test_the_quick_judge_answers_a_page_as_the_full_rule(wiki, state):
    STATES[state](wiki)
    ws, full = full_rule(wiki.root)
    lean = check_unchanged.answer_unchanged(str(wiki.root), None)
    assert lean is not None and sorted([*lean.pages, *lean.rest]) == sorted(full.entries)
    for page in lean.pages:
        assert reported(lean.entries[page]) == reported(full.entries[page]), page
        assert list(lean.items(page)) == claims_of(ws, full, page, full.entries[page]), page
    if state in ("every claim fresh", "a marker missing", "a line changed outside every range"):
        assert not lean.rest
    else:
        assert lean.pages and lean.rest  # the comparison is not vacuous either way


@pytest.mark.parametrize("state", list(STATES))
def test_a_cache_entry_answers_a_page_as_the_full_rule(wiki, capsys, state):
    STATES[state](wiki)
    time.sleep(2 * WINDOW_NS / 1e9)  # out of the racy window: the run stores its entries
    assert wiki.run("check") in (0, 1)
    capsys.readouterr()
    ws, full = full_rule(wiki.root)
    answered = checkcache.answer(str(wiki.root), None)  # stage 1 for the whole wiki, without git
    assert answered is not None and sorted(answered["pages"]) == sorted(full.entries)
    held = check_chain.page_entries(ws, check_chain.CheckOptions(), use_cache=True)  # stage 1 page by page, with a Workspace
    assert not held.sidecars  # every entry held: no page judged again
    for page, entry in full.entries.items():
        assert reported(answered["pages"][page]) == reported(entry), page
        assert reported(held.entries[page]) == reported(entry), page
        assert claims_of(ws, held, page, held.entries[page]) == claims_of(ws, full, page, entry), page
