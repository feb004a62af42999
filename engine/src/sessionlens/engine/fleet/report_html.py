"""The fleet report as one self-contained HTML file (inline CSS, inline SVG, a few lines of
script only to copy a command; it reads the same with scripts off).

Each compaction row links to its session file and gives the command that opens it in the
app on that compaction (``sessionlens FILE --compaction ID``), so a reader goes from "which
compaction lost the most" to the Memory tab of that very compaction.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from html import escape
from pathlib import Path

from sessionlens.engine._io.atomic import atomic_write_text

from .aggregate import FleetReport, GroupStats, RankedCompaction
from .rows import CompactionRow
from .svg_charts import SEVERITY_COLORS, hbar_chart, histogram, stacked_trend

__all__ = ["MAX_RANKED_ROWS", "open_command", "render_fleet_html", "write_fleet_html"]

#: Ranked compactions listed in the report (the JSON has them all).
MAX_RANKED_ROWS = 300

_CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1340px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.meta{color:#666;font-size:13px} .cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:6px 10px;flex:1 1 0;min-width:90px}
.card b{display:block;font-size:20px} .card span{color:#666;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
table{border-collapse:collapse;font-size:12.5px;width:100%}
th,td{border-bottom:1px solid #eee;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f6f6;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap} td.w{white-space:nowrap}
.sev{color:#fff;border-radius:3px;padding:1px 5px;font-size:11px}
code.cmd{font-size:11px;background:#f3f3f3;padding:1px 4px;cursor:copy;word-break:break-all}
.path{color:#666;font-size:11px;word-break:break-all} .flags{color:#555;font-size:11px}
.fail td{color:#b00020} .note{color:#666;font-size:12px}
"""
_SCRIPT = """
document.addEventListener('click',function(e){var c=e.target.closest('code.cmd');
if(c&&navigator.clipboard){navigator.clipboard.writeText(c.textContent);c.title='copied';}});
"""


def open_command(path: str, compaction_id: str | None = None) -> str:
    """The command that opens the session in the app (on the compaction, when given)."""
    words = ["sessionlens", path] + (["--compaction", compaction_id] if compaction_id else [])
    return " ".join(shlex.quote(w) for w in words)


def _file_url(path: str) -> str:
    """A ``file://`` link to the session's file (the database, for a session inside one)."""
    p = Path(path)
    target = p if p.exists() or not p.parent.is_file() else p.parent
    try:
        return target.absolute().as_uri()
    except ValueError:
        return ""


def _pct(x: float) -> str:
    """A share: one decimal below 10 % (0.4 % is not 0 %), none above."""
    if 0 < x < 0.001:
        return "<0.1%"
    return f"{x:.1%}" if 0 < x < 0.1 else f"{x:.0%}"


def _kept(c: CompactionRow) -> str:
    """The share kept with its counts; a span with no specifics has nothing to keep."""
    if c.total == 0:
        return '—<div class=path title="the summarized span named no specifics">nothing to ' \
               'cover</div>'
    return f"{_pct(c.kept_share)}<div class=path>{c.found:,}/{c.total:,}</div>"


def _flush_why(r: RankedCompaction) -> str:
    from sessionlens.engine.lineage.memory_flush import FLUSH_REASON_TEXT

    reason = r.compaction.flush_reason
    return FLUSH_REASON_TEXT.get(reason, reason) if reason else "flush due, not run"


def _flags_why(r: RankedCompaction) -> str:
    return ", ".join(r.compaction.flags)


def _sev(severity: str) -> str:
    color = SEVERITY_COLORS.get(severity, "#777")
    return f'<span class="sev" style="background:{color}">{escape(severity)}</span>'


def _session_cell(r: RankedCompaction) -> str:
    s = r.session
    name = Path(s.path).name
    url = _file_url(s.path)
    link = f'<a href="{escape(url)}">{escape(name)}</a>' if url else escape(name)
    host = f" on {escape(s.host)}" if s.host else ""
    return f'{link}<div class="path">{escape(str(Path(s.path).parent))}{host}</div>'


def _ranked_rows(ranked: tuple[RankedCompaction, ...]) -> str:
    out = []
    for i, r in enumerate(ranked[:MAX_RANKED_ROWS], 1):
        c, s = r.compaction, r.session
        agent = s.agent + (f" ({s.agent_id})" if s.agent_id else "")
        cmd = open_command(s.path, c.compaction_id)
        out.append(
            f"<tr><td class=n>{i}</td><td>{_sev(c.severity)}</td><td class=n>{c.dropped:,}</td>"
            f"<td class=n>{_kept(c)}</td>"
            f"<td class=n>{c.tokens_replaced:,}</td><td>{escape(c.trigger)}</td>"
            f"<td>{escape(agent)}</td><td>{escape(s.model or '?')}</td>"
            f"<td class=w>{escape((c.timestamp or s.modified)[:10])}"
            f"<div class=path>{escape((c.timestamp or s.modified)[11:16])}</div></td>"
            f"<td>{_session_cell(r)}</td>"
            f'<td>#{c.number} <code class="cmd" title="click to copy: opens the app on this '
            f'compaction">{escape(cmd)}</code>'
            f'<div class=flags>{escape(", ".join(c.flags))}</div></td></tr>')
    return "".join(out)


def _group_table(title: str, groups: tuple[GroupStats, ...], what: str) -> str:
    if not groups:
        return ""
    rows = "".join(
        f"<tr><td>{escape(g.key)}</td><td class=n>{g.sessions:,}</td>"
        f"<td class=n>{g.compactions:,}</td><td class=n>{g.dropped:,}</td>"
        f"<td class=n>{_pct(g.kept_share) if g.total else '—'}</td>"
        f"<td class=n>{g.critical:,}</td>"
        f"<td class=n>{g.flush_missed:,}</td><td class=n>{g.pointless:,}</td></tr>"
        for g in groups)
    return (f"<h2>{escape(title)}</h2><table><tr><th>{escape(what)}</th><th>sessions</th>"
            "<th>compactions</th><th>specifics dropped</th><th>kept</th><th>critical</th>"
            f"<th>flush missed</th><th>pointless</th></tr>{rows}</table>")


def _short_list(title: str, items: tuple[RankedCompaction, ...], why: str,
                reason: Callable[[RankedCompaction], str]) -> str:
    if not items:
        return f"<h2>{escape(title)}</h2><p class=note>None. {escape(why)}</p>"
    rows = "".join(
        f"<tr><td>{_sev(r.compaction.severity)}</td><td>{_session_cell(r)}</td>"
        f'<td>#{r.compaction.number} <code class="cmd">'
        f"{escape(open_command(r.session.path, r.compaction.compaction_id))}</code></td>"
        f"<td>{escape(r.compaction.trigger)}</td>"
        f"<td class=flags>{escape(reason(r))}</td></tr>" for r in items[:MAX_RANKED_ROWS])
    return (f"<h2>{escape(title)} ({len(items):,})</h2><p class=note>{escape(why)}</p>"
            "<table><tr><th>severity</th><th>session</th><th>open in the app</th>"
            f"<th>trigger</th><th>why</th></tr>{rows}</table>")


def _charts(report: FleetReport) -> str:
    points = [(p.period, _severity_counts(report, p.period), p.stats.kept_share)
              for p in report.trend]
    charts = []
    if points:
        charts.append(stacked_trend(points, f"Compactions per {report.trend_unit}, by "
                                            "severity, and the share of specifics kept"))
    shares = [r.compaction.kept_share for r in report.ranked if r.compaction.total]
    if shares:
        empty = len(report.ranked) - len(shares)
        note = (f'<div class=note>{empty} compaction(s) whose span named no specifics are '
                'left out.</div>' if empty else "")
        charts.append(f"<div>{histogram(shares, 'How much each compaction kept')}{note}</div>")
    if report.by_agent:
        charts.append(hbar_chart([(g.key, g.kept_share, f"{g.kept_share:.0%} of {g.total:,}")
                                  for g in report.by_agent], "Specifics kept, per agent",
                                 maximum=1.0, color="#4caf50"))
    if report.by_model:
        charts.append(hbar_chart([(g.key, float(g.dropped), f"{g.dropped:,}")
                                  for g in report.by_model[:12]],
                                 "Specifics dropped, per model (top 12)", color="#c62828"))
    return f'<div class="charts">{"".join(charts)}</div>'


def _severity_counts(report: FleetReport, period: str) -> dict[str, int]:
    from .aggregate import period_of

    counts: dict[str, int] = {}
    for r in report.ranked:
        if period_of(r, report.trend_unit) == period:
            counts[r.compaction.severity] = counts.get(r.compaction.severity, 0) + 1
    return counts


def _median(values: list[float]) -> float:
    if not values:
        return 1.0
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def render_fleet_html(report: FleetReport) -> str:
    """The whole report page."""
    t = report.total
    cards = [(f"{report.sessions:,}", "sessions"),
             (f"{report.sessions_with_compactions:,}", "with compactions"),
             (f"{t.compactions:,}", "compactions"), (f"{t.dropped:,}", "specifics dropped"),
             (_pct(t.kept_share), "of specifics kept"),
             (_pct(_median([r.compaction.kept_share for r in report.ranked])),
              "kept, median compaction"), (f"{t.critical:,}", "critical"),
             (f"{t.flush_missed:,}", "memory-flush misses"), (f"{t.pointless:,}", "pointless"),
             (f"{len(report.failures):,}", "sessions failed")]
    more = (f"<p class=note>The {MAX_RANKED_ROWS} worst of {len(report.ranked):,} are listed; "
            "the JSON holds them all.</p>" if len(report.ranked) > MAX_RANKED_ROWS else "")
    failures = "".join(f"<tr class=fail><td>{escape(f.path)}</td><td>{escape(f.host)}</td>"
                       f"<td>{escape(f.kind)}</td><td>{escape(f.error)}</td></tr>"
                       for f in report.failures)
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        "<title>SessionLens fleet memory health</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Fleet memory health</h1>",
        f"<div class=meta>Generated {escape(report.generated)} by SessionLens; "
        f"{report.audited:,} sessions audited and {report.reused:,} unchanged ones reused "
        f"in {report.seconds:.1f} s ({escape(report.mode)})"
        + ("; <b>cancelled before the end</b>" if report.cancelled else "") + ".</div>",
        '<div class="cards">' + "".join(f"<div class=card><b>{v}</b><span>{escape(k)}</span>"
                                         "</div>" for v, k in cards) + "</div>",
        _charts(report),
        "<h2>Compactions ranked by loss</h2><p class=note>Loss is what the audit found missing: "
        "the specifics (paths, commands, errors, URLs, ids, numbers) of the summarized span "
        "the summary does not carry. Click a command to copy it; it opens the session in "
        "SessionLens on that compaction.</p>" + more,
        "<table><tr><th>#</th><th>severity</th><th>dropped</th><th>kept</th>"
        "<th>tokens replaced</th><th>trigger</th><th>agent</th><th>model</th><th>when</th>"
        f"<th>session</th><th>compaction (open in the app)</th></tr>"
        f"{_ranked_rows(report.ranked)}</table>",
        _group_table("Per agent", report.by_agent, "agent"),
        _group_table("Per model", report.by_model, "model"),
        _group_table("Per trigger", report.by_trigger, "trigger"),
        _group_table("Per setting", report.by_setting, "setting"),
        _group_table(f"Trend per {report.trend_unit}", tuple(p.stats for p in report.trend),
                     report.trend_unit),
        _short_list("Memory-flush misses", report.flush_misses,
                    "Compactions that closed a cycle in which OpenClaw's memory flush was due "
                    "and did not run: what it would have saved to memory files is gone.",
                    _flush_why),
        _short_list("Pointless compactions", report.pointless,
                    "Compactions whose summary is no smaller than what it replaced: the context "
                    "did not shrink, only detail was lost.", _flags_why),
    ]
    if failures:
        parts.append(f"<h2>Sessions that could not be audited ({len(report.failures):,})</h2>"
                     "<table><tr><th>session</th><th>host</th><th>error</th><th>detail</th>"
                     f"</tr>{failures}</table>")
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts)


def write_fleet_html(report: FleetReport, out: Path) -> Path:
    """Write the page atomically; returns the path written."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, render_fleet_html(report))
    return out
