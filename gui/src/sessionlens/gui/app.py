"""Composition root (placeholder until the app issue lands): an empty main window."""

from __future__ import annotations

from collections.abc import Sequence


def run_app(argv: Sequence[str]) -> int:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication.instance() or QApplication([sys_argv0(), *argv])
    win = QMainWindow()
    win.setWindowTitle("SessionLens")
    win.resize(1200, 800)
    win.show()
    return app.exec()


def sys_argv0() -> str:
    return "sessionlens"
