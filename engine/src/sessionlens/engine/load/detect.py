"""Which format a file is, from its first bytes (its content first, its name as a hint).

JSON-lines formats are told apart by the shape of their first lines; a SQLite database by
its magic bytes and the table definitions on its first page; a single JSON document by
its top-level keys (``formats.jsondoc.peek_document`` reads them without the body); Aider's
Markdown history and Cursor's plain-text transcripts by their first line. The file name
only decides between formats the content cannot tell apart (Crush and the Go OpenCode share
one schema; Cline and Roo Code one message log).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from sessionlens.engine.errors import LoadError, NotATranscriptError
from sessionlens.engine.model import KNOWN_ENTRY_TYPES, Format

from .formats.field_errors import FIELD_ERRORS
from .formats.jsondoc import peek_document
from .formats.jsonl import iter_lines
from .formats.sqlite_open import is_sqlite

__all__ = ["FORMAT_BY_VERSION", "classify_line", "sniff_format"]

#: Header version -> the ``format`` name reported by ``inspect``.
#: Version 4 is OpenClaw 2026.8+'s (its SQLite store's header; the entries are v3's).
FORMAT_BY_VERSION: dict[int, Format] = {1: "pi-v1", 2: "pi-v2", 3: "openclaw-v3",
                                        4: "openclaw-v3"}

#: How many JSON lines detection looks at.
SNIFF_LINES = 8

_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context",
                          "compacted"})
_CLAUDE_KEYS = ("uuid", "parentUuid", "sessionId", "leafUuid")
_GEMINI_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
_KIMI_ROLES = frozenset({"_checkpoint", "_usage", "user", "assistant", "tool", "system"})
_ROO_MARKS = (b'"condense_context"', b'"sliding_window_truncation"', b'"contextCondense"',
              b"roo-cline")
_TABLE = r"CREATE TABLE\s+[`\"']?{name}[`\"']?\s*\("


def _table(head: bytes, name: str) -> bool:
    return re.search(_TABLE.format(name=name).encode(), head) is not None


def _sqlite_format(head: bytes, name: str) -> Format:
    lowered = name.replace("\\", "/").lower()
    if lowered.endswith("/openclaw-agent.sqlite") or lowered == "openclaw-agent.sqlite" or (
            _table(head, "session_nodes") and _table(head, "schema_meta")) or _table(
            head, "transcript_events"):
        return "openclaw-sqlite"
    if _table(head, "part") and _table(head, "session"):
        return "opencode-sqlite"
    if _table(head, "messages"):
        if "/.opencode/" in lowered or lowered.endswith("opencode.db"):
            return "opencode-go-sqlite"
        if "/.crush/" in lowered or lowered.endswith("crush.db"):
            return "crush-sqlite"
        return "crush-sqlite" if b"summary_message_id" in head else "opencode-go-sqlite"
    raise NotATranscriptError(name, "a SQLite database without the message tables of "
                              "Crush or OpenCode (messages, or session/message/part) nor "
                              "OpenClaw's session store (transcript_events)")


def classify_line(obj: Any) -> Format | None:
    """The format one JSON line belongs to, or None if it tells nothing (a line whose fields
    have types no format uses tells nothing: it never raises)."""
    if type(obj) is not dict:
        return None
    try:
        return _classify(obj)
    except FIELD_ERRORS:
        return None


def _classify(obj: dict[str, Any]) -> Format | None:
    t = obj.get("type")
    if t == "session" and "id" in obj:
        version = obj.get("version")
        fmt: Format = FORMAT_BY_VERSION.get(
            version if isinstance(version, int) else 1, "openclaw-v3")
        return fmt
    if isinstance(t, str) and t in _CODEX_TYPES and "payload" in obj:
        return "codex"
    if t is None:
        return _untyped(obj)
    if not isinstance(t, str):
        return None
    if "." in t and "data" in obj and ("timestamp" in obj or "parentId" in obj):
        return "copilot-events"
    if t in _GEMINI_TYPES and "id" in obj and "content" in obj and "message" not in obj \
            and "uuid" not in obj:
        return "gemini-jsonl"
    if t == "metadata" and "protocol_version" in obj:
        return "kimi"  # a Kimi wire.jsonl (its context.jsonl is read with it)
    if any(k in obj for k in _CLAUDE_KEYS):
        return "claude-code"
    if t in KNOWN_ENTRY_TYPES and ("parentId" in obj or "message" in obj):
        return "openclaw-v3" if "id" in obj else "pi-v1"  # a pi file missing its header
    return None


def _untyped(obj: dict[str, Any]) -> Format | None:
    """Lines without a ``type``: Gemini's update log, Cursor, Kimi."""
    if "$set" in obj or "$rewindTo" in obj:
        return "gemini-jsonl"
    if "sessionId" in obj and "projectHash" in obj:
        return "gemini-json" if "messages" in obj else "gemini-jsonl"
    role = obj.get("role")
    if isinstance(role, str) and isinstance(obj.get("message"), dict):
        return "cursor-jsonl"
    if isinstance(role, str) and role in _KIMI_ROLES and ("content" in obj or role in ("_checkpoint", "_usage")):
        return "kimi"
    message = obj.get("message")
    if isinstance(message, dict) and "payload" in message and "timestamp" in obj:
        return "kimi"
    return None


def _document_format(head: bytes, name: str) -> Format | None:
    """A single JSON document (Gemini's older chats, Copilot's history, Cline, Amp, ...)."""
    kind, fields, first = peek_document(head)
    if kind == "array":
        if isinstance(first, dict) and "ts" in first and first.get("type") in ("say", "ask"):
            roo = any(m in head for m in _ROO_MARKS) or "roo-cline" in name.lower()
            return "roo-code" if roo else "cline"
        return None
    if kind != "object":
        return None
    keys = set(fields)
    ident = fields.get("id")
    if "sessionId" in keys and ("chatMessages" in keys or "timeline" in keys):
        return "copilot-legacy"
    if "sessionId" in keys and "projectHash" in keys:
        return "gemini-json"
    if "sessionId" in keys and "history" in keys:
        return "continue"
    if isinstance(ident, str) and ident.startswith("T-") and ("v" in keys or "messages" in keys):
        return "amp"
    return None


def _text_format(head: bytes, name: str) -> Format | None:
    """Aider's Markdown history and Cursor's plain-text transcripts."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"# aider chat started at") or name.endswith(".aider.chat.history.md"):
        return "aider-md"
    first = text.split(b"\n", 1)[0].strip()
    if first in (b"user:", b"assistant:"):
        return "cursor-txt"
    return None


def sniff_format(head: bytes, name: str = "<bytes>") -> Format:
    """Detect the format from the first bytes of a file (complete lines only)."""
    if not head.strip():
        raise LoadError(name, "empty file")
    if is_sqlite(head):
        return _sqlite_format(head, name)
    text_fmt = _text_format(head, name)
    if text_fmt is not None:
        return text_fmt
    seen: list[str] = []
    for _no, start, stop in iter_lines(head):
        raw = head[start:stop]
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            seen.append("a line that is not JSON")
        else:
            fmt = classify_line(obj)
            if fmt is not None:
                return fmt
            seen.append(_describe(obj))
        if len(seen) >= SNIFF_LINES:
            break
    if head.lstrip()[:1] in (b"{", b"[", b"\xef"):
        try:
            doc = _document_format(head, name)
        except FIELD_ERRORS:
            doc = None
        if doc is not None:
            return doc
    what = "; ".join(dict.fromkeys(seen)) or "no complete line"
    if head.lstrip()[:1] in (b"{", b"[") and len(head) < (1 << 20) and _is_json(head):
        what = "a single JSON document, not JSON lines"  # e.g. a sessions.json store
    raise NotATranscriptError(name, "not a session transcript of any format SessionLens "
                              f"reads (pi/OpenClaw, Claude Code, Codex, Gemini CLI, Copilot "
                              f"CLI, Crush, OpenCode, Cursor, Cline, Roo Code, Aider, Kimi, "
                              f"Amp, Continue): saw {what}")


def _is_json(data: bytes) -> bool:
    """Whether ``data`` is one whole JSON document."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def _describe(obj: Any) -> str:
    if type(obj) is not dict:
        return f"a JSON {type(obj).__name__}"
    keys = ", ".join(list(obj)[:5])
    t = obj.get("type")
    return f"an object with type {t!r} (keys: {keys})" if t is not None else \
        f"an object with keys {keys}"
