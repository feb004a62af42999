"""Task runner, prefs, paths, icons and shortcuts, --screenshot, and the PySide6 pin."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from fixtures.scenarios import small_session
from sessionlens.gui import shortcuts
from sessionlens.gui.icons import ICON_KEYS, icon, icon_bytes
from sessionlens.gui.paths import AppPaths
from sessionlens.gui.prefs import MAX_RECENT, Prefs
from sessionlens.gui.tasks import TaskRunner


def test_task_runner_delivers_results_on_the_ui_thread(qtbot: Any) -> None:
    runner = TaskRunner()
    ui_thread = threading.get_ident()
    seen: dict[str, Any] = {}

    def job(report: Any, cancelled: Any) -> int:
        seen["worker"] = threading.get_ident()
        report(1, 1)
        return 42

    def done(value: int) -> None:
        seen["value"], seen["done_thread"] = value, threading.get_ident()

    runner.run(job, on_done=done, on_progress=lambda d, t: seen.setdefault("progress", (d, t)))
    qtbot.waitUntil(lambda: "value" in seen, timeout=5000)
    assert seen["value"] == 42
    assert seen["worker"] != ui_thread and seen["done_thread"] == ui_thread
    assert seen["progress"] == (1, 1)
    runner.shutdown()


def test_task_runner_latest_wins_and_errors_are_delivered(qtbot: Any) -> None:
    runner = TaskRunner()
    gate = threading.Event()
    results: list[str] = []
    errors: list[BaseException] = []

    def slow(_r: Any, _c: Any) -> str:
        gate.wait(5)
        return "first"

    first = runner.run(slow, on_done=results.append, group="g")
    runner.run(lambda _r, _c: "second", on_done=results.append, group="g")
    gate.set()
    qtbot.waitUntil(lambda: "second" in results, timeout=5000)
    qtbot.wait(50)
    assert first.cancelled and results == ["second"]
    runner.run(lambda _r, _c: 1 / 0, on_done=results.append, on_error=errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert isinstance(errors[0], ZeroDivisionError)
    runner.shutdown()


def test_prefs_keep_recent_files_in_order(tmp_path: Path) -> None:
    prefs = Prefs(tmp_path / "s.ini")
    files = [tmp_path / f"f{i}.jsonl" for i in range(MAX_RECENT + 3)]
    for f in files:
        prefs.add_recent(f)
    prefs.add_recent(files[2])
    recent = prefs.recent_files()
    assert recent[0] == files[2].resolve() and len(recent) == MAX_RECENT
    assert len(set(recent)) == len(recent)
    prefs.set_theme("dark")
    prefs.set_compaction_overrides({"keep_recent_tokens": 5000, "context_window": None})
    again = Prefs(tmp_path / "s.ini")
    assert again.theme() == "dark"
    assert again.compaction_overrides() == {"keep_recent_tokens": 5000}


def test_basedir_redirects_every_path(tmp_path: Path) -> None:
    paths = AppPaths.resolve(tmp_path / "b").ensure()
    for d in (paths.config_dir, paths.data_dir, paths.cache_dir, paths.state_dir):
        assert d.is_dir() and tmp_path in d.parents
    assert paths.settings_file.parent == paths.config_dir


def test_every_icon_and_shortcut_loads(qapp: Any) -> None:
    for key in ICON_KEYS:
        assert icon_bytes(key).startswith(b"<svg")
        assert not icon(key).isNull()
    assert all(not shortcuts.sequence(k).isEmpty() for k in shortcuts.ALL.values())
    seqs = [shortcuts.sequence(k).toString() for k in shortcuts.ALL.values()]
    assert len(seqs) == len(set(seqs))


def test_screenshot_command_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    src = small_session().write(tmp_path / "s.jsonl")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-m", "sessionlens.gui", "--basedir", str(tmp_path / "b"),
                           "--screenshot", str(out), "--size", "1200x800", str(src)],
                          capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PySide6.QtGui import QImage

    img = QImage(str(out))
    assert (img.width(), img.height()) == (1200, 800)


def test_installed_pyside_keeps_references_to_none_and_true() -> None:
    """Guards the pin below PySide6 6.12: 6.12.0 drops a reference to None on every call of a
    method returning nothing and to True on every emit, and a long session then aborts."""
    from PySide6.QtCore import QObject, Signal

    class Ticker(QObject):
        tick = Signal(int)

    ticker = Ticker()
    seen: list[int] = []
    ticker.tick.connect(seen.append)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for n in range(20_000):
        ticker.tick.emit(n)
        ticker.setObjectName("t")  # a method returning nothing
    assert len(seen) == 20_000
    # other code may take or drop a few references meanwhile; the defect loses 20,000
    assert sys.getrefcount(None) > none_before - 1_000
    assert sys.getrefcount(True) > true_before - 1_000
