"""The evidence graph over the fixture corpus (tests/fixtures/graph: 36 documents with references,
supersession and amendment chains, and a wiki of 8 pages with 17 claims over fixture sources),
built in a real git repository with real version tokens."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openwiki_git.caches import statkey
from openwiki_git.cli.main import main
from openwiki_git.graph import build as graph_build
from openwiki_git.graph import core as graph
from openwiki_git.graph import doc_standing
from openwiki_git.graph import expand as graph_expand
from openwiki_git.graph import locate as graph_locate
from openwiki_git.graph import session as graph_session
from openwiki_git.graph import split as graph_split
from openwiki_git.graph import summary as graph_summary
from openwiki_git.store.workspace import Workspace

_spec = importlib.util.spec_from_file_location("graph_corpus", Path(__file__).parents[1] / "fixtures/graph/corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """The corpus repository, built once for the module (in an isolated git environment)."""
    ids: dict[str, str] = {}
    repo = corpus.built_in_tmp(tmp_path_factory, lambda path: ids.update(corpus.build(path)), "corpus")
    try:
        yield next(repo), ids
    finally:
        repo.close()  # leaves the isolated environment


@pytest.fixture
def copy(built: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A private copy of the corpus repository, for tests that change it."""
    root, ids = built
    dest = tmp_path / "repo"
    shutil.copytree(root, dest, symlinks=True)
    return dest, ids


def cli(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["-C", str(root), *argv])
    return code, out.getvalue(), err.getvalue()


def cli_json(root: Path, *argv: str) -> Any:
    code, out, err = cli(root, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def load(root: Path, **kwargs: Any) -> tuple[graph.Graph, graph_build.BuildInfo]:
    return graph_build.load(Workspace.open(root), **kwargs)


def test_every_explicit_reference_resolves(built: tuple[Path, dict[str, str]]) -> None:
    root, _ = built
    code, out, _ = cli(root, "graph", "--unresolved")
    assert code == 0, out
    assert "0 unresolved reference(s)" in out
    data = cli_json(root, "graph", "--unresolved")
    assert data["unresolved"] == []
    assert data["nodes"]["doc"] == 36 and data["nodes"]["page"] == 8 and data["nodes"]["claim"] == 17
    assert data["edges"]["refers_to"] > 100 and data["edges"]["asserts"] == 17


def test_supersession_amendment_and_attachment_chains(built: tuple[Path, dict[str, str]]) -> None:
    g, _ = load(built[0])
    adr = "doc:docs/adr/"
    typed = {
        (s.removeprefix(adr), t, d.removeprefix(adr))
        for s in g.nodes
        for t, d in g.edges(s)
        if t in ("supersedes", "amends", "attaches_to")
    }
    assert typed == {
        ("0008-exponential-backoff.md", "supersedes", "0003-retry-with-fixed-delay.md"),
        ("0015-jittered-backoff.md", "supersedes", "0008-exponential-backoff.md"),
        ("0011-sessions-in-redis.md", "supersedes", "0004-store-sessions-in-memory.md"),
        ("doc:docs/rfc/0003-weighted-fair-queues.md", "supersedes", "doc:docs/rfc/0002-priority-queues.md"),
        ("0012-rate-limit-bursts.md", "amends", "0007-rate-limit-per-client.md"),
        ("0013-deprecate-v1-api.md", "amends", "0006-version-the-api-in-the-url.md"),
        ("0014-session-ttl.md", "amends", "0011-sessions-in-redis.md"),
        ("attachments/0015-backoff-benchmark.md", "attaches_to", "0015-jittered-backoff.md"),
        ("attachments/0011-redis-sizing.md", "attaches_to", "0011-sessions-in-redis.md"),
    }


def test_every_edge_has_its_inverse(built: tuple[Path, dict[str, str]]) -> None:
    g, _ = load(built[0])
    edges = {(n, t, m) for n in g.ids() for t, m in g.edges(n)}
    assert len(edges) == 2 * g.counts()["total_edges"]  # every edge once each way
    missing = [(n, t, m) for n, t, m in edges if (m, graph.INVERSE[t], n) not in edges]
    assert missing == []
    assert all(g.node(m) is not None for _, _, m in edges)
    kinds = {g.node(n).kind for n, _, _ in edges}  # type: ignore[union-attr]
    assert kinds == set(graph.KINDS)


QUERIES = [
    ("locate", "fixed retry delay"),
    ("locate", "session expire"),
    ("locate", "rate limit per client"),
    ("locate", "drain queue"),
    ("locate", "priority queues"),
    ("expand", "ADR-0003", "--edges", "superseded_by", "--hops", "5"),
    ("expand", "docs/adr/0015-jittered-backoff.md"),
    ("expand", "RFC-2", "--edges", "superseded_by", "--hops", "3"),
]


def evidence_answers(root: Path, *extra: str) -> list[Any]:
    answers = [cli_json(root, *q, *extra) for q in QUERIES]
    for hit in answers[1]["results"][:3]:  # and every claim a query reached, with its cited lines
        answers.append(cli_json(root, "expand", hit["id"], *extra))
    return answers


def test_the_same_query_returns_the_same_evidence_every_run(built: tuple[Path, dict[str, str]]) -> None:
    root, _ = built
    cold = evidence_answers(root, "--no-cache")
    warm_1 = evidence_answers(root)
    warm_2 = evidence_answers(root)
    assert cold == warm_1 == warm_2
    # Other processes, other hash seeds: set iteration order must not leak into any answer.
    outs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        script = (
            "import json, sys; from openwiki_git.graph.session import GraphSession as S; s = S.open(sys.argv[1]); "
            "print(json.dumps([s.locate('retry backoff jitter'), s.expand('ADR-0003', edges=['superseded_by'], hops=9),"
            " s.locate('session'), s.expand('ADR-0015')], sort_keys=True))"
        )
        proc = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        outs.add(proc.stdout)
    assert len(outs) == 1


def test_stale_claim_is_flagged(built: tuple[Path, dict[str, str]]) -> None:
    root, ids = built
    stale_id = ids["Session keys start with the prefix `sess:`."]
    hit = cli_json(root, "locate", "session", "key", "prefix")
    assert hit["results"][0]["id"] == stale_id
    assert hit["results"][0]["stale"] is True and hit["stale_claims"] == [stale_id]
    page = cli_json(root, "expand", "sessions.md", "--edges", "contains")
    section = next(e["target"]["id"] for e in page["edges"] if e["target"]["label"] == "Storage")
    paragraphs = cli_json(root, "expand", section, "--edges", "contains")
    assert paragraphs["stale_claims"] == [stale_id]
    code, out, _ = cli(root, "expand", stale_id)
    assert code == 0 and "⚠ STALE (stale)" in out and 'KEY_PREFIX = "session:"' in out


SMALL_WINDOW_NS = 50_000_000


@pytest.fixture
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 50 ms racy window (git's rule, statkey.RACY_NS) instead of 2 s; `settle` waits it out."""
    monkeypatch.setattr(statkey, "RACY_NS", SMALL_WINDOW_NS)


def settle() -> None:
    time.sleep(2 * SMALL_WINDOW_NS / 1e9)


def test_cache_lives_under_the_git_dir_and_is_incremental(copy: tuple[Path, dict[str, str]], small_window: None) -> None:
    root, ids = copy
    settle()
    g1, first = load(root)
    assert not first.cached and first.split == 44
    assert Path(first.cache_path).parent == root / ".git" / "openwiki-git"
    assert subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout == ""
    _, second = load(root)
    assert second.cached
    doc = root / "docs/faq.md"
    doc.write_text(doc.read_text("utf-8") + "\nAnother answer; see ADR-0010.\n", "utf-8")
    settle()
    g3, third = load(root)
    assert (third.cached, third.split, third.sidecars_read, third.files_checked) == (False, 1, 0, 0)
    assert ("refers_to", "doc:docs/adr/0010-dead-letter-queue.md") in {
        e for n in g3.ids() if n.startswith("doc:docs/faq.md#") for e in g3.edges(n)
    }
    src = root / "src/ferry/db.py"
    src.write_text(src.read_text("utf-8").replace("POOL_MAX = 20", "POOL_MAX = 50"), "utf-8")
    settle()
    g4, fourth = load(root)
    assert (fourth.split, fourth.files_checked) == (0, 1)
    assert graph_summary.summary(g4, ids["The connection pool grows to at most 20 connections."])["stale"] is True
    assert g1.counts()["total_nodes"] < g3.counts()["total_nodes"]


def test_racy_inputs_are_never_taken_from_the_cache(copy: tuple[Path, dict[str, str]], small_window: None) -> None:
    """git's racy rule: a file changed less than RACY_NS before a load may change again in the
    same timestamp tick without its stat showing it, so nothing is reused for it; once it is
    older than that, it is."""
    root, ids = copy
    settle()
    load(root)
    doc, src = root / "docs/faq.md", root / "src/ferry/db.py"
    doc.write_text(doc.read_text("utf-8") + "\nAnother answer; see ADR-0010.\n", "utf-8")
    src.write_text(src.read_text("utf-8").replace("POOL_MAX = 20", "POOL_MAX = 50"), "utf-8")
    for _ in range(2):  # racy: split and checked again each time
        _, info = load(root)
        assert (info.cached, info.split, info.files_checked) == (False, 1, 1)
    # A same-size edit that keeps the mtime, within the window: seen all the same.
    stat = src.stat()
    src.write_text(src.read_text("utf-8").replace("POOL_MAX = 50", "POOL_MAX = 20"), "utf-8")
    os.utime(src, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    g, _ = load(root)
    assert graph_summary.summary(g, ids["The connection pool grows to at most 20 connections."])["stale"] is False
    settle()
    load(root)
    assert load(root)[1].cached


def test_splitting_in_two_processes_builds_the_same_graph(
    copy: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch, small_window: None
) -> None:
    """graph_split forks a child for large inputs only; forced here on the small corpus, with
    and without the claims' check and on an incremental rebuild, the graph is the one built in a
    single process (nodes, edges in order, unresolved, tables, index)."""
    from tests.support.samples import graph_state as _state

    root, _ = copy
    forks = []
    start = graph_split.start_shared
    monkeypatch.setattr(graph_split, "start_shared", lambda count, work, valid: (forks.append(count), start(count, work, valid))[1])
    serial = [_state(load(root, use_cache=False, check=check)[0]) for check in (True, False)]
    assert forks == []
    monkeypatch.setattr(graph_split, "PARALLEL_MIN_CHARS", 1)
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # whatever other tests left running
    forked = [_state(load(root, use_cache=False, check=check)[0]) for check in (True, False)]
    assert forked == serial and forks == [44, 44]
    settle()
    load(root)  # the cache
    for path, line in (("docs/faq.md", "Another answer; see ADR-0010."), ("docs/glossary.md", "See ADR-0011.")):
        (root / path).write_text((root / path).read_text("utf-8") + f"\n{line}\n", "utf-8")
    g, info = load(root)  # the cache is older: an incremental rebuild, two documents split in two processes
    assert (info.cached, info.split, forks) == (False, 2, [44, 44, 44, 2])
    assert _state(g) == _state(load(root, use_cache=False)[0])


def test_a_damaged_cache_is_rebuilt(copy: tuple[Path, dict[str, str]]) -> None:
    root, _ = copy
    g, info = load(root)
    Path(info.cache_path).write_bytes(b"not a pickle")
    (Path(info.cache_path).parent / graph_build.PARTS_NAME).write_bytes(b"\x80\x05junk")
    g2, info2 = load(root)
    assert not info2.cached and info2.split == 44
    assert g2.counts() == g.counts()
    assert graph_build.clear_cache(Workspace.open(root))
    assert load(root, use_cache=False)[0].counts() == g.counts()
    assert not Path(info.cache_path).exists()  # --no-cache writes nothing


def test_an_unresolved_reference_is_reported_and_fails(copy: tuple[Path, dict[str, str]]) -> None:
    root, _ = copy
    (root / "docs/adr/0017-broken.md").write_text(
        "# ADR-0017: Broken\n\nStatus: Supersedes ADR-0099.\n\nSee [the runbook](../runbooks/missing.md) and \"No Such Page\".\n",
        "utf-8",
    )
    code, out, _ = cli(root, "graph", "--unresolved")
    assert code == 1
    assert "supersedes 'ADR-0099': no page or document has the id ADR-99" in out
    assert "docs/runbooks/missing.md: no such tracked file" in out
    assert "no page or document titled 'No Such Page'" in out
    assert cli(root, "graph")[0] == 0  # counting alone is not a failure
    code, out, _ = cli(root, "graph", "--unresolved", "--format", "json")
    assert code == 1
    assert {u["kind"] for u in json.loads(out)["unresolved"]} == {"supersedes", "id", "link", "see"}


def test_paragraph_ids_survive_edits_elsewhere_in_the_page(copy: tuple[Path, dict[str, str]]) -> None:
    root, ids = copy
    claim = ids["Deliveries are attempted at most six times."]
    before = cli_json(root, "expand", claim, "--edges", "asserted_by")["edges"][0]["target"]["id"]
    page = root / ".openwiki/retries.md"
    text = page.read_text("utf-8")
    page.write_text(text.replace("## History\n", "## History\n\nA new paragraph about history.\n"), "utf-8")
    after = cli_json(root, "expand", claim, "--edges", "asserted_by")["edges"][0]["target"]["id"]
    assert before == after


def test_json_shapes(built: tuple[Path, dict[str, str]]) -> None:
    root, _ = built
    loc = cli_json(root, "locate", "jitter", "--limit", "3")
    assert set(loc) == {"query", "terms", "within", "limit", "results", "stale_claims"}
    assert {"rank", "score", "matched", "id", "kind", "label"} <= set(loc["results"][0])
    exp = cli_json(root, "expand", "ADR-0015")
    assert set(exp) == {"node", "edges", "stale_claims"}
    assert {"type", "target"} == set(exp["edges"][0])
    walk = cli_json(root, "expand", "ADR-0004", "--edges", "superseded_by", "--hops", "4")
    assert set(walk) == {"start", "edge", "hops", "path", "stopped", "end", "stale_claims"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(("expand", "doc:nope.md"), "node 'doc:nope.md' is not in the graph", id="unknown-node"),
        pytest.param(("expand", "ADR-0003", "--hops", "2"), "--hops above 1 walks one edge type", id="walk-without-type"),
        pytest.param(("locate", "the", "of"), "no search words", id="stop-words"),
        pytest.param(("locate", "x", "--within", "nowhere"), "node 'nowhere' is not in the graph", id="bad-within"),
    ],
)
def test_usage_errors_exit_2(built: tuple[Path, dict[str, str]], argv: tuple[str, ...], message: str) -> None:
    code, out, err = cli(built[0], *argv)
    assert code == 2 and out == ""
    assert message in err


def test_text_output(built: tuple[Path, dict[str, str]]) -> None:
    root, _ = built
    code, out, _ = cli(root, "locate", "exponential", "backoff")
    assert code == 0 and "doc:docs/adr/0008-exponential-backoff.md  [doc]" in out and "(superseded by" in out
    code, out, _ = cli(root, "expand", "ADR-0003", "--edges", "superseded_by", "--hops", "5")
    assert code == 0 and "stopped at end" in out and "→ doc:docs/adr/0015-jittered-backoff.md" in out
    code, out, _ = cli(root, "graph")
    assert code == 0 and out.startswith("nodes: ") and "each with its inverse" in out


def test_an_incremental_rebuild_equals_a_fresh_build(copy: tuple[Path, dict[str, str]]) -> None:
    """After a document, a page and a cited file change, the graph loaded from the cache (relinked
    and replayed, graph_link) answers exactly as one built without the cache."""
    root, _ = copy

    def answers(g: graph.Graph) -> str:
        out: list[Any] = [list(g.nodes), list(g.adj.items()), [u.to_json() for u in g.unresolved], g.counts()]
        out += [graph_locate.locate(g, q, limit=8) for q in ("retry backoff", "session redis", "queue drain", "decision")]
        out += [graph_expand.expand(g, n) for n in list(g.nodes)[::5]]
        return json.dumps(out, sort_keys=True, default=str)

    load(root)
    edits = [
        ("docs/faq.md", "\nSee ADR-0003 and [the glossary](glossary.md#dead-letter).\n"),
        (".openwiki/retries.md", "\nA new closing paragraph.\n"),
        ("src/ferry/db.py", "\n# a trailing comment\n"),
        ("src/ferry/db.py", None),  # the cited lines change: the claim goes stale
    ]
    for rel, extra in edits:
        path = root / rel
        text = path.read_text("utf-8")
        path.write_text(text + extra if extra else text.replace("POOL_MAX = 20", "POOL_MAX = 50"), "utf-8")
        g, info = load(root)
        assert not info.cached
        assert answers(g) == answers(load(root, use_cache=False)[0]), rel


class _Evil:
    """A pickle that runs a shell command when loaded by an unrestricted unpickler."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def _every_cache(root: Path) -> tuple[graph_build.BuildInfo, Any, Any, Any]:
    """Writes (or reads) every graph cache file: the graph, its packs and parts, the text index
    and the standing table; what they answered."""
    session = graph_session.GraphSession.open(root)
    docs = {n[len("doc:"):].partition("#")[0] for n in session.graph.ids() if n.startswith("doc:")}
    standing = doc_standing.document_standing(session.ws, docs)
    return session.info, session.graph.counts(), session.locate("session storage"), standing


def test_a_tampered_cache_file_is_refused_and_rebuilt_never_run(
    copy: tuple[Path, dict[str, str]], small_window: None, tmp_path: Path
) -> None:
    root, _ = copy
    settle()
    _, *first = _every_cache(root)
    folder = root / ".git" / graph_build.CACHE_DIR
    names = sorted(p.name for p in folder.glob("*.pickle"))
    assert {graph_build.CACHE_NAME, graph_build.PARTS_NAME, graph_session.TEXT_NAME, doc_standing.STANDING_NAME} < set(names)
    assert any(name.startswith("graph.docs.") for name in names)
    info, *again = _every_cache(root)
    assert info.cached and again == first
    for name in names:
        marker = tmp_path / f"ran-{name}"
        (folder / name).write_bytes(pickle.dumps(_Evil(marker)))
        info, *again = _every_cache(root)
        assert not marker.exists(), name
        assert again == first, name
