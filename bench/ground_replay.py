"""`ground` on a real project's docs, then the code's later history: line ranges, whole
definitions by name and heads (issue 23).

The data: `/work/shared/testdata/replay/attrs.bundle` (python-attrs, MIT), cloned into temporary
directories. At `--rev` (default 7fa9cd0, 2022-12-20, when attrs' docs had started moving to
Markdown), `ground --all` is run on `docs/` three ways:

- lines: by `--old-code` (default 8ef30e1, before issue 23: every definition cited by its lines);
- named: by this checkout (a definition by name; its head for a class or past 40 lines);
- whole: the named claims with every head widened to its whole definition (tokens at the base).

Then, for each of `--steps` (first-parent commits after the base), `check --source <that commit>`
judges every claim against the code then, and a stale claim's sentence is looked up word for word
in that commit's docs: a sentence the project's own docs still say is most likely still true.
It also counts, per evidence kind (lines, definition, head, file), the claims whose reason at the
end of the window says the range "keeps its size" (it moved past the growth bound, so a person
or the refresher must set its new extent), out of the claims citing that kind.

Run: python bench/ground_replay.py [--rev REV] [--steps 40,200,400,620] [--old-code REV] [--show]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openwiki_git.claims import kinds  # noqa: E402
from openwiki_git.evidence.kinds import Symbol, parse_kind  # noqa: E402
from openwiki_git.git.repo import Repo  # noqa: E402

BUNDLE = "/work/shared/testdata/replay/attrs.bundle"
BASE = "7fa9cd03d5485107bc199915a86bb789926fdf4a"
SPACE = re.compile(r"\s+")
KEEPS_SIZE = "keeps its size"  # evidence/relocation.py's reason past range_growth_factor's bound
KINDS = ("lines", "definition", "head", "file")


def evidence_kind(resource: str) -> str:
    fragment = resource.partition("#")[2]
    if not fragment:
        return "file"
    return "lines" if fragment[:1] == "L" and fragment[1:2].isdigit() else "head" if fragment.endswith(":head") else "definition"


def keeps_size_line(claims: list[dict]) -> str:  # type: ignore[type-arg]
    """Per kind: claims whose evidence of that kind keeps its size, of the claims citing it."""
    cited: Counter[str] = Counter()
    sized: Counter[str] = Counter()
    for c in claims:
        cited.update({evidence_kind(e["resource"]) for e in c["evidence"]})
        sized.update({evidence_kind(e["resource"]) for e in c["evidence"] if KEEPS_SIZE in (e.get("reason") or "")})
    return ", ".join(f"{k} {sized[k]} of {cited[k]}" for k in KINDS if cited[k])


def sh(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    return subprocess.run(list(argv), cwd=cwd or Path(tempfile.gettempdir()), capture_output=True, text=True, env=env).stdout


def ow(code: Path, root: Path, *argv: str) -> str:
    """openwiki-git from `code` (run outside any checkout, so that `-m` finds that code first)."""
    return sh(sys.executable, "-m", "openwiki_git", "-C", str(root), *argv, env={**os.environ, "PYTHONPATH": str(code)})


def grounded(tmp: Path, name: str, code: Path, base: str) -> tuple[Path, str]:
    root = tmp / name
    sh("git", "clone", "-q", BUNDLE, str(root))
    tip = sh("git", "rev-parse", "HEAD", cwd=root).strip()
    sh("git", "checkout", "-q", base, cwd=root)
    (root / ".openwiki").mkdir(exist_ok=True)
    (root / ".openwiki" / "config.yml").write_text("wiki_dir: docs\n")
    ow(code, root, "ground", "--all", "--format", "json")
    return root, tip


def widen_heads(root: Path) -> None:
    """Every `#Name:head` becomes `#Name`, its token the whole definition's at the base."""
    repo = Repo(root)
    for sidecar in (root / "docs" / ".claims").rglob("*.json"):
        data = json.loads(sidecar.read_text())
        for claim in data["claims"]:
            for ev in claim["evidence"]:
                kind = parse_kind(ev["resource"])
                if isinstance(kind, Symbol) and kind.head:
                    whole = Symbol(kind.path, kind.name)
                    r = kinds.resolve(whole, whole.canonical, "", lambda p: repo.read(p, "worktree"), None)
                    ev["resource"], ev["version"] = whole.canonical, r.current_version
        sidecar.write_text(json.dumps(data, indent=2) + "\n")


def docs_text(root: Path, rev: str) -> str:
    paths = sh("git", "ls-tree", "-r", "--name-only", rev, "docs", cwd=root).split()
    return SPACE.sub(" ", " ".join(sh("git", "show", f"{rev}:{p}", cwd=root) for p in paths if p.endswith((".md", ".rst"))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rev", default=BASE)
    ap.add_argument("--steps", default="40,200,400,620", help="window lengths in first-parent commits (attrs has 620 after the base)")
    ap.add_argument("--old-code", default="8ef30e1", help="the revision of this repository whose ground cites lines")
    ap.add_argument("--show", action="store_true", help="print every stale claim's evidence")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ground-replay-") as tmp_name:
        tmp = Path(tmp_name)
        old = tmp / "old-code"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old_code, "openwiki_git"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        roots = {"lines": (*grounded(tmp, "lines", old, args.rev), old), "named": (*grounded(tmp, "named", ROOT, args.rev), ROOT)}
        shutil.copytree(roots["named"][0], tmp / "whole", symlinks=True)
        widen_heads(tmp / "whole")
        roots["whole"] = (tmp / "whole", roots["named"][1], ROOT)
        for steps in (int(s) for s in args.steps.split(",")):
            for name, (root, tip, code) in roots.items():
                end = sh("git", "rev-list", "--first-parent", "--reverse", f"{args.rev}..{tip}", cwd=root).split()[steps - 1]
                data = json.loads(ow(code, root, "check", "--source", end, "--format", "json", "--no-cache"))
                later = docs_text(root, end)
                stale = [c for c in data["claims"] if c["status"] != "fresh"]
                kept = [c for c in stale if SPACE.sub(" ", c["statement"]) in later]
                heads = sum(1 for c in data["claims"] if any(e["resource"].endswith(":head") for e in c["evidence"]))
                named = sum(1 for c in data["claims"] if any("#L" not in e["resource"] for e in c["evidence"]))
                print(f"{steps:>4} commits {name:>6}: {len(data['claims'])} claims ({named} by name, {heads} heads), "
                      f"stale at the end {len(stale)}, the later docs keep {len(kept)} of those word for word")
                print(f"{'':>19}keeps its size (claims, by evidence kind): {keeps_size_line(data['claims'])}")
                for c in stale if args.show else ():
                    reasons = [(e["resource"], e["reason"] if KEEPS_SIZE in e["reason"] else e["reason"][:70]) for e in c["evidence"]]
                    print("      ", [r for r, e in zip(reasons, c["evidence"], strict=True) if e["status"] != "fresh"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
