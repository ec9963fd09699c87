"""check's JSON `marker` is the marker as the page carries it (pages/labels.marker_text): the
comment `<!-- c-... -->` on a docs site's Markdown page, the comment line `.. c-...` on a Sphinx
site's `.rst` page, the footnote `[^c-...]` on a plain wiki's page; the same whichever path
answers (judged and cached, the cache's warm answer, `--no-cache`'s lean path, the whole
report), and the cache follows the site configuration when it comes or goes."""

from __future__ import annotations

import json

import pytest

from openwiki_git.caches import statkey
from tests.support.repo import GitRepo, add_claim

SOURCE = "".join(f"line {i}\n" for i in range(1, 21))


def _markers(repo: GitRepo, capsys: pytest.CaptureFixture[str], *argv: str) -> list[tuple[str, bool]]:
    capsys.readouterr()
    assert repo.run("check", "--format", "json", *argv) == 0
    data = json.loads(capsys.readouterr().out)
    return [(c["marker"], c["marker_present"]) for c in data["claims"]]


def _every_path(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> list[list[tuple[str, bool]]]:
    """The markers as the cold run (judged, cached), the warm answer, --no-cache (the lean path)
    and a run from the index (the whole report) give them."""
    return [_markers(repo, capsys), _markers(repo, capsys), _markers(repo, capsys, "--no-cache"),
            _markers(repo, capsys, "--no-cache", "--source", "index")]


@pytest.fixture
def site_repo(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    monkeypatch.setattr(statkey, "RACY_NS", 0)  # the files' stat is trusted: the warm answer is taken
    repo.write("src/app.py", SOURCE)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/.claims/.gitkeep", "")
    repo.commit_all("source")
    return repo


def _site_claim(repo: GitRepo) -> str:
    """An MkDocs site's page with one claim added: the claim's label."""
    repo.write("mkdocs.yml", "site_name: Shop\n")
    repo.write("docs/guide.md", "# Guide\n\nLine ten says ten.\n")
    cid = add_claim(repo, "guide.md", "Line ten says ten.", "repo://src/app.py#L10-L10")
    return "c-" + cid.removeprefix("claim_")[:8]


def test_a_mkdocs_sites_page_reports_the_comment_marker(site_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = site_repo
    label = _site_claim(repo)
    assert f"<!-- {label} -->" in repo.read("docs/guide.md") and "[^" not in repo.read("docs/guide.md")
    repo.commit_all("site")
    for got in _every_path(repo, capsys):
        assert got == [(f"<!-- {label} -->", True)]
    # No site builds the folder any more: a plain wiki's form, the cache's entries not reused.
    (repo.root / "mkdocs.yml").unlink()
    assert _markers(repo, capsys) == [(f"[^{label}]", True)]
    assert _markers(repo, capsys, "--no-cache") == [(f"[^{label}]", True)]
    repo.write("mkdocs.yml", "site_name: Shop\n")
    assert _markers(repo, capsys) == _markers(repo, capsys) == [(f"<!-- {label} -->", True)]


def test_a_missing_marker_on_a_site_page_is_named_in_the_pages_form(site_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = site_repo
    label = _site_claim(repo)
    repo.write("docs/guide.md", "# Guide\n\nLine ten says ten.\n")  # the marker removed by hand
    repo.commit_all("site")
    for argv in ((), (), ("--no-cache",)):
        capsys.readouterr()
        assert repo.run("check", "--format", "json", *argv) == 1
        claims = json.loads(capsys.readouterr().out)["claims"]
        assert [(c["marker"], c["marker_present"]) for c in claims] == [(f"<!-- {label} -->", False)]
    capsys.readouterr()
    assert repo.run("check", "-v") == 1
    assert f"marker <!-- {label} --> is missing" in capsys.readouterr().out


def test_a_sphinx_sites_rst_page_reports_the_rst_comment_line(site_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = site_repo
    repo.write("docs/conf.py", 'project = "shop"\n')
    repo.write("docs/api.rst", "Shop API\n========\n\nLine ten says ten.\n")
    cid = add_claim(repo, "api.rst", "Line ten says ten.", "repo://src/app.py#L10-L10")
    label = "c-" + cid.removeprefix("claim_")[:8]
    assert f"\n.. {label}\n" in repo.read("docs/api.rst") + "\n"
    repo.commit_all("sphinx")
    for got in _every_path(repo, capsys):
        assert got == [(f".. {label}", True)]


def test_a_plain_wiki_keeps_the_footnote(wiki_repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statkey, "RACY_NS", 0)
    cid = add_claim(wiki_repo, "guide.md", "Line ten says ten.", "repo://src/app.py#L10-L10")
    wiki_repo.commit_all("claim")
    for got in _every_path(wiki_repo, capsys):
        assert got == [(f"[^c-{cid.removeprefix('claim_')[:8]}]", True)]
