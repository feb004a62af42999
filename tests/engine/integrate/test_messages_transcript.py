"""OpenClaw's messages as a transcript; pins found by the pinned entries' text."""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.factories import TranscriptBuilder
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.integrate.agent_compaction import compact_for_agent
from sessionlens.engine.integrate.messages_transcript import (
    pins_by_text,
    write_messages_transcript,
)
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins

PINNED = "Decision: every row from /data/inbox is kept."
MESSAGES = [{"role": "user", "content": PINNED, "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": "Noted."}],
             "timestamp": 2},
            {"role": "user", "content": "Then ship it.", "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "Shipping."}],
             "timestamp": 4}]


def test_messages_written_in_order_with_the_previous_summary_first(tmp_path: Path) -> None:
    path = write_messages_transcript([*MESSAGES, {"role": "bogus"}], tmp_path, "Earlier: x.")
    t = load_transcript(path)
    texts = [t.get(i).message.text for i in t.active_path]  # type: ignore[union-attr]
    assert texts[0].endswith("Earlier: x.") and texts[1] == PINNED and len(texts) == 5


def test_a_pin_applies_where_its_text_is_a_message(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    b.user(PINNED)
    b.assistant("ok")
    session = b.write(tmp_path / "s.jsonl")
    folders = user_folders(tmp_path / "base")
    t = load_transcript(session)
    add_pins(t, [t.entries[0].id], folders.state)
    (tmp_path / "m").mkdir()
    messages = load_transcript(write_messages_transcript(MESSAGES, tmp_path / "m"))
    assert pins_by_text(messages, folders.state) == ("m1",)
    answer = compact_for_agent({"agent": "openclaw", "messages": MESSAGES}, folders)
    assert answer["ok"] is True and PINNED in answer["summary"]
    entry = json.loads((folders.state / "integrations/journal.jsonl").read_text())
    assert entry["pins_kept"] == ["m1"] and entry["agent"] == "openclaw"
