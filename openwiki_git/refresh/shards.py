"""A sharded refresh: each job of a matrix refreshes the pages of its shard (`refresh --shard I/N`)
and saves what it decided; a final job merges the shards into the working tree and opens one
refresh pull request.

- `save(ws, result, out)`: `out/decisions.json` (the refresh result) and `out/files/<path>`, the
  wiki files the shard changed, `out/deleted.txt` those it deleted.
- `merge(ws, dirs) -> dict`: every shard's files written into the working tree (a sidecar that
  two shards changed is merged claim by claim, as the merge driver does; any other file changed
  differently by two shards is refused), and one refresh result combining the shards' decisions.

Shard directories are data from other jobs: paths are checked (inside the wiki directory, no
`..`, no symlinks, no workflow file) before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from openwiki_git.errors import UsageError
from openwiki_git.formats import pagenames
from openwiki_git.refresh.results import cost_of
from openwiki_git.store.workspace import Workspace

DECISIONS = "decisions.json"
FILES = "files"
DELETED = "deleted.txt"
TOTAL_KEYS = ("confirmed", "revised", "retracted", "trivial", "failed", "skipped", "model_calls", "tokens_in", "tokens_out")


def save(ws: Workspace, result: Mapping[str, Any], changes: Mapping[str, bytes | None], out: Path) -> None:
    """Write the shard's decisions and changed wiki files under `out` (created)."""
    (out / FILES).mkdir(parents=True, exist_ok=True)
    (out / DECISIONS).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", "utf-8")
    deleted = []
    for path, data in sorted(changes.items()):
        if data is None:
            deleted.append(path)
            continue
        target = out / FILES / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (out / DELETED).write_text("".join(p + "\n" for p in deleted), "utf-8")


def _shard_files(ws: Workspace, shard: Path) -> dict[str, bytes | None]:
    from openwiki_git.github import api as github_api

    wiki_dir = ws.config.wiki_dir.rstrip("/")
    root = shard / FILES
    files: dict[str, bytes | None] = {}
    for path in sorted(p for p in root.rglob("*") if not p.is_dir()) if root.is_dir() else ():
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            raise UsageError(f"{shard}: {rel} is a symlink; refusing to merge it")
        files[rel] = path.read_bytes()
    deleted = shard / DELETED
    for line in deleted.read_text("utf-8").splitlines() if deleted.is_file() else ():
        if line.strip():
            files[line.strip()] = None
    for rel in files:
        if not (rel == wiki_dir or rel.startswith(wiki_dir + "/")):
            raise UsageError(f"{shard}: {rel} is outside the wiki directory {wiki_dir}; refusing to merge it")
    try:
        github_api.check_paths(files)
    except Exception as e:  # noqa: BLE001 - GitHubError: say which shard
        raise UsageError(f"{shard}: {e}") from None
    return files


SidecarMerge = Callable[[str, "bytes | None", bytes, bytes], bytes]


def merge(ws: Workspace, dirs: Sequence[Path], merge_sidecar: SidecarMerge) -> dict[str, Any]:
    """Write every shard's files into the working tree; return the combined refresh result.
    `merge_sidecar(path, base, ours, theirs)` merges a sidecar two shards changed (the command
    passes the merge driver's claim-by-claim merge)."""
    if not dirs:
        raise UsageError("--from-shards: no shard directory given")
    results: list[dict[str, Any]] = []
    written: dict[str, bytes | None] = {}
    wiki_dir = ws.config.wiki_dir.rstrip("/")
    for shard in dirs:
        decisions = shard / DECISIONS
        if not decisions.is_file():
            raise UsageError(f"{shard}: no {DECISIONS}", "pass the directories the shard jobs saved (refresh-shard --out)")
        try:
            results.append(json.loads(decisions.read_text("utf-8")))
        except ValueError as e:
            raise UsageError(f"{decisions}: not JSON ({e})") from None
        for path, data in _shard_files(ws, shard).items():
            if path in written and written[path] != data:
                if data is None or written[path] is None or not pagenames.in_claims_folder(wiki_dir, path):
                    raise UsageError(f"{path}: changed differently by two shards", "shard by page: refresh --shard I/N")
                base = ws.repo.read(path, "HEAD")
                base_bytes = base.text.encode("utf-8") if base.text is not None else None
                data = merge_sidecar(path, base_bytes, written[path], data)  # type: ignore[arg-type]
            written[path] = data
    for path, data in written.items():
        target = ws.repo.root / path
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return combine(results)


def combine(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One refresh result from the shards' results (decisions in shard order, totals summed)."""
    decisions = [d for r in results for d in r.get("decisions", [])]
    totals: dict[str, Any] = {"claims": len(decisions)}
    for key in TOTAL_KEYS:
        totals[key] = sum(int((r.get("totals") or {}).get(key) or 0) for r in results)
    costs = [(r.get("totals") or {}).get("cost") for r in results]
    totals["cost"] = None if any(c is None for c in costs) else round(sum(costs), 6)  # type: ignore[arg-type]
    totals.update(cost_of(decisions))  # per claim, from every shard's decisions
    stopped = "; ".join(str(r["stopped"]) for r in results if r.get("stopped")) or None
    unusable = "; ".join(str(r["unusable"]) for r in results if r.get("unusable")) or None
    models = sorted({str(r["model"]) for r in results if r.get("model")})
    return {
        "tool": results[0].get("tool") if results else None,
        "model": ", ".join(models) or None,
        "dry_run": False,
        "decisions": decisions,
        "totals": totals,
        "written": sorted({p for r in results for p in r.get("written", [])}),
        "stopped": stopped,
        "fallbacks": [f for r in results for f in r.get("fallbacks", [])],
        "unusable": unusable,
        "shards": len(results),
    }
