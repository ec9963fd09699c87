"""`ground --model`: sentences without references grounded by a model, through the real code path:
the scripted fake (tests/support/scripted_refresher.py) for the decisions, and langchain-openai against
the 127.0.0.1 fake server (tests/support/fake_openai_server.py) for the CLI, --plan and a killed run."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import sys
import threading
from typing import Any

import pytest

from openwiki_git.ground import model_pass as ground_model
from openwiki_git.ground.sources import source_index
from openwiki_git.pages import citations
from openwiki_git.refresh.protocol import RefreshCallError
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support.fake_openai_server import FakeOpenAI, Reply, kill_at_request, run_to_exit, user_text
from tests.support.repo import GitRepo
from tests.support.scripted_refresher import ScriptedRefresher

CORE = '''\
class Widget:
    def __init__(self, size):
        self.size = size

    def grow(self, by=1):
        return Widget(self.size + by)


def shrink_widget(widget):
    return Widget(widget.size - 1)
'''
PAGE = """\
# Widgets

A Widget can grow by any amount and returns a new one each time.
Shrinking a widget makes it smaller by exactly one unit.
Widgets are painted blue by the factory in every release.
"""
_SHOWN = re.compile(r"^Current text of repo://(\S+)#L(\d+)-L(\d+)", re.MULTILINE)
_NUMBERED = re.compile(r"^\s*(\d+) \| (.*)$")


@pytest.fixture
def model_repo(repo: GitRepo) -> GitRepo:
    repo.write("src/widgets/__init__.py", "")
    repo.write("src/widgets/core.py", CORE)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/widgets.md", PAGE)
    repo.commit_all("docs")
    return repo


def first_shown(prompt: str) -> tuple[str, str]:
    """The first candidate shown in a request: its resource and its exact text."""
    m = _SHOWN.search(prompt)
    assert m is not None
    lines = []
    for line in prompt[m.end():].splitlines()[1:]:
        n = _NUMBERED.match(line)
        if not n:
            break
        lines.append(n.group(2))
    return f"repo://{m.group(1)}#L{m.group(2)}-L{m.group(3)}", "\n".join(lines)


def verdict(claim_id: str, kind: str, cited: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"claim_id": claim_id, "verdict": kind, "revised_statement": None, "cited_ranges": cited or [], "rationale": "Because."}


def answer(request: Any) -> dict[str, Any]:
    """A diligent model: grow and shrink are supported by the first code shown; paint is not."""
    prompt = request.messages[0]
    if "painted" in prompt:
        return verdict(request.claim_id, "retract")
    resource, text = first_shown(prompt)
    return verdict(request.claim_id, "confirm", [{"resource": resource, "quote": text}])


def run(repo: GitRepo, client: Any, *, plan: bool = False, **options: Any) -> dict[str, Any]:
    ws = Workspace.open(repo.root)
    return ground_model.run(
        ws, ws.wiki.pages(), source_index(ws), options=RefreshOptions(model="fake", **options), plan=plan, client=client
    )


def test_quotes_that_match_are_written_unsupported_listed(model_repo: GitRepo) -> None:
    fake = ScriptedRefresher([answer] * 3)
    out = run(model_repo, fake)
    assert [g["statement"] for g in out["grounded"]] == [
        "A Widget can grow by any amount and returns a new one each time.",
        "Shrinking a widget makes it smaller by exactly one unit.",
    ]
    assert [u["statement"] for u in out["ungrounded"]] == ["Widgets are painted blue by the factory in every release."]
    sidecar = json.loads(model_repo.read("docs/.claims/widgets.json"))
    assert {c["verifiedBy"] for c in sidecar["claims"]} == {"model:fake"}
    # the first candidate shown: the class the sentence names, then the one sharing its words
    assert [c["evidence"][0]["resource"] for c in sidecar["claims"]] == ["repo://src/widgets/core.py#L1-L6"] * 2
    text = model_repo.read("docs/widgets.md")
    assert all(citations.has_marker(text, c["id"]) for c in sidecar["claims"])
    assert model_repo.run("check") == 0
    # again: the grounded sentences carry markers and are not sent; the unsupported one is
    again = ScriptedRefresher([answer])
    assert [r.messages[0].count("painted") for r in (run(model_repo, again) and again.history)] == [1]


def test_a_quote_that_does_not_match_is_never_written(model_repo: GitRepo) -> None:
    def wrong(request: Any) -> dict[str, Any]:
        resource, text = first_shown(request.messages[0])
        return verdict(request.claim_id, "confirm", [{"resource": resource, "quote": text.replace("self", "other")}])

    def outside(request: Any) -> dict[str, Any]:
        return verdict(request.claim_id, "confirm", [{"resource": "repo://src/widgets/core.py#L1-L3", "quote": CORE.splitlines()[0]}])

    snap = model_repo.snapshot()
    out = run(model_repo, ScriptedRefresher([wrong, outside, RefreshCallError("timeout")]))
    assert out["grounded"] == [] and len(out["rejected"]) == 2 and len(out["errors"]) == 1
    assert "the quote is not the text of those lines" in out["rejected"][0]["reason"]
    assert "outside those shown" in out["rejected"][1]["reason"] or "quote" in out["rejected"][1]["reason"]
    assert model_repo.snapshot() == snap


def test_revise_is_not_applied_and_budget_is_kept(model_repo: GitRepo) -> None:
    def revise(request: Any) -> dict[str, Any]:
        resource, text = first_shown(request.messages[0])
        return {**verdict(request.claim_id, "revise", [{"resource": resource, "quote": text}]), "revised_statement": "Something else."}

    fake = ScriptedRefresher([revise] * 3)
    out = run(model_repo, fake, max_claims=1)
    assert len(fake.history) == 1 and out["skipped_by_budget"] == 2
    assert "never rewrites prose" in out["rejected"][0]["reason"]


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    return "sk-test-123"


def respond(body: dict[str, Any]) -> Reply:
    prompt = user_text(body)
    if "painted" in prompt:
        return Reply(verdict=verdict("x", "retract"))
    resource, text = first_shown(prompt)
    return Reply(verdict=verdict("x", "confirm", [{"resource": resource, "quote": text}]))


@pytest.mark.e2e
def test_cli_against_the_fake_server(model_repo: GitRepo, key: str, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAI(responder=respond) as server:
        capsys.readouterr()
        rc = model_repo.run(
            "ground", "--all", "--model", "fake-model", "--base-url", server.base_url, "--max-retries", "0", "--format", "json"
        )
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and len(server.requests) == 3
    assert server.requests[0]["model"] == "fake-model"
    assert len(data["model"]["grounded"]) == 2 and len(data["model"]["ungrounded"]) == 1
    assert data["model"]["tokens_in"] == 360


@pytest.mark.e2e
def test_plan_calls_nothing(model_repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a plan needs no key
    snap = model_repo.snapshot()
    with FakeOpenAI(responder=respond) as server:
        capsys.readouterr()
        rc = model_repo.run("ground", "--all", "--plan", "--model", "fake-model", "--base-url", server.base_url)
    out = capsys.readouterr().out
    assert rc == 0 and server.requests == []
    assert model_repo.snapshot() == snap
    assert out.count(": would send (") == 3 and "would send 3 sentence(s)" in out and "nothing was sent" in out


def test_model_options_need_model(model_repo: GitRepo) -> None:
    assert model_repo.run("ground", "--all", "--max-sentences", "2") == 2


@pytest.mark.e2e
def test_a_killed_run_leaves_valid_files(model_repo: GitRepo, key: str, capsys: pytest.CaptureFixture[str]) -> None:
    release = threading.Event()
    count = {"n": 0}

    def slow_second(body: dict[str, Any]) -> Reply:
        count["n"] += 1
        return Reply(block=release) if count["n"] >= 2 else respond(body)

    argv = [sys.executable, "-m", "openwiki_git", "-C", str(model_repo.root), "ground", "--all", "--model", "fake-model",
            "--base-url", "", "--max-retries", "0", "--timeout", "120"]
    with FakeOpenAI(responder=slow_second) as server:
        argv[argv.index("--base-url") + 1] = server.base_url
        status = kill_at_request(server, argv, 2, release, {**os.environ, "OPENAI_API_KEY": key})
    assert status == -signal.SIGKILL
    sidecar = json.loads(model_repo.read("docs/.claims/widgets.json"))
    assert [c["statement"] for c in sidecar["claims"]] == ["A Widget can grow by any amount and returns a new one each time."]
    assert [p for p in (model_repo.root / "docs").rglob("*") if p.name.endswith(".tmp")] == []
    assert len(Workspace.open(model_repo.root).wiki.load_all()["widgets.md"].claims) == 1  # the sidecar parses
    assert model_repo.run("check") == 0  # the page carries the marker its claim needs


@pytest.mark.e2e
def test_a_trickling_endpoint_cannot_outlast_the_timeout(model_repo: GitRepo, key: str) -> None:
    """`ground --model` goes through refresh's client: a valid answer trickled one byte every half
    second is cut at `--timeout`, the sentence is listed as failed, and the process exits."""
    count = {"n": 0}

    def trickle_second(body: dict[str, Any]) -> Reply:
        count["n"] += 1
        reply = respond(body)
        reply.trickle = 0.5 if count["n"] == 2 else 0.0
        return reply

    argv = [sys.executable, "-m", "openwiki_git", "-C", str(model_repo.root), "ground", "--all", "--model", "fake-model",
            "--base-url", "", "--max-retries", "0", "--timeout", "4", "--format", "json"]
    with FakeOpenAI(responder=trickle_second) as server:
        argv[argv.index("--base-url") + 1] = server.base_url
        code, after_last_request, out, err = run_to_exit(server, argv, {**os.environ, "OPENAI_API_KEY": key}, 4 + 2)
        assert code is not None, f"still running 6s after the last request\n{out}\n{err}"
    assert after_last_request <= 6 and len(server.requests) == 3  # the trickled call ended, the next one was sent
    data = json.loads(out)
    (failed,) = data["model"]["errors"]
    assert "no answer within 4s" in failed["reason"] and failed["statement"].startswith("Shrinking")
    assert [g["statement"] for g in data["model"]["grounded"]] == ["A Widget can grow by any amount and returns a new one each time."]
    assert "Traceback" not in err


CLIENT = '''\
class Client:
    """An HTTP client."""

    def __init__(self, retries=3):
        self.retries = retries

    def send(self, request):
        for _ in range(self.retries):
            if request.ok():
                return request
        raise TimeoutError("gave up")
'''


def test_the_model_decides_which_method_holds_a_class_behaviour(repo: GitRepo) -> None:
    """A sentence about what a class does that names none of its members: the deterministic pass
    cites the class's head and lists it undecided; the model quotes the lines that do it (checked
    by the refresher's validator), and the claim cites the method holding them."""
    from openwiki_git.services import ground as service

    repo.write("pkg/client.py", CLIENT)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/client.md", "# Client\n\nA `Client` gives up with a timeout error when every attempt fails.\n")
    repo.commit_all("docs")
    ws = Workspace.open(repo.root)
    options = service.GroundOptions(pages=("client.md",), plan=True, model=service.ModelOptions("fake"))
    planned = service.ground(ws, options, client=ScriptedRefresher())
    (decide,) = planned["model"]["decide"]
    assert decide["cites"] == "repo://pkg/client.py#Client:head" and not planned["model"]["decided"]

    def quote_send(request: Any) -> dict[str, Any]:
        lines = {int(n): t for n, t in re.findall(r"^\s*(\d+) \| (.*)$", request.messages[0], re.MULTILINE)}
        return verdict(request.claim_id, "confirm", [{"resource": "repo://pkg/client.py#L8-L11",
                                                      "quote": "\n".join(lines[n] for n in range(8, 12))}])

    fake = ScriptedRefresher([quote_send])
    done = service.ground(ws, dataclasses.replace(options, plan=False), client=fake)
    assert [d["evidence"] for d in done["model"]["decided"]] == [["repo://pkg/client.py#Client.send"]]
    (claim,) = json.loads(repo.read("docs/.claims/client.json"))["claims"]
    assert [e["resource"] for e in claim["evidence"]] == ["repo://pkg/client.py#Client.send"]
    assert claim["verifiedBy"] == "model:fake" and claim["id"] == decide["claim_id"]
    # a quote that is not the text of the lines is refused by the validator: nothing changes
    repo.write("docs/other.md", "# Other\n\nA `Client` gives up with a timeout error when all attempts fail.\n")
    lying = ScriptedRefresher([lambda r: verdict(r.claim_id, "confirm", [{"resource": "repo://pkg/client.py#L8-L8", "quote": "pass"}])])
    again = service.ground(ws, service.GroundOptions(pages=("other.md",), model=service.ModelOptions("fake")), client=lying)
    assert again["model"]["rejected"] and "quote does not match" in again["model"]["rejected"][0]["reason"]
    (other,) = json.loads(repo.read("docs/.claims/other.json"))["claims"]
    assert [e["resource"] for e in other["evidence"]] == ["repo://pkg/client.py#Client:head"]
