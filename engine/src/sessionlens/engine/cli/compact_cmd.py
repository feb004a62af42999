"""``sessionlens compact FILE``: plan, summarize, audit and (optionally) write a compaction.

Planning, auditing and writing belong to their own modules; this command only wires them to
a provider chosen on the command line. A failed or cancelled run exits non-zero and writes
nothing. With ``--json`` it prints one object (DESIGN.md keys plus provider details); on a
terminal a one-line progress bar runs on stderr.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sessionlens.engine.cli.args import non_negative_int, positive_int
from sessionlens.engine.cli.output import emit_json, emit_lines, warn
from sessionlens.engine.compaction import (
    CompactionOptions,
    CompactionOutcome,
    compaction_record,
    run_compaction,
)
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.writer import check_lock, write_compaction
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS
from sessionlens.engine.summarize.providers import (
    OFFLINE_PROFILE,
    OfflineProvider,
    Provider,
    ProviderProfile,
    RetryPolicy,
    build_provider,
)
from sessionlens.engine.summarize.runner import ProgressEvent

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
    p.add_argument("--context-window", type=positive_int, metavar="N", help="the model's context window")
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
    p.add_argument("--keep-recent", type=non_negative_int, metavar="N", help="tokens to keep verbatim")
    p.add_argument("--write", choices=("none", "successor", "append"), default="none",
                   help="none (default): print only; successor: new file + checkpoint; "
                        "append: add the compaction to FILE itself")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def profile_from_args(args: argparse.Namespace) -> ProviderProfile:
    """The provider profile the flags describe (keys stay in the environment)."""
    if args.provider == "offline":
        return OFFLINE_PROFILE
    base = dict(_DEFAULTS[args.provider])
    for flag, key in (("model", "model"), ("base_url", "base_url"),
                      ("context_window", "context_window")):
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


async def _run(args: argparse.Namespace, transcript: Any, plan: Any,
               providers: list[Provider], bar: _Bar) -> CompactionOutcome:
    options = CompactionOptions(
        instructions=args.instructions, template=args.template,
        identifier_policy=args.identifier_policy,
        custom_identifier_instructions=args.identifier_instructions,
        custom_identifiers=tuple(args.identifier or ()), quality_retries=args.quality_retries)
    try:
        return await run_compaction(transcript, plan, providers, options, on_progress=bar,
                                    retry=RETRY_POLICY)
    finally:
        for provider in providers:
            close = getattr(provider, "close", None)
            if callable(close):
                close()


def run(args: argparse.Namespace) -> int:
    profile = profile_from_args(args)
    settings = DEFAULT_SETTINGS
    window = args.context_window or (profile.context_window if args.provider == "local" else None)
    if window:
        settings = replace(settings, context_window=window)
    transcript = load_transcript(args.file)
    if args.write != "none":
        check_lock(transcript.path)  # refuse before spending a model call, not after
    plan = plan_compaction(transcript, settings, manual=True, keep_recent_tokens=args.keep_recent)
    providers: list[Provider] = [build_provider(profile)]
    if args.fallback_offline and args.provider != "offline":
        providers.append(OfflineProvider())
    bar = _Bar()
    try:
        import asyncio  # only this subcommand needs an event loop

        outcome = asyncio.run(_run(args, transcript, plan, providers, bar))
    finally:
        bar.close()
    result, report, tokens_after = outcome.result, outcome.audit, outcome.tokens_after
    written = [] if args.write == "none" else [
        str(p) for p in write_compaction(transcript, compaction_record(outcome), args.write).written]
    warnings = list(result.warnings)
    if tokens_after >= plan.tokens_before:
        warnings.append(f"the compacted context (~{tokens_after:,} tokens) is not smaller than "
                        f"before ({plan.tokens_before:,}): this compaction saves nothing")
    for w in warnings:
        warn(f"warning: {w}")
    out = {
        "summary": result.summary,
        "audit": {"passed": report.passed, "checks": [c.as_dict() for c in report.checks],
                  "kept_attempt": outcome.quality.kept_attempt,
                  "attempts": len(outcome.quality.attempts)},
        "first_kept_entry_id": plan.first_kept_entry_id,
        "tokens_before": plan.tokens_before,
        "tokens_after": tokens_after,
        "written": written,
        "provider": result.provider, "model": result.model, "template": result.template,
        "identifier_policy": result.identifier_policy, "chunks": result.chunks,
        "stages": result.stages, "attempts": result.attempts,
        "usage": {"input_tokens": result.usage.input_tokens,
                  "output_tokens": result.usage.output_tokens, "cost": result.usage.cost},
        "warnings": warnings,
    }
    if args.json:
        emit_json(out)
        return 0
    verdict = "passed" if report.passed else "FAILED"
    if len(outcome.quality.attempts) > 1:
        verdict += (f" (kept attempt {outcome.quality.kept_attempt} of "
                    f"{len(outcome.quality.attempts)})")
    lines = [result.summary, "", f"audit: {verdict}"]
    lines += [f"  [{'ok' if c.passed else '!!'}] {c.name}: {c.detail}" for c in report.checks]
    lines.append(f"tokens: {plan.tokens_before:,} -> about {tokens_after:,}  "
                 f"(first kept {plan.first_kept_entry_id or 'nothing: hard boundary'})")
    lines.append("written: " + (", ".join(written) if written else "nothing (--write none)"))
    emit_lines(lines)
    return 0
