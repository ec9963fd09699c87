"""graph_split: many texts split on two CPUs give what splitting them one by one gives (the range
shared with the child is parallel.SharedRange's)."""

from __future__ import annotations

import os
import random
import time
from typing import Any

import pytest

from openwiki_git import parallel
from openwiki_git.graph import split as graph_split
from openwiki_git.markdown import split as mdsplit
from tests.support.samples import DOC
from tests.support.samples import document_state as _state
from tests.support.samples import random_markdown as _random_markdown


def _items() -> list[tuple[str, str]]:
    rng = random.Random(13)
    return [(_random_markdown(rng), f"docs/{i}.md") for i in range(301)] + [(DOC, "x.md"), ("", "empty.md")]


def test_split_many_in_parallel_matches_splitting_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    items = _items()
    one_by_one = [_state(mdsplit.split(t, p)) for t, p in items]
    assert [_state(d) for d in graph_split.split_many(items, parallel=False)] == one_by_one
    assert [_state(d) for d in graph_split.split_many(items, parallel=True)] == one_by_one
    # The automatic choice: small inputs stay in this process; large ones are split in two.
    monkeypatch.setattr(graph_split, "PARALLEL_MIN_CHARS", 1)
    assert [_state(d) for d in graph_split.split_many(items)] == one_by_one
    assert [_state(d) for d in graph_split.split_many(items[:1], parallel=True)] == one_by_one[:1]
    assert graph_split.split_many([]) == []


@pytest.mark.parametrize("parallel", [False, True])
def test_front_first_then_the_rest_from_both_ends(parallel: bool) -> None:
    """The front (pages) is split here as asked; the child works from the back meanwhile; every
    document comes back once, in order, with its paragraph keys."""
    items = _items()
    with graph_split.SplitJob(items, parallel=parallel) as job:
        front = job.front(50)
        everything = job.result()
    assert [_state(d) for d in front] == [_state(mdsplit.split(t, p)) for t, p in items[:50]]
    assert [_state(d) for d in everything] == [_state(mdsplit.split(t, p)) for t, p in items]
    assert everything[:50] == front  # the same objects: not split twice
    assert [d.path for d in everything] == [p for _, p in items]


def test_front_waits_for_what_the_child_took() -> None:
    """When the child has taken items of the front (it got there first), `front` waits for its
    documents instead of splitting them again."""
    items = [(DOC, f"x{i}.md") for i in range(6)]
    with graph_split.SplitJob(items, parallel=True) as job:
        assert job._shared is not None
        while job._shared._ends[0] < job._shared._ends[1]:  # the child takes everything (it sends on `front`'s wait)
            time.sleep(0.01)
        front = job.front(3)
        rest = job.result()
    assert [d.path for d in front] == ["x0.md", "x1.md", "x2.md"]
    assert [_state(d) for d in rest] == [_state(mdsplit.split(t, p)) for t, p in items]


def test_split_here_when_the_child_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: parallel.SharedRange, send: Any, recv: Any) -> None:  # noqa: ANN401
        while self._take_back() is not None:  # takes its share, then sends garbage
            pass
        send.send_bytes(b"not a pickle")
        send.close()

    monkeypatch.setattr(parallel.SharedRange, "_child_main", broken)
    items = [(DOC, f"x{i}.md") for i in range(5)]
    with graph_split.SplitJob(items, parallel=True) as job:
        got = job.result()
    assert [_state(d) for d in got] == [_state(mdsplit.split(t, p)) for t, p in items]


def test_closing_early_ends_the_child() -> None:
    """An error while the child works: closing the job ends the child, nothing is left behind."""
    items = [(DOC * 50, f"x{i}.md") for i in range(40)]
    job = graph_split.SplitJob(items, parallel=True)
    assert job._shared is not None
    child = job._shared._child
    with pytest.raises(RuntimeError), job:
        raise RuntimeError("the claims check failed")
    assert child is not None and not child.is_alive()


def test_no_fork_while_other_threads_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    monkeypatch.setattr(graph_split, "PARALLEL_MIN_CHARS", 1)
    items = _items()
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        job = graph_split.SplitJob(items)
        assert job._shared is None
        assert [_state(d) for d in job.result()] == [_state(mdsplit.split(t, p)) for t, p in items]
    finally:
        stop.set()
        worker.join()
    with graph_split.SplitJob(items) as job:  # the thread is gone: a child again
        forked = job._shared is not None
        job.result()
    assert forked or (os.cpu_count() or 1) == 1
