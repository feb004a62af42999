"""SessionLens engine: the Qt-free core (load, count, plan, summarize, audit, persist, export).

This module is the engine's public face: the GUI imports only the names listed in
``__all__`` (a test pins the list), type checkers see each one with its real type, and every
other name stays in its subpackage. The subpackages follow the data flow of DESIGN.md:

    load -> tokens -> plan -> summarize -> audit -> persist -> export
    (sessions: finding files on disk; lineage: a session's life across files;
     contract: what summarize and audit share; compaction: the one run both faces call;
     search: every session indexed and queried, each hit with what compaction did to it)

The face is lazy (PEP 562): a name's module is imported when the name is first asked for,
so a command that needs a fraction of the engine imports only that fraction (``inspect`` of a
small file spent 0.14 s of its 0.48 s importing modules it never used). Type checkers read
the imports under ``TYPE_CHECKING``; ``_HOMES`` says the same for the interpreter, and a test
holds the two and ``__all__`` to one list. Heavy dependencies (tiktoken's encodings, httpx,
asyncio) are likewise imported where they are first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._io.atomic import atomic_write_text
    from ._io.folders import user_folders
    from .audit.dropped import CLASS_TITLES, RecoveryPack, build_recovery_pack
    from .audit.headline import AuditHeadline
    from .audit.recorded import ChainAudit, audit_compaction_in_chain, audit_every_compaction
    from .audit.report import AuditReport, audit_compaction, audit_summary
    from .compaction import (
        CompactionOptions,
        CompactionOutcome,
        audit_edit,
        compaction_record,
        edited_outcome,
        prepare_write,
        run_compaction,
        tokens_after,
        write_prepared,
    )
    from .contract.pinned import PinPlace, place_pins
    from .contract.templates import IDENTIFIER_POLICIES, IdentifierPolicy
    from .errors import (
        AuditError,
        AuditGateError,
        ConfigError,
        ContextOverflowError,
        ExportError,
        FileChangedError,
        LoadCancelled,
        LoadError,
        LockHeldError,
        NotATranscriptError,
        NothingToCompact,
        PersistError,
        PlanError,
        ProviderAuthError,
        ProviderError,
        ProviderTimeoutError,
        ProviderUnavailableError,
        SecondSuccessorError,
        SessionLensError,
        SummarizationCancelled,
    )
    from .export.summary import (
        EXPORT_FORMATS,
        ExportFormat,
        bundle_for_compaction,
        export_schema,
        export_summary,
        make_bundle,
    )
    from .export.transcript import export_transcript
    from .fleet.aggregate import FleetReport, aggregate_fleet
    from .fleet.fleet_run import FleetRun, run_fleet
    from .fleet.report_html import write_fleet_html
    from .fleet.row_cache import RowCache
    from .fleet.rows import SessionFailure, SessionRow
    from .integrate.install import INTEGRATION_AGENTS, FileChange, apply_changes, plan_changes
    from .integrate.journal import (
        JournalEntry,
        JournalRead,
        entries_for,
        journal_path,
        read_journal,
    )
    from .integrate.journal_tail import (
        JournalTail,
        journal_compaction_id,
        journal_end,
        read_journal_since,
    )
    from .lineage.branches import BranchOutline, OutlineNode, branch_outline
    from .lineage.chain import build_chain, load_chain_transcripts
    from .lineage.diff import DiffEntry, LineageDiff, compare_points, point_transcript
    from .lineage.drift import DriftReport, SummaryPoint, analyze_drift
    from .lineage.forensics import CompactionForensics, analyze_compactions
    from .lineage.graph import Lineage, LineageNode, build_lineage
    from .lineage.memory_health import (
        HEALTH_FLAG_TEXT,
        CompactionHealth,
        MemoryHealth,
        examine_memory,
        memory_health,
    )
    from .lineage.trace import FactTrace, describe_trace, trace_fact
    from .live.board import IDLE_SECONDS, LiveBoard
    from .live.events import THRESHOLD_NEAR_FRACTION, LiveEvent, event_json
    from .live.gauge import LiveGauge
    from .live.preview import NextCut, next_cut
    from .load.reader import load_transcript
    from .load.tree import build_transcript, children_of
    from .model import Diagnostic, Entry, ImageBlock, Transcript
    from .opened import (
        FIGURE_LABELS,
        Figures,
        OpenedTranscript,
        Overrides,
        ResolvedSettings,
        Setting,
        config_for,
        open_transcript,
        resolve_settings,
        store_beside_for,
        store_window_for,
    )
    from .persist.checkpoints import CHECKPOINT_MARK
    from .persist.pins import PinSet, add_pins, load_pins, remove_pins
    from .persist.provenance import SummaryProvenance
    from .persist.record import CompactionRecord, PlannedFile, WritePlan, WriteResult
    from .persist.restore import RestorePlan, plan_restore, restore_checkpoint
    from .persist.store_write import find_store
    from .persist.successor import require_writable
    from .persist.undo import UndoPlan, plan_undo, undo_compaction
    from .persist.writer import WRITE_MODES, WriteMode, write_compaction
    from .plan.compaction_plan import CompactionPlan
    from .plan.overflow import is_context_overflow
    from .plan.planner import plan_compaction
    from .plan.pruning_delay import PruningDelay, pruning_delay
    from .plan.rerun import plan_rerun
    from .plan.rules import AGENT_NAMES
    from .search.embeddings import EmbeddingsClient
    from .search.fate import HitFate
    from .search.indexer import IndexStats
    from .search.query import SearchHit, SearchResults
    from .search.search_index import IndexSummary, SearchIndex, search_index_dir
    from .secrets import find_secrets, redact
    from .sessions.discovery import SessionInfo, default_session_dirs, discover_sessions
    from .settings import DEFAULT_SETTINGS, CompactionSettings, context_window_for_model
    from .summarize.outbound import redact_prompts
    from .summarize.prompts import TEMPLATES
    from .summarize.providers import OFFLINE_PROFILE, build_provider
    from .summarize.providers.base import (
        PROVIDER_KINDS,
        ChatMessage,
        Completion,
        CompletionRequest,
        DeltaCallback,
        Provider,
        ProviderKind,
        ProviderProfile,
    )
    from .summarize.providers.keys import keyring_available, store_api_key
    from .summarize.providers.offline import OfflineProvider
    from .summarize.providers.retry import RetryPolicy
    from .summarize.runner import (
        OutboundPrompt,
        ProgressEvent,
        SummaryResult,
        preview_prompts,
        summarize_plan,
    )
    from .summarize.serialize import serialize_entries
    from .tokens.counts import (
        ContextPoint,
        context_series,
        count_context_tokens,
        count_tokens,
        use_count_cache,
    )
    from .tokens.estimate import CHARS_PER_TOKEN
    from .tokens.outside import outside_transcript
    from .tokens.token_report import EntryTokens, TokenReport
    from .tokens.tokenizer import ENCODING_NAMES, ensure_tiktoken_data, get_encoding

__all__ = [
    # errors
    "AuditError", "AuditGateError", "ConfigError", "ContextOverflowError", "ExportError", "FileChangedError",
    "LoadCancelled", "LoadError", "LockHeldError", "NotATranscriptError", "NothingToCompact",
    "PersistError",
    "PlanError", "ProviderAuthError", "ProviderError", "ProviderTimeoutError",
    "ProviderUnavailableError", "SecondSuccessorError", "SessionLensError",
    "SummarizationCancelled",
    # model and settings
    "CompactionSettings", "DEFAULT_SETTINGS", "Diagnostic", "Entry", "ImageBlock", "Transcript",
    "context_window_for_model",
    # one opened transcript: settings resolved once, figures named once
    "FIGURE_LABELS", "Figures", "OpenedTranscript", "Overrides", "ResolvedSettings", "Setting",
    "config_for", "open_transcript", "resolve_settings", "store_beside_for",
    "store_window_for",
    # load, sessions
    "SessionInfo", "build_transcript", "children_of", "default_session_dirs",
    "discover_sessions", "load_transcript",
    # tokens
    "CHARS_PER_TOKEN", "ContextPoint", "ENCODING_NAMES", "EntryTokens", "TokenReport",
    "context_series", "count_context_tokens", "count_tokens", "ensure_tiktoken_data",
    "get_encoding", "outside_transcript", "use_count_cache",
    # plan
    "CompactionPlan", "is_context_overflow", "plan_compaction", "plan_rerun",
    "PruningDelay", "pruning_delay",
    # summarize
    "ChatMessage", "Completion", "CompletionRequest", "DeltaCallback", "IDENTIFIER_POLICIES",
    "IdentifierPolicy", "PROVIDER_KINDS", "ProviderKind",
    "OFFLINE_PROFILE", "OfflineProvider", "OutboundPrompt", "ProgressEvent", "Provider",
    "ProviderProfile", "RetryPolicy", "SummaryResult", "TEMPLATES", "build_provider",
    "find_secrets", "keyring_available", "preview_prompts", "redact", "serialize_entries",
    "store_api_key", "summarize_plan", "redact_prompts",
    # audit
    "AuditHeadline", "AuditReport", "CLASS_TITLES", "RecoveryPack", "audit_compaction", "audit_summary",
    "build_recovery_pack", "ChainAudit", "audit_every_compaction",
    "audit_compaction_in_chain",
    # the compaction run
    "CompactionOptions", "CompactionOutcome", "PlannedFile", "WritePlan", "compaction_record",
    "prepare_write", "run_compaction", "tokens_after", "write_prepared",
    # pins, edited summaries, provenance, undo
    "PinPlace", "PinSet", "SummaryProvenance", "UndoPlan", "add_pins", "audit_edit",
    "edited_outcome", "load_pins", "place_pins", "plan_undo", "remove_pins", "undo_compaction",
    # persist
    "CHECKPOINT_MARK", "CompactionRecord", "WRITE_MODES", "WriteMode", "WriteResult", "atomic_write_text", "find_store",
    "require_writable", "restore_checkpoint", "RestorePlan", "plan_restore", "write_compaction",
    # where SessionLens keeps its own files
    "user_folders",
    # export
    "EXPORT_FORMATS", "ExportFormat", "export_schema", "export_summary", "make_bundle",
    "export_transcript", "bundle_for_compaction",
    # lineage
    "BranchOutline", "CompactionForensics", "DiffEntry", "DriftReport", "Lineage",
    "LineageDiff", "LineageNode", "OutlineNode", "SummaryPoint", "analyze_compactions",
    "analyze_drift", "branch_outline", "build_lineage", "build_chain",
    "compare_points", "point_transcript", "FactTrace", "describe_trace", "trace_fact",
    "load_chain_transcripts",
    "CompactionHealth", "HEALTH_FLAG_TEXT", "MemoryHealth", "examine_memory", "memory_health",
    # live: sessions followed while they are written
    "IDLE_SECONDS", "LiveBoard", "LiveEvent", "LiveGauge", "NextCut", "THRESHOLD_NEAR_FRACTION",
    "event_json", "next_cut", "AGENT_NAMES",
    # fleet memory health: every session audited at once (serially or on Dask)
    "FleetReport", "FleetRun", "RowCache", "SessionFailure", "SessionRow", "aggregate_fleet",
    "run_fleet", "write_fleet_html",
    # search
    "EmbeddingsClient", "HitFate", "IndexStats", "IndexSummary", "SearchHit", "SearchIndex",
    "SearchResults", "search_index_dir",
    # the agents' own compactions, as their integrations journaled them
    "JournalEntry", "JournalRead", "entries_for", "read_journal", "journal_path",
    "JournalTail", "journal_compaction_id", "journal_end", "read_journal_since",
    "INTEGRATION_AGENTS", "FileChange", "apply_changes", "plan_changes",
]

#: Where each public name lives: module (relative to this package) -> names. The same
#: imports as above, for the interpreter; ``__getattr__`` imports a module the first time
#: one of its names is asked for.
_HOMES: dict[str, tuple[str, ...]] = {
    "._io.atomic": ("atomic_write_text",),
    "._io.folders": ("user_folders",),
    ".audit.dropped": ("CLASS_TITLES", "RecoveryPack", "build_recovery_pack"),
    ".audit.headline": ("AuditHeadline",),
    ".audit.recorded": ("ChainAudit", "audit_compaction_in_chain", "audit_every_compaction"),
    ".audit.report": ("AuditReport", "audit_compaction", "audit_summary"),
    ".live.board": ("IDLE_SECONDS", "LiveBoard"),
    ".live.events": ("THRESHOLD_NEAR_FRACTION", "LiveEvent", "event_json"),
    ".live.gauge": ("LiveGauge",),
    ".live.preview": ("NextCut", "next_cut"),
    ".integrate.journal": ("JournalEntry", "JournalRead", "entries_for", "journal_path",
                           "read_journal"),
    ".integrate.journal_tail": ("JournalTail", "journal_compaction_id", "journal_end",
                                "read_journal_since"),
    ".integrate.install": ("INTEGRATION_AGENTS", "FileChange", "apply_changes",
                           "plan_changes"),
    ".compaction": (
        "CompactionOptions", "CompactionOutcome", "audit_edit", "compaction_record",
        "edited_outcome", "prepare_write", "run_compaction", "tokens_after", "write_prepared",
    ),
    ".contract.pinned": ("PinPlace", "place_pins"),
    ".contract.templates": ("IDENTIFIER_POLICIES", "IdentifierPolicy"),
    ".errors": (
        "AuditError", "AuditGateError", "ConfigError", "ContextOverflowError", "ExportError",
        "FileChangedError", "LoadCancelled", "LoadError", "LockHeldError", "NotATranscriptError",
        "NothingToCompact", "PersistError", "PlanError", "ProviderAuthError", "ProviderError",
        "ProviderTimeoutError", "ProviderUnavailableError", "SecondSuccessorError",
        "SessionLensError", "SummarizationCancelled",
    ),
    ".export.summary": (
        "EXPORT_FORMATS", "ExportFormat", "bundle_for_compaction", "export_schema",
        "export_summary", "make_bundle",
    ),
    ".export.transcript": ("export_transcript",),
    ".fleet.aggregate": ("FleetReport", "aggregate_fleet"),
    ".fleet.report_html": ("write_fleet_html",),
    ".fleet.row_cache": ("RowCache",),
    ".fleet.rows": ("SessionFailure", "SessionRow"),
    ".fleet.fleet_run": ("FleetRun", "run_fleet"),
    ".lineage.branches": ("BranchOutline", "OutlineNode", "branch_outline"),
    ".lineage.chain": ("build_chain", "load_chain_transcripts"),
    ".lineage.diff": ("DiffEntry", "LineageDiff", "compare_points", "point_transcript"),
    ".lineage.drift": ("DriftReport", "SummaryPoint", "analyze_drift"),
    ".lineage.forensics": ("CompactionForensics", "analyze_compactions"),
    ".lineage.graph": ("Lineage", "LineageNode", "build_lineage"),
    ".lineage.memory_health": (
        "HEALTH_FLAG_TEXT", "CompactionHealth", "MemoryHealth", "examine_memory", "memory_health",
    ),
    ".lineage.trace": ("FactTrace", "describe_trace", "trace_fact"),
    ".load.reader": ("load_transcript",),
    ".load.tree": ("build_transcript", "children_of"),
    ".model": ("Diagnostic", "Entry", "ImageBlock", "Transcript"),
    ".opened": (
        "FIGURE_LABELS", "Figures", "OpenedTranscript", "Overrides", "ResolvedSettings", "Setting",
        "config_for", "open_transcript", "resolve_settings", "store_beside_for", "store_window_for",
    ),
    ".persist.checkpoints": ("CHECKPOINT_MARK",),
    ".persist.pins": ("PinSet", "add_pins", "load_pins", "remove_pins"),
    ".persist.provenance": ("SummaryProvenance",),
    ".persist.record": ("CompactionRecord", "PlannedFile", "WritePlan", "WriteResult"),
    ".persist.restore": ("RestorePlan", "plan_restore", "restore_checkpoint"),
    ".persist.store_write": ("find_store",),
    ".persist.successor": ("require_writable",),
    ".persist.undo": ("UndoPlan", "plan_undo", "undo_compaction"),
    ".persist.writer": ("WRITE_MODES", "WriteMode", "write_compaction"),
    ".plan.overflow": ("is_context_overflow",),
    ".plan.compaction_plan": ("CompactionPlan",),
    ".plan.planner": ("plan_compaction",),
    ".plan.pruning_delay": ("PruningDelay", "pruning_delay"),
    ".plan.rerun": ("plan_rerun",),
    ".plan.rules": ("AGENT_NAMES",),
    ".search.embeddings": ("EmbeddingsClient",),
    ".search.fate": ("HitFate",),
    ".search.indexer": ("IndexStats",),
    ".search.query": ("SearchHit", "SearchResults"),
    ".search.search_index": ("IndexSummary", "SearchIndex", "search_index_dir"),
    ".secrets": ("find_secrets", "redact"),
    ".sessions.discovery": ("SessionInfo", "default_session_dirs", "discover_sessions"),
    ".settings": ("DEFAULT_SETTINGS", "CompactionSettings", "context_window_for_model"),
    ".summarize.outbound": ("redact_prompts",),
    ".summarize.prompts": ("TEMPLATES",),
    ".summarize.providers": ("OFFLINE_PROFILE", "build_provider"),
    ".summarize.providers.base": (
        "PROVIDER_KINDS", "ChatMessage", "Completion", "CompletionRequest", "DeltaCallback",
        "Provider", "ProviderKind", "ProviderProfile",
    ),
    ".summarize.providers.keys": ("keyring_available", "store_api_key"),
    ".summarize.providers.offline": ("OfflineProvider",),
    ".summarize.providers.retry": ("RetryPolicy",),
    ".summarize.runner": (
        "OutboundPrompt", "ProgressEvent", "SummaryResult", "preview_prompts", "summarize_plan",
    ),
    ".summarize.serialize": ("serialize_entries",),
    ".tokens.counts": (
        "ContextPoint", "context_series", "count_context_tokens", "count_tokens",
        "use_count_cache",
    ),
    ".tokens.estimate": ("CHARS_PER_TOKEN",),
    ".tokens.outside": ("outside_transcript",),
    ".tokens.token_report": ("EntryTokens", "TokenReport"),
    ".tokens.tokenizer": ("ENCODING_NAMES", "ensure_tiktoken_data", "get_encoding"),
}

if not TYPE_CHECKING:  # type checkers see the real imports above, not a catch-all
    import importlib

    _HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

    def __getattr__(name: str) -> object:
        module = _HOME_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value  # asked once: later lookups never come back here
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
