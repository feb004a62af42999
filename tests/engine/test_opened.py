"""One opened transcript: settings resolved once with their sources, figures named once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder, text_of
from fixtures.openclaw_store import unpack_store
from fixtures.samples import sample_path
from sessionlens.engine.opened import (
    FIGURE_LABELS,
    Figures,
    Overrides,
    config_for,
    open_transcript,
    resolve_settings,
)
from sessionlens.engine.persist.successor import successor_kept_back
from sessionlens.engine.settings import DEFAULT_SETTINGS, CompactionSettings
from sessionlens.engine.tokens.estimate import estimate_entry_tokens


def _with_model(model: str, *, error: str | None = None, usage: int | None = None) -> TranscriptBuilder:
    b = TranscriptBuilder()
    b.user("hello")
    b.assistant("hi", usage=usage, model=model)
    if error is not None:
        b.user("again")
        b.assistant("", stop_reason="error", error_message=error, model=model)
    return b


def test_window_sources_in_their_documented_order() -> None:
    t = _with_model("claude-sonnet-4-5").build()
    r = resolve_settings(t)
    assert r.window == 200_000 and "known window of claude-sonnet-4-5" in r.context_window.source
    assert r.threshold == 200_000 - 20_000  # reserve 16,384 raised to the 20,000 floor
    cfg = CompactionSettings(context_window=150_000, source="/x/openclaw.json")
    r = resolve_settings(t, config=cfg)
    assert r.window == 150_000 and "/x/openclaw.json" in r.context_window.source
    r = resolve_settings(t, Overrides(context_window=99_000, origin="app settings"), config=cfg)
    assert (r.window, r.context_window.source) == (99_000, "app settings")
    unknown = _with_model("mystery-7b").build()
    r = resolve_settings(unknown)
    assert r.window == 128_000 and "not a model SessionLens knows" in r.context_window.source


def test_a_window_stated_by_the_providers_error_beats_the_model_table() -> None:
    b = _with_model("qwen3-max", error="<400> InternalError.Algo.InvalidParameter: Range of "
                    "input length should be [1, 258048]")
    r = resolve_settings(b.build())
    assert r.window == 258_048 and "stated by the provider's error" in r.context_window.source


def test_reported_usage_above_the_window_is_a_warning() -> None:
    r = resolve_settings(_with_model("mystery-7b", usage=300_000).build())
    assert r.warnings and "300,000" in r.warnings[0] and "128,000" in r.warnings[0]
    assert resolve_settings(_with_model("mystery-7b", usage=30_000).build()).warnings == ()


def test_sources_name_the_user_the_config_or_the_default() -> None:
    t = _with_model("claude-sonnet-4-5").build()
    r = resolve_settings(t)
    assert "default keepRecentTokens" in r.keep_recent_tokens.source
    assert "raised to the floor 20,000" in r.reserve_tokens.source
    r = resolve_settings(t, config=CompactionSettings(keep_recent_tokens=5_000,
                                                      source="/cfg/openclaw.json"))
    assert r.keep_recent_tokens.value == 5_000 and r.keep_recent_tokens.source == "/cfg/openclaw.json"
    r = resolve_settings(t, Overrides(keep_recent_tokens=0))
    assert r.hard_boundary and "hard boundary" in r.keep_recent_tokens.source


def _session(tmp: Path, turns: int = 30) -> Path:
    b = TranscriptBuilder(plain_users=True)
    for k in range(turns):
        b.user(f"turn {k}: " + text_of(2_000))
        call = b.call("read", call_id=f"c{k}", path=f"/src/f{k}.py")
        assert b.assistant("reading", call, usage=15).id
        b.result(call, text_of(6_000))
        b.assistant("done " + text_of(1_000), usage=15)
    return b.write(tmp / "session.jsonl")


def test_figures_count_the_turn_a_successor_keeps_back(tmp_path: Path) -> None:
    opened = open_transcript(_session(tmp_path), config=DEFAULT_SETTINGS)
    plan = opened.plan()
    fig = opened.figures(plan)
    assert isinstance(fig, Figures) and set(FIGURE_LABELS) >= {
        "context_window", "threshold", "tokens_before", "predicted_tokens_after"}
    back = successor_kept_back(opened.transcript, plan.first_kept_entry_id)
    assert back, "the cut is at a user turn after an assistant reply: one is kept back"
    extra = sum(estimate_entry_tokens(opened.transcript.entry(i)) for i in back)
    assert fig.kept_tokens == plan.kept_tokens + extra
    budget = plan.summary_budget_tokens + plan.turn_prefix_budget_tokens
    assert fig.summary_budget_tokens == budget
    assert fig.predicted_tokens_after == fig.kept_tokens + budget
    assert fig.entries_summarized == len(plan.summarized_entry_ids)
    assert fig.context_window == opened.resolved.window and fig.threshold == opened.resolved.threshold


def test_keep_recent_zero_is_the_hard_boundary(tmp_path: Path) -> None:
    opened = open_transcript(_session(tmp_path), Overrides(keep_recent_tokens=0),
                             config=DEFAULT_SETTINGS)
    plan = opened.plan()
    assert plan.hard_boundary and plan.kept_entry_ids == () and plan.first_kept_entry_id is None


def test_the_config_of_the_openclaw_state_folder_governs_its_transcripts(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (state / "openclaw.json").write_text(json.dumps(
        {"agents": {"defaults": {"compaction": {"keepRecentTokens": 7777}}}}), encoding="utf-8")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    inside = _session(sessions)
    assert config_for(inside).keep_recent_tokens == 7777
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert config_for(_session(outside)).keep_recent_tokens == DEFAULT_SETTINGS.keep_recent_tokens


@pytest.mark.samples
@pytest.mark.parametrize("prefix", ["01_", "03_", "04_", "07_", "09_"])
def test_every_sample_resolves_to_one_window(samples_dir: Path, prefix: str) -> None:
    opened = open_transcript(sample_path(samples_dir, prefix), config=DEFAULT_SETTINGS)
    r = opened.resolved
    assert r.window > 0 and r.context_window.source
    assert r.threshold == r.settings.threshold(r.window)
    assert opened.resolved.settings.context_window == r.window


def test_a_store_session_takes_window_and_reserve_as_openclaw_2026_9_did(tmp_path: Path) -> None:
    """32,000 from the session row's contextTokens; the reserve raised to the 20,000 floor
    and capped at a quarter of the window (8,000), as OpenClaw 2026.8+ does: threshold
    24,000, the contextBudgetStatus OpenClaw wrote (the older rule gave 12,000)."""
    store = unpack_store(tmp_path / "home")
    opened = open_transcript(store / "alpha")
    r = opened.resolved
    assert (r.window, int(r.reserve_tokens.value), r.threshold) == (32_000, 8_000, 24_000)
    assert "session store" in r.context_window.source
    assert "contextBudgetStatus says reserve 8,000" in r.reserve_tokens.source
    assert DEFAULT_SETTINGS.threshold(32_000) == 12_000  # the rule before the store
