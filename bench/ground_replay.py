"""`ground` on a real project's docs, then the code's later history: line ranges, whole
definitions by name and heads (issue 23).

Three projects:

- `--project attrs` (default): `/work/shared/testdata/replay/attrs.bundle` (python-attrs, MIT),
  grounded at `--rev` (default 7fa9cd0, 2022-12-20, when attrs' docs had started moving to
  Markdown), windows of `--steps` first-parent commits (default 40,200,400,620);
- `--project structlog`: structlog's sdists from PyPI (`pip download --no-binary :all:`, its docs
  ship in them; MIT or Apache-2.0), 23.1.0 then 23.2.0, 23.3.0, 24.1.0, 24.4.0, 25.1.0, 25.4.0
  committed one release a commit, grounded at 23.1.0, windows of 1, 2, 4 and 6 releases
  (`--sdists DIR` reads the tarballs from DIR instead, named as pip saves them);
- `--project typer`: the same from typer's sdists (MIT; Markdown docs in `docs/`, the package in
  `typer/`), 0.4.0 then 0.5.0, 0.6.0, 0.7.0, 0.8.0, 0.9.0, 0.10.0, grounded at 0.4.0, windows of
  1, 2, 4 and 6 releases (0.11.0 and later sdists carry no docs, 0.12.0's no package either).

`SDISTS` is the table of the sdist projects: name, releases (the first grounded), docs folder and
source folder (each release's tarball must hold both).

At the base, `ground --all` runs on `docs/` three ways:

- lines: by `--old-code` (default 8ef30e1, before issue 23: every definition cited by its lines);
- named: by this checkout (a definition by name; its head for a class or past 40 lines);
- whole: the named claims with every head widened to its whole definition (tokens at the base).

Then, at each window's last commit, `check --source <that commit>` judges every claim against the
code then. A claim's sentence that the project's own docs still say word for word is counted as
still true; every other one (the docs reworded or dropped it) is a candidate, labelled by hand in
`bench/ground_replay_data/<project>.json` (read off the docs' and the code's diffs: from which
window on the sentence is false, if ever; a candidate without a label is listed and the run
exits 1). Per window and run: claims made, stale at the end (stale or unresolved), the stale
ones still true, the sentences that went false and how many of them were caught (at least one of
their claims stale), and the claims whose reason says the range "keeps its size" (it moved past
the growth bound, so a person or the refresher must set its new extent), per evidence kind.

`--cosmetic-parameters-added` and `--cosmetic-annotations` write `cosmetic_parameters_added: true`
and `cosmetic_annotations: true` into the named and whole runs' config after grounding (the lines
run's older code has no parameters setting; it cites no heads).

`--why` lists, in the named and whole runs, every stale claim whose sentence is still true with
the categories of what changed in its stale evidence between the base and the window's end
(bench/ground_replay_why.py: a head's summary reworded, a parameter added with a default, an
annotation changed, `@overload` added, a whole definition's body code, ...), then their counts.

Run: python bench/ground_replay.py [--project attrs|structlog|typer] [--steps 40,200,400,620] [--show]
    [--why] [--cosmetic-parameters-added] [--cosmetic-annotations]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ground_replay_why import causes  # noqa: E402
from openwiki_git.claims import kinds  # noqa: E402
from openwiki_git.evidence import definitions  # noqa: E402
from openwiki_git.evidence.kinds import Symbol, parse_kind  # noqa: E402
from openwiki_git.evidence.tokens import split_lines  # noqa: E402
from openwiki_git.git.repo import Repo  # noqa: E402
from openwiki_git.ground.deterministic import source_index  # noqa: E402
from openwiki_git.ground.index import SourceIndex  # noqa: E402
from openwiki_git.ground.proves import HEAD_AFTER, body_quotes  # noqa: E402
from openwiki_git.store.workspace import Workspace  # noqa: E402

BUNDLE = "/work/shared/testdata/replay/attrs.bundle"
BASE = "7fa9cd03d5485107bc199915a86bb789926fdf4a"
SPACE = re.compile(r"\s+")
KEEPS_SIZE = "keeps its size"  # evidence/relocation.py's reason past range_growth_factor's bound
KINDS = ("lines", "definition", "head", "file")


@dataclass(frozen=True)
class Sdists:
    """A project replayed from its sdists: releases in order (the first is grounded), the folder
    its docs ship in and the one its code does."""

    versions: tuple[str, ...]
    docs: str
    source: str


SDISTS = {
    "structlog": Sdists(("23.1.0", "23.2.0", "23.3.0", "24.1.0", "24.4.0", "25.1.0", "25.4.0"), "docs", "src/structlog"),
    "typer": Sdists(("0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "0.9.0", "0.10.0"), "docs", "typer"),
}
DATA = ROOT / "bench" / "ground_replay_data"
UNIT = "commits"


def evidence_kind(resource: str) -> str:
    fragment = resource.partition("#")[2]
    if not fragment:
        return "file"
    return "lines" if fragment[:1] == "L" and fragment[1:2].isdigit() else "head" if fragment.endswith(":head") else "definition"


def by_kind_line(claims: list[dict], counted) -> str:  # type: ignore[no-untyped-def, type-arg]
    """Per evidence kind: the claims with an item of that kind `counted` holds for, of the claims
    citing that kind."""
    cited: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for c in claims:
        cited.update({evidence_kind(e["resource"]) for e in c["evidence"]})
        hits.update({evidence_kind(e["resource"]) for e in c["evidence"] if counted(e)})
    return ", ".join(f"{k} {hits[k]} of {cited[k]}" for k in KINDS if cited[k])


def keeps_size_line(claims: list[dict]) -> str:  # type: ignore[type-arg]
    """Per kind: claims whose evidence of that kind keeps its size, of the claims citing it."""
    return by_kind_line(claims, lambda e: KEEPS_SIZE in (e.get("reason") or ""))


def sh(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    return subprocess.run(list(argv), cwd=cwd or Path(tempfile.gettempdir()), capture_output=True, text=True, env=env).stdout


def ow(code: Path, root: Path, *argv: str) -> str:
    """openwiki-git from `code` (run outside any checkout, so that `-m` finds that code first)."""
    return sh(sys.executable, "-m", "openwiki_git", "-C", str(root), *argv, env={**os.environ, "PYTHONPATH": str(code)})


def sdist_origin(tmp: Path, name: str, sdists: Path | None) -> Path:
    """A repository with one commit per release of project `name`, from its sdists (downloaded by
    pip unless `sdists` holds them)."""
    project = SDISTS[name]
    folder = sdists or tmp / "sdists"
    origin = tmp / "origin"
    origin.mkdir()
    sh("git", "init", "-q", cwd=origin)
    for version in project.versions:
        tarball = folder / f"{name}-{version}.tar.gz"
        if not tarball.exists():
            got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                                  f"{name}=={version}", "-d", str(folder)], capture_output=True, text=True)
            if got.returncode != 0:
                raise SystemExit(f"error: pip download {name}=={version}: {got.stderr.strip()[-300:]}")
        for old in origin.iterdir():
            if old.name != ".git":
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        subprocess.run(["tar", "-x", "-z", "-f", str(tarball), "-C", str(origin), "--strip-components=1"], check=True)
        for folder_name in (project.docs, project.source):
            if not (origin / folder_name).is_dir():
                raise SystemExit(f"error: {tarball.name} has no {folder_name}/")
        sh("git", "add", "-A", cwd=origin)
        who = ("-c", "user.name=bench", "-c", "user.email=bench@example.invalid")
        sh("git", *who, "commit", "-q", "-m", f"{name} {version}", cwd=origin)
    return origin


def grounded(tmp: Path, name: str, code: Path, origin: str, base: str, docs: str) -> Path:
    root = tmp / name
    sh("git", "clone", "-q", origin, str(root))
    sh("git", "checkout", "-q", base, cwd=root)
    (root / ".openwiki").mkdir(exist_ok=True)
    (root / ".openwiki" / "config.yml").write_text(f"wiki_dir: {docs}\n")
    ow(code, root, "ground", "--all", "--format", "json")
    return root


def widen_heads(root: Path, docs: str) -> None:
    """Every `#Name:head` becomes `#Name`, its token the whole definition's at the base."""
    repo = Repo(root)
    for sidecar in (root / docs / ".claims").rglob("*.json"):
        data = json.loads(sidecar.read_text())
        for claim in data["claims"]:
            for ev in claim["evidence"]:
                kind = parse_kind(ev["resource"])
                if isinstance(kind, Symbol) and kind.head:
                    whole = Symbol(kind.path, kind.name)
                    r = kinds.resolve(whole, whole.canonical, "", lambda p: repo.read(p, "worktree"), None)
                    ev["resource"], ev["version"] = whole.canonical, r.current_version
        sidecar.write_text(json.dumps(data, indent=2) + "\n")


def docs_text(root: Path, rev: str, docs: str) -> str:
    paths = sh("git", "ls-tree", "-r", "--name-only", rev, docs, cwd=root).split()
    return SPACE.sub(" ", " ".join(sh("git", "show", f"{rev}:{p}", cwd=root) for p in paths if p.endswith((".md", ".rst"))))


def went_false(sentence: str, steps: int, labels: dict[str, dict]) -> bool | None:  # type: ignore[type-arg]
    """Whether a candidate's sentence is false after `steps` commits, by its hand label (None:
    not labelled)."""
    label = labels.get(sentence)
    if label is None:
        return None
    return label["false_from"] is not None and label["false_from"] <= steps


def still_true(c: dict, later: str, steps: int, labels: dict[str, dict]) -> bool:  # type: ignore[type-arg]
    """Is a claim's sentence still true after `steps` (kept word for word, or labelled so)?"""
    sentence = SPACE.sub(" ", c["statement"])
    return sentence in later or went_false(sentence, steps, labels) is False


def shown(root: Path, rev: str, path: str) -> str | None:
    """The file `path` at `rev` (None: not there)."""
    got = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True, text=True)
    return got.stdout if got.returncode == 0 else None


def cited_as(kind: Symbol, text: str | None) -> str:
    """`head`, `whole, short` (a function up to HEAD_AFTER lines, cited whole by ground) or `whole,
    long` (a class or a longer one: the named run cites it whole when its sentence quotes its body)."""
    if kind.head:
        return "head"
    ext = definitions.find(kind.path, text, kind.name) if text is not None else None
    long = ext is None or ext.kind == "class" or ext.end - ext.start + 1 > HEAD_AFTER
    return "whole, long" if long else "whole, short"


def base_index(root: Path) -> SourceIndex:
    """ground's own index of the code at the base (the checkout's worktree)."""
    index: SourceIndex = source_index(Workspace.open(root))
    index.build()
    return index


def quoted(index: SourceIndex, c: dict) -> list[str]:  # type: ignore[type-arg]
    """The words of a claim's sentence that ground read as quoted from a long definition's body
    (ground.resolve.body_quotes: why it cites the whole definition, not its head)."""
    found: set[str] = set()
    for e in c["evidence"]:
        kind = parse_kind(e["resource"])
        text = index.text(kind.path) if isinstance(kind, Symbol) and not kind.head else None
        ext = definitions.find(kind.path, text, kind.name) if isinstance(kind, Symbol) and text is not None else None
        if ext is not None and text is not None and cited_as(kind, text) == "whole, long":
            found.update(body_quotes(index, c["statement"], ext, split_lines(text)))
    return sorted(found)


def why(root: Path, base: str, end: str, claims: list[dict], index: SourceIndex) -> Counter[str]:  # type: ignore[type-arg]
    """Each claim's categories of change (ground_replay_why.causes) of its stale evidence between
    the base and `end`, printed one claim a line (a long definition's with the words ground read
    as quoted from its body); their counts (a claim counts once a category)."""
    counts: Counter[str] = Counter()
    for c in claims:
        found: set[str] = set()
        for e in (e for e in c["evidence"] if e["status"] != "fresh"):
            kind = parse_kind(e["resource"])
            if not isinstance(kind, Symbol):
                found.add("lines: " + e["reason"].split(" (")[0] if "#L" in e["resource"] else "a set changed")
                continue
            then, now = (shown(root, rev, kind.path) for rev in (base, end))
            found.update(f"{cited_as(kind, then)}: {x}" for x in causes(kind, then, now))
        counts.update(found)
        words = quoted(index, c)
        print(f"{'':>7}{sorted(found)} {[e['resource'].removeprefix('repo://') for e in c['evidence'] if e['status'] != 'fresh']}"
              + (f" quoted from the body: {words}" if words else "") + f" {SPACE.sub(' ', c['statement'])[:160]!r}")
    return counts


def window(data: dict, later: str, steps: int, labels: dict[str, dict], unlabeled: set[str]) -> dict[str, int]:  # type: ignore[type-arg]
    """One run's figures at the end of a window (claims, stale, still true among the stale, the
    sentences that went false and those caught)."""
    stale = [c for c in data["claims"] if c["status"] != "fresh"]
    false_sentences: set[str] = set()
    caught: set[str] = set()
    true_stale = 0
    for c in data["claims"]:
        sentence = SPACE.sub(" ", c["statement"])
        verdict = False if sentence in later else went_false(sentence, steps, labels)
        if verdict is None:
            unlabeled.add(sentence)
            continue
        if verdict:
            false_sentences.add(sentence)
            if c["status"] != "fresh":
                caught.add(sentence)
        elif c["status"] != "fresh":
            true_stale += 1
    return {"claims": len(data["claims"]), "stale": len(stale), "true_stale": true_stale,
            "went_false": len(false_sentences), "caught": len(caught)}


def report(steps: int, name: str, data: dict, got: dict[str, int], show: bool) -> None:  # type: ignore[type-arg]
    heads = sum(1 for c in data["claims"] if any(e["resource"].endswith(":head") for e in c["evidence"]))
    named = sum(1 for c in data["claims"] if any("#L" not in e["resource"] for e in c["evidence"]))
    share = f"{got['true_stale'] / got['stale']:.0%}" if got["stale"] else "-"
    print(f"{steps:>4} {UNIT:<8} {name:>6}: {got['claims']} claims ({named} by name, {heads} heads), stale at the end {got['stale']}, "
          f"still true {got['true_stale']} of those ({share}); sentences went false {got['went_false']}, caught {got['caught']}")
    print(f"{'':>21}stale (claims, by evidence kind): {by_kind_line(data['claims'], lambda e: e['status'] != 'fresh')}")
    print(f"{'':>21}keeps its size (claims, by evidence kind): {keeps_size_line(data['claims'])}")
    for c in [c for c in data["claims"] if c["status"] != "fresh"] if show else ():
        reasons = [(e["resource"], e["reason"] if KEEPS_SIZE in e["reason"] else e["reason"][:70]) for e in c["evidence"]]
        print("      ", [r for r, e in zip(reasons, c["evidence"], strict=True) if e["status"] != "fresh"])


def main() -> int:
    global UNIT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", choices=("attrs", *SDISTS), default="attrs")
    ap.add_argument("--rev", default=BASE, help="attrs: the commit grounded")
    ap.add_argument("--steps", help="window lengths in first-parent commits (attrs: 40,200,400,620; sdist projects: releases, 1,2,4,6)")
    ap.add_argument("--sdists", type=Path, help="sdist projects: a folder holding the sdists (else pip downloads them)")
    ap.add_argument("--old-code", default="8ef30e1", help="the revision of this repository whose ground cites lines")
    ap.add_argument("--show", action="store_true", help="print every stale claim's evidence")
    ap.add_argument("--why", action="store_true",
                    help="the named runs: every stale claim still true with what changed in its evidence, and the counts")
    ap.add_argument("--cosmetic-parameters-added", action="store_true",
                    help="check the named and whole runs with `cosmetic_parameters_added: true`")
    ap.add_argument("--cosmetic-annotations", action="store_true", help="check the named and whole runs with `cosmetic_annotations: true`")
    args = ap.parse_args()
    labels = json.loads((DATA / f"{args.project}.json").read_text())["sentences"]
    unlabeled: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="ground-replay-") as tmp_name:
        tmp = Path(tmp_name)
        docs = SDISTS[args.project].docs if args.project in SDISTS else "docs"
        if args.project == "attrs":
            origin, base, steps_arg = BUNDLE, args.rev, args.steps or "40,200,400,620"
        else:
            origin_dir = sdist_origin(tmp, args.project, args.sdists)
            origin, steps_arg, UNIT = str(origin_dir), args.steps or "1,2,4,6", "releases"
            base = sh("git", "rev-list", "--max-parents=0", "HEAD", cwd=origin_dir).strip()
        old = tmp / "old-code"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old_code, "openwiki_git"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        roots = {"lines": (grounded(tmp, "lines", old, origin, base, docs), old),
                 "named": (grounded(tmp, "named", ROOT, origin, base, docs), ROOT)}
        with (roots["named"][0] / ".openwiki" / "config.yml").open("a") as config:
            config.write("cosmetic_parameters_added: true\n" if args.cosmetic_parameters_added else "")
            config.write("cosmetic_annotations: true\n" if args.cosmetic_annotations else "")
        shutil.copytree(roots["named"][0], tmp / "whole", symlinks=True)
        widen_heads(tmp / "whole", docs)
        roots["whole"] = (tmp / "whole", ROOT)
        history = sh("git", "rev-list", "--first-parent", "--reverse", f"{base}..origin/HEAD", cwd=roots["named"][0]).split()
        for steps in (int(s) for s in steps_arg.split(",")):
            end = history[steps - 1]
            later = docs_text(roots["named"][0], end, docs)
            for name, (root, code) in roots.items():
                data = json.loads(ow(code, root, "check", "--source", end, "--format", "json", "--no-cache"))
                report(steps, name, data, window(data, later, steps, labels, unlabeled), args.show)
                if args.why and name != "lines":
                    true_stale = [c for c in data["claims"] if c["status"] != "fresh" and still_true(c, later, steps, labels)]
                    counts = why(root, base, end, true_stale, base_index(roots["named"][0]))
                    print(f"{'':>21}why still-true claims are stale ({name}): " + ", ".join(f"{k} {n}" for k, n in counts.most_common()))
    for sentence in sorted(unlabeled):
        print(f"UNLABELED: {sentence}")
    return 1 if unlabeled else 0


if __name__ == "__main__":
    raise SystemExit(main())
