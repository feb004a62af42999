"""Every keyboard shortcut of the app, in one table (so conflicts are visible at a glance).

Entries are standard keys or portable strings; ``sequence`` turns them into QKeySequence
once a QApplication exists (building a standard-key sequence earlier crashes Qt).
"""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

Key = QKeySequence.StandardKey | str

OPEN: Key = QKeySequence.StandardKey.Open
RELOAD: Key = "F5"
QUIT: Key = "Ctrl+Q"
SETTINGS: Key = "Ctrl+,"
FIND: Key = QKeySequence.StandardKey.Find
CANCEL: Key = "Esc"
TREE_MODE: Key = "Ctrl+T"
SESSION_BROWSER: Key = "Ctrl+B"
DIAGNOSTICS: Key = "Ctrl+D"
OPEN_SAMPLE: Key = "Ctrl+Shift+O"
NEXT_ENTRY: Key = "Ctrl+J"
PREV_ENTRY: Key = "Ctrl+K"
RESET_CUT: Key = "Ctrl+R"
SEARCH_SESSIONS: Key = "Ctrl+Shift+F"
PIN_ENTRY: Key = "Ctrl+P"
WORKBENCH_FOCUS: Key = "Ctrl+Shift+W"
LIVE_SESSIONS: Key = "Ctrl+Shift+L"

ALL: dict[str, Key] = {name: value for name, value in globals().items()
                       if name.isupper() and name != "ALL"}


def sequence(key: Key) -> QKeySequence:
    """The QKeySequence for one table entry (call after the QApplication exists)."""
    return QKeySequence(key)
