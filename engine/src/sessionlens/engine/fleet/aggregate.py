"""The fleet's rows ranked and grouped: what the report and ``--json`` show (pure).

Loss is the audit's own measure: the specifics of a summarized span the summary does not
carry (``dropped``), beside the share it kept (``found / total`` over every class). The
ranking is by specifics dropped, then severity; groups add the same numbers per agent,
model, trigger and setting; the trend adds them per period of the compactions' own times.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .fleet_run import FleetRun
from .rows import CompactionRow, SessionFailure, SessionRow

__all__ = ["FleetReport", "GroupStats", "RankedCompaction", "TrendPoint", "aggregate_fleet",
           "fleet_json", "period_of"]

_SEVERITY_RANK = {"critical": 0, "warning": 1, "notice": 2, "ok": 3}


@dataclass(frozen=True, slots=True)
class RankedCompaction:
    """One compaction with the session it belongs to."""

    session: SessionRow
    compaction: CompactionRow


@dataclass(frozen=True, slots=True)
class GroupStats:
    """The compactions of one agent, model, trigger, setting or period, added up."""

    key: str
    sessions: int
    compactions: int
    dropped: int
    found: int
    total: int
    critical: int
    flush_missed: int
    pointless: int

    @property
    def kept_share(self) -> float:
        return 1.0 if self.total == 0 else self.found / self.total


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One period ("2026-03", "2026-W05" or "2026-03-14") of the trend."""

    period: str
    stats: GroupStats


@dataclass(frozen=True, slots=True)
class FleetReport:
    """Everything the report shows."""

    generated: str
    mode: str
    seconds: float
    sessions: int
    sessions_with_compactions: int
    #: Every compaction, most specifics dropped first.
    ranked: tuple[RankedCompaction, ...]
    by_agent: tuple[GroupStats, ...]
    by_model: tuple[GroupStats, ...]
    by_trigger: tuple[GroupStats, ...]
    by_setting: tuple[GroupStats, ...]
    #: "month", "week" or "day": the trend's period.
    trend_unit: str
    trend: tuple[TrendPoint, ...]
    failures: tuple[SessionFailure, ...]
    reused: int
    audited: int
    cancelled: bool

    @property
    def total(self) -> GroupStats:
        return _stats("all", self.ranked)

    @property
    def flush_misses(self) -> tuple[RankedCompaction, ...]:
        return tuple(r for r in self.ranked if r.compaction.flush_missed)

    @property
    def pointless(self) -> tuple[RankedCompaction, ...]:
        return tuple(r for r in self.ranked if r.compaction.pointless)


def _stats(key: str, items: Iterable[RankedCompaction]) -> GroupStats:
    items = list(items)
    cs = [r.compaction for r in items]
    return GroupStats(
        key=key, sessions=len({(r.session.host, r.session.path) for r in items}),
        compactions=len(cs), dropped=sum(c.dropped for c in cs), found=sum(c.found for c in cs),
        total=sum(c.total for c in cs), critical=sum(c.severity == "critical" for c in cs),
        flush_missed=sum(c.flush_missed for c in cs), pointless=sum(c.pointless for c in cs))


def _grouped(ranked: Iterable[RankedCompaction],
             keys: Callable[[RankedCompaction], Iterable[str]]) -> tuple[GroupStats, ...]:
    groups: dict[str, list[RankedCompaction]] = {}
    for r in ranked:
        for k in keys(r):
            groups.setdefault(k, []).append(r)
    out = [_stats(k, v) for k, v in groups.items()]
    out.sort(key=lambda g: (-g.dropped, g.key))
    return tuple(out)


def _when(r: RankedCompaction) -> datetime:
    """The compaction's own time, else the session file's modified time."""
    for text in (r.compaction.timestamp, r.session.modified):
        if text:
            try:
                when = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                continue
            return when if when.tzinfo else when.replace(tzinfo=UTC)
    return datetime.fromtimestamp(0, UTC)


def _period(when: datetime, unit: str) -> str:
    if unit == "month":
        return f"{when:%Y-%m}"
    if unit == "week":
        year, week, _ = when.isocalendar()
        return f"{year}-W{week:02d}"
    return f"{when:%Y-%m-%d}"


def period_of(r: RankedCompaction, unit: str) -> str:
    """The trend period ``r`` falls in."""
    return _period(_when(r), unit)


def _trend(ranked: tuple[RankedCompaction, ...]) -> tuple[str, tuple[TrendPoint, ...]]:
    if not ranked:
        return "month", ()
    times = [_when(r) for r in ranked]
    span = (max(times) - min(times)).days
    unit = "month" if span > 90 else "week" if span > 14 else "day"
    groups: dict[str, list[RankedCompaction]] = {}
    for r, when in zip(ranked, times, strict=True):
        groups.setdefault(_period(when, unit), []).append(r)
    return unit, tuple(TrendPoint(p, _stats(p, groups[p])) for p in sorted(groups))


def _model(r: RankedCompaction) -> list[str]:
    s = r.session
    return [f"{s.provider}/{s.model}" if s.provider and s.model else s.model or "unknown"]


def aggregate_fleet(run: FleetRun, *, generated: str | None = None) -> FleetReport:
    """Rank and group a run's rows (``generated``: the report's time, default now)."""
    ranked = [RankedCompaction(s, c) for s in run.rows for c in s.compactions]
    ranked.sort(key=lambda r: (-r.compaction.dropped, _SEVERITY_RANK.get(r.compaction.severity, 9),
                               -r.compaction.tokens_replaced, r.session.path,
                               r.compaction.number))
    ranked_t = tuple(ranked)
    unit, trend = _trend(ranked_t)
    return FleetReport(
        generated=generated or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        mode=run.mode, seconds=run.seconds, sessions=len(run.rows),
        sessions_with_compactions=sum(1 for s in run.rows if s.compactions),
        ranked=ranked_t,
        by_agent=_grouped(ranked_t, lambda r: [r.session.agent]),
        by_model=_grouped(ranked_t, _model),
        by_trigger=_grouped(ranked_t, lambda r: [r.compaction.trigger]),
        by_setting=tuple(sorted(_grouped(ranked_t, lambda r: [f"{k}={v}" for k, v in
                                                              r.session.settings]),
                                key=lambda g: (g.key.partition("=")[0], -g.dropped, g.key))),
        trend_unit=unit, trend=trend, failures=run.failures, reused=run.reused,
        audited=run.audited, cancelled=run.cancelled)


def _group_json(g: GroupStats) -> dict[str, Any]:
    return {"key": g.key, "sessions": g.sessions, "compactions": g.compactions,
            "dropped": g.dropped, "found": g.found, "total": g.total,
            "kept_share": round(g.kept_share, 4), "critical": g.critical,
            "flush_missed": g.flush_missed, "pointless": g.pointless}


def _ranked_json(r: RankedCompaction) -> dict[str, Any]:
    c = r.compaction
    return {"path": r.session.path, "host": r.session.host, "session_id": r.session.session_id,
            "agent": r.session.agent, "model": r.session.model, "compaction_id": c.compaction_id,
            "number": c.number, "timestamp": c.timestamp, "trigger": c.trigger,
            "severity": c.severity, "flags": list(c.flags), "dropped": c.dropped,
            "kept_share": round(c.kept_share, 4), "tokens_replaced": c.tokens_replaced,
            "flush_missed": c.flush_missed, "pointless": c.pointless}


def fleet_json(report: FleetReport, rows: Iterable[SessionRow] = ()) -> dict[str, Any]:
    """The ``audit --all --json`` object (``rows``: the sessions, whole, as ``sessions[]``)."""
    from .rows import row_to_dict

    return {
        "generated": report.generated, "mode": report.mode,
        "seconds": round(report.seconds, 3), "sessions": report.sessions,
        "sessions_with_compactions": report.sessions_with_compactions,
        "audited": report.audited, "reused": report.reused, "cancelled": report.cancelled,
        "totals": _group_json(report.total),
        "compactions": [_ranked_json(r) for r in report.ranked],
        "by_agent": [_group_json(g) for g in report.by_agent],
        "by_model": [_group_json(g) for g in report.by_model],
        "by_trigger": [_group_json(g) for g in report.by_trigger],
        "by_setting": [_group_json(g) for g in report.by_setting],
        "trend": {"unit": report.trend_unit,
                  "points": [{"period": p.period, **_group_json(p.stats)} for p in report.trend]},
        "memory_flush_misses": [_ranked_json(r) for r in report.flush_misses],
        "pointless_compactions": [_ranked_json(r) for r in report.pointless],
        "failures": [{"path": f.path, "host": f.host, "error": f.error, "kind": f.kind}
                     for f in report.failures],
        "session_rows": [row_to_dict(r) for r in rows],
    }
