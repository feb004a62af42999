"""Replay of the active path into what the model sees (transcript-format.md §1.8).

The last ``compaction`` or ``reset`` on the path is the boundary. A compaction emits its
summary first, then the retained window ``[firstKept, boundary)``, then everything after the
boundary. ``firstKeptEntryId`` counts only when it lies strictly before the boundary; when
it is the compaction's own id (OpenClaw's hardened manual boundary) or is not found, nothing
before the boundary is kept; stored ``system`` messages in that window are prompt state and
stay out (pi 1.6 ``buildContextEntries``: the compaction's own ``systemMessage`` stands for
them and leads its summary). A compaction whose ``extra`` names ``summary_after`` (Codex: the
summary follows the messages it kept, written after it) emits its summary right after that
entry instead of first (``None``: first, as usual). ``context_edit`` entries (pi 1.6) change
what the model sees of an earlier entry: the latest edit of an entry among the replayed ones
wins; a null replacement hides the entry, any other swaps its content (the item names the
edit). A reset emits nothing itself and keeps a tool-pairing-safe part
of its window (tool results whose call is not retained are dropped, as OpenClaw does).

OpenClaw writes transcript-only assistant messages it never replays to the model: the
gateway's status replies (``provider: "openclaw"``, ``model: "gateway-injected"``, e.g.
"Compacted (25k → 467)" after a ``/compact``) and its delivery mirrors (``model:
"delivery-mirror"``); its replay (``normalizeAssistantReplayContent`` with
``isTranscriptOnlyOpenClawAssistantMessage``, 2026.9.6) drops them, and so does this one.
In the files of OpenClaw 2026.8+ (header version 4) it also drops a failed assistant turn
that produced nothing (``stopReason: "error"`` with no content but blank text,
``isStreamErrorFallbackContent``), as that release's replay does (checked against it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sessionlens.engine.model import ContextItem, Entry, TextBlock

__all__ = ["BOUNDARY_TYPES", "TRANSCRIPT_ONLY_MODELS", "build_context", "context_item",
           "last_boundary"]

#: Entry types that end what the model sees before them (the replay starts over there).
BOUNDARY_TYPES = ("compaction", "reset")
#: Models of OpenClaw's own assistant rows that stay in the transcript only.
TRANSCRIPT_ONLY_MODELS = frozenset({"gateway-injected", "delivery-mirror"})
#: The text OpenClaw writes for a turn that failed before producing content.
FAILED_TEXT = "[assistant turn failed before producing content]"
_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})


def context_item(entry: Entry, openclaw: bool = False) -> ContextItem | None:
    """The message an entry contributes to the model's context, or None (``openclaw``: the
    file is OpenClaw 2026.8+'s, whose replay also drops a failed turn that produced
    nothing)."""
    t = entry.type
    if t == "message":
        msg = entry.message
        if msg is None or msg.exclude_from_context:
            return None
        if msg.role == "assistant" and (
                msg.provider == "openclaw" and msg.model in TRANSCRIPT_ONLY_MODELS
                or openclaw and msg.stop_reason == "error" and _failed_empty(msg.content)):
            return None
        return ContextItem("message", entry.id, msg.role)
    if t == "custom_message":
        return ContextItem("custom_message", entry.id, "custom")
    if t == "branch_summary" and entry.summary:
        return ContextItem("branch_summary", entry.id, "branchSummary")
    return None


def _failed_empty(content: Sequence[object]) -> bool:
    return all(isinstance(b, TextBlock) and b.text.strip() in ("", FAILED_TEXT)
               for b in content)


def last_boundary(path: Sequence[Entry]) -> int:
    """Index of the latest compaction or reset on ``path``, or -1 when there is none."""
    for i in range(len(path) - 1, -1, -1):
        if path[i].type in BOUNDARY_TYPES:
            return i
    return -1


def build_context(entries_by_id: Mapping[str, Entry], active_path: Sequence[str],
                  openclaw: bool = False) -> tuple[ContextItem, ...]:
    """Context items in the order the model sees them."""
    path = [entries_by_id[i] for i in active_path if i in entries_by_id]
    boundary = last_boundary(path)
    out: list[ContextItem] = []
    if boundary < 0:
        _emit(path, out, openclaw, _edits(path))
        return tuple(out)
    mark = path[boundary]
    first_kept = boundary
    if mark.first_kept_entry_id is not None:
        for i in range(boundary):
            if path[i].id == mark.first_kept_entry_id:
                first_kept = i
                break
    window = [e for e in path[first_kept:boundary] if e.role != "system"]
    summary = ContextItem("compaction_summary", mark.id, "compactionSummary")
    after = mark.extra.get("summary_after") if mark.type == "compaction" else None
    if mark.type == "compaction" and after is None:
        out.append(summary)
    elif mark.type != "compaction":
        window = _pairing_safe(window)
    rest = path[boundary + 1:]
    edits = _edits([*window, *rest])
    _emit(window, out, openclaw, edits)
    if after is not None:
        at = next((i for i, e in enumerate(rest) if e.id == after), None)
        cut = len(rest) if at is None else at + 1
        _emit(rest[:cut], out, openclaw, edits)
        out.append(summary)
        rest = rest[cut:]
    _emit(rest, out, openclaw, edits)
    return tuple(out)


def _edits(entries: Sequence[Entry]) -> dict[str, Entry]:
    """The latest ``context_edit`` of each target among ``entries`` (the replayed ones)."""
    return {e.target_id: e for e in entries if e.type == "context_edit" and e.target_id}


def _emit(entries: Sequence[Entry], out: list[ContextItem], openclaw: bool,
          edits: Mapping[str, Entry]) -> None:
    for e in entries:
        item = context_item(e, openclaw)
        if item is None:
            continue
        edit = edits.get(e.id)
        if edit is None:
            out.append(item)
        elif edit.replacement is not None:  # pi swaps the content of these roles only
            out.append(ContextItem(item.kind, item.entry_id, item.role,
                                   edit.id if item.role in _EDITABLE_ROLES else None))


def _pairing_safe(window: Sequence[Entry]) -> list[Entry]:
    """Drop tool results whose tool call is not in the retained window."""
    calls: set[str] = set()
    kept: list[Entry] = []
    for e in window:
        msg = e.message
        if msg is not None and msg.role == "assistant":
            calls.update(c.id for c in msg.tool_calls)
        elif msg is not None and msg.role == "toolResult" and msg.tool_call_id not in calls:
            continue
        kept.append(e)
    return kept
