"""`locate` and `expand` as LangChain tools, for agents that answer questions over the wiki, and
`claims_for_change` and `verify_claim`, for agents that change code and verify what the wiki says.

    from openwiki_git.agents.langchain_tools import graph_tools, verification_tools
    tools = graph_tools("/path/to/repo")      # [locate, expand]; bind them to a chat model
    tools = verification_tools("/path/to/repo", agent="my-agent")  # verdicts recorded as agent:my-agent

The verification tools are the MCP server's (agents.verification): the same descriptions, the
same validator; a refused verdict comes back as `{"error", "hint"}` and nothing is written.

Each tool returns the same JSON as `openwiki-git locate/expand --format json` (a string), so an
agent's citations are the graph's stable ids and `repo://path#Lx-Ly` spans; an error comes back
as `{"error", "hint"}` in the tools' terms. Stale claims carry `"stale": true` and are listed in
`stale_claims`: the tool descriptions (agents.service, shared with the MCP server) tell the model
not to state them as facts. The graph is reloaded when its inputs change. langchain_core (the
`agent` extra) is imported only when the tools are made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _structured_tool() -> Any:
    try:
        from langchain_core.tools import StructuredTool
    except ModuleNotFoundError:
        from openwiki_git.errors import UsageError

        raise UsageError("the agent tools need langchain-core, which is not installed", "pip install 'openwiki-git[agent]'") from None
    return StructuredTool


def verification_tools(repo: str | Path | None = None, *, wiki_dir: str | None = None, agent: str = "langchain") -> list[Any]:
    """`claims_for_change` and `verify_claim`, bound to the repository at `repo`; verdicts are
    recorded as `agent:<agent>`. Each returns JSON text (an error as `{"error", "hint"}`)."""
    structured = _structured_tool()
    from pydantic import BaseModel, Field

    from openwiki_git.agents import service as gs

    service = gs.GraphService(repo, wiki_dir=wiki_dir, agent=agent)

    class ChangeArgs(BaseModel):
        scope: Any = Field("worktree", description=gs.ARGS["scope"])
        base: Any = Field(None, description=gs.ARGS["base"])
        limit: Any = Field(20, description=gs.ARGS["claims_limit"])

    class VerdictArgs(BaseModel):
        claim_id: Any = Field(description=gs.ARGS["claim_id"])
        verdict: Any = Field(description=gs.ARGS["verdict"])
        cited_ranges: Any = Field(description=gs.ARGS["cited_ranges"])
        rationale: Any = Field(description=gs.ARGS["rationale"])
        revised_statement: Any = Field(None, description=gs.ARGS["revised_statement"])
        rewrite_neighbour: Any = Field(None, description=gs.ARGS["rewrite_neighbour"])

    def claims_for_change(scope: Any = "worktree", base: Any = None, limit: Any = 20) -> str:
        return json.dumps(service.call("claims_for_change", scope=scope, base=base, limit=limit), ensure_ascii=False)

    def verify_claim(
        claim_id: Any, verdict: Any, cited_ranges: Any, rationale: Any, revised_statement: Any = None, rewrite_neighbour: Any = None
    ) -> str:
        data = {"claim_id": claim_id, "verdict": verdict, "revised_statement": revised_statement,
                "cited_ranges": cited_ranges, "rationale": rationale,
                **({"rewrite_neighbour": rewrite_neighbour} if rewrite_neighbour is not None else {})}
        return json.dumps(service.call("verify_claim", verdict=data), ensure_ascii=False)

    return [
        structured.from_function(claims_for_change, name="claims_for_change", description=gs.CLAIMS_FOR_CHANGE, args_schema=ChangeArgs),
        structured.from_function(verify_claim, name="verify_claim", description=gs.VERIFY_CLAIM, args_schema=VerdictArgs),
    ]


def graph_tools(repo: str | Path | None = None, *, wiki_dir: str | None = None) -> list[Any]:
    """The two tools, bound to the repository at `repo` (default: the current directory). The
    graph is reloaded when its inputs change (agents.service); arguments carry descriptions for
    the model, and an error (a bad node, a wrong argument type) is returned as readable JSON."""
    StructuredTool = _structured_tool()  # noqa: N806 - the class, as langchain names it
    from pydantic import BaseModel, Field

    from openwiki_git.agents import service as gs

    service = gs.GraphService(repo, wiki_dir=wiki_dir)

    class LocateArgs(BaseModel):
        terms: Any = Field(description=gs.ARGS["terms"])
        within: Any = Field(None, description=gs.ARGS["within"])
        limit: Any = Field(10, description=gs.ARGS["limit"])

    class ExpandArgs(BaseModel):
        node: Any = Field(description=gs.ARGS["node"])
        edges: Any = Field(None, description=gs.ARGS["edges"])
        hops: Any = Field(1, description=gs.ARGS["hops"])
        depth: Any = Field(1, description=gs.ARGS["depth"])
        max_chars: Any = Field(6000, description=gs.ARGS["max_chars"])

    def locate(terms: Any, within: Any = None, limit: Any = 10) -> str:
        return json.dumps(service.call("locate", terms=terms, within=within, limit=limit), ensure_ascii=False)

    def expand(node: Any, edges: Any = None, hops: Any = 1, depth: Any = 1, max_chars: Any = 6000) -> str:
        data = service.call("expand", node=node, edges=edges, hops=hops, depth=depth, max_chars=max_chars)
        return json.dumps(data, ensure_ascii=False)

    return [
        StructuredTool.from_function(locate, name="locate", description=gs.LOCATE, args_schema=LocateArgs),
        StructuredTool.from_function(expand, name="expand", description=gs.EXPAND, args_schema=ExpandArgs),
    ]
