"""SessionLens's side of the differential tests against today's pi (``harness_pi.mjs``).

For every prefix of a file and every setting, ``ours_pi`` answers with three rules: the two
that reproduce today's releases ("pi-1.6" for pi 1.6.0, "pi-0.73" for 0.63.1 to 0.73.1) and
the old default ("pi-0.58"), to show what a current pi user was told before. ``tally_pi``
compares each rule with the release it stands for, quantity by quantity (prepared or not,
first kept, split turn, tokensBefore, messages summarized, messages in the turn prefix, the
threshold check's context size and shouldCompact), and also counts *settings* (one file,
prefix and keepRecentTokens) on which anything differs. The one explained difference of
``compare.py`` holds here too: pi prepares a compaction whose only input is a bash run kept
out of the context, SessionLens refuses to plan it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fidelity.compare import Tally, _settings, compare_prep, prefix_transcripts
from sessionlens.engine.agents.pi.rule_1_6 import pi16_summarized_messages
from sessionlens.engine.errors import PlanError
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.plan.prepare import prepare_rule
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.tokens.token_report import TokenReport

__all__ = ["OURS", "PiTally", "ours_pi", "tally_pi"]

#: SessionLens rules asked; (rule, the release it is compared with).
OURS = ("pi-1.6", "pi-0.73", "pi-0.58")
#: (what is compared, SessionLens rule, harness key).
PAIRS = (("pi-1.6 vs pi 1.6.0", "pi-1.6", "pi-1.6"),
         ("pi-0.73 vs pi 0.73.1", "pi-0.73", "pi-0.73"),
         ("pi-0.58 vs pi 1.6.0 (before)", "pi-0.58", "pi-1.6"),
         ("pi-0.58 vs pi 0.73.1 (before)", "pi-0.58", "pi-0.73"))
_PI_ROWS = frozenset({"message", "custom_message", "branch_summary"})


def _count(rule: str, path: Sequence[Entry], ids: Sequence[str], sub: Transcript,
           est: Sequence[int]) -> int:
    if rule == "pi-1.6":
        return pi16_summarized_messages(path, ids, est)
    return sum(1 for i in ids if sub.entry(i).type in _PI_ROWS)


def _one(sub: Transcript, path: Sequence[Entry], cfg: CompactionSettings, report: TokenReport,
         rule: str, pos: dict[str, int]) -> dict[str, Any]:
    est = [report.entries[e.id].estimate_pi for e in path]
    try:
        plan = plan_compaction(sub, cfg, tokens=report, cut_rule=rule,  # type: ignore[arg-type]
                               hard_boundary=False)
    except PlanError as exc:
        prep = prepare_rule(path, rule, cfg.keep_recent_tokens, est)
        check = prep.threshold_tokens
        out: dict[str, Any] = {"prep": None, "error": str(exc), "check": [
            check, check is not None and cfg.should_compact(check, cfg.context_window or 0)]}
        if prep.cut is not None and "would still write a compaction" in str(exc):
            cut = prep.cut
            history = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
            assert history is not None
            skip = {prep.boundary, *prep.outside}
            ids = [e.id for k, e in enumerate(path) if k not in skip]
            head = [path[k].id for k in range(prep.region_start, history) if k not in skip]
            prefix = [path[k].id for k in range(history, cut.first_kept_index) if k not in skip]
            assert ids
            out["empty"] = [pos[path[cut.first_kept_index].id], cut.is_split_turn,
                            prep.tokens_before, _count(rule, path, head, sub, est),
                            _count(rule, path, prefix, sub, est)]
        return out
    assert plan.first_kept_entry_id is not None
    return {"prep": [pos[plan.first_kept_entry_id], plan.is_split_turn, plan.tokens_before,
                     _count(rule, path, plan.summarize_entry_ids, sub, est),
                     _count(rule, path, plan.turn_prefix_entry_ids, sub, est)],
            "check": [plan.threshold_tokens, plan.should_compact]}


def ours_pi(path: Path, settings: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """SessionLens's answers for every prefix of the file at ``path``, per rule in ``OURS``."""
    t, report, pos, subs = prefix_transcripts(path)
    runs = []
    for s in settings:
        cfg = _settings(s)
        rows = []
        for k, sub in enumerate(subs, 1):
            p = sub.path_entries()
            rows.append({"k": k, **{rule: _one(sub, p, cfg, report, rule, pos) for rule in OURS}})
        runs.append(rows)
    return {"n": len(t.entries), "runs": runs}


@dataclass
class PiTally:
    """Quantities per comparison (``Tally``) and settings on which anything differs."""

    quantities: Tally = field(default_factory=Tally)
    settings: dict[str, int] = field(default_factory=dict)
    differing: dict[str, int] = field(default_factory=dict)

    def table(self) -> str:
        rows = [self.quantities.table(), f"{'settings (file, prefix, keep)':<34}"
                f"{'compared':>10}{'differ':>10}"]
        for what in self.settings:
            rows.append(f"{what:<34}{self.settings[what]:>10}{self.differing[what]:>10}")
        return "\n".join(rows)


def _compare(t: Tally, what: str, theirs: dict[str, Any], mine: dict[str, Any],
             where: str) -> bool:
    """Add one prefix's quantities; True when all agree (the explained difference agrees:
    when pi prepares a compaction SessionLens refuses as empty, the fields still compare)."""
    before = sum(len(v) for v in t.differ.values())
    compare_prep(t, what, theirs["prep"], mine, where, who="pi")
    a, b = theirs["check"], mine["check"]
    t.add(what, "threshold tokens", a[0] == b[0], f"{where}: pi {a}, SessionLens {b}")
    t.add(what, "shouldCompact", a[1] == b[1], f"{where}: pi {a}, SessionLens {b}")
    return sum(len(v) for v in t.differ.values()) == before


def tally_pi(t: PiTally, label: str, theirs: dict[str, Any], mine: dict[str, Any]) -> None:
    """Add one file's comparison (``theirs`` from harness_pi.mjs, ``mine`` from ``ours_pi``)."""
    assert theirs["n"] == mine["n"], f"{label}: Node read {theirs['n']} rows, we {mine['n']}"
    t.quantities.files += 1
    for run, rows in zip(theirs["runs"], mine["runs"], strict=True):
        keep = run["settings"]["keepRecentTokens"]
        for p, q in zip(run["prefixes"], rows, strict=True):
            t.quantities.prefixes += 1
            where = f"{label} keep={keep} k={p['k']}"
            for what, rule, key in PAIRS:
                same = _compare(t.quantities, what, p[key], q[rule], where)
                t.settings[what] = t.settings.get(what, 0) + 1
                t.differing[what] = t.differing.get(what, 0) + (not same)
