"""File ▸ Export summary… / Export transcript…: enabled after load and after Accept, dialogs in
the transcript's folder with a name from the session, refusals shown whole (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from fixtures.qt_app import mount, open_and_settle, settle
from fixtures.scenarios import compaction_session, write_session
from sessionlens.gui.export_flow import default_export_path, session_stem

RUN_MS = 30_000


def _with_compaction(folder: Path) -> Path:
    b = compaction_session(turns=6)
    b.compaction("## Goal\nFix the imports in src/app/module_3.py.\n", first_kept="u0000004",
                 tokens_before=18_000)
    b.user("after the compaction: run the linter")
    b.assistant("Linted: clean.")
    folder.mkdir(parents=True, exist_ok=True)
    return b.write(folder / "with-compaction.jsonl")


class _Asked:
    """Stands in for the save dialog: records what it was offered, answers ``answer``."""

    def __init__(self, answer: Path | None) -> None:
        self.answer, self.offered = answer, []  # type: list[tuple[str, Path, tuple[str, ...]]]

    def __call__(self, title: str, proposed: Path, formats: tuple[str, ...], _p: Any) -> Path | None:
        self.offered.append((title, proposed, formats))
        return self.answer


def test_export_actions_after_load_default_to_the_transcripts_folder(
        qtbot: Any, qloop: Any, make_main_window: Any, tmp_path: Path) -> None:
    ctx = make_main_window()
    ex = ctx.exports
    assert not ex.act_summary.isEnabled() and "Open a transcript" in ex.act_summary.toolTip()
    path = _with_compaction(tmp_path / "agent")
    open_and_settle(qtbot, ctx, path)
    assert ex.act_summary.isEnabled() and ex.act_transcript.isEnabled()
    assert "latest compaction" in ex.act_summary.toolTip()
    menu_texts = [a.text() for a in ctx.window.file_menu.actions()]
    assert "Export &summary…" in menu_texts and "Export &transcript…" in menu_texts

    out = tmp_path / "out" / "picked.md"
    out.parent.mkdir()
    ex.ask_path = asked = _Asked(out)
    ex.act_summary.trigger()
    _, proposed, formats = asked.offered[0]
    assert proposed == path.parent / f"{session_stem(ctx.controller.transcript)}-summary.md"
    assert formats == ("md", "json", "html")
    qtbot.waitUntil(out.exists, timeout=RUN_MS)
    assert "Fix the imports in src/app/module_3.py." in out.read_text(encoding="utf-8")

    html_out = tmp_path / "out" / "t.html"
    ex.ask_path = asked = _Asked(html_out)
    ex.act_transcript.trigger()
    assert asked.offered[0][1] == path.parent / f"{path.stem}-transcript.html"
    qtbot.waitUntil(html_out.exists, timeout=RUN_MS)
    assert "<html" in html_out.read_text(encoding="utf-8").lower()


def test_a_refused_export_is_told_whole(qtbot: Any, qloop: Any, make_main_window: Any,
                                        tmp_path: Path) -> None:
    ctx = make_main_window()
    open_and_settle(qtbot, ctx, _with_compaction(tmp_path / "agent"))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    told: list[tuple[str, str]] = []
    ex = ctx.exports
    ex.tell = lambda title, message, _p: told.append((title, message))
    ex.ask_path = _Asked(blocker / "summary.md")  # its "folder" is a file: the write fails
    ex.act_transcript.trigger()
    qtbot.waitUntil(lambda: bool(told), timeout=RUN_MS)
    title, message = told[0]
    assert title == "Export failed"
    assert str(blocker) in message and len(message) > 30  # the reason, not a cut-off line
    assert ctx.window.status_label.toolTip() == message


def test_export_stays_available_after_accept(qtbot: Any, qloop: Any, make_main_window: Any,
                                             tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    path = write_session(folder, store=True)
    ctx = make_main_window()
    parts = mount(qtbot, ctx, path)
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=RUN_MS):
        qtbot.mouseClick(parts.panel.run_button, Qt.MouseButton.LeftButton)
    parts.panel._confirm_accept = lambda _r, _t, _p: ("successor", True)
    with qtbot.waitSignal(parts.controller.accepted, timeout=RUN_MS):
        qtbot.mouseClick(parts.panel.accept_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctx)
    assert all(b.isEnabled() for b in parts.panel.export_buttons.values())
    assert ctx.exports.act_summary.isEnabled()
    assert "just accepted" in ctx.exports.act_summary.toolTip()
    offered: list[str] = []
    out = tmp_path / "accepted.json"

    def ask(fmt: str, _parent: Any) -> Path:
        offered.append(fmt)
        return out

    parts.panel._ask_save_path = ask
    with qtbot.waitSignal(parts.controller.exported, timeout=RUN_MS):
        qtbot.mouseClick(parts.panel.export_buttons["json"], Qt.MouseButton.LeftButton)
    assert offered == ["json"] and out.exists()
    assert parts.controller.accepted_record is not None
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["summary"]["text"] == parts.controller.accepted_record.result.summary


def test_default_export_path_names_the_session(tmp_path: Path) -> None:
    t = compaction_session(turns=1).build()
    proposed = default_export_path(t, "summary", "md")
    assert proposed.parent == t.path.parent
    assert proposed.name == f"{session_stem(t)}-summary.md"
    assert "/" not in session_stem(t) and " " not in session_stem(t)
    assert default_export_path(None, "summary", "md") == Path.home() / "summary.md"
