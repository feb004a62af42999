"""The compaction panel's remembered choices (QSettings, the app's one INI file).

Kept apart from ``prefs.py`` so the panel owns its keys: the focus-instruction history (most
recent first), and the last template, policy, profile and keep-recent/reserve values. Keys
live under ``compaction-panel/`` so they never collide with the window's own.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from sessionlens.gui.prefs import string_list

#: How many earlier focus instructions are offered.
MAX_HISTORY = 20
_PREFIX = "compaction-panel"


class CompactionPrefs:
    """Typed getters and setters for the panel's keys."""

    def __init__(self, settings_file: Path) -> None:
        self._s = QSettings(str(settings_file), QSettings.Format.IniFormat)

    def sync(self) -> None:
        self._s.sync()

    def history(self) -> list[str]:
        return [i for i in string_list(self._s.value(f"{_PREFIX}/history", [])) if i.strip()]

    def remember(self, instructions: str) -> list[str]:
        """Put ``instructions`` first (no duplicates, at most MAX_HISTORY); empty text is ignored."""
        text = instructions.strip()
        if not text:
            return self.history()
        items = [text] + [h for h in self.history() if h != text]
        items = items[:MAX_HISTORY]
        self._s.setValue(f"{_PREFIX}/history", items)
        self._s.sync()
        return items

    def value(self, key: str, default: str) -> str:
        v = self._s.value(f"{_PREFIX}/{key}", default)
        return str(v) if v is not None else default

    def int_value(self, key: str, default: int) -> int:
        try:
            return int(str(self._s.value(f"{_PREFIX}/{key}", default)))
        except ValueError:
            return default

    def set_value(self, key: str, value: str | int) -> None:
        self._s.setValue(f"{_PREFIX}/{key}", value)
