"""Shared helpers of the refresher tests (no tests here): a wiki with stale claims, verdicts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openwiki_git.store.workspace import Workspace


@dataclass
class Grounded:
    claim_id: str
    page: str  # relative to the wiki dir
    path: str  # cited file
    line: int  # cited line (1-based), unchanged by the edit
    statement: str
    new_line: str  # the cited line's text after the edit (without newline)

    @property
    def resource(self) -> str:
        return f"repo://{self.path}#L{self.line}-L{self.line}"


def module_text(m: int, lines: int = 30, changed: dict[int, str] | None = None) -> str:
    out = []
    for i in range(1, lines + 1):
        out.append((changed or {}).get(i, f"VALUE_{m}_{i} = {m * 100 + i}"))
    return "\n".join(out) + "\n"


def stale_wiki(repo: Any, *, pages: int = 4, per_page: int = 5, whitespace_only: set[int] = frozenset()) -> list[Grounded]:
    """`pages` pages of `per_page` claims, each citing one line of src/mod<p>.py; then every cited
    line is edited (white space only for the claims numbered in `whitespace_only`) and committed,
    so every claim is stale. Returns the claims in page then claim order. White-space-only edits
    are kept stale (`cosmetic_edits: stale`, as a team preferring marks sets it): what the
    refresher confirms without a model."""
    assert repo.run("init") == 0
    if whitespace_only:
        repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + "cosmetic_edits: stale\n")
    plans = []
    for p in range(pages):
        repo.write(f"src/mod{p}.py", module_text(p))
        sentences = []
        for k in range(per_page):
            line = 3 + 5 * k
            statement = f"Setting VALUE_{p}_{line} is {p * 100 + line}."
            sentences.append(statement)
            plans.append((p, k, line, statement))
        body = " ".join(sentences[:2]) + "\n\n" + "\n".join(f"- {s}" for s in sentences[2:]) + "\n"
        repo.write(f".openwiki/topic{p}.md", f"---\ntype: Reference\ntitle: Topic {p}\n---\n\n# Topic {p}\n\n{body}")
    repo.commit_all("pages and sources")
    for p, _k, line, statement in plans:
        assert repo.run("claim", "add", "--page", f"topic{p}.md", "--statement", statement,
                        "--evidence", f"repo://src/mod{p}.py#L{line}-L{line}", "--by", "human:ada") == 0
    repo.commit_all("claims")
    ws = Workspace.open(repo.root)
    ids = {(c.statement): c.id for sc in ws.wiki.load_all().values() for c in sc.claims}
    out = []
    changes: dict[int, dict[int, str]] = {}
    for n, (p, _k, line, statement) in enumerate(plans):
        if n in whitespace_only:
            new = f"VALUE_{p}_{line}   =   {p * 100 + line}   "
        else:
            new = f"VALUE_{p}_{line} = {(p * 100 + line) * 7}"
        changes.setdefault(p, {})[line] = new
        out.append(Grounded(ids[statement], f"topic{p}.md", f"src/mod{p}.py", line, statement, new))
    for p in range(pages):
        repo.write(f"src/mod{p}.py", module_text(p, changed=changes.get(p)))
    repo.commit_all("edit every cited line")
    return out


def confirm(g: Grounded, **extra: Any) -> dict[str, Any]:
    return {
        "claim_id": g.claim_id,
        "verdict": "confirm",
        "revised_statement": None,
        "cited_ranges": [{"resource": g.resource, "quote": g.new_line}],
        "rationale": "still true",
        **extra,
    }


def revised_statement(g: Grounded) -> str:
    value = g.new_line.split("=")[1].strip()
    name = g.new_line.split("=")[0].strip()
    return f"Setting {name} is now {value}."


def revise(g: Grounded, **extra: Any) -> dict[str, Any]:
    return {
        "claim_id": g.claim_id,
        "verdict": "revise",
        "revised_statement": revised_statement(g),
        "cited_ranges": [{"resource": g.resource, "quote": g.new_line}],
        "rationale": "the value changed",
        **extra,
    }


def retract(g: Grounded) -> dict[str, Any]:
    return {"claim_id": g.claim_id, "verdict": "retract", "revised_statement": None, "cited_ranges": [], "rationale": "gone"}


def check_json(repo: Any, capsys: Any) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = repo.run("check", "--format", "json")
    return code, json.loads(capsys.readouterr().out)


def tracked_changes(repo: Any) -> list[str]:
    """Paths `git status` reports as changed or new (what a refresh touched)."""
    out = repo.git("status", "--porcelain", "--untracked-files=all")
    return sorted(line[3:] for line in out.splitlines() if line.strip())


def read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))
