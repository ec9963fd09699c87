"""`validate`'s work: every sidecar against the bundled schema and the rules it cannot say
(canonical URIs, unique ids), every page's front matter (OKF v0.2); problems as lines."""

from __future__ import annotations

from typing import Any

from openwiki_git.errors import OpenwikiError
from openwiki_git.evidence.kinds import openwiki_cannot_read
from openwiki_git.formats import schema
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.model import Sidecar
from openwiki_git.store.workspace import Workspace


def validate(ws: Workspace) -> list[str]:
    """Every problem, `file: location: message`: the sidecars', then the pages'."""
    return validate_sidecars(ws) + validate_pages(ws)


def validate_sidecars(ws: Workspace) -> list[str]:
    out: list[str] = []
    loaded: dict[str, Sidecar] = {}
    for page in ws.wiki.sidecar_pages():
        path = ws.wiki.sidecar_path(page)
        rel = path.relative_to(ws.repo.root).as_posix()
        try:
            data = sidecar_codec.decode_json(path.read_text("utf-8"), filename=rel, max_depth=sidecar_codec.MAX_DEPTH)
        except (OSError, UnicodeDecodeError) as e:
            out.append(f"{rel}: $: {e}")
            continue
        except OpenwikiError as e:
            out.append(e.message)
            continue
        problems = schema.problems("sidecar", data)
        if not problems and ws.config.strict_openwiki:
            problems = _openwiki_unreadable(data)
        out.extend(f"{rel}: {p}" for p in problems)
        if not problems:
            try:
                sidecar = ws.wiki.load(page)  # the semantic rules the schema cannot say (canonical URIs, duplicates)
            except OpenwikiError as e:
                out.append(e.message)
            else:
                if sidecar is not None:
                    loaded[page] = sidecar
        if not ws.wiki.page_path(page).is_file():
            out.append(f"{rel}: $: orphan sidecar: {ws.wiki.repo_path(page)} does not exist")
    return out + [f"{line} (claim ids are unique across the wiki)" for line in ws.wiki.duplicate_ids(loaded)]


def _openwiki_unreadable(data: Any) -> list[str]:
    """OpenWiki mode: each evidence resource OpenWiki's reader would misread (a schema-valid
    sidecar, so the shape below is known)."""
    out: list[str] = []
    for i, claim in enumerate(data.get("claims", [])):
        for j, ev in enumerate(claim.get("evidence", [])):
            problem = openwiki_cannot_read(ev.get("resource", ""))
            if problem:
                out.append(f"$.claims[{i}].evidence[{j}].resource: {ev['resource']}: {problem}")
    return out


def validate_pages(ws: Workspace) -> list[str]:
    """Front matter of every page (OKF v0.2), when the front-matter module is available."""
    try:
        from openwiki_git.store import bundle
    except ImportError:
        return []
    return bundle.validate_pages(ws)
