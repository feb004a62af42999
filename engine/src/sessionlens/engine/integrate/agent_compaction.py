"""One compaction asked for by an agent's integration: the engine's own run, journaled.

The pi extension (and the OpenClaw plugin) send a request; this answers it with what the
app would have done: the session's pins (``persist.pins``) carried verbatim, the user's
standing focus (``preferences``) added to the agent's own instructions, secrets redacted
before any provider, the summarizer the user chose, the audit and its retries
(``compaction.run_compaction``). Every answer is journaled, including the refusals.

The answer says what the agent should do: ``{"ok": true, "summary": ...}`` to use ours;
``{"ok": false, "use": "agent"|"cancel", "reason": ...}`` to compact without us (the
agent's own summarizer) or, when the user asked so, to cancel a compaction whose summary
failed its audit. Nothing here raises to the caller: an agent must never break on us.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sessionlens.engine._io.folders import UserFolders
from sessionlens.engine.audit.report import AuditReport
from sessionlens.engine.compaction import (
    CompactionOptions,
    CompactionOutcome,
    run_compaction,
    scrub_summary,
)
from sessionlens.engine.errors import SessionLensError
from sessionlens.engine.opened import Overrides, open_transcript
from sessionlens.engine.persist.pins import load_pins
from sessionlens.engine.settings import DEFAULT_SETTINGS
from sessionlens.engine.summarize.providers import build_provider

from .journal import JournalEntry, Writer, append_entry
from .messages_transcript import pins_by_text, write_messages_transcript
from .preferences import IntegrationPrefs, load_prefs, load_profile

__all__ = ["AgentRequest", "compact_for_agent", "dropped_lines", "journal_of_audit"]


@dataclass(frozen=True, slots=True)
class AgentRequest:
    agent: str
    session_file: str
    session_id: str = ""
    trigger: str = ""
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    custom_instructions: str = ""
    #: OpenClaw: the messages to summarize (no session file).
    messages: tuple[Any, ...] | None = None
    previous_summary: str = ""

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> AgentRequest:
        tokens = d.get("tokens_before")
        return cls(agent=str(d.get("agent", "")), session_file=str(d.get("session_file", "")),
                   session_id=str(d.get("session_id", "") or ""),
                   trigger=str(d.get("trigger", "") or ""),
                   first_kept_entry_id=d.get("first_kept_entry_id") or None,
                   tokens_before=tokens if isinstance(tokens, int) else None,
                   custom_instructions=str(d.get("custom_instructions", "") or ""),
                   messages=tuple(msgs) if isinstance(msgs := d.get("messages"), list)
                   else None,
                   previous_summary=str(d.get("previous_summary", "") or ""))


def dropped_lines(report: AuditReport, known: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What the summary lacks, one line each, scrubbed (a dropped value may be a secret)."""
    return tuple(scrub_summary(f"{d.cls}: {d.value}", known)[0] for d in report.dropped[:50])


def journal_of_audit(report: AuditReport) -> dict[str, Any]:
    return {"audit_passed": report.passed,
            "failed_checks": tuple(c.name for c in report.checks if not c.passed),
            "dropped": dropped_lines(report)}


def focus_of(prefs: IntegrationPrefs, agent_instructions: str) -> str:
    """The user's standing focus, then what the agent was asked for this compaction."""
    return "\n\n".join(p for p in (prefs.focus.strip(), agent_instructions.strip()) if p)


async def _run(req: AgentRequest, prefs: IntegrationPrefs,
               folders: UserFolders) -> tuple[CompactionOutcome, tuple[str, ...], str]:
    with contextlib.ExitStack() as stack:
        return await _run_in(req, prefs, folders, stack)


async def _run_in(req: AgentRequest, prefs: IntegrationPrefs, folders: UserFolders,
                  stack: contextlib.ExitStack) -> tuple[CompactionOutcome, tuple[str, ...], str]:
    profile = load_profile(folders.config, prefs.profile)  # the user's choice, checked first
    if req.messages is not None:  # OpenClaw: the messages themselves, summarized whole
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sessionlens-")))
        file = write_messages_transcript(req.messages, tmp, req.previous_summary)
        opened = open_transcript(file, Overrides(keep_recent_tokens=0), config=DEFAULT_SETTINGS)
        transcript = opened.transcript
        pin_ids = pins_by_text(transcript, folders.state)
        plan = opened.plan()
    else:
        opened = open_transcript(Path(req.session_file))
        transcript = opened.transcript
        pin_ids = load_pins(transcript, folders.state).entry_ids
        plan = opened.plan(cut_entry_id=req.first_kept_entry_id)
    provider = build_provider(profile)
    key = profile.read_key()
    options = CompactionOptions(instructions=focus_of(prefs, req.custom_instructions),
                                template=prefs.template, quality_retries=prefs.quality_retries,
                                identifier_policy=prefs.identifier_policy,
                                pins=pin_ids)
    try:
        outcome = await run_compaction(transcript, plan, [provider], options,
                                       known_secrets=[key] if key else [])
    finally:
        close = getattr(provider, "close", None)
        if callable(close):
            close()
    return outcome, pin_ids, transcript.session_id or ""


def compact_for_agent(request: Mapping[str, Any], folders: UserFolders) -> dict[str, Any]:
    """Run the compaction ``request`` asks for and journal it; the answer for the agent."""
    req = AgentRequest.of(request)
    base = JournalEntry(agent=req.agent, session=req.session_id, trigger=req.trigger,
                        writer="agent", session_file=req.session_file,
                        tokens_before=req.tokens_before)
    try:
        prefs = load_prefs(folders.config)
    except SessionLensError as exc:
        return _refuse(folders, base, f"SessionLens's settings: {exc}", "agent")
    try:
        outcome, pinned, session_id = asyncio.run(asyncio.wait_for(_run(req, prefs, folders),
                                                       prefs.deadline_s))
    except TimeoutError:
        return _refuse(folders, base, f"SessionLens took longer than its deadline "
                       f"({prefs.deadline_s:g} s)", "agent")
    except SessionLensError as exc:
        return _refuse(folders, base, f"SessionLens could not compact: {exc}", "agent")
    except Exception as exc:  # noqa: BLE001 - the agent must compact whatever happened here
        return _refuse(folders, base, f"SessionLens crashed: {type(exc).__name__}: {exc}",
                       "agent")
    report = outcome.audit
    kept = tuple(p.entry_id for p in outcome.pinned)
    missing = tuple(c.detail for c in report.checks if c.name == "pinned" and not c.passed)
    summarizer = "/".join(x for x in (outcome.result.provider, outcome.result.model) if x)
    entry = JournalEntry(
        agent=req.agent, session=req.session_id or session_id, trigger=req.trigger, writer="sessionlens", session_file=req.session_file,
        summarizer=summarizer, pins_kept=kept if not missing else (), pins_missing=missing,
        tokens_before=req.tokens_before, **journal_of_audit(report),
        extra={"pinned": list(pinned), "kept_attempt": outcome.quality.kept_attempt,
               "attempts": len(outcome.quality.attempts)})
    if not report.passed:
        use = prefs.on_audit_failure
        why = ("the summary SessionLens wrote failed its audit ("
               + ", ".join(entry.failed_checks) + ")")
        writer: Writer = "none" if use == "cancel" else "agent"
        append_entry(folders.state, replace(entry, writer=writer, fallback_reason=why))
        return {"ok": False, "use": use, "reason": why, "audit": _audit_json(report)}
    append_entry(folders.state, entry)
    first_kept = outcome.plan.first_kept_entry_id or req.first_kept_entry_id
    return {"ok": True, "summary": outcome.summary, "first_kept_entry_id": first_kept,
            "tokens_before": req.tokens_before if req.tokens_before is not None
            else outcome.plan.tokens_before,
            "details": {"sessionlens": {"summarizer": summarizer, "audit": _audit_json(report),
                                        "pins_kept": list(kept)}}}


def _audit_json(report: AuditReport) -> dict[str, Any]:
    return {"passed": report.passed, "failed_checks": [c.name for c in report.checks
                                                       if not c.passed]}


def _refuse(folders: UserFolders, base: JournalEntry, why: str, use: str) -> dict[str, Any]:
    # a journal that cannot be written must not stop the answer, which tells the agent to go on
    with contextlib.suppress(OSError):
        append_entry(folders.state, replace(base, fallback_reason=why))
    return {"ok": False, "use": use, "reason": why}
