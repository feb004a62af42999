"""Runs against a local OpenAI-compatible server on 127.0.0.1: the preview of what is sent,
redaction, a slow stream with a responsive UI, a cancel in the middle, and an error."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer

from fixtures.llm_wire import PRICED_SUMMARY, Act
from fixtures.qt_app import mount, write_profiles
from fixtures.scenarios import SECRET_KEY, URL_PASSWORD, write_session
from fixtures.written import listing
from sessionlens.gui.compaction.outbound_preview import OutboundPreviewDialog

RUN_MS = 30_000


def _setup(qtbot: Any, make_app: Any, tmp_path: Path, server: Any) -> tuple[Any, Any, Path]:
    folder = tmp_path / "sessions"
    path = write_session(folder)
    ctx = make_app()
    write_profiles(ctx, server.url + "/v1")
    parts = mount(qtbot, ctx, path)
    panel = parts.panel
    panel.provider.setCurrentIndex(panel.provider.findText("wire (openai)"))
    assert panel.options().profile.base_url == server.url + "/v1"
    return ctx, parts, folder


def _sent_text(server: Any) -> str:
    return "\n".join(m["content"] for body in server.bodies for m in body["messages"])


def test_preview_is_exactly_what_is_sent_with_secrets_redacted(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, openai_server: Any) -> None:
    ctx, parts, folder = _setup(qtbot, make_app, tmp_path, openai_server)
    seen: list[Any] = []

    def confirm(preview: Any, parent: Any) -> frozenset[str]:
        dlg = OutboundPreviewDialog(preview, parent)
        qtbot.addWidget(dlg)
        seen.append((preview, dlg.sent_text()))
        return dlg.keep_values()  # nothing ticked: every secret is redacted

    parts.panel._confirm_outbound = confirm
    before = listing(folder)
    with qtbot.waitSignal(parts.controller.audit_ready, timeout=RUN_MS):
        qtbot.mouseClick(parts.panel.run_button, Qt.MouseButton.LeftButton)
    preview, shown = seen[0]
    kinds = {s.kind for s in preview.secrets}
    assert {"openai_key", "url_password"} <= kinds
    assert SECRET_KEY not in shown and URL_PASSWORD not in shown
    assert "[REDACTED:openai_key#1]" in shown
    sent = _sent_text(openai_server)
    assert SECRET_KEY not in sent and URL_PASSWORD not in sent
    assert "[REDACTED:openai_key#1]" in sent and "[REDACTED:url_password#1]" in sent
    # every stage the preview showed is, byte for byte, a request the server received
    sent_pairs = [(b["messages"][0]["content"], b["messages"][1]["content"])
                  for b in openai_server.bodies]
    assert len(sent_pairs) == len(preview.parts)
    for part in preview.sent_parts():
        assert (part.system, part.prompt) in sent_pairs
    assert listing(folder) == before
    assert "redacted on the way out" in parts.panel.status.text() or \
        parts.controller.runs[-1].redactions > 0


def test_a_ticked_secret_is_sent_and_the_others_stay_redacted(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, openai_server: Any) -> None:
    ctx, parts, _folder = _setup(qtbot, make_app, tmp_path, openai_server)

    def confirm(preview: Any, parent: Any) -> frozenset[str]:
        dlg = OutboundPreviewDialog(preview, parent)
        qtbot.addWidget(dlg)
        for row in range(dlg.secrets.count()):
            item = dlg.secrets.item(row)
            if item.text().startswith("openai_key"):
                item.setCheckState(Qt.CheckState.Checked)
        assert SECRET_KEY in dlg.sent_text() and URL_PASSWORD not in dlg.sent_text()
        return dlg.keep_values()

    parts.panel._confirm_outbound = confirm
    with qtbot.waitSignal(parts.controller.audit_ready, timeout=RUN_MS):
        parts.panel.run()
    sent = _sent_text(openai_server)
    assert SECRET_KEY in sent and URL_PASSWORD not in sent


def test_cancelling_the_preview_sends_nothing(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, openai_server: Any) -> None:
    ctx, parts, _folder = _setup(qtbot, make_app, tmp_path, openai_server)
    asked: list[Any] = []
    parts.panel._confirm_outbound = lambda p, _w: asked.append(p)  # returns None: cancelled
    parts.panel.run()
    qtbot.waitUntil(lambda: bool(asked), timeout=RUN_MS)
    qtbot.wait(100)
    assert openai_server.bodies == [] and not parts.controller.is_running()


def test_slow_stream_keeps_the_ui_usable(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, openai_server: Any) -> None:
    pieces = [f"word{i} " for i in range(30)]
    openai_server.default = replace(PRICED_SUMMARY, pieces=["## Goal\n", *pieces], delay=0.05)
    ctx, parts, folder = _setup(qtbot, make_app, tmp_path, openai_server)
    parts.panel._confirm_outbound = lambda p, _w: frozenset()
    ticks = [0]
    timer = QTimer(interval=10)
    timer.timeout.connect(lambda: ticks.__setitem__(0, ticks[0] + 1))
    timer.start()
    before = listing(folder)
    parts.panel.run()
    qtbot.waitUntil(lambda: openai_server.pieces_sent >= 5, timeout=RUN_MS)
    assert parts.controller.is_running()
    ticks_mid = ticks[0]
    parts.panel.instructions.clear()
    qtbot.keyClicks(parts.panel.instructions, "typed while streaming")
    assert parts.panel.instructions.toPlainText() == "typed while streaming"
    qtbot.waitUntil(lambda: openai_server.pieces_sent >= 15, timeout=RUN_MS)
    assert parts.controller.is_running()  # still streaming...
    assert ticks[0] > ticks_mid           # ...and the Qt loop kept running timers
    assert "Receiving" in parts.panel.stage.text()
    with qtbot.waitSignal(parts.controller.audit_ready, timeout=RUN_MS) as blocker:
        pass
    timer.stop()
    record = blocker.args[0]
    assert record.result.summary.startswith("## Goal\n" + "".join(pieces).strip())
    # the server reports $0.0012 per request; the panel shows the run's total
    assert f"${0.0012 * len(openai_server.bodies):.4f}" in parts.panel.usage.text()
    assert listing(folder) == before


def test_cancel_in_the_middle_stops_at_once_and_writes_nothing(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, openai_server: Any) -> None:
    openai_server.default = replace(PRICED_SUMMARY, pieces=[f"w{i} " for i in range(400)],
                                    delay=0.05)
    ctx, parts, folder = _setup(qtbot, make_app, tmp_path, openai_server)
    parts.panel._confirm_outbound = lambda p, _w: frozenset()
    before = listing(folder)
    finished: list[Any] = []
    parts.controller.run_finished.connect(finished.append)
    parts.panel.run()
    qtbot.waitUntil(lambda: openai_server.pieces_sent >= 3, timeout=RUN_MS)
    future = parts.controller._future
    assert future is not None and not future.done()
    with qtbot.waitSignal(parts.controller.run_cancelled, timeout=1000):
        qtbot.mouseClick(parts.panel.cancel_button, Qt.MouseButton.LeftButton)
    # at once: the controller is idle and the buttons say so, before any further loop turn
    assert not parts.controller.is_running()
    assert parts.panel.run_button.isEnabled() and not parts.panel.cancel_button.isEnabled()
    qtbot.waitUntil(future.done, timeout=5000)
    qtbot.waitUntil(openai_server.disconnected.is_set, timeout=10_000)  # the stream was closed
    assert openai_server.pieces_sent < 400
    assert finished == [] and parts.controller.current is None
    assert "Cancelled" in parts.panel.status.text()
    assert listing(folder) == before


def test_provider_error_is_shown_and_nothing_is_written(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, openai_server: Any) -> None:
    openai_server.default = Act("status", status=400, body=json.dumps({"error": {
        "message": "model 'wire-model' does not exist", "type": "invalid_request"}}))
    ctx, parts, folder = _setup(qtbot, make_app, tmp_path, openai_server)
    parts.panel._confirm_outbound = lambda p, _w: frozenset()
    before = listing(folder)
    with qtbot.waitSignal(parts.controller.run_failed, timeout=RUN_MS) as blocker:
        parts.panel.run()
    assert "does not exist" in blocker.args[0]
    assert "does not exist" in parts.panel.status.text()
    assert parts.controller.current is None and not parts.panel.accept_button.isEnabled()
    assert parts.panel.run_button.isEnabled()
    assert listing(folder) == before
