"""What each timeline row shows, prepared off the UI thread.

``build_rows`` turns a Transcript into a tuple of small frozen rows (title, one-line
preview, icon key, marks, depth) once per load, on the task pool; the list model then only
indexes into that tuple, which keeps scrolling smooth at 100,000 entries. ``filter_rows``
is the search/filter step, also run on the pool.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, overload

from PySide6.QtCore import QCoreApplication

from sessionlens.engine import children_of, is_context_overflow

if TYPE_CHECKING:
    from sessionlens.engine import Entry, Transcript

PREVIEW_CHARS = 160


class Mark(enum.IntFlag):
    """Row markers the delegate draws."""

    NONE = 0
    ERROR = 1
    ABORTED = 2
    OVERFLOW = 4
    DIVIDER = 8
    OFF_PATH = 16
    BRANCH_POINT = 32
    LABELLED = 64
    PAIRED = 128
    HIDDEN_FROM_CONTEXT = 256


@dataclass(frozen=True, slots=True)
class TimelineRow:
    """One line of the timeline (list or tree mode)."""

    entry_id: str
    index: int
    icon_key: str
    title: str
    preview: str
    time: str
    role: str | None
    type: str
    marks: Mark
    depth: int = 0
    label: str | None = None
    pair_id: str | None = None
    haystack: str = ""


SETTING_TYPES = frozenset({"model_change", "thinking_level_change", "session_info", "custom"})


@functools.lru_cache(maxsize=64)
def _tr(text: str) -> str:
    """Row titles are user-visible; QCoreApplication.translate is safe on worker threads.
    A dozen titles repeat over 100,000 rows: each is translated once per ``build_rows``."""
    return QCoreApplication.translate("TimelineRows", text)


def _one_line(text: str) -> str:
    """The text on one line, cut to PREVIEW_CHARS; only as much of it as that needs is read
    (a 400 KB tool result is not split whole for a 160-character preview)."""
    limit = PREVIEW_CHARS * 4
    while True:
        part = text[:limit]
        # a prefix of the text flattens to a prefix of the whole flattened text
        flat = " ".join(part.split())
        if len(flat) > PREVIEW_CHARS or len(part) == len(text):
            break
        limit *= 8
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


#: What ``json.dumps(..., ensure_ascii=False, separators=(", ", ": "))`` builds on every call.
_ARGS_JSON = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _head(value: object, n: int) -> object:
    """``value`` with every string and list cut to ``n`` items: its JSON starts with the same
    ``n`` characters as the whole value's (a "write" call's 1 MB content is not dumped whole
    for a one-line preview)."""
    if isinstance(value, str):
        return value[:n]
    if isinstance(value, (list, tuple)):
        return [_head(v, n) for v in value[:n]]
    if isinstance(value, dict):
        return {k: _head(v, n) for k, v in list(value.items())[:n]}
    return value


def _args(arguments: object) -> str:
    """Tool arguments as compact JSON for a one-line preview."""
    try:
        text = _ARGS_JSON.encode(_head(arguments, PREVIEW_CHARS * 2))
    except (TypeError, ValueError):
        text = str(arguments)
    return _one_line(text[: PREVIEW_CHARS * 2])


def _clock(ts: str | None) -> str:
    if not ts:
        return ""
    try:
        d = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts[:19]
    # what strftime("%m-%d %H:%M:%S") gives, at a third of its cost (100,000 rows)
    return f"{d.month:02d}-{d.day:02d} {d.hour:02d}:{d.minute:02d}:{d.second:02d}"


def _row_for(e: Entry, index: int, tool_owner: dict[str, str], window: int | None,
             labels: dict[str, str]) -> TimelineRow:
    marks = Mark.NONE
    pair: str | None = None
    role = e.role
    m = e.message
    if m is not None:
        calls = m.tool_calls
        if role == "assistant":
            icon = "role-tool-call" if calls else "role-assistant"
            names = ", ".join(c.name for c in calls)
            title = f"{_tr('assistant')} → {names}" if names else _tr("assistant")
            body = m.text or "; ".join(f"{c.name} {_args(c.arguments)}" for c in calls)
            if not body and m.error_message:
                body = m.error_message
            if m.stop_reason == "error":
                marks |= Mark.ERROR
                if is_context_overflow(m, window):
                    marks |= Mark.OVERFLOW
            elif m.stop_reason == "aborted":
                marks |= Mark.ABORTED
        elif role == "toolResult":
            icon = "role-tool-error" if m.is_error else "role-tool-result"
            title = f"{_tr('result')} ← {m.tool_name or '?'}"
            body = m.text
            if m.is_error:
                marks |= Mark.ERROR
            if m.tool_call_id and m.tool_call_id in tool_owner:
                pair = tool_owner[m.tool_call_id]
                marks |= Mark.PAIRED
        elif role == "bashExecution":
            icon = "role-bash"
            title = _tr("bash")
            body = f"$ {m.command or ''}  {m.output or ''}"
            if m.cancelled:
                marks |= Mark.ABORTED
            elif m.exit_code not in (None, 0):
                marks |= Mark.ERROR
            if m.exclude_from_context:
                marks |= Mark.HIDDEN_FROM_CONTEXT
        elif role == "user":
            icon, title, body = "role-user", _tr("user"), m.text
        else:
            icon, title, body = "role-custom", role or _tr("message"), m.text
    elif e.type == "compaction":
        icon, title, body = "type-compaction", _tr("compaction"), e.summary or ""
        marks |= Mark.DIVIDER
    elif e.type == "reset":
        icon, title, body = "type-reset", f"{_tr('reset')} ({e.reason or '?'})", ""
        marks |= Mark.DIVIDER
    elif e.type == "branch_summary":
        icon, title, body = "type-branch", _tr("branch summary"), e.summary or ""
    elif e.type == "label":
        icon, title, body = "type-label", _tr("label"), f"{e.label or _tr('(cleared)')} → {e.target_id}"
    elif e.type == "model_change":
        icon, title, body = "type-setting", _tr("model"), f"{e.provider}/{e.model_id}"
    elif e.type == "thinking_level_change":
        icon, title, body = "type-setting", _tr("thinking level"), e.thinking_level or ""
    elif e.type == "session_info":
        icon, title, body = "type-setting", _tr("session name"), e.name or _tr("(cleared)")
    elif e.type in ("custom", "custom_message"):
        icon, title = "role-custom", e.type.replace("_", " ")
        body = e.custom_type or ""
    else:
        icon, title, body = "type-other", e.type, ""
    label = labels.get(e.id)
    if label:
        marks |= Mark.LABELLED
    preview = _one_line(body)
    hay = f"{title} {preview} {label or ''} {e.id}".lower()
    return TimelineRow(e.id, index, icon, title, preview, _clock(e.timestamp), role, e.type,
                       marks, 0, label, pair, hay)


def _tool_owners(entries: Sequence[Entry]) -> dict[str, str]:
    owners: dict[str, str] = {}
    for e in entries:
        if e.message is not None and e.message.role == "assistant":
            for c in e.message.tool_calls:
                owners[c.id] = e.id
    return owners


def build_rows(transcript: Transcript, *, tree: bool = False, context_window: int | None = None,
               cancel: Callable[[], bool] | None = None) -> tuple[TimelineRow, ...]:
    """Rows of the active path (list mode) or of every entry depth-first (tree mode)."""
    _tr.cache_clear()  # a language installed since the last build is used from here on
    labels = dict(transcript.labels)
    owners = _tool_owners(transcript.entries)
    entries = transcript.entries
    if not tree:
        out = []
        for n, eid in enumerate(transcript.active_path):
            if cancel is not None and n % 4096 == 0 and cancel():
                return ()
            i = transcript.index[eid]
            out.append(_row_for(entries[i], i, owners, context_window, labels))
        return tuple(out)
    on_path = set(transcript.active_path)
    kids = children_of(transcript)
    rows: list[TimelineRow] = []
    stack: list[tuple[str, int]] = [(k, 0) for k in reversed(kids.get(None, ()))]
    seen: set[str] = set()
    while stack:
        eid, depth = stack.pop()
        if eid in seen or eid not in transcript.index:
            continue
        seen.add(eid)
        i = transcript.index[eid]
        row = _row_for(entries[i], i, owners, context_window, labels)
        children = kids.get(eid, ())
        extra = Mark.NONE if eid in on_path else Mark.OFF_PATH
        if len(children) > 1:
            extra |= Mark.BRANCH_POINT
        rows.append(_with(row, depth, extra))
        # side branches come first, indented; the main line (the active path, else the
        # first child) continues last at the same depth, so a long chain stays flat
        main = next((k for k in children if k in on_path), children[0] if children else None)
        if main is not None:
            stack.append((main, depth))
        for child in reversed(children):
            if child != main:
                stack.append((child, depth + 1))
    return tuple(rows)


class PathRows(Sequence[TimelineRow]):
    """The active path's list-mode rows, each built the first time it is read.

    Building all of them costs ~0.6 s on a 100 MB file; a first view paints ~40. So the
    load hands the timeline this sequence at once: scrolling builds what it shows (~30 µs a
    row), a filter on the pool builds the rest. Threads may build one row twice; both give
    the same row and the last write wins, so no lock is needed.
    """

    def __init__(self, transcript: Transcript, context_window: int | None = None) -> None:
        _tr.cache_clear()  # a language installed since the last build is used from here on
        self._t = transcript
        self._ids = transcript.active_path
        self._owners = _tool_owners(transcript.entries)
        self._labels = dict(transcript.labels)
        self._window = context_window
        self._rows: list[TimelineRow | None] = [None] * len(self._ids)

    def __len__(self) -> int:
        return len(self._rows)

    def entry_id(self, n: int) -> str:
        """Row ``n``'s entry id, without building the row."""
        return self._ids[n]

    def _build(self, n: int) -> TimelineRow:
        i = self._t.index[self._ids[n]]
        row = self._rows[n] = _row_for(self._t.entries[i], i, self._owners, self._window,
                                       self._labels)
        return row

    @overload
    def __getitem__(self, n: int) -> TimelineRow: ...

    @overload
    def __getitem__(self, n: slice) -> tuple[TimelineRow, ...]: ...

    def __getitem__(self, n: int | slice) -> TimelineRow | tuple[TimelineRow, ...]:
        if isinstance(n, slice):
            return tuple(self[k] for k in range(*n.indices(len(self))))
        row = self._rows[n]
        return row if row is not None else self._build(n if n >= 0 else n + len(self))

    def __iter__(self) -> Iterator[TimelineRow]:
        for n, row in enumerate(self._rows):
            yield row if row is not None else self._build(n)


def entry_id_at(rows: Sequence[TimelineRow], n: int) -> str:
    """Row ``n``'s entry id (``PathRows`` answers without building the row)."""
    return rows.entry_id(n) if isinstance(rows, PathRows) else rows[n].entry_id


def _with(row: TimelineRow, depth: int, extra: Mark) -> TimelineRow:
    return TimelineRow(row.entry_id, row.index, row.icon_key, row.title, row.preview, row.time,
                       row.role, row.type, row.marks | extra, depth, row.label, row.pair_id,
                       row.haystack)


PROBLEMS = Mark.ERROR | Mark.ABORTED | Mark.OVERFLOW


@dataclass(frozen=True, slots=True)
class RowFilter:
    """What the search box and the role/type pickers ask for ("" means any)."""

    text: str = ""
    role: str = ""
    type: str = ""
    problems_only: bool = False

    @property
    def is_empty(self) -> bool:
        return not (self.text.strip() or self.role or self.type or self.problems_only)


def filter_rows(rows: Sequence[TimelineRow], flt: RowFilter,
                cancel: Callable[[], bool] | None = None) -> tuple[int, ...] | None:
    """Indexes of the rows that pass (None when the filter is empty: show all)."""
    if flt.is_empty:
        return None
    words = flt.text.lower().split()
    out = []
    for n, r in enumerate(rows):
        if cancel is not None and n % 8192 == 0 and cancel():
            return ()
        if flt.role and r.role != flt.role:
            continue
        if flt.type and r.type != flt.type:
            continue
        if flt.problems_only and not (r.marks & PROBLEMS):
            continue
        if words and not all(w in r.haystack for w in words):
            continue
        out.append(n)
    return tuple(out)
