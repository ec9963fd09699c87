"""Splitting many Markdown texts (`mdsplit.split`) on two CPUs, sharing the work as it goes.

A `SplitJob` holds a list of (text, path) items. For a large input, a forked child starts at the
back of the list (where the largest documents are put) and this process, when it asks for the
front (`front(n)`: the wiki pages, which the claims need first), splits from the front; then
both take what is left, one item at a time, from the two ends of one shared range
(parallel.SharedRange: the fork, the range, the child's spool file and messages are the parallel
map's). Neither waits for the other until the end (`result()`). So the work is shared evenly
whatever this process did in the meantime (checking claims, building the claims' part of the
graph) and however the costs of the items differ. The child pickles each document into a spool
file as soon as it is split and announces it; this process unpickles them between its own items,
and the last ones at the end.

The result is always what splitting one by one in order gives; if the child fails, whatever it
took is split here. Small inputs, or no second process to be had (parallel.may_fork: one CPU, no
os.fork, other threads running): everything is split here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openwiki_git.markdown import split as mdsplit
from openwiki_git.parallel import SharedRange, may_fork, start_shared

# Below this many characters in all, a job splits in this process: starting a second process
# (a fork) and pickling its documents back saves nothing. Measured builds (bench_graph's
# repository, scaled down): 0.7 M characters 72 ms in one process / 68 ms in two; 3.1 M
# 246 / 202 ms; 9.4 M 766 / 625 ms.
PARALLEL_MIN_CHARS = 1_000_000


# This process splits its items in batches of at most this many items or (about) characters.
BATCH_ITEMS = 64
BATCH_CHARS = 256_000


class SplitJob:
    """`mdsplit.split(text, path)` of each item, shared with a forked child when large."""

    def __init__(
        self,
        items: list[tuple[str, str]],
        *,
        parallel: bool | None = None,
        after: Callable[[int, mdsplit.Document], Any] | None = None,
    ) -> None:
        """`after(i, document)`, when given, is run where item i is split (in the child too, so
        that its work is shared as well); its answers are in `extras`."""
        self.items = items
        self.after = after
        self.done: dict[int, mdsplit.Document] = {}
        self.extras: dict[int, Any] = {}
        self._shared: SharedRange | None = None  # the range shared with a child; None: no child was started
        if parallel is None:
            # Forking a process that runs other threads (an agent's runtime, say) can copy a lock
            # some thread holds: then everything is split here.
            parallel = sum(len(t) for t, _ in items) >= PARALLEL_MIN_CHARS and may_fork()
        if parallel and len(items) >= 2:
            self._shared = start_shared(len(items), self._split_one, _is_split)

    def _split_one(self, i: int) -> tuple[mdsplit.Document, Any]:
        """Item i split, with `after`'s answer (the child's work)."""
        doc = mdsplit.split(*self.items[i])
        return doc, self.after(i, doc) if self.after is not None else None

    # -- taking items ------------------------------------------------------------------------
    def _take_front(self, limit: int) -> int | None:
        """The next item from the front, if it is below `limit` and the child has not taken it."""
        if self._shared is None:  # no child: the items are taken in order
            i = len(self.done)
            return i if i < min(limit, len(self.items)) else None
        return self._shared.take_front(limit)

    def _take_batch(self, limit: int) -> list[int]:
        """Items from the front, one by one (the child takes from the other end meanwhile), up
        to `BATCH_ITEMS` of them or `BATCH_CHARS` characters: `mdsplit.split_batch` shares its
        per-call costs over small pages, and a batch is small enough to keep the sharing even."""
        batch: list[int] = []
        chars = 0
        while len(batch) < BATCH_ITEMS and chars < BATCH_CHARS and (i := self._take_front_after(batch, limit)) is not None:
            batch.append(i)
            chars += len(self.items[i][0])
        return batch

    def _take_front_after(self, batch: list[int], limit: int) -> int | None:
        """`_take_front`, items already in `batch` counted as taken: without a child,
        `_take_front` takes the first item not done, and a batch is done only once split."""
        if self._shared is None:
            i = len(self.done) + len(batch)
            return i if i < min(limit, len(self.items)) else None
        return self._take_front(limit)

    # -- results -----------------------------------------------------------------------------
    def front(self, n: int) -> list[mdsplit.Document]:
        """The documents of items [0, n): split here, unless the child has taken some of them
        (then its documents are waited for)."""
        while batch := self._take_batch(n):
            for i, doc in zip(batch, mdsplit.split_batch([self.items[i] for i in batch])):
                self._keep(i, doc)
            self._receive(wait=False)  # unpickle as we go what the child has sent
        if not all(i in self.done for i in range(n)):
            self._join()
        return [self.done[i] for i in range(n)]

    def result(self) -> list[mdsplit.Document]:
        """Every item's document, in order: this process splits what is left, then joins."""
        self.front(len(self.items))
        self._join()
        return [self.done[i] for i in range(len(self.items))]

    def close(self) -> None:
        """Done with the child (or giving up on it after an error here): closing the pipe ends it."""
        if self._shared is not None:
            self._shared.close()

    def __enter__(self) -> SplitJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _receive(self, *, wait: bool) -> None:
        """The documents the child has announced, unpickled; with `wait`, until it is done (see
        parallel.SharedRange.receive: a child that dies or sends garbage leaves its share here)."""
        if self._shared is not None:
            self._shared.receive(self._received, wait=wait)

    def _received(self, i: int, answer: tuple[mdsplit.Document, Any]) -> None:
        if i not in self.done:
            self.done[i] = answer[0]
            if self.after is not None:
                self.extras[i] = answer[1]

    def _join(self) -> None:
        """Wait for the child's documents; split here whatever it took and did not send."""
        self._receive(wait=True)
        for i, item in enumerate(self.items):
            if i not in self.done:
                self._keep(i, mdsplit.split(*item))

    def _keep(self, i: int, doc: mdsplit.Document) -> None:
        self.done[i] = doc
        if self.after is not None:
            self.extras[i] = self.after(i, doc)


def _is_split(answer: Any) -> bool:
    """Whether a child's answer reads back as (document, after's answer)."""
    return type(answer) is tuple and len(answer) == 2 and isinstance(answer[0], mdsplit.Document)


def split_many(items: list[tuple[str, str]], *, parallel: bool | None = None) -> list[mdsplit.Document]:
    """`mdsplit.split(text, path)` for each `(text, path)`, in order (see SplitJob)."""
    return SplitJob(items, parallel=parallel).result()
