"""The broken calls of a page's guarded code examples, as `check` and `lint` report them: the
check-side rule (claims/examples.broken_calls) on the working tree's files, each broken call a
`broken_references` entry of kind `example`. A page finding: it depends on the page and the files
its claims cite, so check's cache keeps it with the page's entry."""

from __future__ import annotations

from typing import Any

from openwiki_git.store.workspace import Workspace

KEY = "broken_references"  # the report's key: an example's broken call is a broken reference of kind `example`


def findings(ws: Workspace, page: str, text: str | None, sidecar: Any) -> dict[str, list[dict[str, Any]]]:
    """The page's findings, `{"broken_references": [...]}` when there are some (else `{}`; nothing
    is read unless the page may carry an example's marker: claims/examples.may_guard)."""
    if sidecar is None or text is None or ("<!--" not in text and ".. c-" not in text):
        return {}  # no marker that could close an example: the example reader is not even imported
    from openwiki_git.claims import examples as claim_examples

    if not claim_examples.may_guard(text):
        return {}

    found = claim_examples.broken_records(page, ws.wiki.repo_path(page), text, sidecar.claims, ws.reader("worktree"))
    return {KEY: found} if found else {}


def lint_findings(ws: Workspace, sidecars: dict[str, Any]) -> list[tuple[str, int, str]]:
    """Every page's entries as `lint` says them, (page path, line, message), in page order."""
    return [
        (b["page_path"], b["line"], f"`{b['reference']}` breaks the example: {b['reason']}")
        for page, sc in sorted(sidecars.items()) for b in findings(ws, page, ws.page_text(page), sc).get(KEY, ())
    ]
