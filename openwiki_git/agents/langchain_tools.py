"""`locate` and `expand` as LangChain tools, for agents that answer questions over the wiki.

    from openwiki_git.agents.langchain_tools import graph_tools
    tools = graph_tools("/path/to/repo")      # [locate, expand]; bind them to a chat model

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


def graph_tools(repo: str | Path | None = None, *, wiki_dir: str | None = None) -> list[Any]:
    """The two tools, bound to the repository at `repo` (default: the current directory). The
    graph is reloaded when its inputs change (agents.service); arguments carry descriptions for
    the model, and an error (a bad node, a wrong argument type) is returned as readable JSON."""
    try:
        from langchain_core.tools import StructuredTool
        from pydantic import BaseModel, Field
    except ModuleNotFoundError:
        from openwiki_git.errors import UsageError

        raise UsageError("the agent tools need langchain-core, which is not installed", "pip install 'openwiki-git[agent]'") from None
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
