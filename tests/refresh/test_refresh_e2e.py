"""The refresher end to end: langchain-openai's ChatOpenAI pointed by `base_url` at a real HTTP
server on 127.0.0.1 (tests/support/fake_openai_server.py), and a refresh process killed midway."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.refresh.run import run_refresh
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support.fake_openai_server import FakeOpenAI, Reply, confirm_from_prompt, kill_at_request, run_to_exit
from tests.support.refresh_wiki import check_json, confirm, retract, revise, stale_wiki

pytestmark = pytest.mark.e2e


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    return "sk-test-123"


def refresh(repo: Any, server: FakeOpenAI, **options: Any) -> Any:
    options = {"base_url": server.base_url, "timeout": 10.0, "max_retries": 0, "model": "fake-model", "max_concurrency": 1, **options}
    return run_refresh(Workspace.open(repo.root), RefreshOptions(**options))


def test_json_schema_structured_output(repo: Any, key: str, capsys: Any) -> None:
    gs = stale_wiki(repo, pages=1, per_page=3)
    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict=confirm(gs[0])), Reply(verdict=revise(gs[1])), Reply(verdict=retract(gs[2])))
        result = refresh(repo, server)
    assert [d.verdict for d in result.decisions] == ["confirm", "revise", "retract"]
    first = server.requests[0]
    assert first["model"] == "fake-model" and first["response_format"]["type"] == "json_schema"
    assert first["response_format"]["json_schema"]["name"] == "Verdict"
    assert first["messages"][0]["role"] == "system" and first["messages"][1]["role"] == "user"
    assert "tools" not in first
    assert server.headers[0]["authorization"] == f"Bearer {key}"
    assert all(d.tokens_in == 120 and d.tokens_out == 30 and d.method == "json_schema" for d in result.decisions)
    assert result.totals["tokens_in"] == 360
    code, _ = check_json(repo, capsys)
    assert code == 0


def test_a_400_on_json_schema_falls_back_to_function_calling(repo: Any, key: str) -> None:
    gs = stale_wiki(repo, pages=1, per_page=2)
    with FakeOpenAI(reject_json_schema=True) as server:
        server.enqueue(Reply(verdict=confirm(gs[0])), Reply(verdict=confirm(gs[1])))
        result = refresh(repo, server)
    assert result.ok and [d.method for d in result.decisions] == ["function_calling", "function_calling"]
    kinds = ["response_format" in r and r["response_format"]["type"] or ("tools" if r.get("tools") else "plain") for r in server.requests]
    assert kinds == ["json_schema", "tools", "tools"]  # the fallback sticks for the next claim
    assert server.requests[1]["tools"][0]["function"]["name"] == "Verdict"
    assert result.fallbacks and "HTTP 400" in result.fallbacks[0]


def test_then_to_json_mode_with_the_schema_in_the_prompt(repo: Any, key: str) -> None:
    gs = stale_wiki(repo, pages=1, per_page=1)
    with FakeOpenAI(reject_json_schema=True, reject_tools=True) as server:
        server.enqueue(Reply(content="```json\n" + json.dumps(confirm(gs[0])) + "\n```"))
        result = refresh(repo, server)
    assert result.ok and result.decisions[0].method == "json_mode"
    last = server.requests[-1]
    assert last["response_format"] == {"type": "json_object"}
    assert '"cited_ranges"' in last["messages"][0]["content"] and "JSON Schema" in last["messages"][0]["content"]


def test_malformed_replies_are_sent_back_once(repo: Any, key: str) -> None:
    gs = stale_wiki(repo, pages=1, per_page=2)
    with FakeOpenAI() as server:
        server.enqueue(
            Reply(content='{"claim_id": "' + gs[0].claim_id + '", "verdict": "confirm",'),  # cut off
            Reply(verdict=confirm(gs[0])),
            Reply(content="I think it is fine."),
            Reply(content="[1, 2, 3]"),
        )
        result = refresh(repo, server)
    d0, d1 = result.decisions
    assert d0.verdict == "confirm" and d0.attempts == 2 and d0.tokens_in == 240
    retry = server.requests[1]["messages"][-1]["content"]
    # (langchain's JSON parser completes a cut-off object, which then misses required keys)
    assert "could not be applied" in retry and ("not a JSON verdict" in retry or "verdict schema" in retry)
    assert d1.verdict is None and "rejected twice" in (d1.error or "")


def test_a_timeout_leaves_the_claim_stale_and_the_run_goes_on(repo: Any, key: str) -> None:
    gs = stale_wiki(repo, pages=1, per_page=2)
    sidecar = repo.root / ".openwiki/.claims/topic0.json"
    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict=confirm(gs[0]), delay=3.0), Reply(verdict=confirm(gs[1])))
        result = refresh(repo, server, timeout=0.5)
    d0, d1 = result.decisions
    assert d0.verdict is None and "no answer within 0.5s" in (d0.error or "")
    assert d1.verdict == "confirm"
    data = json.loads(sidecar.read_text())
    assert {c["id"]: c.get("verifiedBy") for c in data["claims"]} == {
        gs[0].claim_id: "human:ada",
        gs[1].claim_id: "model:fake-model",
    }


def test_429_is_retried_after_retry_after(repo: Any, key: str) -> None:
    gs = stale_wiki(repo, pages=1, per_page=1)
    with FakeOpenAI() as server:
        server.enqueue(Reply(status=429, error="slow down", headers={"retry-after": "0.2"}), Reply(verdict=confirm(gs[0])))
        result = refresh(repo, server, max_retries=2)
    assert result.ok and len(server.requests) == 2


def test_429_after_every_retry_stops_the_run(repo: Any, key: str) -> None:
    gs = stale_wiki(repo, pages=1, per_page=2)
    before = repo.snapshot()
    with FakeOpenAI() as server:
        server.enqueue(*[Reply(status=429, error="quota", headers={"retry-after": "0.1"})] * 2)
        result = refresh(repo, server, max_retries=1)
    assert len(server.requests) == 2
    d0, d1 = result.decisions
    assert "429" in (d0.error or "") and d1.skipped and "429" in d1.skipped
    assert result.stopped and repo.snapshot() == before
    assert gs  # the claims are untouched


def test_cli_flags_reach_the_endpoint(repo: Any, key: str, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    gs = stale_wiki(repo, pages=1, per_page=1)
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("LOCAL_KEY", "local")
    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict=confirm(gs[0])))
        capsys.readouterr()
        code = repo.run(
            "refresh", "--base-url", server.base_url, "--model", "m-1", "--api-key-env", "LOCAL_KEY",
            "--method", "function_calling", "--temperature", "0.3", "--max-tokens", "300", "--timeout", "5",
            "--max-retries", "0",
        )
    out = capsys.readouterr().out
    assert code == 0, out
    body = server.requests[0]
    assert body["model"] == "m-1" and body["tools"] and body["temperature"] == 0.3
    assert 300 in (body.get("max_completion_tokens"), body.get("max_tokens"))
    assert server.headers[0]["authorization"] == "Bearer local"
    assert "1 confirmed" in out and "120 tokens in" in out


def test_a_killed_refresh_leaves_valid_files_with_the_decided_claims_applied(repo: Any, key: str, capsys: Any) -> None:
    gs = stale_wiki(repo, pages=2, per_page=3)
    release = threading.Event()
    count = {"n": 0}

    def respond(body: dict[str, Any]) -> Reply:
        count["n"] += 1
        if count["n"] >= 4:
            return Reply(block=release)  # the fourth request never gets an answer
        return Reply(verdict=confirm_from_prompt(body))

    with FakeOpenAI(responder=respond) as server:
        argv = [sys.executable, "-m", "openwiki_git", "-C", str(repo.root), "refresh", "--base-url", server.base_url,
                "--max-retries", "0", "--timeout", "120", "--max-concurrency", "1"]
        status = kill_at_request(server, argv, 4, release, {**os.environ, "OPENAI_API_KEY": key})
    assert status == -signal.SIGKILL
    ws = Workspace.open(repo.root)
    sidecars = ws.wiki.load_all()  # every sidecar parses
    by = {c.id: c.verified_by for sc in sidecars.values() for c in sc.claims}
    assert [by[g.claim_id] for g in gs] == ["model:gpt-4o-mini"] * 3 + ["human:ada"] * 3
    leftovers = [p for p in (repo.root / ".openwiki").rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    capsys.readouterr()
    assert repo.run("validate") == 0
    code, data = check_json(repo, capsys)
    statuses = {c["id"]: c["status"] for c in data["claims"]}
    assert [statuses[g.claim_id] for g in gs] == ["fresh"] * 3 + ["stale"] * 3


def test_check_never_imports_langchain() -> None:
    code = (
        "import sys, openwiki_git.cli.commands.check, openwiki_git.cli.main as m; m.build_parser(); "
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('langchain_openai', 'langchain_core', 'openai')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_refused_key_stops_the_run_and_refresh_exits_2(repo: Any, key: str, capsys: Any) -> None:
    """401: the first refusal stops the run (no point asking again), the endpoint's text (which
    echoes the key here) is never printed, and `refresh` exits 2 after keeping what was decided."""
    gs = stale_wiki(repo, pages=1, per_page=3)
    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict=confirm(gs[0])), *[Reply(status=401, echo_key=True, error=f"bad key {key}")] * 2)
        capsys.readouterr()
        code = repo.run("refresh", "--base-url", server.base_url, "--max-retries", "0", "--max-concurrency", "1")
        assert len(server.requests) == 2
    captured = capsys.readouterr()
    assert code == 2 and key not in captured.out + captured.err
    assert "the model cannot be used" in captured.err and "HTTP 401" in captured.err
    ws = Workspace.open(repo.root)
    by = {c.id: c.verified_by for sc in ws.wiki.load_all().values() for c in sc.claims}
    assert by[gs[0].claim_id] == "model:gpt-4o-mini"  # decided before the refusal: kept


@pytest.mark.parametrize("limit", [["--timeout", "4"], ["--timeout", "60", "--deadline", "6"]], ids=["timeout", "deadline"])
def test_a_deadline_ends_the_process_while_the_endpoint_trickles(repo: Any, key: str, limit: list[str]) -> None:
    """A valid answer sent one byte every half second (minutes in all): once the call's timeout
    (or the run's deadline) decides "no answer", refresh prints its report, keeps what was
    decided and exits; the abandoned call does not keep the process alive until the trickle ends."""
    gs = stale_wiki(repo, pages=1, per_page=2)
    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict=confirm(gs[0])), Reply(verdict=confirm(gs[1]), trickle=0.5))
        argv = [sys.executable, "-m", "openwiki_git", "-C", str(repo.root), "refresh", "--base-url", server.base_url,
                "--max-retries", "0", "--max-concurrency", "1", *limit]
        budget = float(limit[-1]) + 2  # the deadline that applies, plus 2 s
        code, after_last_request, out, err = run_to_exit(server, argv, {**os.environ, "OPENAI_API_KEY": key}, budget)
    assert code is not None, f"still running {budget:g}s after the trickling request\n{out}\n{err}"
    assert after_last_request <= budget and len(server.requests) == 2
    assert "no answer" in out + err and "Traceback" not in err
    by = {c.id: c.verified_by for sc in Workspace.open(repo.root).wiki.load_all().values() for c in sc.claims}
    assert [by[g.claim_id] for g in gs] == ["model:gpt-4o-mini", "human:ada"]  # the decided claim kept
