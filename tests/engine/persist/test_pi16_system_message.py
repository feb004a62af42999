"""A compaction SessionLens writes into or beside a pi 1.6 file carries pi's current system
message (``systemMessage``), and a successor keeps the stored system rows, as pi 1.6's own
compaction does (pi resumes such a successor without writing its prompt again: checked
with the binary in tests/agents/test_pi_successor_resume.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import sessionlens.engine.persist.pi_system_message as psm
from sessionlens.engine.load.context_messages import context_messages
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Message, TextBlock
from sessionlens.engine.persist.pi_system_message import current_system_message
from sessionlens.engine.persist.successor import CompactionRecord
from sessionlens.engine.persist.writer import append_compaction, write_successor

PI16 = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "pi-1.6.0" / "scenario.jsonl"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _without_stamp(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != "timestamp"}


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copy(PI16, tmp_path / PI16.name))


def test_successor_carries_pis_system_message_and_keeps_the_system_rows(tmp_path: Path) -> None:
    original = _copy(tmp_path)
    t = load_transcript(original)
    last_user = [e.id for e in t.path_entries() if e.role == "user"][-1]
    res = write_successor(t, CompactionRecord("## Goal\nresume", last_user, 100))
    assert res.successor_path is not None
    rows = _rows(res.successor_path)
    comp = rows[-1]
    # pi's latest compaction snapshot is the current system message here (no later row)
    last_pi = [r for r in _rows(original) if r["type"] == "compaction"][-1]["systemMessage"]
    assert comp["type"] == "compaction" and "systemMessage" in comp
    assert _without_stamp(comp["systemMessage"]) == _without_stamp(last_pi)
    assert isinstance(comp["systemMessage"]["timestamp"], int)
    kept_system = [r["id"] for r in rows if r.get("message", {}).get("role") == "system"]
    stored = [e.id for e in t.entries if e.role == "system"]
    assert kept_system == stored and stored
    back = load_transcript(res.successor_path)
    assert not back.diagnostics
    first = context_messages(back)[0]
    assert first.role == "system" and first.entry_id == comp["id"] and len(first.text) > 500


def test_append_carries_it_too(tmp_path: Path) -> None:
    original = _copy(tmp_path)
    t = load_transcript(original)
    append_compaction(t, CompactionRecord("## Goal\nin place", None, 10))
    comp = _rows(original)[-1]
    assert comp["type"] == "compaction" and comp["systemMessage"]["role"] == "system"


def test_current_system_message_merges_like_pi(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """pi-ai ``getCurrentSystemMessage``: texts joined by a blank line, sections patched in
    order (null deletes), tools removed then added by name, the first one's timestamp."""
    t = load_transcript(_copy(tmp_path))
    tools = ({"name": "read", "v": 1}, {"name": "bash", "v": 1})
    msgs = [Message("system", (TextBlock("base"),), timestamp_ms=5,
                    sections={"a": "A", "b": "B"}, tools_added=tools),
            Message("system", (TextBlock("more"),), timestamp_ms=9, sections={"a": None},
                    tools_added=({"name": "read", "v": 2},), tools_removed=("bash",))]
    monkeypatch.setattr(psm, "_context_system_messages", lambda _t: msgs)
    assert current_system_message(t) == {
        "role": "system", "content": "base\n\nmore", "sections": {"b": "B"},
        "toolsAdded": [{"name": "read", "v": 2}], "timestamp": 5}


def test_no_system_message_no_field(tmp_path: Path) -> None:
    """OpenClaw files (no stored system message) are written as before."""
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z",
         "cwd": str(tmp_path)},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "hi", "timestamp": 1}},
    ]) + "\n")
    t = load_transcript(path)
    assert current_system_message(t) is None
    append_compaction(t, CompactionRecord("## Goal\nx", None, 1))
    assert "systemMessage" not in _rows(path)[-1]


def test_an_edit_of_a_message_left_out_goes_too(tmp_path: Path) -> None:
    """pi 1.6 hides a failed attempt with a ``context_edit``; a successor that leaves the
    attempt out leaves its edit out (it would name an entry the file no longer has)."""
    original = Path(shutil.copy(PI16.with_name("overflow.jsonl"), tmp_path / "overflow.jsonl"))
    t = load_transcript(original)
    (edit,) = [e for e in t.entries if e.type == "context_edit"]
    res = write_successor(t, CompactionRecord("## Goal\nhard", None, 10))
    assert res.successor_path is not None
    rows = _rows(res.successor_path)
    ids = {r.get("id") for r in rows}
    assert edit.target_id not in ids and edit.id not in ids
    assert not load_transcript(res.successor_path).diagnostics
