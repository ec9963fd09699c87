"""The OKF bundle on disk: the generated `index.md` of every wiki directory, and `validate` (every
page's front matter against the bundled schema, plus the reserved files' rules). The rules
themselves are `pages/okf.py`'s; this module only walks the wiki's directories.

Only an index the tool generated is regenerated (it carries `wiki.GENERATED_INDEX_MARK`, or has
the shape the generator wrote before it marked them); a hand-written `index.md` is a page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from openwiki_git.errors import OpenwikiError, SchemaError
from openwiki_git.pages import frontmatter as fmt
from openwiki_git.pages import okf
from openwiki_git.pages.frontmatter_core import uses_okf
from openwiki_git.pages.indexes import GENERATED_INDEX_MARK, is_generated_index

if TYPE_CHECKING:
    from openwiki_git.git.repo import Repo
    from openwiki_git.store.wiki import Wiki
    from openwiki_git.store.workspace import Workspace


# -- indexes ---------------------------------------------------------------------------------


def _concepts(directory: Path) -> tuple[list[str], list[str]]:
    files, dirs = [], []
    for entry in sorted(directory.iterdir(), key=lambda p: p.name.encode("utf-8")):
        if entry.is_symlink() or entry.name.startswith("."):
            continue
        if entry.is_dir() and _has_concepts(entry):
            dirs.append(entry.name)
        elif entry.is_file() and entry.name.endswith(".md") and entry.name.lower() not in okf.RESERVED:
            files.append(entry.name)
    return files, dirs


def _has_concepts(directory: Path) -> bool:
    files, dirs = _concepts(directory)
    return bool(files or dirs)


def _entry_fields(path: Path) -> tuple[str | None, str | None]:
    try:
        text = path.read_text("utf-8")
        fm = fmt.parse(text, filename=path.name)
    except (OSError, UnicodeDecodeError, SchemaError):
        return None, None
    if fm is None:
        return None, None
    title, desc = fm.data.get("title"), fm.data.get("description")
    return (title.strip() if okf.is_text(title) else None), (" ".join(desc.split()) if okf.is_text(desc) else None)


def _link_text(text: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def index_text(directory: Path, *, root: bool) -> str:
    """The generated index.md of one wiki directory."""
    files, dirs = _concepts(directory)
    entries = []
    for name in files:
        title, desc = _entry_fields(directory / name)
        line = f"* [{_link_text(title or name[: -len('.md')])}]({quote(name, safe='-_.~')})"
        entries.append(line + (f" - {desc}" if desc else ""))
    subdirs = [f"* [{_link_text(d)}]({quote(d, safe='-_.~')}/)" for d in dirs]
    body = GENERATED_INDEX_MARK + "\n\n# Files\n" + ("\n" + "\n".join(entries) + "\n" if entries else "")
    body += "\n# Directories\n" + ("\n" + "\n".join(subdirs) + "\n" if subdirs else "")
    return (f'---\nokf_version: "{okf.OKF_VERSION}"\n---\n\n' + body) if root else body


def index_kind(path: Path) -> str:
    """"missing", "generated" (the tool's: is_generated_index) or "hand-written" (a page)."""
    if path.is_symlink() or path.is_dir():
        return "hand-written"  # not ours to replace
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return "missing"
    except (OSError, UnicodeDecodeError):
        return "hand-written"
    return "generated" if is_generated_index(text) else "hand-written"


def generated_at_head(path: Path, repo: Repo) -> bool:
    """Whether HEAD holds the tool's generated index at `path`: a root index.md deleted since
    leaves a wiki the tool still keeps the indexes of (lint reports it, `--fix` writes it back)."""
    try:
        then = repo.read(path.relative_to(repo.root).as_posix(), "HEAD").text
    except (OpenwikiError, ValueError):
        return False
    return then is not None and is_generated_index(then)


def keeps_indexes(wiki: Wiki) -> bool:
    """Does the tool keep this wiki's indexes? Yes when its root index.md is a generated one
    (`init` writes it): then a directory's missing index is created. A wiki that is an existing
    docs folder (no root index, or a hand-written one) gets no new index unless asked."""
    return index_kind(wiki.wiki_path / "index.md") == "generated"


def expected_indexes(wiki: Wiki, *, create: bool | None = None) -> dict[Path, str]:
    """The index.md files the tool writes, with their text: each generated one (regenerated),
    and each missing one of a directory holding concepts when `create` (default: keeps_indexes).
    A hand-written index.md is a page: never in this list."""
    out: dict[Path, str] = {}
    if not wiki.wiki_path.is_dir() or wiki.site is not None:  # a docs site has its own navigation: no bundle
        return out
    create = keeps_indexes(wiki) if create is None else create

    def walk(directory: Path, root: bool) -> None:
        kind = index_kind(directory / "index.md")
        if kind == "generated" or (kind == "missing" and create):
            out[directory / "index.md"] = index_text(directory, root=root)
        for name in _concepts(directory)[1]:
            walk(directory / name, False)

    walk(wiki.wiki_path, True)
    return out


# -- validate --------------------------------------------------------------------------------


def validate_pages(ws: Workspace) -> list[str]:
    """Every page's front matter against schemas/frontmatter.schema.json, plus the index.md and
    log.md rules; each problem as `file:line: location: message`."""
    from jsonschema import Draft202012Validator

    from openwiki_git.formats import schema

    validator = Draft202012Validator(schema.load_schema("frontmatter"))
    out: list[str] = []
    wiki = ws.wiki
    for page in wiki.pages():
        rel = wiki.repo_path(page)
        try:
            text = wiki.page_path(page).read_text("utf-8")
            fm = fmt.parse(text, filename=rel)
        except UnicodeDecodeError:
            out.append(f"{rel}:1: not UTF-8 text")
            continue
        except SchemaError as e:
            out.append(e.message)
            continue
        if not uses_okf(text, site=wiki.site is not None):
            continue  # a docs site's page: its front matter is the generator's, or none
        if fm is None:
            out.append(f"{rel}:1: no front matter (OKF v0.2 pages start with --- lines holding at least `type:`)")
            continue
        found = set()
        for error in validator.iter_errors(fm.data):
            if error.context:  # oneOf: the branch that got furthest says what is wrong
                error = max(error.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
            path = tuple(error.absolute_path)
            where = schema.json_path(path)
            found.add((fm.line(*path), where, error.message))
        out.extend(f"{rel}:{line}: {where}: {msg}" for line, where, msg in sorted(found))
    out.extend(_reserved_problems(wiki))
    return out


def _reserved_problems(wiki: Wiki) -> list[str]:
    out: list[str] = []
    if not wiki.wiki_path.is_dir():
        return out
    for path in sorted(wiki.wiki_path.rglob("*.md")):
        rel_wiki = path.relative_to(wiki.wiki_path)
        if path.name.lower() not in okf.RESERVED or any(p.startswith(".") for p in rel_wiki.parts[:-1]):
            continue
        if path.name.lower() == "index.md" and index_kind(path) != "generated":
            continue  # a hand-written index.md is a page: the page rules apply to it
        rel = path.relative_to(wiki.root).as_posix()
        try:
            fm = fmt.parse(path.read_text("utf-8"), filename=rel)
        except (OSError, UnicodeDecodeError):
            continue
        except SchemaError as e:
            out.append(e.message)
            continue
        if fm is None:
            continue
        is_root = rel_wiki.as_posix() == "index.md"
        extra = [k for k in fm.data if not (is_root and k == "okf_version")]
        if extra:
            what = "the root index.md carries only okf_version" if is_root else f"{path.name} has no front matter in OKF v0.2"
            out.append(f"{rel}:{fm.line(extra[0])}: {what}, found {extra[0]!r}")
        if is_root and "okf_version" in fm.data and fm.data["okf_version"] != okf.OKF_VERSION:
            out.append(f'{rel}:{fm.line("okf_version")}: okf_version must be the string "0.2", found {fm.data["okf_version"]!r}')
    return out
