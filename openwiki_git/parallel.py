"""The one parallel map: work shared with a forked child on two CPUs, the only place a process is
forked (tests/test_layers.py keeps it so), in the two shapes its callers need, each with the
answer one process gives.

- `map_in_halves` (check_unchanged's pages, check --base's sidecars through `map_all_in_halves`): a
  forked child answers about half of the items (by size, in item order) with the same function,
  and sends its answers back over a pipe (`marshal` of the plain tuples, lists and dicts an
  answer is made of); this process answers the other half, then reads the child's answers to EOF
  and waits for it. The answer is always the one-process answer: None as soon as either half
  meets an item answered None (the child is then stopped: its pipe closed, SIGKILL, reaped); if
  the child fails (an exception, a signal, an exit status other than 0, answers that do not read
  back), its items are answered here. The child ends with os._exit (no atexit handlers, no
  buffers flushed twice). It imports no more than `marshal`: check's lean path uses it.
- `SharedRange` (graph/split.py's documents): this process takes items from the front of one
  shared range while a forked child (multiprocessing's fork context, imported only then) takes
  them from the back, one at a time under a lock, until they meet: so the work is shared evenly
  whatever this process does in the meantime. The child pickles each answer into a spool file as
  soon as it has it and announces it on a pipe; this process reads them as it goes
  (`receive`). An answer that does not read back, or a child that dies, lets the child go: the
  caller answers whatever it did not receive.

Either is used only when `may_fork()`: os.fork, two CPUs, and no other thread running (a fork
copies only the calling thread, with whatever locks the others hold); each caller also decides
whether its input is large enough to be worth a second process (check_unchanged.SPLIT_MIN_BYTES,
graph/split.PARALLEL_MIN_CHARS).
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

NOT_SPLIT = object()  # map_in_halves' answer when it did not split: answer in one process


def may_fork() -> bool:
    """Whether this process may fork a second one to share work with: os.fork, two CPUs, one thread."""
    threads = sys.modules.get("threading")
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and (threads is None or threads.active_count() == 1)


def map_all_in_halves(items: list[str], sizes: list[int], answer: Callable[[str], Any], *, min_size: int) -> dict[str, Any] | None:
    """{item: answer(item)} from two processes, for an `answer` that is never None (check
    --base's one-shot scan of the sidecars, caches/cites.CiteIndex's `split`); None when the
    items are fewer than `min_size` bytes in all (`sizes`), or no second process could be
    started: answer them here."""
    if not (sum(sizes) >= min_size and may_fork()):
        return None
    got = map_in_halves(items, sizes, answer)
    return None if got is NOT_SPLIT or got is None else got  # type: ignore[return-value]


def halves(pages: list[str], sizes: list[int]) -> tuple[list[str], list[str]]:
    """The pages split in two of about equal bytes, each in page order: each page goes to the
    lighter half so far (this process's first)."""
    mine: list[str] = []
    theirs: list[str] = []
    weight = [0, 0]
    for page, size in zip(pages, sizes):
        side = 0 if weight[0] <= weight[1] else 1
        (mine if side == 0 else theirs).append(page)
        weight[side] += size
    return mine, theirs


def map_in_halves(pages: list[str], sizes: list[int], judge: Callable[[str], Any]) -> dict[str, Any] | None | object:
    """{page: judge(page)} for every page, judged in two processes; None when a page's answer
    is None; NOT_SPLIT when no child could be started (nothing judged)."""
    mine, theirs = halves(pages, sizes)
    theirs_answers: list[Any] | None
    if not theirs:
        return NOT_SPLIT
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return NOT_SPLIT
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return NOT_SPLIT
    if pid == 0:  # the child: never returns
        _child(read_end, write_end, theirs, judge)
    os.close(write_end)
    try:
        answers: dict[str, Any] = {}
        for page in mine:
            answer = judge(page)
            if answer is None:
                return None
            answers[page] = answer
        theirs_answers = _received(read_end, pid, len(theirs))
        pid = 0
    finally:
        os.close(read_end)  # the child's writes now fail (EPIPE) rather than wait for a reader
        if pid:
            _stop(pid)
    if theirs_answers is None:  # the child failed: its pages are judged here
        theirs_answers = []
        for page in theirs:
            theirs_answers.append(judge(page))
            if theirs_answers[-1] is None:
                break
    if theirs_answers[-1] is None:  # a page (the child's) that is not plainly fresh
        return None
    answers.update(zip(theirs, theirs_answers))
    return answers


def _child(read_end: int, write_end: int, pages: list[str], judge: Callable[[str], Any]) -> None:
    """Judge `pages` up to the first answered None, write marshal([answers]) and exit 0; on any
    failure exit 1 without writing the rest."""
    status = 1
    try:
        os.close(read_end)
        out = []
        for page in pages:
            out.append(judge(page))
            if out[-1] is None:
                break
        view = memoryview(marshal.dumps(out))
        while view:
            view = view[os.write(write_end, view) :]
        status = 0
    except BaseException:  # noqa: BLE001, S110 - whatever went wrong, the parent judges these pages
        pass
    finally:
        os._exit(status)


def _received(read_end: int, pid: int, count: int) -> list[Any] | None:
    """The child's answers read to EOF, once it has exited 0 (the child reaped); None when it
    failed or what it sent does not read back as its `count` answers or as those up to a None."""
    chunks = []
    try:
        while chunk := os.read(read_end, 1 << 20):
            chunks.append(chunk)
    except OSError:
        _stop(pid)
        return None
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:  # reaped already (SIGCHLD ignored): its exit status is not known
        return None
    if status != 0:
        return None
    try:
        answers = marshal.loads(b"".join(chunks))
    except (EOFError, ValueError, TypeError):
        return None
    if type(answers) is not list or not answers or len(answers) > count:
        return None
    if len(answers) < count and answers[-1] is not None:
        return None
    return answers


def _stop(pid: int) -> None:
    """The child stopped and reaped (it may have exited already)."""
    import signal  # only here: the import costs the usual run a little

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


# -- one range shared from both ends (graph/split.py) -----------------------------------------------
class SharedRange:
    """Items [0, count) shared with a forked child: this process takes them from the front
    (`take_front`), the child from the back, `work(i)` each, until they meet (see the module's
    docstring). `receive` hands over the child's answers; `close` ends the child."""

    def __init__(self, count: int, work: Callable[[int], Any], valid: Callable[[Any], bool]) -> None:
        """Not started: `start_shared` starts one (None when no process could be had)."""
        import multiprocessing  # only here: check's lean path imports this module
        import struct
        import tempfile

        self.count, self._work, self._valid = count, work, valid
        ctx = multiprocessing.get_context("fork")
        self._lock = ctx.Lock()
        self._ends = ctx.RawArray("q", [0, count])  # [lo, hi): lo taken by this process, hi by the child
        self._spool = tempfile.TemporaryFile()  # the child's pickled answers
        self._record = struct.Struct("<qqq")  # a child's message: the item, and where its answer is in the spool
        self._ctx: Any = ctx
        self._child: Any = None
        self._recv: Any = None

    def _start(self) -> bool:
        recv, send = self._ctx.Pipe(duplex=False)
        try:
            child = self._ctx.Process(target=self._child_main, args=(send, recv), daemon=True)
            child.start()
        except OSError:  # no process to be had: the caller does everything
            send.close()
            recv.close()
            self._spool.close()
            return False
        send.close()
        self._child, self._recv = child, recv
        return True

    def take_front(self, limit: int) -> int | None:
        """The next item from the front, if it is below `limit` and the child has not taken it."""
        with self._lock:
            lo, hi = self._ends
            if lo >= min(hi, limit):
                return None
            self._ends[0] = lo + 1
            return lo

    def _take_back(self) -> int | None:
        with self._lock:
            lo, hi = self._ends
            if lo >= hi:
                return None
            self._ends[1] = hi - 1
            return hi - 1

    def _child_main(self, send: Any, recv: Any) -> None:  # noqa: ANN401 (Connections)
        """Work from the back; each answer is pickled into the spool file as soon as it is had (so
        the pickling is done while this process still shares the work, and never waits for a
        reader), and announced by a short message: (item, offset, length); b"" ends."""
        import pickle

        # The fork gave the child the pipe's read end too: closed, so that when the parent
        # closes its own (`close`), the child's write fails instead of waiting for a reader.
        recv.close()
        try:
            fd, offset = self._spool.fileno(), 0
            while (i := self._take_back()) is not None:
                data = pickle.dumps(self._work(i), pickle.HIGHEST_PROTOCOL)
                view = memoryview(data)
                while view:
                    view = view[os.pwrite(fd, view, offset + len(data) - len(view)) :]
                send.send_bytes(self._record.pack(i, offset, len(data)))
                offset += len(data)
            send.send_bytes(b"")
        finally:
            send.close()

    def receive(self, keep: Callable[[int, Any], None], *, wait: bool) -> None:
        """`keep(i, answer)` for each answer the child has announced; with `wait`, until it is done.
        The child is let go when it is done, dies or sends what does not read back as a `valid`
        answer (then its share is the caller's)."""
        if self._child is None:
            return
        import pickle

        try:
            while wait or self._recv.poll():
                message = self._recv.recv_bytes()
                if not message:  # the child is done
                    break
                i, offset, length = self._record.unpack(message)
                answer = pickle.loads(os.pread(self._spool.fileno(), length, offset))
                if not self._valid(answer):
                    raise TypeError(type(answer).__name__)
                keep(i, answer)
            else:
                return  # nothing more announced yet: carry on
        except Exception:  # noqa: BLE001, S110 (the child died or sent garbage: its share is the caller's)
            pass
        self.close()

    def close(self) -> None:
        """Done with the child (or giving up on it after an error here): closing the pipe ends it."""
        if self._child is not None:
            self._recv.close()
            self._child.join()
            self._child = None
            self._spool.close()


def start_shared(count: int, work: Callable[[int], Any], valid: Callable[[Any], bool]) -> SharedRange | None:
    """A SharedRange of `count` items with its child started, or None when no process could be
    had (the caller then does everything in this process)."""
    shared = SharedRange(count, work, valid)
    return shared if shared._start() else None
