"""OpenClaw / pi session files (header versions 1 to 4) read into the shared model.

Lenient like pi itself: a line that cannot be read becomes a Diagnostic and the rest
loads. Older versions are migrated in memory only (transcript-format.md §1.6): v1 entries
get deterministic 8-hex ids (from their line number, so plans and tests are reproducible)
and a linear parent chain, v1 ``firstKeptEntryIndex`` becomes ``firstKeptEntryId``, and the
v2 ``hookMessage`` role becomes ``custom``. Entries keep only typed fields plus the byte
span of their line, never the parsed dict, so a 100 MB file stays lean in memory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson

from sessionlens.engine.agents.pi.fields import FieldReader
from sessionlens.engine.errors import LoadCancelled
from sessionlens.engine.load.detect import FORMAT_BY_VERSION
from sessionlens.engine.load.formats import ParsedFile
from sessionlens.engine.load.formats.field_errors import FIELD_ERRORS, field_problem
from sessionlens.engine.load.formats.jsonl import (
    PROGRESS_STEP,
    LineView,
    iter_raw_lines,
    recover_line,
)
from sessionlens.engine.model import Diagnostic, Entry, SessionHeader

__all__ = ["parse", "parse_lines"]

_EMPTY: MappingProxyType[str, Any] = MappingProxyType({})


def parse(data: bytes, path: Path, *, on_progress: Callable[[int, int], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """Read every line of a pi / OpenClaw file; never raises for a bad line."""
    return parse_lines(iter_raw_lines(data), len(data), path, on_progress=on_progress,
                       cancel=cancel)


def parse_lines(lines: Iterable[LineView], total: int, path: Path, *,
                on_progress: Callable[[int, int], None] | None = None,
                cancel: Callable[[], bool] | None = None) -> ParsedFile:
    """``parse`` over lines from ``iter_raw_lines`` or ``iter_file_lines`` (a streamed file);
    ``total`` is the size progress is reported against."""
    spath = str(path)
    diags: list[Diagnostic] = []
    reader = FieldReader(spath, diags)
    entries: list[Entry] = []
    header: SessionHeader | None = None
    version = 0  # 0: not known yet
    seen_object = False
    # v1: id of the k-th parsed object (header = 0), for firstKeptEntryIndex.
    object_ids: list[str | None] = []
    pending_index: list[tuple[int, int, int]] = []  # (entry position, index, line)
    prev_id: str | None = None
    # The line loop of ``jsonl.iter_objects``, inlined: this is the hot path of a 100 MB load
    # and a per-line record plus a generator step cost ~10% of it. Bad lines are explained by
    # the same ``recover_line`` so every format words its diagnostics alike.
    next_report = PROGRESS_STEP
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    for line_no, start, stop, raw, terminated in lines:
        if start >= next_report:
            next_report = start + PROGRESS_STEP
            if cancel is not None and cancel():
                raise LoadCancelled(path, f"cancelled at byte {start} of {total}")
            if on_progress is not None:
                on_progress(min(start, total), total)
        try:
            obj = loads(raw)
        except decode_error as exc:
            line = bytes(raw)
            if not line.strip():
                continue
            obj = recover_line(line, exc, line_no, spath, diags, last=not terminated)
            if obj is None:
                continue
        if type(obj) is not dict:
            diags.append(Diagnostic(spath, line_no, f"JSON {type(obj).__name__} is not an object"))
            continue
        etype = obj.get("type")
        if not isinstance(etype, str):
            diags.append(Diagnostic(spath, line_no, "entry has no string 'type'; skipped"))
            continue
        first = not seen_object
        seen_object = True
        if etype == "session":
            if first:
                header, version = _read_header(obj, line_no, reader)
                object_ids.append(header.id)
            else:
                object_ids.append(None)
                diags.append(Diagnostic(spath, line_no,
                                        "a second 'session' header line; ignored", "warning"))
            continue
        if first:
            version = 3 if "id" in obj else 1
            diags.append(Diagnostic(spath, line_no,
                                    "missing header: the first entry is not type 'session'; "
                                    f"read as v{version} without a header"))
            object_ids.append(None)  # pi would take this line as the (invalid) header
        reader.line = line_no
        if version == 1:
            eid = f"{line_no:08x}"
            parent = prev_id
        else:
            raw_id = obj.get("id")
            if not isinstance(raw_id, str) or not raw_id:
                diags.append(Diagnostic(spath, line_no,
                                        f"{etype!r} entry has no string 'id'; skipped"))
                object_ids.append(None)
                continue
            eid = raw_id
            parent = reader.parent_id(obj)
        try:
            entry = reader.entry(obj, etype, eid, parent, start, stop - start)
        except ValueError as exc:  # pi_fields' own word on a field it could not read
            diags.append(Diagnostic(spath, line_no, f"{exc}; line skipped"))
            object_ids.append(None)
            continue
        except FIELD_ERRORS as exc:
            diags.append(Diagnostic(spath, line_no, f"{field_problem(exc)}; line skipped"))
            object_ids.append(None)
            continue
        if version == 1 and etype == "compaction" and entry.first_kept_entry_id is None:
            idx = obj.get("firstKeptEntryIndex")
            if isinstance(idx, int) and not isinstance(idx, bool):
                pending_index.append((len(entries), idx, line_no))
        entries.append(entry)
        object_ids.append(eid)
        prev_id = eid

    for pos, idx, line_no in pending_index:
        target = object_ids[idx] if 0 < idx < len(object_ids) else None
        if target is None:
            diags.append(Diagnostic(spath, line_no, f"firstKeptEntryIndex {idx} names no entry; "
                                    "nothing before this compaction is kept", "warning"))
            continue
        entries[pos] = dataclasses.replace(entries[pos], first_kept_entry_id=target)
    if on_progress is not None:
        on_progress(total, total)
    fmt = FORMAT_BY_VERSION.get(version or 3, "openclaw-v3")
    return ParsedFile(fmt, header, tuple(entries), tuple(diags))


def _read_header(obj: dict[str, Any], line_no: int,
                 reader: FieldReader) -> tuple[SessionHeader, int]:
    """The session header and the version its entries are written in."""
    reader.line = line_no
    raw_version = obj.get("version")
    if raw_version is None:
        version = 1
    elif isinstance(raw_version, int) and raw_version in FORMAT_BY_VERSION:
        version = raw_version
    else:
        reader.warn(f"unknown header version {raw_version!r}; read as version 3")
        version = 3
    sid = obj.get("id")
    if not isinstance(sid, str) or not sid:
        reader.error("header has no string 'id'")
        sid = ""
    known = {"type", "version", "id", "timestamp", "cwd", "parentSession", "branchedFrom",
             "provider", "modelId", "thinkingLevel"}
    extra = {k: v for k, v in obj.items() if k not in known}
    header = SessionHeader(
        id=sid, version=version,
        timestamp=reader.opt_str(obj, "timestamp"),
        cwd=reader.opt_str(obj, "cwd"),
        parent_session=reader.opt_str(obj, "parentSession"),
        branched_from=reader.opt_str(obj, "branchedFrom"),
        provider=reader.opt_str(obj, "provider"),
        model_id=reader.opt_str(obj, "modelId"),
        thinking_level=reader.opt_str(obj, "thinkingLevel"),
        line=line_no,
        extra=MappingProxyType(extra) if extra else _EMPTY,
    )
    return header, version
