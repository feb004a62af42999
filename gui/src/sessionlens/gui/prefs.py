"""UI state kept between runs (QSettings, one INI file under the config dir).

Only state that belongs to the window lives here: geometry, recent files, the last session,
the theme, the tokenizer and the user's compaction overrides. Provider profiles live in
their own JSON file (see ``profiles.py``) and keys are never stored at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from PySide6.QtCore import QByteArray, QSettings

from sessionlens.engine import Overrides

Theme = Literal["system", "light", "dark"]
THEMES: tuple[Theme, ...] = ("system", "light", "dark")
ENCODINGS = ("o200k_base", "cl100k_base")
MAX_RECENT = 10


def string_list(raw: object) -> list[str]:
    """A list read back from QSettings: an INI file returns a one-item list as a bare string."""
    items = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, (list, tuple)) else []
    return [str(i) for i in items]


class Prefs:
    """Typed getters and setters over one QSettings INI file."""

    def __init__(self, settings_file: Path) -> None:
        self._s = QSettings(str(settings_file), QSettings.Format.IniFormat)

    def sync(self) -> None:
        self._s.sync()

    # window -------------------------------------------------------------------------------
    def geometry(self) -> QByteArray | None:
        v = self._s.value("window/geometry")
        return v if isinstance(v, QByteArray) else None

    def set_geometry(self, data: QByteArray) -> None:
        self._s.setValue("window/geometry", data)

    def window_state(self) -> QByteArray | None:
        v = self._s.value("window/state")
        return v if isinstance(v, QByteArray) else None

    def set_window_state(self, data: QByteArray) -> None:
        self._s.setValue("window/state", data)

    # files --------------------------------------------------------------------------------
    def recent_files(self) -> list[Path]:
        return [Path(p) for p in string_list(self._s.value("files/recent", [])) if p]

    def add_recent(self, path: Path) -> list[Path]:
        """Put ``path`` first, drop duplicates, keep at most MAX_RECENT."""
        p = path.resolve()
        items = [p] + [r for r in self.recent_files() if r != p]
        items = items[:MAX_RECENT]
        self._s.setValue("files/recent", [str(r) for r in items])
        return items

    def clear_recent(self) -> None:
        self._s.setValue("files/recent", [])

    def last_session(self) -> Path | None:
        v = self._s.value("files/last", "")
        return Path(str(v)) if v else None

    def set_last_session(self, path: Path | None) -> None:
        self._s.setValue("files/last", str(path) if path else "")

    # appearance and counting --------------------------------------------------------------
    def theme(self) -> Theme:
        v = str(self._s.value("ui/theme", "system"))
        for theme in THEMES:
            if v == theme:
                return theme
        return "system"

    def set_theme(self, theme: Theme) -> None:
        self._s.setValue("ui/theme", theme)

    def encoding(self) -> str:
        v = str(self._s.value("tokens/encoding", "o200k_base"))
        return v if v in ENCODINGS else "o200k_base"

    def set_encoding(self, name: str) -> None:
        self._s.setValue("tokens/encoding", name)

    def compaction_overrides(self) -> dict[str, int]:
        """User overrides of the engine defaults (context_window, reserve_tokens, keep_recent)."""
        out: dict[str, int] = {}
        for key in ("context_window", "reserve_tokens", "keep_recent_tokens"):
            v = self._s.value(f"compaction/{key}")
            if v not in (None, ""):
                try:
                    out[key] = int(str(v))
                except ValueError:
                    continue
        return out

    def set_compaction_overrides(self, values: dict[str, int | None]) -> None:
        for key, v in values.items():
            if v is None:
                self._s.remove(f"compaction/{key}")
            else:
                self._s.setValue(f"compaction/{key}", int(v))

    def overrides(self) -> Overrides:
        """The stored overrides as the engine takes them (origin: the app's settings)."""
        o = self.compaction_overrides()
        return Overrides(context_window=o.get("context_window"),
                         reserve_tokens=o.get("reserve_tokens"),
                         keep_recent_tokens=o.get("keep_recent_tokens"), origin="app settings")

    def set_overrides(self, overrides: Overrides) -> None:
        self.set_compaction_overrides({"context_window": overrides.context_window,
                                       "reserve_tokens": overrides.reserve_tokens,
                                       "keep_recent_tokens": overrides.keep_recent_tokens})
