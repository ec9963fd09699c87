"""The streamed JSON report is byte for byte `check_output.to_json` of the whole report, and a plain
claim written from its claim alone is its claim_data record."""

from __future__ import annotations

import io
import random

from openwiki_git.claims import records as records
from openwiki_git.cli import check_output
from openwiki_git.model import Claim, ClaimResult, Evidence, EvidenceResult

ALPHABET = "ab \"\\/\n\t\x01\u00e9\u2028\U0001f600<>&'"


def text(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 12)))


def plain_result(rng: random.Random, page: str) -> ClaimResult:
    evidence = tuple(
        Evidence(f"repo://src/{text(rng)}.py#L{i}-L{i + 1}", f"repo-lines-v1:sha256:{'0' * 64}:x")
        for i in range(1, rng.randrange(2, 5))
    )
    claim = Claim(f"claim_{rng.getrandbits(128):032x}", text(rng), evidence,
                  rng.choice([None, "2026-01-01T00:00:00Z", text(rng)]))
    results = tuple(EvidenceResult(e.resource, "fresh", e.resource, "unchanged", e.version) for e in evidence)
    return ClaimResult(page, claim, "fresh", results, True, False, ())


def test_plain_claim_json_is_its_record():
    rng = random.Random(7)
    for _ in range(300):
        page = text(rng) + ".md"
        r = plain_result(rng, page)
        assert records.is_plainly_fresh(r)
        record = records.claim_data(r, ".openwiki")
        fields = records.fresh_record(page, f".openwiki/{page}", r.claim)
        assert records.fresh_record_data(*fields) == record
        assert check_output.plain_claim_json(*fields) == check_output.claim_json(record)


def test_a_record_plain_but_for_its_marker_is_written_as_the_encoder_writes_it():
    """item_json writes a record that is fresh_record_data(..., marker_present=False) of its own
    fields without the indenting encoder (a wiki without markers lists one per claim), byte for
    byte as claim_json does; a record that differs in anything (an extra key, a key out of order,
    a value of another type, a changed evidence item, a marker, a note) goes through the encoder."""
    rng = random.Random(12)
    for _ in range(300):
        page = text(rng) + ".md"
        r = plain_result(rng, page)
        unmarked = ClaimResult(r.page, r.claim, r.status, r.evidence, False, False, ())
        assert records.is_plainly_fresh_unmarked(unmarked)
        record = records.claim_data(unmarked, ".openwiki")
        fields = records.fresh_record(page, f".openwiki/{page}", r.claim)
        assert records.fresh_record_data(*fields, marker_present=False) == record
        assert check_output.plain_claim_json(*fields, marker_present=False) == check_output.claim_json(record)
        assert check_output.item_json(record) == check_output.claim_json(record)
        assert check_output._unmarked_plain(record) == fields
    base = records.fresh_record_data("p.md", ".openwiki/p.md", f"claim_{1:032x}", "S.", ("repo://a.py#L1-L2",), None, False)
    evidence = base["evidence"][0]
    near_misses = [
        {**base, "extra": 1},
        {k: base[k] for k in reversed(base)},
        {**base, "marker_present": 0},
        {**base, "due": 0},
        {**base, "notes": ["a note"]},
        {**base, "status": "stale"},
        {**base, "marker": "[^c-ffffffff]"},
        {**base, "verified_at": 5},
        {**base, "statement": ["S."]},
        {**base, "evidence": ({**evidence},)},
        {**base, "evidence": [{**evidence, "current_resource": "repo://b.py#L1-L2"}]},
        {**base, "evidence": [{**evidence, "reason": "moved"}]},
        {**base, "evidence": [{**evidence, "hunk": "@@ -1 +1 @@"}]},
        {**base, "evidence": [{k: evidence[k] for k in reversed(evidence)}]},
    ]
    assert check_output._unmarked_plain(base) is not None
    for record in near_misses:
        assert check_output._unmarked_plain(record) is None, record
        assert check_output.item_json(record) == check_output.claim_json(record)


def test_not_plain():
    rng = random.Random(8)
    r = plain_result(rng, "a.md")
    moved = EvidenceResult(r.evidence[0].resource, "fresh", "repo://src/x.py#L2-L3", "moved", "v")
    assert not records.is_plainly_fresh(ClaimResult(r.page, r.claim, "fresh", (moved,), True, False, ()))
    assert not records.is_plainly_fresh(ClaimResult(r.page, r.claim, "fresh", r.evidence, False, False, ()))
    assert not records.is_plainly_fresh(ClaimResult(r.page, r.claim, "fresh", r.evidence, True, True, ()))
    assert not records.is_plainly_fresh(ClaimResult(r.page, r.claim, "stale", r.evidence, True, False, ()))


def test_streamed_report_is_to_json_of_the_whole():
    rng = random.Random(9)
    for n in (0, 1, 2, 499, 500, 501, 1003):
        results = [plain_result(rng, f"p{i % 7}.md") for i in range(n)]
        whole = records.build(results, wiki_dir=".openwiki", source="worktree", extra={"only_problems": True})
        out = io.StringIO()
        head = {k: whole[k] for k in ("$schema", "tool", "wiki_dir", "source")}
        claims = (check_output.claim_json(c) for c in whole["claims"])
        tail = {"summary": whole["summary"], "only_problems": True}
        check_output.write_json(out.write, head, claims, lambda tail=tail: tail)
        assert out.getvalue() == check_output.to_json(whole)


def test_a_whole_report_written_through_the_stream_is_to_json():
    """A report's claims as the assembler gives them (a plain claim's FreshRecord tuple, every other
    claim's record: item_json writes both) written through write_json is to_json's."""
    rng = random.Random(11)
    results = [plain_result(rng, text(rng) + ".md") for _ in range(200)]
    for i in range(0, 200, 7):  # some not plain: no marker, due, a note
        r = results[i]
        results[i] = ClaimResult(r.page, r.claim, r.status, r.evidence, i % 2 == 0, i % 3 == 0, ("a note",) if i % 5 == 0 else ())
    data = records.build(results, wiki_dir=".openwiki", source="worktree", extra={"base": "abc"})
    out = io.StringIO()
    head = {k: data[k] for k in ("$schema", "tool", "wiki_dir", "source")}
    items = (records.fresh_record(r.page, f".openwiki/{r.page}", r.claim) if records.is_plainly_fresh(r)
             else records.claim_data(r, ".openwiki") for r in results)
    check_output.write_json(
        out.write, head, (check_output.item_json(c) for c in items), lambda: {"summary": data["summary"], "base": "abc"})
    assert out.getvalue() == check_output.to_json(data)
