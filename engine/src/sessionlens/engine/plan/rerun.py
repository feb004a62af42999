"""Planning the re-run of a compaction a transcript already holds (pure).

To ask "would a better summary have kept this?", the span a recorded compaction summarized is
summarized again: on the transcript as it stood just before that compaction (the entries
before it in file order), cut at its recorded ``firstKeptEntryId``. A recorded cut that lies
before the region of that moment (or a hard boundary) summarizes the whole region.
"""

from __future__ import annotations

from sessionlens.engine.errors import PlanError
from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.settings import CompactionSettings

from .compaction_plan import CompactionPlan
from .planner import plan_compaction

__all__ = ["plan_rerun"]


def plan_rerun(transcript: Transcript, compaction_id: str,
               settings: CompactionSettings) -> tuple[Transcript, CompactionPlan]:
    """(the transcript as it stood before ``compaction_id``, the plan that redoes it)."""
    entry = transcript.get(compaction_id)
    if entry is None or entry.type != "compaction":
        raise PlanError(f"{transcript.path}: no compaction {compaction_id!r} in the file")
    before = build_transcript(transcript.path, transcript.format, transcript.header,
                              transcript.entries[:transcript.index[compaction_id]], (),
                              gaps=transcript.gaps)
    first_kept = entry.first_kept_entry_id
    cut = first_kept if first_kept in before.index else None  # else: a hard boundary
    try:
        return before, plan_compaction(before, settings, cut_entry_id=cut, manual=cut is None)
    except PlanError:  # the recorded cut lies before the region: summarize all of it
        if cut is None:
            raise
        return before, plan_compaction(before, settings, manual=True)
