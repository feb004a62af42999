"""The Live panel: the list of running sessions over the selected one's next cut.

Above the list, a banner says the last compaction that appeared in a watched session and
its verdict, with a button that opens its audit. Below it, where the agent's next automatic
cut would land now (the cut preview's plan and figures, by the agent's own rule), the
specifics of the span it would summarize, and the entries that span holds, any of which can
be pinned (a pin carries the entry's text into the summary, word for word).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import FIGURE_LABELS, LiveEvent, NextCut
from sessionlens.gui.roles import ItemRole
from sessionlens.gui.table_fit import fit_columns

from .controller import LiveController, LiveRow
from .model import GAUGE_COLUMN, GaugeDelegate, LiveModel

#: Specifics named under the next cut (the count says how many there are in all; the
#: tooltip lists more).
STAKE_SHOWN = 8
#: The gauge column's width (it shows "151k / 176k (86%)").
GAUGE_WIDTH = 160
#: The model column's width, and the list's width below which it is hidden (the model
#: is in every row's tooltip too).
MODEL_COLUMN, MODEL_WIDTH, MODEL_SHOWN_FROM = 2, 130, 640


def _wrapped(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class LivePanel(QWidget):
    """``open_audit(path, compaction_id)`` and ``pin(path, entry_id)`` are the app's."""

    def __init__(self, controller: LiveController, *,
                 open_audit: Callable[[Path, str], None],
                 pin: Callable[[Path, str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c, self._open_audit, self._pin = controller, open_audit, pin
        self._alert: Callable[[], None] | None = None
        self.banner = QFrame()
        self.banner.setObjectName("liveBanner")
        self.banner.setFrameShape(QFrame.Shape.StyledPanel)
        self.banner_text = _wrapped()
        self.banner_open = QPushButton(self.tr("Open its audit"))
        row = QHBoxLayout(self.banner)
        row.addWidget(self.banner_text, 1)
        row.addWidget(self.banner_open)
        self.banner.hide()
        self.empty = _wrapped(self.tr("Looking for sessions being written…"))
        self.model = LiveModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(GAUGE_COLUMN, GaugeDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        fit_columns(self.table, stretch=1)
        for column, width in ((GAUGE_COLUMN, GAUGE_WIDTH), (MODEL_COLUMN, MODEL_WIDTH)):
            self.table.horizontalHeader().setSectionResizeMode(column,
                                                               QHeaderView.ResizeMode.Fixed)
            self.table.setColumnWidth(column, width)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cut_title = _wrapped()
        self.cut_figures = _wrapped()
        self.stake = _wrapped()
        self.entries = QListWidget()
        self.entries.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.entries.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.entries.setUniformItemSizes(True)
        self.pin_button = QPushButton(self.tr("Pin entry"))
        self.pin_button.setEnabled(False)
        self.pin_note = _wrapped()
        detail = QWidget()
        col = QVBoxLayout(detail)
        col.setContentsMargins(0, 0, 0, 0)
        for w in (self.cut_title, self.cut_figures, self.stake):
            col.addWidget(w)
        col.addWidget(self.entries, 1)
        pins = QHBoxLayout()
        pins.addWidget(self.pin_button)
        pins.addWidget(self.pin_note, 1)
        col.addLayout(pins)
        split = QSplitter(Qt.Orientation.Horizontal)
        top = QWidget()
        top_col = QVBoxLayout(top)
        top_col.setContentsMargins(0, 0, 0, 0)
        top_col.addWidget(self.empty)
        top_col.addWidget(self.table, 1)
        split.addWidget(top)
        split.addWidget(detail)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 11)
        split.setStretchFactor(1, 9)
        split.setSizes([660, 540])
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)
        self._show_cut(None)

        controller.rows_changed.connect(self._on_rows)
        controller.live_event.connect(self._on_event)
        controller.preview_ready.connect(self._on_preview)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self.entries.currentItemChanged.connect(
            lambda item, _old: self.pin_button.setEnabled(item is not None))
        self.pin_button.clicked.connect(self._on_pin)
        self.banner_open.clicked.connect(self._on_open_audit)

    # ------------------------------------------------------------------ the list

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.table.setColumnHidden(MODEL_COLUMN, self.table.width() < MODEL_SHOWN_FROM)

    def _on_rows(self, rows: tuple[LiveRow, ...]) -> None:
        selected = self._c.selected
        self.model.set_rows(rows)
        self.empty.setText(self.tr("No session is being written right now.") if not rows else "")
        self.empty.setVisible(not rows)
        for i, row in enumerate(rows):
            if row.path == selected:
                self.table.selectRow(i)
                break
        else:
            if rows and selected is None:
                self.table.selectRow(0)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = current.data(ItemRole) if current.isValid() else None
        path = row.path if isinstance(row, LiveRow) else None
        if path != self._c.selected:
            self._show_cut(None)
            self._c.select(path)

    # ------------------------------------------------------------------ events

    def _on_event(self, event: LiveEvent) -> None:
        if event.kind != "compaction":
            return
        path, cid = event.path, event.compaction_id
        self.show_notice(self.tr("A compaction appeared in %1: %2").replace(
            "%1", path.name).replace("%2", event.verdict or event.detail),
            None if cid is None else lambda: self._open_audit(path, cid))

    def show_notice(self, text: str, open_audit: Callable[[], None] | None) -> None:
        """The banner: ``text``, and "Open its audit" running ``open_audit`` (disabled
        without one). Compactions the watcher sees and those an integration journals."""
        self._alert = open_audit
        self.banner_text.setText(text)
        self.banner_open.setEnabled(open_audit is not None)
        self.banner.show()

    def _on_open_audit(self) -> None:
        if self._alert is not None:
            self._alert()

    # ------------------------------------------------------------------ the next cut

    def _show_cut(self, cut: NextCut | None) -> None:
        self.entries.clear()
        self.pin_note.setText("")
        if cut is None:
            self.cut_title.setText(self.tr("Select a session to see where its agent would "
                                           "cut next."))
            self.cut_figures.setText("")
            self.stake.setText("")
            return
        if cut.plan is None or cut.figures is None:
            self.cut_title.setText(self.tr("No automatic cut is due to summarize anything "
                                           "yet: %1").replace("%1", cut.nothing))
            self.cut_figures.setText("")
            self.stake.setText("")
            return
        f, p, L = cut.figures, cut.plan, FIGURE_LABELS
        due = self.tr("due now") if f.should_compact else self.tr("not due yet")
        self.cut_title.setText(self.tr("Next automatic cut (%1, rule %2): %3").replace(
            "%1", due).replace("%2", p.cut_rule).replace("%3", p.cut_reason))
        self.cut_figures.setText(
            f"{L['context_tokens']} {f.context_tokens:,} · {L['threshold']} {f.threshold:,} · "
            f"{L['first_kept_entry_id']} {f.first_kept_entry_id or '—'} · "
            f"{f.entries_summarized:,} {L['entries_summarized']} · "
            f"{L['predicted_tokens_after']} {f.predicted_tokens_after:,}")
        classes = ", ".join(f"{cls} {n}" for cls, n in cut.by_class)
        shown = ", ".join(v if len(v) <= 60 else v[:59] + "…"
                          for v, _ in cut.at_stake[:STAKE_SHOWN])
        more = len(cut.at_stake) - min(len(cut.at_stake), STAKE_SHOWN)
        self.stake.setText(self.tr("%1 specifics live on only if the summary carries them "
                                   "(%2): %3").replace("%1", f"{len(cut.at_stake):,}")
                           .replace("%2", classes or "none")
                           .replace("%3", shown + (f", … {more:,} more" if more else "")))
        self.stake.setToolTip("\n".join(f"{cls}: {v}" for v, cls in cut.at_stake[:400]))
        for entry_id, role, text in cut.entries:
            item = QListWidgetItem(f"{role}: {text}")
            item.setData(ItemRole, entry_id)
            item.setToolTip(self.tr("Entry %1. Pin it to carry its text into the summary word "
                                    "for word").replace("%1", entry_id))
            self.entries.addItem(item)

    def _on_preview(self, path: Path, cut: NextCut) -> None:
        if path == self._c.selected:
            self._show_cut(cut)

    def _on_pin(self) -> None:
        item = self.entries.currentItem()
        entry_id = item.data(ItemRole) if item is not None else None
        if self._c.selected is None or not isinstance(entry_id, str):
            return
        self._pin(self._c.selected, entry_id)
