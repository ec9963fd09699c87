"""Sidecar JSON <-> model. With sidecar_common.py (its field names and the plain claims' rules), the
only module that knows the sidecar's field names.

Reading is strict and fail-closed like OpenWiki's (an unknown key is an error), but every error
names the file and the JSON path and says how to fix it. Pure: text in, records out.
"""

from __future__ import annotations

import json
import re
from typing import Any

from openwiki_git.errors import SchemaError
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind
from openwiki_git.evidence.resource import Resource, ResourceError, canonical_parts, parse_resource
from openwiki_git.formats.sidecar_common import BLOB, CLAIM_ID, CLAIM_KEYS, EVIDENCE_KEYS, PAGE_VERSION, ROOT_KEYS, VERSION, common_claim
from openwiki_git.model import Cause, Claim, Evidence, Mark, Retracted, Sidecar, Verification

DEF_VERSION = re.compile(r"^repo-def-v[12]:sha256:[0-9a-f]{64}$")  # a definition by name (evidence/kinds.py); v1: before v2
HEAD_VERSION = re.compile(r"^repo-(?:head-v2|def-v1):sha256:[0-9a-f]{64}$")  # a head; v1: written before v2
SET_VERSION = re.compile(r"^repo-set-v1:sha256:[0-9a-f]{64}:[A-Za-z0-9_-]*$")  # a set of files or lines
MARK_KEYS = {"status", "since", "causes", "commit"}
# The root's openwiki-git additions that only the careful reader reads (the plain path hands a
# sidecar holding them over): merged claims' old ids, retracted claims' tombstones.
EXTRA_ROOT_KEYS = {"aliases", "retracted"}
RETRACTED_KEYS = {"statement", "claim", "at", "by"}
CAUSE_KEYS = {"resource", "reason", "hunk", "oldLines", "newLines", "path", "blob"}


_REPO_STRING = re.compile(rb'"(repo://[^"]*)"')


def raw_resources(data: bytes) -> bytes | None:
    """Every `repo://` string of a sidecar's JSON bytes (each evidence resource is one), as
    written, joined by newlines; None when the JSON holds a backslash, whose escapes may spell
    any part of a string. A byte test on these (cite_bytes.may_cite, the one-shot scan's mention)
    spares parsing a sidecar that cannot matter: one regular-expression pass, no decoding."""
    if b"\\" in data:
        return None
    return b"\n".join(_REPO_STRING.findall(data))


class _Reader:
    """Walks decoded JSON, raising SchemaError('<file>: <$.path>: <problem>')."""

    def __init__(self, filename: str) -> None:
        self.filename = filename

    def fail(self, where: str, problem: str, fix: str | None = None) -> SchemaError:
        return SchemaError(f"{self.filename}: {where}: {problem}", fix)

    def obj(self, value: Any, where: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, found {_kind(value)}")
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}", "unknown key", f"allowed keys: {', '.join(sorted(allowed))}")
        missing = sorted(required - set(value))
        if missing:
            raise self.fail(f"{where}.{missing[0]}", "required key is missing")
        return value

    def text(self, value: Any, where: str, pattern: re.Pattern[str] | None = None, hint: str | None = None) -> str:
        if not isinstance(value, str) or not value.strip() or value != value.strip():
            raise self.fail(where, "expected a non-empty string without surrounding white space")
        if pattern is not None and not pattern.match(value):
            raise self.fail(where, f"{value[:60]!r} is malformed", hint)
        return value

    def array(self, value: Any, where: str, min_items: int = 0) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected an array, found {_kind(value)}")
        if len(value) < min_items:
            raise self.fail(where, f"needs at least {min_items} item(s)")
        return value

    def lines(self, value: Any, where: str) -> tuple[int, int] | None:
        if value is None:
            return None
        ok = isinstance(value, list) and len(value) == 2 and all(type(v) is int and v >= 1 for v in value)
        if not ok or value[1] < value[0]:
            raise self.fail(where, "expected [start, end], 1-based with end >= start")
        return (value[0], value[1])


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


MAX_DEPTH = 32  # a sidecar is five levels deep; anything deeper is not one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def decode_json(text: str, *, filename: str, max_depth: int | None = None) -> Any:
    """json.loads, bounded: no RecursionError on deep nesting, no lone surrogate (`\\ud800`, which
    no UTF-8 file can hold) let through; `max_depth` also bounds the nesting of what is returned."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SchemaError(f"{filename}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}", "fix the JSON syntax") from None
    except RecursionError:
        raise SchemaError(f"{filename}: $: JSON nested too deeply", "a sidecar is at most a few levels deep") from None
    if max_depth is not None or _SURROGATE_ESCAPE.search(text):
        _check_values(data, filename, max_depth or 1 << 30)
    return data


def _check_values(data: Any, filename: str, max_depth: int) -> None:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                shown = value.encode("utf-8", "backslashreplace").decode("ascii", "replace")[:60]
                raise SchemaError(
                    f"{filename}: $: {shown!r} holds a lone surrogate escape", "write the character itself, or a valid \\u pair"
                ) from None
        elif isinstance(value, (dict, list)):
            if depth > max_depth:
                raise SchemaError(f"{filename}: $: JSON nested deeper than {max_depth} levels", "a sidecar is at most a few levels deep")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((v, depth + 1) for k, v in items)
            if isinstance(value, dict):
                stack.extend((k, depth) for k in value)


def loads(text: str, *, filename: str, page: str, wiki_dir: str = ".openwiki") -> Sidecar:
    """Parse and validate one sidecar. Raises SchemaError naming the file and the place."""
    data = decode_json(text, filename=filename)
    r = _Reader(filename)
    root = r.obj(data, "$", ROOT_KEYS | EXTRA_ROOT_KEYS, {"schemaVersion", "pageVersion", "claims"})
    if root["schemaVersion"] != 1 or type(root["schemaVersion"]) is not int:
        raise r.fail("$.schemaVersion", f"must be the integer 1, found {root['schemaVersion']!r}")
    page_version = r.text(root["pageVersion"], "$.pageVersion", PAGE_VERSION, "expected sha256:<64 lowercase hex>")
    claims: list[Claim] = []
    seen: set[str] = set()
    wiki = wiki_dir.strip("/").lower()
    for i, raw in enumerate(r.array(root["claims"], "$.claims")):
        claim = _fast_claim(raw, wiki) or _claim(r, raw, f"$.claims[{i}]", wiki_dir)
        if claim.id in seen:
            raise r.fail(f"$.claims[{i}].id", f"duplicate claim id {claim.id}", "give each claim its own id")
        seen.add(claim.id)
        claims.append(claim)
    verification = None
    if "verification" in root:
        v = r.obj(root["verification"], "$.verification", {"by", "at"}, {"by", "at"})
        verification = Verification(r.text(v["by"], "$.verification.by"), r.text(v["at"], "$.verification.at"))
    aliases = _aliases(r, root["aliases"], seen) if "aliases" in root else ()
    retracted = _retracted(r, root["retracted"]) if "retracted" in root else ()
    return Sidecar(page, page_version, tuple(claims), verification, aliases, retracted)


def _aliases(r: _Reader, raw: Any, ids: set[str]) -> tuple[tuple[str, str], ...]:
    """`{"claim_<old>": "claim_<merged>"}`: each old id of a merged sentence, never a live one."""
    if not isinstance(raw, dict):
        raise r.fail("$.aliases", f"expected an object, found {_kind(raw)}")
    out = []
    for old, new in raw.items():
        where = f"$.aliases.{old}"
        if not CLAIM_ID.match(old):
            raise r.fail(where, f"{old[:60]!r} is not a claim id", "expected claim_ followed by 32 lowercase hex")
        if old in ids:
            raise r.fail(where, "a claim of this sidecar has this id; an alias names an old id only")
        out.append((old, r.text(new, where, CLAIM_ID, "expected claim_ followed by 32 lowercase hex")))
    return tuple(out)


def _retracted(r: _Reader, raw: Any) -> tuple[Retracted, ...]:
    out = []
    for i, item in enumerate(r.array(raw, "$.retracted")):
        where = f"$.retracted[{i}]"
        t = r.obj(item, where, RETRACTED_KEYS, {"statement", "claim", "at"})
        by = r.text(t["by"], f"{where}.by") if "by" in t else None
        claim = r.text(t["claim"], f"{where}.claim", CLAIM_ID, "expected claim_ followed by 32 lowercase hex")
        out.append(Retracted(r.text(t["statement"], f"{where}.statement"), claim, r.text(t["at"], f"{where}.at"), by))
    return tuple(out)


# The fast path: the common, valid claim is accepted with a few C-level checks (sidecar_common);
# anything else (a mark, an escape in a path, any problem) goes through the careful reader, which
# has the last word and the error messages. The fast path accepts only what the careful reader accepts.
def plain_resource(resource: str, wiki: str = "") -> Resource | None:
    """canonical_parts() as a resource.Resource."""
    parts = canonical_parts(resource, wiki)
    return None if parts is None else Resource(*parts)


def _fast_claim(raw: Any, wiki: str) -> Claim | None:
    plain = common_claim(raw, wiki)
    if plain is None:
        return None
    claim_id, statement, evidence, verified_at, verified_by = plain
    return Claim(claim_id, statement, tuple(Evidence(r, v, b) for r, v, b, _ in evidence), verified_at, verified_by)


def _claim(r: _Reader, raw: Any, where: str, wiki_dir: str) -> Claim:
    c = r.obj(raw, where, CLAIM_KEYS, {"id", "statement", "evidence"})
    claim_id = r.text(c["id"], f"{where}.id", CLAIM_ID, "expected claim_ followed by 32 lowercase hex")
    statement = r.text(c["statement"], f"{where}.statement")
    evidence: list[Evidence] = []
    resources: set[str] = set()
    for j, raw_ev in enumerate(r.array(c["evidence"], f"{where}.evidence", 1)):
        ev = _evidence(r, raw_ev, f"{where}.evidence[{j}]", wiki_dir)
        if ev.resource in resources:
            raise r.fail(f"{where}.evidence[{j}].resource", f"{ev.resource} is cited twice in this claim")
        resources.add(ev.resource)
        evidence.append(ev)
    verified_at = r.text(c["verifiedAt"], f"{where}.verifiedAt") if "verifiedAt" in c else None
    verified_by = r.text(c["verifiedBy"], f"{where}.verifiedBy") if "verifiedBy" in c else None
    mark = _mark(r, c["mark"], f"{where}.mark") if "mark" in c else None
    return Claim(claim_id, statement, tuple(evidence), verified_at, verified_by, mark)


def _kind_evidence(r: _Reader, e: dict[str, Any], resource: str, where: str, wiki_dir: str) -> Evidence:
    """A definition by name or a set (evidence/kinds.py), with the token of its kind."""
    try:
        kind = parse_kind(resource, wiki_dir=wiki_dir)
    except ResourceError as err:
        raise r.fail(f"{where}.resource", str(err)) from None
    assert kind is not None
    if kind.canonical != resource:
        raise r.fail(f"{where}.resource", f"{resource!r} is not canonical", f"write it as {kind.canonical}")
    symbol = isinstance(kind, Symbol)
    if isinstance(kind, Symbol) and kind.head:
        pattern, token, what = HEAD_VERSION, "repo-head-v2", "a head"
    else:
        pattern, token = (DEF_VERSION, "repo-def-v2") if symbol else (SET_VERSION, "repo-set-v1")
        what = "a definition" if symbol else "a set"
    version = r.text(e["version"], f"{where}.version", pattern, f"{what} resource needs a {token} token (`claim confirm` writes one)")
    blob = r.text(e["blob"], f"{where}.blob", BLOB, "expected a git object id") if "blob" in e else None
    return Evidence(resource, version, blob)


def _evidence(r: _Reader, raw: Any, where: str, wiki_dir: str) -> Evidence:
    e = r.obj(raw, where, EVIDENCE_KEYS, {"resource", "version"})
    resource = r.text(e["resource"], f"{where}.resource")
    if looks_like_kind(resource):
        return _kind_evidence(r, e, resource, where, wiki_dir)
    try:
        parsed = parse_resource(resource, wiki_dir=wiki_dir)
    except ResourceError as err:
        raise r.fail(f"{where}.resource", str(err)) from None
    if parsed.canonical != resource:
        raise r.fail(f"{where}.resource", f"{resource!r} is not canonical", f"write it as {parsed.canonical}")
    version = r.text(e["version"], f"{where}.version", VERSION, "expected a repo-file-v1 or repo-lines-v1 token")
    if parsed.is_range != version.startswith("repo-lines-v1:"):
        kind = "repo-lines-v1" if parsed.is_range else "repo-file-v1"
        raise r.fail(f"{where}.version", f"a {'range' if parsed.is_range else 'whole-file'} resource needs a {kind} token")
    blob = r.text(e["blob"], f"{where}.blob", BLOB, "expected a git object id") if "blob" in e else None
    return Evidence(resource, version, blob)


def _mark(r: _Reader, raw: Any, where: str) -> Mark:
    m = r.obj(raw, where, MARK_KEYS, {"status", "since"})
    if m["status"] not in ("stale", "unresolved"):
        raise r.fail(f"{where}.status", "must be 'stale' or 'unresolved'")
    causes = []
    for k, raw_cause in enumerate(r.array(m.get("causes", []), f"{where}.causes")):
        cw = f"{where}.causes[{k}]"
        cz = r.obj(raw_cause, cw, CAUSE_KEYS, {"resource", "reason"})
        causes.append(
            Cause(
                resource=r.text(cz["resource"], f"{cw}.resource"),
                reason=r.text(cz["reason"], f"{cw}.reason"),
                hunk=r.text(cz["hunk"], f"{cw}.hunk") if "hunk" in cz else None,
                old_lines=r.lines(cz.get("oldLines"), f"{cw}.oldLines"),
                new_lines=r.lines(cz.get("newLines"), f"{cw}.newLines"),
                path=r.text(cz["path"], f"{cw}.path") if "path" in cz else None,
                blob=r.text(cz["blob"], f"{cw}.blob", BLOB, "expected a git object id") if "blob" in cz else None,
            )
        )
    commit = r.text(m["commit"], f"{where}.commit", BLOB, "expected a commit id") if "commit" in m else None
    return Mark(m["status"], r.text(m["since"], f"{where}.since"), tuple(causes), commit)


def to_data(sidecar: Sidecar) -> dict[str, Any]:
    """The JSON value in OpenWiki's key order, additions only where present."""
    data: dict[str, Any] = {"schemaVersion": 1, "pageVersion": sidecar.page_version}
    data["claims"] = [_claim_data(c) for c in sidecar.claims]
    if sidecar.verification is not None and sidecar.claims:
        data["verification"] = {"by": sidecar.verification.by, "at": sidecar.verification.at}
    if sidecar.aliases:
        data["aliases"] = dict(sidecar.aliases)
    if sidecar.retracted:
        data["retracted"] = [
            {"statement": t.statement, "claim": t.claim, "at": t.at, **({"by": t.by} if t.by else {})} for t in sidecar.retracted
        ]
    return data


def _claim_data(c: Claim) -> dict[str, Any]:
    out: dict[str, Any] = {"id": c.id, "statement": c.statement, "evidence": []}
    for e in c.evidence:
        ev: dict[str, Any] = {"resource": e.resource, "version": e.version}
        if e.blob:
            ev["blob"] = e.blob
        out["evidence"].append(ev)
    if c.verified_at:
        out["verifiedAt"] = c.verified_at
    if c.verified_by:
        out["verifiedBy"] = c.verified_by
    if c.mark:
        out["mark"] = _mark_data(c.mark)
    return out


def _mark_data(m: Mark) -> dict[str, Any]:
    out: dict[str, Any] = {"status": m.status, "since": m.since}
    if m.causes:
        out["causes"] = []
        for c in m.causes:
            cz: dict[str, Any] = {"resource": c.resource, "reason": c.reason}
            if c.hunk:
                cz["hunk"] = c.hunk
            if c.old_lines:
                cz["oldLines"] = list(c.old_lines)
            if c.new_lines:
                cz["newLines"] = list(c.new_lines)
            if c.path:
                cz["path"] = c.path
            if c.blob:
                cz["blob"] = c.blob
            out["causes"].append(cz)
    if m.commit:
        out["commit"] = m.commit
    return out


def dumps(sidecar: Sidecar) -> str:
    """OpenWiki's serialisation: JSON.stringify(value, null, 2) + newline, non-ASCII kept."""
    return json.dumps(to_data(sidecar), indent=2, ensure_ascii=False) + "\n"


# A claim as a reader that only counts sees it: (id, verifiedBy, mark status, mark since, the
# files the mark's causes name), read with json alone (the health report reads every sidecar of
# many commits; the careful reader costs ten times as much).
Glance = tuple[str, str | None, str, str | None, tuple[str, ...]]


def glance(text: str | bytes) -> list[Glance]:
    """Each claim's id, verifiedBy and mark (status "fresh" without one), without the careful
    reader's validation; ValueError when the text is not a sidecar's shape (a reader that counts
    treats that sidecar as having no claims)."""
    try:
        claims = json.loads(text)["claims"]
        out: list[Glance] = []
        for c in claims:
            mark = c.get("mark")
            by = c.get("verifiedBy")
            if mark is None:
                out.append((str(c["id"]), by if isinstance(by, str) else None, "fresh", None, ()))
                continue
            if mark["status"] not in ("stale", "unresolved"):
                raise ValueError(f"mark status {mark['status']!r}")
            files = tuple(dict.fromkeys(cause_path(cause) for cause in mark.get("causes") or ()))
            out.append((str(c["id"]), by if isinstance(by, str) else None, mark["status"], str(mark.get("since")), files))
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"not a sidecar: {e}") from None
    return out


def cause_path(cause: dict[str, Any]) -> str:
    """The file a mark's cause names: its path now when renamed, else its resource's."""
    return str(cause["path"]) if cause.get("path") else resource_path(str(cause["resource"]))


def resource_path(resource: str) -> str:
    """The file a `repo://` resource cites, as the resolver parses it; the text before `#` or `?`
    when it cannot be parsed (a reader that counts still names the file)."""
    parts = canonical_parts(resource)
    if parts is not None:
        return parts[0]
    try:
        return parse_resource(resource, wiki_dir="\0").path
    except ResourceError:
        return resource.removeprefix("repo://").split("#", 1)[0].split("?", 1)[0]
