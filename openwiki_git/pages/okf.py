"""OKF v0.2 for openwiki-git pages: front-matter rules and the claims-derived keys. One cohesive
thing: the OKF front matter of one page, checked and projected from its claims by the same rules.

- `problems()` says what is wrong with a page's front matter, each with its line and the fix.
- `project()` brings `sources`, `verified` and `generated` in step with the page's claims (and, on
  an OpenWiki wiki, keeps marks in `x-openwiki-git-marks`): only keys whose value changes are
  rewritten, surgically (frontmatter.py), so a clean page is never touched.
- The directory `index.md` files and the bundled JSON Schema's validation are store/bundle.py's.

Rules (see docs/okf-v0.2.md and openwiki-claims-format.md §7):
- `sources`: whole-file resources of the cited files, id `openwiki-source-<24 hex of sha256>`,
  sorted by byte order (not OpenWiki's locale order; a list equal as a set is left as it is),
  unique, after every entry the tool did not produce (kept as written).
- `verified`: openwiki-git's event `{by: openwiki-git/<version>, at}` is present only while the
  page has claims, none of them marked, and a verification time (claims' `verifiedAt`, or a
  sidecar `verification` by openwiki-git); `at` is the latest. On an OpenWiki wiki OpenWiki's own
  `openwiki/…` events follow the same rule (from the sidecar's `verification`). `human:` and
  every other producer's events are never touched.
- `generated`: re-stamped `{by: openwiki-git/<version>, at: now}` only when the page's prose
  changes (the body with citation markers and the generated citations block left out), so
  placing markers or re-rendering footnotes is no content change (weakness 23: no churn).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from typing import Any, TypeGuard

from openwiki_git import PRODUCER
from openwiki_git.errors import SchemaError
from openwiki_git.evidence.resource import ResourceError, parse_resource
from openwiki_git.formats.timestamps import instant
from openwiki_git.model import Claim, Mark, Sidecar, Verification
from openwiki_git.pages import citations
from openwiki_git.pages import frontmatter as fmt
from openwiki_git.pages.markers import ANY

OKF_VERSION = "0.2"
SOURCE_PREFIX = "openwiki-source-"
MARKS_KEY = "x-openwiki-git-marks"
OUR_PREFIX = "openwiki-git/"
OPENWIKI_PREFIX = "openwiki/"
STATUSES = ("draft", "stable", "deprecated")
RESERVED = {"index.md", "log.md"}
_FIX_TIME = 'write it with an offset, quoted: "2026-11-30T10:00:00Z"'

Problem = tuple[int, str, str]  # (page line, problem, fix)


# -- values ----------------------------------------------------------------------------------


def source_id(resource: str) -> str:
    return SOURCE_PREFIX + hashlib.sha256(resource.encode("utf-8")).hexdigest()[:24]


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return {dict: "a mapping", list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def is_text(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


# -- validation ------------------------------------------------------------------------------


def problems(fm: fmt.FrontMatter) -> list[Problem]:
    """Everything wrong with a concept page's front matter under OKF v0.2 (unknown keys are fine)."""
    d, out = fm.data, []

    def add(path: tuple[str | int, ...], problem: str, fix: str) -> None:
        out.append((fm.line(*path), problem, fix))

    _descriptive(add, d)
    for key in ("stale_after", "timestamp"):
        if key in d:
            _time(add, d[key], (key,), f"`{key}`")
    _sources(add, d)
    if "usage_window" in d:
        uw = d["usage_window"]
        if not isinstance(uw, dict):
            add(("usage_window",), f"`usage_window` must be a mapping, found {_kind(uw)}", "write `{from: ..., to: ...}`")
        else:
            for k in ("from", "to"):
                if k in uw:
                    _time(add, uw[k], ("usage_window", k), f"usage_window.{k}")
    _events(add, d)
    if MARKS_KEY in d:
        try:
            marks_from_data(d[MARKS_KEY], fm.filename)
        except SchemaError as e:
            add(
                (MARKS_KEY,),
                f"`{MARKS_KEY}` is malformed: {e.message.split(': ', 1)[-1]}",
                "remove the key; `openwiki-git check --fix` marks again",
            )
    return out


def _descriptive(add: Any, d: dict[str, Any]) -> None:
    """`type` (required), the string keys, `tags` and `status`."""
    if "type" not in d:
        add((), "`type` is missing", "add `type: Reference` (OKF v0.2 requires a non-empty type)")
    elif not is_text(d["type"]):
        found = "empty" if isinstance(d["type"], str) or d["type"] is None else _kind(d["type"])
        add(("type",), f"`type` must be a non-empty string, found {found}", "write e.g. `type: Reference`")
    for key in ("title", "description", "resource"):
        if key in d and not isinstance(d[key], str):
            add((key,), f"`{key}` must be a string, found {_kind(d[key])}", f"write `{key}: <text>`, quoted if needed")
    if "tags" in d:
        tags = d["tags"]
        if not isinstance(tags, list):
            add(("tags",), f"`tags` must be a list of strings, found {_kind(tags)}", "write `tags: [a, b]`")
        else:
            for i, t in enumerate(tags):
                if not is_text(t):
                    add(("tags", i), f"tags[{i}] must be a non-empty string, found {_kind(t)}", "write `tags: [a, b]`")
    if "status" in d and d["status"] not in STATUSES:
        add(("status",), f"`status` must be draft, stable or deprecated, found {d['status']!r}", "use one of the three")


def _events(add: Any, d: dict[str, Any]) -> None:
    """`generated` (one {by, at} event) and `verified` (one, or a list of them)."""
    if "generated" in d:
        g = d["generated"]
        if not isinstance(g, dict):
            add(("generated",), f"`generated` must be a mapping, found {_kind(g)}", "write `generated: {by: <actor>, at: <time>}`")
        else:
            _event(add, g, ("generated",), "generated")
    if "verified" not in d:
        return
    v = d["verified"]
    if isinstance(v, dict):
        _event(add, v, ("verified",), "verified")
    elif isinstance(v, list):
        for i, e in enumerate(v):
            if not isinstance(e, dict):
                add(
                    ("verified", i),
                    f"verified[{i}] must be a mapping {{by, at}}, found {_kind(e)}",
                    "write `- {by: <actor>, at: <time>}`",
                )
            else:
                _event(add, e, ("verified", i), f"verified[{i}]")
    else:
        add(
            ("verified",),
            f"`verified` must be a list of {{by, at}} events, found {_kind(v)}",
            "write `verified: [{by: <actor>, at: <time>}]`",
        )


def _time(add: Any, value: Any, path: tuple[str | int, ...], name: str) -> None:
    if instant(value) is None:
        shown = repr(value) if isinstance(value, str) else _kind(value)
        why = (
            "has no offset"
            if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+", value)
            else "is not a date-time with an offset"
        )
        add(path, f"{name} {shown} {why}", _FIX_TIME)


def _event(add: Any, e: dict[str, Any], path: tuple[str | int, ...], name: str) -> None:
    if "by" not in e:
        add(path, f"{name} has no `by`", "add `by: human:<you>` or `<tool>/<version>`")
    elif not is_text(e["by"]):
        add((*path, "by"), f"{name}.by must be a non-empty actor string, found {_kind(e['by'])}", "write `by: human:<you>`")
    if "at" in e:
        _time(add, e["at"], (*path, "at"), f"{name}.at")


def _sources(add: Any, d: dict[str, Any]) -> None:
    if "sources" not in d:
        return
    s = d["sources"]
    if not isinstance(s, list):
        add(("sources",), f"`sources` must be a list, found {_kind(s)}", "write `sources:` then `- resource: <uri>` items")
        return
    for i, e in enumerate(s):
        if not isinstance(e, dict):
            add(("sources", i), f"sources[{i}] must be a mapping, found {_kind(e)}", "write `- resource: <uri>`")
            continue
        if not is_text(e.get("resource")):
            add(("sources", i), f"sources[{i}] has no `resource`", "every source needs `resource: <uri or path>`")
        for k in ("id", "title"):
            if k in e and not is_text(e[k]):
                add(("sources", i, k), f"sources[{i}].{k} must be a non-empty string", f"write `{k}: <text>`")
        if "usage_count" in e and (type(e["usage_count"]) is not int or e["usage_count"] < 0):
            add(("sources", i, "usage_count"), f"sources[{i}].usage_count must be a whole number >= 0", "write e.g. `usage_count: 3`")
        if "last_modified" in e:
            _time(add, e["last_modified"], ("sources", i, "last_modified"), f"sources[{i}].last_modified")


def require_valid(fm: fmt.FrontMatter) -> None:
    """Raise the first problem as `file:line: problem (fix)` (for commands that write)."""
    found = problems(fm)
    if found:
        line, problem, fix = found[0]
        raise fmt.fail(fm.filename, line, problem, fix)


def load_valid(text: str, *, filename: str) -> fmt.FrontMatter | None:
    """The page's front matter, checked; None when the page has none."""
    fm = fmt.parse(text, filename=filename)
    if fm is not None:
        require_valid(fm)
    return fm


# -- marks on an OpenWiki wiki ---------------------------------------------------------------


def marks_from_data(value: Any, filename: str) -> dict[str, Mark]:
    from openwiki_git.formats import sidecar as codec

    if not isinstance(value, dict):
        raise SchemaError(f"{filename}: {MARKS_KEY}: expected a mapping of claim id to mark")
    reader = codec._Reader(filename)
    out = {}
    for claim_id, raw in value.items():
        if not isinstance(claim_id, str) or not codec.CLAIM_ID.match(claim_id):
            raise SchemaError(f"{filename}: {MARKS_KEY}: {claim_id!r} is not a claim id")
        out[claim_id] = codec._mark(reader, raw, f"{MARKS_KEY}.{claim_id}")
    return out


def marks_data(claims: tuple[Claim, ...] | list[Claim]) -> dict[str, Any]:
    from openwiki_git.formats import sidecar as codec

    return {c.id: codec._mark_data(c.mark) for c in claims if c.mark is not None}


def read_marks(text: str | None, *, filename: str) -> dict[str, Mark]:
    """Marks kept in a page's front matter (OpenWiki mode); cheap when there are none."""
    if not text or MARKS_KEY not in text:
        return {}
    fm = fmt.parse(text, filename=filename)
    if fm is None or MARKS_KEY not in fm.data:
        return {}
    try:
        return marks_from_data(fm.data[MARKS_KEY], filename)
    except SchemaError as e:
        detail = e.message.split(": ", 1)[-1]
        raise fmt.fail(
            filename, fm.line(MARKS_KEY), f"{MARKS_KEY} is malformed: {detail}", "remove the key; `check --fix` marks again"
        ) from None


def merge_marks(sidecar: Sidecar, marks: dict[str, Mark]) -> Sidecar:
    if not marks:
        return sidecar
    return sidecar.replace(claims=tuple(c.replace(mark=marks[c.id]) if c.id in marks else c for c in sidecar.claims))


# -- projection ------------------------------------------------------------------------------


def projected_resources(claims: tuple[Claim, ...] | list[Claim]) -> list[str]:
    """The cited files as whole-file resources, unique, in byte order."""
    out = set()
    for c in claims:
        for e in c.evidence:
            try:
                out.add(parse_resource(e.resource, wiki_dir="\0").whole_file().canonical)
            except ResourceError:
                continue
    return sorted(out, key=lambda r: r.encode("utf-8"))


def project_sources(current: Any, claims: tuple[Claim, ...] | list[Claim]) -> Any:
    """The new `sources` value (fmt.REMOVE for none), or `current` itself when nothing changes."""
    entries = current if isinstance(current, list) else []
    ours = [e for e in entries if isinstance(e, dict) and str(e.get("id", "")).startswith(SOURCE_PREFIX)]
    retained = [e for e in entries if not any(e is o for o in ours)]
    taken = {e.get("resource") for e in retained if isinstance(e, dict)}
    wanted = [{"id": source_id(r), "resource": r} for r in projected_resources(claims) if r not in taken]
    if _as_set(ours) == _as_set(wanted):
        return current
    new = retained + wanted
    return new if new else fmt.REMOVE


def _as_set(events: list[dict[str, Any]]) -> set[tuple[tuple[str, str], ...]]:
    return {tuple(sorted((str(k), str(v)) for k, v in e.items())) for e in events}


def derived_events(sidecar: Sidecar, *, openwiki_mode: bool) -> list[dict[str, str]]:
    """The claims-derived verification events the page should carry now."""
    claims, v = sidecar.claims, sidecar.verification
    if not claims or any(c.mark is not None for c in claims):
        return []
    out = []
    if openwiki_mode and v is not None and v.by.startswith(OPENWIKI_PREFIX) and instant(v.at):
        out.append({"by": v.by, "at": v.at})
    ours = [c.verified_at for c in claims if c.verified_at and instant(c.verified_at)]
    if v is not None and v.by.startswith(OUR_PREFIX) and instant(v.at):
        ours.append(v.at)
    covered = v is not None or all(c.verified_at for c in claims)
    if ours and covered:
        out.append({"by": PRODUCER, "at": max(ours, key=lambda t: instant(t))})  # type: ignore[arg-type,return-value]
    return out


def _managed(event: Any, openwiki_mode: bool) -> bool:
    by = event.get("by") if isinstance(event, dict) else None
    return isinstance(by, str) and (by.startswith(OUR_PREFIX) or (openwiki_mode and by.startswith(OPENWIKI_PREFIX)))


def project_verified(current: Any, sidecar: Sidecar, *, openwiki_mode: bool) -> Any:
    """The new `verified` value (fmt.REMOVE for none), or `current` itself when nothing changes."""
    events = [current] if isinstance(current, dict) else list(current) if isinstance(current, list) else []
    derived = derived_events(sidecar, openwiki_mode=openwiki_mode)
    managed = [e for e in events if _managed(e, openwiki_mode)]
    if _as_set([{"by": e.get("by"), "at": e.get("at")} for e in managed]) == _as_set(derived) and len(managed) == len(derived):
        return current
    new = [e for e in events if not _managed(e, openwiki_mode)] + derived
    return new if new else fmt.REMOVE


def prose(body: str) -> str:
    """The body as a reader writes it: no generated citations block, no claim markers."""
    return ANY.sub("", citations.strip_block(body)).rstrip("\n")


def project(
    sidecar: Sidecar,
    old_text: str | None,
    new_text: str,
    *,
    filename: str,
    openwiki_mode: bool,
    now: str,
    marks_in_front_matter: bool = False,
) -> str:
    """`new_text` with its front matter in step with `sidecar`. Pages without front matter are
    returned unchanged (validate and lint report them). Raises SchemaError (`file:line: problem
    (fix)`) on a malformed front matter, before anything is written."""
    fm = fmt.parse(new_text, filename=filename)
    if fm is None:
        return new_text
    require_valid(fm)
    if openwiki_mode:
        sidecar = fold_verification(sidecar)  # what Wiki.save will store
    d = fm.data
    changes: dict[str, Any] = {}
    sources = project_sources(d.get("sources"), sidecar.claims)
    if sources is not d.get("sources"):
        changes["sources"] = sources
    verified = project_verified(d.get("verified"), sidecar, openwiki_mode=openwiki_mode)
    if verified is not d.get("verified"):
        changes["verified"] = verified
    if old_text is not None:
        old = fmt.split(old_text, filename=filename)
        if prose(old.body) != prose(fm.split.body):
            changes["generated"] = {"by": PRODUCER, "at": now}
            changes["timestamp"] = fmt.REMOVE  # legacy v0.1 key, superseded by generated.at
    if marks_in_front_matter:
        marks = marks_data(sidecar.claims)
        if marks != d.get(MARKS_KEY):
            changes[MARKS_KEY] = marks if marks else fmt.REMOVE
    return fmt.edit(new_text, changes, filename=filename, parsed=fm) if changes else new_text


def with_marks(text: str, claims: tuple[Claim, ...] | list[Claim], *, filename: str) -> str:
    """The page with `x-openwiki-git-marks` in step with the claims' marks (OpenWiki mode)."""
    marks = marks_data(claims)
    if not marks and MARKS_KEY not in text:
        return text
    fm = fmt.parse(text, filename=filename)
    if fm is None or marks == fm.data.get(MARKS_KEY, {}):
        return text
    return fmt.edit(text, {MARKS_KEY: marks if marks else fmt.REMOVE}, filename=filename)


def relative_link_target(page_repo_path: str, target: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(page_repo_path), target))


def fold_verification(sidecar: Sidecar) -> Sidecar:
    """OpenWiki mode: claims' `verifiedAt` (an addition OpenWiki refuses) folded into the sidecar's
    `verification` {by: openwiki-git/<version>, at: latest}, when every claim is unmarked and the
    verification is newer than the one recorded."""
    claims, v = sidecar.claims, sidecar.verification
    if not claims or any(c.mark is not None for c in claims):
        return sidecar
    times = [c.verified_at for c in claims if c.verified_at and instant(c.verified_at)]
    if not times or (v is None and len(times) < len(claims)):
        return sidecar
    latest = max(times, key=lambda t: instant(t))  # type: ignore[arg-type,return-value]
    current = instant(v.at) if v is not None else None
    if current is not None and current >= instant(latest):  # type: ignore[operator]
        return sidecar
    return sidecar.replace(verification=Verification(PRODUCER, latest))
