"""Ranking, groups, trend, flush misses and pointless compactions, on hand-made rows."""

from __future__ import annotations

from sessionlens.engine.fleet.aggregate import aggregate_fleet, fleet_json
from sessionlens.engine.fleet.fleet_run import FleetRun
from sessionlens.engine.fleet.rows import CompactionRow, SessionFailure, SessionRow


def _c(cid: str, dropped: int, found: int, total: int, *, when: str, severity: str = "warning",
       trigger: str = "threshold", flags: tuple[str, ...] = (),
       flush: str | None = None) -> CompactionRow:
    return CompactionRow(cid, 1, when, trigger, severity, flags, 1000, 100, dropped, found,
                         total, (("path", found, total),), severity == "ok", flush, None, True)


def _s(path: str, agent: str, model: str, *cs: CompactionRow,
       reserve: str = "20000") -> SessionRow:
    return SessionRow("h", path, path, agent, None, "openclaw-v3", "p", model,
                      (("reserve", reserve), ("mode", "default")), "2026-03-01T00:00:00Z", 10,
                      tuple(cs))


RUN = FleetRun(
    rows=(
        _s("/a", "openclaw", "m1",
           _c("a1", 50, 10, 60, when="2026-01-10T00:00:00Z", severity="critical",
              flags=("total-loss",), flush="missed"),
           _c("a2", 5, 5, 10, when="2026-02-10T00:00:00Z")),
        _s("/b", "claude-code", "m2",
           _c("b1", 50, 0, 50, when="2026-05-10T00:00:00Z"),
           _c("b2", 0, 0, 0, when="2026-05-11T00:00:00Z", severity="warning",
              flags=("summary-not-smaller",)), reserve="16384"),
        _s("/c", "pi", "m1"),
    ),
    failures=(SessionFailure("h", "/d", "boom", "LoadError"),),
    reused=1, audited=3, seconds=1.5, mode="serial")


def test_compactions_are_ranked_by_what_they_dropped_then_severity() -> None:
    report = aggregate_fleet(RUN, generated="now")
    assert [r.compaction.compaction_id for r in report.ranked] == ["a1", "b1", "a2", "b2"]
    assert report.sessions == 3 and report.sessions_with_compactions == 2


def test_groups_add_up_to_the_totals() -> None:
    report = aggregate_fleet(RUN, generated="now")
    total = report.total
    assert (total.compactions, total.dropped, total.found, total.total) == (4, 105, 15, 120)
    for groups in (report.by_agent, report.by_model, report.by_trigger):
        assert sum(g.compactions for g in groups) == total.compactions
        assert sum(g.dropped for g in groups) == total.dropped
    by_model = {g.key: g for g in report.by_model}
    assert by_model["p/m1"].dropped == 55 and by_model["p/m1"].sessions == 1
    # every setting of a session counts once per setting name
    by_setting = {g.key: g.compactions for g in report.by_setting}
    assert by_setting == {"reserve=20000": 2, "reserve=16384": 2, "mode=default": 4}


def test_flush_misses_pointless_and_trend() -> None:
    report = aggregate_fleet(RUN, generated="now")
    assert [r.compaction.compaction_id for r in report.flush_misses] == ["a1"]
    assert [r.compaction.compaction_id for r in report.pointless] == ["b2"]
    assert report.trend_unit == "month"
    assert [(p.period, p.stats.compactions) for p in report.trend] == [
        ("2026-01", 1), ("2026-02", 1), ("2026-05", 2)]
    assert report.trend[0].stats.kept_share == 10 / 60


def test_json_has_the_documented_keys() -> None:
    out = fleet_json(aggregate_fleet(RUN, generated="now"), RUN.rows)
    assert {"compactions", "by_agent", "by_model", "by_trigger", "by_setting", "trend",
            "memory_flush_misses", "pointless_compactions", "failures", "session_rows",
            "totals"} <= set(out)
    assert out["failures"] == [{"path": "/d", "host": "h", "error": "boom", "kind": "LoadError"}]
    assert out["compactions"][0]["compaction_id"] == "a1"
    assert len(out["session_rows"]) == 3
