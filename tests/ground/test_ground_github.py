"""`openwiki-git github ground-pr`: the refresh pull request's machinery (services/github_publish.py,
github/api.py) carrying `ground`'s changes, against the stateful fake GitHub API of
test_github_command.py (`responses`, no network)."""

# ruff: noqa: F811  (the fixtures imported below are taken as the tests' parameters)
from __future__ import annotations

from typing import Any

from openwiki_git.github import pull_body
from tests.support.github_fake import FakeGitHub, outputs
from tests.support.ground_docs import GUIDE


def test_opens_one_pr_and_a_rerun_from_the_base_writes_nothing(docs_repo: Any, fake: FakeGitHub, refresh_env: Any, capsys: Any) -> None:
    capsys.readouterr()
    assert docs_repo.run("github", "ground-pr") == 0
    out = capsys.readouterr().out
    assert out.count("::warning file=docs/guide.md,line=6,title=openwiki-git%3A broken reference::") == 2
    assert len(fake.pulls) == 1
    pr = fake.pulls[0]
    assert (pr["head"], pr["base"], pr["title"]) == ("openwiki-git/ground", "main", pull_body.GROUND_TITLE)
    assert "| docs/guide.md:3 | `widgets.make()` | src/widgets/_core.py#make |" in pr["body"]
    assert "### Broken references" in pr["body"]
    files = fake.branch_files("openwiki-git/ground")
    assert set(files) == {"docs/guide.md", "docs/.claims/guide.json"}
    assert files["docs/guide.md"] is not None and b"[^c-" in files["docs/guide.md"]
    got = outputs(refresh_env["output"])
    # six claims: one per sentence, and the example
    assert (got["pr-operation"], got["grounded-count"], got["broken-count"]) == ("created", "6", "2")

    # the next night, from the base branch again: the same claims (stable ids), nothing written
    docs_repo.git("checkout", "-q", "--", "docs")
    docs_repo.git("clean", "-fdq", "docs")
    assert docs_repo.read("docs/guide.md") == GUIDE
    writes = len(fake.writes)
    assert docs_repo.run("github", "ground-pr") == 0
    assert len(fake.writes) == writes
    assert outputs(refresh_env["output"])["pr-operation"] == "unchanged"


def test_nothing_to_ground_opens_no_pr(repo: Any, fake: FakeGitHub, refresh_env: Any) -> None:
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/plain.md", "Nothing here names any code at all.\n")
    repo.commit_all()
    assert repo.run("github", "ground-pr") == 0
    assert fake.pulls == [] and fake.writes == []
    assert outputs(refresh_env["output"])["pr-operation"] == "none"


def test_needs_a_token(docs_repo: Any, refresh_env: Any, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    assert docs_repo.run("github", "ground-pr") == 2
    assert "GITHUB_TOKEN is not set" in capsys.readouterr().err


def test_the_example_workflow() -> None:
    from pathlib import Path

    from ruamel.yaml import YAML

    path = Path(__file__).resolve().parents[2] / "examples" / "nightly-ground.yml"
    text = path.read_text("utf-8")
    wf = YAML(typ="safe").load(text)
    # Least privilege: nothing at the workflow level, the job asks for what it writes; the model
    # key is read in a job with an environment (zizmor: secrets-outside-env).
    assert wf["permissions"] == {}
    (job,) = wf["jobs"].values()
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert job["environment"] == "wiki-ground" and job["name"]
    assert all("@" in s["uses"] and len(s["uses"].split("@")[1]) == 40 for s in job["steps"] if "uses" in s)  # SHA-pinned
    assert "github.repository" in job["if"]
    run = next(s for s in job["steps"] if s.get("name") == "Ground the docs")
    assert "${{" not in run["run"]  # inputs reach the script through env only
    assert run["env"]["OWG_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    assert "github ground-pr" in run["run"]
    assert text.strip() in (path.parents[1] / "docs" / "grounding.md").read_text("utf-8")


def test_the_repository_config_cannot_redirect_the_model_endpoint_or_key(
    docs_repo: Any, fake: FakeGitHub, refresh_env: Any, monkeypatch: Any, capsys: Any
) -> None:
    """As for `github refresh-pr`: a merged docs change pointing refresh.base_url at an attacker and
    api_key_env at GITHUB_TOKEN changes nothing under `github ground-pr --model`; the inputs decide."""
    from tests.support.fake_openai_server import FakeOpenAI

    monkeypatch.setenv("OWG_API_KEY", "sk-test-ground-0123456789")
    with FakeOpenAI() as hostile, FakeOpenAI() as good:
        # The workflow's author sets the endpoint in the environment; no --base-url input.
        monkeypatch.setenv("OPENAI_BASE_URL", good.base_url)
        docs_repo.write(
            ".openwiki/config.yml",
            "wiki_dir: docs\n" f"refresh:\n  base_url: {hostile.base_url}\n  api_key_env: GITHUB_TOKEN\n",
        )
        docs_repo.commit_all("docs: tweak the model settings")
        docs_repo.run("github", "ground-pr", "--model", "m", "--api-key-env", "OWG_API_KEY")
        assert hostile.requests == []
        assert all(h.get("authorization") == "Bearer sk-test-ground-0123456789" for h in good.headers)


def test_a_retracted_sentence_stays_retracted_through_the_nightly_pr(docs_repo: Any, fake: FakeGitHub, refresh_env: Any) -> None:
    """A sentence whose claim was retracted on the base branch (its tombstone committed with the
    sidecar) is not grounded again by the nightly `github ground-pr`."""
    import json

    assert docs_repo.run("ground", "--all") == 1
    sidecar = json.loads(docs_repo.read("docs/.claims/guide.json"))
    make = next(c["id"] for c in sidecar["claims"] if c["statement"].startswith("Call `widgets.make()`"))
    assert docs_repo.run("claim", "retract", make, "--by", "human:ann") == 0
    docs_repo.commit_all("ground, and retract one claim")
    assert docs_repo.run("github", "ground-pr") == 0
    assert fake.pulls == [] and outputs(refresh_env["output"])["pr-operation"] == "none"
