"""Where the agent's next automatic cut would land now, and what rides on its summary.

The same plan the cut preview shows (``OpenedTranscript.plan``: the file's own agent's rule
under the resolved settings) and its figures, plus the specifics of the span that cut would
summarize (``audit_at_cut`` of an empty summary lists every one of them): all of them live on
only if the summary carries them. Pure over a loaded transcript.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sessionlens.engine.audit.at_cut import audit_at_cut
from sessionlens.engine.errors import PlanError
from sessionlens.engine.opened import Figures, OpenedTranscript
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.planner import is_message_entry
from sessionlens.engine.tokens.estimate import entry_count_text

#: How much of each summarized entry's text the preview shows.
SNIPPET_CHARS = 120

__all__ = ["NextCut", "next_cut"]


@dataclass(frozen=True, slots=True)
class NextCut:
    """The next automatic cut (None fields when there is nothing to compact yet)."""

    plan: CompactionPlan | None
    figures: Figures | None
    #: Every specific of the span to summarize: (value, class), in file order.
    at_stake: tuple[tuple[str, str], ...]
    #: How many of them per class.
    by_class: tuple[tuple[str, int], ...]
    #: The messages the cut would summarize: (entry id, role, the start of its text).
    entries: tuple[tuple[str, str, str], ...] = ()
    #: Why there is no plan ("" when there is one).
    nothing: str = ""


def next_cut(opened: OpenedTranscript) -> NextCut:
    """The plan of the next automatic compaction and the specifics it puts at stake."""
    try:
        plan = opened.plan()
    except PlanError as exc:
        return NextCut(None, None, (), (), nothing=str(exc).split(": ", 1)[-1])
    report = audit_at_cut(opened.transcript, "", plan=plan)
    stake = tuple((e.value, str(e.cls)) for e in report.entities)
    counts = Counter(cls for _, cls in stake)
    t = opened.transcript
    entries = []
    for entry_id in plan.summarized_entry_ids:
        entry = t.entry(entry_id)
        if is_message_entry(entry):
            role = entry.message.role if entry.message is not None else entry.type
            text = " ".join(entry_count_text(entry).split())[:SNIPPET_CHARS]
            entries.append((entry_id, role, text))
    return NextCut(plan, opened.figures(plan), stake, tuple(sorted(counts.items())),
                   tuple(entries))
