"""Did the memory flush run before each compaction? ("why did my agent forget?", part two)

OpenClaw runs the flush once per compaction cycle, before a turn, when the context has reached
a soft threshold ``softThresholdTokens`` below the compaction threshold (or the active
transcript has reached ``forceFlushTranscriptBytes``). Users lose memories when it does not:
the context jumped past both thresholds in one turn so the compaction came first, the flush
never ran at all, or a counter bug made it skip every other cycle (OpenClaw #12590: a flush
whose turn also compacted stamped the new cycle as flushed). It is skipped on purpose when
disabled, on CLI backends and in read-only sandboxes, and there is none outside OpenClaw
(pi's own v1/v2 files, Claude Code, Codex).

Each cycle (the stretch of the active path that ends with a compaction, plus the open one
after the last) gets a verdict: ``ran``, ``skipped`` (and why), ``missed`` (and how), or for
the open cycle ``due`` / ``not-due``. The context at each turn start is projected as OpenClaw
sees it: the last usage the provider reported in the cycle plus estimates since; before the
cycle's first usage, the estimate of the replayed context plus the system-prompt overhead
the last usage showed. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.plan.cutpoints import usage_context
from sessionlens.engine.plan.planner import context_window_of
from sessionlens.engine.plan.rules import pi_evidence
from sessionlens.engine.sessions.store import StoreRecord
from sessionlens.engine.sessions.store_guard import kept_bytes, row_bytes
from sessionlens.engine.sessions.store_row import is_store_session
from sessionlens.engine.sessions.store_row import store_record as row_record
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars
from sessionlens.engine.tokens.series import context_tokens_each

from .flush_turns import FlushTurn, StoreFlushRecord, find_flush_turns, store_flush_record
from .forensics import analyze_compactions

if TYPE_CHECKING:
    from sessionlens.engine.settings import CompactionSettings
    from sessionlens.engine.tokens.token_report import TokenReport

__all__ = ["CLI_PROVIDER_SUFFIX", "FLUSH_REASON_TEXT", "FlushCycle", "FlushPattern",
           "FlushReason", "FlushStatus", "MemoryFlushReport", "analyze_memory_flush",
           "flush_threshold"]

FlushStatus = Literal["ran", "skipped", "missed", "due", "not-due", "unknown"]
FlushReason = Literal["not-openclaw", "disabled", "cli-backend", "read-only-workspace",
                      "below-soft-threshold", "compaction-before-flush", "flush-never-ran",
                      "flush-every-other-cycle"]
FlushPattern = Literal["every-other-cycle", "never-ran"]

#: Readable words for each reason (the audit prints them; the GUI may too).
FLUSH_REASON_TEXT: dict[str, str] = {
    "not-openclaw": "not an OpenClaw transcript (only OpenClaw runs a memory flush)",
    "disabled": "memoryFlush.enabled is false",
    "cli-backend": "CLI backend (OpenClaw runs no flush there)",
    "read-only-workspace": "read-only workspace (sandbox workspaceAccess is not \"rw\")",
    "below-soft-threshold": "below the soft threshold",
    "compaction-before-flush": "compaction fired before the flush",
    "flush-never-ran": "flush never ran",
    "flush-every-other-cycle": "flush every other cycle",
}
#: OpenClaw's CLI backends are providers named ``claude-cli``, ``codex-cli``, ...
CLI_PROVIDER_SUFFIX = "-cli"


@dataclass(frozen=True, slots=True)
class FlushCycle:
    """One compaction cycle and what the flush did in it."""

    #: 1-based; cycle N ends with the N-th compaction of the active path.
    index: int
    #: The compaction that closes the cycle; None for the open cycle after the last one.
    compaction_id: str | None
    #: Forensics' trigger of that compaction ("threshold", "manual", ...).
    compaction_trigger: str | None
    start_entry_id: str | None
    status: FlushStatus
    reason: FlushReason | None
    #: One readable sentence with the numbers.
    detail: str
    #: Prompt entry ids of the flush turns in this cycle.
    flush_turn_ids: tuple[str, ...]
    #: The first turn start at which the flush was due (None when it never was).
    due_entry_id: str | None
    #: The highest projected context in the cycle.
    peak_tokens: int
    #: Projected context just before the (first) flush turn.
    tokens_at_flush: int | None


@dataclass(frozen=True, slots=True)
class MemoryFlushReport:
    """The flush across a transcript: settings, turns, the store's record, every cycle."""

    enabled: bool
    context_window: int
    #: Where the window came from: "settings", "store" (``contextTokens``) or "model".
    window_source: str
    compaction_threshold: int
    #: The margin in force (``softThresholdTokens``, capped at half the room under the
    #: threshold as the newest OpenClaw does).
    soft_threshold_tokens: int
    #: The context level at which the flush runs: compaction threshold - margin.
    soft_threshold: int
    force_flush_bytes: int
    turns: tuple[FlushTurn, ...]
    store: StoreFlushRecord | None
    cycles: tuple[FlushCycle, ...]
    pattern: FlushPattern | None
    #: The format of the file: only OpenClaw runs a memory flush at all.
    transcript_format: str = "openclaw-v3"

    @property
    def applies(self) -> bool:
        """Whether the agent that wrote the file has a memory flush (OpenClaw only)."""
        return self.transcript_format in ("openclaw-v3", "openclaw-sqlite")

    @property
    def headline(self) -> str:
        """The flush in one phrase, as every face says it: never "on" for an agent that has
        no memory flush."""
        if not self.applies:
            return (f"not an OpenClaw session: no memory flush (a {self.transcript_format} "
                    "transcript)")
        return (f"{'on' if self.enabled else 'off'}; runs at ~{self.soft_threshold:,} tokens "
                f"({self.soft_threshold_tokens:,} below the threshold "
                f"{self.compaction_threshold:,})")

    @property
    def turn_ids(self) -> tuple[str, ...]:
        return tuple(t.prompt_entry_id for t in self.turns)


def flush_threshold(settings: CompactionSettings, window: int) -> tuple[int, int]:
    """(margin, level): the soft margin in force and the context level the flush runs at.

    OpenClaw subtracts the margin from ``window - reserveTokensFloor`` (not from the raised
    reserve), so a ``reserveTokens`` above the floor puts the flush after the compaction."""
    floor = replace(settings, reserve_tokens=0).reserve_for(window)
    room = max(0, window - floor)
    margin = min(settings.memory_flush_soft_threshold_tokens, room // 2)
    return margin, max(0, room - margin)


def _skip_reason(transcript: Transcript, settings: CompactionSettings,
                 providers: Sequence[str], session_key: str | None) -> FlushReason | None:
    if transcript.format not in ("openclaw-v3", "openclaw-sqlite"):  # pi, Claude Code, ...
        return "not-openclaw"
    if pi_evidence(transcript) is not None:  # a v3 file pi wrote: pi has no memory flush
        return "not-openclaw"
    if not settings.memory_flush_enabled:
        return "disabled"
    if providers and all(p.endswith(CLI_PROVIDER_SUFFIX) for p in providers):
        return "cli-backend"
    mode = settings.sandbox_mode
    sandboxed = mode == "all" or (mode == "non-main" and session_key is not None
                                  and not session_key.endswith(":main"))
    if sandboxed and (settings.sandbox_workspace_access or "none") != "rw":
        return "read-only-workspace"
    return None


@dataclass(slots=True)
class _Cycle:
    start: int
    end: int  # index of the closing compaction, or len(path)
    #: (path index of a user message, projected tokens and active bytes just before it)
    turn_starts: list[tuple[int, int, int]]
    peak: int = 0


def _walk(transcript: Transcript, path: Sequence[Entry], tokens: TokenReport | None
          ) -> list[_Cycle]:
    """Cycles of the path with the projected context at each turn start (see module doc)."""

    est = context_tokens_each(transcript, path, tokens)
    # OpenClaw 2026.8+ (header version 4) counts the pending prompt before inference
    preflight = transcript.header is not None and transcript.header.version >= 4 \
        and transcript.format in ("openclaw-v3", "openclaw-sqlite")
    cycles = [_Cycle(0, len(path), [])]
    store = is_store_session(transcript)  # OpenClaw 2026.9 measures its active SQLite history
    context = overhead = projected = at_usage = window_bytes = 0
    usage: int | None = None
    position = {e.id: i for i, e in enumerate(path)}
    for i, entry in enumerate(path):
        cycle = cycles[-1]
        if entry.type in ("compaction", "reset"):
            cycle.end = i
            if preflight:  # compacted before the pending prompt: its turn start was here
                nxt = next((j for j in range(i + 1, min(i + 6, len(path)))
                            if path[j].message is not None), None)
                if nxt is not None and path[nxt].role == "user":
                    cycle.turn_starts.append((nxt, projected + est[nxt], window_bytes))
                    cycle.peak = max(cycle.peak, projected + est[nxt])
            kept_from = position.get(entry.first_kept_entry_id or "", i)
            kept = path[kept_from:i] if entry.type == "compaction" and kept_from < i else ()
            context = estimate_tokens_from_chars(len(entry.summary or "")) + (
                sum(est[kept_from:i]) if kept else 0)
            window_bytes = kept_bytes(kept, entry) if store else sum(
                e.length + 1 for e in (*kept, entry))
            usage, projected = None, overhead + context
            cycles.append(_Cycle(i + 1, len(path), []))
            continue
        if entry.type == "message" and entry.role == "user":
            cycle.turn_starts.append((i, projected + (est[i] if preflight else 0),
                                      window_bytes))
        context += est[i]
        window_bytes += row_bytes(entry) if store else entry.length + 1
        reported = usage_context(entry)
        if reported is not None:
            usage, at_usage, overhead = reported, context, max(0, reported - context)
        projected = usage + context - at_usage if usage is not None else overhead + context
        cycle.peak = max(cycle.peak, projected)
    return cycles


def _verdict(c: _Cycle, path: Sequence[Entry], flush_at: dict[int, FlushTurn],
             level: int, force_bytes: int, skip: FlushReason | None, skip_detail: str,
             previous: FlushStatus | None, is_open: bool
             ) -> tuple[FlushStatus, FlushReason | None, str, int | None, int | None]:
    """(status, reason, detail, due index, tokens at flush) for one cycle."""
    before = {i: t for i, t, _ in c.turn_starts if i in flush_at}
    if before:
        first = min(before)
        return ("ran", None, f"flush turn {path[first].id} ran at ~{before[first]:,} tokens "
                f"(soft threshold {level:,})", None, before[first])
    if skip is not None:
        return "skipped", skip, skip_detail, None, None
    due = next(((i, t, b) for i, t, b in c.turn_starts if t >= level or b >= force_bytes), None)
    if due is not None:
        i, t, b = due
        why = (f"~{t:,} tokens, soft threshold {level:,}" if t >= level
               else f"active transcript {b:,} bytes, forceFlushTranscriptBytes {force_bytes:,}")
        if previous == "ran":
            return ("missed", "flush-every-other-cycle",
                    f"due from {path[i].id} on ({why}); the previous cycle's flush was counted "
                    "for this one too (OpenClaw #12590)", i, None)
        return ("missed", "flush-never-ran",
                f"due from {path[i].id} on ({why}); no flush turn in the cycle", i, None)
    if is_open:
        # the peak of OpenClaw's own projection at turn starts, not the context shown beside
        # it (the reported / exact / estimate figures): say which, so the two never read as
        # two values of one number
        if c.peak >= level:
            return ("due", None, f"the context the flush projects (last reported usage plus "
                    f"estimates since) reached ~{c.peak:,}, past the soft threshold {level:,}: "
                    "the flush runs before the next turn", None, None)
        return ("not-due", None, f"the context the flush projects (last reported usage plus "
                f"estimates since) peaked at ~{c.peak:,} in this cycle, below the soft "
                f"threshold {level:,}", None, None)
    if c.peak >= level:
        start = c.turn_starts[-1][1] if c.turn_starts else 0
        return ("missed", "compaction-before-flush",
                f"context went from ~{start:,} at the last turn start (under the soft "
                f"threshold {level:,}) to ~{c.peak:,} within one turn, and the compaction "
                "came before the next turn could flush", None, None)
    return ("skipped", "below-soft-threshold",
            f"context peaked at ~{c.peak:,}, below the soft threshold {level:,}", None, None)


def _row_verdict(n: int, is_open: bool, store: StoreFlushRecord, status: FlushStatus,
                 reason: FlushReason | None, detail: str
                 ) -> tuple[FlushStatus, FlushReason | None, str]:
    """A cycle of a SQLite-store session: OpenClaw 2026.8+ writes no flush turn into the
    transcript; the session row's ``memoryFlush.compactionCount`` says in which cycle the
    last flush ran (the compaction count then: cycle ``count + 1``), and nothing tells of
    the flushes before it."""
    flushed = store.memory_flush_compaction_count
    if flushed is not None and flushed + 1 == n and store.kind != "failed":
        return ("ran", None, f"the session row records the flush of this cycle (memoryFlush "
                f"{store.kind or 'ran'} at compaction count {flushed}); OpenClaw 2026.8+ keeps "
                "no flush turn in the transcript")
    detail = detail.removesuffix("; no flush turn in the cycle")
    if status == "missed" and is_open:
        return ("due", None, f"{detail}; the session row records no flush in this cycle yet "
                f"(memoryFlush at compaction count {flushed}, compactionCount "
                f"{store.compaction_count}): it runs before the next turn")
    if status == "missed":
        last = f"in cycle {flushed + 1}" if flushed is not None else "ever"
        return ("unknown", None, f"{detail}; but OpenClaw 2026.8+ keeps no flush turn in the "
                f"transcript and its session row records only the last flush ({last}), so "
                "whether one ran here is not recorded")
    return status, reason, detail


def _pattern(cycles: Sequence[FlushCycle], turns: Sequence[FlushTurn]) -> FlushPattern | None:
    closed = [c.status for c in cycles if c.compaction_id is not None]
    runs = [s for s in closed if s in ("ran", "missed")]
    if len(runs) >= 3 and all(a != b for a, b in zip(runs, runs[1:], strict=False)):
        return "every-other-cycle"
    if not turns and any(c.status == "missed" for c in cycles):
        return "never-ran"
    return None


def analyze_memory_flush(transcript: Transcript, settings: CompactionSettings, *,
                         store_record: StoreRecord | None = None,
                         tokens: TokenReport | None = None,
                         window_source: str | None = None) -> MemoryFlushReport:
    """The flush in every compaction cycle of the active path.

    ``store_record`` is the session's ``sessions.json`` record (``flush_store.session_record``);
    its ``contextTokens`` is the window when the settings do not fix one, since OpenClaw
    wrote it for this very session. ``window_source`` names where a window already in the
    settings came from (``opened.resolve_settings`` decides it once, with its source)."""
    path = transcript.path_entries()
    turns = find_flush_turns(transcript, settings.memory_flush_prompt)
    if store_record is None:  # OpenClaw 2026.8+: the session row of the SQLite store
        store_record = row_record(transcript)
    store = store_flush_record(store_record, turns) if store_record is not None else None
    if settings.context_window:
        window, source = int(settings.context_window), window_source or "settings"
    elif store is not None and store.context_window:
        window, source = store.context_window, "store"
    else:
        window, source = context_window_of(path, settings, transcript.header), "model"
    margin, level = flush_threshold(settings, window)
    by_prompt: dict[str, FlushTurn] = {}
    for turn in turns:  # the last turn per prompt, as the scan over every pair kept
        by_prompt[turn.prompt_entry_id] = turn
    flush_at = {i: by_prompt[e.id] for i, e in enumerate(path) if e.id in by_prompt}
    triggers = {f.compaction_id: f.trigger
                for f in analyze_compactions(transcript, replace(settings, context_window=window),
                                             tokens)}
    providers = [e.message.provider for e in path if e.message is not None
                 and e.message.role == "assistant" and e.message.provider]
    skip = _skip_reason(transcript, settings, providers,
                        store.session_key if store is not None else None)
    skip_text = {
        "not-openclaw": f"a pi transcript ({pi_evidence(transcript)}); pi runs no memory flush"
                        if pi_evidence(transcript) is not None
                        else f"a {transcript.format} transcript",
        "disabled": "agents.defaults.compaction.memoryFlush.enabled is false",
        "cli-backend": f"the agent ran on {providers[-1] if providers else 'a CLI backend'}",
        "read-only-workspace": f"sandbox mode {settings.sandbox_mode}, workspaceAccess "
                               f"{settings.sandbox_workspace_access or 'none'}",
    }.get(skip or "", "")
    out: list[FlushCycle] = []
    row_session = transcript.format == "openclaw-sqlite" and skip is None
    walked = _walk(transcript, path, tokens)
    for n, c in enumerate(walked, 1):
        is_open = c.end >= len(path)
        if is_open and c.start >= len(path):
            break  # the path ends with a compaction (or is empty): no open cycle yet
        previous = out[-1].status if out and not row_session else None
        status, reason, detail, due, at = _verdict(
            c, path, flush_at, level, settings.memory_flush_force_transcript_bytes, skip,
            skip_text, previous, is_open)
        if row_session and status in ("missed", "skipped") and store is not None:
            status, reason, detail = _row_verdict(n, is_open, store, status, reason, detail)
        comp = None if is_open else path[c.end]
        out.append(FlushCycle(
            index=n, compaction_id=comp.id if comp is not None else None,
            compaction_trigger=triggers.get(comp.id) if comp is not None else None,
            start_entry_id=path[c.start].id if c.start < len(path) else None,
            status=status, reason=reason, detail=detail,
            flush_turn_ids=tuple(flush_at[i].prompt_entry_id for i, _, _ in c.turn_starts
                                 if i in flush_at),
            due_entry_id=path[due].id if due is not None else None,
            peak_tokens=c.peak, tokens_at_flush=at))
    return MemoryFlushReport(
        enabled=settings.memory_flush_enabled, context_window=window, window_source=source,
        compaction_threshold=settings.threshold(window), soft_threshold_tokens=margin,
        soft_threshold=level, force_flush_bytes=settings.memory_flush_force_transcript_bytes,
        turns=turns, store=store, cycles=tuple(out),
        pattern=None if row_session and store is not None and store.kind is not None
        else _pattern(out, turns),
        transcript_format=transcript.format)

