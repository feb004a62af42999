"""Claude Code's PreCompact and PostCompact hooks, as SessionLens answers them.

Claude Code runs a hook command with a JSON object on stdin; for PreCompact (``{session_id,
transcript_path, cwd, trigger: manual|auto, custom_instructions}``) what the command prints
with exit 0 is added to the compaction's instructions and exit 2 blocks the compaction
(agents-today.md; checked against 2.1.332 by tests/agents/test_claude_code_hooks.py).
PostCompact gets ``compact_summary`` and cannot change anything: SessionLens audits that
summary against the transcript and journals the verdict.

So PreCompact hands Claude Code the user's standing focus and the text of every pinned entry
(to be carried word for word); it blocks only an automatic compaction, and only when the
user asked to approve compactions. Any failure of ours prints nothing and exits 0: Claude
Code compacts as it would without SessionLens, and the journal says why.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessionlens.engine._io.folders import UserFolders
from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.contract.pinned import PinnedText, pinned_texts
from sessionlens.engine.integrate.agent_compaction import journal_of_audit
from sessionlens.engine.integrate.hook_answer import HookAnswer
from sessionlens.engine.integrate.journal import JournalEntry, append_entry
from sessionlens.engine.integrate.preferences import load_prefs
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.pins import load_pins

__all__ = ["post_compact", "pre_compact", "pre_compact_instructions"]

AGENT = "claude-code"


def _span(transcript: Transcript) -> tuple[str, ...]:
    """The entries a compaction now would summarize: the path before its last compaction
    boundary when the boundary is written already, else the whole path (Claude Code
    summarizes everything and keeps at most a preserved segment)."""
    path = transcript.active_path
    last = max((i for i, eid in enumerate(path)
                if (e := transcript.get(eid)) is not None and e.type == "compaction"),
               default=None)
    ids = path[:last] if last is not None else path
    return tuple(eid for eid in ids if (e := transcript.get(eid)) is not None
                 and e.message is not None)


def _pins(transcript: Transcript, folders: UserFolders) -> tuple[PinnedText, ...]:
    return pinned_texts(transcript, _span(transcript), load_pins(transcript, folders.state)
                        .entry_ids)


def pre_compact_instructions(focus: str, pinned: tuple[PinnedText, ...]) -> str:
    """The text added to Claude Code's compaction instructions."""
    parts: list[str] = []
    if focus.strip():
        parts.append(f"The user's standing focus for every summary: {focus.strip()}")
    if pinned:
        parts.append("The user pinned these messages: copy each one into the summary word "
                     "for word, between its markers.")
        parts += [f"<pinned id=\"{p.entry_id}\" role=\"{p.role}\">\n{p.text}\n</pinned>"
                  for p in pinned]
    return "\n\n".join(parts)


def _base(payload: Mapping[str, Any]) -> JournalEntry:
    return JournalEntry(agent=AGENT, session=str(payload.get("session_id", "") or ""),
                        trigger=str(payload.get("trigger", "") or ""), writer="agent",
                        session_file=str(payload.get("transcript_path", "") or ""))


def _journal(folders: UserFolders, entry: JournalEntry) -> None:
    with contextlib.suppress(OSError):  # never let the journal break the agent
        append_entry(folders.state, entry)


def pre_compact(payload: Mapping[str, Any], folders: UserFolders) -> HookAnswer:
    base = _base(payload)
    try:
        prefs = load_prefs(folders.config)
        if prefs.approve_compactions and base.trigger == "auto":
            why = ("blocked: the user asked to approve compactions (SessionLens "
                   "integrations.json approve_compactions); run /compact to compact now")
            _journal(folders, replace(base, writer="none", fallback_reason=why))
            return HookAnswer(2, "", f"SessionLens: {why}\n")
        transcript = load_transcript(Path(base.session_file))
        text = pre_compact_instructions(prefs.focus, _pins(transcript, folders))
    except Exception as exc:  # noqa: BLE001 - Claude Code compacts whatever happens here
        _journal(folders, replace(base, fallback_reason=(
            f"PreCompact: SessionLens failed ({type(exc).__name__}: {exc}); Claude Code "
            "compacted without the user's focus and pins")))
        return HookAnswer(0)
    return HookAnswer(0, text + "\n" if text else "")


def post_compact(payload: Mapping[str, Any], folders: UserFolders) -> HookAnswer:
    base = _base(payload)
    summary = str(payload.get("compact_summary", "") or "")
    try:
        transcript = load_transcript(Path(base.session_file))
        span = _span(transcript)
        pinned = _pins(transcript, folders)
        report = audit_summary(transcript, summary, summarized_entry_ids=span,
                               template="auto", pinned=pinned)
    except Exception as exc:  # noqa: BLE001
        _journal(folders, replace(base, summarizer=AGENT, fallback_reason=(
            f"PostCompact: SessionLens could not audit the summary "
            f"({type(exc).__name__}: {exc})")))
        return HookAnswer(0)
    audit = journal_of_audit(report)
    missing = tuple(c.detail for c in report.checks if c.name == "pinned" and not c.passed)
    _journal(folders, replace(
        base, summarizer=AGENT, pins_kept=() if missing else tuple(p.entry_id for p in pinned),
        pins_missing=missing, extra={"summary_chars": len(summary),
                                     "entries_summarized": len(span)}, **audit))
    verdict = "passed" if report.passed else "FAILED (" + ", ".join(audit["failed_checks"]) + ")"
    return HookAnswer(0, "", f"SessionLens: audit of Claude Code's summary {verdict}\n")
