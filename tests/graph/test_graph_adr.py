"""The decision-record corpus (tests/fixtures/adr: 37 ADRs and 3 RFCs written in many
conventions): every relation found, whatever its wording; broken links resolved by their text;
unrecognised status wordings reported; and the questions "which document governs X now?"
answered with a fixed policy (locate with the question's words, then follow superseded_by) in at
most 2 calls on average and never more than plain BM25 over the raw files needs."""

from __future__ import annotations

import importlib.util
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.graph import search as graph_search
from openwiki_git.graph import summary as graph_summary
from openwiki_git.graph.session import GraphSession

_spec = importlib.util.spec_from_file_location("adr_corpus", Path(__file__).parents[1] / "fixtures/adr/corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

ADR = "doc:docs/adr/"
RFC = "doc:docs/rfc/"
SUPERSEDES = {
    ("0011-oidc-single-sign-on-for-kubernetes", "0003-cluster-access-with-static-kubeconfig"),  # MADR front matter
    ("0019-distributed-sql-for-orders", "0002-use-postgresql-for-orders"),  # Nygard section, ADR-19 link text
    ("0012-kafka-for-domain-events", "0004-rabbitmq-as-message-broker"),  # Obsoleted by: 12 / Obsoletes: 4
    ("0013-structured-json-logs", "0005-plain-text-logs"),  # Superseded-By:
    ("0014-feature-flag-service", "0006-feature-flags-in-config-files"),  # Replaced by ADR014 / Replaces ADR-6
    ("0015-svelte-for-the-dashboard", "0007-react-for-the-dashboard"),  # Deprecated in favour of, broken link
    ("0018-vault-for-secrets", "0010-secrets-in-environment-variables"),  # a table row
    ("0021-redis-caching-layer", "0020-memcached-caching-layer"),  # ~~Accepted~~ Superseded by
    ("0026-one-approval-plus-ci", "0025-two-approvals-for-review"),  # Accepted, obsoleted by
    ("0028-utc-timestamps", "0027-local-time-stamps"),  # Obsoleted by
    ("0031-repository-per-service", "0029-monorepo"),  # [ADR031][] reference-style links
    ("0034-email-through-amazon-ses", "0033-email-through-sendgrid"),  # adr-tools: "Superseded", then "See [34. …](…)"
    ("0037-opensearch-for-search", "0036-elasticsearch-for-search"),  # "## Status: Superseded (see …)", "(replaces ADR036)"
}
AMENDS = {
    ("0016-version-sunset-headers", "0008-url-path-api-versioning"),  # Supplemented by
    ("0017-hotfix-lane", "0009-weekly-release-train"),  # Extended by:
    ("0022-cache-eviction-by-event", "0021-redis-caching-layer"),  # superseded in part by
    ("0024-certificate-rotation", "0023-mutual-tls-between-services"),  # Updated by
    ("0035-bounce-handling", "0034-email-through-amazon-ses"),  # Clarified by
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from corpus.built_in_tmp(tmp_path_factory, corpus.build, "adr")


@pytest.fixture(scope="module")
def session(root: Path) -> GraphSession:
    return GraphSession.open(root, use_cache=False)


def _edges(session: GraphSession, etype: str) -> set[tuple[str, str]]:
    return {(s, t) for s, out in session.graph.adj.items() for e, t in out if e == etype}


def test_every_relation_is_found_whatever_its_wording(session: GraphSession) -> None:
    supersedes = _edges(session, "supersedes")
    expected = {(ADR + a + ".md", ADR + b + ".md") for a, b in SUPERSEDES}
    expected.add((RFC + "rfc1240-error-code-names.md", RFC + "rfc1234-error-codes.md"))  # Obsoletes: RFC1234 / Obsoleted by: 1240
    assert supersedes == expected
    amends = _edges(session, "amends")
    expected_amends = {(ADR + a + ".md", ADR + b + ".md") for a, b in AMENDS}
    expected_amends.add((RFC + "rfc1250-retry-after-in-errors.md", RFC + "rfc1240-error-code-names.md"))  # Updates: / Updated by: 1250
    assert amends == expected_amends


def test_ids_are_normalised(session: GraphSession) -> None:
    g = session.graph
    doc = ADR + "0030-trunk-based-development.md"
    assert g.ids_of[doc] == ["ADR-30"]  # adr_0030 alias, ADR030 title, 0030 file name: one id
    for written in ("ADR030", "ADR-30", "ADR-030", "adr_0030", "ADR 30"):
        assert g.resolve_id(written) == doc
    assert g.resolve_id("RFC1234") == RFC + "rfc1234-error-codes.md"
    # A bare "ADR030" and "ADR014" in prose are references.
    refs = {t for e, t in g.edges(ADR + "0031-repository-per-service.md#decision~" + _key(g, "0031", "following ADR030"))}
    assert doc in refs
    assert any(
        t == ADR + "0014-feature-flag-service.md"
        for _, t in g.edges(ADR + "0030-trunk-based-development.md#decision~" + _key(g, "0030", "see ADR014"))
    )


def _key(g: Any, number: str, words: str) -> str:
    owner = next(d for d in g.docs if d.startswith(ADR + number))
    d = g.docs[owner]
    i = next(i for i in range(len(d)) if words in d.text(i))
    return d.key(i).split("~", 1)[1]


def test_links_urls_and_issues(session: GraphSession) -> None:
    g = session.graph
    unresolved = [(u.kind, u.target, u.reason) for u in g.unresolved]
    # The broken link is reported once, with what its text was taken to mean.
    assert unresolved[0][:2] == ("link", "0015-svelte-dashbord.md")
    assert "taken by its text to mean doc:docs/adr/0015-svelte-for-the-dashboard.md" in unresolved[0][2]
    # An unrecognised status wording is reported, not ignored.
    assert unresolved[1][:2] == ("status", "Parked until the budget review") and "unrecognised status wording" in unresolved[1][2]
    assert len(unresolved) == 2  # owner/repo#412 is no file; the GitHub URL and the self link resolve
    sunset = ADR + "0016-version-sunset-headers.md"
    assert ADR + "0008-url-path-api-versioning.md" in {r["id"] for r in graph_summary.detail(g, sunset, set())["references"]}
    logs = ADR + "0013-structured-json-logs.md"
    para = next(f"{logs}#{g.docs[logs].key(i)}" for i in range(len(g.docs[logs])) if "this record" in g.docs[logs].text(i))
    assert ("refers_to", logs) in g.edges(para)  # a link to its own document is kept
    # The reference-style link attaches to the paragraph that uses it, not to the definitions.
    mono = ADR + "0029-monorepo.md"
    d = g.docs[mono]
    users = [
        i
        for i in range(len(d))
        if any(t == ADR + "0031-repository-per-service.md" for e, t in g.edges(f"{mono}#{d.key(i)}") if e == "refers_to")
    ]
    assert [d.text(i)[:25] for i in users] == ["Status: Superseded by [AD"]


def test_results_carry_standing_head_and_text(session: GraphSession) -> None:
    hit = session.locate("how users authenticate to the cluster")["results"][0]
    assert hit["document"] == ADR + "0003-cluster-access-with-static-kubeconfig.md"
    assert hit["superseded"] is True and hit["head"] == ADR + "0011-oidc-single-sign-on-for-kubernetes.md"
    assert hit["text"].startswith("Users authenticate to the cluster")
    amended = session.locate("API versions URL path")["results"][0]
    assert amended["amended"] is True and amended["amended_by"] == [ADR + "0016-version-sunset-headers.md"]
    within = session.locate("kubectl tokens", within="ADR-11")["results"]
    assert within and all(r["id"].startswith(ADR + "0011") for r in within)


def test_expand_gives_context_in_one_call(session: GraphSession) -> None:
    out = session.expand("ADR-7", depth=2)
    node = out["node"]
    assert [p["text"][:20] for p in node["paragraphs"]] == ["Status: Deprecated i", "The operator dashboa"]
    new = next(e["target"] for e in out["edges"] if e["type"] == "superseded_by")
    assert new["id"] == ADR + "0015-svelte-for-the-dashboard.md" and "SvelteKit" in new["text"]
    assert any("SvelteKit" in p["text"] for p in new["paragraphs"])
    small = session.expand("ADR-7", depth=2, max_chars=40)
    assert small["truncated"] is True
    assert sum(len(p["text"]) for p in small["node"]["paragraphs"]) <= 40
    bare = session.expand("ADR-7", depth=0)
    assert "paragraphs" not in bare["node"] and "truncated" not in bare


# -- the evaluation: our fixed policy against plain BM25 over the raw files ---------------------
def ours(session: GraphSession, words: str) -> tuple[str, int]:
    """locate with the question's words; take the first result in a prose document; when that
    document is superseded, follow superseded_by to its end (one call). -> (document, calls)."""
    calls = 1
    hits = session.locate(words)["results"]
    top = next(h for h in hits if (h.get("document") or h["id"]).startswith("doc:"))
    doc = top.get("document") or top["id"]
    if top.get("superseded"):
        calls += 1
        doc = session.expand(doc, edges=["superseded_by"], hops=10, depth=0)["end"]["node"]["id"]
    return doc, calls


_FOLLOW = re.compile(
    r"(?:superseded|replaced|obsoleted)[\s-]+by:?\s*\[?([A-Z]+)?-?0*([0-9]+)|deprecated in favou?r of \[?([A-Z]+)-?0*([0-9]+)",
    re.IGNORECASE,
)


def plain_bm25(root: Path, words: str) -> tuple[str, int]:
    """The baseline: BM25 over the raw files; read the top file's status; while it names a
    successor, open that file (one call each). -> (document, calls)."""
    files = sorted((root / "docs").rglob("*.md"))
    texts = {f: graph_search.tokens(f.read_text("utf-8")) for f in files}
    avg = sum(map(len, texts.values())) / len(texts)
    query = list(dict.fromkeys(graph_search.tokens(words)))
    def score(terms: list[str]) -> float:
        total = 0.0
        for w in query:
            df = sum(1 for t in texts.values() if w in t)
            tf = terms.count(w)
            if tf:
                idf = math.log(1 + (len(texts) - df + 0.5) / (df + 0.5))
                total += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(terms) / avg))
        return total
    current = max(files, key=lambda f: (score(texts[f]), str(f)))
    calls, seen = 1, {current}
    while True:
        m = _FOLLOW.search(current.read_text("utf-8"))
        if not m:
            break
        prefix, number = (m.group(1) or m.group(3) or "ADR").upper(), int(m.group(2) or m.group(4))
        nxt = next((f for f in files if re.search(rf"(?:^|/){number:04d}-|{prefix.lower()}{number}\b", str(f).lower())), None)
        if nxt is None or nxt in seen:
            break
        calls, current = calls + 1, nxt
        seen.add(nxt)
    return "doc:" + str(current.relative_to(root)), calls


def test_which_document_governs_now_in_at_most_two_calls(root: Path, session: GraphSession) -> None:
    ours_calls, base_calls, wrong = [], [], []
    for question, words, expected in corpus.QUESTIONS:
        doc, calls = ours(session, words)
        base_doc, base = plain_bm25(root, words)
        if expected not in session.graph.ids_of.get(doc, []):
            wrong.append((question, doc))
        assert calls <= base, (question, calls, base, base_doc)
        ours_calls.append(calls)
        base_calls.append(base)
    assert wrong == []
    assert sum(ours_calls) / len(ours_calls) <= 2
    assert max(ours_calls) <= 2


def test_check_and_lint_flag_claims_citing_replaced_documents(root: Path) -> None:
    import contextlib
    import io
    import json

    from openwiki_git.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["-C", str(root), "check", "--format", "json"])
    data = json.loads(out.getvalue())
    assert code == 1 and data["summary"]["superseded_sources"] == 2
    flagged = {n["source"]: n for n in data["superseded_sources"]}
    assert flagged["docs/adr/0002-use-postgresql-for-orders.md"]["by"][0]["path"] == "docs/adr/0019-distributed-sql-for-orders.md"
    assert flagged["docs/adr/0008-url-path-api-versioning.md"]["kind"] == "amended"  # dated after the verification
    assert "docs/adr/0009-weekly-release-train.md" not in flagged  # amended in 2020, before it
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["-C", str(root), "lint"])
    assert "superseded-source" in out.getvalue() and "superseded by docs/adr/0019-distributed-sql-for-orders.md" in out.getvalue()


def test_the_graph_flags_a_claim_citing_a_superseded_document(session: GraphSession) -> None:
    hits = session.locate("single PostgreSQL primary replicas")
    claim = next(h for h in hits["results"] if h["kind"] == "claim")
    assert claim["status"] == "fresh" and claim["stale"] is True and claim["id"] in hits["stale_claims"]
    assert claim["cited_documents"] == [
        {
            "document": ADR + "0002-use-postgresql-for-orders.md",
            "standing": "superseded",
            "by": [ADR + "0019-distributed-sql-for-orders.md"],
            "head": ADR + "0019-distributed-sql-for-orders.md",
        }
    ]
    current = next(h for h in session.locate("CockroachDB regions")["results"] if h["kind"] == "claim")
    assert current["stale"] is False and "cited_documents" not in current


def test_the_pr_comment_names_the_replacing_document(root: Path) -> None:
    from openwiki_git.github import comment as ghcomment
    from openwiki_git.github import render as ghactions
    from openwiki_git.services.check_chain import ci_report
    from openwiki_git.store.workspace import Workspace

    data = ci_report(Workspace.open(root), "HEAD~1", "HEAD")
    assert {n["source"] for n in data["superseded_sources"]} == {
        "docs/adr/0002-use-postgresql-for-orders.md", "docs/adr/0008-url-path-api-versioning.md"
    }
    body = ghcomment.render_comment(data, ghactions.Links("https://github.com", "harbor/platform", data["head"], None))
    assert "superseded by docs/adr/0019-distributed-sql-for-orders.md" in body


def test_tool_errors_speak_the_tools_language(root: Path) -> None:
    from openwiki_git.agents.service import GraphService

    service = GraphService(root)
    err = service.call("expand", node="ADR-7", edges=["superseded_by", "amends"], hops=3)
    assert "--" not in err["error"] + err["hint"] and "edges" in err["hint"]
    assert "error" in service.call("locate", terms="x", limit="many")
    assert "error" in service.call("locate", terms=["not", "a", "string"])


def test_the_standing_of_documents_is_cached_by_their_stat(root: Path) -> None:
    from openwiki_git.graph import build as graph_build
    from openwiki_git.graph import doc_standing
    from openwiki_git.store.workspace import Workspace

    ws = Workspace.open(root)
    wanted = {"docs/adr/0002-use-postgresql-for-orders.md", "docs/adr/0019-distributed-sql-for-orders.md"}
    first = doc_standing.document_standing(ws, wanted)
    assert first == {
        "docs/adr/0002-use-postgresql-for-orders.md": {
            "superseded_by": [("docs/adr/0019-distributed-sql-for-orders.md", "ADR-0019: Distributed SQL for orders")]
        }
    }
    cache = ws.repo.git_dir / graph_build.CACHE_DIR / doc_standing.STANDING_NAME
    assert cache.is_file()
    # A new decision superseding ADR-0019 is seen at once (its stat is new: never the cached table).
    (root / "docs/adr/0033-yugabyte.md").write_text("# ADR-0033: YugabyteDB\n\nSupersedes ADR-0019.\n", "utf-8")
    later = doc_standing.document_standing(ws, wanted)
    assert later["docs/adr/0019-distributed-sql-for-orders.md"]["superseded_by"][0][0] == "docs/adr/0033-yugabyte.md"
    (root / "docs/adr/0033-yugabyte.md").unlink()


def test_the_text_index_is_cached_with_the_graph(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from openwiki_git.caches import statkey
    from openwiki_git.graph import build as graph_build
    from openwiki_git.graph import context as graph_context
    from openwiki_git.graph import session as graph_session

    monkeypatch.setattr(statkey, "RACY_NS", 50_000_000)  # git's racy window, 50 ms instead of 2 s
    time.sleep(0.1)
    first = GraphSession.open(root)
    top = first.locate("kubeconfig certificate")["results"][0]["id"]
    assert first.info.key is not None
    assert (root / ".git" / graph_build.CACHE_DIR / graph_session.TEXT_NAME).is_file()

    def refuse(self: object, g: object) -> None:
        raise AssertionError("the text index was built again")

    monkeypatch.setattr(graph_context.TextIndex, "__init__", refuse)
    again = GraphSession.open(root)
    assert again.info.cached is True
    assert again.locate("kubeconfig certificate")["results"][0]["id"] == top


def test_graph_exports_its_edges(root: Path) -> None:
    import contextlib
    import io
    import json

    from openwiki_git.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-C", str(root), "graph", "--edges", "--format", "json", "--no-cache"]) == 0
    data = json.loads(out.getvalue())
    edges = {(e["source"], e["type"], e["target"]) for e in data["edge_list"]}
    assert (ADR + "0019-distributed-sql-for-orders.md", "supersedes", ADR + "0002-use-postgresql-for-orders.md") in edges
    assert sum(1 for e in data["edge_list"] if e["type"] != "contains") == data["total_edges"] - data["edges"]["contains"]
    assert len(data["edge_list"]) == data["total_edges"]


def test_mcp_without_the_sdk_is_a_clear_usage_error(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from openwiki_git.cli.main import main

    for name in [m for m in sys.modules if m == "mcp" or m.startswith("mcp.")] or ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the SDK were not installed
    monkeypatch.delitem(sys.modules, "openwiki_git.agents.mcp_server", raising=False)
    assert main(["-C", str(root), "mcp"]) == 2
    assert "pip install 'openwiki-git[mcp]'" in capsys.readouterr().err


def test_misspellings_deprecated_by_and_ids_in_file_names() -> None:
    from openwiki_git.graph import documents as graph_documents
    from openwiki_git.markdown import split as mdsplit

    def relations(text: str) -> list[tuple[str, str]]:
        return [(r.type, r.ref.target) for r in mdsplit.split(text, "docs/adr/0001-x.md").relations if r.type != "status"]

    assert relations("# A\n\nStatus: Superceded by ADR-0005\n") == [("superseded_by", "ADR-0005")]
    assert relations("# A\n\nSuperseeded by [ADR-6](0006-y.md)\n") == [("superseded_by", "0006-y.md")]
    assert relations("# A\n\n* Status: deprecated by ADR-0007\n") == [("superseded_by", "ADR-0007")]
    assert relations("# A\n\nThis decision supercedes ADR-0002.\n") == [("supersedes", "ADR-0002")]
    d = mdsplit.split("# Use Postgres\n\ntext\n", "docs/architecture/adr-012-use-postgres.md")
    assert graph_documents.doc_ids(d) == ["ADR-12"]


def test_a_warm_check_flags_them_as_the_uncached_check_does(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check cache keeps a page's verdicts, but what replaces a document is said in other
    documents: the fast answer still lists the claims citing a replaced document, exactly as
    `--no-cache` does."""
    import contextlib
    import io

    from openwiki_git.caches import check_entries as checkcache
    from openwiki_git.caches import statkey
    from openwiki_git.cli.main import main

    monkeypatch.setattr(statkey, "RACY_NS", 0)  # files written before a run may be cached at once
    answered: list[object] = []
    real = checkcache.answer
    monkeypatch.setattr(checkcache, "answer", lambda *a: answered.append(real(*a)) or answered[-1])

    def check(*extra: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["-C", str(root), "check", *extra])
        return code, out.getvalue()

    reference = check("--format", "json", "--no-cache")
    for _ in range(2):
        assert check("--format", "json") == reference
    assert answered[-1] is not None  # the last run was the fast answer
    code, text = check()
    assert code == 1 and "superseded by docs/adr/0019-distributed-sql-for-orders.md" in text
    assert "citing a superseded or amended document" in text.splitlines()[-1]


def test_expand_of_a_claim_citing_a_superseded_document_says_so(root: Path) -> None:
    """`expand` (text and JSON) carries the notice `check` reports, naming the superseding document."""
    import contextlib
    import io
    import json

    from openwiki_git.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-C", str(root), "check", "--format", "json"]) == 1
    checked = json.loads(out.getvalue())
    (flagged,) = [n for n in checked["superseded_sources"] if n["kind"] == "superseded"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-C", str(root), "expand", flagged["id"], "--depth", "0", "--format", "json"]) == 0
    node = json.loads(out.getvalue())["node"]
    assert node["stale"] is True
    assert node["cites_superseded"] == [{k: flagged[k] for k in ("source", "kind", "by", "note")}]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-C", str(root), "expand", flagged["id"], "--depth", "0"]) == 0
    assert flagged["note"] in out.getvalue()
    assert "superseded by docs/adr/0019-distributed-sql-for-orders.md" in out.getvalue()
