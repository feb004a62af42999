"""How big the agent's context is: which rows replay as messages, the per-row estimates a
cut rule reads (measured lazily), pi's ``estimateContextTokens`` and the context window the
agent worked with. Pure; the planner (``plan.planner``) builds every figure from these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from sessionlens.engine.model import Entry, SessionHeader
from sessionlens.engine.settings import CompactionSettings, context_window_for_model
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars, measure_entry
from sessionlens.engine.tokens.token_report import TokenReport

from .cutpoints import usage_context

__all__ = ["RowEstimates", "context_window_of", "estimate_context_tokens", "is_message_entry",
           "recorded_window"]

#: Entries that replay as a message (pi ``getMessageFromEntry``).
_MESSAGE_TYPES = frozenset({"message", "custom_message", "branch_summary"})


def is_message_entry(entry: Entry) -> bool:
    """True for entries the model sees as a message (excluded bash runs are not sent)."""
    if entry.type not in _MESSAGE_TYPES:
        return False
    return entry.message is None or not entry.message.exclude_from_context


def estimate_context_tokens(entries: Sequence[Entry], estimates: Sequence[int],
                            summary_tokens: int = 0) -> int:
    """pi ``estimateContextTokens``: the last valid reported usage plus estimates after it.

    Without any usage, the sum of estimates (plus ``summary_tokens`` for a previous summary).
    """
    trailing = 0
    for i in range(len(entries) - 1, -1, -1):
        usage = usage_context(entries[i])
        if usage is not None:
            return usage + trailing
        if entries[i].type in _MESSAGE_TYPES:
            trailing += estimates[i]
    return summary_tokens + trailing


def recorded_window(entries: Sequence[Entry]) -> tuple[int, Entry] | None:
    """The newest window the file itself records (an entry's ``extra["context_window"]``,
    e.g. Codex's ``model_context_window``) and the entry that records it, or None."""
    for entry in reversed(entries):
        value = entry.extra.get("context_window")
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value, entry
    return None


def context_window_of(entries: Sequence[Entry], settings: CompactionSettings,
                      header: SessionHeader | None = None) -> int:
    """The window the agent worked with at the end of ``entries``: the settings' override,
    else the newest window the file records (an entry's ``extra["context_window"]``, e.g.
    Codex's ``model_context_window``), else the model of the last real assistant turn or
    model change, else the header's."""
    if settings.context_window:
        return int(settings.context_window)
    recorded = recorded_window(entries)
    if recorded is not None:
        return recorded[0]
    provider = model = None
    for entry in reversed(entries):
        msg = entry.message
        # Claude Code marks locally made assistant rows (API errors) with "<synthetic>"
        if msg is not None and msg.role == "assistant" and msg.model and msg.model[0] != "<":
            provider, model = msg.provider, msg.model
            break
        if entry.type == "model_change" and entry.model_id:
            provider, model = entry.provider, entry.model_id
            break
    if model is None and header is not None:
        provider, model = header.provider, header.model_id
    return context_window_for_model(provider, model)


class RowEstimates(Sequence[int]):
    """One estimator's per-row estimates for ``path``, measured only when a rule reads them
    (a plan reads the region and the replayed context, rarely the whole path)."""

    def __init__(self, path: Sequence[Entry], tokens: TokenReport | None, rules: str) -> None:
        self._path = path
        self._known = tokens.entries if tokens is not None else None
        self._pi = rules == "pi"
        self._memo: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._path)

    def _one(self, i: int) -> int:
        hit = self._memo.get(i)
        if hit is not None:
            return hit
        entry = self._path[i]
        known = self._known.get(entry.id) if self._known is not None else None
        if known is not None:
            value = known.estimate_pi if self._pi else known.estimate_openclaw
        else:
            _, pi_chars, oc_chars, _ = measure_entry(entry)
            value = estimate_tokens_from_chars(pi_chars if self._pi else oc_chars)
        self._memo[i] = value
        return value

    @overload
    def __getitem__(self, i: int) -> int: ...
    @overload
    def __getitem__(self, i: slice) -> list[int]: ...
    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            return [self._one(k) for k in range(*i.indices(len(self._path)))]
        return self._one(i if i >= 0 else len(self._path) + i)
