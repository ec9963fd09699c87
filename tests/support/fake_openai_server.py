"""A real HTTP server on 127.0.0.1 speaking enough of the OpenAI chat completions API for the
refresher's end-to-end tests: `response_format: json_schema` and `json_object`, tool calls, a 400
on `json_schema` (or on tools) when configured, 429 with Retry-After, slow replies for timeouts, malformed JSON,
and a request that blocks until the test lets it go (or kills the client). Hostile modes: a 200
that is no chat completion (`raw={"choices": []}`, `html=...`), an error that echoes the key
(`echo_key`), and a body trickled one byte at a time (`trickle`), which no read timeout catches.

    with FakeOpenAI() as server:
        server.enqueue(Reply(verdict={...}))          # answered in the request's own format
        ChatOpenAI(base_url=server.base_url, api_key="test", ...)

Each scripted item answers one request, in order; `responder(request_body) -> Reply` answers when
the script is empty. `requests` records every request body; `arrived` is signalled per request.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    verdict: Any = None  # answered as JSON content, or as a tool call when the request asks for tools
    content: str | None = None  # raw assistant content (may be malformed)
    status: int = 200
    error: str = "error"  # message of a non-200 reply
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (timeouts)
    block: threading.Event | None = None  # wait for this event before answering
    usage: tuple[int, int] = (120, 30)  # prompt_tokens, completion_tokens
    as_content: bool = False  # answer a tool request with content instead of a tool call
    # Hostile modes:
    raw: Any = None  # a 200 whose JSON body is exactly this (e.g. {"choices": []})
    html: str | None = None  # a 200 with this text/html body (a login page, a proxy's error page)
    echo_key: bool = False  # the error message quotes the Authorization header it received
    trickle: float = 0.0  # send the body one byte every `trickle` seconds (never a read timeout)


class FakeOpenAI:
    def __init__(
        self,
        *,
        reject_json_schema: bool = False,
        reject_tools: bool = False,
        responder: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> None:
        self.reject_json_schema = reject_json_schema
        self.reject_tools = reject_tools
        self.responder = responder
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.arrived_at: list[float] = []  # time.monotonic() when each request arrived
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        self.closed = threading.Event()  # set on exit: trickling replies stop
        self._connections: set[Any] = set()  # open keep-alive connections, closed on exit
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        import socket

        self.closed.set()
        self._server.shutdown()
        with self.lock:
            connections = list(self._connections)
        for conn in connections:  # a client's idle keep-alive connection: its handler thread ends
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        for thread in threading.enumerate():
            if thread.name.endswith("(process_request_thread)"):
                thread.join(timeout=10)

    def enqueue(self, *replies: Reply) -> FakeOpenAI:
        with self.lock:
            self.script.extend(replies)
        return self

    def wait_for_requests(self, n: int, timeout: float = 30.0) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.requests) >= n, timeout)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            if self.script:
                return self.script.popleft()
        if self.responder is not None:
            return self.responder(body)
        return Reply(status=500, error="the fake server has no scripted reply left")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with server.lock:
                    server._connections.add(self.connection)

            def finish(self) -> None:
                with server.lock:
                    server._connections.discard(self.connection)
                super().finish()

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.arrived:
                    server.requests.append(body)
                    server.arrived_at.append(time.monotonic())
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    server.arrived.notify_all()
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                fmt = (body.get("response_format") or {}).get("type")
                if server.reject_json_schema and fmt == "json_schema":
                    return self._send(
                        400,
                        {"error": {"message": "response_format json_schema is unavailable here", "type": "invalid_request_error"}},
                    )
                if server.reject_tools and body.get("tools"):
                    return self._send(
                        400, {"error": {"message": "tools are not supported by this server", "type": "invalid_request_error"}}
                    )
                reply = server._next(body)
                if reply.block is not None:
                    reply.block.wait()
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.html is not None:
                    return self._send(200, reply.html, reply.headers, content_type="text/html", trickle=reply.trickle)
                if reply.status != 200:
                    kind = "rate_limit_error" if reply.status == 429 else "invalid_request_error"
                    message = reply.error
                    if reply.echo_key:
                        sent = self.headers.get("authorization")
                        message += f" (you sent: {sent}; key {(sent or '').removeprefix('Bearer ')})"
                    return self._send(reply.status, {"error": {"message": message, "type": kind}}, reply.headers)
                payload = reply.raw if reply.raw is not None else completion(body, reply)
                return self._send(200, payload, reply.headers, trickle=reply.trickle)

            def _send(
                self,
                status: int,
                payload: Any,
                headers: dict[str, str] | None = None,
                *,
                content_type: str = "application/json",
                trickle: float = 0.0,
            ) -> None:
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", content_type)
                    self.send_header("content-length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    if not trickle:
                        self.wfile.write(data)
                        return
                    for i in range(len(data)):
                        if server.closed.is_set():
                            return
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(trickle)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout) or was killed

        return Handler


def completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """A chat.completion answering `body` with `reply`, as a tool call if tools were offered."""
    text = reply.content if reply.content is not None else json.dumps(reply.verdict)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    finish = "stop"
    tools = body.get("tools") or []
    if tools and not reply.as_content:
        name = tools[0]["function"]["name"]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}],
        }
        finish = "tool_calls"
    prompt, completion_tokens = reply.usage
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1767225600,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion_tokens, "total_tokens": prompt + completion_tokens},
    }


# -- a model that reads the prompt --------------------------------------------------------------

def user_text(body: dict[str, Any]) -> str:
    parts = []
    for m in body.get("messages", []):
        if m.get("role") == "user":
            content = m.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


def confirm_from_prompt(body: dict[str, Any]) -> dict[str, Any]:
    """The verdict a diligent model would give if the statement held: confirm, quoting the
    current rows of the first evidence's cited part (one unbroken run); retract with nothing shown."""
    from tests.support.model_answers import answer

    return answer(None, user_text(body), retry=True)


def like_a_real_model(body: dict[str, Any]) -> Reply:
    """The reply of a model that answers as the real one did (tests/support/model_answers.py):
    several quotes per definition, quotes cut mid-line, numbering as shown; one plain quote when
    its previous answer was refused."""
    from tests.support.model_answers import answer

    text = user_text(body)
    return Reply(verdict=answer(None, text, retry="could not be applied" in text))


def kill_at_request(server: FakeOpenAI, argv: list[str], n: int, release: threading.Event, env: dict[str, str]) -> int:
    """Run `argv` as a process, SIGKILL it once the server has received `n` requests, then let
    blocked replies go; returns the process's exit status (-SIGKILL when it was killed)."""
    import os
    import signal
    import subprocess

    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        assert server.wait_for_requests(n, timeout=120), proc.stderr.read() if proc.poll() is not None else "no request"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        release.set()
        assert proc.stderr is not None
        proc.stderr.close()
    return proc.returncode


def run_to_exit(server: FakeOpenAI, argv: list[str], env: dict[str, str], limit: float) -> tuple[int | None, float, str, str]:
    """Run `argv` as a process and wait for it to exit on its own, at most `limit` seconds after
    the server received its last request (then it is killed: returncode None). Returns the exit
    status, the seconds from that request to the exit, stdout and stderr: a deadline that does
    not end the process (an abandoned call kept alive by a trickling reply) shows here."""
    import subprocess

    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    code: int | None = None
    try:
        while code is None:
            with server.lock:
                last = server.arrived_at[-1] if server.arrived_at else None
            if last is not None and time.monotonic() - last > limit:
                break
            try:
                code = proc.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                continue
        ended = time.monotonic()
    finally:
        if proc.poll() is None:
            proc.kill()
        out, err = proc.communicate(timeout=30)
    with server.lock:
        last = server.arrived_at[-1] if server.arrived_at else ended
    return code, ended - last, out, err


if __name__ == "__main__":  # pragma: no cover - manual use: a confirm-everything endpoint
    with FakeOpenAI(responder=lambda body: Reply(verdict=confirm_from_prompt(body))) as srv:
        print(srv.base_url, flush=True)
        threading.Event().wait()
