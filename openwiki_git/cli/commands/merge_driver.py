"""`openwiki-git merge-driver O A B P`: git's merge driver for sidecars (`openwiki-git install` sets
it up). Merges claim by claim instead of line by line, so two branches that mark, re-anchor,
confirm or add claims in the same sidecar never leave a JSON conflict.

O is the common ancestor's sidecar, A ours (the result is written there), B theirs, P its path.
Each claim id is merged three ways, field by field (statement, evidence, verification, mark):
a field changed on one side only takes that side. When both sides changed the same field:

- evidence and verification go together: the side with the newer verification wins (its
  versions are what a person or the refresher checked); with the same verification, ours wins
  (line numbers are re-anchored from the merged text afterwards, see below);
- marks are sticky: a mark made on one branch survives a verification made on the other (that
  verification never saw the change that made the claim stale); two different marks become one
  (the earlier `since`, both sides' causes, the worse status);
- a claim retracted on one side and only re-anchored or marked on the other stays retracted;
- a claim one side folded into its sentence's claim (`lint --fix`: one claim per sentence; its
  id is in that side's `aliases`) goes into the folded claim whatever the other side did to it:
  its mark joins the folded claim's and its evidence the folded claim lacks is added. Aliases
  and retracted claims' tombstones (`retracted`) are the union of both sides'.

A true conflict (the statement edited differently on both sides, the evidence list edited
differently on both sides, or a retraction against an edit or a verification) keeps ours for
that claim, writes a valid sidecar, names the claim on stderr and exits 1, so git reports the
conflict and the file can be fixed by hand or with `openwiki-git claim ...`.

Pages (`<wiki>/**/*.md`) go through the same driver: their prose is merged as git would (a
conflict there is a true conflict, with the usual markers), while the parts the tool generates
from the claims never conflict: the citations block is merged footnote by footnote (links from
the side that moved them, the stale warning from the side that marked the claim), and the front
matter merges with conflicts resolved to ours; both are re-rendered from the merged sidecar by
the next `openwiki-git hook` or `check --fix`.

Ranges are re-anchored from content after the merge: claims whose evidence differs from HEAD's
are located in the merged text by the next `openwiki-git hook` (the merge commit's, when the merge
stops for a conflict) or by `openwiki-git check --fix`.

A docs site's reStructuredText pages (`<wiki>/**/*.rst`) are merged whole, as git would: they have
no front matter (an overline title's `----` is none) and no citations block; their markers are
comment lines.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from openwiki_git.claims.merge import merge, merge_page
from openwiki_git.errors import OpenwikiError, SchemaError, UsageError
from openwiki_git.formats import pagenames
from openwiki_git.formats import sidecar as sidecar_codec
from openwiki_git.model import Sidecar


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("merge-driver", help="git merge driver for sidecars (set up by `install`)", description=__doc__)
    p.add_argument("ancestor", help="%%O: the common ancestor's version")
    p.add_argument("ours", help="%%A: our version; the merge result is written here")
    p.add_argument("theirs", help="%%B: their version")
    p.add_argument("path", nargs="?", default="sidecar.json", help="%%P: the sidecar's path in the repository")
    p.set_defaults(run=run)


def _page(path: str) -> str:
    rel = pagenames.inside_a_claims_folder(path)
    return pagenames.page_of_sidecar(rel) if rel is not None and rel.endswith(pagenames.SIDECAR) else "page.md"


def _wiki_dir() -> str:
    try:
        from openwiki_git.git.repo import Repo
        from openwiki_git.store.config import load_config

        return load_config(Repo().root).wiki_dir
    except OpenwikiError:
        return ".openwiki"


def _read(file: str, path: str, page: str, wiki_dir: str, *, empty_ok: bool) -> Sidecar | None:
    text = Path(file).read_bytes().decode("utf-8")
    if not text.strip() and empty_ok:
        return None
    return sidecar_codec.loads(text, filename=path, page=page, wiki_dir=wiki_dir)


def run(args: argparse.Namespace) -> int:
    if not args.path.endswith(".json"):
        return _run_page(args)
    page = _page(args.path)
    wiki_dir = _wiki_dir()
    try:
        ours = _read(args.ours, f"{args.path} (ours)", page, wiki_dir, empty_ok=False)
        theirs = _read(args.theirs, f"{args.path} (theirs)", page, wiki_dir, empty_ok=False)
    except (SchemaError, UnicodeDecodeError, OSError) as e:
        print(f"openwiki-git merge-driver: {args.path}: cannot merge claim by claim: {e}", file=sys.stderr)
        print("openwiki-git merge-driver: kept our version; resolve the conflict by hand", file=sys.stderr)
        return 1
    try:
        base = _read(args.ancestor, f"{args.path} (base)", page, wiki_dir, empty_ok=True)
    except (SchemaError, UnicodeDecodeError, OSError):
        base = None
    assert ours is not None and theirs is not None
    merged, conflicts = merge(base, ours, theirs)
    Path(args.ours).write_bytes(sidecar_codec.dumps(merged).encode("utf-8"))
    for c in conflicts:
        print(f"openwiki-git merge-driver: {args.path}: {c}", file=sys.stderr)
    return 1 if conflicts else 0


def _run_page(args: argparse.Namespace) -> int:
    from openwiki_git.git import diff as gitdiff
    from openwiki_git.git.repo import Repo

    repo = Repo()
    try:
        o, a, b = (Path(f).read_bytes().decode("utf-8", errors="surrogateescape") for f in (args.ancestor, args.ours, args.theirs))
    except OSError as e:
        raise UsageError(f"{e.filename}: cannot read: {e.strerror or e}", "git passes the driver three existing files (%O %A %B)") from None
    merge3 = lambda x, y, z: gitdiff.merge_text(repo, x, y, z, args.path)  # noqa: E731
    # A reStructuredText page has no front matter and no citations block (its markers are comment
    # lines): merged whole, as git would; an overline title (`----`) is no front matter's fence.
    merged, conflicted = merge3(o, a, b) if pagenames.is_rst(args.path) else merge_page(o, a, b, merge3)
    Path(args.ours).write_bytes(merged.encode("utf-8", errors="surrogateescape"))
    if conflicted:
        print(f"openwiki-git merge-driver: {args.path}: the prose conflicts; resolve it by hand", file=sys.stderr)
    return 1 if conflicted else 0
