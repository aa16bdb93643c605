"""A scripted OpenAI-compatible server on 127.0.0.1, for driving the real ChatOpenAI path.

It speaks enough of `/v1/chat/completions` (a JSON body, or SSE `data:` chunks ending in
`data: [DONE]` when the request says `stream: true`, with `usage`) and `/v1/models`. Each
chat request takes the next reply from the test's script; the request bodies are kept in
`requests`, so a test can check what was sent (`response_format` or `tools`, `max_tokens`).

Replies: `answer(payload)` answers in the form the request asked for (a tool call when tools
were sent, else JSON text; streamed when asked); `text(content)` is a plain message (garbage);
`status(code, message)` an error; `stall()` never answers (until the test ends);
`raw(body)` a 200 whose body is not JSON at all.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

SERVER_MODEL = "stub-server-model-q4"
"""The name the stub reports for itself, unlike the name it was asked for."""

Reply = Callable[["_Handler", dict[str, Any]], None]


class OpenAIStub:
    """The running server: its `base_url`, its script and the requests it received."""

    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        """Set when the test ends: stalled handlers stop waiting."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.stub = self  # type: ignore[attr-defined]
        # A short poll, so shutting down at the end of each test is quick.
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def reply(self, *replies: Reply) -> None:
        """Queue replies for the next chat requests, in order."""
        self.script.extend(replies)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(name="openai_stub")
def openai_stub_fixture() -> Iterator[OpenAIStub]:
    """A running stub for one test (import this into a test module to use `openai_stub`)."""
    stub = OpenAIStub()
    stub.start()
    try:
        yield stub
    finally:
        stub.stop()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    @property
    def stub(self) -> OpenAIStub:
        return self.server.stub  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet tests
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [
                {"id": SERVER_MODEL, "object": "model", "created": 0, "owned_by": "stub"}]})
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        self.stub.requests.append(body)
        if not self.stub.script:
            self.send_json(500, {"error": {"message": "stub: no scripted reply left"}})
            return
        self.stub.script.popleft()(self, body)

    def send_json(self, code: int, payload: dict[str, Any]) -> None:
        self.send_bytes(code, json.dumps(payload).encode(), "application/json")

    def send_bytes(self, code: int, data: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_events(self, events: list[dict[str, Any]]) -> None:
        """Send SSE chunks, one `data:` line each, then `[DONE]`, and close."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


# -- replies -------------------------------------------------------------------------------

def answer(payload: dict[str, Any], *, prompt_tokens: int = 50, completion_tokens: int = 10,
           pieces: int = 3) -> Reply:
    """Answer with `payload` as the request asked: a tool call when it sent tools, else
    JSON text; as SSE in `pieces` deltas when it asked for a stream."""
    arguments = json.dumps(payload)

    def send(handler: _Handler, body: dict[str, Any]) -> None:
        tools = body.get("tools") or []
        tool = tools[0]["function"]["name"] if tools else None
        if body.get("stream"):
            handler.send_events(_stream_events(arguments, tool, body, prompt_tokens,
                                               completion_tokens, pieces))
            return
        if tool:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": tool, "arguments": arguments}}]}
            handler.send_json(200, _completion(message, "tool_calls", prompt_tokens,
                                               completion_tokens))
        else:
            handler.send_json(200, _completion({"role": "assistant", "content": arguments},
                                               "stop", prompt_tokens, completion_tokens))

    return send


def text(content: str, *, prompt_tokens: int = 50, completion_tokens: int = 10,
         finish: str = "stop") -> Reply:
    """Reply with a plain text message whatever was asked (e.g. garbage); `finish="length"`
    says the server cut it off at its token limit."""

    def send(handler: _Handler, body: dict[str, Any]) -> None:
        if body.get("stream"):
            handler.send_events(_stream_events(content, None, body, prompt_tokens,
                                               completion_tokens, 1, finish))
            return
        handler.send_json(200, _completion({"role": "assistant", "content": content}, finish,
                                           prompt_tokens, completion_tokens))

    return send


def status(code: int, message: str) -> Reply:
    """Fail with HTTP `code` and an OpenAI-style error body."""

    def send(handler: _Handler, body: dict[str, Any]) -> None:
        handler.send_json(code, {"error": {"message": message, "type": "invalid_request_error"
                                           if code < 500 else "server_error", "code": code}})

    return send


def stall() -> Reply:
    """Never answer while the test runs (the client's timeout must end the request)."""

    def send(handler: _Handler, body: dict[str, Any]) -> None:
        handler.stub.release.wait(timeout=60)

    return send


def raw(data: bytes) -> Reply:
    """A 200 response whose body is not a chat completion at all."""

    def send(handler: _Handler, body: dict[str, Any]) -> None:
        handler.send_bytes(200, data, "application/json")

    return send


def _completion(message: dict[str, Any], finish: str, prompt_tokens: int,
                completion_tokens: int) -> dict[str, Any]:
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
            "model": SERVER_MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def split(text: str, pieces: int) -> list[str]:
    """Cut `text` into `pieces` consecutive parts (the deltas a stream sends)."""
    size = max(1, -(-len(text) // pieces))
    return [text[i:i + size] for i in range(0, len(text), size)]


def _stream_events(content: str, tool: str | None, body: dict[str, Any], prompt_tokens: int,
                   completion_tokens: int, pieces: int, finish: str | None = None
                   ) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0,
                "model": SERVER_MODEL,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": "" if tool is None else None})]
    for i, part in enumerate(split(content, pieces)):
        if tool is None:
            events.append(chunk({"content": part}))
        else:
            call: dict[str, Any] = {"index": 0, "function": {"arguments": part}}
            if i == 0:
                call.update(id="call_1", type="function")
                call["function"]["name"] = tool
            events.append(chunk({"tool_calls": [call]}))
    events.append(chunk({}, finish or ("stop" if tool is None else "tool_calls")))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0,
                       "model": SERVER_MODEL, "choices": [],
                       "usage": {"prompt_tokens": prompt_tokens,
                                 "completion_tokens": completion_tokens,
                                 "total_tokens": prompt_tokens + completion_tokens}})
    return events
