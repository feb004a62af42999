"""The two worker jobs behind Accept and Export, kept out of the controller's state machine.

``prepare_all_writes`` runs the engine's dry run for every write mode (and, when a retry
storm's copies would be dropped, once more keeping them, so the Accept dialog can offer it);
``export_run`` writes one run's audited summary with the figures it was planned with.
Both run on the task pool; neither touches Qt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessionlens.engine import WRITE_MODES, PersistError, export_summary, make_bundle, prepare_write
from sessionlens.gui.compaction.run import KEEP_RETRY_COPIES
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    from sessionlens.engine import (
        CompactionOutcome,
        ExportFormat,
        ResolvedSettings,
        Transcript,
        WritePlan,
    )
    from sessionlens.gui.compaction.run import RunRecord


def prepare_all_writes(t: Transcript, outcome: CompactionOutcome) -> dict[str, WritePlan | str]:
    """Mode -> the engine's write plan, or the reason that mode is refused."""
    plans: dict[str, WritePlan | str] = {}
    for mode in WRITE_MODES:
        try:
            plans[mode] = prepare_write(t, outcome, mode)
        except PersistError as exc:
            plans[mode] = describe_error(exc)
    successor = plans.get("successor")
    if not isinstance(successor, str) and successor is not None \
            and successor.dropped_retry_copies:  # the Accept dialog can keep them
        try:
            plans[KEEP_RETRY_COPIES] = prepare_write(t, outcome, "successor",
                                                     keep_retry_copies=True)
        except PersistError as exc:
            plans[KEEP_RETRY_COPIES] = describe_error(exc)
    return plans


def export_run(rec: RunRecord, resolved: ResolvedSettings | None, fmt: ExportFormat,
               out: Path) -> Path:
    """Write ``rec``'s audited summary as ``fmt``; the settings block names the run's figures."""
    f = rec.figures
    settings: dict[str, Any] = {
        "context_window": f.context_window, "threshold": f.threshold,
        "first_kept_entry_id": f.first_kept_entry_id, "tokens_before": f.tokens_before,
        "tokens_after": rec.tokens_after, "entries_summarized": f.entries_summarized,
        "identifier_policy": rec.options.identifier_policy}
    if resolved is not None:
        settings.update({"keep_recent_tokens": resolved.keep_recent_tokens.value,
                         "reserve_tokens": resolved.reserve_tokens.value,
                         "cut_rule": resolved.cut_rule.value})
    bundle = make_bundle(rec.transcript, rec.result.summary, rec.report,
                         provider=rec.result.provider, model=rec.result.model,
                         template=rec.result.template, instructions=rec.result.instructions,
                         settings=settings, provenance=rec.outcome.provenance)
    return Path(export_summary(bundle, fmt, out))
