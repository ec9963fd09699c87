"""The sidecar codec: OpenWiki's serialisation, strict reading, and the fast path's agreement
with the careful reader (it may only accept what the careful reader accepts, identically)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openwiki_git.errors import SchemaError
from openwiki_git.evidence.resource import parse_resource
from openwiki_git.evidence.tokens import file_version, lines_version, split_lines
from openwiki_git.formats import sidecar
from openwiki_git.model import Claim, Evidence, Sidecar, Verification

LINES = split_lines("a\nb\nc\nd\ne\n")
TOKEN = lines_version(LINES, 2, 3)
FILE_TOKEN = file_version("a\nb\nc\nd\ne\n")
CID = "claim_0123456789abcdef0123456789abcdef"


def good() -> dict:
    return {
        "schemaVersion": 1,
        "pageVersion": "sha256:" + "a" * 64,
        "claims": [
            {"id": CID, "statement": "The third line of x.txt is c.",
             "evidence": [{"resource": "repo://src/x.txt#L3-L3", "version": TOKEN}]}
        ],
        "verification": {"by": "openwiki/0.3.3", "at": "2026-08-20T12:00:00.000Z"},
    }


def test_openwiki_example_round_trips_byte_for_byte():
    text = json.dumps(good(), indent=2, ensure_ascii=False) + "\n"
    sc = sidecar.loads(text, filename="x.json", page="p.md")
    assert sc.claims[0].evidence[0] == Evidence("repo://src/x.txt#L3-L3", TOKEN)
    assert sc.verification == Verification("openwiki/0.3.3", "2026-08-20T12:00:00.000Z")
    assert sidecar.dumps(sc) == text


def test_dumps_key_order_indent_and_unicode():
    claim = Claim(CID, "Ünïcode stays — literal", (Evidence("repo://src/%C3%A9.py", FILE_TOKEN, "b" * 40),),
                  "2026-01-01T00:00:00Z", "human:ada")
    text = sidecar.dumps(Sidecar("p.md", "sha256:" + "0" * 64, (claim,)))
    assert text.endswith("}\n") and "\n  \"claims\": [\n" in text
    assert "Ünïcode stays — literal" in text
    data = json.loads(text)
    assert list(data) == ["schemaVersion", "pageVersion", "claims"]
    assert list(data["claims"][0]) == ["id", "statement", "evidence", "verifiedAt", "verifiedBy"]
    assert list(data["claims"][0]["evidence"][0]) == ["resource", "version", "blob"]


def test_verification_dropped_when_no_claims():
    sc = Sidecar("p.md", "sha256:" + "0" * 64, (), Verification("x", "y"))
    assert "verification" not in json.loads(sidecar.dumps(sc))


def test_errors_name_file_and_place():
    data = good()
    data["claims"][0]["evidence"][0]["resource"] = "repo://src/x.txt#L3"
    with pytest.raises(SchemaError) as exc:
        sidecar.loads(json.dumps(data), filename=".openwiki/.claims/p.json", page="p.md")
    assert exc.value.message.startswith(".openwiki/.claims/p.json: $.claims[0].evidence[0].resource: ")
    assert exc.value.hint == "write it as repo://src/x.txt#L3-L3"


def test_wiki_dir_resource_refused_for_a_custom_wiki_dir():
    data = good()
    data["claims"][0]["evidence"][0] = {"resource": "repo://docs/Wiki/a.md", "version": FILE_TOKEN}
    with pytest.raises(SchemaError, match="generated wiki"):
        sidecar.loads(json.dumps(data), filename="x.json", page="p.md", wiki_dir="docs/wiki")
    assert sidecar.loads(json.dumps(data), filename="x.json", page="p.md", wiki_dir=".openwiki").claims


# -- the fast path agrees with the careful reader --------------------------------------------

_SEGMENTS = ["src", "a.py", ".", "..", ".git", ".GIT", "openwiki", ".openwiki", "OpenWiki", "docs", "wiki", "x y",
             "%41", "é", "a%2Fb", "..a", "...", ".gitignore", "", "~x", "(a)", "a*b", "a'b", "a!b", "A-Z_9"]
_FRAGMENTS = ["", "#L1-L1", "#L3-L9", "#L9-L3", "#L0-L1", "#L01-L2", "#L1", "#L999999999999999-L999999999999999",
              "#L9007199254740991-L9007199254740991", "#l1-l2", "#L1-L2#x", "#"]


@st.composite
def resources(draw):
    segments = draw(st.lists(st.sampled_from(_SEGMENTS), min_size=1, max_size=4))
    sep = draw(st.sampled_from(["/", "/", "/", "\\", "//"]))
    return "repo://" + sep.join(segments) + draw(st.sampled_from(_FRAGMENTS))


@settings(max_examples=500, deadline=None)
@given(resources(), st.sampled_from(["", "docs/wiki", "wiki", ".openwiki"]))
def test_plain_resource_agrees_with_compat(resource, wiki):
    fast = sidecar.plain_resource(resource, wiki.lower())
    if fast is None:
        return
    parsed = parse_resource(resource, wiki_dir=wiki or "\0")
    assert parsed == fast
    assert parsed.canonical == resource


_CHOICES = {
    "id": [CID, CID.upper(), CID + " ", "claim_x", 7, None],
    "statement": ["S.", " S.", "", "S.\n", 3, None],
    "resource": ["repo://src/x.txt", "repo://src/x.txt#L3-L3", "repo://src/x.txt#L3", "repo://./x.txt",
                 "repo://.git/x", "repo://docs/wiki/a.md", "repo://docs/x.py#L1-L2", 5],
    "version": [TOKEN, FILE_TOKEN, TOKEN + "\n", "repo-lines-v1:sha256:" + "A" * 64 + ":e30", "x", 1, None],
    "blob": ["b" * 40, "b" * 64, "B" * 40, "", None],
    "verifiedAt": ["2026-01-01T00:00:00Z", "", " x", None, 1],
    "verifiedBy": ["human:a", "", None],
    "extra_claim_key": [1],
    "extra_evidence_key": [1],
    "second_evidence": ["same", "other", "bad"],
    "evidence_shape": ["empty", "not-list", "not-dict"],
    "drop": ["id", "statement", "evidence", "resource", "version"],
    "mark": [{"status": "stale", "since": "2026-01-01T00:00:00Z"}],
}


@st.composite
def _mutations(draw):
    keys = draw(st.lists(st.sampled_from(sorted(_CHOICES)), max_size=3, unique=True))
    return {key: draw(st.sampled_from(_CHOICES[key])) for key in keys}


def _apply(m: dict) -> dict:
    claim = copy.deepcopy(good()["claims"][0])
    ev = claim["evidence"][0]
    for key in ("id", "statement", "verifiedAt", "verifiedBy", "mark"):
        if key in m:
            claim[key] = m[key]
    for key in ("resource", "version", "blob"):
        if key in m:
            ev[key] = m[key]
    if "extra_claim_key" in m:
        claim["note"] = 1
    if "extra_evidence_key" in m:
        ev["lines"] = 1
    if "second_evidence" in m:
        other = {"same": dict(ev), "other": {"resource": "repo://src/y.txt", "version": FILE_TOKEN}, "bad": "x"}
        claim["evidence"].append(other[m["second_evidence"]])
    if "evidence_shape" in m:
        claim["evidence"] = {"empty": [], "not-list": {}, "not-dict": ["repo://x"]}[m["evidence_shape"]]
    if "drop" in m:
        target = claim if m["drop"] in claim else ev if isinstance(ev, dict) else {}
        target.pop(m["drop"], None)
    return claim


@settings(max_examples=500, deadline=None)
@given(_mutations(), st.sampled_from([".openwiki", "docs/wiki"]))
def test_fast_claim_agrees_with_the_careful_reader(m, wiki_dir):
    raw = _apply(m)
    fast = sidecar._fast_claim(copy.deepcopy(raw), wiki_dir.lower())
    try:
        careful = sidecar._claim(sidecar._Reader("x.json"), copy.deepcopy(raw), "$.claims[0]", wiki_dir)
    except SchemaError:
        careful = None
    if fast is not None:
        assert careful == fast, raw


def test_fast_claim_takes_the_common_case():
    assert sidecar._fast_claim(good()["claims"][0], ".openwiki") is not None
    with_mark = dict(good()["claims"][0], mark={"status": "stale", "since": "x"})
    assert sidecar._fast_claim(with_mark, ".openwiki") is None  # rare: the careful reader


@pytest.mark.parametrize("wiki_dir", [".openwiki", "docs/wiki"])
def test_fast_claim_agrees_on_every_single_mutation(wiki_dir):
    accepted = 0
    for key, values in _CHOICES.items():
        for value in values:
            raw = _apply({key: value})
            fast = sidecar._fast_claim(copy.deepcopy(raw), wiki_dir.lower())
            try:
                careful = sidecar._claim(sidecar._Reader("x.json"), copy.deepcopy(raw), "$.claims[0]", wiki_dir)
            except SchemaError:
                careful = None
            if fast is not None:
                accepted += 1
                assert careful == fast, raw
    assert accepted >= 10
