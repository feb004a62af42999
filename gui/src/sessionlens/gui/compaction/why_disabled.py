"""Why a compaction button is disabled, in words for its tooltip.

A greyed-out Accept with no reason left users guessing (issue 19); each refusal here names
what to do next. Reads the controller's state only; decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class DisabledReasons:
    """For each button, why it is disabled now (None: enabled)."""

    run: str | None
    accept: str | None
    export: str | None
    discard: str | None
    undo: str | None


def disabled_reasons(c: CompactionController, *, cut_text: str,
                     accept: str | None) -> DisabledReasons:
    """Every button's reason at once; ``accept`` is the panel's own (it knows the editor)."""
    if c.is_running():
        busy = _tr("A compaction is running.")
        return DisabledReasons(busy, busy, busy, busy, busy)
    run = None
    if c.plan is None:
        run = _tr("There is no plan to run: %1").replace(
            "%1", cut_text if c.transcript is not None else _tr("open a transcript first"))
    exportable = c.accepted_record is not None or (c.current is not None
                                                    and c.current.report is not None)
    return DisabledReasons(
        run=run, accept=accept,
        export=None if exportable else _tr("Run a compaction and wait for its audit first."),
        discard=None if c.current is not None else _tr("There is no run to discard."),
        undo=None if c.last_write is not None else _tr("Nothing was written in this session "
                                                         "yet."))
