"""Exit 3 leaves a record: the traceback and the versions, in `<git dir>/openwiki-git/last-error.log`
(pre-commit hides a hook's --verbose from users; like pre-commit's own log, the message names the
file). The git directory is found without pygit2, which may be what failed."""

from __future__ import annotations

import importlib.metadata as metadata
import os
import platform
import sys
import traceback
from pathlib import Path

from openwiki_git import __version__

LOG_NAME = "last-error.log"


def git_dir(start: Path) -> Path | None:
    """The common git directory above `start` (honouring $GIT_DIR and worktrees' `.git` files)."""
    env = os.environ.get("GIT_DIR")
    found: Path | None = Path(env) if env else None
    if found is None:
        for folder in (start, *start.parents):
            dot = folder / ".git"
            if dot.is_dir():
                found = dot
                break
            if dot.is_file():
                text = dot.read_text("utf-8", "replace").strip()
                if text.startswith("gitdir:"):
                    found = (folder / text[len("gitdir:") :].strip()).resolve()
                break
    if found is None or not found.is_dir():
        return None
    common = found / "commondir"
    if common.is_file():
        found = (found / common.read_text("utf-8", "replace").strip()).resolve()
    return found


def _versions() -> str:
    lines = [f"openwiki-git {__version__}", f"python {sys.version.split()[0]} ({platform.platform()})"]
    for name in ("pygit2", "ruamel.yaml", "jsonschema", "filelock"):
        try:
            lines.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{name} not installed")
    pygit2 = sys.modules.get("pygit2")
    if pygit2 is not None:
        lines.append(f"libgit2 {getattr(pygit2, 'LIBGIT2_VERSION', '?')}")
    return "\n".join(lines)


def write(error: BaseException) -> Path | None:
    """Write the log for `error`; its path, or None when there is no git directory to write to."""
    try:
        where = git_dir(Path.cwd())
        if where is None:
            return None
        path = where / "openwiki-git" / LOG_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        tb = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        argv = " ".join(sys.argv)
        path.write_text(f"{_versions()}\nargv: {argv}\ncwd: {os.getcwd()}\n\n{tb}", "utf-8", errors="backslashreplace")
        return path
    except OSError:
        return None
