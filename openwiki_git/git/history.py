"""A folder's history along the first-parent line: the commits, and at each one what changed in
the folder since the commit before (the health report's trend reads the sidecars this way); and
a range's commits with the paths each changed (the PR comment names the commit behind a mark).

Trees are compared, never files: a commit whose folder tree is the previous one's costs one tree
lookup, and a changed folder yields only its changed blobs, so the cost follows what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pygit2

from openwiki_git.errors import GitError
from openwiki_git.git import diff as gitdiff
from openwiki_git.git.repo import Repo


@dataclass(frozen=True, slots=True)
class Commit:
    id: str
    time: int  # committer time, seconds since the epoch


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The folder at one commit, as a change to the snapshot before it: `changed` maps a path
    (relative to the folder) to its new bytes, or None when it was deleted; with `whole`, the
    folder is exactly `changed` (the first commit, or the folder appeared, or vanished)."""

    commit: Commit
    changed: dict[str, bytes | None]
    whole: bool


def first_parent(repo: Repo, head: str, *, limit: int | None, stop: str | None = None) -> list[Commit]:
    """The first-parent commits from `stop` (included; None: as far as `limit` goes) to `head`,
    oldest first, at most `limit` of them. `head` and `stop` are commit ids; a `stop` that is
    not on head's first-parent line is an error."""
    out: list[Commit] = []
    commit = repo.pygit2.get(head)
    while isinstance(commit, pygit2.Commit) and (limit is None or len(out) < limit):
        out.append(Commit(str(commit.id), int(commit.commit_time)))
        if stop is not None and out[-1].id == stop:
            break
        commit = repo.pygit2.get(commit.parent_ids[0]) if commit.parent_ids else None
    if stop is not None and out[-1].id != stop and commit is None:
        raise GitError(f"{stop}: not on the first-parent history of {head[:12]}",
                       "name a commit that HEAD's first-parent line passes through (e.g. a commit of main)")
    out.reverse()
    return out


def folder_history(repo: Repo, commits: list[Commit], folder: str | Callable[[Commit], str]) -> Iterator[Snapshot]:
    """Each commit's change to `folder` (a path in the tree, e.g. `.openwiki/.claims`), or to the
    folder `folder(commit)` names at each commit (a folder that moved: its trees are compared
    across the move, so a move alone changes nothing)."""
    folder_at = folder if callable(folder) else (lambda _commit: folder)
    before: str | None = None
    for n, commit in enumerate(commits):
        tree = gitdiff.tree_entry_id(repo, commit.id, folder_at(commit))
        if tree is not None and not gitdiff.is_tree(repo, tree):
            tree = None
        if n > 0 and tree == before:
            yield Snapshot(commit, {}, False)
        elif n == 0 or before is None or tree is None:  # the first, or the folder appeared or vanished
            yield Snapshot(commit, {} if tree is None else dict(gitdiff.tree_blobs(repo, tree)), True)
        else:
            changed: dict[str, bytes | None] = {}
            for old_path, new_path, data in gitdiff.tree_changes(repo, before, tree):
                if data is None:
                    changed[old_path] = None
                else:
                    changed[new_path] = data
            yield Snapshot(commit, changed, False)
        before = tree


@dataclass(frozen=True, slots=True)
class RangeCommit:
    """A commit of a range (a pull request's): its first parent, its subject line, and the paths
    it changed against that parent."""

    id: str
    parent: str | None
    subject: str
    paths: frozenset[str]


def commits_between(repo: Repo, base: str, head: str, *, limit: int = 250) -> list[RangeCommit]:
    """The first-parent commits after `base` up to `head` (commit ids), newest first, at most
    `limit` of them (GitHub lists 250 commits of a pull request)."""
    out: list[RangeCommit] = []
    commit = repo.pygit2.get(head)
    while isinstance(commit, pygit2.Commit) and str(commit.id) != base and len(out) < limit:
        parent = repo.pygit2.get(commit.parent_ids[0]) if commit.parent_ids else None
        if isinstance(parent, pygit2.Commit):
            changed = repo.pygit2.diff(parent.tree, commit.tree)
        else:
            changed = commit.tree.diff_to_tree(swap=True)
        paths = frozenset(p for d in changed.deltas for p in (d.old_file.path, d.new_file.path) if p)
        subject = commit.message.strip().split("\n", 1)[0]
        out.append(RangeCommit(str(commit.id), str(parent.id) if parent is not None else None, subject, paths))
        commit = parent
    return out
