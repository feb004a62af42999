"""Which rows a ``reset`` keeps before it, as openclaw 2026.9.6 pairs tool calls and results.

OpenClaw's ``selectResetKeptEntries`` (``dist/tool-result-pairing-Bky0eubt.mjs``, source
``harness/session/tool-result-pairing.ts``, with ``classifyToolUseResultPairing``) keeps, of
the rows between a reset's ``firstKeptEntryId`` and the reset, only user and assistant
messages and the tool results that pair with a call. In our words: each assistant message
with tool calls opens a frame that runs to the next such assistant; a result inside the frame
claims the first unclaimed call with its id (a result without an id takes the frame's call
when the frame has exactly one, unless the tool names differ). A result that claimed nothing
in its own frame is matched later to a still-unanswered call of this or an earlier frame,
when exactly one such call has its id. Results before the first frame, duplicates and
unmatched ones are dropped. Synthetic "missing tool result" rows are treated as ordinary
results (not modelled).

Pure; indices are into the path given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sessionlens.engine.model import Entry

__all__ = ["reset_kept_indices"]


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    answered: bool = False


@dataclass(slots=True)
class _Frame:
    calls: list[_Call]
    unclaimed: list[tuple[int, str | None]] = field(default_factory=list)


def _claim(calls: list[_Call], call_id: str) -> _Call | None:
    for call in calls:
        if call.id == call_id and not call.answered:
            call.answered = True
            return call
    return None


def reset_kept_indices(path: Sequence[Entry], first: int, boundary: int) -> list[int]:
    """Indices in ``path[first:boundary]`` that a reset at ``boundary`` retains."""
    if first < 0 or first >= boundary:
        return []
    rows = [i for i in range(first, boundary) if path[i].type == "message"
            and path[i].message is not None]
    paired: set[int] = set()
    frames: list[_Frame] = []
    current: _Frame | None = None
    for i in rows:
        msg = path[i].message
        assert msg is not None
        calls = [c for c in msg.tool_calls if c.id] if msg.role == "assistant" else []
        if calls:
            current = _Frame([_Call(c.id, c.name) for c in calls])
            frames.append(current)
            continue
        if msg.role != "toolResult" or current is None:
            continue
        call_id = msg.tool_call_id or None
        if call_id is None and len(current.calls) == 1:
            only = current.calls[0]
            if not (msg.tool_name and only.name and msg.tool_name != only.name):
                call_id = only.id
        if call_id is not None and _claim(current.calls, call_id) is not None:
            paired.add(i)
        elif call_id is None or not any(c.id == call_id for c in current.calls):
            current.unclaimed.append((i, call_id))
        # else: a duplicate result for a call already answered in this frame: dropped
    unresolved: list[_Call] = []
    for frame in frames:
        unresolved.extend(c for c in frame.calls if not c.answered)
        for i, call_id in frame.unclaimed:
            open_calls = [c for c in unresolved if c.id == call_id and not c.answered]
            if call_id is not None and len(open_calls) == 1:
                open_calls[0].answered = True
                paired.add(i)
    return [i for i in rows if path[i].role in ("user", "assistant") or i in paired]
