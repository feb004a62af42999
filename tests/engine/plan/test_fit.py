"""A plan that saves nothing is flagged, and a session that cannot fit its window is said
so, even when there is nothing to compact (issue 39 item 10)."""

from __future__ import annotations

from pathlib import Path

from fixtures.factories import TranscriptBuilder
from fixtures.sample_writes import run_cli_json
from sessionlens.engine.plan.fit import cannot_fit, not_smaller_note


def test_plan_json_flags_an_after_not_smaller_than_before(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    b.user("hi")
    b.assistant("ok")
    b.user("bye")
    b.assistant("bye")
    code, out = run_cli_json("plan", str(b.write(tmp_path / "tiny.jsonl")), "--keep-recent", "0")
    assert code == 0
    assert out["predicted_tokens_after"] >= out["tokens_before"]
    assert out["not_smaller"] is True
    assert "saves nothing" in out["not_smaller_reason"]
    assert not_smaller_note(100, 50, 3) is None


def test_a_session_that_cannot_fit_says_so_with_nothing_to_compact(tmp_path: Path) -> None:
    """One message larger than the window: "Nothing to compact" used to be all it said."""
    b = TranscriptBuilder()
    b.user("load this: " + "word " * 12_000)  # ~15,000 tokens against an 8,000 window
    path = b.write(tmp_path / "huge.jsonl")
    code, out = run_cli_json("plan", str(path), "--context-window", "8000")
    assert code == 0 and out["nothing_to_compact"] is True
    [warning] = out["warnings"]
    assert "cannot fit" in warning and "window of 8,000" in warning
    assert "alone is ~" in warning
    small = TranscriptBuilder()
    small.user("hello")
    assert cannot_fit(small.build(), 8000) is None
