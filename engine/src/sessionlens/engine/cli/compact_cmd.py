"""``sessionlens compact FILE``: plan, summarize, audit and (optionally) write a compaction.

The command only wires flags to the engine: settings resolve as in ``plan`` (the same flags,
the same defaults: keep-recent 20,000, a hard boundary only with ``--keep-recent 0``), the run
is ``compaction.run_compaction``, the write goes through its dry run (real file names, the
first kept entry the file will hold, tokens after measured on the result) and
``write_prepared``, which refuses a summary that failed its audit unless
``--accept-failed-audit``. A failed or cancelled run writes nothing. ``--summary-file S``
takes the user's own text instead of a provider's (same audit, same gate); ``--pin ID``
adds to the session's remembered pins (``persist.pins``), which every run carries.

Exit codes: 0 done; 1 an error (stderr says what); 3 the audit failed and ``--write`` was
refused (the JSON still carries the summary and its audit); 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.audit.report import audit_report_dict
from sessionlens.engine.cli.args import add_basedir_arg, positive_int
from sessionlens.engine.cli.output import emit_json, emit_lines, warn
from sessionlens.engine.cli.plan_cmd import (
    add_settings_arguments,
    overrides_from_args,
    settings_summary,
)
from sessionlens.engine.compaction import (
    CompactionOptions,
    CompactionOutcome,
    load_warnings,
    prepare_write,
    run_compaction,
    user_summary_outcome,
    write_prepared,
)
from sessionlens.engine.errors import (
    AuditGateError,
    ConfigError,
    PersistError,
    SummarizationCancelled,
)
from sessionlens.engine.model import Transcript
from sessionlens.engine.opened import FIGURE_LABELS, open_transcript
from sessionlens.engine.persist.agent_writers import store_writer
from sessionlens.engine.persist.continuation import refuse_second_successor
from sessionlens.engine.persist.pins import add_pins, load_pins
from sessionlens.engine.persist.record import WritePlan
from sessionlens.engine.persist.retry_storms import RETRY_WINDOW_MS
from sessionlens.engine.persist.successor import require_writable
from sessionlens.engine.persist.writer import WriteMode, check_lock
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.fit import not_smaller_note
from sessionlens.engine.summarize.outbound import preview_prompts, provider_keys
from sessionlens.engine.summarize.providers import (
    OFFLINE_PROFILE,
    OfflineProvider,
    Provider,
    ProviderProfile,
    RetryPolicy,
    build_provider,
)
from sessionlens.engine.summarize.runner import ProgressEvent
from sessionlens.engine.transcript_secrets import transcript_secret_values

__all__ = ["RETRY_POLICY", "profile_from_args", "register", "run"]

#: Retries for the command's model calls (tests swap in one that does not wait).
RETRY_POLICY = RetryPolicy()

_DEFAULTS: dict[str, dict[str, Any]] = {
    "openai": {"base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini",
               "key_env": "OPENAI_API_KEY", "context_window": 128_000},
    "anthropic": {"base_url": "https://api.anthropic.com", "model": "claude-sonnet-4-5",
                  "key_env": "ANTHROPIC_API_KEY", "context_window": 200_000},
    "local": {"base_url": "", "model": "", "key_env": None, "context_window": 8192,
              "max_output_tokens": 1024},
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("compact", help="summarize the old part of a transcript and audit it")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("--provider", choices=("offline", "openai", "anthropic", "local"),
                   default="offline", help="who writes the summary (default: offline)")
    p.add_argument("--model", help="model name (local: path of a .gguf file)")
    p.add_argument("--base-url", help="API base URL (OpenAI-compatible or Anthropic)")
    p.add_argument("--key-env", help="environment variable holding the API key ('' for none; "
                   "default none for a base URL on this machine)")
    p.add_argument("--summarizer-window", type=positive_int, metavar="N",
                   help="the summarizing model's own context window (default per provider)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds to wait for an answer (default 120)")
    p.add_argument("--fallback-offline", action="store_true",
                   help="if the model fails for good, summarize offline instead")
    p.add_argument("--instructions", default="", help="what the summary should focus on")
    p.add_argument("--template", choices=("structured", "safeguard"), default="structured")
    p.add_argument("--identifier-policy", choices=("strict", "off", "custom"), default="strict")
    p.add_argument("--identifier-instructions", default="",
                   help="the operator's identifier rules (with --identifier-policy custom)")
    p.add_argument("--identifier", action="append", metavar="ID",
                   help="with --identifier-policy custom: an identifier the summary must keep "
                        "(repeatable)")
    p.add_argument("--quality-retries", type=int, choices=range(0, 4), default=0, metavar="N",
                   help="regenerate up to N times (0-3) when the audit fails; the best is kept")
    add_settings_arguments(p)
    p.add_argument("--cut", metavar="ENTRY_ID", help="cut here (moved to the nearest valid point)")
    p.add_argument("--write", choices=("none", "successor", "append"), default="none",
                   help="none (default): print only; successor: new file + checkpoint; "
                        "append: add the compaction to FILE itself (for a session of "
                        "OpenClaw's SQLite store DB/SESSION: into the store, as OpenClaw's "
                        "compactor does, after a backup)")
    p.add_argument("--accept-failed-audit", action="store_true",
                   help="write even when the summary fails its audit (default: refuse, exit 3)")
    p.add_argument("--allow-second-successor", action="store_true",
                   help="write even when FILE already has a successor (default: refuse, "
                        "naming it: an agent session has one continuation)")
    p.add_argument("--keep-retry-copies", action="store_true",
                   help="successor: keep the unanswered copies of a prompt resent within "
                        f"{RETRY_WINDOW_MS // 1000} s (a retry storm); by default they are "
                        "left out")
    p.add_argument("--send-secrets", action="store_true",
                   help="send secrets found in the transcript to the provider as they are "
                        "(default: each is replaced by a [REDACTED:kind#n] placeholder)")
    p.add_argument("--summary-file", type=Path, metavar="S",
                   help="use the text of S as the summary (no provider is called); it is "
                        "audited and gated like a generated one")
    p.add_argument("--pin", action="append", metavar="ENTRY_ID",
                   help="pin an entry (repeatable; remembered for this session): before the "
                        "cut its text is carried into the summary verbatim and audited")
    add_basedir_arg(p)
    p.add_argument("--preview", action="store_true",
                   help="print exactly what would be sent to the model and exit (no model "
                        "call, nothing written)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def profile_from_args(args: argparse.Namespace) -> ProviderProfile:
    """The provider profile the flags describe (keys stay in the environment)."""
    if args.provider == "offline":
        return OFFLINE_PROFILE
    base = dict(_DEFAULTS[args.provider])
    for flag, key in (("model", "model"), ("base_url", "base_url"),
                      ("summarizer_window", "context_window")):
        value = getattr(args, flag, None)
        if value:
            base[key] = value
    if args.key_env is not None:  # "" means: send no key
        base["key_env"] = args.key_env or None
    elif args.base_url and urlsplit(args.base_url).hostname in ("127.0.0.1", "localhost", "::1"):
        base["key_env"] = None  # a server on this machine (Ollama, llama.cpp, LM Studio)
    if args.provider == "local" and base["key_env"] is None and args.base_url:
        raise ConfigError("--base-url does not apply to --provider local (it runs its own server)")
    return ProviderProfile(name=args.provider, kind=args.provider, timeout_s=args.timeout,
                           **base)


class _Bar:
    """A single-line progress display on stderr (only when stderr is a terminal)."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self.width = 0

    def __call__(self, e: ProgressEvent) -> None:
        if not self.live:
            return
        filled = int(20 * e.chunk_index / e.chunk_count) if e.chunk_count else 0
        line = (f"\r[{'#' * filled}{'.' * (20 - filled)}] {e.stage:<11} "
                f"chunk {e.chunk_index}/{e.chunk_count}  sent {e.tokens_sent:,} tok  "
                f"received {e.tokens_received:,} tok")
        if e.cost:
            line += f"  ${e.cost:.4f}"
        self.width = max(self.width, len(line))
        sys.stderr.write(line.ljust(self.width))
        sys.stderr.flush()

    def close(self) -> None:
        if self.live and self.width:
            sys.stderr.write("\n")


def _options(args: argparse.Namespace, pins: tuple[str, ...]) -> CompactionOptions:
    return CompactionOptions(
        instructions=args.instructions, template=args.template,
        identifier_policy=args.identifier_policy,
        custom_identifier_instructions=args.identifier_instructions,
        custom_identifiers=tuple(args.identifier or ()), quality_retries=args.quality_retries,
        send_secrets=args.send_secrets, pins=pins,
        write_mode="append" if args.write == "append" else "successor")


def _read_summary_file(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the summary file: {exc}") from exc


async def _run(args: argparse.Namespace, transcript: Transcript, plan: CompactionPlan,
               providers: list[Provider], bar: _Bar, secrets: list[str],
               options: CompactionOptions) -> CompactionOutcome:
    try:
        return await run_compaction(transcript, plan, providers, options, on_progress=bar,
                                    retry=RETRY_POLICY, known_secrets=secrets)
    except SummarizationCancelled:
        import asyncio  # loaded by compact()'s asyncio.run before this coroutine runs

        task = asyncio.current_task()
        if task is not None and task.cancelling():
            # Ctrl-C: asyncio.run turns an interrupted main task into KeyboardInterrupt,
            # which the CLI reports with exit code 130 (nothing has been written yet)
            raise asyncio.CancelledError from None
        raise
    finally:
        for provider in providers:
            close = getattr(provider, "close", None)
            if callable(close):
                close()


def _dry_run(transcript: Transcript, outcome: CompactionOutcome, mode: WriteMode,
             keep_retry_copies: bool) -> tuple[WritePlan | None, str | None]:
    """The write's dry run, or why there is none (a format SessionLens does not write)."""
    try:
        return prepare_write(transcript, outcome, mode,
                             keep_retry_copies=keep_retry_copies), None
    except PersistError as exc:
        return None, exc.reason  # the path is said once, by the error raised with it


def _preview(args: argparse.Namespace, transcript: Any, plan: Any,
             providers: list[Provider]) -> int:
    """``--preview``: the requests a model provider would receive, redacted as they would be."""
    parts = preview_prompts(
        transcript, plan, instructions=args.instructions, template=args.template,
        identifier_policy=args.identifier_policy,
        custom_identifier_instructions=args.identifier_instructions,
        send_secrets=args.send_secrets, known_values=provider_keys(providers))
    if args.provider == "offline":
        warn("note: the offline provider sends nothing anywhere; this is what a model "
             "provider would receive")
    if args.json:
        emit_json({"provider": args.provider, "send_secrets": args.send_secrets,
                   "requests": [{"label": p.label, "system": p.system, "prompt": p.prompt}
                                for p in parts]})
    else:
        emit_lines([f"===== {p.label} =====\n{p.text}" for p in parts])
    return 0


def run(args: argparse.Namespace) -> int:
    profile = profile_from_args(args)
    if args.send_secrets:
        warn("warning: --send-secrets: secrets in the transcript go to the provider unredacted")
    opened = open_transcript(args.file, overrides_from_args(args))
    transcript = opened.transcript
    if args.write != "none" and not args.preview:
        # refuse before spending a model call, not after: a format or mode SessionLens
        # cannot write, a lock another process holds, a continuation already written
        require_writable(transcript, args.write)
        database = store_writer(transcript.format)
        if database is not None:  # the agent's own holds on its database, not a .lock file
            database.check_free(transcript)
        else:
            check_lock(transcript.path)
            if not args.allow_second_successor:
                refuse_second_successor(transcript.path)  # checked again under the lock
    # pins first: remembered even when there turns out to be nothing to compact yet
    state = user_folders(args.basedir).state
    pinned = add_pins(transcript, args.pin, state) if args.pin else load_pins(transcript, state)
    plan = opened.plan(cut_entry_id=args.cut)
    figures = opened.figures(plan)
    options = _options(args, pinned.entry_ids)
    providers: list[Provider] = [build_provider(profile)]
    if args.preview:
        return _preview(args, transcript, plan, providers)
    if args.summary_file is not None:  # the user's own text: no provider, same audit
        outcome = user_summary_outcome(transcript, plan, _read_summary_file(args.summary_file),
                                       options)
    else:
        if args.fallback_offline and args.provider != "offline":
            providers.append(OfflineProvider())
        key = profile.read_key()
        bar = _Bar()
        try:
            import asyncio  # only this subcommand needs an event loop

            outcome = asyncio.run(_run(args, transcript, plan, providers, bar,
                                       [key] if key else [], options))
        finally:
            bar.close()
    result, report = outcome.result, outcome.audit
    mode: WriteMode = "successor" if args.write == "none" else args.write
    prepared, no_dry_run = _dry_run(transcript, outcome, mode, args.keep_retry_copies)
    if prepared is None and args.write != "none":
        raise PersistError(transcript.path, no_dry_run or "cannot be written")
    written: list[str] = []
    notes: tuple[str, ...] = ()
    refused: str | None = None
    if prepared is not None and args.write != "none":
        try:
            wrote = write_prepared(transcript, prepared,
                                   accept_failed_audit=args.accept_failed_audit,
                                   allow_second_successor=args.allow_second_successor)
            written, notes = [str(p) for p in wrote.written], wrote.notes
        except AuditGateError as exc:
            refused = str(exc)
    tokens_after = prepared.tokens_after if prepared is not None else outcome.tokens_after
    first_kept = (prepared.first_kept_entry_id if prepared is not None and written
                  else plan.first_kept_entry_id)
    dropped = prepared.dropped_retry_copies if prepared is not None else ()
    warnings = list(load_warnings(transcript, mode if written else None)) + \
        list(result.warnings) + list(notes)
    if outcome.quality.note:
        warnings.append(outcome.quality.note)
    if outcome.scrubbed:
        warnings.append("removed from the summary before auditing and writing: "
                        + ", ".join(sorted(set(outcome.scrubbed))))
    not_smaller = not_smaller_note(plan.tokens_before, tokens_after, len(report.summarized_entry_ids))
    if not_smaller is not None:
        warnings.append(not_smaller)
    for w in warnings:
        warn(f"warning: {w}")
    out = {
        "summary": result.summary,
        "audit": {**audit_report_dict(report), "headline": report.headline.as_dict(),
                  "kept_attempt": outcome.quality.kept_attempt,
                  "attempts": len(outcome.quality.attempts)},
        "first_kept_entry_id": first_kept,
        "cut_entry_id": plan.first_kept_entry_id,
        "entries_summarized": figures.entries_summarized,
        "tokens_before": plan.tokens_before,
        "tokens_after": tokens_after,
        "written": written,
        "write_plan": None if prepared is None else {
            "mode": prepared.mode, "files": [{"kind": f.kind, "path": str(f.path), "note": f.note}
                                             for f in prepared.files],
            "first_kept_entry_id": prepared.first_kept_entry_id,
            "entries_removed": prepared.entries_removed, "tokens_after": prepared.tokens_after},
        "refused": refused,
        "settings": settings_summary(opened),
        "dropped_retry_copies": [
            {"entry_id": c.entry_id, "line": c.line, "kept_entry_id": c.kept_entry_id,
             "reply_entry_ids": list(c.reply_entry_ids), "outcome": c.outcome,
             "gap_ms": c.gap_ms, "chars": c.chars, "preview": c.preview} for c in dropped],
        "summary_source": "file" if args.summary_file is not None else "provider",
        "provenance": outcome.provenance.as_details(),
        "pinned": {"entry_ids": list(pinned.entry_ids),
                   "in_summary": [p.entry_id for p in outcome.pinned],
                   "kept_after_cut": [i for i in pinned.entry_ids
                                      if i not in outcome.summarized_entry_ids]},
        "provider": result.provider, "model": result.model, "template": result.template,
        "identifier_policy": result.identifier_policy,
        "instructions": result.instructions, "focus_applied": report.focus_applied,
        "chunks": result.chunks,
        "stages": result.stages, "attempts": result.attempts,
        "usage": {"input_tokens": result.usage.input_tokens,
                  "output_tokens": result.usage.output_tokens, "cost": result.usage.cost},
        "warnings": warnings,
    }
    if refused is not None:
        warn(f"sessionlens compact: {refused}")
    # what the audit quotes of the span (identifiers, dropped specifics) may hold a secret
    # the transcript names in context: blanked on stdout as ``audit`` blanks it
    secrets = transcript_secret_values(opened.transcript)
    if args.json:
        emit_json(out, secrets)
        return 3 if refused is not None else 0
    attempts = (f" (kept attempt {outcome.quality.kept_attempt} of "
                f"{len(outcome.quality.attempts)})" if len(outcome.quality.attempts) > 1 else "")
    lines = [result.summary, "", f"audit{attempts}:", *(f"  {h}" for h in report.headline.lines)]
    lines += [f"  [{'ok' if c.passed else '!!'}] {c.name}: {c.detail}" for c in report.checks]
    lines.append(f"tokens: {FIGURE_LABELS['tokens_before']} {plan.tokens_before:,} -> "
                 f"{FIGURE_LABELS['tokens_after']} {tokens_after:,}  ({FIGURE_LABELS['first_kept_entry_id']} "
                 f"{first_kept or 'nothing: hard boundary'})")
    lines.append("written: " + (", ".join(written) if written else
                                "nothing (audit failed)" if refused else "nothing (--write none)"))
    if dropped:
        verb = "left out" if written else "a successor would leave out"
        lines.append(f"retry storm: {verb} {len(dropped)} unanswered cop"
                     f"{'y' if len(dropped) == 1 else 'ies'} ("
                     + ", ".join(f"{c.entry_id} {c.outcome}" for c in dropped)
                     + "; --keep-retry-copies keeps them)")
    emit_lines(lines, secrets)
    return 3 if refused is not None else 0
