"""The user's own words: channel envelopes, ids, system events and injected turns stripped."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.samples import sample_path
from sessionlens.engine.contract.user_words import (
    is_injected_turn,
    is_silent_reply,
    strip_envelope,
    user_words,
)
from sessionlens.engine.load.reader import load_transcript

FLUSH = ("Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md; "
         "create memory/ if needed). If nothing to store, reply with NO_REPLY.")


@pytest.mark.parametrize(("raw", "words"), [
    ("[Telegram Verve AI id:8148859805 2026-01-31 08:12 GMT+8] hi\n[message_id: 3]", "hi"),
    ("[WhatsApp Team +2m Thu 2026-01-31 08:12 GMT+8] Ann (+441234567890): deploy it", "deploy it"),
    ("[Discord Ann (@ann) 2026-01-02T03:04Z] rotate the keys", "rotate the keys"),
    ("[Chat messages since your last reply - for context]\nBob: old\n\n"
     "[Current message - respond to this]\n[Slack Ann 2026-01-01 10:00] ship it", "ship it"),
    ("System: [2026-01-31 19:25:33 GMT+8] Exec failed (quiet-nu, signal SIGKILL) :: key\n\n"
     "are we on the cloud server?\n[message_id: 9f5bc4b7]", "are we on the cloud server?"),
    ('Sender (untrusted metadata):\n```json\n{"id": "1"}\n```\n\n[Sun 2026-03-08 22:03 GMT+9] '
     "rotate the certificates", "rotate the certificates"),
    ("# Files mentioned by the user:\n\n## a.csv: c:\\a.csv\n\n## My request for Codex:\nfix it",
     "fix it"),
])
def test_envelopes_are_stripped(raw: str, words: str) -> None:
    assert strip_envelope(raw) == words
    assert strip_envelope(words) == words  # idempotent


@pytest.mark.parametrize("text", ["[WIP] fix the parser", "[Line 42] fails again",
                                  "please check [the docs] first", "plain words"])
def test_the_users_own_brackets_stay(text: str) -> None:
    assert strip_envelope(text) == text
    assert not is_injected_turn(text)


def test_injected_turns() -> None:
    assert is_injected_turn(FLUSH) and user_words(FLUSH) == ""
    assert is_injected_turn("This session is being continued from a previous conversation that "
                            "ran out of context.")
    assert is_injected_turn("System: [2026-01-31 19:48:00 GMT+8] Exec failed (x) :: y")
    assert is_injected_turn("## My request for Codex:\n\n")  # only attached files, no words
    assert not is_injected_turn("please flush the cache before the memory test")
    assert is_silent_reply("NO_REPLY") and is_silent_reply(" HEARTBEAT_OK\n")
    assert not is_silent_reply("No reply needed, done.")


@pytest.mark.samples
def test_sample_04_user_words(samples_dir: Path) -> None:
    """The Telegram-era OpenClaw sample: ids, system-event lines and the flush prompt."""
    t = load_transcript(sample_path(samples_dir, "04_"))
    users = [e.message.text for e in t.entries if e.message is not None
             and e.message.role == "user"]
    tagged = [u for u in users if "[message_id:" in u]
    assert len(tagged) >= 10
    words = [user_words(u) for u in users]
    assert not any("[message_id:" in w or w.startswith("System: [") for w in words)
    assert sum(is_injected_turn(u) for u in users) >= 1  # the pre-compaction memory flush
    assert not any("Pre-compaction memory flush" in w for w in words)
    assert "hi" in words  # "hi\n[message_id: ...]" is the user's "hi"
    assert any(w == "什么情况现在" for w in words)  # after two system-event lines


@pytest.mark.samples
def test_sample_03_user_words_are_untouched(samples_dir: Path) -> None:
    """No envelopes there: every user message is the person's words as written."""
    t = load_transcript(sample_path(samples_dir, "03_"))
    users = [e.message.text for e in t.entries if e.message is not None
             and e.message.role == "user"]
    assert users and all(user_words(u) == u.strip() for u in users)
