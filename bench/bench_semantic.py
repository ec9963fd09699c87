#!/usr/bin/env python3
"""The semantic pass on a real project's docs (issue 33): the refresher's model and a coding agent
over MCP deciding the claims of uvicorn's `docs/` after real commits, with a model that answers
as the real one did (tests/support/model_answers.py: several quotes per definition, quotes cut
mid-line at a parameter, numbering as shown, docstring-and-signature quotes, revisions naming a
deprecated parameter; one plain quote on a retry).

The replay: `/work/shared/testdata/replay/uvicorn.bundle` (encode/uvicorn, BSD-3) checked out
`--back` first-parent commits before its last, `init --wiki-dir docs`, `ground --all`, plus two
pages of our own (`EXTRA`): three sentences citing three whole classes (`Config`, `Server`,
`H11Protocol`: uvicorn's docs cite no class whole, the real project's did) and one citing a line
of `uvicorn/main.py` that no replayed commit touches (a page the agent leaves alone, citing a
file whose other claims it verifies: the graph's reuse case that crashed), then the next `--steps` first-parent commits'
code changes (docs held back) committed through the hook, which marks the claims they touch.

1. The refresher (`run_refresh` through the scripted model, the real code path otherwise) on
   every claim (`--claim` each: the marked ones and, for a larger sample, the fresh ones too):
   first-attempt acceptance, model calls per claim, retries, and the request size per claim
   (characters of system prompt and context, and estimated tokens) by evidence kind.
2. An agent over the MCP SDK's real client (`openwiki-git mcp`): `claims_for_change` with
   limit 50, each claim decided with `verify_claim` (one retry with a plain quote when
   refused), then every tool (`check`, `locate`, `expand`, `claim_show`, `claims_for_change`)
   and the CLI's `locate`, `expand` and `check`: first-attempt acceptance, calls, the size of
   each claim's item, and every crash (a tool error that is not a refusal, an exit 3).

Counts, not timings: load cannot move them.

    python bench/bench_semantic.py [--back 60] [--steps 60] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openwiki_git.cli.main import main  # noqa: E402
from openwiki_git.evidence import definitions  # noqa: E402
from openwiki_git.evidence.kinds import Symbol, looks_like_kind, parse_kind  # noqa: E402
from openwiki_git.refresh.protocol import ReviewRequest  # noqa: E402
from openwiki_git.refresh.run import run_refresh  # noqa: E402
from openwiki_git.refresh.settings import RefreshOptions  # noqa: E402
from openwiki_git.store.workspace import Workspace  # noqa: E402
from tests.support import model_answers  # noqa: E402
from tests.support.scripted_refresher import ScriptedRefresher  # noqa: E402

BUNDLE = "/work/shared/testdata/replay/uvicorn.bundle"
RACY_S = 2.1  # git's racy window (caches/statkey.py RACY_NS) and a little: a file's stat is trusted after it
EXTRA = (  # (page, sentence, cited resource, or (path, a line's text) for the line that has it at the base)
    ("classes.md", "`Config` holds every setting of a server, from the host and port to the protocol classes.",
     "uvicorn/config.py#Config"),
    ("classes.md", "`Server` runs the main loop, handles signals and shuts down gracefully.", "uvicorn/server.py#Server"),
    ("classes.md", "`H11Protocol` serves HTTP/1.1 with h11, one request-response cycle at a time.",
     "uvicorn/protocols/http/h11_impl.py#H11Protocol"),
    ("cli.md", "The command line reads `UVICORN_*` environment variables through click's `auto_envvar_prefix`.",
     ("uvicorn/main.py", '@click.command(context_settings={"auto_envvar_prefix": "UVICORN"})')),
)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def quiet(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


def build(root: Path, back: int, steps: int) -> dict[str, int]:
    """The replay (see the module's docstring): returns the claims made and the claims marked."""
    subprocess.run(["git", "clone", "-q", BUNDLE, str(root)], check=True, capture_output=True)
    commits = git(root, "log", "--first-parent", "--format=%H").split()
    base, replayed = commits[back], list(reversed(commits[max(0, back - steps) : back]))
    git(root, "checkout", "-q", "-b", "replay", base)
    quiet("-C", str(root), "init", "--wiki-dir", "docs")
    quiet("-C", str(root), "ground", "--all")
    for page in sorted({p for p, _, _ in EXTRA}):
        body = "\n\n".join(s for p, s, _ in EXTRA if p == page)
        (root / "docs" / page).write_text(f"# {page[:-3].title()}\n\n{body}\n", "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "grounded", "--no-verify")
    for page, sentence, cited in EXTRA:
        if isinstance(cited, tuple):
            lines = (root / cited[0]).read_text("utf-8").splitlines()
            n = lines.index(cited[1]) + 1
            cited = f"{cited[0]}#L{n}-L{n}"
        assert quiet("-C", str(root), "claim", "add", "--page", page, "--statement", sentence,
                     "--evidence", f"repo://{cited}", "--by", "human:bench") == 0, cited
    git(root, "add", "-A")
    git(root, "commit", "-qm", "whole classes", "--no-verify")
    for commit in replayed:
        patch = git(root, "diff", f"{commit}^1", commit, "--", ".", ":!docs", ":!*.md")
        if not patch.strip():
            continue
        applied = subprocess.run(["git", "apply", "--index"], cwd=root, input=patch, text=True, capture_output=True)
        if applied.returncode != 0:
            git(root, "reset", "-q", "--hard")
            continue
        quiet("-C", str(root), "hook")
        git(root, "commit", "-qm", f"replay {commit[:12]}", "--no-verify")
    ws = Workspace.open(root)
    claims = [c for sc in ws.wiki.load_all().values() for c in sc.claims]
    return {"claims": len(claims), "marked": sum(c.mark is not None for c in claims)}


def kind_of(ws: Workspace, resources: list[str]) -> str:
    """whole class | whole definition | head | lines: the widest kind the claim's evidence has."""
    kinds = set()
    for r in resources:
        kind = parse_kind(r, wiki_dir="\0") if looks_like_kind(r) else None
        if not isinstance(kind, Symbol):
            kinds.add("lines")
            continue
        if kind.head:
            kinds.add("head")
            continue
        text = ws.repo.read(kind.path).text
        ext = definitions.find(kind.path, text, kind.name) if text else None
        kinds.add("whole class" if ext is not None and ext.kind == "class" else "whole definition")
    for k in ("whole class", "whole definition", "head", "lines"):
        if k in kinds:
            return k
    return "lines"


def refresher_pass(root: Path) -> dict[str, Any]:
    ws = Workspace.open(root)
    ids = [c.id for sc in ws.wiki.load_all().values() for c in sc.claims]
    kinds = {c.id: kind_of(ws, [e.resource for e in c.evidence]) + (", marked" if c.mark else ", not marked")
             for sc in ws.wiki.load_all().values() for c in sc.claims}

    def honest(request: ReviewRequest) -> dict[str, Any]:
        return model_answers.answer(request.claim_id, "\n".join(request.messages), retry=request.attempt > 1)

    fake = ScriptedRefresher([honest] * (3 * len(ids)))
    result = run_refresh(ws, RefreshOptions(claims=ids, max_concurrency=1, trivial_drift="off"), fake)
    first: dict[str, int] = {}
    for req in fake.history:
        if req.attempt == 1:
            first[req.claim_id] = len(req.system) + sum(len(m) for m in req.messages)
    sent = [d for d in result.decisions if d.attempts]
    by_kind: dict[str, list[int]] = defaultdict(list)
    for cid, size in first.items():
        by_kind[kinds.get(cid, "lines, not marked")].append(size)
    return {
        "sent": len(sent),
        "first_accepted": sum(1 for d in sent if d.attempts == 1 and d.applied),
        "decided": sum(1 for d in result.decisions if d.applied),  # a request decides its sentence's claims
        "calls": sum(d.attempts for d in sent),
        "tokens_in": sum(d.tokens_in for d in sent),
        "refusals": [str(d.error) for d in sent if d.error] + [
            r.messages[1].split("\n", 1)[0] for r in fake.history if r.attempt > 1
        ],
        "size": {k: (len(v), sum(v) / len(v)) for k, v in sorted(by_kind.items())},
        "patterns": _pattern_acceptance(sent),
    }


def _pattern_acceptance(sent: list[Any]) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for d in sent:
        if not any(looks_like_kind(r) for r in d.evidence_before):
            continue
        p = model_answers.pattern_of(d.claim_id)
        out[p][0] += 1
        out[p][1] += d.attempts == 1 and d.applied
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def agent_pass(root: Path) -> dict[str, Any]:
    """The scripted agent over the real MCP client (see the module's docstring)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client
    from mcp.types import Implementation

    from tests.support import agent_session

    out: dict[str, Any] = {"items": 0, "first_accepted": 0, "decided": 0, "calls": 0, "crashes": [], "refusals": [], "sizes": []}

    async def run() -> None:
        async with stdio_client(agent_session.server_params(root)) as (read, write), ClientSession(
            read, write, client_info=Implementation(name="bench-agent", version="1")
        ) as session:
            await session.initialize()
            await anyio.sleep(RACY_S)  # a real agent reads for a while: the files copied a moment ago are no longer racy
            await session.call_tool("locate", {"terms": "reload workers"})  # as the server's instructions say: locate first
            listed = await session.call_tool("claims_for_change", {"limit": 50})
            found = json.loads(listed.content[0].text)
            out["listed"] = {k: found.get(k) for k in ("total", "truncated") if k in found} | {"returned": len(found["claims"])}
            for item in found["claims"]:
                if not item.get("agents_may_verify", True):
                    continue
                out["items"] += 1
                out["sizes"].append(len(json.dumps(item, ensure_ascii=False)))
                await _decide(session, item, out)
            await anyio.sleep(RACY_S)
            for name, args in _every_tool(found):
                got = await session.call_tool(name, args)
                if got.is_error and _crash(got.content[0].text):
                    out["crashes"].append(f"{name}: {got.content[0].text[:300]}")

    anyio.run(run)
    for argv in (["locate", "server"], ["expand", "uvicorn/main.py"], ["check"]):
        code = quiet("-C", str(root), *argv)
        if code == 3:
            out["crashes"].append(f"openwiki-git {' '.join(argv)}: exit 3")
    return out


async def _decide(session: Any, item: dict[str, Any], out: dict[str, Any]) -> None:
    for attempt in (1, 2):
        verdict = model_answers.answer(item["claim_id"], item["context"], retry=attempt > 1)
        verdict.pop("revised_statement") if verdict["revised_statement"] is None else None
        got = await session.call_tool("verify_claim", verdict)
        out["calls"] += 1
        if not got.is_error:
            out["decided"] += 1
            out["first_accepted"] += attempt == 1
            return
        text = got.content[0].text
        (out["crashes"] if _crash(text) else out["refusals"]).append(text[:200])


def _every_tool(found: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    first = found["claims"][0]["claim_id"] if found["claims"] else "claim_" + "0" * 32
    return [("check", {}), ("locate", {"terms": "reload workers"}), ("expand", {"node": first}),
            ("claim_show", {"claim": first}), ("claims_for_change", {"limit": 5})]


def _crash(text: str) -> bool:
    """A tool error that is not the service's answer (`{"error", "hint"}`): an exception's text,
    a traceback, or openwiki-git's own "unexpected error" (its bug, logged)."""
    return '"hint"' not in text or "unexpected error" in text


def report(built: dict[str, int], refreshed: dict[str, Any], agent: dict[str, Any]) -> None:
    r = refreshed
    print(f"uvicorn replay: {built['claims']} claims, {built['marked']} marked by the hook")
    print(f"refresher: {r['sent']} requests; first-attempt acceptance {r['first_accepted']}/{r['sent']} "
          f"= {r['first_accepted'] / max(1, r['sent']):.0%}; {r['decided']} claims decided; model calls per claim "
          f"{r['calls'] / max(1, r['decided']):.2f} (per request {r['calls'] / max(1, r['sent']):.2f}); "
          f"estimated input tokens per claim {r['tokens_in'] / max(1, r['decided']):.0f}")
    for pattern, (n, ok) in r["patterns"].items():  # claims citing a definition by name: the others quote plain lines
        print(f"  pattern {pattern!r}: {ok}/{n} accepted first")
    for kind, (n, mean) in r["size"].items():
        print(f"  first request per claim, {kind}: {n} claims, {mean:,.0f} characters (~{mean / 4:,.0f} tokens)")
    for why in sorted(set(r["refusals"]))[:12]:
        print(f"  refused: {why[:150]}")
    a = agent
    print(f"agent over MCP: claims_for_change {a.get('listed')}; {a['items']} claims, first-attempt acceptance "
          f"{a['first_accepted']}/{a['items']}; decided {a['decided']}; verify_claim calls per claim "
          f"{a['calls'] / max(1, a['items']):.2f}; item size per claim {sum(a['sizes']) / max(1, len(a['sizes'])):,.0f} characters")
    for why in sorted(set(a["refusals"]))[:8]:
        print(f"  refused: {why[:150]}")
    print(f"crashes: {len(a['crashes'])}")
    for c in a["crashes"]:
        print(f"  {c[:300]}")


def run_bench() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--back", type=int, default=60, help="first-parent commits before the bundle's last to ground at")
    ap.add_argument("--steps", type=int, default=60, help="first-parent commits replayed through the hook")
    ap.add_argument("--keep", type=Path, help="keep the replay in this directory (built once, reused)")
    args = ap.parse_args()
    os.environ.update({"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
                       "GIT_COMMITTER_EMAIL": "b@x", "GIT_CONFIG_NOSYSTEM": "1"})
    with tempfile.TemporaryDirectory() as tmp:
        origin = args.keep or Path(tmp) / "uvicorn"
        if not (origin / ".git").is_dir():
            built = build(origin, args.back, args.steps)
        else:
            ws = Workspace.open(origin)
            claims = [c for sc in ws.wiki.load_all().values() for c in sc.claims]
            built = {"claims": len(claims), "marked": sum(c.mark is not None for c in claims)}
        copies = []
        for name in ("refresh", "agent"):
            copies.append(Path(tmp) / name)
            shutil.copytree(origin, copies[-1], symlinks=True)
        refreshed = refresher_pass(copies[0])
        agent = agent_pass(copies[1])
        report(built, refreshed, agent)


if __name__ == "__main__":
    run_bench()
