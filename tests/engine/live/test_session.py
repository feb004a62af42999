"""A live session follows appends by the plan's own rule, and audits a compaction at once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.samples import SAMPLES_DIR, sample_path
from sessionlens.engine.live.gauge import gauge_of
from sessionlens.engine.live.session import LiveSession
from sessionlens.engine.opened import open_transcript


def _copy(tmp_path: Path, prefix: str) -> Path:
    """A copy of the sample where OpenClaw keeps sessions (the rule follows the folder)."""
    src = sample_path(SAMPLES_DIR, prefix)
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    return Path(shutil.copy(src, folder / src.name))


def _turn(b: TranscriptBuilder, n: int, usage: int | None) -> None:
    b.user(f"step {n}: please check /srv/app/config_{n}.toml")
    b.assistant(f"checked config_{n}.toml: port {8000 + n}", usage=usage)


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["03_", "04_", "01_"])
def test_appends_move_the_gauge_as_a_reload_would(tmp_path: Path, prefix: str) -> None:
    path = _copy(tmp_path, prefix)
    live = LiveSession(path)
    first = live.gauge
    b = TranscriptBuilder.continuing(path)
    _turn(b, 1, None)
    b.append_to(path)
    events = live.poll()
    assert [e.kind for e in events][:1] == ["context"]
    # v3 lines are followed without a reload; pi v1 (ids from line numbers) is read again
    assert live.stale_entries == (0 if prefix == "01_" else 2)
    fresh = gauge_of(open_transcript(path))
    assert live.gauge.context_tokens == fresh.context_tokens > first.context_tokens
    assert live.gauge.entries == fresh.entries == first.entries + 2
    _turn(b, 2, first.context_tokens + 5_000)  # a reported usage replaces the estimate
    b.append_to(path)
    live.poll()
    assert live.stale_entries == (0 if prefix == "01_" else 4)  # still no reload
    again = gauge_of(open_transcript(path))
    assert live.gauge.context_tokens == again.context_tokens == first.context_tokens + 5_000
    assert live.gauge.turn_marks == again.turn_marks
    assert live.poll() == []  # nothing new: nothing said


@pytest.mark.samples
def test_an_appended_compaction_is_audited_with_its_verdict(tmp_path: Path) -> None:
    path = _copy(tmp_path, "04_")
    live = LiveSession(path)
    compactions = live.gauge.compactions
    b = TranscriptBuilder.continuing(path)
    _turn(b, 1, None)
    kept = b.user("keep going with the deploy")
    b.compaction("## Goal\n- deploy the app\n", first_kept=kept.id, tokens_before=50_000)
    b.append_to(path)
    events = live.poll()
    seen = [e for e in events if e.kind == "compaction"]
    assert len(seen) == 1 and seen[0].verdict is not None
    assert seen[0].verdict.startswith("lost ") and seen[0].passed is False
    assert "8001" in seen[0].dropped or any("config_1" in d for d in seen[0].dropped)
    assert live.gauge.compactions == compactions + 1 and live.stale_entries == 0


def test_threshold_near_is_said_once_per_cycle(tmp_path: Path) -> None:
    b = TranscriptBuilder(tmp_path / "s.jsonl")
    b.user("hello")
    b.assistant("hi", usage=1_000)
    path = b.write(tmp_path / "s.jsonl")
    live = LiveSession(path)
    threshold = live.gauge.threshold
    kinds: list[str] = []
    for n, used in enumerate((int(threshold * 0.9), int(threshold * 0.92), threshold + 10)):
        more = TranscriptBuilder.continuing(path, first_id=100 * (n + 1))
        _turn(more, n, used)
        more.append_to(path)
        kinds += [e.kind for e in live.poll()]
    assert kinds.count("threshold-near") == 1 and kinds.count("over-threshold") == 1
    assert live.gauge.turns_left == 0


def test_a_rewritten_file_is_read_again(tmp_path: Path) -> None:
    b = TranscriptBuilder(tmp_path / "s.jsonl")
    for n in range(4):
        _turn(b, n, None)
    path = b.write(tmp_path / "s.jsonl")
    live = LiveSession(path)
    short = TranscriptBuilder(tmp_path / "s.jsonl")
    _turn(short, 9, None)
    short.write(path)
    events = live.poll()
    assert events[0].kind == "reloaded" and live.gauge.entries == 2


def test_after_a_compaction_the_gauge_counts_what_the_model_sees(tmp_path: Path) -> None:
    """Usage reported before a compaction measured a context the compaction replaced: once it
    is in the file, the gauge is the summary and what was kept (the 21,004 seen on a store)."""
    b = TranscriptBuilder(tmp_path / "s.jsonl")
    for n in range(3):
        b.user(f"turn {n}")
        b.assistant(f"answer {n}", usage=60_000 + n)
    kept = b.user("keep this turn")
    b.compaction("## Goal\n- short summary\n", first_kept=kept.id, tokens_before=60_002)
    path = b.write(tmp_path / "s.jsonl")
    gauge = LiveSession(path).gauge
    assert gauge.usage_tokens is None
    assert 0 < gauge.context_tokens < 1_000
