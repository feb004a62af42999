"""``plan`` says which trigger made the compaction due, and shows the guard, precheck, pruning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionlens.engine.cli import main

TRIGGER_KEYS = {"trigger", "trigger_reason", "triggers_holding", "size_guard",
                "mid_turn_precheck", "pruning"}


def _session(path: Path, usage: int, *, end_mid_turn: bool = False,
             last_call: int | None = None) -> Path:
    """Three turns with a read call each (8,000-char results); the last usage is ``usage``.

    ``end_mid_turn`` stops after the last tool result, whose call reported ``last_call``."""
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "sid-plan",
                                   "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}]

    def add(message: dict[str, Any]) -> None:
        rows.append({"type": "message", "id": f"{len(rows):08x}",
                     "parentId": f"{len(rows) - 1:08x}" if len(rows) > 1 else None,
                     "timestamp": "2026-01-01T00:00:01.000Z", "message": message})

    def asst(content: list[dict[str, Any]], total: int, stop: str) -> None:
        add({"role": "assistant", "content": content, "api": "a", "provider": "p",
             "model": "m", "stopReason": stop, "timestamp": 2,
             "usage": {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                       "totalTokens": total}})

    for k in range(3):
        add({"role": "user", "content": f"turn {k} " + "x" * 4000, "timestamp": 1})
        asst([{"type": "toolCall", "id": f"c{k}", "name": "read",
               "arguments": {"path": f"/f{k}"}}],
             last_call if last_call is not None and k == 2 else 1_000 * (k + 1), "toolUse")
        add({"role": "toolResult", "toolCallId": f"c{k}", "toolName": "read", "isError": False,
             "timestamp": 3, "content": [{"type": "text", "text": "y" * 8000}]})
        if not (end_mid_turn and k == 2):
            asst([{"type": "text", "text": "done"}], usage if k == 2 else 1_000 * (k + 1) + 500,
                 "stop")
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    # written for the rule that was the default then (tool-frames, the old "openclaw-2026")
    assert main(["plan", *argv, "--json", "--context-window", "50000", "--reserve", "10000",
                 "--reserve-floor", "0", "--keep-recent", "1000",
                 "--rule", "tool-frames"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_threshold_and_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    over = _plan(capsys, str(_session(tmp_path / "a.jsonl", 45_000)))
    assert TRIGGER_KEYS <= over.keys()
    assert over["trigger"] == "threshold" and over["should_compact"]
    assert "45,000" in over["trigger_reason"] and over["triggers_holding"] == ["threshold"]
    under = _plan(capsys, str(_session(tmp_path / "b.jsonl", 20_000)))
    assert under["trigger"] == "none" and not under["should_compact"]


def test_max_active_bytes_makes_a_size_compaction(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path / "s.jsonl", 20_000)
    body = sum(len(line) + 1 for line in path.read_bytes().split(b"\n")[1:] if line)
    out = _plan(capsys, str(path), "--max-active-bytes", str(body), "--truncate-after-compaction")
    assert out["trigger"] == "size" and out["size_guard"]["active_bytes"] == body
    assert out["size_guard"]["max_active_bytes"] == body
    assert _plan(capsys, str(path), "--max-active-bytes", "1mb")["trigger"] == "none"


def test_the_size_guard_without_truncation_is_said_not_to_fire(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path / "s.jsonl", 20_000)
    out = _plan(capsys, str(path), "--max-active-bytes", "10")
    assert out["trigger"] == "none" and not out["should_compact"]
    sizes = ["--context-window", "50000", "--reserve", "10000", "--reserve-floor", "0",
             "--keep-recent", "1000", "--rule", "tool-frames", "--max-active-bytes", "10"]
    assert main(["plan", str(path), *sizes]) == 0
    text = capsys.readouterr().out
    assert "compacted before the next turn" not in text and "no compaction due" in text
    assert "does not fire (it needs truncateAfterCompaction: true)" in text
    assert main(["plan", str(path), *sizes, "--truncate-after-compaction"]) == 0
    text = capsys.readouterr().out
    assert "under the threshold, but due by the size trigger" in text
    assert "no compaction due" not in text


def test_bad_sizes_are_refused_by_argparse(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path / "s.jsonl", 20_000)
    with pytest.raises(SystemExit):
        main(["plan", str(path), "--max-active-bytes", "20 parsecs"])
    assert "not a size" in capsys.readouterr().err


def test_mid_turn_precheck_and_where_it_would_fire(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    low = _plan(capsys, str(_session(tmp_path / "low.jsonl", 0, end_mid_turn=True)))
    assert low["mid_turn_precheck"]["ends_mid_turn"] and low["trigger"] == "none"
    assert low["mid_turn_precheck"]["fires_at"] is None  # 3,000 + one result: far below
    path = _session(tmp_path / "s.jsonl", 0, end_mid_turn=True, last_call=39_000)
    last_result = json.loads(path.read_text().splitlines()[-1])["id"]
    plain = _plan(capsys, str(path))
    checked = _plan(capsys, str(path), "--mid-turn-precheck")
    # the agents check the threshold on the last assistant's reported usage (39,000 < 40,000,
    # pi/OpenClaw's own check, reproduced in plan/): mid-turn only the precheck sees the
    # result pushing the next call over, which is what the precheck is for
    assert plain["trigger"] == "none" and not plain["mid_turn_precheck"]["enabled"]
    assert checked["trigger"] == "mid-turn-precheck" and checked["mid_turn_precheck"]["enabled"]
    assert checked["triggers_holding"] == ["mid-turn-precheck"]
    # the plan shows where it fires even when it is off
    for out in (plain, checked):
        fires = out["mid_turn_precheck"]["fires_at"]
        assert fires["entry_id"] == last_result and fires["next_entry_id"] is None
        assert fires["estimated_tokens"] == 39_000 + 2_000 and fires["pressure"] > 1


def test_pruning_lists_each_result_and_the_delay(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path / "s.jsonl", 41_000)
    out = _plan(capsys, str(path), "--prune-keep-turns", "1")
    pr = out["pruning"]
    assert [r["tool_name"] for r in pr["results"]] == ["read", "read"]  # turns 0 and 1
    assert pr["tokens_saved"] == sum(r["trimmed_tokens"] for r in pr["results"]) > 0
    assert pr["trigger_delay_tokens"] == pr["tokens_saved"]
    assert pr["context_tokens"] == out["context_tokens"] == 41_000
    assert pr["due_without_pruning"] and not pr["due_with_pruning"]


def test_the_text_output_names_the_trigger(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path / "s.jsonl", 45_000)
    assert main(["plan", str(path), "--context-window", "50000", "--reserve", "10000",
                 "--reserve-floor", "0", "--keep-recent", "1000",
                 "--max-active-bytes", "1kb"]) == 0
    text = capsys.readouterr().out
    assert "  trigger       threshold: context 45,000 tokens" in text
    assert "  size guard    active transcript" in text and "of 1.0 KiB" in text
    assert "  pruning       clears 2 old tool result(s)" not in text  # keep 3 turns: none
