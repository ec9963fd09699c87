"""action.yml and the example workflows: valid YAML, inputs only through env:, every input reaching
the CLI (the run script executed under bash with a stub `openwiki-git`), and the examples using
only the action's inputs with least-privilege permissions."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from openwiki_git.commands import github as github_cmd

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
EXAMPLES = {name: ROOT / "examples" / name for name in ("pr-check.yml", "nightly-refresh.yml")}
EXPR = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")


def load(path: Path) -> dict:
    return YAML(typ="safe", pure=True).load(path.read_text("utf-8"))


@pytest.fixture(scope="module")
def action() -> dict:
    return load(ACTION)


def run_step(action: dict) -> dict:
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "run"]
    return step


def test_composite_action_shape(action) -> None:
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert step.get("shell") == "bash", step
            assert "${{" not in step["run"], f"expression inside run: {step.get('name')}"
    install = [s for s in action["runs"]["steps"] if "pip install" in s.get("run", "")]
    assert install and '"${GITHUB_ACTION_PATH}[github,refresh]"' in install[0]["run"]
    assert set(action["inputs"]) == {
        "mode", "github-token", "base", "fail-on-stale", "model", "base-url", "api-key", "max-claims", "branch",
    }


def test_outputs_come_from_the_run_step(action) -> None:
    assert {"stale-count", "pr-number", "pr-url"} <= set(action["outputs"])
    for name, out in action["outputs"].items():
        assert out["value"] == f"${{{{ steps.run.outputs.{name} }}}}"


def test_every_input_is_passed_through_env_and_used(action) -> None:
    step = run_step(action)
    env = step["env"]
    by_input = {}
    for var, value in env.items():
        m = EXPR.fullmatch(str(value).strip())
        assert m, f"{var}: env values must be exactly one input expression"
        by_input[m.group(1)] = var
    assert set(by_input) == set(action["inputs"]), "every input has an env variable"
    for name, var in by_input.items():
        if var != "GITHUB_TOKEN":  # read by the CLI from the environment
            assert f"${{{var}}}" in step["run"] or f"{var}" in step["run"], f"{var} ({name}) is not used"


def interpolate(action: dict, inputs: dict[str, str]) -> dict[str, str]:
    """What the runner does: each env value's `${{ inputs.x }}` replaced by the input (or its default)."""
    values = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    values.update(inputs)
    values["github-token"] = inputs.get("github-token", "default-token")
    return {var: EXPR.sub(lambda m: values[m.group(1)], str(value)) for var, value in run_step(action)["env"].items()}


def run_script(action: dict, tmp_path: Path, inputs: dict[str, str]) -> tuple[int, list[str], dict]:
    bash = shutil.which("bash")
    if bash is None:  # pragma: no cover
        pytest.skip("bash is not installed")
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    record = tmp_path / "argv.json"
    stub = bindir / "openwiki-git"
    stub.write_text(
        "#!/usr/bin/env python3\n"
        "import json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'env': {{k: v for k, v in os.environ.items() "
        f"if k.startswith(('OWG_', 'GITHUB_TOKEN'))}}}}, open({str(record)!r}, 'w'))\n"
    )
    stub.chmod(0o755)
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", **interpolate(action, inputs)}
    proc = subprocess.run([bash, "-c", run_step(action)["run"]], env=env, capture_output=True, text=True)
    if not record.exists():
        return proc.returncode, [], {}
    data = json.loads(record.read_text())
    record.unlink()
    return proc.returncode, data["argv"], data["env"]


def cli_parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="openwiki-git")
    github_cmd.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_comment_mode_inputs_reach_the_cli(action, tmp_path) -> None:
    rc, argv, env = run_script(
        action, tmp_path, {"mode": "comment", "base": "origin/main", "fail-on-stale": "true", "github-token": "tok-1"}
    )
    assert rc == 0
    assert argv == ["github", "comment", "--base", "origin/main", "--fail-on-stale"]
    assert env["GITHUB_TOKEN"] == "tok-1"
    args = cli_parse(argv)
    assert (args.base, args.fail_on_stale, args.run) == ("origin/main", True, github_cmd.cmd_comment)


def test_comment_mode_defaults(action, tmp_path) -> None:
    rc, argv, _ = run_script(action, tmp_path, {})
    assert rc == 0 and argv == ["github", "comment"]
    assert cli_parse(argv).fail_on_stale is False


def test_refresh_mode_inputs_reach_the_cli(action, tmp_path) -> None:
    rc, argv, env = run_script(
        action,
        tmp_path,
        {
            "mode": "refresh", "base": "develop", "model": "m-1", "base-url": "http://127.0.0.1:9/v1",
            "api-key": "sk-secret", "max-claims": "7", "branch": "bot/wiki", "github-token": "tok-2",
        },
    )
    assert rc == 0
    assert argv == [
        "github", "refresh-pr", "--branch", "bot/wiki", "--base", "develop", "--model", "m-1",
        "--base-url", "http://127.0.0.1:9/v1", "--max-claims", "7", "--api-key-env", "OWG_API_KEY",
    ]
    assert "sk-secret" not in argv  # the key travels in the environment, never on the command line
    assert env["OWG_API_KEY"] == "sk-secret" and env["GITHUB_TOKEN"] == "tok-2"
    args = cli_parse(argv)
    assert (args.branch, args.base, args.model, args.base_url, args.max_claims, args.api_key_env) == (
        "bot/wiki", "develop", "m-1", "http://127.0.0.1:9/v1", 7, "OWG_API_KEY",
    )


def test_inputs_cannot_inject_shell(action, tmp_path) -> None:
    evil = '$(touch pwned); `touch pwned2` "; touch pwned3'
    rc, argv, _ = run_script(action, tmp_path, {"mode": "comment", "base": evil})
    assert rc == 0 and argv == ["github", "comment", "--base", evil]
    assert not list(tmp_path.glob("pwned*")) and not list(Path.cwd().glob("pwned*"))


@pytest.mark.parametrize("inputs", [{"mode": "delete"}, {"mode": "comment", "fail-on-stale": "maybe"}])
def test_bad_inputs_fail_before_the_cli(action, tmp_path, inputs) -> None:
    rc, argv, _ = run_script(action, tmp_path, inputs)
    assert rc == 2 and argv == []


# -- the example workflows ------------------------------------------------------------------------------
def triggers(wf: dict) -> dict:
    return wf.get("on", wf.get(True)) or {}


def action_steps(wf: dict) -> list[dict]:
    return [s for job in wf["jobs"].values() for s in job["steps"] if "openwiki-git/openwiki-git@" in s.get("uses", "")]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_is_valid_and_uses_only_the_actions_inputs(action, name) -> None:
    wf = load(EXAMPLES[name])
    steps = action_steps(wf)
    assert len(steps) == 1
    given = steps[0]["with"]
    assert set(given) <= set(action["inputs"]), set(given) - set(action["inputs"])
    assert given["mode"] in ("comment", "refresh")
    assert "concurrency" in wf
    for job in wf["jobs"].values():
        assert "runs-on" in job
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), f"{name}: expression inside run:"


def test_pr_check_example(action) -> None:
    wf = load(EXAMPLES["pr-check.yml"])
    assert "pull_request" in triggers(wf) and "pull_request_target" not in triggers(wf)
    assert wf["permissions"] == {"contents": "read", "pull-requests": "write"}
    (step,) = action_steps(wf)
    assert step["with"]["mode"] == "comment"
    assert "api-key" not in step["with"]  # no model key in pull request jobs
    checkout = next(s for job in wf["jobs"].values() for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0


def test_nightly_refresh_example(action) -> None:
    text = EXAMPLES["nightly-refresh.yml"].read_text("utf-8")
    wf = load(EXAMPLES["nightly-refresh.yml"])
    on = triggers(wf)
    assert "workflow_dispatch" in on
    (cron,) = [c["cron"] for c in on["schedule"]]
    minute = cron.split()[0]
    assert minute.isdigit() and int(minute) != 0
    assert wf["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert wf["concurrency"]["cancel-in-progress"] is False
    (job,) = wf["jobs"].values()
    assert "github.repository" in job["if"]  # the fork guard
    (step,) = action_steps(wf)
    assert step["with"]["mode"] == "refresh"
    assert "Allow GitHub Actions to create and approve pull requests" in text
    assert "create-github-app-token" in text


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_readme_shows_the_examples(name) -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert EXAMPLES[name].read_text("utf-8").strip() in readme
