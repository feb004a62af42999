"""Codex's PreCompact/PostCompact hooks, as SessionLens answers them (Codex 0.171.0).

Both hooks are notify-only (codex#19905; their output wire holds only the universal fields):
Codex writes its own summary, shaped by SessionLens's compact prompt file
(``experimental_compact_prompt_file``, local compaction only). So only PostCompact is
installed, and it audits what Codex wrote (``pre-compact`` is still answered, with nothing,
for hooks.json files an older SessionLens wrote). Its input is ``{session_id, turn_id,
transcript_path, cwd, hook_event_name, model, trigger: manual|auto}``, without the summary;
when it runs the rollout already ends with the ``compacted`` item (checked against 0.171.0),
so the summary is read from there: the audit is the one ``sessionlens audit ROLLOUT`` gives
of the last compaction, the session's pins checked word for word, and the journal line
names the compaction (``extra.compaction_id``) so the app can open its audit.

Codex runs these hooks only once the user's config.toml trusts them (``codex_trust``);
``sessionlens integrate codex`` writes that trust. Any failure here is journaled and
exits 0: Codex never waits on, or breaks because of, SessionLens.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessionlens.engine._io.folders import UserFolders
from sessionlens.engine.audit.recorded import audit_compaction_in_chain
from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.contract.pinned import pinned_texts
from sessionlens.engine.integrate.agent_compaction import journal_of_audit
from sessionlens.engine.integrate.hook_answer import HookAnswer
from sessionlens.engine.integrate.journal import JournalEntry, append_entry
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import load_pins

__all__ = ["WHY_AGENT", "notify", "post_compact"]

AGENT = "codex"
WHY_AGENT = ("Codex's hooks are notify-only: Codex wrote its own summary (with SessionLens's "
             "compact prompt file where its local compaction ran)")


def _journal(folders: UserFolders, entry: JournalEntry) -> None:
    with contextlib.suppress(OSError):  # a journal that cannot be written never fails the hook
        append_entry(folders.state, entry)


def post_compact(payload: Mapping[str, Any], folders: UserFolders) -> HookAnswer:
    """Audit the summary Codex just wrote (the rollout's last ``compacted``) and journal it."""
    base = JournalEntry(agent=AGENT, session=str(payload.get("session_id", "") or ""),
                        trigger=str(payload.get("trigger", "") or ""), writer="agent",
                        summarizer=AGENT, fallback_reason=WHY_AGENT,
                        session_file=str(payload.get("transcript_path", "") or ""))
    try:
        transcript = load_transcript(Path(base.session_file))
        audited = audit_compaction_in_chain(transcript)
        report = audited.report
        cid = report.compaction_id or ""
        summary = transcript.entry(cid).summary or "" if cid else ""
        pins = load_pins(transcript, folders.state).entry_ids
        pinned = pinned_texts(transcript, report.summarized_entry_ids, pins) if pins else ()
        missing: tuple[str, ...] = ()
        if pinned:
            check = audit_summary(transcript, summary,
                                  summarized_entry_ids=report.summarized_entry_ids,
                                  template="auto", pinned=pinned)
            missing = tuple(c.detail for c in check.checks
                            if c.name == "pinned" and not c.passed)
    except Exception as exc:  # noqa: BLE001 - Codex goes on whatever happens here
        _journal(folders, replace(base, fallback_reason=(
            f"{WHY_AGENT}; PostCompact: SessionLens could not audit it "
            f"({type(exc).__name__}: {exc})"), extra={"hook_event": "PostCompact"}))
        return HookAnswer(0)
    audit = journal_of_audit(report)
    if missing:
        audit["audit_passed"] = False
        audit["failed_checks"] = (*audit["failed_checks"], "pinned")
    _journal(folders, replace(
        base, pins_kept=() if missing else tuple(p.entry_id for p in pinned),
        pins_missing=missing, tokens_before=transcript.entry(cid).tokens_before if cid else None,
        extra={"hook_event": "PostCompact", "compaction_id": cid, "summary_chars": len(summary),
               "entries_summarized": len(report.summarized_entry_ids),
               "model": str(payload.get("model", "") or "")}, **audit))
    verdict = ("passed" if audit["audit_passed"] else
               "FAILED (" + ", ".join(audit["failed_checks"]) + ")")
    return HookAnswer(0, "", f"SessionLens: audit of Codex's summary {verdict}\n")


def notify(event: str, payload: Mapping[str, Any], folders: UserFolders) -> HookAnswer:
    """``sessionlens hook codex EVENT``: PreCompact can change nothing, so it does nothing;
    PostCompact audits and journals."""
    if event == "pre-compact":
        return HookAnswer(0)
    return post_compact(payload, folders)
