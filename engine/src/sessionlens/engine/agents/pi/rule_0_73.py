"""pi's cut and numbers as pi 0.63.1 to 0.73.1 decide them (rule "pi-0.73").

Read from @mariozechner/pi-coding-agent 0.73.1 (``dist/core/compaction/compaction.js``
``prepareCompaction``, ``findCutPoint``; ``dist/core/agent-session.js``
``_checkCompaction``), the last release under that name; 0.63.1 (pi#2608) made the change
this rule adds to pi 0.58.3's (``agents.pi.rule_0_58``), and nothing in the cut moved again until 1.x:

* **Region.** A repeated compaction summarizes from the previous compaction's
  ``firstKeptEntryId`` (found anywhere on the path; not found: just after that compaction),
  so the tail the previous compaction kept is summarized again. Compaction rows inside the
  region are never summary input and never a cut point.
* **tokensBefore.** ``estimateContextTokens`` over the whole rebuilt context
  (``buildSessionContext``: the previous summary, its kept tail, everything after it), not
  just the rows after the previous compaction.
* **Cut, split turn, threshold check.** pi 0.58.3's (``pi_find_cut_point`` over the new
  region, ``pi_threshold_tokens``); like 0.58.3 it still prepares a compaction with nothing
  the model sees to summarize.

Pure: indices are into the ``path`` given, estimates are pi estimates aligned with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sessionlens.engine.agents.pi.rule_0_58 import pi_context_entries, pi_preparation, pi_region
from sessionlens.engine.model import Entry
from sessionlens.engine.plan.cutpoints import Preparation

__all__ = ["pi073_prepare", "pi073_region"]


def pi073_region(path: Sequence[Entry]) -> tuple[int, int | None]:
    """(where the summarized region starts, the previous compaction's index or None)."""
    after, comp = pi_region(path)
    if comp is None:
        return 0, None
    wanted = path[comp].first_kept_entry_id
    first = next((i for i, e in enumerate(path) if e.id == wanted), None)
    return (first if first is not None else after), comp


def pi073_prepare(path: Sequence[Entry], keep_recent_tokens: int,
                  estimates: Sequence[int]) -> Preparation:
    """pi 0.73.1 ``prepareCompaction`` (its manual ``/compact`` runs the same)."""
    start, comp = pi073_region(path)
    return pi_preparation(path, start, comp, pi_context_entries(path), keep_recent_tokens,
                          estimates)
