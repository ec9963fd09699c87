"""The evidence graph as a long-lived service for agents (the MCP server, the LangChain tools):
one workspace, the graph reloaded whenever its inputs change, and each call's answer or error as
JSON-ready data, never an exception. Descriptions of the tools and their arguments, written for a
model, live here so both front ends say the same.

The graph is kept in memory between calls; before each call every input is stat-ed (pages,
sidecars, documents, the files claims cite, the git index): when anything changed the graph is
loaded again (graph_build's stat-validated cache makes that incremental), and the cited lines
are read again, so a tool never reports `fresh` next to edited text.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openwiki_git.errors import OpenwikiError
from openwiki_git.graph import build as graph_build
from openwiki_git.graph import citestale
from openwiki_git.graph import inputs as graph_inputs
from openwiki_git.graph import summary as graph_summary
from openwiki_git.graph.core import EDGE_TYPES
from openwiki_git.graph.doc_standing import standing_table
from openwiki_git.graph.session import GraphSession
from openwiki_git.store.workspace import Workspace

LOCATE = (
    "Search the repository's evidence graph: wiki pages, decision records and other documents, "
    "their headings and paragraphs, and the wiki's claims. Start here for a question such as "
    "'which document governs X now?' or 'is what the wiki says about X still true?'. Each result "
    "has an id (pass it to expand), its kind, the first lines of its text, and for documents their "
    "standing: superseded (with superseded_by and head, the document in force now) or amended "
    "(amended_by). Claims carry status; a claim with \"stale\": true no longer matches the code "
    "it cites: do not state it as a fact."
)
EXPAND = (
    "Read one node of the evidence graph with its context in a single call: its text, the "
    "paragraphs of its section (or of the whole document), and its typed neighbours with their "
    "first lines. Edge types: " + ", ".join(EDGE_TYPES) + ". To reach the decision in force, "
    "walk superseded_by: edges=['superseded_by'], hops=10. A claim comes with the lines it cites "
    "as they are now; stale claims are flagged: do not state them as facts."
)
CHECK = (
    "Which of the wiki's claims are no longer true: every claim whose cited lines changed "
    "(stale) or are gone (unresolved), and every claim citing a document that was superseded or "
    "amended since, grouped by wiki page. Give a page to check only that page."
)
CLAIM_SHOW = (
    "One claim of the wiki: its statement, status (fresh/stale/unresolved), the page that makes "
    "it, and each piece of evidence with the cited lines as they are now."
)
CLAIMS_FOR_CHANGE = (
    "Call after editing code: the wiki claims whose cited lines your change touches, and the claims "
    "already marked stale or unresolved, one item per sentence (claims: its claims, when several). Each "
    "comes with its status, statement, cause, and a context text holding each cited part as verified "
    "-> now, numbered with the file's real line numbers (' ' and '+' rows are current, '-' rows the "
    "text as verified), plus may_cite: the lines a verdict may quote, and retract_leaves: the "
    "sentence a retract would leave unfinished. Decide each one with verify_claim."
)
VERIFY_CLAIM = (
    "Record your verdict on one claim (and the other claims of its sentence), before you finish: "
    "confirm (the statement still holds; quote the current lines that prove it), revise (give "
    "revised_statement and quote the lines that support it) or retract (it is no longer true; with "
    "rewrite_neighbour to rewrite the sentence the retraction leaves unfinished, as one decision). "
    "Quote current rows shown by claims_for_change, cited by their line numbers or by the "
    "definition's resource; several quotes per resource are fine, a quote may cut a line at a word; "
    "a quote of comments or docstrings alone does not prove code. A refused verdict is an error "
    "naming the first problem, and nothing is written. An accepted one is written to the working "
    "tree (never staged or committed), recorded as verified by agent:NAME; a retract says what "
    "happened to its paragraph."
)
ADD_CLAIM = (
    "Add a claim to a wiki page: one plain sentence and the source lines that support it, each with "
    "its quote copied exactly from the current file. When the page already has that statement over "
    "overlapping lines, that claim is returned instead of a duplicate."
)
ARGS = {
    "terms": "Words of the question, e.g. 'how users authenticate to the cluster'. Stop words are ignored.",
    "within": (
        "Optional node id (a page, document or section, e.g. 'ADR-0012' or an id from a result): search only inside it, "
        "its text included."
    ),
    "limit": "How many results, 1 to 50 (default 10).",
    "node": (
        "A node id from locate or expand, or a shorthand: an identifier such as ADR-0012, a claim id or its first 8 hex digits, "
        "a page name, a repository path."
    ),
    "edges": "Optional list of edge types to keep, e.g. ['superseded_by'] or ['cites']. Leave empty for all.",
    "hops": "With exactly one edge type: follow it up to this many steps while there is a single way on (default 1: no walk).",
    "depth": (
        "Context: 0 the node and its edges only; 1 (default) plus its section's or document's paragraphs and each neighbour's "
        "first lines; 2 plus the text of the documents it supersedes, amends or is replaced by."
    ),
    "max_chars": "At most this many characters of text in the context (default 6000); the answer says truncated: true when it cut.",
    "page": "Optional wiki page name (such as 'platform.md'): only that page's claims.",
    "claim": "A claim id (claim_…), its c- label or its first 8+ hex digits.",
    "scope": "worktree (default: the working tree against HEAD), staged (the index against HEAD) or branch (HEAD since base).",
    "base": "With scope branch: the revision the branch started from, e.g. 'main'.",
    "claims_limit": "At most this many claims (1 to 50, default 20); the answer says truncated: true when there are more.",
    "claim_id": "The claim's id (claim_… as claims_for_change gives it).",
    "verdict": "confirm, revise or retract.",
    "revised_statement": "revise only: the corrected statement, one plain sentence; null keeps the statement.",
    "cited_ranges": (
        "The lines that prove it: [{resource: 'repo://path#L10-L14', quote: 'the exact current text of some of those lines'}]; "
        "empty for retract."
    ),
    "rationale": "One or two sentences: why.",
    "rewrite_neighbour": (
        "retract only, optional: {sentence: the neighbouring sentence as the paragraph has it (claims_for_change's "
        "retract_leaves), revised: its new text}, rewritten in the same decision."
    ),
    "statement": "The claim: one plain sentence the cited lines support.",
    "new_page": "The wiki page, e.g. 'architecture.md' (it must exist).",
}


_CLI_WORDS = (
    ("pass exactly one --edges TYPE", "pass edges with exactly one type"),
    ("--edges TYPE", "edges"),
    ("`openwiki-git locate`", "the locate tool"),
    ("openwiki-git locate", "the locate tool"),
    ("--max-chars", "max_chars"),
    ("--hops", "hops"),
    ("--limit", "limit"),
    ("--within", "within"),
    ("--depth", "depth"),
    ("--edges", "edges"),
)


def tool_language(text: str) -> str:
    """A message or hint written for the command line, in the tools' terms (`hops`, not `--hops`)."""
    for cli, tool in _CLI_WORDS:
        text = text.replace(cli, tool)
    return text


class GraphService:
    """The graph of one repository, kept fresh (see the module's docstring)."""

    def __init__(
        self, root: str | Path | None = None, *, wiki_dir: str | None = None, agent: str | None = None,
        crash_log: Callable[[BaseException], Path | None] | None = None,
    ) -> None:
        self.ws = Workspace.open(Path(root) if root is not None else None, wiki_dir=wiki_dir)
        self.agent = agent  # --agent NAME; else each call's client names itself
        self.crash_log = crash_log  # writes an unexpected error's traceback (the CLI's last-error.log), returns its path
        self._sidecars: Any = None  # verification.SidecarMemo, made on the first claims_for_change
        self._session: GraphSession | None = None
        self._key: tuple[Any, ...] | None = None
        self.loads = 0  # how many times the graph was loaded (for tests)

    # -- freshness ---------------------------------------------------------------------------
    def session(self) -> GraphSession:
        key = self._stat_key()
        if self._session is None or key != self._key:
            g, info = graph_build.load(self.ws)
            self._session = GraphSession(self.ws, g, info)
            self.loads += 1
            self._key = self._stat_key()
        return self._session

    def _stat_key(self) -> tuple[Any, ...]:
        now = graph_inputs.stat_inputs(self.ws)
        cited: list[tuple[str, Any]] = []
        if self._session is not None:
            root = self.ws.repo.root
            for node in self._session.graph.nodes.values():
                if node.kind == "file":
                    cited.append((node.data, graph_inputs.stat_key(root / node.data, now.started_ns)))
            for scope in self._session.info.cited:  # a set of lines over a folder: any file of it may gain a line
                if "*" in scope:
                    cited.append((scope, graph_inputs.cited_key(root, scope, now.started_ns)))
        config = graph_inputs.stat_key(self.ws.wiki.root / "config.yml", now.started_ns)
        return (now.index, tuple(now.docs.items()), tuple(now.pages.items()), tuple(now.sidecars.items()), tuple(cited), config)

    # -- the calls: data, or {"error", "hint"} ------------------------------------------------
    def call(self, name: str, **kwargs: Any) -> dict[str, Any]:
        try:
            return getattr(self, "_" + name)(**kwargs)
        except OpenwikiError as e:
            return {"error": tool_language(e.message), "hint": tool_language(e.hint or "")}
        except (TypeError, ValueError) as e:
            return {"error": f"{name}: bad arguments: {e}", "hint": "see the tool's argument descriptions"}
        except Exception as e:  # noqa: BLE001 - our bug: one line and the log for the agent, never a traceback
            return self._unexpected(name, e)

    def _unexpected(self, name: str, e: Exception) -> dict[str, Any]:
        """An error openwiki-git did not expect (its bug), as the CLI's exit 3 says it: one line,
        the traceback in the log file (when a log writer was given), nothing else."""
        log = self.crash_log(e) if self.crash_log is not None else None
        what = " ".join(str(e).split())[:300]
        where = f"details in {log}" if log is not None else "no log was written"
        return {
            "error": f"{name}: unexpected {type(e).__name__}: {what} (a bug in openwiki-git; {where})",
            "hint": "the other tools still answer; report it with that log, and decide this step without the tool",
        }

    def _locate(self, terms: str, within: str | None = None, limit: int = 10) -> dict[str, Any]:
        if not isinstance(terms, str):
            raise TypeError("terms must be a string of words")
        return self.session().locate(terms, within=within or None, limit=min(int(limit), 50))

    def _expand(
        self, node: str, edges: list[str] | None = None, hops: int = 1, depth: int = 1, max_chars: int = 6000
    ) -> dict[str, Any]:
        if isinstance(edges, str):
            edges = [edges]
        return self.session().expand(str(node), edges=edges or None, hops=int(hops), depth=int(depth), max_chars=int(max_chars))

    def _check(self, page: str | None = None) -> dict[str, Any]:
        s = self.session()
        g = s.graph
        claims = [(cid, n) for cid, n in g.nodes.items() if n.kind == "claim"]
        if page:
            page = self.ws.wiki.normalize_page(page)
            claims = [(cid, n) for cid, n in claims if n.data.page == page]
        by_page: dict[str, list[dict[str, Any]]] = {}
        stale: set[str] = set()
        sidecars = self.ws.wiki.load_all()
        table = standing_table(g)  # the loaded graph knows every document's standing
        notices = citestale.superseded_notices([c for sc in sidecars.values() for c in sc.claims], table.get)
        for cid, _ in claims:
            summary = graph_summary.summary(g, cid, stale)
            if cid in notices:
                summary["cited_documents"] = notices[cid]
                summary["stale"] = True
                stale.add(cid)
            if summary["stale"]:
                by_page.setdefault(summary["page"], []).append(summary)
        return {
            "pages": by_page,
            "summary": {"claims": len(claims), "stale": len(stale), "pages_with_stale_claims": len(by_page)},
            "stale_claims": sorted(stale),
        }

    def _claim_show(self, claim: str) -> dict[str, Any]:
        s = self.session()
        node = s.graph.resolve_id(str(claim))
        if s.graph.nodes.get(node) is None or s.graph.nodes[node].kind != "claim":
            from openwiki_git.errors import UsageError

            raise UsageError(f"{claim!r} is not a claim", "pass a claim id from locate or check (claim_… or its first 8 hex digits)")
        return s.expand(node, depth=0)

    # -- verification (agents/verification.py) ------------------------------------------------
    def _workspace(self) -> Workspace:
        """The workspace as it is now, opened again for each call of a long-lived server: the git
        index (what is staged, what is tracked) and the config (its verify_policy) as they are now."""
        return Workspace.open(self.ws.repo.root, wiki_dir=self.ws.config.wiki_dir)

    def _claims_for_change(self, scope: str | None = None, base: str | None = None, limit: int = 20) -> dict[str, Any]:
        from openwiki_git.agents import verification

        if self._sidecars is None:
            self._sidecars = verification.SidecarMemo()
        ws = self._workspace()
        return verification.claims_for_change(ws, scope=scope or "worktree", base=base or None, limit=int(limit), memo=self._sidecars)

    def _verify_claim(self, verdict: dict[str, Any], client: str | None = None) -> dict[str, Any]:
        from openwiki_git.agents import verification

        return verification.verify_claim(self._workspace(), verdict, agent=self.agent or client)

    def _add_claim(self, page: str, statement: str, cited_ranges: Any, client: str | None = None) -> dict[str, Any]:
        from openwiki_git.agents import verification

        return verification.add_claim(self._workspace(), page, statement, cited_ranges, agent=self.agent or client)

    # -- pages as resources -----------------------------------------------------------------
    def pages(self) -> list[str]:
        return sorted(self.ws.wiki.pages())

    def page_text(self, page: str) -> str:
        text = self.ws.page_text(page)
        if text is None:
            raise FileNotFoundError(os.path.join(self.ws.config.wiki_dir, page))
        return text
