"""Splitting many Markdown texts (`mdsplit.split`) on two CPUs, sharing the work as it goes.

A `SplitJob` holds a list of (text, path) items. For a large input, a forked child starts at the
back of the list (where the largest documents are put) and this process, when it asks for the
front (`front(n)`: the wiki pages, which the claims need first), splits from the front; then
both take what is left, one item at a time, from the two ends of one shared range. Neither waits
for the other until the end (`result()`). So the work is shared evenly whatever this process did
in the meantime (checking claims, building the claims' part of the graph) and however the costs
of the items differ. The child pickles each document into a spool file as soon as it is split
and announces it on a pipe; this process unpickles them between its own items, and the last
ones at the end.

The result is always what splitting one by one in order gives; if the child fails, whatever it
took is split here. Small inputs, one CPU, no 'fork' start method or other threads running:
everything is split here.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import struct
import tempfile
import threading
from collections.abc import Callable
from typing import Any

from openwiki_git.markdown import split as mdsplit

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
        self._child: Any = None
        self._recv: Any = None
        self._lock: Any = None
        self._ends: Any = None  # shared [lo, hi): lo taken by this process, hi by the child
        self._spool: Any = None  # the child's pickled documents
        if parallel is None:
            # Forking a process that runs other threads (an agent's runtime, say) can copy a lock
            # some thread holds: then everything is split here.
            parallel = (
                sum(len(t) for t, _ in items) >= PARALLEL_MIN_CHARS
                and (os.cpu_count() or 1) >= 2
                and "fork" in multiprocessing.get_all_start_methods()
                and threading.active_count() == 1
            )
        if parallel and len(items) >= 2:
            self._start()

    def _start(self) -> None:
        ctx = multiprocessing.get_context("fork")
        self._lock = ctx.Lock()
        self._ends = ctx.RawArray("q", [0, len(self.items)])
        self._spool = tempfile.TemporaryFile()
        recv, send = ctx.Pipe(duplex=False)
        try:
            child = ctx.Process(target=self._child_main, args=(send, recv), daemon=True)
            child.start()
        except OSError:  # no process to be had: split everything here
            send.close()
            recv.close()
            self._spool.close()
            self._ends = None
            return
        send.close()
        self._child, self._recv = child, recv

    # -- taking items ------------------------------------------------------------------------
    def _take_front(self, limit: int) -> int | None:
        """The next item from the front, if it is below `limit` and the child has not taken it."""
        if self._ends is None:  # no child: the items are taken in order
            i = len(self.done)
            return i if i < min(limit, len(self.items)) else None
        with self._lock:
            lo, hi = self._ends
            if lo >= min(hi, limit):
                return None
            self._ends[0] = lo + 1
            return lo

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
        if self._ends is None:
            i = len(self.done) + len(batch)
            return i if i < min(limit, len(self.items)) else None
        return self._take_front(limit)

    def _take_back(self) -> int | None:
        with self._lock:
            lo, hi = self._ends
            if lo >= hi:
                return None
            self._ends[1] = hi - 1
            return hi - 1

    def _child_main(self, send: Any, recv: Any) -> None:  # noqa: ANN401 (Connections)
        """Split from the back; each document is pickled into the spool file as soon as it is
        split (so the pickling is done while this process still shares the work, and never waits
        for a reader), and announced by a short message: (item, offset, length); b"" ends."""
        # The fork gave the child the pipe's read end too: closed, so that when the parent
        # closes its own (`close`), the child's write fails instead of waiting for a reader.
        recv.close()
        try:
            fd, offset = self._spool.fileno(), 0
            while (i := self._take_back()) is not None:
                doc = mdsplit.split(*self.items[i])
                extra = self.after(i, doc) if self.after is not None else None
                data = pickle.dumps((doc, extra), pickle.HIGHEST_PROTOCOL)
                view = memoryview(data)
                while view:
                    view = view[os.pwrite(fd, view, offset + len(data) - len(view)) :]
                send.send_bytes(_RECORD.pack(i, offset, len(data)))
                offset += len(data)
            send.send_bytes(b"")
        finally:
            send.close()

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
        if self._child is not None:
            self._recv.close()
            self._child.join()
            self._child = None
            self._spool.close()

    def __enter__(self) -> SplitJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _receive(self, *, wait: bool) -> None:
        """Unpickle the documents the child has announced; with `wait`, until it is done. The
        child is let go when it is done, dies or sends garbage (then its share is split here)."""
        if self._child is None:
            return
        try:
            while wait or self._recv.poll():
                message = self._recv.recv_bytes()
                if not message:  # the child is done
                    break
                i, offset, length = _RECORD.unpack(message)
                doc, extra = pickle.loads(os.pread(self._spool.fileno(), length, offset))
                if not isinstance(doc, mdsplit.Document):
                    raise TypeError(type(doc).__name__)
                if i not in self.done:
                    self.done[i] = doc
                    if self.after is not None:
                        self.extras[i] = extra
            else:
                return  # nothing more announced yet: carry on
        except Exception:  # noqa: BLE001, S110 (the child died or sent garbage: split its share here)
            pass
        self.close()

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


# A child's message: the item, and where its pickled document is in the spool file.
_RECORD = struct.Struct("<qqq")


def split_many(items: list[tuple[str, str]], *, parallel: bool | None = None) -> list[mdsplit.Document]:
    """`mdsplit.split(text, path)` for each `(text, path)`, in order (see SplitJob)."""
    return SplitJob(items, parallel=parallel).result()
