"""A compaction request that carries messages, not a session file (OpenClaw's providers).

OpenClaw's ``summarize({messages, customInstructions, previousSummary, ...})`` hands a
provider the messages to summarize and nothing about the session they come from. To run
the engine's own compaction on them they are written, as they are, into a temporary pi
v3 transcript (one ``message`` entry each, in order), which is summarized whole (a hard
boundary: OpenClaw keeps its recent turns itself).

Pins: the user pins entries of session files; a pin applies here to each message whose text
holds the pinned entry's text (OpenClaw wraps a user's words in an envelope; every pinned
session's sidecar is read, the newest first, at most ``MAX_PIN_SESSIONS``). The whole
message is then carried word for word.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sessionlens.engine.contract.pinned import entry_pin_text, pinned_texts
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript

__all__ = ["MAX_PIN_SESSIONS", "pins_by_text", "write_messages_transcript"]

MAX_PIN_SESSIONS = 20
_ROLES = ("user", "assistant", "toolResult", "bashExecution", "custom")


def write_messages_transcript(messages: Sequence[Any], folder: Path,
                              previous_summary: str = "") -> Path:
    """``messages`` (pi/OpenClaw agent messages) as a pi v3 file under ``folder``."""
    path = folder / "messages.jsonl"
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "openclaw-request",
                                   "timestamp": "1970-01-01T00:00:00.000Z", "cwd": ""}]
    parent: str | None = None
    n = 0
    if previous_summary.strip():
        n += 1
        rows.append(_message(f"m{n}", parent, {
            "role": "user", "content": [{"type": "text", "text": "Summary of the conversation "
                                         "before this point:\n" + previous_summary}]}))
        parent = f"m{n}"
    for m in messages:
        if not isinstance(m, Mapping) or m.get("role") not in _ROLES:
            continue
        n += 1
        rows.append(_message(f"m{n}", parent, dict(m)))
        parent = f"m{n}"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _message(entry_id: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    message.setdefault("timestamp", 0)
    return {"type": "message", "id": entry_id, "parentId": parent,
            "timestamp": "1970-01-01T00:00:00.000Z", "message": message}


def _pinned_texts(state_dir: Path) -> Iterable[str]:
    folder = state_dir / "pins"
    try:
        sidecars = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for sidecar in sidecars[:MAX_PIN_SESSIONS]:
        try:
            data = json.loads(sidecar.read_text("utf-8"))
            pins = [p for p in data.get("pins", []) if isinstance(p, str)]
            if not pins:
                continue
            transcript = load_transcript(Path(str(data["path"])))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        except Exception:  # noqa: BLE001 - a pinned file that no longer loads is skipped
            continue
        if transcript.session_id != data.get("session_id"):
            continue
        yield from (p.text for p in pinned_texts(transcript, transcript.active_path, pins))


def pins_by_text(transcript: Transcript, state_dir: Path) -> tuple[str, ...]:
    """The entries of ``transcript`` whose text holds the text of an entry the user pinned."""
    wanted = {w for w in _pinned_texts(state_dir) if w}
    if not wanted:
        return ()
    return tuple(eid for eid in transcript.active_path
                 if (e := transcript.get(eid)) is not None and e.message is not None
                 and any(w in entry_pin_text(e) for w in wanted))
