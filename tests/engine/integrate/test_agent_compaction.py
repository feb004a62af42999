"""compact_for_agent: the engine's own run for an agent, every answer journaled."""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.factories import TranscriptBuilder
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.integrate.agent_compaction import compact_for_agent
from sessionlens.engine.integrate.journal import read_journal
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins

SECRET = "sk-ant-api03-" + "Q7xK2mP9vL4nR8sT1wY6zB3cD5fG0hJ"


def session(tmp_path: Path) -> Path:
    b = TranscriptBuilder()
    b.user("Decision: the importer keeps every row from /data/inbox.")
    b.assistant(f"Noted; the staging key is {SECRET}.")
    b.user("Fix the header bug in src/importer.py. " * 30)
    b.assistant("Fixing the header parsing now. " * 30)
    b.user("Then ship it.")
    b.assistant("Shipping.")
    return b.write(tmp_path / "session.jsonl")


def test_pins_focus_and_redaction_with_the_offline_summarizer(tmp_path: Path) -> None:
    path = session(tmp_path)
    folders = user_folders(tmp_path / "base")
    folders.config.mkdir(parents=True)
    (folders.config / "integrations.json").write_text(json.dumps(
        {"focus": "the importer", "quality_retries": 0}), "utf-8")
    t = load_transcript(path)
    first = t.entries[0]
    add_pins(t, [first.id], folders.state)
    answer = compact_for_agent({"agent": "pi", "session_file": str(path), "session_id": "s",
                                "trigger": "threshold", "first_kept_entry_id": t.entries[2].id,
                                "tokens_before": 999}, folders)
    assert answer["ok"] is True, answer
    assert "Decision: the importer keeps every row from /data/inbox." in answer["summary"]
    assert SECRET not in answer["summary"]
    assert answer["tokens_before"] == 999
    [entry] = read_journal(folders.state).entries
    assert entry.writer == "sessionlens" and entry.audit_passed is True
    assert entry.pins_kept == (first.id,) and entry.summarizer == "offline/extractive"


def test_refusals_are_answers_and_journaled(tmp_path: Path) -> None:
    folders = user_folders(tmp_path / "base")
    answer = compact_for_agent({"agent": "pi", "session_file": str(tmp_path / "nope.jsonl"),
                                "trigger": "overflow"}, folders)
    assert answer["ok"] is False and answer["use"] == "agent"
    folders.config.mkdir(parents=True)
    (folders.config / "integrations.json").write_text("{not json", "utf-8")
    bad = compact_for_agent({"agent": "pi", "session_file": str(session(tmp_path))}, folders)
    assert bad["ok"] is False and "integrations.json:1" in bad["reason"]
    reasons = [e.fallback_reason for e in read_journal(folders.state).entries]
    assert "no such file" in reasons[0] and "integrations.json" in reasons[1]
    assert all(e.writer == "agent" for e in read_journal(folders.state).entries)


def test_a_missing_profile_is_refused_not_replaced(tmp_path: Path) -> None:
    folders = user_folders(tmp_path / "base")
    folders.config.mkdir(parents=True)
    (folders.config / "integrations.json").write_text('{"profile": "work"}', "utf-8")
    answer = compact_for_agent({"agent": "pi", "session_file": str(session(tmp_path))},
                               folders)
    assert answer["ok"] is False and "no profile named 'work'" in answer["reason"]
