"""A thin Qt table over the engine's ``MemoryHealth``: one row per compaction, worst first.

Every cell is a field of ``CompactionHealth`` rendered as text; the order is the engine's.
``HealthRole`` returns the engine row itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from sessionlens.engine import CLASS_TITLES, HEALTH_FLAG_TEXT

if TYPE_CHECKING:
    from sessionlens.engine import CompactionHealth, MemoryHealth

HealthRole = Qt.ItemDataRole.UserRole + 11
_Index = QModelIndex | QPersistentModelIndex

#: Severity colours (text), the same red/amber the audit panel uses.
SEVERITY_COLORS = {"critical": "#cf222e", "warning": "#b35900", "notice": "#6e7781",
                   "ok": "#1a7f37"}
COLUMNS = ("severity", "number", "compaction", "time", "trigger", "replaced", "summary",
           "flags", "coverage", "flush")


def coverage_text(row: CompactionHealth, *, titles: bool = False) -> str:
    """"path 0/47 · command 0/9" (``titles``: the classes' long names), or a dash when the
    span held nothing to cover."""
    sep = "\n" if titles else " · "
    space = " " if titles else "\u00a0"  # a cell wraps between classes, not inside one
    return sep.join(f"{CLASS_TITLES.get(c.cls, c.cls) if titles else c.cls}{space}"
                    f"{c.found}/{c.total}" for c in row.coverage) or "—"


def flags_text(row: CompactionHealth) -> str:
    """One flag per line (the cell grows in height, not in width)."""
    return "\n".join(HEALTH_FLAG_TEXT.get(f, f) for f in row.flags) or "—"


class HealthModel(QAbstractTableModel):
    """The memory-health rows as the engine sorted them."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: tuple[CompactionHealth, ...] = ()

    def set_health(self, health: MemoryHealth | None) -> None:
        self.beginResetModel()
        self._rows = health.compactions if health is not None else ()
        self.endResetModel()

    def row_of(self, compaction_id: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.compaction_id == compaction_id), -1)

    def item(self, row: int) -> CompactionHealth:
        return self._rows[row]

    def headers(self) -> tuple[str, ...]:
        return (self.tr("Severity"), self.tr("#"), self.tr("Compaction"), self.tr("Time"),
                self.tr("Trigger"), self.tr("Replaced"), self.tr("Summary"),
                self.tr("Flags"), self.tr("Coverage per class"), self.tr("Flush"))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers()[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return {"replaced": self.tr("Tokens the summary stands in for (forensics' estimate)"),
                    "summary": self.tr("The summary's size"),
                    "flush": self.tr("Whether OpenClaw's memory flush ran before this "
                                     "compaction, was skipped (and why) or was missed"),
                    "coverage": self.tr("Specifics of the summarized span the summary kept, "
                                        "per class")}.get(COLUMNS[section])
        return None

    def _display(self, r: CompactionHealth, key: str) -> str:
        if key == "severity":
            return r.severity.upper() if r.severity in ("critical", "warning") else r.severity
        if key == "number":
            return str(r.number)
        if key == "compaction":
            # Claude Code's ids are whole UUIDs: the head is enough to tell them apart here
            # (the tooltip and the details line below the table carry the whole id)
            cid = r.compaction_id if len(r.compaction_id) <= 12 else r.compaction_id[:8] + "…"
            return cid + ("" if r.on_active_path else self.tr("\n(side branch)"))
        if key == "time":  # as the timeline shows times; the tooltip has the whole stamp
            return (r.timestamp or "").replace("T", " ")[5:16] or "—"
        if key == "trigger":
            return r.trigger
        if key == "replaced":
            return f"{r.tokens_replaced:,}"
        if key == "summary":
            return self.tr("%1 tokens\n(%2 chars)").replace("%1", f"{r.summary_tokens:,}").replace(
                "%2", f"{r.summary_chars:,}")
        if key == "coverage":
            return coverage_text(r)
        if key == "flags":
            return flags_text(r)
        if r.flush_status is None:
            return "—"
        return r.flush_status + (f":\n{r.flush_reason}" if r.flush_reason else "")

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        key = COLUMNS[index.column()]
        if role == HealthRole:
            return r
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(r, key)
        if role == Qt.ItemDataRole.ForegroundRole and key in ("severity", "flags") and r.flags:
            return QColor(SEVERITY_COLORS[r.severity])
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("number", "replaced"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            if key == "trigger":
                return r.trigger_reason
            if key == "flush":
                return r.flush_detail or None
            if key == "coverage":
                return coverage_text(r, titles=True)
            if key == "time":
                return r.timestamp
            if key == "compaction":
                return r.compaction_id
            details = [f"{HEALTH_FLAG_TEXT.get(f, f)}: {d}"
                       for f, d in zip(r.flags, r.flag_details, strict=True)]
            return "\n".join(details) or self.tr("No problem found")
        return None
