"""Why a compaction button is disabled, in words for its tooltip.

A greyed-out Accept with no reason left users guessing (issue 19); each refusal here names
what to do next. Reads the controller's state only; decides nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from sessionlens.gui.compaction.controller import CompactionController


def _tr(text: str) -> str:
    return QCoreApplication.translate("CompactionPanel", text)


def accept_blocked(c: CompactionController) -> str | None:
    """Why the current run cannot be accepted (None: it can)."""
    rec = c.current
    if rec is None:
        return _tr("Run a compaction first: Accept writes its audited summary.")
    if rec.rerun_of is not None:
        return _tr("This is a re-run of recorded compaction %1, for comparing only; "
                   "it is never written.").replace("%1", rec.rerun_of)
    if rec.transcript is not c.transcript:
        return _tr("The transcript was reloaded since this run: run it again.")
    if rec.report is None:
        return _tr("The audit is still running.")
    if not rec.write_plans:
        return _tr("The write is still being prepared.")
    refusals = [v for v in rec.write_plans.values() if isinstance(v, str)]
    if len(refusals) == len(rec.write_plans):
        reason = refusals[0]
        if "changed since" in reason:
            return _tr("The file changed on disk since it was opened: reload first. "
                   "(%1)").replace("%1", reason)
        return _tr("It cannot be written: %1").replace("%1", reason)
    return None
