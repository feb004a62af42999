"""What a token count of one transcript says: per-entry counts and context totals
(``TokenReport``), made by ``counts`` and read by the series, the planner and the faces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["CountScope", "EntryTokens", "TokenReport"]

#: Which entries a report counted exactly: the replayed context only, or the whole file.
CountScope = Literal["context", "file"]


@dataclass(frozen=True, slots=True)
class EntryTokens:
    """Tokens of one entry by each method (0 for entries the model never sees)."""

    estimate_pi: int
    estimate_openclaw: int
    exact: int


@dataclass(frozen=True, slots=True)
class TokenReport:
    """Per-entry counts and context totals of one transcript under one encoding.

    The context figures are always complete. The whole-file figures (``exact_total``,
    ``by_role``, ``by_type``) are None when ``scope`` is "context": not counted yet, which
    is not the same as 0.
    """

    encoding: str
    #: entry id -> its counts, for every entry counted: all of the file's (every branch) when
    #: ``scope`` is "file", the replayed context's when it is "context".
    entries: Mapping[str, EntryTokens]
    #: Context size the provider reported (last valid usage after the boundary), or None.
    reported_context: int | None
    #: The assistant entry whose usage gave ``reported_context``.
    reported_entry_id: str | None
    #: pi ``estimateContextTokens``: last valid usage + pi estimates after it, else the sum.
    estimate_context: int
    #: The same with newest OpenClaw's per-message estimate.
    estimate_context_openclaw: int
    #: Exact tokens over the replayed context (a compaction counts its summary).
    exact_context: int
    #: Exact tokens over every entry in the file; None until the whole file is counted.
    exact_total: int | None
    #: Exact tokens over the whole file, by message role (non-message entries excluded).
    by_role: Mapping[str, int] | None
    #: Exact tokens over the whole file, by entry type.
    by_type: Mapping[str, int] | None
    #: The agent's own estimating rule (``agent_rules``), None when it has none.
    agent_rule: str | None = None
    #: The context estimated by that rule (as ``estimate_context``), None without a rule:
    #: the exact count is then the one to go by.
    estimate_context_agent: int | None = None
    scope: CountScope = "file"
    #: Entries of the file this report did not count (0 when ``scope`` is "file").
    pending: int = 0
    #: Distinct texts tokenized to make this report (the others came from the count cache);
    #: how the report was made, not what it says, so equality ignores it.
    tokenized: int = field(default=0, compare=False)
    #: Distinct texts whose exact count came from the count cache.
    cached: int = field(default=0, compare=False)

    @property
    def complete(self) -> bool:
        """True when every entry of the file is counted (the whole-file figures are set)."""
        return self.pending == 0 and self.exact_total is not None
