"""Site mode (issue 35): a wiki folder that is a docs site's source, detected from the site's own
configuration or named by the config, and what follows for `init`, `validate`, `lint` and the
writers, through the real CLI in real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openwiki_git.formats import siteconf
from openwiki_git.store.config import load_config
from openwiki_git.store.site import Site, detect, existing
from tests.support.pty_session import PtySession, openwiki_git
from tests.support.repo import GitRepo


def _site(root: Path, files: dict[str, str], config: str = "wiki_dir: docs\n") -> Site | None:
    for path, text in {".openwiki/config.yml": config, **files}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return detect(root, load_config(root))


@pytest.mark.parametrize(
    ("files", "config", "expected"),
    [
        ({"mkdocs.yml": "site_name: x\n", "docs/a.md": ""}, "wiki_dir: docs\n", Site("mkdocs", "mkdocs.yml")),
        ({"mkdocs.yml": "docs_dir: pages\n"}, "wiki_dir: pages/guide\n", Site("mkdocs", "mkdocs.yml")),
        ({"mkdocs.yml": "docs_dir: pages\n", "docs/a.md": ""}, "wiki_dir: docs\n", None),  # it builds pages/, not docs/
        ({"docs/conf.py": "extensions = []\n"}, "wiki_dir: docs\n", Site("sphinx", "docs/conf.py")),
        ({"doc/source/conf.py": "project = 'x'\n"}, "wiki_dir: doc/source\n", Site("sphinx", "doc/source/conf.py")),
        ({"doc/source/conf.py": "project = 'x'\n"}, "wiki_dir: doc\n", Site("sphinx", "doc/source/conf.py")),  # the split layout
        ({"doc/conf.py": "project = 'x'\n"}, "wiki_dir: doc/api\n", Site("sphinx", "doc/conf.py")),  # a conf.py above
        ({"docs/conf.py": "DEBUG = True\n"}, "wiki_dir: docs\n", None),  # not Sphinx's
        ({"mkdocs.yml": "site_name: x\n"}, "wiki_dir: docs\nsite: none\n", None),
        ({}, "wiki_dir: docs\nsite: sphinx\n", Site("sphinx", None)),
        ({"conf.py": "extensions = []\n", "mkdocs.yml": "docs_dir: .openwiki\n"}, "", None),  # .openwiki/ is never a site's
    ],
)
def test_a_site_is_detected_from_its_own_configuration(
    tmp_path: Path, files: dict[str, str], config: str, expected: Site | None
) -> None:
    assert _site(tmp_path, files, config) == expected


def test_candidates_are_nearest_first() -> None:
    assert siteconf.candidates("doc/source") == [
        "doc/source/conf.py", "doc/source/source/conf.py", "doc/source/mkdocs.yml", "doc/source/mkdocs.yaml",
        "doc/conf.py", "doc/mkdocs.yml", "doc/mkdocs.yaml", "conf.py", "mkdocs.yml", "mkdocs.yaml",
    ]


def test_an_existing_site_folder_is_found_for_init(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    assert existing(tmp_path) is None
    (tmp_path / "docs" / "conf.py").write_text("extensions = ['myst_parser']\n")
    assert existing(tmp_path) == ("docs", Site("sphinx", "docs/conf.py"))
    (tmp_path / "mkdocs.yml").write_text("site_name: x\ndocs_dir: docs\n")
    assert existing(tmp_path) == ("docs", Site("mkdocs", "mkdocs.yml"))


@pytest.fixture
def site_repo(repo: GitRepo) -> GitRepo:
    repo.write("mkdocs.yml", "site_name: Shop\ntheme:\n  name: material\n")
    repo.write("docs/index.md", "# Shop\n\nWelcome.\n")
    repo.write("docs/guide.md", "---\ntitle: The guide\nhide:\n  - toc\n---\n\n# Guide\n\n"
                                "The cart total lives in `shop/cart.py` and nowhere else.\n")
    repo.write("shop/cart.py", "def total():\n    return 0\n")
    repo.commit_all()
    return repo


def test_init_offers_the_site_and_writes_nothing_without_a_terminal(site_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    before = site_repo.snapshot()
    assert site_repo.run("init") == 2
    err = capsys.readouterr().err
    assert "docs/ is the source of a docs site (mkdocs.yml): say which folder to guard" in err
    assert "`openwiki-git init --wiki-dir docs` guards its pages in place (site mode)" in err
    assert site_repo.snapshot() == before


def test_init_with_the_sites_folder_writes_the_config_alone(site_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    before = set(site_repo.snapshot())
    assert site_repo.run("init", "--wiki-dir", "docs") == 0
    out = capsys.readouterr().out
    assert set(site_repo.snapshot()) - before == {".openwiki/config.yml"}  # no index.md, no .claims/.gitkeep
    assert "site: an MkDocs site's source (mkdocs.yml)" in out
    assert "next: `openwiki-git ground --all --plan`" in out
    assert "wiki_dir: docs\n" in site_repo.read(".openwiki/config.yml")
    assert site_repo.run("validate") == 0  # pages without OKF front matter are fine on a site


def test_init_on_a_terminal_asks_and_takes_the_site_by_default(site_repo: GitRepo) -> None:
    s = PtySession(openwiki_git("-C", str(site_repo.root), "init"), cwd=site_repo.root)
    s.read_until("Guard its pages in place (site mode)? [Y/n] ")
    s.send("\r")
    assert s.wait() == 0
    assert "created .openwiki/config.yml" in s.screen and not (site_repo.root / ".openwiki/index.md").exists()
    assert "wiki_dir: docs" in site_repo.read(".openwiki/config.yml")


def test_init_on_a_terminal_may_keep_a_separate_wiki(site_repo: GitRepo) -> None:
    s = PtySession(openwiki_git("-C", str(site_repo.root), "init"), cwd=site_repo.root)
    s.read_until("[Y/n] ")
    s.send("n\r")
    assert s.wait() == 0
    assert (site_repo.root / ".openwiki/index.md").is_file() and "wiki_dir: .openwiki" in site_repo.read(".openwiki/config.yml")


def test_site_pages_need_no_okf_front_matter_and_get_no_bookkeeping(site_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    site_repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    site_repo.write("docs/okf.md", "---\ntype: Guide\n---\n\n# OKF\n\nThe cart is written in `shop/cart.py` as plain Python.\n")
    site_repo.write("docs/bad.md", "---\ntype: 3\n---\n\n# Bad\n")
    site_repo.commit_all()
    capsys.readouterr()
    assert site_repo.run("validate") == 1  # only the page that uses OKF front matter is held to it
    out = capsys.readouterr().out
    assert "docs/bad.md" in out and "docs/guide.md" not in out and "docs/index.md" not in out
    site_repo.write("docs/bad.md", "---\ntype: Guide\n---\n\n# Bad\n")
    assert site_repo.run("ground", "--all") == 0
    guide = site_repo.read("docs/guide.md")
    assert guide.startswith("---\ntitle: The guide\nhide:\n  - toc\n---\n")  # the generator's front matter, untouched
    assert "sources:" not in guide and "verified:" not in guide and "openwiki-git:citations" not in guide
    assert "sources:" in site_repo.read("docs/okf.md")  # a page already using OKF front matter keeps it projected
    assert not (site_repo.root / "docs/.claims/guide.json").read_text().count("sources")
    capsys.readouterr()
    assert site_repo.run("lint", "--format", "json") in (0, 1)
    kinds = {f["kind"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "front-matter" not in kinds


def test_no_index_bundle_is_created_on_a_site(site_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    site_repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    site_repo.write("docs/sub/deep.md", "# Deep\n\nThe cart total lives in `shop/cart.py` as one function.\n")
    site_repo.commit_all()
    before = set(site_repo.snapshot())
    assert site_repo.run("lint", "--fix", "--create-indexes") in (0, 1)
    assert not {p for p in set(site_repo.snapshot()) - before if p.endswith("index.md")}
