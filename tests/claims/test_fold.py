"""One claim per sentence: claims/fold.py's rule (which claims share a sentence, the folded claim)
and the merge driver's folding of a claim one side folded and the other still has."""

from __future__ import annotations

from openwiki_git.claims import fold
from openwiki_git.claims.merge import merge
from openwiki_git.model import Cause, Claim, Evidence, Mark, Sidecar
from openwiki_git.pages import citations

V = "repo-lines-v1:sha256:" + "0" * 64 + ":e30"
OLD = "repo-lines-v1:sha256:" + "1" * 64 + ":e30"
MARK = Mark("stale", "2026-02-01T00:00:00Z", (Cause("repo://a.py#L1-L2", "changed", "@@ -1 +1 @@"),))


def claim(n: int, statement: str = "Widgets grow.", *, resource: str = "repo://a.py#L1-L2", version: str = V,
          at: str = "2026-01-05T00:00:00Z", by: str = "human:ann", mark: Mark | None = None) -> Claim:
    return Claim(f"claim_{n:08x}{0:024x}", statement, (Evidence(resource, version),), at, by, mark)


def page(*groups: tuple[str, tuple[Claim, ...]]) -> str:
    return "# Page\n\n" + " ".join(s + "".join(citations.marker(c.id) for c in cs) for s, cs in groups) + "\n"


def test_markers_after_one_sentence_are_one_group_in_marker_order() -> None:
    a, b, c, d = claim(1), claim(2, resource="repo://b.py#L3-L3"), claim(3, "Widgets shrink."), claim(4)
    text = page(("Widgets grow.", (b, a, d)), ("Widgets shrink.", (c,)))
    assert fold.shared(text, (a, b, c, d)) == [[b, a, d]]


def test_a_page_without_markers_groups_equal_statements() -> None:
    a, b, c = claim(1), claim(2, " Widgets  grow. "), claim(3, "Other.")
    assert fold.shared("# Page\n\nWidgets grow. Other.\n", (a, b, c)) == [[a, b]]


def test_the_folded_claim_is_fresh_only_if_all_were_and_keeps_the_earliest_verification() -> None:
    a = claim(1, at="2026-01-05T00:00:00Z", by="human:ann")
    b = claim(2, resource="repo://b.py#L3-L3", at="2026-01-02T00:00:00+01:00", by="model:m", mark=MARK)
    c = claim(3, resource="repo://a.py#L1-L2", version=OLD, at="2026-01-09T00:00:00Z")  # a's resource, older token
    merged = fold.fold([a, b, c], "Widgets grow.")
    assert merged.id == a.id and merged.statement == "Widgets grow."
    assert [e.resource for e in merged.evidence] == ["repo://a.py#L1-L2", "repo://b.py#L3-L3"]
    assert merged.evidence[0].version == V  # neither claim of a.py is marked: the earlier verification's token
    assert (merged.verified_at, merged.verified_by) == ("2026-01-02T00:00:00+01:00", "model:m")
    assert merged.mark == MARK
    fresh = fold.fold([claim(1), claim(2, resource="repo://b.py#L3-L3")], "Widgets grow.")
    assert fresh.mark is None


def test_the_folded_claim_states_the_sentence_when_one_of_them_did() -> None:
    """A model revised the claims of one sentence one at a time: the page kept the last statement,
    which the folded claim states; claims none of which states the sentence keep the first one's
    statement, for `lint`'s prose-differs to show a person."""
    a, b = claim(1, "Widgets grow fast."), claim(2, "Widgets grow slowly.", resource="repo://b.py#L3-L3")
    assert fold.fold([a, b], "Widgets grow slowly.").statement == "Widgets grow slowly."
    assert fold.fold([a, b], "Widgets grow.").statement == "Widgets grow fast."


def test_fold_page_keeps_the_first_marker_and_records_aliases() -> None:
    a, b, c = claim(1), claim(2, resource="repo://b.py#L3-L3"), claim(3, resource="repo://c.py#L1-L1")
    text = page(("Widgets grow.", (a, b, c)))
    earlier = Sidecar("p.md", "sha256:" + "0" * 64, (a, b, c), aliases=((f"claim_{9:08x}{0:024x}", b.id),))
    folded, new_text = fold.fold_page(text, earlier)
    assert [x.id for x in folded.claims] == [a.id]
    assert len(folded.claims[0].evidence) == 3
    assert dict(folded.aliases) == {b.id: a.id, c.id: a.id, f"claim_{9:08x}{0:024x}": a.id}  # an older alias follows
    assert new_text == page(("Widgets grow.", (a,)))


def test_merge_driver_folds_a_claim_the_other_side_still_has() -> None:
    a, b = claim(1), claim(2, resource="repo://b.py#L3-L3")
    base = Sidecar("p.md", "sha256:" + "0" * 64, (a, b))
    ours, _ = fold.fold_page(page(("Widgets grow.", (a, b))), base)
    theirs = base.replace(claims=(a, b.replace(mark=MARK, evidence=(*b.evidence, Evidence("repo://d.py#L1-L1", V)))))
    merged, conflicts = merge(base, ours, theirs)
    assert [c.id for c in merged.claims] == [a.id]
    assert merged.claims[0].mark == MARK  # their side marked the folded claim: the merge is stale
    assert [e.resource for e in merged.claims[0].evidence] == ["repo://a.py#L1-L2", "repo://b.py#L3-L3", "repo://d.py#L1-L1"]
    assert dict(merged.aliases) == {b.id: a.id}
    assert conflicts == []
