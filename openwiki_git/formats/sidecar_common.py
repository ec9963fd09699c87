"""The sidecar's plain claims: the field names and patterns of the sidecar JSON, and the rules by
which a common, valid claim (no mark, canonical plain resources, exact strings) is accepted with
a few C-level checks. Pure, and `re` alone: sidecar.py's fast path builds its records from
`common_claim`, and `check --no-cache`'s lean path (services/check_unchanged.py) reads sidecars with
json and these rules, importing nothing heavy. What they accept, the careful reader accepts
identically (tests/formats/test_sidecar.py compares them); anything else goes to it.
"""

from __future__ import annotations

import re

from openwiki_git.evidence.canonical import canonical_parts

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

CLAIM_ID = re.compile(r"^claim_[0-9a-f]{32}$")
PAGE_VERSION = re.compile(r"^sha256:[0-9a-f]{64}$")
VERSION = re.compile(r"^(repo-file-v1:sha256:[0-9a-f]{64}|repo-lines-v1:sha256:[0-9a-f]{64}:[A-Za-z0-9_-]+)$")
BLOB = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")

ROOT_KEYS = {"schemaVersion", "pageVersion", "claims", "verification"}
CLAIM_KEYS = {"id", "statement", "evidence", "verifiedAt", "verifiedBy", "mark"}
EVIDENCE_KEYS = {"resource", "version", "blob"}

_ROOT_REQUIRED = frozenset({"schemaVersion", "pageVersion", "claims"})
_CLAIM_REQUIRED = frozenset({"id", "statement", "evidence"})
_EVIDENCE_REQUIRED = frozenset({"resource", "version"})
_FILE_VERSION = re.compile(r"repo-file-v1:sha256:[0-9a-f]{64}")
_LINES_VERSION = re.compile(r"repo-lines-v1:sha256:[0-9a-f]{64}:[A-Za-z0-9_-]+")

# One evidence item of a plain claim: resource, version, blob, and canonical_parts(resource).
PlainEvidence = tuple[str, str, str | None, tuple[str, int | None, int | None]]
# A plain claim: id, statement, evidence, verifiedAt, verifiedBy.
CommonClaim = tuple[str, str, tuple[PlainEvidence, ...], str | None, str | None]


def plain_text(value: Any) -> bool:
    """A non-empty string without surrounding white space (the careful reader's `text`)."""
    return type(value) is str and value != "" and value == value.strip()


def plain_claims(data: Any) -> list[Any] | None:
    """The raw claims of a decoded sidecar whose top level the careful reader accepts as it is
    (schemaVersion 1, a pageVersion, a claims array, at most a plain `verification`); None: ask it."""
    if type(data) is not dict or not ROOT_KEYS.issuperset(data) or not _ROOT_REQUIRED.issubset(data):
        return None
    version, page_version, claims = data["schemaVersion"], data["pageVersion"], data["claims"]
    if type(version) is not int or version != 1 or not plain_text(page_version) or not PAGE_VERSION.match(page_version):
        return None
    if type(claims) is not list:
        return None
    verification = data.get("verification")
    if "verification" in data and not (
        type(verification) is dict and verification.keys() == {"by", "at"} and plain_text(verification["by"])
        and plain_text(verification["at"])
    ):
        return None
    return claims


def common_claim(raw: Any, wiki: str, *, token_forms: bool = True) -> CommonClaim | None:
    """The fields of a claim the careful reader accepts as they are: no mark, every resource
    canonical and plain (not under `wiki`, lower case), cited once, with a token of its kind;
    None: ask the careful reader, which has the last word and the error messages. (Runs once per
    claim of every sidecar read: plain_text is spelt out inline.)

    `token_forms=False` leaves each version's form unchecked (only that it is a string) for a
    caller that then requires every version to equal, exactly, a token it computes of the kind
    the resource names (check_unchanged: tokens.unchanged_lines, which only a well-formed
    `repo-lines-v1` token can equal): scanning a token's 400 characters is half of this
    function's cost."""
    if type(raw) is not dict or "mark" in raw or not CLAIM_KEYS.issuperset(raw) or not _CLAIM_REQUIRED.issubset(raw):
        return None
    claim_id, statement, raw_evidence = raw["id"], raw["statement"], raw["evidence"]
    if type(claim_id) is not str or not CLAIM_ID.fullmatch(claim_id):
        return None
    if type(statement) is not str or not statement or statement != statement.strip():
        return None
    if type(raw_evidence) is not list or not raw_evidence:
        return None
    evidence: list[PlainEvidence] = []
    for e in raw_evidence:
        if type(e) is not dict or not EVIDENCE_KEYS.issuperset(e) or not _EVIDENCE_REQUIRED.issubset(e):
            return None
        resource, version = e["resource"], e["version"]
        if type(resource) is not str or type(version) is not str:
            return None
        parsed = canonical_parts(resource, wiki)
        if parsed is None or token_forms and not (_FILE_VERSION if parsed[1] is None else _LINES_VERSION).fullmatch(version):
            return None
        blob = e.get("blob")
        if blob is not None or "blob" in e:
            if type(blob) is not str or not BLOB.fullmatch(blob):
                return None
        evidence.append((resource, version, blob, parsed))
    if len(evidence) > 1 and len({e[0] for e in evidence}) != len(evidence):
        return None
    verified_at, verified_by = raw.get("verifiedAt"), raw.get("verifiedBy")
    if verified_at is not None or "verifiedAt" in raw:
        if type(verified_at) is not str or not verified_at or verified_at != verified_at.strip():
            return None
    if verified_by is not None or "verifiedBy" in raw:
        if type(verified_by) is not str or not verified_by or verified_by != verified_by.strip():
            return None
    return claim_id, statement, tuple(evidence), verified_at, verified_by
