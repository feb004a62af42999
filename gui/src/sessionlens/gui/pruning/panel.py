"""The pruning panel: a sentence on the trigger, the keep-turns setting, the cleared results.

Pruning (OpenClaw's "session pruning") clears tool results older than the last N user turns
before each call. Each cleared result takes its size off every later request, so the
compaction fires that much later; the panel shows both, per result and in total, from the
engine's ``pruning_delay`` fed with the plan's own window and context (one truth).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from .model import PrunedResultsModel

if TYPE_CHECKING:
    from sessionlens.engine import PruningDelay

#: OpenClaw protects the last few user turns; the engine's CLI default is the same.
DEFAULT_KEEP_TURNS = 3


def describe_delay(d: PruningDelay) -> str:
    """Three short lines of the engine's figures (no number is computed here); lines, not a
    wrapped paragraph: a wrapped label in a stacked page kept the height of one line."""
    p = d.preview
    # the engine's note, on short lines of its own (the label does not wrap)
    note = (d.agent_note.replace(": ", ":\n", 1).replace("; ", ";\n", 1) + "\n"
            if d.agent_note else "")
    if not p.results:
        return (f"{note}Nothing to prune: no tool result is older than the last {p.keep_turns} "
                f"user turns.\nContext {d.context_tokens:,} tokens, threshold {d.threshold:,}.")
    turns = (f", about {d.turns_gained:.1f} turns at this session's pace"
             if d.turns_gained is not None else "")
    due = ("Compaction is due now; with pruning it "
           + ("is still due." if d.due_with_pruning else "is not due.")
           if d.due_without_pruning else
           "Compaction is not due yet.")
    return note + "\n".join((
        f"Pruning would clear {len(p.results):,} tool results before the next call and save "
        f"{d.delay_tokens:,} tokens.",
        f"Context {d.context_tokens:,} → {d.pruned_context_tokens:,} tokens (threshold "
        f"{d.threshold:,}); headroom {d.headroom_tokens:,} → {d.pruned_headroom_tokens:,} tokens.",
        f"The compaction trigger moves {d.delay_tokens:,} tokens later{turns}. {due}"))


class PruningPanel(QWidget):
    """Shows one ``PruningDelay``; asks for another when the keep-turns setting changes."""

    keep_turns_changed = Signal(int)
    entry_activated = Signal(str)
    #: a preview (or its failure) is on screen
    shown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(self.tr("Open a transcript to see what pruning would trim."))
        self.summary.setObjectName("pruning-summary")
        self.summary.setWordWrap(False)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.keep = QSpinBox()
        self.keep.setObjectName("pruning-keep-turns")
        self.keep.setRange(0, 1000)
        self.keep.setValue(DEFAULT_KEEP_TURNS)
        self.keep.setToolTip(self.tr("Tool results older than this many user turns are cleared"))
        self.model = PrunedResultsModel(self)
        self.table = QTableView()
        self.table.setObjectName("pruning-table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)

        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Keep tool results of the last")))
        row.addWidget(self.keep)
        row.addWidget(QLabel(self.tr("user turns")))
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)

        self.keep.valueChanged.connect(self.keep_turns_changed)
        self.table.activated.connect(self._activated)

    def show_delay(self, delay: PruningDelay | None) -> None:
        self.model.set_delay(delay)
        self.summary.setText(describe_delay(delay) if delay is not None else
                             self.tr("Open a transcript to see what pruning would trim."))
        self._relayout()
        self.shown.emit()

    def show_waiting(self) -> None:
        self.model.set_delay(None)
        self.summary.setText(self.tr("Planning…"))
        self._relayout()

    def show_error(self, message: str) -> None:
        self.model.set_delay(None)
        self.summary.setText(self.tr("Pruning preview failed: %1").replace("%1", message))
        self._relayout()
        self.shown.emit()

    def _relayout(self) -> None:
        """Apply the summary's new height now: set while the page is hidden or just shown,
        the posted layout request came too late for the first paint."""
        layout = self.layout()
        if layout is not None:
            layout.activate()

    def _activated(self, index: QModelIndex) -> None:
        entry = self.model.entry_id(index.row())
        if entry is not None:
            self.entry_activated.emit(entry)
