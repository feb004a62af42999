"""pytest-qt fixtures for the GUI tests, registered from ``fixtures.qt_app`` (the one module
that holds them): the app factories and a qasync loop."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from fixtures.qt_app import make_app, make_main_window, qloop  # noqa: E402, F401
