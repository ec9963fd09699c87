"""The scripted fake model of the tests (and bench/): the refresher's `Refresher` protocol,
answers taken from a script, everything else on the real code path."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

from openwiki_git.refresh.prompt import estimate_tokens
from openwiki_git.refresh.protocol import (
    RefreshCallError,
    ReviewRequest,
    Usage,
    VerdictResponse,
    parse_json_answer,
)


class ScriptedRefresher:
    """A fake model for tests. Each `review` pops the next scripted item:

    - a dict (or any JSON value): the parsed answer;
    - a str: the answer's text, parsed like a real model's (may be malformed);
    - a VerdictResponse: returned as is;
    - an exception: raised (e.g. RefreshCallError("timeout"));
    - a callable(request) -> any of the above.

    With no item left it raises a fatal RefreshCallError. `history` holds every request."""

    def __init__(
        self, items: Iterable[Any] = (), *, method: str = "scripted", sequential: bool = True, delay: float = 0.0
    ) -> None:
        self.queue: deque[Any] = deque(items)
        self.history: list[ReviewRequest] = []
        self.method = method
        # One claim at a time keeps a script's order meaningful; `sequential=False` (with answers
        # chosen by claim id) lets the run send claims concurrently, each taking `delay` seconds.
        self.sequential = sequential
        self.delay = delay
        self._lock = threading.Lock()

    def enqueue(self, *items: Any) -> ScriptedRefresher:
        self.queue.extend(items)
        return self

    def review(self, request: ReviewRequest) -> VerdictResponse:
        with self._lock:
            self.history.append(request)
            if not self.queue:
                raise RefreshCallError("the scripted model has no answer left", fatal=True)
            item = self.queue.popleft()
        if self.delay:
            time.sleep(self.delay)
        if callable(item) and not isinstance(item, type):
            item = item(request)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, VerdictResponse):
            return item
        tokens_in = estimate_tokens(request.system + "".join(request.messages))
        if isinstance(item, str):
            usage = Usage(tokens_in, estimate_tokens(item))
            try:
                return VerdictResponse(parse_json_answer(item), item, None, usage, self.method)
            except ValueError as e:
                return VerdictResponse(None, item, f"the answer is not JSON: {e}", usage, self.method)
        raw = json.dumps(item, ensure_ascii=False)
        return VerdictResponse(item, raw, None, Usage(tokens_in, estimate_tokens(raw)), self.method)
