"""Light, dark or system appearance: Fusion style, a palette, and the base stylesheet."""

from __future__ import annotations

from importlib import resources

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from .prefs import Theme


def _dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor("#1f2329"), QColor("#2a2f36"), QColor("#d7dce2")
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        p.setColor(group, QPalette.ColorRole.Window, window)
        p.setColor(group, QPalette.ColorRole.WindowText, text)
        p.setColor(group, QPalette.ColorRole.Base, base)
        p.setColor(group, QPalette.ColorRole.AlternateBase, QColor("#262b31"))
        p.setColor(group, QPalette.ColorRole.Text, text)
        p.setColor(group, QPalette.ColorRole.Button, window)
        p.setColor(group, QPalette.ColorRole.ButtonText, text)
        p.setColor(group, QPalette.ColorRole.Highlight, QColor("#2f5f9e"))
        p.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
        p.setColor(group, QPalette.ColorRole.ToolTipBase, QColor("#30363d"))
        p.setColor(group, QPalette.ColorRole.ToolTipText, text)
        p.setColor(group, QPalette.ColorRole.Link, QColor("#58a6ff"))
        p.setColor(group, QPalette.ColorRole.PlaceholderText, QColor("#8b949e"))
    for role, color in ((QPalette.ColorRole.Window, "#2a2f36"), (QPalette.ColorRole.Base, "#1f2329"),
                        (QPalette.ColorRole.Button, "#2a2f36"), (QPalette.ColorRole.Light, "#3a4048"),
                        (QPalette.ColorRole.Highlight, "#3a4048")):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(color))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#6e7681"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#6e7681"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#6e7681"))
    return p


def apply_theme(app: QApplication, theme: Theme) -> bool:
    """Apply ``theme``; returns True when the result is dark (charts follow it)."""
    app.setStyle("Fusion")
    hints = app.styleHints()
    if theme == "system":
        dark = hints.colorScheme() == Qt.ColorScheme.Dark
    else:
        dark = theme == "dark"
    app.setPalette(_dark_palette() if dark else app.style().standardPalette())
    qss = (resources.files("sessionlens.gui") / "assets" / "style" / "base.qss").read_text("utf-8")
    app.setStyleSheet(qss)
    return dark
