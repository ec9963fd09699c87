"""The project's own docs hold together: every relative link of README.md and the guides under
docs/ names a file that exists, every `#anchor` a heading of its target (GitHub's slugs, as
markdown/ computes them for the graph), and the front page stays a front page.

Links are read as `lint` reads them (`refs.link_targets`: inline links, images and reference
definitions, outside fenced code and code spans); URLs with a scheme are not followed."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from openwiki_git.markdown.builder import slugify
from openwiki_git.markdown.refs import link_targets
from openwiki_git.markdown.split import split

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
README_MAX_LINES = 250


def anchors(path: Path) -> set[str]:
    text = path.read_text("utf-8")
    doc = split(text, path.name)
    titles = {slugify(m.group(1)) for m in re.finditer(r"^# (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M)}
    return {s.anchor for s in doc.sections} | {slugify(s.heading) for s in doc.sections} | titles


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    out = []
    for line, target in link_targets(path.read_text("utf-8")):
        if SCHEME.match(target) or target.startswith("//"):
            continue
        file_part, _, anchor = target.partition("#")
        where = (path.parent / unquote(file_part)).resolve() if file_part else path
        name = f"{path.relative_to(root)}:{line}: {target}"
        if not where.exists():
            out.append(f"{name}: {where.relative_to(root) if where.is_relative_to(root) else where} does not exist")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            out.append(f"{name}: no heading #{anchor} in {where.relative_to(root)}")
    return out


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_a_broken_link_and_a_broken_anchor_are_found(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text("# Guide\n\n## Two words\n\nText.\n", "utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](guide.md#two-words) [gone](missing.md) [anchor](guide.md#three-words) [self](#page)\n"
        "```sh\n[in code](nowhere.md)\n```\n",
        "utf-8",
    )
    assert broken_links(page, tmp_path) == [
        "page.md:3: missing.md: missing.md does not exist",
        "page.md:3: guide.md#three-words: no heading #three-words in guide.md",
    ]


def test_the_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text("utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; the manual belongs in docs/"


GUIDES = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name in {
    "action.md", "agents.md", "architecture.md", "benchmarks.md", "ci.md", "commands.md", "configuration.md", "formats.md",
    "grounding.md", "hook.md", "openwiki.md", "refresher.md", "report.md", "review.md", "troubleshooting.md",
})


@pytest.mark.parametrize("path", GUIDES, ids=lambda p: p.name)
def test_every_guide_starts_with_the_job_it_is_for(path: Path) -> None:
    """A `# Title`, then a paragraph (not a heading, list, table or code) before anything else
    (after the front matter: the guides are pages of the project's wiki)."""
    text = path.read_text("utf-8")
    if text.startswith("---\n"):
        text = text[text.index("\n---\n", 4) + 5 :].lstrip("\n")
    title, _, rest = text.partition("\n\n")
    assert title.startswith("# ") and "\n" not in title, f"{path.name} starts with a `# ` title line"
    first = rest.split("\n\n", 1)[0]
    assert first and not first.startswith(("#", "-", "|", "```", "*")) and len(first) > 80, f"{path.name}: no opening paragraph"
