"""Fixtures for the compaction GUI tests: a transcript made in code, a qasync loop, the app
with the compaction tabs mounted, and a scripted OpenAI Chat Completions server on 127.0.0.1.

``tests/gui/conftest.py`` imports the fixtures (``qloop``, ``make_app``, ``openai_server``);
test modules import the helpers.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import qasync
from gui_flows import open_and_settle
from gui_transcripts import entry, message, usage, write_rows

from sessionlens.engine import ensure_tiktoken_data
from sessionlens.gui.compaction_mount import CompactionParts, build_compaction, mount_compaction
from sessionlens.gui.controller import SessionController
from sessionlens.gui.paths import AppPaths
from sessionlens.gui.prefs import Prefs
from sessionlens.gui.tasks import TaskRunner

#: A key-shaped secret and a URL password planted in a tool result (the scanner must find both).
SECRET_KEY = "sk-proj-" + "Q7rT2vX9wK4mN8pL3sD6fG1hJ5"
URL_PASSWORD = "hunter2-Secret"
SESSION_ID = "6f2c1a9e-0b7d-4c55-9a3e-1d2f3a4b5c6d"
FILE_NAME = f"2026-02-01T10-00-00-000Z_{SESSION_ID}.jsonl"


def compaction_rows(turns: int = 10) -> list[dict[str, Any]]:
    """A v3 session: user asks naming paths, the agent runs commands and reads files; one tool
    result prints a key and a database URL with a password."""
    a = {"api": "openai-completions", "provider": "openai", "model": "gpt-4o"}
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": SESSION_ID,
                                   "timestamp": "2026-02-01T10:00:00.000Z", "cwd": "/work/app"}]
    parent: str | None = None
    n = 0

    def add(row: dict[str, Any]) -> None:
        nonlocal parent, n
        rows.append(row)
        parent, n = row["id"], n + 1

    for t in range(turns):
        add(message(f"u{t:07d}", parent, n, role="user", content=[{"type": "text", "text": (
            f"Step {t}: fix the import error in src/app/module_{t}.py and run the tests. "
            + "Context line. " * 60)}]))
        add(message(f"a{t:07d}", parent, n, role="assistant", stopReason="toolUse",
                    usage=usage(4000 + t * 2500), content=[
                        {"type": "text", "text": f"Reading src/app/module_{t}.py first."},
                        {"type": "toolCall", "id": f"call{t}", "name": "read",
                         "arguments": {"path": f"src/app/module_{t}.py"}}], **a))
        out = f"def handler_{t}():\n    return {t}\n" * 40
        if t == 2:
            out += (f"\nOPENAI_API_KEY={SECRET_KEY}\n"
                    f"DATABASE_URL=postgres://admin:{URL_PASSWORD}@db.internal:5432/app\n")
        add(message(f"r{t:07d}", parent, n, role="toolResult", toolCallId=f"call{t}",
                    toolName="read", content=[{"type": "text", "text": out}]))
        add(message(f"d{t:07d}", parent, n, role="assistant", stopReason="stop",
                    usage=usage(5000 + t * 2500), content=[{"type": "text", "text": (
                        f"Fixed module_{t}. Ran `pytest tests/test_module_{t}.py -q`: 12 passed.")}],
                    **a))
    add(entry("model_change", "mc000001", parent, n, provider="openai", modelId="gpt-4o"))
    return rows


def write_session(folder: Path, *, store: bool = False) -> Path:
    """The transcript (and optionally a sessions.json naming it) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = write_rows(folder / FILE_NAME, compaction_rows())
    if store:
        (folder / "sessions.json").write_text(json.dumps({"agent:main:main": {
            "sessionId": SESSION_ID, "sessionFile": FILE_NAME, "updatedAt": 1769940000000}},
            indent=2) + "\n", encoding="utf-8")
    return path


def listing(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` with its bytes (to prove what was and was not written)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def qloop(qapp: Any) -> Iterator[qasync.QEventLoop]:
    """An asyncio loop driven by Qt; qtbot.wait*/waitUntil also run its tasks.

    Teardown does not call ``loop.stop()``: qasync's stop calls ``QApplication.exit()``,
    which, with no Qt loop running, leaves Qt's quit flag set, and every later
    ``QEventLoop.exec`` (pytest-qt's waitSignal) would return at once. The loop is marked
    stopped directly instead (qasync keeps that flag name-mangled).
    """
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    # qasync does not install asyncio's async-generator hooks (asyncio.run does): without
    # them an SSE generator left at "[DONE]" is closed outside the loop, which httpx reports
    old_hooks = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(firstiter=loop._asyncgen_firstiter_hook,
                           finalizer=loop._asyncgen_finalizer_hook)
    yield loop
    # let cancelled tasks and async-generator finalizers finish on the loop before closing it
    # (a task destroyed while pending would close httpx's streams outside any task)
    loop.create_task(loop.shutdown_asyncgens())
    for task in asyncio.all_tasks(loop):
        task.cancel()
    deadline = time.monotonic() + 5
    while any(not t.done() for t in asyncio.all_tasks(loop)) and time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.002)
    loop._QEventLoop__is_running = False  # type: ignore[attr-defined]
    asyncio.events._set_running_loop(None)
    loop.close()
    asyncio.set_event_loop(None)
    sys.set_asyncgen_hooks(*old_hooks)


@dataclass
class Ctx:
    """What the compaction parts need from the app: the session controller, the task runner
    and the sandboxed paths; ``window`` is set when the real main window was built."""

    controller: SessionController
    tasks: TaskRunner
    paths: AppPaths
    window: Any = None


@pytest.fixture
def make_app(qtbot: Any, tmp_path: Path) -> Iterator[Any]:
    """The app's session controller and task runner without the main window: the parts are
    built standalone (faster, and no pyqtgraph plot per test). One test mounts them into the
    real window through ``make_main_window``."""
    made: list[Ctx] = []

    def factory() -> Ctx:
        paths = AppPaths.resolve(tmp_path / "basedir").ensure()
        ensure_tiktoken_data(None)
        tasks = TaskRunner()
        ctx = Ctx(SessionController(tasks, Prefs(paths.settings_file)), tasks, paths)
        made.append(ctx)
        return ctx

    yield factory
    for ctx in made:
        ctx.tasks.shutdown()


def settle(qtbot: Any, ctx: Any) -> None:
    """Let the session controller finish what an accept or undo set off (reload, count,
    plan) before the test ends, so no job or timer outlives the window."""
    qtbot.waitUntil(lambda: not ctx.controller.is_busy(), timeout=30_000)
    qtbot.wait(100)


def mount(qtbot: Any, ctx: Any, path: Path, *, keep_recent: int = 3000,
          wait_plan: bool = True) -> CompactionParts:
    """Mount the compaction parts (as tabs when ``ctx`` has a window), open ``path`` and wait
    for a plan with ``keep_recent``."""
    if ctx.window is not None:  # the app mounts the tabs itself (app.build)
        parts = getattr(ctx, "compaction", None) or mount_compaction(
            ctx.window, ctx.controller, ctx.tasks, ctx.paths)
    else:
        parts = build_compaction(ctx.controller, ctx.tasks, ctx.paths)
        for widget in (parts.panel, parts.compare, parts.audit):
            qtbot.addWidget(widget)
    open_and_settle(qtbot, ctx, path)
    if not wait_plan:
        return parts
    parts.panel.keep_recent.setValue(keep_recent)
    parts.panel.request_plan()
    qtbot.waitUntil(lambda: not parts.panel.form.replan_pending
                    and parts.controller.plan is not None
                    and parts.controller.plan.keep_recent_tokens == keep_recent, timeout=10_000)
    return parts


# --------------------------------------------------------------------------- OpenAI wire server

@dataclass
class Script:
    """What the server answers: a stream of ``pieces`` with ``delay`` seconds between them,
    or an HTTP ``status`` with ``error`` as the message."""

    pieces: list[str] = field(default_factory=lambda: ["## Goal\n- fix imports\n"])
    delay: float = 0.0
    status: int = 200
    error: str = ""


class OpenAIServer:
    """A threaded HTTP server speaking the Chat Completions streaming protocol (SSE)."""

    def __init__(self) -> None:
        self.script = Script()
        self.bodies: list[dict[str, Any]] = []
        self.pieces_sent = 0
        self.disconnected = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                server.bodies.append(json.loads(raw))
                s = server.script
                if s.status != 200:
                    body = json.dumps({"error": {"message": s.error, "type": "invalid_request"}})
                    self.send_response(s.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body.encode())
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                try:
                    for i, piece in enumerate(s.pieces):
                        last = i == len(s.pieces) - 1
                        chunk = {"id": "c1", "model": "wire-model", "choices": [{
                            "index": 0, "delta": {"content": piece},
                            "finish_reason": "stop" if last else None}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        server.pieces_sent += 1
                        time.sleep(s.delay)
                    tail = {"id": "c1", "choices": [], "usage": {
                        "prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960,
                        "cost": 0.0012}}
                    self.wfile.write(f"data: {json.dumps(tail)}\n\ndata: [DONE]\n\n".encode())
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    server.disconnected.set()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    server = OpenAIServer()
    yield server
    server.close()


def write_profiles(ctx: Any, url: str, *, timeout: float = 30.0) -> None:
    """A profile for the local server in the sandboxed profiles file (no key needed)."""
    ctx.paths.profiles_file.write_text(json.dumps({"profiles": [{
        "name": "wire", "kind": "openai", "base_url": url, "model": "wire-model",
        "context_window": 128000, "timeout_s": timeout, "key_env": None}]}), encoding="utf-8")
