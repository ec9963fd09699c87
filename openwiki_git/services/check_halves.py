"""check_lean's pages judged on two CPUs (and check --base's sidecars scanned on two: split_map):
a forked child judges about half of them (by sidecar size, in page order) with the same per-page
function, and sends its answers back over a pipe
(`marshal` of the plain tuples, lists and dicts a page's answer is made of); this process judges
the other half, then reads the child's answers to EOF and waits for it.

The answer is always the one-process answer: None as soon as either half meets a page that is
not plainly fresh (the child is then stopped: its pipe closed, SIGKILL, reaped); if the child
fails (an exception, a signal, an exit status other than 0, answers that do not read back), its
pages are judged here. The child ends with os._exit (no atexit handlers, no buffers flushed
twice). Small wikis, one CPU, no os.fork, or other threads running (a fork copies only the calling
thread, with whatever locks the others hold): `each` answers NOT_SPLIT and check_lean judges in
one process.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported on check's lean and warm paths (2-3 ms); type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

# Below this many bytes of sidecars in all, check_lean judges in one process: the fork, the
# marshalling and the copy-on-write faults cost about what half the judging saves. Measured
# (check_lean.judge in fresh processes, 8 each, median one process / two; bench_check.build's
# repositories, about 0.95 kB of sidecar a claim): 500 claims (0.5 MB) 8.0 / 11.8 ms; 1,000
# (1.0 MB) 14.5 / 16.9 ms; 2,000 (1.9 MB) 26.8 / 27.9 ms; 4,000 (3.8 MB) 53.3 / 49.0 ms; 10,000
# (9.4 MB) about 150-220 / 90-125 ms (docs/benchmarks.md).
SPLIT_MIN_BYTES = 2_500_000

NOT_SPLIT = object()  # `each`'s answer when it did not split: judge in one process


def possible() -> bool:
    """Whether this process may fork a second one to judge in: os.fork, two CPUs, one thread."""
    threads = sys.modules.get("threading")
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and (threads is None or threads.active_count() == 1)


def wanted(total_bytes: int) -> bool:
    """Whether a wiki of `total_bytes` of sidecars is worth a second process here."""
    return total_bytes >= SPLIT_MIN_BYTES and possible()


def split_map(items: list[str], sizes: list[int], answer: Callable[[str], Any]) -> dict[str, Any] | None:
    """{item: answer(item)} from two processes, for an `answer` that is never None (check
    --base's one-shot scan of the sidecars, caches/cites.CiteIndex's `split`); None when the
    items are too few bytes for a second process, or none could be started: answer them here."""
    if not wanted(sum(sizes)):
        return None
    got = each(items, sizes, answer)
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


def each(pages: list[str], sizes: list[int], judge: Callable[[str], Any]) -> dict[str, Any] | None | object:
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
