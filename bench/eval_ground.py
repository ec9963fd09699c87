#!/usr/bin/env python3
"""Evaluate `ground`'s deterministic pass on a real project's docs: every reference with its
outcome and what it cites, for hand-checking, plus a sample file to mark.

    git clone -q /work/shared/testdata/replay/attrs.bundle /tmp/attrs
    python bench/eval_ground.py /tmp/attrs --wiki-dir docs [--sample 50 --seed 1] [--kind symbol]

Prints one line per reference: `outcome  kind  page:line  reference  ->  cited lines` and the
cited line's text (the definition's first line), then counts per outcome. With --sample N, a
seeded random sample of N symbol references (the judged kind) is printed last, for a person to
mark right / wrong / missed. Nothing is written to the repository.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

from openwiki_git.ground import deterministic as ground
from openwiki_git.ground import refs as ground_refs
from openwiki_git.ground import resolve as ground_resolve
from openwiki_git.ground.index import SourceIndex
from openwiki_git.store.workspace import Workspace


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--wiki-dir", default="docs")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", help="only this kind of reference (symbol, path, flag, env, key)")
    ap.add_argument("--outcome", help="only this outcome")
    args = ap.parse_args()
    ws = Workspace.open(args.repo, wiki_dir=args.wiki_dir)
    index = ground.source_index(ws)
    rows = []
    for page in ws.wiki.pages():
        text = ws.page_text(page) or ""
        found = ground_refs.page_refs(text)
        for ref in found.refs:
            res = ground_resolve.resolve(ref, index, page_repo_path=ws.wiki.repo_path(page), local_names=found.local_names)
            rows.append((page, ref, res))
    counts: Counter[tuple[str, str]] = Counter()
    for page, ref, res in rows:
        counts[(ref.kind, res.outcome)] += 1
        if (args.kind and ref.kind != args.kind) or (args.outcome and res.outcome != args.outcome):
            continue
        print(_line(ws, page, ref, res, index))
    print()
    for (kind, outcome), n in sorted(counts.items()):
        print(f"{kind:7} {outcome:10} {n}")
    if args.sample:
        symbols = [r for r in rows if r[1].kind in ("symbol", "key") and not (args.kind and r[1].kind != args.kind)]
        random.Random(args.seed).shuffle(symbols)
        print(f"\n# sample of {args.sample} symbol references (seed {args.seed})")
        for page, ref, res in symbols[: args.sample]:
            print(_line(ws, page, ref, res, index))
    return 0


def _line(ws: Workspace, page: str, ref: ground_refs.Ref, res: ground_resolve.Resolution, index: SourceIndex) -> str:
    where = f"{ws.config.wiki_dir}/{page}:{ref.sentence.line}"
    tail = ""
    if res.target is not None:
        first = index.lines(res.target.path)[res.target.start - 1].strip()[:70]
        tail = f" -> {res.target.resource.removeprefix('repo://')} [{res.target.qualname}] | {first}"
    elif res.candidates:
        tail = " -> " + ", ".join(c.removeprefix("repo://") for c in res.candidates[:4])
    elif res.reason:
        tail = f" ({res.reason})"
    return f"{res.outcome:9} {ref.kind:6} {where:32} {ref.raw}{tail}"


if __name__ == "__main__":
    sys.exit(main())
