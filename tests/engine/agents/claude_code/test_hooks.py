"""The Claude Code hooks' answers, on a Claude Code transcript (no binary needed)."""

from __future__ import annotations

from pathlib import Path

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.agents.claude_code.hooks import (
    post_compact,
    pre_compact,
    pre_compact_instructions,
)
from sessionlens.engine.contract.pinned import PinnedText
from sessionlens.engine.integrate.journal import read_journal

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures/agents/claude-code-2.1.332/short"


def test_instructions_hold_the_focus_and_each_pin_verbatim() -> None:
    text = pre_compact_instructions("keep the schema", (PinnedText("u1", "user", "A b c."),))
    assert "keep the schema" in text and "<pinned id=\"u1\" role=\"user\">\nA b c.\n" in text
    assert pre_compact_instructions("", ()) == ""


def test_approval_blocks_only_automatic_compactions(tmp_path: Path) -> None:
    folders = user_folders(tmp_path)
    folders.config.mkdir(parents=True)
    (folders.config / "integrations.json").write_text('{"approve_compactions": true}', "utf-8")
    auto = pre_compact({"session_id": "s", "transcript_path": "/nope", "trigger": "auto"},
                       folders)
    assert auto.code == 2 and "approve compactions" in auto.stderr
    manual = pre_compact({"session_id": "s", "transcript_path": "/nope",
                          "trigger": "manual"}, folders)
    assert manual.code == 0 and manual.stdout == ""   # failure to read: Claude Code goes on
    entries = read_journal(folders.state).entries
    assert [e.writer for e in entries] == ["none", "agent"]
    assert "PreCompact: SessionLens failed" in entries[1].fallback_reason


def test_post_compact_audits_and_journals(tmp_path: Path) -> None:
    folders = user_folders(tmp_path)
    transcript = FIXTURE / "50444245-0084-4647-abba-d47ca6f80732.jsonl"  # a real 2.1.332 file
    answer = post_compact({"session_id": "s", "transcript_path": str(transcript),
                           "trigger": "auto", "compact_summary": "Nothing."}, folders)
    assert answer.code == 0 and "audit of Claude Code's summary" in answer.stderr
    [entry] = read_journal(folders.state).entries
    assert entry.summarizer == "claude-code" and entry.audit_passed is not None
    assert entry.extra["summary_chars"] == len("Nothing.")
