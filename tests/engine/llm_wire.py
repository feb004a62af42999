"""A scripted LLM server on 127.0.0.1 speaking the OpenAI and Anthropic wire formats.

Tests queue "acts" (what the next request gets: a stream, a status, a stall, a cut stream,
garbage) and read back what the client sent. Used by test_providers_* and test_summarize.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Act:
    """What the server does for one request."""

    kind: str  # "stream" | "status" | "stall" | "cut" | "malformed" | "json" | "slow"
    text: str = "## Goal\n- ok"
    status: int = 200
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    usage: tuple[int, int] = (120, 30)
    seconds: float = 0.0
    error_event: str | None = None


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def _openai_events(act: Act) -> Iterator[bytes]:
    words = act.text.split(" ")
    pieces = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]
    for i, piece in enumerate(pieces):
        chunk = {"id": "c1", "model": "wire-model",
                 "choices": [{"index": 0, "delta": {"content": piece},
                              "finish_reason": "stop" if i == len(pieces) - 1 else None}]}
        yield f"data: {json.dumps(chunk)}\n\n".encode()
    usage = {"prompt_tokens": act.usage[0], "completion_tokens": act.usage[1],
             "total_tokens": sum(act.usage)}
    yield f"data: {json.dumps({'id': 'c1', 'choices': [], 'usage': usage})}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _anthropic_events(act: Act) -> Iterator[bytes]:
    yield _event("message_start", {"type": "message_start", "message": {
        "id": "m1", "type": "message", "role": "assistant", "model": "wire-claude",
        "content": [], "usage": {"input_tokens": act.usage[0], "output_tokens": 1,
                                 "cache_read_input_tokens": 7}}})
    yield _event("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}})
    yield _event("ping", {"type": "ping"})
    if act.error_event:
        yield _event("error", {"type": "error", "error": {"type": act.error_event,
                                                          "message": "Overloaded"}})
        return
    for word in act.text.split(" "):
        yield _event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "text_delta", "text": word + " "}})
    yield _event("content_block_stop", {"type": "content_block_stop", "index": 0})
    yield _event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                   "usage": {"output_tokens": act.usage[1]}})
    yield _event("message_stop", {"type": "message_stop"})


class WireServer:
    """``url`` is the base; ``acts`` a queue (the default act answers when it is empty)."""

    def __init__(self) -> None:
        self.acts: deque[Act] = deque()
        self.default = Act("stream")
        self.seen: list[Seen] = []
        self.stop = threading.Event()
        self.chooser: Callable[[Seen], Act | None] | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()},
                            json.loads(raw or b"{}"))
                server.seen.append(seen)
                act = (server.chooser(seen) if server.chooser else None) or (
                    server.acts.popleft() if server.acts else server.default)
                server.perform(self, act, "anthropic" in self.path or "messages" in self.path)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def perform(self, h: BaseHTTPRequestHandler, act: Act, anthropic: bool) -> None:
        if act.kind == "stall":
            self.stop.wait(act.seconds)
            return
        if act.kind == "status":
            body = act.body.encode()
            h.send_response(act.status)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(body)))
            for k, v in act.headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(body)
            return
        if act.kind == "json":
            body = json.dumps({"model": "wire-model", "choices": [{"message": {
                "role": "assistant", "content": act.text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": act.usage[0], "completion_tokens": act.usage[1]}}
            ).encode()
            h.send_response(200)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.send_header("connection", "close")
        h.end_headers()
        events = list(_anthropic_events(act) if anthropic else _openai_events(act))
        if act.kind == "malformed":
            events = events[:1] + [b"data: {not json at all\n\n"] + events[1:]
        if act.kind == "cut":
            events = events[: max(1, len(events) // 3)]
            events[-1] = events[-1][:-1]  # and cut inside the last event
        for i, chunk in enumerate(events):
            h.wfile.write(chunk)
            h.wfile.flush()
            if act.kind == "slow" and i == 1:
                self.stop.wait(act.seconds)
                if self.stop.is_set():
                    return

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def serve() -> Iterator[WireServer]:
    """Body of a test's ``wire`` fixture: a server for the test, closed afterwards."""
    server = WireServer()
    try:
        yield server
    finally:
        server.close()
