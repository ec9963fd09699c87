"""What a warm `check` imports: nothing but the standard library modules it uses and the six
modules of its fast answer (checkcache.answer, through services/check_chain.py). A change that makes the warm path import pygit2,
the model, the checker or any other heavy module fails here; `python -X importtime -m openwiki_git
check` shows what it costs. (Startup is most of a warm check's time, so this is its budget.)
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import time

from openwiki_git.caches import statkey
from tests.support.repo import IMPORTS_PROBE

# The package modules the fast answer may load, and what it must never load.
ALLOWED_OWN = {
    "openwiki_git", "openwiki_git.cli.main", "openwiki_git.errors", "openwiki_git.cli.commands",
    "openwiki_git.cli.commands.check", "openwiki_git.caches.check_entries", "openwiki_git.cli.check_output",
    "openwiki_git.services.check_chain",  # check's service: its judging imports lazily what it needs
    "openwiki_git.services.check_report",  # the report streamed from the cache's entries (typing only)
    "openwiki_git.claims.records",  # the report's records as data (typing only)
    "openwiki_git.caches.pickling",  # the restricted unpickler (pickle only: stdlib, no class of its own)
    "openwiki_git.caches.statkey",  # a file's stat key and git's racy rule (os and stat only)
    "openwiki_git.cli.args",  # the commands' shared options (argparse, pathlib)
    "openwiki_git.formats.pagenames",  # a page's sidecar name and back (imports nothing)
    "openwiki_git.store.listing",  # the one lister of a wiki's sidecars (os and pagenames only)
    "openwiki_git.pages.labels",  # a claim's marker in its page's form (pagenames only)
    "openwiki_git.caches.site", "openwiki_git.formats.siteconf",  # site mode kept (os, re: patterns compiled on use)
    # the packages on the way (their __init__ is a docstring: tests/test_layers.py)
    "openwiki_git.cli", "openwiki_git.caches", "openwiki_git.services", "openwiki_git.claims", "openwiki_git.formats",
    "openwiki_git.pages", "openwiki_git.store",
}
HEAVY = {
    "pygit2", "_cffi_backend", "cffi", "sqlite3", "dataclasses", "inspect", "hashlib", "ssl", "ruamel",
    "jsonschema", "langchain", "openai", "github", "tempfile", "fcntl",
}

PROBE = IMPORTS_PROBE


def loaded_by(root, *argv: str) -> tuple[int, set[str], str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, "-C", str(root), "check", *argv], capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    out, _, modules = proc.stdout.rstrip("\n").rpartition("\n")
    return proc.returncode, set(ast.literal_eval(modules)), out


def test_warm_check_imports_only_its_fast_answer(wiki_repo, capsys):
    repo = wiki_repo
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.",
                    "--evidence", "repo://src/app.py#L10-L10") == 0
    repo.commit_all("claim")
    time.sleep(statkey.RACY_NS / 1e9 + 0.2)  # every file out of git's racy window: the cache keeps them
    capsys.readouterr()
    cold_rc, cold, _ = loaded_by(repo.root)  # judges and writes the cache
    assert "pygit2" in {m.split(".")[0] for m in cold}  # (the probe does see what a run imports)
    for argv in ((), ("--format", "json", "--only-problems")):
        rc, modules, out = loaded_by(repo.root, *argv)
        assert rc == cold_rc == 0
        own = {m for m in modules if m.split(".")[0] == "openwiki_git"}
        assert own <= ALLOWED_OWN, sorted(own - ALLOWED_OWN)
        heavy = {m.split(".")[0] for m in modules} & HEAVY
        assert not heavy, (argv, sorted(heavy))
    summary = json.loads(loaded_by(repo.root, "--format", "json", "--only-problems")[2])["summary"]
    assert summary["total"] == summary["fresh"] == 1


def test_warm_check_listing_every_claim_parses_sidecars_without_git(wiki_repo, capsys):
    """--all and the JSON of every claim read the sidecars (plain claims are not cached), with
    json alone: neither git nor the sidecar codec nor the model come in."""
    repo = wiki_repo
    assert repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.",
                    "--evidence", "repo://src/app.py#L10-L10") == 0
    repo.commit_all("claim")
    time.sleep(statkey.RACY_NS / 1e9 + 0.2)
    capsys.readouterr()
    loaded_by(repo.root)
    for argv in (("--all",), ("--format", "json")):
        _, modules, out = loaded_by(repo.root, *argv)
        assert "Line ten says ten." in out
        own = {m for m in modules if m.split(".")[0] == "openwiki_git"}
        assert own <= ALLOWED_OWN, sorted(own - ALLOWED_OWN)
        assert not {m.split(".")[0] for m in modules} & HEAVY
