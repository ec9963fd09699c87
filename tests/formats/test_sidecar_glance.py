"""sidecar.glance, the counting reader: on every valid sidecar it agrees with the careful reader
on ids, verifiedBy and marks; a text that is not a sidecar's shape is a ValueError."""

from __future__ import annotations

import pytest

from openwiki_git.formats import sidecar
from openwiki_git.model import Cause, Claim, Evidence, Mark, Sidecar

TOKEN = "repo-lines-v1:sha256:" + "a" * 64 + ":eyJ4Ijox"


def test_glance_agrees_with_the_careful_reader():
    ev = (Evidence("repo://src/a.py#L1-L2", TOKEN),)
    mark = Mark("unresolved", "2026-01-01T00:00:00Z", (Cause("repo://src/a.py#L1-L2", "deleted"),
                                                       Cause("repo://src/old.py#L3-L4", "renamed and changed", path="src/new.py")))
    sc = Sidecar("p.md", "sha256:" + "0" * 64, (Claim("claim_" + "1" * 32, "s", ev, verified_by="human:al"),
                                                 Claim("claim_" + "2" * 32, "t", ev, mark=mark)))
    text = sidecar.dumps(sc)
    careful = sidecar.loads(text, filename="p.json", page="p.md")
    assert sidecar.glance(text) == [
        (c.id, c.verified_by, c.mark.status if c.mark else "fresh", c.mark.since if c.mark else None,
         ("src/a.py", "src/new.py") if c.mark else ()) for c in careful.claims
    ]


@pytest.mark.parametrize("text", ["{", "[]", '{"claims": 3}', '{"claims": [{"mark": null}]}',
                                  '{"claims": [{"id": "x", "mark": {"status": "gone"}}]}'])
def test_glance_refuses_what_is_not_a_sidecar(text):
    with pytest.raises(ValueError):
        sidecar.glance(text)
