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
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from openwiki_git.cli.commands import github as github_cmd

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
EXAMPLES = {name: ROOT / "examples" / name for name in ("pr-check.yml", "nightly-refresh.yml", "sharded-refresh.yml")}
EXPR = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")


def load(path: Path) -> dict:
    return YAML(typ="safe", pure=True).load(path.read_text("utf-8"))


@pytest.fixture(scope="module")
def action() -> dict:
    return load(ACTION)


def run_step(action: dict, step_id: str = "run") -> dict:
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == step_id]
    return step


INPUTS = {
    "mode", "github-token", "base", "fail-on-stale", "comment-author", "model", "base-url", "api-key", "max-claims",
    "timeout", "deadline", "max-concurrency", "plan", "shard", "shard-dir", "branch",
}
SHA_PIN = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")


def test_composite_action_shape(action) -> None:
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert step.get("shell") == "bash", step
            assert "${{" not in step["run"], f"expression inside run: {step.get('name')}"
        if "uses" in step:
            assert SHA_PIN.match(step["uses"]), f"{step['uses']}: pin actions to a commit SHA"
    assert set(action["inputs"]) == INPUTS


def test_a_private_venv_and_hashed_locks_per_mode(action) -> None:
    """The caller's python is untouched (setup-python without update-environment, a venv under
    RUNNER_TEMP); only the mode's hashed lock file is installed, from wheels."""
    setup = next(s for s in action["runs"]["steps"] if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["update-environment"] is False
    install = run_step(action, "install")["run"]
    assert '"${RUNNER_TEMP}/openwiki-git-venv"' in install
    assert "--require-hashes" in install and "--no-deps" in install and "--only-binary :all:" in install
    assert "GITHUB_ACTION_PATH}/requirements/action-${OWG_LOCK}.txt" in install
    cache = next(s for s in action["runs"]["steps"] if s.get("uses", "").startswith("actions/cache@"))
    assert "github.action_ref" in cache["with"]["key"] and "lock-hash" in cache["with"]["key"]
    for lock in ("comment", "refresh"):
        text = (ROOT / "requirements" / f"action-{lock}.txt").read_text("utf-8")
        pins = re.findall(r"^([A-Za-z0-9_.-]+)==\S+ \\$", text, re.M)
        assert pins and text.count("--hash=sha256:") >= len(pins)
        assert ("langchain-openai" in pins) == (lock == "refresh")  # the refresh extra only where a model is used
        assert "pygithub" in pins


def test_outputs_come_from_the_run_step(action) -> None:
    assert set(action["outputs"]) == {
        "stale-count", "comment-operation", "comment-id", "comment-url", "pr-number", "pr-url", "pr-operation",
        "grounded-count", "broken-count", "report-path", "model-calls", "claims-decided", "first-accepted", "retries",
    }
    for name, out in action["outputs"].items():
        assert out["value"] == f"${{{{ steps.run.outputs.{name} }}}}"


def test_every_output_the_cli_writes_is_declared(action) -> None:
    # The workflows write the step outputs (services/github_*.py, through github/actions.py's Step.outputs).
    services = ROOT / "openwiki_git" / "services"
    source = "".join(path.read_text("utf-8") for path in [*sorted(services.glob("github_*.py")), services / "report.py"])
    written = set(re.findall(r'"((?:stale|comment|pr|grounded|broken|report|model|claims|first)-[a-z]+|retries)"\s*:', source))
    assert written and written <= set(action["outputs"]), written - set(action["outputs"])


def test_every_input_is_passed_through_env_and_used(action) -> None:
    step = run_step(action)
    env = step["env"]
    by_input = {}
    for var, value in env.items():
        if var == "OWG_PYTHON":
            assert value == "${{ steps.install.outputs.python }}"
            continue
        m = EXPR.fullmatch(str(value).strip())
        assert m, f"{var}: env values must be exactly one input expression"
        by_input[m.group(1)] = var
    assert set(by_input) == set(action["inputs"]), "every input has an env variable"
    for name, var in by_input.items():
        if var != "GITHUB_TOKEN":  # read by the CLI from the environment
            assert f"${{{var}}}" in step["run"] or f"{var}" in step["run"], f"{var} ({name}) is not used"


def interpolate(action: dict, inputs: dict[str, str], python: str) -> dict[str, str]:
    """What the runner does: each env value's `${{ inputs.x }}` replaced by the input (or its default)."""
    values = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    values.update(inputs)
    values["github-token"] = inputs.get("github-token", "default-token")
    out = {var: EXPR.sub(lambda m: values[m.group(1)], str(value)) for var, value in run_step(action)["env"].items()}
    out["OWG_PYTHON"] = python
    return out


def stub_python(tmp_path: Path) -> tuple[Path, Path]:
    """A `python` that records `-m openwiki_git ARGS` and the environment it was given."""
    record = tmp_path / "argv.json"
    stub = tmp_path / "bin" / "python"
    stub.parent.mkdir(exist_ok=True)
    stub.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "assert sys.argv[1:3] == ['-m', 'openwiki_git'], sys.argv\n"
        f"json.dump({{'argv': sys.argv[3:], 'env': {{k: v for k, v in os.environ.items() "
        f"if k.startswith(('OWG_', 'GITHUB_TOKEN', 'PYTHONPATH'))}}}}, open({str(record)!r}, 'w'))\n"
    )
    stub.chmod(0o755)
    return stub, record


def run_script(
    action: dict, tmp_path: Path, inputs: dict[str, str], *, step: str = "run", event: str | None = None
) -> tuple[int, list[str], dict]:
    bash = shutil.which("bash")
    if bash is None:  # pragma: no cover
        pytest.skip("bash is not installed")
    stub, record = stub_python(tmp_path)
    mode = inputs.get("mode", "comment")
    event = event or ("pull_request" if mode == "comment" else "schedule")
    env = {
        "PATH": os.environ["PATH"], "GITHUB_ACTION_PATH": str(ROOT), "GITHUB_EVENT_NAME": event,
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"), "RUNNER_TEMP": str(tmp_path),
        **interpolate(action, inputs, str(stub)),
    }
    proc = subprocess.run([bash, "-c", run_step(action, step)["run"]], env=env, capture_output=True, text=True)
    if not record.exists():
        return proc.returncode, [], {"stdout": proc.stdout}
    data = json.loads(record.read_text())
    record.unlink()
    return proc.returncode, data["argv"], data["env"]


def cli_parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="openwiki-git")
    github_cmd.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_comment_mode_inputs_reach_the_cli(action, tmp_path) -> None:
    rc, argv, env = run_script(
        action, tmp_path,
        {"mode": "comment", "base": "origin/main", "fail-on-stale": "true", "github-token": "tok-1", "comment-author": "app[bot]"},
    )
    assert rc == 0
    report = str(tmp_path / "openwiki-git-report" / "index.html")  # under RUNNER_TEMP: the report-path output
    assert argv == ["github", "comment", "--report-html", report, "--base", "origin/main", "--comment-author", "app[bot]",
                    "--fail-on-stale"]
    assert env["GITHUB_TOKEN"] == "tok-1" and env["PYTHONPATH"] == str(ROOT)
    args = cli_parse(argv)
    assert (args.base, args.fail_on_stale, args.run) == ("origin/main", True, github_cmd.cmd_comment)
    assert args.report_html == Path(report)


def test_comment_mode_defaults(action, tmp_path) -> None:
    rc, argv, _ = run_script(action, tmp_path, {})
    assert rc == 0 and argv == ["github", "comment", "--report-html", str(tmp_path / "openwiki-git-report" / "index.html")]
    assert cli_parse(argv).fail_on_stale is False


def test_refresh_mode_inputs_reach_the_cli(action, tmp_path) -> None:
    rc, argv, env = run_script(
        action,
        tmp_path,
        {
            "mode": "refresh", "base": "develop", "model": "m-1", "base-url": "http://127.0.0.1:9/v1",
            "api-key": "sk-secret", "max-claims": "7", "branch": "bot/wiki", "github-token": "tok-2",
            "timeout": "30", "deadline": "900", "max-concurrency": "8",
        },
    )
    assert rc == 0
    assert argv == [
        "github", "refresh-pr", "--branch", "bot/wiki", "--report-html", str(tmp_path / "openwiki-git-report" / "index.html"),
        "--base", "develop", "--model", "m-1",
        "--base-url", "http://127.0.0.1:9/v1", "--max-claims", "7", "--timeout", "30", "--deadline", "900",
        "--max-concurrency", "8", "--api-key-env", "OWG_API_KEY",
    ]
    assert "sk-secret" not in argv  # the key travels in the environment, never on the command line
    assert env["OWG_API_KEY"] == "sk-secret" and env["GITHUB_TOKEN"] == "tok-2"
    args = cli_parse(argv)
    assert (args.branch, args.base, args.model, args.base_url, args.max_claims, args.api_key_env) == (
        "bot/wiki", "develop", "m-1", "http://127.0.0.1:9/v1", 7, "OWG_API_KEY",
    )
    assert (args.timeout, args.deadline, args.max_concurrency) == (30.0, 900.0, 8)


def test_plan_input_reaches_the_cli(action, tmp_path) -> None:
    rc, argv, _ = run_script(action, tmp_path, {"mode": "refresh", "plan": "true"})
    assert rc == 0 and argv[-1] == "--plan" and cli_parse(argv).plan is True
    rc, argv, _ = run_script(action, tmp_path, {"mode": "refresh", "plan": "perhaps"})
    assert rc == 2 and argv == []


def test_shard_modes_reach_the_cli(action, tmp_path) -> None:
    rc, argv, _ = run_script(action, tmp_path, {"mode": "refresh-shard", "shard": "2/4", "shard-dir": "/tmp/s", "model": "m"})
    assert rc == 0 and argv[:7] == ["github", "refresh-shard", "--shard", "2/4", "--out", "/tmp/s", "--branch"]
    assert cli_parse(argv).shard == (2, 4)
    shards = tmp_path / "shards"
    for name in ("shard-1", "shard-2"):
        (shards / name).mkdir(parents=True)
    rc, argv, _ = run_script(action, tmp_path, {"mode": "merge-shards", "shard-dir": str(shards)})
    assert rc == 0 and argv[:4] == ["github", "refresh-pr", "--branch", "openwiki-git/refresh"]
    assert cli_parse(argv).from_shards == [shards / "shard-1", shards / "shard-2"]


def test_ground_mode_reaches_the_cli(action, tmp_path) -> None:
    rc, argv, _ = run_script(action, tmp_path, {"mode": "ground"})
    assert rc == 0 and argv == ["github", "ground-pr"]
    rc, argv, env = run_script(
        action, tmp_path,
        {"mode": "ground", "model": "m", "base-url": "http://127.0.0.1:9/v1", "api-key": "sk-x", "max-claims": "5", "base": "main"},
    )
    assert rc == 0 and argv == [
        "github", "ground-pr", "--base", "main", "--model", "m", "--api-key-env", "OWG_API_KEY",
        "--base-url", "http://127.0.0.1:9/v1", "--max-sentences", "5",
    ]
    assert "sk-x" not in argv and env["OWG_API_KEY"] == "sk-x"
    args = cli_parse(argv)
    assert (args.model, args.api_key_env, args.max_sentences, args.branch) == ("m", "OWG_API_KEY", 5, "openwiki-git/ground")


def test_inputs_cannot_inject_shell(action, tmp_path) -> None:
    evil = '$(touch pwned); `touch pwned2` "; touch pwned3'
    rc, argv, _ = run_script(action, tmp_path, {"mode": "comment", "base": evil})
    assert rc == 0 and argv == ["github", "comment", "--report-html", str(tmp_path / "openwiki-git-report" / "index.html"),
                                "--base", evil]
    assert not list(tmp_path.glob("pwned*")) and not list(Path.cwd().glob("pwned*"))


@pytest.mark.parametrize(
    "inputs",
    [{"mode": "delete"}, {"mode": "comment", "fail-on-stale": "maybe"}, {"mode": "refresh-shard", "shard": "1/2"}],
)
def test_bad_inputs_fail_before_the_cli(action, tmp_path, inputs) -> None:
    rc, argv, _ = run_script(action, tmp_path, inputs)
    assert rc == 2 and argv == []


@pytest.mark.parametrize(
    ("mode", "event", "ok"),
    [
        ("comment", "pull_request", True), ("comment", "pull_request_target", True), ("comment", "schedule", False),
        ("refresh", "schedule", True), ("refresh", "workflow_dispatch", True), ("refresh", "pull_request", False),
        ("refresh", "pull_request_target", False), ("refresh-shard", "pull_request", False), ("merge-shards", "schedule", True),
        ("ground", "schedule", True), ("ground", "pull_request", False), ("bogus", "schedule", False),
    ],
)
def test_the_event_guard_runs_before_anything_is_installed(action, tmp_path, mode, event, ok) -> None:
    rc, _, out = run_script(action, tmp_path, {"mode": mode}, step="guard", event=event)
    assert (rc == 0) is ok, out
    if ok:
        lock = (tmp_path / "output.txt").read_text()
        assert ("lock=refresh" in lock) == (mode in ("refresh", "refresh-shard", "ground")) and "lock-hash=" in lock


# -- the example workflows ------------------------------------------------------------------------------
def triggers(wf: dict) -> dict:
    return wf.get("on", wf.get(True)) or {}


def action_steps(wf: dict) -> list[dict]:
    return [s for job in wf["jobs"].values() for s in job["steps"] if "openwiki-git/openwiki-git@" in s.get("uses", "")]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_is_valid_and_uses_only_the_actions_inputs(action, name) -> None:
    wf = load(EXAMPLES[name])
    text = EXAMPLES[name].read_text("utf-8")
    steps = action_steps(wf)
    assert steps
    for step in steps:
        given = step["with"]
        assert set(given) <= set(action["inputs"]), set(given) - set(action["inputs"])
        assert given["mode"] in ("comment", "refresh", "refresh-shard", "merge-shards")
    assert "concurrency" in wf
    assert "github.repository ==" not in text  # a copied workflow must run in its new repository
    for job in wf["jobs"].values():
        for step in job["steps"]:
            uses = step.get("uses", "")
            if uses and not uses.startswith("openwiki-git/openwiki-git@"):
                assert SHA_PIN.match(uses), f"{name}: {uses}: pin third-party actions to a commit SHA"
    for job in wf["jobs"].values():
        assert "runs-on" in job
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), f"{name}: expression inside run:"


def test_pr_check_example(action) -> None:
    wf = load(EXAMPLES["pr-check.yml"])
    assert "pull_request" in triggers(wf) and "pull_request_target" not in triggers(wf)
    assert wf["permissions"] == {}
    (job,) = wf["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
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
    assert wf["permissions"] == {}
    assert wf["concurrency"]["cancel-in-progress"] is False
    (job,) = wf["jobs"].values()
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert job["if"] == "vars.OPENWIKI_GIT_REFRESH != 'off'"  # an off switch, no hard-coded repository
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0
    (step,) = action_steps(wf)
    assert step["with"]["mode"] == "refresh"
    assert "Allow GitHub Actions to create and approve pull requests" in text
    assert "create-github-app-token" in text


def test_sharded_refresh_example(action) -> None:
    wf = load(EXAMPLES["sharded-refresh.yml"])
    shard, publish = wf["jobs"]["shard"], wf["jobs"]["publish"]
    assert wf["permissions"] == {}
    assert shard["permissions"] == {"contents": "read", "pull-requests": "read"}
    assert publish["permissions"] == {"contents": "write", "pull-requests": "write"}
    n = len(shard["strategy"]["matrix"]["shard"])
    (run_shard,) = [s for s in shard["steps"] if s.get("with", {}).get("mode") == "refresh-shard"]
    assert run_shard["with"]["shard"] == f"${{{{ matrix.shard }}}}/{n}"
    upload = next(s for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["include-hidden-files"] is True and upload["with"]["path"] == run_shard["with"]["shard-dir"]
    assert publish["needs"] == "shard"
    download = next(s for s in publish["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    (merge,) = [s for s in publish["steps"] if s.get("with", {}).get("mode") == "merge-shards"]
    assert merge["with"]["shard-dir"] == download["with"]["path"]
    assert "api-key" not in merge["with"]  # the final job calls no model
    assert merge["with"]["model"] == run_shard["with"]["model"]  # same fingerprint as the shards


GUIDE_OF_EXAMPLE = {"pr-check.yml": "ci.md", "nightly-refresh.yml": "action.md", "sharded-refresh.yml": "action.md"}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_guides_show_the_examples(name) -> None:
    guide = (ROOT / "docs" / GUIDE_OF_EXAMPLE[name]).read_text("utf-8")
    assert EXAMPLES[name].read_text("utf-8").strip() in guide, f"docs/{GUIDE_OF_EXAMPLE[name]} must show examples/{name} as it is"


@pytest.mark.parametrize(("lock", "extras"), [("comment", ("github",)), ("refresh", ("github", "refresh"))])
def test_each_lock_file_pins_every_dependency_the_mode_imports(lock: str, extras: tuple[str, ...]) -> None:
    """The action installs its lock with --no-deps: a dependency added to pyproject.toml but not
    to the lock would be missing at run time. Regenerate with the command in README's Action section."""
    import re
    import tomllib

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]
    wanted = list(project["dependencies"]) + [d for e in extras for d in project["optional-dependencies"][e]]

    def name(req: str) -> str:
        return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].lower().replace("_", "-").replace(".", "-")

    pinned = {name(line) for line in (root / "requirements" / f"action-{lock}.txt").read_text("utf-8").splitlines()
              if line and not line[0].isspace() and "==" in line}
    assert {name(r) for r in wanted} <= pinned, sorted({name(r) for r in wanted} - pinned)


def test_health_report_example_publishes_the_report_with_least_privilege(action) -> None:
    """examples/health-report.yml: the report of a plan-only refresh (no model, no key, no write)
    as an artifact and on GitHub Pages, each job with only the permissions it uses."""
    path = ROOT / "examples" / "health-report.yml"
    wf, text = load(path), path.read_text("utf-8")
    assert wf["permissions"] == {} and "workflow_dispatch" in triggers(wf)
    (cron,) = [c["cron"] for c in triggers(wf)["schedule"]]
    assert int(cron.split()[0]) != 0
    report, pages = wf["jobs"]["report"], wf["jobs"]["pages"]
    assert report["permissions"] == {"contents": "read"}
    assert pages["permissions"] == {"pages": "write", "id-token": "write"} and pages["needs"] == "report"
    (step,) = action_steps(wf)
    assert set(step["with"]) <= set(action["inputs"])
    assert step["with"]["mode"] == "refresh" and step["with"]["plan"] == "true" and "api-key" not in step["with"]
    uses = [s["uses"] for job in wf["jobs"].values() for s in job["steps"] if "uses" in s]
    assert {u.split("@")[0] for u in uses} == {"actions/checkout", "openwiki-git/openwiki-git", "actions/upload-artifact",
                                               "actions/upload-pages-artifact", "actions/deploy-pages"}
    assert all(re.fullmatch(r"[0-9a-f]{40}", u.split("@")[1]) for u in uses if not u.startswith("openwiki-git/"))
    assert "persist-credentials: false" in text and "steps.wiki.outputs.report-path" in text
