"""Flush turns in a transcript and the store's flush record (sessions.json)."""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from sessionlens.engine.lineage.flush_store import session_record
from sessionlens.engine.lineage.flush_turns import (
    StoreFlushRecord,
    find_flush_turns,
    is_flush_prompt,
    store_flush_record,
)
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Message, TextBlock
from sessionlens.engine.sessions.store import read_session_store

OLD_PROMPT = ("Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md; "
              "create memory/ if needed). If nothing to store, reply with NO_REPLY.")
NEW_PROMPT = ("Pre-compaction memory flush. Store durable memories only in memory/2026-09-06.md "
              "(create memory/ if needed). If nothing to store, reply with NO_REPLY.\n"
              "Current time: 2026-09-06 10:00 UTC")


def test_openclaw_prompts_of_every_generation_are_recognised() -> None:
    assert is_flush_prompt(OLD_PROMPT) and is_flush_prompt("  " + NEW_PROMPT)
    assert not is_flush_prompt("please flush the memory cache before compaction")
    assert not is_flush_prompt("NO_REPLY")


def test_a_configured_prompt_matches_as_a_prefix_with_any_date() -> None:
    custom = "Save a summary to memory/YYYY-MM-DD.md now."
    sent = "Save a summary to memory/2026-02-09.md now.\n\nIf no user-visible reply is needed..."
    assert is_flush_prompt(sent, custom)
    assert not is_flush_prompt(sent)  # not OpenClaw's own text
    assert not is_flush_prompt("Save a summary to memory/today.md now.", custom)


def test_turns_hold_their_replies_and_written_files() -> None:
    b = TranscriptBuilder()
    b.user("hi")
    b.assistant("hello")
    prompt = b.user(OLD_PROMPT)
    call = b.call("write", path="memory/2026-01-31.md", content="- likes tea")
    b.assistant("", call)
    b.result(call, "written")
    b.assistant("NO_REPLY")
    b.user("next question")
    b.assistant("answer")
    (turn,) = find_flush_turns(b.build())
    assert turn.prompt_entry_id == prompt.id and turn.evidence == "prompt"
    assert turn.entry_ids == tuple(e.id for e in b.entries[2:6])
    assert turn.silent and turn.written_files == ("memory/2026-01-31.md",)
    assert turn.ended_at_ms is not None


def test_no_reply_to_a_real_message_is_not_a_flush() -> None:
    b = TranscriptBuilder()
    b.user("test 2")
    b.assistant("NO_REPLY")
    assert find_flush_turns(b.build()) == ()


def test_newest_openclaw_keeps_an_empty_prompt_and_the_answer_tells() -> None:
    b = TranscriptBuilder()
    b.user("real question")
    b.assistant("real answer")
    silent = b.message(Message(role="user", content=(TextBlock(""),)))
    b.assistant("NO_REPLY")
    b.message(Message(role="user", content=()))
    call = b.call("edit", path="/ws/memory/2026-09-06.md")
    b.assistant("", call)
    b.result(call, "ok")
    b.assistant("Stored.")
    b.message(Message(role="user", content=(TextBlock("   "),)))
    b.assistant("Sure, what next?")  # an empty message answered normally: not a flush
    turns = find_flush_turns(b.build())
    assert [t.evidence for t in turns] == ["empty-prompt", "empty-prompt"]
    assert turns[0].prompt_entry_id == silent.id and turns[0].silent
    assert not turns[1].silent and turns[1].written_files == ("/ws/memory/2026-09-06.md",)


def _store(tmp_path: Path, record: dict[str, object], name: str = "sessions.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"agent:main:main": record}), encoding="utf-8")
    return path


def test_store_records_of_both_generations(tmp_path: Path) -> None:
    b = TranscriptBuilder(str(tmp_path / "s.jsonl"))
    b.user(OLD_PROMPT)
    b.assistant("NO_REPLY")
    turns = find_flush_turns(b.build())
    end = turns[0].ended_at_ms
    assert end is not None
    old = read_session_store(_store(tmp_path, {
        "sessionId": "x", "compactionCount": 3, "memoryFlushAt": end + 40,
        "memoryFlushCompactionCount": 3, "contextTokens": 32768})).records[0]
    rec = store_flush_record(old, turns)
    assert (rec.memory_flush_at, rec.memory_flush_compaction_count, rec.compaction_count) == (
        end + 40, 3, 3)
    assert rec.matched_turn_id == turns[0].prompt_entry_id and rec.lag_ms == 40
    assert rec.current_cycle_flushed and rec.context_window == 32768
    new = read_session_store(_store(tmp_path, {
        "sessionId": "x", "compactionCount": 5,
        "memoryFlush": {"kind": "failed", "compactionCount": 4, "failureCount": 2}})).records[0]
    rec = store_flush_record(new, turns)
    assert (rec.kind, rec.memory_flush_compaction_count, rec.failure_count) == ("failed", 4, 2)
    assert rec.memory_flush_at is None and rec.matched_turn_id is None
    assert not rec.current_cycle_flushed


def test_a_stamp_far_from_every_turn_matches_none(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    b.user(OLD_PROMPT)
    b.assistant("NO_REPLY")
    turns = find_flush_turns(b.build())
    rec = read_session_store(_store(tmp_path, {
        "sessionId": "x", "memoryFlushAt": (turns[0].ended_at_ms or 0) + 3_600_000})).records[0]
    assert store_flush_record(rec, turns).matched_turn_id is None


def test_the_record_is_found_beside_the_transcript_by_id_or_file_name(tmp_path: Path) -> None:
    t = load_transcript(_write_minimal(tmp_path / "abc.jsonl", "sid-1"))
    assert session_record(t) is None  # no store beside it
    _store(tmp_path, {"sessionId": "sid-1", "compactionCount": 2})
    found = session_record(t)
    assert found is not None and found.compaction_count == 2
    other = _store(tmp_path, {"sessionId": "moved", "sessionFile": "C:\\old\\abc.jsonl",
                              "compactionCount": 7}, name="copy.json")
    by_name = session_record(t, other)
    assert by_name is not None and by_name.compaction_count == 7


def _write_minimal(path: Path, session_id: str) -> Path:
    header = {"type": "session", "version": 3, "id": session_id,
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    user = {"type": "message", "id": "u1", "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1}}
    path.write_text(json.dumps(header) + "\n" + json.dumps(user) + "\n", encoding="utf-8")
    return path


def _flush_line_ids(path: Path) -> list[str]:
    """Ids of the user lines that carry OpenClaw's prompt, read straight from the file."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        msg = obj.get("message") or {}
        content = msg.get("content")
        text = content if isinstance(content, str) else " ".join(
            b.get("text", "") for b in content or [] if isinstance(b, dict))
        if msg.get("role") == "user" and text.startswith("Pre-compaction memory flush"):
            out.append(obj["id"])
    return out


def test_real_samples_04_and_05(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "04_")
    t = load_transcript(path)
    turns = find_flush_turns(t)
    assert [x.prompt_entry_id for x in turns] == _flush_line_ids(path) != []
    assert all(x.silent and x.evidence == "prompt" for x in turns)
    record = session_record(t, sample_path(samples_dir, "05_"))
    assert record is not None and record.session_id == t.session_id
    rec: StoreFlushRecord = store_flush_record(record, turns)
    raw = json.loads(sample_path(samples_dir, "05_").read_text(encoding="utf-8"))
    entry = next(v for v in raw.values() if v.get("sessionId") == t.session_id)
    assert rec.memory_flush_at == entry["memoryFlushAt"]
    assert rec.memory_flush_compaction_count == entry["memoryFlushCompactionCount"]
    assert rec.matched_turn_id == turns[-1].prompt_entry_id
    assert rec.lag_ms is not None and 0 <= rec.lag_ms < 60_000


def test_real_sample_03_answers_no_reply_without_a_flush(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "03_")
    assert b"NO_REPLY" in path.read_bytes()  # the agent did answer NO_REPLY once
    assert find_flush_turns(load_transcript(path)) == ()
    record = session_record(load_transcript(path), sample_path(samples_dir, "05_"))
    assert record is not None
    rec = store_flush_record(record)
    assert rec.memory_flush_at is None and rec.memory_flush_compaction_count is None
