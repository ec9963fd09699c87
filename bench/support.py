"""Support (issue 32, "Measured"): of the claims `ground --all` makes on a real docs folder, how
many cite code that makes their sentence true?

Run (from a checkout with its venv active):

    python bench/support.py                        # uvicorn at doc_recall's window base: the rate, exit 1 below 90%
    python bench/support.py --project typer
    python bench/support.py --todo                 # the drawn claims not judged yet, each with its sentence and cited code
    python bench/support.py --show                 # every drawn claim, its code and its judgement
    python bench/support.py --tree /work/wt/ground # another branch's grounding (its own venv: --python)
    python bench/support.py --json result.json

The harness clones the project (bench/doc_recall.py's cache), checks out the base of the
project's doc_recall window (BASES), runs `init --wiki-dir docs` and `ground --all` from the tree
under test, and draws `--sample` claims (default 50; all of them when the docs hold fewer) by a
seeded hash of each claim's page, sentence and cited resources, so that a grounding that adds or
drops a few claims changes the sample by those few. For each it prints the sentence and the cited
code as the tool verified it (`claim show --format json`).

The judgements live in `bench/support_data/<project>.json`, one per claim, keyed by (page,
sentence, cited resources): `supported` (the cited code makes the sentence true), `partly` (it
proves some of the sentence, or only that a named thing exists while the sentence says what it
does), `not supported` (it does not), each with one line why. They were made by reading the code,
not by the tool. A grounding that cites other code for a sentence has no judgement for it:
`--todo` lists those, with the code, to judge and add. The rate is supported / drawn; a drawn claim
without a judgement fails the run (nothing unjudged is counted as supported).

Exit 0 at 90% or more with every drawn claim judged, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.doc_recall import PROJECTS, Upstream, describe, ground_all, replayer, workdir  # noqa: E402
from bench.replay import Replay  # noqa: E402

DATA = HERE / "support_data"
VERDICTS = ("supported", "partly", "not supported")
GOAL = 0.9
SEED = "issue-32"
SHOWN_LINES = 80
# The docs judged: each project at the base of its doc_recall window (uvicorn: the 2024 one).
BASES = {"uvicorn": "12c9ee389825", "typer": "ffae793a141c", "attrs": "52893141dbae"}


@dataclass
class Drawn:
    id: str
    page: str
    sentence: str
    resources: list[str]
    code: list[str]  # each evidence item's text as verified

    @property
    def key(self) -> tuple[str, str, tuple[str, ...]]:
        return (self.page, self.sentence, tuple(sorted(self.resources)))


def draw(claims: list[dict[str, Any]], n: int, seed: str) -> list[dict[str, Any]]:
    """`n` claims by a seeded hash of (page, sentence, resources): stable under small changes."""

    def rank(c: dict[str, Any]) -> str:
        text = "\0".join([seed, c["page_path"], c["statement"], *sorted(e["resource"] for e in c["evidence"])])
        return hashlib.sha256(text.encode()).hexdigest()

    return sorted(sorted(claims, key=rank)[:n], key=lambda c: (c["page_path"], c["statement"]))


def shown(r: Replay, claim: dict[str, Any]) -> Drawn:
    """A drawn claim with the text each evidence item verified (`claim show --format json`)."""
    p = r.tool("-C", str(r.repo), "claim", "show", claim["id"], "--format", "json", check=False)
    code: list[str] = []
    if p.returncode == 0:
        data = json.loads(p.stdout)
        code = [e.get("verified_text") or e.get("current_text") or "" for e in data.get("evidence_status", [])]
    resources = [e["resource"] for e in claim["evidence"]]
    return Drawn(claim["id"], claim["page_path"], claim["statement"], resources, code or [""] * len(resources))


def load(project: str) -> dict[tuple[str, str, tuple[str, ...]], dict[str, Any]]:
    path = DATA / f"{project}.json"
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        out = {}
        for i, j in enumerate(data["judgements"]):
            if j["verdict"] not in VERDICTS:
                raise SystemExit(f"support: {path}: judgements[{i}].verdict is {j['verdict']!r}; use one of {', '.join(VERDICTS)}")
            out[(j["page"], j["sentence"], tuple(sorted(j["resources"])))] = j
        return out
    except (ValueError, KeyError, TypeError) as e:
        raise SystemExit(f"support: {path}: not a judgements file ({e}); fix it or restore it from git") from None


def block(d: Drawn, judgement: dict[str, Any] | None) -> str:
    out = [f"- {d.page} ({d.id[:14]}): {d.sentence}"]
    for resource, text in zip(d.resources, d.code):
        lines = text.split("\n")
        out.append(f"    cites {resource.removeprefix('repo://')} ({len(lines)} lines)")
        out += [f"      | {ln}" for ln in lines[:SHOWN_LINES]]
        if len(lines) > SHOWN_LINES:
            out.append(f"      | ... {len(lines) - SHOWN_LINES} more lines")
    if judgement is not None:
        out.append(f"    judged: {judgement['verdict']}: {judgement['why']}")
    else:
        skeleton = {"page": d.page, "sentence": d.sentence, "resources": sorted(d.resources), "verdict": "?", "why": "?"}
        out.append(f"    not judged; add to {DATA.name}/: {json.dumps(skeleton)}")
    return "\n".join(out)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    up = Upstream(args.project)
    base = args.base or BASES[args.project]
    work = workdir("support", args.project)
    try:
        r = replayer(args.project, up, work, args)
        r.clone(up.rev(base))
        ground = ground_all(r)
        claims = r.check().get("claims", [])
        drawn = [shown(r, c) for c in draw(claims, args.sample, args.seed)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    judged = load(args.project)
    rows = []
    for d in drawn:
        j = judged.get(d.key)
        rows.append({"id": d.id, "page": d.page, "sentence": d.sentence, "resources": d.resources,
                     "verdict": j["verdict"] if j else None, "why": j["why"] if j else None, "_drawn": d})
    counts = {v: sum(1 for x in rows if x["verdict"] == v) for v in VERDICTS}
    missing = sum(1 for x in rows if x["verdict"] is None)
    rate = counts["supported"] / len(rows) if rows else None
    return {"tree": describe(args.tree), "project": args.project, "base": base, "ground": ground, "claims": len(claims),
            "drawn": len(rows), "seed": args.seed, "judged": counts, "not_judged": missing,
            "support_rate": round(rate, 3) if rate is not None else None,
            "goal_met": bool(rows) and missing == 0 and rate is not None and rate >= GOAL, "claims_drawn": rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--project", choices=sorted(PROJECTS), default="uvicorn")
    p.add_argument("--base", help="the commit grounded (default: the base of the project's doc_recall window, BASES)")
    p.add_argument("--sample", type=int, default=50, help="claims drawn (default 50)")
    p.add_argument("--seed", default=SEED, help=f"the draw's seed (default {SEED})")
    p.add_argument("--tree", type=Path, default=HERE.parent, help="the checkout whose openwiki_git grounds (default: this one)")
    p.add_argument("--python", default=sys.executable, help="the interpreter that runs the tool (default: this one)")
    p.add_argument("--todo", action="store_true", help="print the drawn claims without a judgement, with their cited code")
    p.add_argument("--show", action="store_true", help="print every drawn claim with its cited code and judgement")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the result as JSON to FILE")
    args = p.parse_args(argv)
    args.tree = args.tree.resolve()
    if not (args.tree / "openwiki_git" / "__init__.py").is_file():
        print(f"support: --tree {args.tree}: no openwiki_git package there; give a checkout of openwiki-git", file=sys.stderr)
        return 2
    res = measure(args)
    judged = load(args.project)
    for row in res["claims_drawn"]:
        d = row.pop("_drawn")
        if args.show or (args.todo and row["verdict"] is None):
            print(block(d, judged.get(d.key)) + "\n")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n")
    c = res["judged"]
    rate = "-" if res["support_rate"] is None else f"{res['support_rate']:.0%}"
    print(f"support, {res['project']} at {res['base']}, tree {res['tree']['describe']} ({res['tree']['branch']}): "
          f"{res['claims']} claims, {res['drawn']} drawn; supported {c['supported']}, partly {c['partly']}, "
          f"not supported {c['not supported']}, not judged {res['not_judged']}; support rate {rate} (goal 90%, partly counts as not)")
    if res["not_judged"]:
        print(f"support: {res['not_judged']} drawn claims have no judgement: `python bench/support.py --project {args.project} --todo`")
    return 0 if res["goal_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
