"""One timestamp parser (timestamps.instant) for check's `stale_after`/`verified_at`, the merge
driver's mark times and OKF validation. The forms below were honoured by `check` (and the merge
driver) but rejected by `validate`; they are now rejected by all three alike."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from openwiki_git.claims import freshness as checker
from openwiki_git.claims import merge as claims_merge
from openwiki_git.formats.timestamps import instant
from openwiki_git.model import Claim, Evidence
from openwiki_git.pages import frontmatter as fm
from openwiki_git.pages import okf

GOOD = ["2099-01-01T00:00Z", "2099-01-01T00:00:00Z", "2099-01-01T00:00:00.25Z", "2099-01-01T02:00:00+02:00",
        "2098-12-31T19:00-05:00"]
# Parsed by datetime.fromisoformat (so, before, by check and the merge driver), refused by OKF.
DISAGREED = ["2099-01-01 00:00Z", "20990101T0000Z", "2099-01-01T00:00+0000", " 2099-01-01T00:00Z", "2099-01-01T00:00Z\n",
             "2099-01-01T00Z"]
NEVER = ["2099-01-01T00:00", "2099-01-01", "2099-13-01T00:00Z", "2099-01-01T25:00Z", "２０９９-01-01T00:00Z", ""]


@pytest.mark.parametrize("text", GOOD)
def test_instants_with_an_offset(text: str) -> None:
    fraction = 250_000 if ".25" in text else 0
    assert instant(text) == datetime(2099, 1, 1, microsecond=fraction, tzinfo=UTC)


@pytest.mark.parametrize("text", DISAGREED + NEVER)
def test_not_instants(text: str) -> None:
    assert instant(text) is None


def test_not_text() -> None:
    assert instant(None) is None and instant(datetime(2099, 1, 1, tzinfo=UTC)) is None


def claim(verified_at: str = "2030-01-01T00:00:00Z") -> Claim:
    return Claim(id="c-00000000", statement="s", evidence=(Evidence("src/a.py#L1-L1", "t"),), verified_at=verified_at)


NOW = datetime(2031, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("text", GOOD)
def test_check_honours_a_valid_stale_after_and_validate_accepts_it(text: str) -> None:
    assert not checker.is_due(claim(), NOW, None, text)  # in 2099: not passed
    assert checker.next_due_change(claim(), NOW, None, text) == instant(text).timestamp()  # type: ignore[union-attr]
    assert not okf.problems(fm.parse(f'---\ntype: Reference\nstale_after: "{text}"\n---\n', filename="p.md"))  # type: ignore[arg-type]


@pytest.mark.parametrize("text", DISAGREED)
def test_a_stale_after_validate_rejects_is_unparseable_for_check_too(text: str) -> None:
    problems = okf.problems(fm.parse(f"---\ntype: Reference\nstale_after: {json.dumps(text)}\n---\n", filename="p.md"))  # type: ignore[arg-type]
    assert [p[1] for p in problems] == [f"`stale_after` {text!r} is not a date-time with an offset"]
    assert checker.is_due(claim(), NOW, None, text)  # unparseable counts as passed (it was honoured: not due)
    assert checker.next_due_change(claim(), NOW, None, text) is None


@pytest.mark.parametrize("text", DISAGREED)
def test_the_merge_driver_reads_mark_times_alike(text: str) -> None:
    assert claims_merge._newer("2001-01-01T00:00:00Z", text)  # an unreadable stamp is the oldest
    assert not claims_merge._newer(text, "2001-01-01T00:00:00Z")


@pytest.mark.parametrize("text", DISAGREED)
def test_a_verified_at_check_cannot_read_is_due_under_reverify_after(text: str) -> None:
    assert checker.is_due(claim(text), NOW, 10**12)
    assert checker.next_due_change(claim(text), NOW, 10**12) is None
