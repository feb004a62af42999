"""The flush and size-guard lines of a session of OpenClaw 2026.9.6's SQLite store (the
committed store): the flush applies (an OpenClaw session), its record is the session row's
``memoryFlush {kind, compactionCount}`` with no time, and the size guard is measured on the
active SQLite history; a JSONL file keeps its own wording."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.openclaw_store import unpack_store
from sessionlens.engine.cli import main
from sessionlens.engine.lineage.memory_flush import analyze_memory_flush
from sessionlens.engine.lineage.store_facts import flush_record_text, size_guard_text
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.settings import DEFAULT_SETTINGS


def _alpha(tmp_path: Path, compaction: dict[str, Any] | None = None) -> Path:
    home = tmp_path / "home"
    store = unpack_store(home)
    (home / ".openclaw" / "openclaw.json").write_text(
        json.dumps({"agents": {"defaults": {"compaction": compaction or {}}}}))
    return store / "alpha"


def test_inspect_reports_the_flush_of_a_store_session(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alpha = _alpha(tmp_path)
    assert main(["inspect", "--json", str(alpha)]) == 0
    flush = json.loads(capsys.readouterr().out)["memory_flush"]
    assert flush["applies"] is True
    assert flush["headline"].startswith("on; runs at ~20,000 tokens (4,000 below the "
                                        "threshold 24,000")
    assert main(["inspect", str(alpha)]) == 0
    text = capsys.readouterr().out
    assert "not an OpenClaw session" not in text and "memoryFlushAt never" not in text
    assert "memoryFlush succeeded (no time recorded); memoryFlushCompactionCount 1 of " \
           "compactionCount 3" in text


def test_audit_json_says_where_the_flush_is_and_what_the_guard_measures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alpha = _alpha(tmp_path, {"maxActiveTranscriptBytes": "8kb"})
    assert main(["audit", "--json", str(alpha)]) == 0
    health = json.loads(capsys.readouterr().out)["memory_health"]
    assert health["flush_record"].startswith("the session row records the last flush: "
                                             "memoryFlush succeeded at compaction 1 of "
                                             "compactionCount 3")
    assert health["size_guard"] == "size guard: active SQLite history 4.9 KiB of 8.0 KiB"


def test_a_jsonl_file_keeps_its_own_wording(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    b.user("hello")
    b.assistant("hi")
    t = load_transcript(b.write(tmp_path / "s.jsonl"))
    assert t.format == "openclaw-v3"
    assert flush_record_text(t, analyze_memory_flush(t, DEFAULT_SETTINGS)) is None
    guard = size_guard_text(t, replace(DEFAULT_SETTINGS, max_active_transcript_bytes=10))
    assert guard is not None and guard.startswith("size guard: active transcript ")
    assert guard.endswith("does not fire (it needs truncateAfterCompaction: true)")
