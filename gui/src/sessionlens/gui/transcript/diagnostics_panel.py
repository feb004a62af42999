"""Diagnostics dock: every line the loader could not read, listed (never a modal flood)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSortFilterProxyModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.roles import SortRole
from sessionlens.gui.session_controller import SessionController
from sessionlens.gui.transcript.diagnostics_model import DiagnosticsModel

if TYPE_CHECKING:
    from sessionlens.engine import Transcript


class DiagnosticsPanel(QWidget):
    """Table of the open transcript's diagnostics, sortable by line."""

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = DiagnosticsModel(self)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.model)
        proxy.setSortRole(SortRole)
        self.summary = QLabel(self.tr("No problems."))
        self.table = QTableView()
        self.table.setModel(proxy)
        self.table.setSortingEnabled(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        controller.loaded.connect(self._on_loaded)

    def _on_loaded(self, t: Transcript) -> None:
        self.model.set_rows(t.diagnostics)
        n = len(t.diagnostics)
        self.summary.setText(self.tr("No problems.") if n == 0 else
                             self.tr("%n line(s) could not be read; the rest loaded.", "", n))
