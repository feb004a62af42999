"""OpenCode 1.18.33 as it writes today: the compaction's trigger is the part's own, and the
window is ``limit.context`` of the model in ``opencode.json`` (runs the binary: slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.drivers import opencode
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.opened import resolve_settings

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not opencode.available(), reason="opencode not installed")]


def test_trigger_and_window_are_opencode_own(tmp_path: Path) -> None:
    session, requests = opencode.run_scenario(tmp_path)
    assert sum(opencode.is_summary_request(r) for r in requests) == 1
    t = load_transcript(session.db)
    (comp,) = t.compactions
    assert comp.extra["trigger"] == "auto" and comp.summary == opencode.SUMMARY
    resolved = resolve_settings(t)
    assert resolved.window == opencode.WINDOW
    assert "limit.context" in resolved.context_window.source
    (f,) = analyze_compactions(t, resolved.settings)
    assert f.trigger == "threshold" and f.context_window == opencode.WINDOW
