"""The token view: context chart with cut preview, totals, and a breakdown bar chart.

Everything shown comes from the session's TokenReport, its resolved settings (the window and
where it came from) and the one plan's ``Figures``, under the engine's ``FIGURE_LABELS``;
dragging the cut line asks the session to re-plan with ``cut_entry_id`` (off the UI thread).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import FIGURE_LABELS, outside_transcript
from sessionlens.gui import colors, shortcuts
from sessionlens.gui.chart_paint import coalesce_repaints
from sessionlens.gui.session_controller import SessionController, TokenView

from .context_chart import ContextChart

if TYPE_CHECKING:
    from sessionlens.engine import CompactionForensics, CompactionPlan, Transcript


#: Pixels the breakdown keeps for its bars beside the labels.
BAR_ROOM = 60


class BreakdownChart(pg.PlotWidget):  # type: ignore[misc]
    """Horizontal bars: exact tokens per role or per entry type (whole file)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent)
        self.setMinimumHeight(110)
        self.getPlotItem().getViewBox().setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.hideAxis("bottom")
        coalesce_repaints(self)
        self.bars: pg.BarGraphItem | None = None
        self._values: dict[str, int] = {}
        self._dark = False

    def set_values(self, values: dict[str, int]) -> None:
        self._values = {k: v for k, v in sorted(values.items(), key=lambda kv: kv[1]) if v > 0}
        if self.bars is not None:
            self.removeItem(self.bars)
            self.bars = None
        names = list(self._values)
        if not names:  # nothing counted yet (pyqtgraph cannot draw zero bars)
            self.getAxis("left").setTicks([[]])
            return
        ys = list(range(len(names)))
        widths = [self._values[n] for n in names]
        brushes = [pg.mkBrush(colors.BREAKDOWN.get(n, "#8a8f98")) for n in names]
        self.bars = pg.BarGraphItem(x0=0, y=ys, width=widths, height=0.7, brushes=brushes,
                                    pens=[pg.mkPen(None)] * len(names))
        self.addItem(self.bars)
        labels = [f"{n}  {self._values[n]:,}" for n in names]
        axis = self.getAxis("left")
        axis.setTicks([list(enumerate(labels))])
        # the labels' width set here, not measured while painting: a measured width re-lays
        # out the plot only on a later paint, and until then the labels are cut off
        metrics = QFontMetrics(axis.style["tickFont"] or self.font())
        label_width = (max(metrics.horizontalAdvance(t) for t in labels)
                       + axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"]) + 6)
        axis.setWidth(label_width)
        # never narrower than its labels and a bar: a squeezed plot drops its tick labels
        # (1280×800 showed bars and no names)
        self.setMinimumWidth(label_width + BAR_ROOM)
        self.setYRange(-0.6, max(0.6, len(names) - 0.4), padding=0)
        self.setXRange(0, max(widths, default=1) * 1.05, padding=0)

    def apply_theme(self, dark: bool) -> None:
        c = colors.chart_colors(dark)
        self.setBackground(c["bg"])
        for axis in ("left", "bottom"):
            self.getAxis(axis).setPen(pg.mkPen(c["fg"]))
            self.getAxis(axis).setTextPen(pg.mkPen(c["fg"]))


def _text_height(label: QLabel, width: int) -> int:
    """The height ``label``'s rich text wraps to at ``width``, from the text alone (a fixed-
    height label's own ``heightForWidth`` answered its current height plus a little, so each
    update grew it by 2 px and re-laid out the charts)."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(label.font())
    doc.setHtml(label.text())
    doc.setTextWidth(width)
    return math.ceil(doc.size().height())


class TokenPanel(QWidget):
    """Chart + summary line + breakdown; the cut-point preview lives here."""

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._c = controller
        #: The series on the chart now (a second report for the same series skips the chart).
        self._charted: object = None
        self.chart = ContextChart(self.tr)
        self.totals = QLabel(self.tr("No session open."))
        self.totals.setWordWrap(True)
        self.totals.setTextFormat(Qt.TextFormat.RichText)
        self.prediction = QLabel()
        self.prediction.setWordWrap(True)
        self.prediction.setTextFormat(Qt.TextFormat.RichText)
        self.prediction.setObjectName("prediction")
        self.reset_cut = QPushButton(self.tr("Automatic cut"))
        self.reset_cut.setToolTip(self.tr("Put the cut back where the engine would place it"))
        self.reset_cut.setShortcut(shortcuts.sequence(shortcuts.RESET_CUT))
        self.reset_cut.setEnabled(False)
        # fixed heights: a label that grows by a line would resize the chart, and a pyqtgraph
        # re-layout costs more than the whole repaint
        line = self.fontMetrics().lineSpacing()
        self._min_heights = {self.totals: 2 * line + 4, self.prediction: 3 * line + 6}
        for label, height in self._min_heights.items():
            label.setFixedHeight(height)
        self.prediction.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.totals.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.breakdown_kind = QComboBox()
        self.breakdown_kind.addItem(self.tr("Tokens by role"), "role")
        self.breakdown_kind.addItem(self.tr("Tokens by entry type"), "type")
        self.breakdown = BreakdownChart()

        top = QHBoxLayout()
        top.addWidget(self.prediction, 1)
        top.addWidget(self.reset_cut, 0, Qt.AlignmentFlag.AlignTop)
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.breakdown_kind)
        sl.addWidget(self.breakdown, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.chart)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([720, 260])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.totals)
        lay.addLayout(top)
        lay.addWidget(split, 1)

        self.chart.cut_moved.connect(self._on_cut)
        self.chart.cut_dragging.connect(self._on_cut)
        self.reset_cut.clicked.connect(lambda: controller.set_cut(None))
        self.breakdown_kind.currentIndexChanged.connect(self._show_breakdown)
        controller.loaded.connect(self._on_loaded)
        controller.tokens_ready.connect(self._on_tokens)
        controller.plan_ready.connect(self._on_plan)
        controller.plan_failed.connect(self._on_plan_failed)
        controller.failed.connect(self._on_failed)
        controller.settings_changed.connect(lambda _s: self._refresh_window())

    def _fit_labels(self) -> None:
        """Grow a label by the lines its text wraps to (never less than its usual height);
        the height changes only when the line count does, so the chart seldom re-lays out."""
        for label, least in self._min_heights.items():
            inside = label.contentsRect()
            frame = label.height() - inside.height()  # the style's padding and border
            height = max(least, _text_height(label, inside.width()) + frame + 2) \
                if inside.width() > 0 else least
            if height != label.height():
                label.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_labels()

    def apply_theme(self, dark: bool) -> None:
        self.chart.apply_theme(dark)
        self.breakdown.apply_theme(dark)
        self._show_breakdown()

    def _path(self) -> tuple[str, ...]:
        return self._c.transcript.active_path if self._c.transcript is not None else ()

    def _on_cut(self, x: int) -> None:
        path = self._path()
        if 0 <= x < len(path):
            self._c.set_cut(path[x])

    def _on_loaded(self, _t: Transcript) -> None:
        self._charted = None
        self.totals.setText(self.tr("Counting tokens…"))
        self.prediction.setText("")
        self.chart.set_plan(None, {}, 0)

    def _on_failed(self, _message: str) -> None:
        if self._c.transcript is None:  # nothing loaded: an empty frame, no made-up axes
            self._charted = None
            self.chart.set_plan(None, {}, 0)
            self.chart.show_empty()
            self.totals.setText(self.tr("No session open."))

    def _compaction_tip(self, f: CompactionForensics) -> str:
        """Hover text for one compaction marker, from the engine's forensics."""
        lines = [self.tr("Compaction %1 (line %2)").replace("%1", f.compaction_id).replace("%2", str(f.line)),
                 self.tr("trigger: %1").replace("%1", f.trigger),
                 self.tr("context %1 of window %2 (%3% of threshold %4)")
                 .replace("%1", f"{f.context_tokens:,}").replace("%2", f"{f.context_window:,}")
                 .replace("%3", f"{f.threshold_share * 100:.0f}").replace("%4", f"{f.threshold:,}")]
        if f.reported_context_tokens is not None:
            lines.append(self.tr("provider reported %1").replace("%1", f"{f.reported_context_tokens:,}"))
        if f.recorded_tokens_before is not None:
            lines.append(self.tr("tokensBefore recorded %1").replace("%1", f"{f.recorded_tokens_before:,}"))
        lines.append(self.tr("summary %1 tokens replacing %2").replace("%1", f"{f.summary_tokens:,}")
                     .replace("%2", f"{f.replaced_tokens:,}"))
        if f.total_loss:
            lines.append("⚠ " + self.tr("TOTAL LOSS: the summary is a fallback placeholder, "
                                        "so everything it replaced is gone"))
        elif f.fallback_summary:
            lines.append(self.tr("the summary is a fallback placeholder, but it replaced "
                                 "nothing: the context kept its whole region"))
        if f.from_hook:
            lines.append(self.tr("written by a hook / safeguard"))
        if f.hard_boundary:
            lines.append(self.tr("hard boundary: nothing before it was kept"))
        for flag in f.flags:
            lines.append("⚠ " + flag)
        return "\n".join(lines)

    def _on_tokens(self, view: TokenView) -> None:
        if view.series is self._charted:
            # the whole file's count came in: the curve is unchanged; totals, the breakdown
            # and the compaction markers (forensics) are new
            self._show_totals(view)
            self._show_marks(view)
            self._show_breakdown()
            return
        self._render(view)

    def _show_totals(self, view: TokenView) -> None:
        r = view.report
        reported = f"{r.reported_context:,}" if r.reported_context is not None else "—"
        whole = (f"{r.exact_total:,}" if r.exact_total is not None
                 else self.tr("counting…"))
        self.totals.setText(
            f"<b>{self.tr('Context now')}</b> — {self.tr('reported')}: <b>{reported}</b> · "
            f"{self.tr('exact')} ({r.encoding}): <b>{r.exact_context:,}</b> · "
            f"{self.tr('estimate (pi chars/4)')}: <b>{r.estimate_context:,}</b> · "
            f"{FIGURE_LABELS['context_window']}: {self._c.context_window():,} · "
            f"{self.tr('whole file, exact')}: {whole}")
        resolved = self._c.resolved
        if resolved is not None:
            tip = "\n".join(f"{label}: {s.value:,} ({s.source})" if isinstance(s.value, int)
                            else f"{label}: {s.value} ({s.source})" for label, s in resolved.rows())
            t = self._c.transcript
            gap = outside_transcript(t, r) if t is not None else None
            why = [] if gap is None else [self.tr(
                "Not in the file: ~%1 of the reported context (what the agent sends beside the "
                "file's messages: system prompt, tool definitions, injected files; and the "
                "provider's own tokenizer). Exact counts only the file's messages.").replace(
                "%1", f"{gap:,}") if gap >= 0 else self.tr(
                "%1 counts the file's messages %2 higher than the provider's tokenizer did."
                ).replace("%1", r.encoding).replace("%2", f"{-gap:,}")]
            self.totals.setToolTip("\n".join([*why, tip, *("⚠ " + w for w in resolved.warnings)]))
        self._fit_labels()

    def _render(self, view: TokenView) -> None:
        self._charted = view.series
        self._show_totals(view)
        self.chart.set_series(view, len(self._path()), self._c.context_window(), self._c.threshold())
        self._show_marks(view)
        self._show_breakdown()

    def _show_marks(self, view: TokenView) -> None:
        marks = [(self._c.path_pos[f.compaction_id], self._compaction_tip(f))
                 for f in view.forensics if f.compaction_id in self._c.path_pos]
        self.chart.set_compactions([m[0] for m in marks], [m[1] for m in marks])

    def _refresh_window(self) -> None:
        if self._c.tokens is not None:
            self._render(self._c.tokens)

    def _show_breakdown(self) -> None:
        tv = self._c.tokens
        if tv is None:
            return
        kind = self.breakdown_kind.currentData()
        values = tv.report.by_role if kind == "role" else tv.report.by_type
        # None until the whole file is counted (the context's numbers come first): no bars
        # yet rather than bars of zero
        self.breakdown.set_values(dict(values) if values is not None else {})

    def _on_plan(self, plan: CompactionPlan) -> None:
        f = self._c.figures
        if f is None:
            return
        L = FIGURE_LABELS
        self.chart.set_plan(plan, self._c.path_pos, f.context_window, f.predicted_tokens_after)
        if self._c.tokens is not None:
            self.chart.set_window(f.context_window)
        x = (self._c.path_pos.get(f.first_kept_entry_id) if f.first_kept_entry_id else None)
        verdict = self.tr("would compact now") if f.should_compact else self.tr("below threshold")
        split = f" · <span style='color:#e0861a'>{self.tr('splits a turn')}</span>" \
            if plan.is_split_turn else ""
        # the last compaction's kept tail leaves the context too (summarized with the rest)
        carried = len(plan.carried_tail_entry_ids)
        carried_text = " (<span style='color:#e0861a'>%1</span>)".replace(
            "%1", self.tr("%1 of them the last compaction kept verbatim").replace(
                "%1", f"{carried:,}")) if carried else ""
        kept = (f"<code>{f.first_kept_entry_id}</code> (#{x})" if f.first_kept_entry_id
                else self.tr("nothing (hard boundary)"))
        self.prediction.setText(
            f"<b>{self.tr('Cut preview')}</b>: {L['first_kept_entry_id']} {kept} · "
            f"{f.entries_summarized:,} {L['entries_summarized']}{carried_text} · "
            f"{L['tokens_before']} <b>{f.tokens_before:,}</b> → "
            f"{L['predicted_tokens_after']} <b>{f.predicted_tokens_after:,}</b>{split}"
            f"<br/><span style='color:gray'>{L['threshold']} {f.threshold:,} · "
            f"{verdict} · {self.tr('drag the red line to move the cut')}</span>")
        self.prediction.setToolTip(plan.cut_reason)
        self._fit_labels()
        self.reset_cut.setEnabled(self._c.cut_entry_id is not None)

    def _on_plan_failed(self, message: str) -> None:
        path = self._c.path
        if path is not None:  # the file is in the status bar already
            message = message.removeprefix(f"{path}: ")
        note = f"<span style='color:gray'>{self.tr('No compaction to preview')}: {message}</span>"
        if self._c.plan is None:
            self.chart.set_plan(None, {}, 0)
            self.prediction.setText(note)
            self._fit_labels()
            return
        self._on_plan(self._c.plan)        # a rejected cut: the last good plan stays on screen
        self.prediction.setText(self.prediction.text() + "<br/>" + note)
        self._fit_labels()
