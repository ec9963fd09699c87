"""Benchmark: the evidence graph over 1,000 pages, 10,000 claims and 100 documents of 1,000
paragraphs each, in a synthetic git repository with real version tokens.

Prints: the build of the graph from texts in memory (split on two CPUs, claims, link, index; no
I/O) -- the figure the issue's 1-second goal is about -- and the same on one CPU; the cold load
from disk (no cache; with the claims' content check and without it), the warm load (cache hit),
incremental rebuilds after one document or one cited file changes, and `locate` / `expand`
latencies (locate over titles, headings, claims and every paragraph; expand with its context at
--depth 0/1/2). No assertions.

    python bench/bench_graph.py [--pages 1000] [--claims 10000] [--docs 100] [--paragraphs 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from openwiki_git.evidence.resource import Resource
from openwiki_git.evidence.tokens import lines_version
from openwiki_git.formats import sidecar
from openwiki_git.graph import build as graph_build
from openwiki_git.graph import claimcheck as graph_claimcheck
from openwiki_git.graph import context as graph_context
from openwiki_git.graph import core as graph
from openwiki_git.graph import inputs as graph_inputs
from openwiki_git.graph import link as graph_link
from openwiki_git.graph import split as graph_split
from openwiki_git.graph.claim_graph import build_claim_graph
from openwiki_git.graph.documents import document_terms
from openwiki_git.graph.session import GraphSession
from openwiki_git.markdown import split as mdsplit
from openwiki_git.model import Claim, Evidence, Sidecar
from openwiki_git.store.wiki import page_version
from openwiki_git.store.workspace import Workspace

WORDS = (
    "retry backoff queue session redis token bucket limit burst delivery receiver worker message "
    "schedule weight credit deploy drain replay dead letter policy decision record context "
    "consequence latency throughput storage postgres pool connection header version deprecation "
    "sunset logging json format field level timeout expiry lifetime cache index graph evidence"
).split()
SOURCES = 200
SOURCE_LINES = 400


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def make_sources(root: Path, rng: random.Random) -> dict[str, list[str]]:
    out = {}
    for i in range(SOURCES):
        lines = [f"def f{i}_{n}(x):  # {rng.choice(WORDS)} {rng.choice(WORDS)} {n}\n" for n in range(SOURCE_LINES)]
        rel = f"src/mod{i:03}.py"
        write(root, rel, "".join(lines))
        out[rel] = lines
    return out


def make_docs(root: Path, rng: random.Random, docs: int, paragraphs: int) -> None:
    for d in range(docs):
        parts = [f"# ADR-{d + 1:04}: {sentence(rng, 4)[:-1]}\n\nStatus: Accepted\n"]
        if d > 0 and d % 10 == 0:
            parts.append(f"Supersedes ADR-{d:04}.\n")
        for p in range(paragraphs):
            if p % 20 == 0:
                parts.append(f"## {sentence(rng, 3)[:-1]} {p // 20}\n")
            elif p % 5 == 0:
                parts.append(f"### {sentence(rng, 2)[:-1]} {p}\n")
            ref = ""
            if p % 50 == 7:
                ref = f" See ADR-{rng.randrange(docs) + 1:04}."
            elif p % 50 == 17:
                ref = f" See [the page](../../.openwiki/p{rng.randrange(1000):04}.md)."
            parts.append(" ".join(sentence(rng, 12) for _ in range(3)) + ref + "\n")
        write(root, f"docs/adr/{d + 1:04}-doc.md", "\n".join(parts))


def make_wiki(root: Path, rng: random.Random, sources: dict[str, list[str]], pages: int, claims: int) -> None:
    per_page = claims // pages
    paths = sorted(sources)
    n = 0
    for p in range(pages):
        page = f"p{p:04}.md"
        body = [f"---\ntype: Concept\ntitle: {sentence(rng, 3)[:-1]}\n---\n\n# Page {p}\n"]
        page_claims = []
        for c in range(per_page):
            if c % 3 == 0:
                body.append(f"## {sentence(rng, 2)[:-1]} {c}\n")
            cid = f"claim_{rng.getrandbits(128):032x}"
            n += 1
            statement = sentence(rng, 8)
            path = rng.choice(paths)
            start = rng.randrange(1, SOURCE_LINES - 3)
            token = lines_version(sources[path], start - 1, start + 2)
            ev = Evidence(Resource(path, start, start + 2).canonical, token)
            page_claims.append(Claim(cid, statement, (ev,), "2026-11-30T10:00:00Z", "human:bench"))
            body.append(f"{statement}[^c-{cid[6:14]}] See ADR-{rng.randrange(100) + 1:04}.\n")
        text = "\n".join(body)
        write(root, f".openwiki/{page}", text)
        sc = Sidecar(page, page_version(text.encode()), tuple(page_claims))
        write(root, f".openwiki/.claims/p{p:04}.json", sidecar.dumps(sc))


def make_repo(root: Path, args: argparse.Namespace) -> None:
    rng = random.Random(7)
    sources = make_sources(root, rng)
    make_docs(root, rng, args.docs, args.paragraphs)
    make_wiki(root, rng, sources, args.pages, args.claims)
    write(root, ".openwiki/config.yml", "wiki_dir: .openwiki\ndocs: ['docs/**/*.md']\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x"}
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "bench"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, env=env)


def best(fn, repeat: int) -> tuple[float, float]:  # noqa: ANN001
    """The fastest of `repeat` runs: (wall seconds, CPU seconds of this process). What `fn`
    returns is freed after the clock stops: tearing a graph down is not part of building it."""
    times = []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        result = fn()
        times.append((time.perf_counter() - t, time.process_time() - c))
        del result
    return min(times)


def report(label: str, seconds: tuple[float, float] | float) -> None:
    wall, cpu = seconds if isinstance(seconds, tuple) else (seconds, None)
    tail = f"   (cpu {cpu * 1000:8.1f} ms)" if cpu is not None else ""
    print(f"{label:<64} {wall * 1000:9.2f} ms{tail}")


def calibrate() -> str:
    """How fast this machine runs Python right now (10**6 empty loop iterations)."""
    loop = best(lambda: [None for _ in range(10**6)], 5)[0]
    return f"calibration: 10**6 list-comprehension steps take {loop * 1000:.0f} ms; load average {os.getloadavg()}"


def bench_inputs(ws: Workspace) -> None:
    """The pure build, from inputs already in memory (no disk, no check), as graph_build.load runs
    it: the pages split here and the claims' part built while a forked child splits documents
    (graph_split shares what is left between the two), then the documents and references linked
    and the search index built."""
    root = ws.repo.root
    texts = {p: (root / p).read_text("utf-8") for p in graph_inputs.doc_paths(root, ("docs/**/*.md",), ".openwiki")}
    pages = {p: ws.wiki.page_path(p).read_text("utf-8") for p in ws.wiki.pages()}
    sidecars = ws.wiki.load_all()
    tracked = graph_inputs.tracked(ws)
    page_items = [(t, ws.wiki.repo_path(p)) for p, t in pages.items()]
    doc_items = sorted(((t, p) for p, t in texts.items()), key=lambda item: len(item[0]))

    def build(parallel: bool | None = None) -> graph.Graph:
        n = len(page_items)
        after = lambda i, d: document_terms(d) if i >= n else None  # noqa: E731
        with graph_split.SplitJob(page_items + doc_items, parallel=parallel, after=after) as job:
            split_pages = list(zip(pages, job.front(n)))
            part = build_claim_graph(pages=split_pages, sidecars=sidecars, results={}, wiki_dir=".openwiki")
            docs = job.result()[n:]
        terms = {job.done[i].path: t for i, t in job.extras.items() if t is not None}
        return graph_link.link(part, docs=docs, files=tracked, wiki_dir=".openwiki", terms=terms)

    def split_all(parallel: bool | None = None) -> list[mdsplit.Document]:
        return graph_split.split_many(page_items + doc_items, parallel=parallel)

    with graph_build.no_gc():  # as graph_build.load runs them
        report("split 100 docs + 1,000 pages, one CPU (mdsplit only)", best(lambda: split_all(False), 3))
        report("split 100 docs + 1,000 pages, two CPUs (graph_split)", best(split_all, 3))
        report("in-memory build, one CPU: split, claims, link, index", best(lambda: build(False), 3))
        report("in-memory build: split (two CPUs), claims, link, index (best of 7)", best(build, 7))


def bench_load(ws: Workspace) -> GraphSession:
    def cold(**kw: bool) -> object:
        graph_build.clear_cache(ws)
        return graph_build.load(Workspace.open(ws.repo.root), **kw)

    report("cold load from disk, claim check separate (no cache)", best(lambda: cold(use_cache=False, check=False), 3))
    report("cold load from disk with the claim check (no cache)", best(lambda: cold(use_cache=False), 3))
    report("cold load, everything (claim check, cache written)", best(cold, 3))
    warm = best(lambda: graph_build.load(Workspace.open(ws.repo.root)), 5)
    report("warm load (cache hit: stat every input, unpickle)", warm)
    doc = ws.repo.root / "docs/adr/0050-doc.md"
    original = doc.read_text("utf-8")

    def one_doc_changed() -> object:
        doc.write_text(original + f"\nA new paragraph {time.perf_counter_ns()}.\n", "utf-8")
        return graph_build.load(Workspace.open(ws.repo.root))

    report("incremental: one document changed (re-split it, re-link)", best(one_doc_changed, 3))
    doc.write_text(original, "utf-8")
    src = ws.repo.root / "src/mod007.py"
    code = src.read_text("utf-8")

    def one_source_changed() -> object:
        src.write_text(code.replace("(x):", "(y):", 1) + f"# {time.perf_counter_ns()}\n", "utf-8")
        return graph_build.load(Workspace.open(ws.repo.root))

    report("incremental: one cited file changed (re-check its claims)", best(one_source_changed, 3))
    src.write_text(code, "utf-8")
    g, info = graph_build.load(Workspace.open(ws.repo.root))
    counts = g.counts()
    print(f"graph: {counts['total_nodes']} nodes {counts['nodes']}")
    print(f"       {counts['total_edges']} edges (+ as many inverses) {counts['edges']}")
    print(f"       {counts['unresolved']} unresolved")
    return GraphSession(ws, g, info)


def bench_check(ws: Workspace) -> None:
    """The claims' content check alone (10,000 claims over 200 files), as graph_build runs it."""
    sidecars = ws.wiki.load_all()
    pages = {p: mdsplit.split(ws.wiki.page_path(p).read_text("utf-8")) for p in ws.wiki.pages()}

    def check() -> None:
        new, old = graph_claimcheck.Parts(), graph_claimcheck.Parts()
        new.tracked = graph_inputs.tracked(ws)
        new.sidecars = {p: (None, sc) for p, sc in sidecars.items()}
        now = graph_inputs.stat_inputs(ws)
        graph_claimcheck.check(Workspace.open(ws.repo.root), sidecars, pages, now, new, old)

    report("claim check alone (every claim, no cache)", best(check, 3))


def bench_queries(session: GraphSession) -> None:
    rng = random.Random(11)
    queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(200)]
    t = time.perf_counter()
    graph_context.text_index(session.graph)
    report("text index of every paragraph (built on the first locate, once per process)", time.perf_counter() - t)
    t = time.perf_counter()
    hits = [session.locate(q, limit=10) for q in queries]
    per = (time.perf_counter() - t) / len(queries)
    report(f"locate (2 words, limit 10), mean of {len(queries)}", per)
    t = time.perf_counter()
    for q in queries[:50]:
        session.locate(q, within="doc:docs/adr/0042-doc.md", limit=5)
    report("locate --within a document, mean of 50", (time.perf_counter() - t) / 50)
    ids = [r["id"] for h in hits for r in h["results"]][:500]
    t = time.perf_counter()
    for nid in ids:
        session.expand(nid)
    report(f"expand (all edges, cited lines for claims), mean of {len(ids)}", (time.perf_counter() - t) / len(ids))
    for depth in (0, 2):
        t = time.perf_counter()
        for nid in ids:
            session.expand(nid, depth=depth)
        report(f"expand --depth {depth} (default --max-chars 6000), mean of {len(ids)}", (time.perf_counter() - t) / len(ids))
    docs = [f"ADR-{d:04}" for d in range(1, 101)]
    t = time.perf_counter()
    for d in docs:
        session.expand(d, depth=2)
    report("expand ADR --depth 2 (a 1,000-paragraph document, 6,000 characters of context), mean of 100", (time.perf_counter() - t) / 100)
    claims = [n for n, node in session.graph.nodes.items() if node.kind == "claim"][:500]
    t = time.perf_counter()
    for cid in claims:
        session.expand(cid, edges=["cites"])
    report(f"expand CLAIM --edges cites, mean of {len(claims)}", (time.perf_counter() - t) / len(claims))
    t = time.perf_counter()
    for d in range(11, 100, 10):
        session.expand(f"ADR-{d:04}", edges=["supersedes"], hops=20)
    report("expand ADR --edges supersedes --hops 20 (walk), mean of 9", (time.perf_counter() - t) / 9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--claims", type=int, default=10000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--paragraphs", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-graph-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        t = time.perf_counter()
        make_repo(root, args)
        print(f"synthetic repository: {args.pages} pages, {args.claims} claims, {args.docs} documents x "
              f"{args.paragraphs} paragraphs, {SOURCES} source files ({time.perf_counter() - t:.1f} s to generate)")
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; best of 3 unless noted")
        print(calibrate() + "\n")
        ws = Workspace.open(root)
        bench_inputs(ws)
        bench_check(ws)
        session = bench_load(ws)
        bench_queries(session)
        print("\n" + calibrate())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
