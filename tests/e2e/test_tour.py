"""The five-minute tour (`examples/tour/tour.sh`) run end to end, and the README's tour equal to it.

Real git, the real pre-commit (the tour's `repo: local` hook runs this environment's
openwiki-git), offline. The README's "The five-minute tour" section holds one ```console block
per `step "TITLE"` of the script; each block must be that step's output, the commands and every
line, modulo what differs from run to run: the directory, claim ids, hashes and timestamps.

After changing the tour (or what its commands print), rewrite the README's blocks from a run:

    OPENWIKI_GIT_TOUR_UPDATE=1 python -m pytest -q tests/e2e/test_tour.py
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "examples" / "tour" / "tour.sh"
README = ROOT / "README.md"
SECTION = "## The five-minute tour"
STEP = re.compile(r"^# --- (.+)$", re.M)
# A block is fenced by three backticks, or four where the output holds a fence (the PR comment's diffs).
BLOCK = re.compile(r"^(`{3,4})console\n(.*?)^\1$", re.S | re.M)
SHOWN_DIR = "/tmp/openwiki-git-tour.XXXXXX"  # what the README shows for the tour's directory
UPDATE_ENV = "OPENWIKI_GIT_TOUR_UPDATE"
REGENERATE = f"{UPDATE_ENV}=1 python -m pytest -q tests/e2e/test_tour.py"


def run_tour(directory: Path) -> str:
    """The script's output, as a newcomer's terminal shows it (stdout and stderr in order)."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    p = subprocess.run(["bash", str(TOUR), str(directory)], env=env, capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr == "", p.stderr
    return p.stdout.replace(str(directory), SHOWN_DIR)


def steps(transcript: str) -> list[tuple[str, str]]:
    """`[(title, output)]`, one per `step` of the script."""
    parts = STEP.split(transcript)
    return [(title, body.strip("\n") + "\n") for title, body in zip(parts[1::2], parts[2::2], strict=True)]


def normalized(text: str) -> str:
    """The text without what differs from run to run."""
    text = re.sub(r"claim_[0-9a-f]{32}", "claim_ID", text)
    text = re.sub(r"\bc-[0-9a-f]{8}\b", "c-ID", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", "TIME", text)
    text = re.sub(r"\b[0-9a-f]{7,64}\b", "HASH", text)
    text = re.sub(r"\b\d+ min\b", "N min", text)  # the report's wait for the mark, by the clock
    return text.replace(SHOWN_DIR, "DIR")


def readme_section(text: str) -> tuple[int, int]:
    start = text.index(f"\n{SECTION}\n")
    end = text.index("\n## ", start + 1)
    return start, end


def readme_blocks(text: str) -> list[str]:
    start, end = readme_section(text)
    return [body for _, body in BLOCK.findall(text[start:end])]


def update_readme(tour_steps: list[tuple[str, str]]) -> None:
    text = README.read_text("utf-8")
    start, end = readme_section(text)
    outputs = iter(body for _, body in tour_steps)
    section = BLOCK.sub(lambda m: f"{m[1]}console\n{next(outputs)}{m[1]}", text[start:end])
    README.write_text(text[:start] + section + text[end:], "utf-8")


def test_the_tour_runs_and_the_readme_shows_it(tmp_path: Path) -> None:
    directory = tmp_path / "tour"
    directory.mkdir()
    tour_steps = steps(run_tour(directory))
    titles = [title for title, _ in tour_steps]
    assert titles[0] == "the project, in git, and its wiki" and titles[-1] == "the end"

    # What the tour promises happened, in the repository it made.
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=directory, capture_output=True, text=True, check=True).stdout

    # Everything committed, the hook's rewrites too; only the report's page is left, written whole.
    assert git("status", "--porcelain") == "?? report.html\n"
    html = (directory / "report.html").read_text("utf-8")
    assert html.lstrip().lower().startswith("<!doctype html>") and "retries.md" in html
    assert len(git("log", "--format=%H").split()) == 5
    sidecar = json.loads(git("show", "HEAD:.openwiki/.claims/retries.json"))
    (claim,) = sidecar["claims"]
    assert claim["statement"] == "A call is tried at most three times." and "mark" not in claim
    assert claim["evidence"][0]["resource"] == "repo://retry.py#L5-L5"  # re-anchored by step 7
    assert "A call is tried at most three times.[^c-" in (directory / ".openwiki" / "retries.md").read_text("utf-8")
    report = dict(tour_steps)["the wiki's health: the report"]
    assert "1 claim on 1 page: 1 fresh, 0 stale" in report and "marks cleared in the last 5 commits: 1" in report
    stopped = dict(tour_steps)["a change that matters: the hook stops the commit once"]
    assert stopped.count("[exit 1]") == 2  # the stopped commit, then check; the second commit passed

    if os.environ.get(UPDATE_ENV):
        update_readme(tour_steps)
    blocks = readme_blocks(README.read_text("utf-8"))
    assert len(blocks) == len(tour_steps), (
        f"README's tour has {len(blocks)} console blocks, the tour {len(tour_steps)} steps ({titles}); "
        f"one block per step, then run `{REGENERATE}`"
    )
    for (title, body), block in zip(tour_steps, blocks, strict=True):
        assert normalized(block) == normalized(body), (
            f"README's tour block for the step {title!r} differs from the tour's output; run `{REGENERATE}`"
        )


def test_the_tour_hook_is_this_repositorys_hook_definition() -> None:
    """The tour's `repo: local` hook is `.pre-commit-hooks.yaml`'s `openwiki-git`, run with the
    installed package (`language: unsupported`) instead of a hook environment pre-commit builds."""
    script = TOUR.read_text("utf-8")
    written = re.search(r"show \.pre-commit-config\.yaml <<'EOF'\n(.*?)\nEOF\n", script, re.S)
    assert written, "the tour writes .pre-commit-config.yaml with `show`"
    (repo,) = YAML(typ="safe").load(written.group(1))["repos"]
    (hook,) = repo["hooks"]
    assert repo["repo"] == "local" and hook.pop("language") == "unsupported"
    (defined,) = [h for h in YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8")) if h["id"] == hook["id"]]
    assert {key: defined[key] for key in hook} == hook
