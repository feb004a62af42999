"""SessionLens's side of the differential tests: the same questions, asked of ``plan_compaction``.

For every prefix of a file (its first k entries, the leaf being the k-th, as pi resumes it)
and every setting, ``ours`` answers in the shape ``harness.mjs`` prints, and ``tally``
compares the two, quantity by quantity:

* pi-0.58 — ``findCutPoint`` alone (first kept, turn start, split flag), then
  ``prepareCompaction`` (prepared or not, first kept, split flag, tokensBefore, messages
  summarized, messages in the turn prefix) and the threshold check before the next prompt
  (the context size it compares, shouldCompact);
* openclaw-2026.9 — ``prepareCompaction`` (same quantities) and its threshold check;
* openclaw-2026.9 manual — the ``/compact`` preflight (same quantities);
* the per-message estimate of each estimator.

One difference is deliberate and counted apart ("explained"): pi prepares a compaction with
nothing the model sees to summarize (everything fits in keepRecentTokens, or all that would
be summarized is a bash run excluded from the context), and SessionLens refuses to plan one.
Its cut and numbers are still compared, from the preparation SessionLens made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sessionlens.engine.agents.openclaw.rule_2026_9 import projected_role
from sessionlens.engine.agents.pi.rule_0_58 import pi_find_cut_point, pi_region
from sessionlens.engine.errors import PlanError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.plan.prepare import prepare_rule
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.tokens.counts import estimate_entry_tokens
from sessionlens.engine.tokens.token_report import EntryTokens, TokenReport

__all__ = ["RULES", "Tally", "compare_prep", "ours", "prefix_transcripts", "tally"]

#: (record key, rule, manual) for each preparation compared.
RULES = (("pi", "pi-0.58", False), ("openclaw", "openclaw-2026.9", False),
         ("openclaw-manual", "openclaw-2026.9", True))
_PI_ROWS = frozenset({"message", "custom_message", "branch_summary", "compaction"})


def _report(t: Transcript) -> TokenReport:
    """Per-entry estimates only (what plan_compaction reads from a report), computed once."""
    per = {e.id: EntryTokens(estimate_entry_tokens(e, "pi"), estimate_entry_tokens(e, "openclaw"), 0)
           for e in t.entries}
    return TokenReport("none", MappingProxyType(per), None, None, 0, 0, 0, 0,
                       MappingProxyType({}), MappingProxyType({}))


def prefix_transcripts(path: Path) -> tuple[Transcript, TokenReport, dict[str, int],
                                            list[Transcript]]:
    """The file at ``path``, its per-entry estimates, each entry's index, and the transcript
    of every prefix (its first k entries, the leaf being the k-th)."""
    t = load_transcript(path)
    subs = [build_transcript(t.path, t.format, t.header, t.entries[:k], ())
            for k in range(1, len(t.entries) + 1)]
    return t, _report(t), {e.id: i for i, e in enumerate(t.entries)}, subs


def _settings(s: dict[str, Any]) -> CompactionSettings:
    return CompactionSettings(context_window=s["contextWindow"], reserve_tokens=s["reserveTokens"],
                              reserve_tokens_floor=0, keep_recent_tokens=s["keepRecentTokens"])


def _count(ids: Sequence[str], sub: Transcript, agent: str) -> int:
    if agent == "pi":
        return sum(1 for i in ids if sub.entry(i).type in _PI_ROWS)
    return sum(1 for i in ids if projected_role(sub.entry(i)) is not None)


def _from_plan(plan: CompactionPlan, sub: Transcript, pos: dict[str, int],
               agent: str) -> list[Any]:
    assert plan.first_kept_entry_id is not None
    return [pos[plan.first_kept_entry_id], plan.is_split_turn, plan.tokens_before,
            _count(plan.summarize_entry_ids, sub, agent),
            _count(plan.turn_prefix_entry_ids, sub, agent)]


def _one(sub: Transcript, path: Sequence[Entry], cfg: CompactionSettings, report: TokenReport,
         rule: str, manual: bool, pos: dict[str, int]) -> dict[str, Any]:
    agent = "pi" if rule == "pi-0.58" else "openclaw"
    try:
        plan = plan_compaction(sub, cfg, tokens=report, cut_rule=rule,  # type: ignore[arg-type]
                               manual=manual, hard_boundary=False)
    except PlanError as exc:
        est = [getattr(report.entries[e.id], f"estimate_{agent}") for e in path]
        prep = prepare_rule(path, rule, cfg.keep_recent_tokens, est, manual=manual)
        check = prep.threshold_tokens
        out: dict[str, Any] = {
            "prep": None, "error": str(exc),
            "check": [check, check is not None and cfg.should_compact(
                check, cfg.context_window or 0)]}
        if prep.cut is not None and "would still write a compaction" in str(exc):
            cut = prep.cut
            history = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
            assert history is not None
            ids = [e.id for e in path]
            out["empty"] = [pos[path[cut.first_kept_index].id], cut.is_split_turn,
                            prep.tokens_before, _count(ids[prep.region_start:history], sub, agent),
                            _count(ids[history:cut.first_kept_index], sub, agent)]
        return out
    return {"prep": _from_plan(plan, sub, pos, agent),
            "check": [plan.threshold_tokens, plan.should_compact]}


def ours(path: Path, settings: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """SessionLens's answers for every prefix of the file at ``path`` (harness.mjs's shape)."""
    t, report, pos, subs = prefix_transcripts(path)
    runs = []
    for s in settings:
        cfg = _settings(s)
        prefixes = []
        for k, sub in enumerate(subs, 1):
            path_ = sub.path_entries()
            start, _ = pi_region(path_)
            est = [report.entries[e.id].estimate_pi for e in path_]
            cut = pi_find_cut_point(path_, start, len(path_), cfg.keep_recent_tokens, est)

            def at(i: int | None, p: Sequence[Entry] = path_) -> int:
                return pos[p[i].id] if i is not None and 0 <= i < len(p) else -1

            rec: dict[str, Any] = {"k": k, "cut": [at(cut.first_kept_index),
                                                   at(cut.turn_start_index), cut.is_split_turn]}
            for key, rule, manual in RULES:
                rec[key] = _one(sub, path_, cfg, report, rule, manual, pos)
            prefixes.append(rec)
        runs.append(prefixes)
    estimates = {"pi": [report.entries[e.id].estimate_pi for e in t.entries],
                 "openclaw": [report.entries[e.id].estimate_openclaw for e in t.entries]}
    return {"n": len(t.entries), "runs": runs, "estimates": estimates}


@dataclass
class Tally:
    """Agreements per (what, quantity), the explained differences, and the first mismatches."""

    files: int = 0
    prefixes: int = 0
    agree: dict[tuple[str, str], int] = field(default_factory=dict)
    explained: dict[tuple[str, str], int] = field(default_factory=dict)
    differ: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def add(self, what: str, quantity: str, same: bool, where: str, *,
            explained: bool = False) -> None:
        key = (what, quantity)
        self.agree.setdefault(key, 0)
        self.explained.setdefault(key, 0)
        self.differ.setdefault(key, [])
        if same:
            self.agree[key] += 1
        elif explained:
            self.explained[key] += 1
        else:
            self.differ[key].append(where)

    def table(self) -> str:
        rows = [f"files {self.files}, prefixes {self.prefixes} (per setting and rule)",
                f"{'compared':<34}{'quantity':<24}{'agree':>8}{'explained':>10}{'differ':>8}"]
        for key in sorted(self.agree):
            rows.append(f"{key[0]:<34}{key[1]:<24}{self.agree[key]:>8}"
                        f"{self.explained[key]:>10}{len(self.differ[key]):>8}")
        return "\n".join(rows)


_PREP_FIELDS = ("first kept", "split turn", "tokensBefore", "summarized msgs", "prefix msgs")


def compare_prep(t: Tally, what: str, expected: Any, mine: dict[str, Any], where: str,
                 who: str = "agent") -> None:
    """Add one preparation's quantities: prepared or not, then each of ``_PREP_FIELDS``
    (``expected`` is the agent's, None when it prepares nothing; ``who`` names it in the
    differences). When the agent prepares a compaction SessionLens refuses as empty, that is
    the explained difference, and the fields still compare."""
    got = mine["prep"]
    if expected is not None and got is None and "empty" in mine:
        t.add(what, "prepared", False, where, explained=True)
        got = mine["empty"]
    else:
        t.add(what, "prepared", (expected is None) == (got is None),
              f"{where}: {who} {'prepares' if expected else 'does not'}; "
              f"SessionLens {mine.get('error') or 'plans'}")
    if expected is None or got is None:
        return
    for n, name in enumerate(_PREP_FIELDS):
        t.add(what, name, expected[n] == got[n], f"{where}: {who} {expected[n]!r}, "
              f"SessionLens {got[n]!r}")


def _compare_prep(t: Tally, what: str, theirs: Any, mine: dict[str, Any], where: str) -> None:
    compare_prep(t, what, None if isinstance(theirs, str) else theirs,  # "error:<code>"
                 mine, where)


def tally(t: Tally, label: str, theirs: dict[str, Any], mine: dict[str, Any]) -> None:
    """Add one file's comparison (``theirs`` from harness.mjs, ``mine`` from ``ours``)."""
    assert theirs["n"] == mine["n"], f"{label}: Node read {theirs['n']} rows, we {mine['n']}"
    t.files += 1
    for est in ("pi", "openclaw"):
        for i, (a, b) in enumerate(zip(theirs["estimates"][est], mine["estimates"][est],
                                       strict=True)):
            if a is not None:
                t.add("estimate", est, a == b, f"{label} entry {i}: agent {a}, SessionLens {b}")
    for run, prefixes in zip(theirs["runs"], mine["runs"], strict=True):
        keep = run["settings"]["keepRecentTokens"]
        for p, q in zip(run["prefixes"], prefixes, strict=True):
            t.prefixes += 1
            where = f"{label} keep={keep} k={p['k']}"
            for n, name in enumerate(("first kept", "turn start", "split turn")):
                t.add("pi-0.58 findCutPoint", name, p["pi"]["cut"][n] == q["cut"][n],
                      f"{where}: agent {p['pi']['cut']}, SessionLens {q['cut']}")
            _compare_prep(t, "pi-0.58 prepareCompaction", p["pi"]["prep"], q["pi"], where)
            _compare_prep(t, "openclaw-2026.9 prepareCompaction", p["openclaw"]["prep"],
                          q["openclaw"], where)
            _compare_prep(t, "openclaw-2026.9 manual /compact", p["openclaw"]["manual"],
                          q["openclaw-manual"], where)
            for key, what in (("pi", "pi-0.58 threshold check"),
                              ("openclaw", "openclaw-2026.9 threshold check")):
                a, b = p[key]["check"], q[key]["check"]
                t.add(what, "context tokens", a[0] == b[0], f"{where}: agent {a}, SessionLens {b}")
                t.add(what, "shouldCompact", a[1] == b[1], f"{where}: agent {a}, SessionLens {b}")
