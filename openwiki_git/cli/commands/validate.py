"""`openwiki-git validate`: check the config, every sidecar and every page's front matter against
the bundled schemas. Each problem is printed as `file: location: message`; exit 1 if any."""

from __future__ import annotations

import argparse

from openwiki_git.cli.args import open_workspace
from openwiki_git.errors import OpenwikiError
from openwiki_git.formats import schema
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.model import Sidecar
from openwiki_git.store.config import config_path
from openwiki_git.store.workspace import Workspace


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check config, sidecars and front matter against the schemas", description=__doc__)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ws = open_workspace(args)  # a config that does not validate is reported here, exit 2
    found = validate_sidecars(ws) + validate_pages(ws)
    for line in found:
        print(line)
    checked = len(ws.wiki.sidecar_pages())
    print(f"{len(found)} problem(s) in {config_path(ws.repo.root).name}, {checked} sidecar(s) and {len(ws.wiki.pages())} page(s)")
    return 1 if found else 0


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


def validate_pages(ws: Workspace) -> list[str]:
    """Front matter of every page (OKF v0.2), when the front-matter module is available."""
    try:
        from openwiki_git.store import bundle
    except ImportError:
        return []
    return bundle.validate_pages(ws)
