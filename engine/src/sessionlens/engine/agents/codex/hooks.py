"""Codex's PreCompact/PostCompact hooks: notify-only (codex#19905), so they are journaled.

Codex lets SessionLens shape its local compaction only through the prompt file
(``experimental_compact_prompt_file``, written by ``sessionlens integrate codex``); the hooks
can change nothing, so each is one journal line saying Codex wrote its own summary.
Not verified against the 0.171.0 binary: with ``[features] hooks = true`` and the hooks in
``hooks.json`` or in config.toml's ``[hooks]``, ``codex exec``'s automatic compaction ran no
compaction hook here (tests/agents/test_codex_prompt_file.py checks the prompt file only).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from sessionlens.engine._io.folders import UserFolders
from sessionlens.engine.integrate.hook_answer import HookAnswer
from sessionlens.engine.integrate.journal import JournalEntry, append_entry

__all__ = ["notify"]


def notify(event: str, payload: Mapping[str, Any], folders: UserFolders) -> HookAnswer:
    if event == "pre-compact":
        return HookAnswer(0)  # the post-compact line says it all
    entry = JournalEntry(
        agent="codex", session=str(payload.get("session_id", "") or ""),
        trigger=str(payload.get("trigger", "") or ""), writer="agent", summarizer="codex",
        session_file=str(payload.get("transcript_path", "") or ""),
        fallback_reason="Codex's hooks are notify-only: its own summary, shaped by the "
                        "compact prompt file", extra={"hook_event": event})
    with contextlib.suppress(OSError):  # a journal that cannot be written never fails the hook
        append_entry(folders.state, entry)
    return HookAnswer(0)
