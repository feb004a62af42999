"""The compaction panel's three modal steps, as the real dialogs (tests inject their own).

The outbound preview (what leaves the machine), the accept dialog (how to write) and the
save dialog (where to export: the transcript's folder, a name from the session).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from sessionlens.gui.compaction.accept_dialog import AcceptDialog
from sessionlens.gui.compaction.outbound_preview import OutboundPreviewDialog
from sessionlens.gui.export_flow import ask_save_path, default_export_path

if TYPE_CHECKING:
    from sessionlens.engine import Transcript, WriteMode
    from sessionlens.gui.compaction.outbound import OutboundPreview
    from sessionlens.gui.compaction.run import RunRecord


def dialog_outbound(preview: OutboundPreview, parent: QWidget) -> frozenset[str] | None:
    dlg = OutboundPreviewDialog(preview, parent)
    return dlg.keep_values() if dlg.exec() == OutboundPreviewDialog.DialogCode.Accepted else None


def dialog_accept(record: RunRecord, t: Transcript,
                  parent: QWidget) -> tuple[WriteMode, bool, bool, bool] | None:
    """(write mode, whether a failed audit was accepted explicitly, whether a retry storm's
    copies are kept, whether a second successor was allowed explicitly), or None:
    cancelled."""
    dlg = AcceptDialog(record, t, parent)
    if dlg.exec() != AcceptDialog.DialogCode.Accepted:
        return None
    return (dlg.mode(), dlg.failed_audit_accepted(), dlg.keep_retry_copies(),
            dlg.second_successor_allowed())


def dialog_save(fmt: str, parent: QWidget) -> Path | None:
    """The save dialog in the transcript's folder, named after the session."""
    controller = getattr(parent, "c", None)  # the panel: its transcript names the file
    t = getattr(controller, "transcript", None)
    return ask_save_path(parent.tr("Export audited summary"),
                         default_export_path(t, "summary", fmt), (fmt,), parent)
