"""The journal beside the recorded compactions: what the agents' integrations saw.

Each compaction an integration handled for the opened session file (``sessionlens
journal``) is one line: when, the trigger, who wrote the summary, the audit's verdict, pins
kept or missing, what was dropped, and why the agent's own summary was used. The text is
the engine's fields rendered; nothing is computed here.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

if TYPE_CHECKING:
    from sessionlens.engine import JournalEntry

_WRITER = {"sessionlens": "SessionLens", "agent": "the agent's own", "none": "none (blocked)"}


def entry_line(e: JournalEntry) -> str:
    """One journal entry as a line of rich text."""
    verdict = ("—" if e.audit_passed is None else "passed" if e.audit_passed else
               '<b style="color:#cf222e;">FAILED</b> (' + html.escape(", ".join(e.failed_checks))
               + ")")
    who = _WRITER.get(e.writer, e.writer)
    if e.writer == "sessionlens" and e.summarizer:
        who += f" ({html.escape(e.summarizer)})"
    parts = [f"{html.escape(e.at)} · {html.escape(e.agent)} · {html.escape(e.trigger or '-')}",
             f"summary: {who}", f"audit: {verdict}"]
    if e.pins_kept:
        parts.append(f"pins kept {len(e.pins_kept)}")
    if e.pins_missing:
        parts.append(f'<b style="color:#cf222e;">pins missing {len(e.pins_missing)}</b>')
    if e.dropped:
        parts.append("dropped: " + html.escape(", ".join(e.dropped[:5]))
                     + (" …" if len(e.dropped) > 5 else ""))
    line = " · ".join(parts)
    if e.fallback_reason:
        line += f"<br>&nbsp;&nbsp;why: {html.escape(e.fallback_reason)}"
    return line


class JournalView(QLabel):
    """The journal entries of the opened session, newest last (hidden when there are none)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.entries: tuple[JournalEntry, ...] = ()
        self.setVisible(False)

    def set_entries(self, entries: tuple[JournalEntry, ...]) -> None:
        self.entries = entries
        if not entries:
            self.clear()
            self.setVisible(False)
            return
        title = self.tr("Automatic compactions the agent's SessionLens integration saw "
                        "(%1):").replace("%1", str(len(entries)))
        self.setText(f"<b>{title}</b><br>" + "<br>".join(entry_line(e) for e in entries))
        self.setVisible(True)
