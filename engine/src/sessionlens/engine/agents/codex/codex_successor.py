"""A Codex rollout that continues a compacted session: what ``codex exec resume NEW_ID`` takes.

Codex (0.171.0, checked with the binary) resumes a rollout by its id from any
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl``. The successor SessionLens
writes there holds, each line with its ``ordinal`` (Codex refuses a paginated rollout
without):

1. ``session_meta``: the original's, with a new (time-ordered, v7) id and timestamp, and
   ``sessionlens.predecessor`` naming the original;
2. ``compacted``: ``message`` is SessionLens's summary behind Codex's handoff prefix;
   ``replacement_history`` is what Codex's own compaction would put there: the user messages
   ``codex-0.17`` keeps (the oldest cut to the budget), the original's last developer and
   environment messages before the newest of them, the summary last;
3. the original's last ``world_state`` and ``turn_context``: with them Codex sees its
   initial context already sent and does not inject it again after the summary.

So the next request Codex sends is its instructions, the kept messages and the summary, then
the new prompt; nothing summarized comes back. The original is never touched: the write
holds its lock, proves it unchanged, and creates the new file atomically (never over one).
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine._io.atomic import atomic_write_bytes, file_mode, fsync_directory
from sessionlens.engine.agents.codex.compacted import SUMMARY_PREFIX, is_summary_text
from sessionlens.engine.agents.codex.rule_0_17 import codex_keep, truncate_middle, user_text
from sessionlens.engine.errors import PersistError
from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.agent_writers import RolloutWriter
from sessionlens.engine.persist.guard import hold_lock, read_unchanged_bytes
from sessionlens.engine.persist.lines import iso_timestamp
from sessionlens.engine.persist.names import WriteNames
from sessionlens.engine.persist.record import CompactionRecord

__all__ = ["CODEX_ROLLOUTS", "build_codex_successor", "codex_home_of", "codex_names",
           "codex_successor_path", "require_codex_writable", "write_codex_successor"]


def codex_home_of(path: Path) -> Path | None:
    """The Codex home a rollout lies in (``<home>/sessions/YYYY/MM/DD/``), else None."""
    parents = path.absolute().parents
    if len(parents) >= 5 and parents[3].name == "sessions":
        return parents[4]
    return None


def require_codex_writable(transcript: Transcript, mode: str = "successor") -> None:
    """Refuse, in one sentence, a Codex write SessionLens cannot do (before any summary)."""
    if mode != "successor":
        raise PersistError(transcript.path, "a Codex rollout is never appended to: SessionLens "
                           "writes a successor rollout that `codex resume` continues "
                           "(--write successor)")
    if transcript.header is None or transcript.header.extra.get("synthesized"):
        raise PersistError(transcript.path, "the rollout has no session_meta line, so Codex "
                           "could not resume a successor of it")
    if codex_home_of(transcript.path) is None:
        raise PersistError(transcript.path, "the rollout is not in a Codex home's "
                           "sessions/YYYY/MM/DD/ folder, where Codex looks for the successor "
                           "it would resume; move it back there (or copy the folder) first")


def _uuid7(now_ms: int) -> str:
    """A version-7 uuid (what Codex's own ids are: time first, then random bits)."""
    rand = int.from_bytes(os.urandom(10), "big")
    value = (now_ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | (rand >> 66 & 0xFFF) << 64
    value |= 0x2 << 62 | rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def codex_names(transcript: Transcript, now: datetime | None = None) -> WriteNames:
    """Names for one successor: a v7 id as Codex makes them (no entry id, no checkpoint:
    the original is never changed, so undoing the write is removing the new file)."""
    require_codex_writable(transcript)
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return WriteNames(iso_timestamp(moment), _uuid7(int(moment.timestamp() * 1000)), "", "")


def codex_successor_path(transcript: Transcript, names: WriteNames) -> Path:
    """``<home>/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl``, as Codex names rollouts."""
    home = codex_home_of(transcript.path)
    if home is None:
        require_codex_writable(transcript)
    assert home is not None
    day, clock = names.timestamp[:10], names.timestamp[11:19].replace(":", "-")
    return (home / "sessions" / day[:4] / day[5:7] / day[8:10]
            / f"rollout-{day}T{clock}-{names.session_id}.jsonl")


def _lines(data: bytes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for raw in data.splitlines():
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("payload"), dict):
            out.append(obj)
    return out


def _last(lines: list[dict[str, Any]], kind: str, role: str | None = None,
          prefix: str = "") -> dict[str, Any] | None:
    """The last line of ``kind``, or (with ``role``) the last message of that role whose
    text starts with ``prefix``."""
    obj: dict[str, Any]
    for obj in reversed(lines):
        p = obj["payload"]
        if role is None and obj.get("type") == kind:
            return obj
        if obj.get("type") == "response_item" and p.get("type") == "message" \
                and p.get("role") == role:
            text = "".join(str(c.get("text") or "") for c in p.get("content") or []
                           if isinstance(c, dict))
            if text.startswith(prefix):
                return obj
    return None


def _message(role: str, *texts: str) -> dict[str, Any]:
    return {"type": "message", "role": role,
            "content": [{"type": "input_text", "text": t} for t in texts]}


def build_codex_successor(transcript: Transcript, data: bytes, record: CompactionRecord,
                          names: WriteNames) -> bytes:
    """The successor rollout's bytes, from the original's ``data`` (checked unchanged)."""
    require_codex_writable(transcript)
    lines = _lines(data)
    meta = next((o for o in lines if o.get("type") == "session_meta"), None)
    if meta is None:
        raise PersistError(transcript.path, "the rollout has no session_meta line")
    summarized = [transcript.entry(i) for i in record.summarized_entry_ids
                  if i in transcript.index]
    keep = codex_keep(summarized)
    copies = [_message("user", *(truncate_middle(user_text(transcript.entry(i)),
                                                 keep.truncated_to)
                                 if i == keep.truncated_id
                                 else (user_text(transcript.entry(i)),)))
              for i in keep.entry_ids]
    initial = [{k: o["payload"][k] for k in ("type", "role", "content")}
               for o in (_last(lines, "message", "developer"),
                         _last(lines, "message", "user", "<environment_context>"))
               if o is not None]
    message = (record.summary if is_summary_text(record.summary)
               else f"{SUMMARY_PREFIX}\n{record.summary}")
    history = [*copies[:-1], *initial, *copies[-1:], _message("user", message)]
    payload = dict(meta["payload"])
    payload.pop("context_window", None)   # the original's window id
    payload.update(id=names.session_id, session_id=names.session_id,
                   timestamp=names.timestamp,
                   sessionlens={"predecessor": str(transcript.path.absolute()),
                                "predecessor_id": transcript.session_id})
    own: dict[str, Any] = {"tool": "sessionlens", "provider": record.provider, "model": record.model,
           "template": record.template, "auditPassed": record.audit_passed,
           "tokensBefore": record.tokens_before, "tokensAfter": record.tokens_after,
           "summarizedEntries": len(record.summarized_entry_ids)}
    if record.instructions:
        own["instructions"] = record.instructions
    if record.pinned_entry_ids:
        own["pinned"] = list(record.pinned_entry_ids)
    if record.provenance is not None:
        own["provenance"] = record.provenance.as_details()
    out: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": payload},
        {"type": "compacted", "payload": {"message": message, "replacement_history": history,
                                          "sessionlens": own}}]
    out += [{"type": o["type"], "payload": o["payload"]}
            for o in (_last(lines, "world_state"), _last(lines, "turn_context")) if o is not None]
    return b"".join(orjson.dumps({"timestamp": names.timestamp, "ordinal": n, **o}) + b"\n"
                    for n, o in enumerate(out))


def write_codex_successor(transcript: Transcript, record: CompactionRecord, names: WriteNames,
                          *, sha256: str | None = None) -> Path:
    """Write the successor under the original's lock, after proving it unchanged; the new
    file is created atomically and never replaces one. Returns its path."""
    require_codex_writable(transcript)
    with hold_lock(transcript.path):
        data = read_unchanged_bytes(transcript, sha256=sha256)
        content = build_codex_successor(transcript, data, record, names)
        target = codex_successor_path(transcript, names)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, content, mode=file_mode(transcript.path), exclusive=True)
        fsync_directory(target.parent)
    return target


class _CodexRollouts:
    """Codex's successor rollouts as ``persist.agent_writers`` asks for them."""

    agent = "Codex"

    def require_writable(self, transcript: Transcript, mode: str) -> None:
        require_codex_writable(transcript, mode)

    def names(self, transcript: Transcript, now: datetime | None) -> WriteNames:
        return codex_names(transcript, now)

    def target(self, transcript: Transcript, names: WriteNames) -> Path:
        return codex_successor_path(transcript, names)

    def build(self, transcript: Transcript, data: bytes, record: CompactionRecord,
              names: WriteNames) -> bytes:
        return build_codex_successor(transcript, data, record, names)

    def write(self, transcript: Transcript, record: CompactionRecord, names: WriteNames, *,
              sha256: str | None) -> Path:
        return write_codex_successor(transcript, record, names, sha256=sha256)


CODEX_ROLLOUTS: RolloutWriter = _CodexRollouts()
