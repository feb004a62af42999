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
from sessionlens.engine.plan.planner import CompactionPlan

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
    #: Why there is no plan ("" when there is one).
    nothing: str = ""


def next_cut(opened: OpenedTranscript) -> NextCut:
    """The plan of the next automatic compaction and the specifics it puts at stake."""
    try:
        plan = opened.plan()
    except PlanError as exc:
        return NextCut(None, None, (), (), str(exc).split(": ", 1)[-1])
    report = audit_at_cut(opened.transcript, "", plan=plan)
    stake = tuple((e.value, str(e.cls)) for e in report.entities)
    counts = Counter(cls for _, cls in stake)
    return NextCut(plan, opened.figures(plan), stake, tuple(sorted(counts.items())))
