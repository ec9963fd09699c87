"""claims/causes.py: the kind of change a reason names (known reasons by rule, any other by its
first clause without particulars: kinds are data), and claims grouped by cause, worst first."""

from __future__ import annotations

import pytest

from openwiki_git.claims import causes


@pytest.mark.parametrize(("reason", "kind"), [
    ("changed", "code changed"),
    ("renamed and changed", "code changed"),
    ("definition Cart.add changed (L11-L16 now)", "code changed"),
    ("definition Cart:head changed: annotations only (L5-L6, L9-L9 now)", "annotations changed"),
    ("text changed between unchanged context: annotations only", "annotations changed"),
    ("cosmetic: annotations, line wrapping", "annotations changed"),
    ("cosmetic: comments", "comments changed"),
    ("cosmetic: whitespace, line wrapping", "whitespace changed"),
    ("cosmetic: version bounds (rich, shellingham)", "version bounds changed"),
    ("lines deleted", "lines deleted"),
    ("src/shop/cart.py deleted", "file deleted"),
    ("src/shop/cart.py deleted; moved to `src/shop/basket.py#Cart.add`?", "file deleted"),
    ("no definition named Cart.add in src/shop/cart.py; renamed to `Cart.put`?", "cited code gone"),
    ("src/app.py: not tracked by git", "cited code gone"),
    ("pkg/__init__.py does not parse as Python (line 3: invalid syntax): #retry cannot be read", "cited file unreadable"),
    ("lines inserted next to it (adjacent_insert: stale)", "lines inserted next to it"),
    ("moved past the bound: 4 cited lines, so the range keeps its size: a person or the refresher must set it", "cited text grew"),
    ("renamed to src/b.py: changed", "file renamed and changed"),
    ("new: src/stores/cloud.py; gone: src/stores/disk.py", "members changed"),
    ("marked earlier: changed", "code changed"),
    ("its sentence changed", "its sentence changed"),  # a rule added later: its own kind, no change here
    ("its sentence changed (L12 now, `x = 1`)", "its sentence changed"),
    ("broken example: `Client(verify=...)`: verify is no longer a parameter", "broken example"),
])
def test_the_kind_of_change(reason: str, kind: str) -> None:
    assert causes.kind(reason) == kind


def test_a_claims_cause_is_its_worst_item_and_every_place() -> None:
    c = causes.cause_of([("fresh", "unchanged", "repo://a.py#L1-L2"), ("stale", "changed", "repo://b.py#L3-L4"),
                         ("unresolved", "lines deleted", "repo://c.py#L5-L6")])
    assert (c.kind, c.unresolved, c.places) == ("lines deleted", True, ("repo://b.py#L3-L4", "repo://c.py#L5-L6"))
    record = {"evidence": [{"status": "stale", "reason": "definition f:head changed (L1-L2 now)", "resource": "repo://a.py#f:head",
                            "current_resource": "repo://a.py#f:head"}],
              "mark": {"status": "stale", "causes": [{"resource": "repo://a.py#f:head",
                                                      "reason": "definition f:head changed: annotations only (L1-L2 now)"}]}}
    assert causes.of_record(record).kind == "annotations changed"  # the mark says what the change was
    del record["mark"]
    assert causes.of_record(record).kind == "code changed"


def test_groups_worst_first_and_described() -> None:
    records = (
        [("a", causes.Cause("c1", "annotations changed", places=(f"repo://api.py#f{i}:head",))) for i in range(40)]
        + [("b", causes.Cause("c1", "code changed", places=("repo://api.py#L3-L4",))) for _ in range(3)]
        + [("c", causes.Cause("c2", "code changed", places=("repo://x.py#L1-L2", "repo://y.py#g")))]
        + [("d", causes.Cause("c2", "lines deleted", unresolved=True, places=("repo://z.py#L9-L9",)))]
    )
    groups = causes.group(records, lambda r: r[1])
    assert [g.describe() for g in groups] == [
        "lines deleted in 1 range, not found now: 1 claim",
        "code changed in 1 range: 3 claims",
        "code changed in 2 places: 1 claim",
        "annotations changed in 40 definitions: 40 claims",  # mild: last, however large
    ]
    assert [g.cause.commit for g in groups] == ["c2", "c1", "c2", "c1"]
