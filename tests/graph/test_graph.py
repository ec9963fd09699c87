"""The evidence graph, pure: built from in-memory documents, sidecars and check results."""

from __future__ import annotations

from typing import Any

import pytest

from openwiki_git.errors import UsageError
from openwiki_git.graph import core as graph
from openwiki_git.graph import expand as graph_expand
from openwiki_git.graph import link as graph_link
from openwiki_git.graph import locate as graph_locate
from openwiki_git.graph import summary as graph_summary
from openwiki_git.markdown import split as mdsplit
from openwiki_git.model import Claim, ClaimResult, Evidence, EvidenceResult, Sidecar
from tests.support.samples import graph_state as _state

TOKEN = "repo-lines-v1:sha256:" + "0" * 64 + ":e30"
C1 = "claim_" + "1" * 32
C2 = "claim_" + "2" * 32

DOCS = {
    "docs/adr/0001-a.md": "# ADR-0001: Fixed delay\n\nStatus: Superseded by ADR-0002\n\n## Decision\n\nWait five seconds.\n",
    "docs/adr/0002-b.md": "# ADR-0002: Exponential backoff\n\nSupersedes ADR-0001.\n\nSee [the guide](../guide.md#limits).\n",
    "docs/adr/0003-c.md": "---\nsupersedes: ADR-0002\n---\n# ADR-0003: Full jitter\n\nAmends ADR-0004.\n",
    "docs/adr/0004-d.md": "# ADR-0004: Retry budget\n\nSee \"Guide\" and see docs/guide.md.\n",
    "docs/guide.md": "# Guide\n\n## Limits\n\nAt most six attempts (ADR-0003). UTF-8 is not an id.\n",
    "docs/appendix.md": "---\nattaches_to: ADR-0003\n---\n# Appendix\n\nMeasurements.\n",
}
PAGES = {
    "retries.md": (
        "---\ntype: Concept\ntitle: Retries\n---\n\n# Retries\n\n## Policy\n\n"
        f"Retries use full jitter.[^c-{C1[6:14]}] See ADR-0003.\n\nStale bit.[^c-{C2[6:14]}]\n"
    ),
}


def result(claim: Claim, status: str) -> ClaimResult:
    ev = tuple(EvidenceResult(e.resource, status, e.resource, "changed" if status != "fresh" else "unchanged") for e in claim.evidence)  # type: ignore[arg-type]
    return ClaimResult("retries.md", claim, status, ev)  # type: ignore[arg-type]


def build(docs: dict[str, str] = DOCS, pages: dict[str, str] = PAGES, **extra: Any) -> graph.Graph:
    c1 = Claim(C1, "Retries use full jitter.", (Evidence("repo://src/retry.py#L3-L5", TOKEN),))
    c2 = Claim(C2, "Stale bit.", (Evidence("repo://src/retry.py#L3-L5", TOKEN), Evidence("repo://src/other.py#L1-L1", TOKEN)))
    sidecars = {"retries.md": Sidecar("retries.md", "sha256:" + "0" * 64, (c1, c2))}
    return graph_link.build(
        docs=[mdsplit.split(t, p) for p, t in docs.items()],
        pages=[(p, mdsplit.split(t, f".openwiki/{p}")) for p, t in pages.items()],
        sidecars=extra.get("sidecars", sidecars),
        results=extra.get("results", {C1: result(c1, "fresh"), C2: result(c2, "stale")}),
        files=extra.get("files", {"src/retry.py", "src/other.py", "docs/guide.md"}),
        wiki_dir=".openwiki",
    )


def all_edges(g: graph.Graph) -> set[tuple[str, str, str]]:
    return {(n, t, m) for n in g.ids() for t, m in g.edges(n)}


def test_every_edge_has_its_inverse_and_every_target_exists() -> None:
    g = build()
    edges = all_edges(g)
    assert edges
    for src, etype, dst in edges:
        assert (dst, graph.INVERSE[etype], src) in edges
        assert g.node(dst) is not None, dst


def test_typed_relations() -> None:
    g = build()
    rel = {(s, t, d) for s, t, d in all_edges(g) if t in ("supersedes", "amends", "attaches_to")}
    assert rel == {
        ("doc:docs/adr/0002-b.md", "supersedes", "doc:docs/adr/0001-a.md"),
        ("doc:docs/adr/0003-c.md", "supersedes", "doc:docs/adr/0002-b.md"),
        ("doc:docs/adr/0003-c.md", "amends", "doc:docs/adr/0004-d.md"),
        ("doc:docs/appendix.md", "attaches_to", "doc:docs/adr/0003-c.md"),
    }
    assert g.unresolved == []


def test_claims_spans_files_and_markers() -> None:
    g = build()
    para = next(n for n in g.ids() if n.startswith("page:retries.md#policy~") and C1 in {m for _, m in g.edges(n)})
    assert set(g.edges(para, ["asserts"])) == {("asserts", C1)}
    assert g.edges(C1, ["cites"]) == [("cites", "repo://src/retry.py#L3-L5")]
    assert g.edges("repo://src/retry.py#L3-L5", ["cites"]) == [("cites", "repo://src/retry.py")]
    assert {m for _, m in g.edges("repo://src/retry.py#L3-L5", ["cited_by"])} == {C1, C2}
    span = graph_summary.summary(g, "repo://src/retry.py#L3-L5")
    assert span["status"] == "stale" and span["lines"] == [3, 5]  # the worst of the claims citing it


def test_references_resolve_to_sections_titles_and_files() -> None:
    g = build()
    refs = {(s.split("#")[0], d) for s, t, d in all_edges(g) if t == "refers_to"}
    assert ("doc:docs/adr/0002-b.md", "doc:docs/guide.md#limits") in refs  # link with an anchor
    assert ("doc:docs/adr/0004-d.md", "doc:docs/guide.md") in refs  # a quoted title and a path
    assert ("page:retries.md", "doc:docs/adr/0003-c.md") in refs  # an identifier from a page


@pytest.mark.parametrize(
    ("doc", "kind", "target", "reason"),
    [
        pytest.param("See ADR-0099.", "id", "ADR-0099", "no page or document has the id ADR-99", id="unknown-id"),
        pytest.param("[x](missing.md)", "link", "missing.md", "docs/missing.md: no such tracked file", id="missing-file"),
        pytest.param("[x](guide.md#nope)", "link", "guide.md#nope", "no heading #nope in docs/guide.md", id="missing-anchor"),
        pytest.param('See "Nothing Here".', "see", "Nothing Here", "no page or document titled 'Nothing Here'", id="title"),
        pytest.param("[x](../../etc/passwd)", "link", "../../etc/passwd", "points outside the repository", id="outside"),
        pytest.param(
            "Superseded by src/retry.py", "superseded_by", "src/retry.py", "superseded by must name a page or document", id="not-a-doc"
        ),
    ],
)
def test_unresolved_references_are_reported(doc: str, kind: str, target: str, reason: str) -> None:
    g = build({**DOCS, "docs/broken.md": f"# Broken\n\n{doc}\n"}, files={"src/retry.py", "docs/guide.md"})
    found = [u for u in g.unresolved if u.source.startswith("doc:docs/broken.md")]
    assert [(u.kind, u.target, u.reason) for u in found] == [(kind, target, reason)]


def test_unknown_prefixes_and_self_references_are_not_references() -> None:
    g = build()
    assert not [u for u in g.unresolved if "UTF" in u.target]
    assert ("refers_to", "doc:docs/adr/0001-a.md") not in g.edges("doc:docs/adr/0001-a.md#~" + "x")


def test_marker_without_claim_is_unresolved() -> None:
    pages = {"retries.md": PAGES["retries.md"] + "\nOrphan.[^c-deadbeef]\n"}
    g = build(pages=pages)
    assert [(u.kind, u.target) for u in g.unresolved] == [("marker", "[^c-deadbeef]")]


def test_ambiguous_title_prefers_the_same_kind() -> None:
    docs = {**DOCS, "docs/retries.md": "# Retries\n\nDocs about retries.\n", "docs/x.md": '# X\n\nSee "Retries".\n'}
    pages = {**PAGES, "ops.md": '---\ntype: Guide\n---\n# Ops\n\nSee "Retries".\n'}
    g = build(docs, pages)
    assert ("refers_to", "doc:docs/retries.md") in g.edges(next(n for n in g.ids() if n.startswith("doc:docs/x.md#~")))
    assert ("refers_to", "page:retries.md") in g.edges(next(n for n in g.ids() if n.startswith("page:ops.md#~")))


def test_walk_follows_a_single_path_and_stops() -> None:
    g = build()
    out = graph_expand.expand(g, "ADR-0001", edges=["superseded_by"], hops=5)
    assert [p["id"] for p in out["path"]] == ["doc:docs/adr/0001-a.md", "doc:docs/adr/0002-b.md", "doc:docs/adr/0003-c.md"]
    assert out["stopped"] == "end"
    assert out["end"]["node"]["id"] == "doc:docs/adr/0003-c.md"
    assert out["start"]["superseded_by"] == ["doc:docs/adr/0002-b.md"]
    one = graph_expand.expand(g, "ADR-0001", edges=["superseded_by"], hops=1)
    assert "path" not in one and one["edges"][0]["target"]["id"] == "doc:docs/adr/0002-b.md"


def test_walk_stops_at_a_branch_and_at_the_hop_limit() -> None:
    g = build()
    out = graph_expand.expand(g, "ADR-0003", edges=["referred_by"], hops=3)
    assert out["stopped"] == "branch" and len(out["path"]) == 1 and len(out["branches"]) == 2
    out = graph_expand.expand(g, "doc:docs/adr/0003-c.md", edges=["supersedes"], hops=1 + 1)
    assert out["stopped"] == "end" and [p["id"][-9:] for p in out["path"]] == ["0003-c.md", "0002-b.md", "0001-a.md"]
    out = graph_expand.expand(g, "doc:docs/adr/0003-c.md", edges=["supersedes"], hops=1 + 0)
    assert "path" not in out
    docs = {**DOCS, "docs/adr/0005-e.md": "# ADR-0005: E\n\nSupersedes ADR-0003.\n"}
    out = graph_expand.expand(build(docs), "ADR-0005", edges=["supersedes"], hops=2)
    assert out["stopped"] == "hops" and [p["id"][-9:] for p in out["path"]] == ["0005-e.md", "0003-c.md", "0002-b.md"]


def test_walk_detects_cycles() -> None:
    docs = {
        "docs/adr/0001-a.md": "# ADR-0001: A\n\nSupersedes ADR-0002.\n",
        "docs/adr/0002-b.md": "# ADR-0002: B\n\nSupersedes ADR-0001.\n",
    }
    g = build(docs, {}, sidecars={}, results={})
    out = graph_expand.expand(g, "ADR-0001", edges=["supersedes"], hops=10)
    assert out["stopped"] == "cycle" and len(out["path"]) == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"edges": ["cites", "asserts"], "hops": 2}, "walks one edge type", id="two-types"),
        pytest.param({"hops": 3}, "walks one edge type", id="no-type"),
        pytest.param({"edges": ["nope"]}, "unknown edge type", id="unknown-type"),
        pytest.param({"hops": 0}, "at least 1", id="zero-hops"),
    ],
)
def test_expand_usage_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        graph_expand.expand(build(), "ADR-0001", **kwargs)


def test_resolve_id_shorthands() -> None:
    g = build()
    assert g.resolve_id("adr-1") == "doc:docs/adr/0001-a.md"
    assert g.resolve_id(f"c-{C1[6:14]}") == C1
    assert g.resolve_id(C2[:16]) == C2
    assert g.resolve_id("docs/guide.md") == "doc:docs/guide.md"
    assert g.resolve_id("retries.md") == "page:retries.md"
    assert g.resolve_id("src/retry.py") == "repo://src/retry.py"
    with pytest.raises(UsageError, match="not in the graph"):
        g.resolve_id("doc:docs/guide.mdx")


def test_locate_ranks_with_bm25_and_breaks_ties_by_id() -> None:
    g = build()
    out = graph_locate.locate(g, "exponential backoff")
    assert out["results"][0]["id"] == "doc:docs/adr/0002-b.md"
    assert out["terms"] == ["exponential", "backoff"]
    ties = graph_locate.locate(g, "retries")["results"]
    scores = [r["score"] for r in ties]
    assert scores == sorted(scores, reverse=True)
    for a, b in zip(ties, ties[1:]):
        assert a["score"] > b["score"] or a["id"] < b["id"]
    assert graph_locate.locate(g, "retries") == graph_locate.locate(g, ["retries"])


def test_locate_within_and_limit() -> None:
    g = build()
    inside = graph_locate.locate(g, "limits decision", within="docs/guide.md")["results"]
    assert [r["id"] for r in inside] == ["doc:docs/guide.md#limits"]
    assert len(graph_locate.locate(g, "adr", limit=2)["results"]) == 2
    with pytest.raises(UsageError):
        graph_locate.locate(g, "the of and")


def test_stale_claims_are_flagged_in_every_result() -> None:
    g = build()
    hit = graph_locate.locate(g, "stale bit")
    assert hit["results"][0]["id"] == C2 and hit["results"][0]["stale"] is True
    assert hit["stale_claims"] == [C2]
    para = next(n for n in g.ids() if C2 in {m for t, m in g.edges(n) if t == "asserts"})
    out = graph_expand.expand(g, para)
    assert out["stale_claims"] == [C2]
    assert {c["id"]: c["stale"] for c in out["node"]["claims"]} == {C2: True}
    walk = graph_expand.expand(g, "repo://src/retry.py#L3-L5", edges=["cited_by"], hops=2)
    assert walk["stopped"] == "branch" and walk["stale_claims"] == [C2]
    fresh = graph_expand.expand(g, C1)
    assert fresh["node"]["stale"] is False and fresh["stale_claims"] == []


def test_unchecked_claims_are_not_called_fresh() -> None:
    g = build(results={})
    assert graph_summary.summary(g, C1)["status"] == "unchecked" and graph_summary.summary(g, C1)["stale"] is True


def test_counts() -> None:
    c = build().counts()
    assert c["nodes"]["doc"] == 6 and c["nodes"]["page"] == 1 and c["nodes"]["claim"] == 2
    assert c["nodes"]["span"] == 2 and c["nodes"]["file"] >= 2
    assert c["edges"]["supersedes"] == 2 and c["edges"]["asserts"] == 2 and c["unresolved"] == 0


def test_batched_tokenising_matches_tokens() -> None:
    """graph_search.term_stream tokenises many texts at once (joined, translated, split); it
    gives what `tokens` gives text by text, non-ASCII, final sigma, NUL and stop words included."""
    import random

    from openwiki_git.graph import search as graph_search

    rng = random.Random(3)
    pieces = ["Σ", "ς", "ΟΔΟΣ", "A", "b", " ", "ies", "ss", "'", "00", "12", "_", "-", "İ", "ß", "ﬁ", "the", "of",
              "\u00a0", "—", "\t", "é", "x_y", "²", "٣", " is ", "Queues", "\0", "\ud800"]
    for _ in range(3000):
        texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 20))) for _ in range(rng.randint(0, 30))]
        if rng.random() < 0.5:
            texts = [t.replace("\0", "").replace("\ud800", "") for t in texts]
        expected = [t for text in texts for t in (*graph_search.tokens(text), "\0")]
        assert graph_search.term_stream(texts) == expected


def test_a_rebuild_from_the_previous_graph_equals_a_fresh_build() -> None:
    """graph_link replays what did not change (claims read off the previous graph, unchanged
    documents' reference logs) and redoes the rest: the result is the fresh build's, node order,
    edge order and unresolved list included, whatever changed."""
    c1 = Claim(C1, "Retries use full jitter.", (Evidence("repo://src/retry.py#L3-L5", TOKEN),))
    c2 = Claim(C2, "Stale bit.", (Evidence("repo://src/retry.py#L3-L5", TOKEN), Evidence("repo://src/other.py#L1-L1", TOKEN)))
    sidecars = {
        "retries.md": Sidecar("retries.md", "sha256:" + "0" * 64, (c1, c2)),
        "gone.md": Sidecar("gone.md", "sha256:" + "1" * 64, ()),
    }
    docs = {p: mdsplit.split(t, p) for p, t in DOCS.items()}
    pages = {p: mdsplit.split(t, f".openwiki/{p}") for p, t in PAGES.items()}
    files = {"src/retry.py", "src/other.py", "docs/guide.md"}

    def make(results: dict[str, ClaimResult], previous: graph.Graph | None = None, unchanged: Any = (), **kw: Any) -> graph.Graph:
        return graph_link.build(
            docs=list(docs.values()), pages=list(pages.items()), sidecars=kw.get("sidecars", sidecars), results=results,
            files=files, wiki_dir=".openwiki", previous=previous, unchanged=unchanged,
        )

    results = {C1: result(c1, "fresh"), C2: result(c2, "stale")}
    g = make(results)
    edits = [
        ("docs/guide.md", "\n\nSee ADR-0001 and [b](adr/0002-b.md).\n"),
        ("docs/adr/0004-d.md", "\n\n## Limits\n\nSuperseded by ADR-0003.\n"),  # a new heading: the context changes
        ("docs/appendix.md", "\n\nplain words\n"),
    ]
    for path, text in edits:
        docs[path] = mdsplit.split(DOCS[path] + text, path)
        assert _state(make(results, g, sidecars=None)) == _state(make(results))  # claims as before
        if path.endswith("d.md"):  # new check results: same shape, new claim and span data
            results = {C1: result(c1, "stale"), C2: result(c2, "fresh")}
        again = make(results, g, unchanged=set(sidecars))
        assert _state(again) == _state(make(results))
        g = again
    pages["retries.md"] = mdsplit.split(PAGES["retries.md"] + "\nMore.[^c-" + C2[6:14] + "]\n", ".openwiki/retries.md")
    assert _state(make(results, g, unchanged={"gone.md"})) == _state(make(results))


def test_a_definition_cites_its_file_and_a_set_every_member() -> None:
    from openwiki_git.evidence.kinds import FileSet, GrepSet, Symbol, def_version, set_version

    sym = Evidence(Symbol("src/retry.py", "Retry.wait").canonical, def_version("def wait(): ...\n"))
    files = Evidence(FileSet("src/*.py").canonical, set_version(["src/other.py", "src/retry.py"]))
    lines = Evidence(GrepSet("src/*.py", "raise").canonical, set_version([["src/other.py", "raise A"], ["src/other.py", "raise B"]]))
    c1 = Claim(C1, "Retries use full jitter.", (sym, files))
    c2 = Claim(C2, "Stale bit.", (lines,))
    g = build(sidecars={"retries.md": Sidecar("retries.md", "sha256:" + "0" * 64, (c1, c2))},
              results={C1: result(c1, "fresh"), C2: result(c2, "stale")})
    assert {m for _, m in g.edges(C1, ["cites"])} == {"repo://src/retry.py", "repo://src/other.py"}
    assert g.edges(C2, ["cites"]) == [("cites", "repo://src/other.py")]
    for _, _, dst in all_edges(g):  # no dangling edge to a resource without a node
        assert g.node(dst) is not None, dst
