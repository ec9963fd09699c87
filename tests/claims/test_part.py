"""The cited part of an evidence item (claims/part.py): a head's own lines, the hunks inside
them, "now at" the part's real lines, and the verified text of the part against its current
text with a few lines around each change, numbered with the file's real line numbers; through
the real hook and `claim show` on a git repository."""

from __future__ import annotations

import json

import pytest

from openwiki_git.claims import part
from openwiki_git.diff.hunks import Hunk
from openwiki_git.evidence.kinds import Symbol
from tests.support.kinds_repo import first_claim, one_claim, staged_hook
from tests.support.repo import GitRepo


def _client(params: str, body_lines: int = 60, tail: str = "done") -> str:
    body = "".join(f"        step_{i} = {i}\n" for i in range(body_lines))
    return (
        "import os\n\n\n"
        "class Client:\n"
        '    """An HTTP client."""\n\n'
        f"    def __init__(self, {params}) -> None:\n"
        "        self.ready = True\n\n"
        "    def send(self):\n"
        f"{body}"
        f"        return {tail!r}\n"
    )


HEAD = "repo://src/client.py#Client:head"


def test_a_heads_spans_hunks_and_now_at_are_its_own_lines_not_the_classs() -> None:
    text = _client("verify=True")
    sym = Symbol("src/client.py", "Client", head=True)
    spans = part.symbol_spans(sym, text)
    assert spans == ((4, 5), (7, 7))  # the class line, its summary, __init__'s signature
    assert part.at(spans) == "L4-L5, L7-L7"
    far = Hunk(40, 1, 40, 1)  # a body line of send(), inside the class, outside its head
    near = Hunk(7, 1, 7, 1)
    assert part.hunks_inside(spans, (near, far)) == (near,)
    whole = part.symbol_spans(Symbol("src/client.py", "Client", head=False), text)
    assert whole == ((4, 71),)
    assert part.hunks_inside(whole, (near, far)) == (near, far)


def test_a_large_parts_diff_shows_each_change_with_a_few_lines_around_it_at_real_numbers() -> None:
    then = _client("verify=True")
    now = "# a line above\n" + _client("verify=True, trust_env=True", tail="finished")
    got = part.cited("repo://src/client.py#Client", "repo://src/client.py#Client", now, then)
    assert got.now == ((5, 72),) and got.then == ((4, 71),) and got.at == "L5-L72"
    assert got.shown is not None
    lines = got.shown.text.splitlines()
    assert lines[0] == "@@ L5-L11 now (L4-L10 as verified) @@"
    assert "-     7 |     def __init__(self, verify=True) -> None:" in lines
    assert "+     8 |     def __init__(self, verify=True, trust_env=True) -> None:" in lines
    assert "+    72 |         return 'finished'" in lines
    assert not any("step_30" in ln for ln in lines)  # the unchanged middle is left out
    assert len(lines) < 20 and got.shown.changed == 4
    assert (8, 8) in got.shown.shown or any(a <= 8 <= b for a, b in got.shown.shown)


def test_a_small_part_is_shown_whole_with_its_changes_inline() -> None:
    then, now = _client("verify=True", body_lines=2), _client("verify=False", body_lines=2)
    got = part.cited("repo://src/client.py#Client", "repo://src/client.py#Client", now, then, whole_below=part.WHOLE_BELOW)
    assert got.shown is not None
    rows = got.shown.text.splitlines()
    assert rows[0] == "@@ L4-L13 now (L4-L13 as verified) @@"
    assert "      4 | class Client:" in rows and "     13 |         return 'done'" in rows


def test_a_heads_disjoint_spans_show_a_jump_and_an_unchanged_part_its_current_lines() -> None:
    text = _client("verify=True")
    got = part.cited(HEAD, HEAD, text, text)
    assert got.shown is not None and got.shown.changed == 0
    assert got.shown.text.splitlines() == [
        "      4 | class Client:", '      5 |     """An HTTP client."""', "   ... |",
        "      7 |     def __init__(self, verify=True) -> None:",
    ]
    assert got.shown.shown == ((4, 5), (7, 7))


def test_a_range_is_numbered_where_it_is_now_and_where_it_was_verified() -> None:
    then = "a\nb\nc\nd\n"
    now = "new\nnew\na\nB\nc\nd\n"
    got = part.cited("repo://x.py#L1-L3", "repo://x.py#L3-L5", now, then, (1, 3))
    assert got.shown is not None
    assert got.shown.text.splitlines() == [
        "@@ L3-L5 now (L1-L3 as verified) @@", "      3 | a", "-     2 | b", "+     4 | B", "      5 | c",
    ]
    only_text = part.cited("repo://x.py#L1-L3", "repo://x.py#L3-L5", now, None, then_part="a\nb\nc\n")
    assert only_text.shown is not None and "-       | b" in only_text.shown.text.splitlines()


def test_the_hooks_cause_and_claim_show_name_only_the_heads_hunk_and_lines(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = one_claim(
        repo, capsys, {"src/client.py": _client("verify=True")}, "---\ntype: Reference\n---\n\n# G\n\nClient takes verify.\n",
        "Client takes verify.", HEAD,
    )
    repo.write("src/client.py", _client("cert, verify=True", tail="finished"))  # a required parameter: the head changed
    rc, out = staged_hook(repo, capsys)
    assert rc == 1
    cause = first_claim(repo)["mark"]["causes"][0]
    assert cause["hunk"] == "@@ -7 +7 @@"  # not the body's hunk at the end of the class
    assert "definition Client:head changed (L4-L5, L7-L7 now)" in out
    repo.commit_all("changed")
    capsys.readouterr()
    assert repo.run("claim", "show", cid, "--format", "json") == 0
    item = json.loads(capsys.readouterr().out)["evidence_status"][0]
    assert item["now_at"] == "L4-L5, L7-L7"
    assert item["part_diff"].splitlines()[-1] == "+     7 |     def __init__(self, cert, verify=True) -> None:"
    assert "finished" not in item["part_diff"]
