"""Colours of roles, entry types and chart elements, per theme.

Kept apart from the views so the timeline delegate, the charts and the message view agree
on what "assistant" or "compaction" looks like.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

#: Accent per icon key (the stripe at the left of a timeline row, chart bars).
ACCENTS: dict[str, str] = {
    "role-user": "#2f7ed8",
    "role-assistant": "#7b4fc9",
    "role-tool-call": "#c27c0e",
    "role-tool-result": "#3c9a5f",
    "role-tool-error": "#d64541",
    "role-bash": "#4a5563",
    "role-custom": "#8a8f98",
    "type-compaction": "#e0861a",
    "type-branch": "#1f9e89",
    "type-setting": "#8a8f98",
    "type-label": "#d4a017",
    "type-reset": "#b03060",
    "type-other": "#8a8f98",
}

#: Bars of the breakdown chart, by role or entry type name.
BREAKDOWN: dict[str, str] = {
    "user": "#2f7ed8", "assistant": "#7b4fc9", "toolResult": "#3c9a5f",
    "bashExecution": "#4a5563", "custom": "#8a8f98", "compactionSummary": "#e0861a",
    "branchSummary": "#1f9e89", "message": "#7b4fc9", "compaction": "#e0861a",
    "branch_summary": "#1f9e89", "custom_message": "#8a8f98",
}

ERROR = "#d64541"
DIVIDER_BG_LIGHT = "#fff1de"
DIVIDER_BG_DARK = "#4a3519"


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def accent(key: str) -> QColor:
    return QColor(ACCENTS.get(key, "#8a8f98"))


def chart_colors(dark: bool) -> dict[str, str]:
    """Foreground colours for the pyqtgraph charts."""
    if dark:
        return {"bg": "#1f2329", "fg": "#c9d1d9", "curve": "#5fb3ff", "estimate": "#8b949e",
                "window": "#f85149", "threshold": "#e3b341", "tail": "#2ea04355",
                "cut": "#ff7b72", "ticks": "#8b949e", "compaction": "#f0883e",
                "summarized": "#f0883e22"}
    return {"bg": "#ffffff", "fg": "#24292f", "curve": "#1f6feb", "estimate": "#8c959f",
            "window": "#cf222e", "threshold": "#bf8700", "tail": "#2da44e33",
            "cut": "#cf222e", "ticks": "#57606a", "compaction": "#e0861a",
            "summarized": "#e0861a1c"}
