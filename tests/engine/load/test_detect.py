"""Format detection by content (the name only breaks ties), and the write guard naming every
agent whose files SessionLens reads but never writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fixtures.agent_files import CRUSH_SCHEMA, OPENCODE_SCHEMA
from fixtures.factories import jsonl
from fixtures.samples import SAMPLES_DIR
from sessionlens.engine.errors import NotATranscriptError, PersistError
from sessionlens.engine.load.detect import sniff_format
from sessionlens.engine.load.formats.catalog import FORMATS
from sessionlens.engine.load.reader import detect_format, load_transcript
from sessionlens.engine.persist.successor import require_writable

CASES: list[tuple[bytes, str, str]] = [
    (jsonl({"sessionId": "s", "projectHash": "h", "startTime": "t"}, {"$set": {"a": 1}}),
     "session-1.jsonl", "gemini-jsonl"),
    (json.dumps({"sessionId": "s", "projectHash": "h", "messages": []}, indent=2).encode(),
     "session-1.json", "gemini-json"),
    (jsonl({"type": "session.start", "data": {}, "id": "e", "timestamp": "t", "parentId": None}),
     "events.jsonl", "copilot-events"),
    (json.dumps({"sessionId": "s", "startTime": "t", "chatMessages": []}, indent=2).encode(),
     "session_x.json", "copilot-legacy"),
    (jsonl({"role": "user", "message": {"content": []}}), "x.jsonl", "cursor-jsonl"),
    (b"user:\nhi\n\nassistant:\nhello\n", "x.txt", "cursor-txt"),
    (json.dumps([{"ts": 1, "type": "say", "say": "task", "text": "go"}]).encode(),
     "ui_messages.json", "cline"),
    (json.dumps([{"ts": 1, "type": "say", "say": "condense_context"}]).encode(),
     "ui_messages.json", "roo-code"),
    (b"# aider chat started at 2024-01-01 10:00:00\n\n#### hi\n", ".aider.chat.history.md",
     "aider-md"),
    (jsonl({"role": "_checkpoint", "id": 0}, {"role": "user", "content": "hi"}),
     "context.jsonl", "kimi"),
    (json.dumps({"v": 3, "id": "T-1", "messages": []}, indent=2).encode(), "T-1.json", "amp"),
    (json.dumps({"sessionId": "s", "title": "t", "history": []}).encode(), "s.json",
     "continue"),
]


@pytest.mark.parametrize("data, name, fmt", CASES, ids=[c[2] for c in CASES])
def test_each_format_is_told_by_its_content(data: bytes, name: str, fmt: str) -> None:
    assert sniff_format(data, name) == fmt
    assert sniff_format(data, "renamed.bin") == fmt or fmt in ("roo-code",)


def _db(path: Path, script: str) -> Path:
    import sqlite3
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(script)
    db.close()
    return path


def test_databases_are_told_by_their_tables_and_the_name_breaks_the_tie(tmp_path: Path) -> None:
    assert detect_format(_db(tmp_path / "a" / ".crush" / "crush.db", CRUSH_SCHEMA)) == \
        "crush-sqlite"
    go = CRUSH_SCHEMA.replace(", summary_message_id TEXT", "")
    assert detect_format(_db(tmp_path / "b" / ".opencode" / "opencode.db", go)) == \
        "opencode-go-sqlite"
    assert detect_format(_db(tmp_path / "c" / "any.db", CRUSH_SCHEMA)) == "crush-sqlite"
    assert detect_format(_db(tmp_path / "d" / "opencode.db", OPENCODE_SCHEMA)) == \
        "opencode-sqlite"
    with pytest.raises(NotATranscriptError, match="without the message tables"):
        detect_format(_db(tmp_path / "e" / "x.db", "CREATE TABLE notes (t TEXT);"))


def test_an_unknown_file_names_every_format_read() -> None:
    with pytest.raises(NotATranscriptError) as info:
        sniff_format(b"hello there\n", "notes.md")
    for agent in ("Gemini CLI", "Crush", "Aider", "Kimi", "Continue"):
        assert agent in str(info.value)


@pytest.mark.skipif(not (SAMPLES_DIR / "agents").is_dir(), reason="samples absent")
@pytest.mark.parametrize("rel, fmt", [
    ("gemini/session-2026-04-25T12-47-cdc6c5f9.jsonl", "gemini-jsonl"),
    ("gemini/session-2026-04-13T18-00-f328310d.json", "gemini-json"),
    ("copilot/8baa78ec-b203-4c7f-b1d3-c1170ae84b7d/events.jsonl", "copilot-events"),
    ("copilot/session_076dfd18-c092-4221-bb1e-efdf478eff3d_1759669955294.json",
     "copilot-legacy"),
    ("crush/chad-russell_k/crush.db", "crush-sqlite"),
    ("opencode-go/WismutHansen_lst/opencode.db", "opencode-go-sqlite"),
    ("cursor/937ab067-7f13-4dd2-a5d0-f04f64ef6218.txt", "cursor-txt"),
    ("cline/CoreGems_Cline-Xray/ui_messages.json", "cline"),
    ("aider/brejlator/.aider.chat.history.md", "aider-md"),
    ("kimi/b1ea4a04-95d9-43a8-98ce-189f553b08ca/context.jsonl", "kimi"),
    ("amp/T-1d0ef56c-0ecd-4bf7-af7b-5bc196dc8a6a.json", "amp"),
    ("continue/7070a621-3c20-4c24-9b53-6dc14adff918.json", "continue"),
])
def test_samples_are_detected_and_never_written(samples_dir: Path, rel: str, fmt: str) -> None:
    path = samples_dir / "agents" / rel
    assert detect_format(path) == fmt
    t = load_transcript(path)
    agent = FORMATS[t.format].agent  # type: ignore[index]
    with pytest.raises(PersistError, match=re.escape(f"this is a {agent} transcript")):
        require_writable(t)
