"""One JSON-path rendering (schema.json_path) for `validate`'s schema errors, OKF's front-matter
report and the refresher's verdict problems."""

from __future__ import annotations

import pytest

from openwiki_git.formats import schema
from openwiki_git.refresh import protocol


@pytest.mark.parametrize(("parts", "shown"), [
    ((), "$"), (("claims",), "$.claims"), (("claims", 0, "evidence", 12), "$.claims[0].evidence[12]"),
    ([0, 1], "$[0][1]"), (("a.b",), "$.a.b"),
])
def test_json_path(parts: tuple[str | int, ...], shown: str) -> None:
    assert schema.json_path(parts) == shown


def test_the_refresher_renders_verdict_problems_with_it() -> None:
    problems = protocol.schema_problems({"claim_id": "x", "verdict": "holds", "cited_ranges": [{"resource": 3}]})
    assert "$.cited_ranges[0].resource: 3 is not of type 'string'" in problems
    assert "$.cited_ranges[0]: 'quote' is a required property" in problems
