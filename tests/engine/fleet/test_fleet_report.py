"""The HTML report: self-contained, plots inline, each row opening its compaction."""

from __future__ import annotations

import re
from pathlib import Path

from sessionlens.engine.fleet.aggregate import aggregate_fleet
from sessionlens.engine.fleet.fleet_run import FleetRun
from sessionlens.engine.fleet.report_html import open_command, write_fleet_html
from sessionlens.engine.fleet.rows import CompactionRow, SessionFailure, SessionRow


def _run(tmp_path: Path) -> FleetRun:
    session = tmp_path / "a <b> & c.jsonl"
    session.write_text("{}\n")
    c = CompactionRow("cmp-1", 2, "2026-03-01T10:00:00Z", "threshold", "critical",
                      ("total-loss",), 9000, 10, 42, 0, 42, (("path", 0, 42),), False, "missed",
                      "no-flush-turn", True)
    row = SessionRow("host1", str(session), "s1", "openclaw", "main", "openclaw-v3", "p",
                     "model-x", (("window", "200000"),), "2026-03-01T11:00:00Z", 3, (c,))
    return FleetRun((row,), (SessionFailure("host1", "/gone.jsonl", "no such file <x>",
                                            "LoadError"),), 0, 2, 0.5, "serial")


def test_the_report_is_one_file_with_inline_svg_and_no_remote_resource(tmp_path: Path) -> None:
    out = write_fleet_html(aggregate_fleet(_run(tmp_path), generated="now"),
                           tmp_path / "r" / "report.html")
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") >= 3  # trend, histogram, per agent, per model
    assert not re.search(r"""(src|href)=["']https?://""", html)
    assert "<link" not in html


def test_each_row_links_its_session_and_opens_its_compaction(tmp_path: Path) -> None:
    run = _run(tmp_path)
    html = write_fleet_html(aggregate_fleet(run, generated="now"),
                            tmp_path / "report.html").read_text(encoding="utf-8")
    path = run.rows[0].path
    assert open_command(path, "cmp-1") == f"sessionlens '{path}' --compaction cmp-1"
    assert "sessionlens &#x27;" in html and "--compaction cmp-1" in html
    assert 'href="file://' in html and "a%20%3Cb%3E%20%26%20c.jsonl" in html
    # text from files is escaped, never markup
    assert "a <b> & c.jsonl" not in html and "a &lt;b&gt; &amp; c.jsonl" in html
    assert "no such file &lt;x&gt;" in html
    assert "Memory-flush misses (1)" in html
