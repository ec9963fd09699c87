"""Work shared with a forked child on two CPUs (check_lean's pages, check --base's sidecars):
a forked child answers about half of the items (by size, in item order) with the same function,
and sends its answers back over a pipe (`marshal` of the plain tuples, lists and dicts an answer
is made of); this process answers the other half, then reads the child's answers to EOF and
waits for it.

The answer is always the one-process answer: None as soon as either half meets an item answered
None (the child is then stopped: its pipe closed, SIGKILL, reaped); if the child fails (an
exception, a signal, an exit status other than 0, answers that do not read back), its items are
answered here. The child ends with os._exit (no atexit handlers, no buffers flushed twice). It is
used only when `may_fork()`: os.fork, two CPUs, and no other thread running (a fork copies only
the calling thread, with whatever locks the others hold); the caller also decides whether its
input is large enough to be worth a second process (check_lean.SPLIT_MIN_BYTES).
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

