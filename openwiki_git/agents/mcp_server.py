"""The MCP server of `openwiki-git mcp`, on the official `mcp` SDK (imported only here): the
tools and resources of agents.service, with argument schemas and descriptions written for a model.
A tool's error is returned as its result with isError set: the service's one line and hint, an
unexpected error (our bug) included, with the log file that holds its traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from openwiki_git import __version__
from openwiki_git.agents.service import (
    ADD_CLAIM,
    ARGS,
    CHECK,
    CLAIM_SHOW,
    CLAIMS_FOR_CHANGE,
    EXPAND,
    LOCATE,
    VERIFY_CLAIM,
    GraphService,
)


def make_server(
    root: str | Path, *, wiki_dir: str | None = None, agent: str | None = None,
    crash_log: Callable[[BaseException], Path | None] | None = None,
) -> MCPServer:
    service = GraphService(root, wiki_dir=wiki_dir, agent=agent, crash_log=crash_log)
    server = MCPServer(
        "openwiki-git",
        version=__version__,
        instructions="The repository's wiki, its claims grounded in source lines, and its decision records as a typed graph. "
        "Use locate first, then expand; never state a stale claim as a fact.",
    )

    def answer(name: str, **kwargs: Any) -> str:
        data = service.call(name, **kwargs)
        if "error" in data and len(data) <= 2:
            raise ToolError(json.dumps(data, ensure_ascii=False))  # the SDK returns it with isError: true
        return json.dumps(data, ensure_ascii=False)

    @server.tool(name="locate", description=LOCATE)
    def locate(
        terms: Annotated[str, Field(description=ARGS["terms"])],
        within: Annotated[str | None, Field(description=ARGS["within"])] = None,
        limit: Annotated[int, Field(description=ARGS["limit"], ge=1, le=50)] = 10,
    ) -> str:
        return answer("locate", terms=terms, within=within, limit=limit)

    @server.tool(name="expand", description=EXPAND)
    def expand(
        node: Annotated[str, Field(description=ARGS["node"])],
        edges: Annotated[list[str] | None, Field(description=ARGS["edges"])] = None,
        hops: Annotated[int, Field(description=ARGS["hops"], ge=1, le=100)] = 1,
        depth: Annotated[int, Field(description=ARGS["depth"], ge=0, le=2)] = 1,
        max_chars: Annotated[int, Field(description=ARGS["max_chars"], ge=0, le=100_000)] = 6000,
    ) -> str:
        return answer("expand", node=node, edges=edges, hops=hops, depth=depth, max_chars=max_chars)

    @server.tool(name="check", description=CHECK)
    def check(page: Annotated[str | None, Field(description=ARGS["page"])] = None) -> str:
        return answer("check", page=page)

    @server.tool(name="claim_show", description=CLAIM_SHOW)
    def claim_show(claim: Annotated[str, Field(description=ARGS["claim"])]) -> str:
        return answer("claim_show", claim=claim)

    _verification_tools(server, answer)
    for page in service.pages():
        _page_resource(server, service, page)
    return server


def _client_name(ctx: Context) -> str | None:
    """The MCP client's `clientInfo.name` (the agent recorded as `agent:NAME`)."""
    params = ctx.session.client_params
    info = getattr(params, "client_info", None) if params is not None else None
    return getattr(info, "name", None)


class CitedRange(BaseModel):
    resource: str = Field(description="repo://path#Lstart-Lend (the numbers shown), or a definition's resource as shown")
    quote: str = Field(description="The current text of an unbroken run of those lines (a line may be cut at a word)")


class NeighbourRewrite(BaseModel):
    sentence: str = Field(description="The neighbouring sentence exactly as the paragraph has it")
    revised: str = Field(description="Its new text: one plain sentence")


def _verification_tools(server: MCPServer, answer: Any) -> None:
    @server.tool(name="claims_for_change", description=CLAIMS_FOR_CHANGE)
    def claims_for_change(
        scope: Annotated[Literal["worktree", "staged", "branch"], Field(description=ARGS["scope"])] = "worktree",
        base: Annotated[str | None, Field(description=ARGS["base"])] = None,
        limit: Annotated[int, Field(description=ARGS["claims_limit"], ge=1, le=50)] = 20,
    ) -> str:
        return answer("claims_for_change", scope=scope, base=base, limit=limit)

    @server.tool(name="verify_claim", description=VERIFY_CLAIM)
    def verify_claim(
        ctx: Context,
        claim_id: Annotated[str, Field(description=ARGS["claim_id"])],
        verdict: Annotated[Literal["confirm", "revise", "retract"], Field(description=ARGS["verdict"])],
        cited_ranges: Annotated[list[CitedRange], Field(description=ARGS["cited_ranges"])],
        rationale: Annotated[str, Field(description=ARGS["rationale"])],
        revised_statement: Annotated[str | None, Field(description=ARGS["revised_statement"])] = None,
        rewrite_neighbour: Annotated[NeighbourRewrite | None, Field(description=ARGS["rewrite_neighbour"])] = None,
    ) -> str:
        data = {
            "claim_id": claim_id, "verdict": verdict, "revised_statement": revised_statement,
            "cited_ranges": [c.model_dump() for c in cited_ranges], "rationale": rationale,
            **({"rewrite_neighbour": rewrite_neighbour.model_dump()} if rewrite_neighbour is not None else {}),
        }
        return answer("verify_claim", verdict=data, client=_client_name(ctx))

    @server.tool(name="add_claim", description=ADD_CLAIM)
    def add_claim(
        ctx: Context,
        page: Annotated[str, Field(description=ARGS["new_page"])],
        statement: Annotated[str, Field(description=ARGS["statement"])],
        cited_ranges: Annotated[list[CitedRange], Field(description=ARGS["cited_ranges"], min_length=1)],
    ) -> str:
        cited = [c.model_dump() for c in cited_ranges]
        return answer("add_claim", page=page, statement=statement, cited_ranges=cited, client=_client_name(ctx))


def _page_resource(server: MCPServer, service: GraphService, page: str) -> None:
    @server.resource(f"openwiki://page/{page}", name=page, description=f"The wiki page {page}", mime_type="text/markdown")
    def read() -> str:
        return service.page_text(page)


def serve(
    root: str | Path, *, wiki_dir: str | None = None, agent: str | None = None,
    crash_log: Callable[[BaseException], Path | None] | None = None,
) -> None:
    """Serve over stdio; `crash_log` writes an unexpected error's traceback where the CLI writes
    exit 3's (the agent gets one line naming it)."""
    make_server(root, wiki_dir=wiki_dir, agent=agent, crash_log=crash_log).run("stdio")
