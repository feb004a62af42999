"""Typed field reading for pi / OpenClaw entries, messages and content blocks.

Kept apart from the line loop in ``pi.py`` so each stays short. A field of the wrong type
becomes a Diagnostic and its default, so one odd field never costs the whole entry; only an
entry that cannot mean anything (a ``message`` entry without a message object) is refused
with ``ValueError``, which the line loop turns into a diagnostic.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from sessionlens.engine.load.formats.fast_new import fast_constructor
from sessionlens.engine.load.formats.jsonl import USAGE_MAX_TOKENS, usage_count, usage_problem
from sessionlens.engine.model import (
    ContentBlock,
    Diagnostic,
    Entry,
    FileOps,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

__all__ = ["FieldReader"]

_EMPTY: MappingProxyType[str, Any] = MappingProxyType({})
_NO_OPS = FileOps()
_USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")

# Hot-path constructors (see fast_new): most lines are messages of these three shapes.
_BASE = ("role", "content", "content_is_string", "timestamp_ms")
_new_message_entry = fast_constructor(
    Entry, ("type", "id", "parent_id", "timestamp", "line", "offset", "length", "message",
            "append_mode"), {"extra": _EMPTY})
_new_plain = fast_constructor(Message, _BASE)
_new_assistant = fast_constructor(Message, (*_BASE, "api", "provider", "model", "usage",
                                            "stop_reason", "error_message"))
_new_tool_result = fast_constructor(Message, (*_BASE, "tool_call_id", "tool_name",
                                              "is_error"))
# ... and the blocks and usage inside them (a 100 MB file holds ~100,000 of these)
_new_text = fast_constructor(TextBlock, ("text", "signature"))
_new_thinking = fast_constructor(ThinkingBlock, ("thinking", "redacted", "signature"))
_new_call = fast_constructor(ToolCallBlock, ("id", "name", "arguments", "partial_json"))
_new_image = fast_constructor(ImageBlock, ("mime_type", "data"))
_new_usage = fast_constructor(Usage, ("input", "output", "cache_read", "cache_write",
                                      "total_tokens", "cost_total", "context_usage"))


class FieldReader:
    """Reads typed fields of one line at a time and records what was wrong with them."""

    __slots__ = ("path", "diags", "line")

    def __init__(self, path: str, diags: list[Diagnostic]) -> None:
        self.path = path
        self.diags = diags
        self.line = 0

    # ------------------------------------------------------------------ diagnostics
    def warn(self, reason: str) -> None:
        self.diags.append(Diagnostic(self.path, self.line, reason, "warning"))

    def error(self, reason: str) -> None:
        self.diags.append(Diagnostic(self.path, self.line, reason, "error"))

    def opt_str(self, obj: dict[str, Any], key: str) -> str | None:
        value = obj.get(key)
        if value is None or type(value) is str:
            return value
        self.warn(f"field {key!r} should be a string, got {type(value).__name__}; ignored")
        return None

    def opt_int(self, obj: dict[str, Any], key: str) -> int | None:
        value = obj.get(key)
        if value is None or type(value) is int:
            return value
        if type(value) is float:
            return int(value)
        self.warn(f"field {key!r} should be a number, got {type(value).__name__}; ignored")
        return None

    def flag(self, obj: dict[str, Any], key: str, default: bool = False) -> bool:
        value = obj.get(key)
        if value is None:
            return default
        if type(value) is bool:
            return value
        self.warn(f"field {key!r} should be true/false, got {type(value).__name__}; ignored")
        return default

    def parent_id(self, obj: dict[str, Any]) -> str | None:
        if "parentId" not in obj:
            self.warn("entry has no 'parentId'; treated as a root")
            return None
        value = obj["parentId"]
        if value is None or type(value) is str:
            return value
        self.error(f"'parentId' should be a string or null, got {type(value).__name__}; "
                   "treated as a root")
        return None

    # ------------------------------------------------------------------ entries
    def entry(self, obj: dict[str, Any], etype: str, eid: str, parent: str | None,
              offset: int, length: int) -> Entry:
        """One typed Entry; unknown types keep only the base fields."""
        ts = obj.get("timestamp")
        if ts is not None and type(ts) is not str:
            self.warn(f"entry 'timestamp' should be an ISO string, got {type(ts).__name__}")
            ts = None
        append_mode = obj.get("appendMode")
        if append_mode is not None and type(append_mode) is not str:
            self.warn("'appendMode' should be a string; ignored")
            append_mode = None
        base = (etype, eid, parent, ts, self.line, offset, length)
        if etype == "message":
            raw = obj.get("message")
            if type(raw) is not dict:
                raise ValueError("'message' entry has no message object")
            return _new_message_entry(etype, eid, parent, ts, self.line, offset, length,
                                      self.message(raw), append_mode)
        if etype == "compaction" or etype == "branch_summary":
            summary = self.opt_str(obj, "summary")
            if summary is None and type(obj.get("summary")) is not str:
                self.warn(f"{etype} entry has no summary text ('summary' is "
                          f"{'null' if 'summary' in obj else 'missing'}); read as empty")
            return Entry(*base, summary=summary if summary is not None else "",
                         first_kept_entry_id=self.opt_str(obj, "firstKeptEntryId"),
                         tokens_before=self.opt_int(obj, "tokensBefore"),
                         file_ops=self.file_ops(obj.get("details")),
                         from_hook=self.flag(obj, "fromHook"),
                         from_id=self.opt_str(obj, "fromId"),
                         system_message=self.system_message(obj.get("systemMessage")),
                         usage=self.usage(obj.get("usage")),
                         append_mode=append_mode, extra=_EMPTY)
        if etype == "context_edit":
            target = obj.get("targetId")
            if type(target) is not str:
                self.warn("context_edit has no string 'targetId'; it edits nothing")
                target = None
            return Entry(*base, target_id=target, replacement=self.replacement(obj),
                         append_mode=append_mode, extra=_EMPTY)
        if etype == "usage":
            return Entry(*base, reason=self.opt_str(obj, "kind"),
                         provider=self.opt_str(obj, "provider"),
                         model_id=self.opt_str(obj, "model"), usage=self.usage(obj.get("usage")),
                         append_mode=append_mode, extra=_EMPTY)
        if etype == "custom_message":
            content, _ = self.blocks(obj.get("content"))
            return Entry(*base, custom_type=self.opt_str(obj, "customType"), content=content,
                         display=self.flag(obj, "display", True), append_mode=append_mode,
                         extra=_EMPTY)
        if etype == "custom":
            return Entry(*base, custom_type=self.opt_str(obj, "customType"),
                         data=obj.get("data"), append_mode=append_mode, extra=_EMPTY)
        if etype == "label" or etype == "leaf":
            target = obj.get("targetId")
            if target is not None and type(target) is not str:
                self.warn("'targetId' should be a string or null; read as null")
                target = None
            return Entry(*base, target_id=target, label=self.opt_str(obj, "label"),
                         append_parent_id=self.opt_str(obj, "appendParentId"),
                         append_mode=append_mode, extra=_EMPTY)
        if etype == "session_info":
            return Entry(*base, name=self.opt_str(obj, "name"), append_mode=append_mode,
                         extra=_EMPTY)
        if etype == "thinking_level_change":
            return Entry(*base, thinking_level=self.opt_str(obj, "thinkingLevel"),
                         append_mode=append_mode, extra=_EMPTY)
        if etype == "model_change":
            return Entry(*base, provider=self.opt_str(obj, "provider"),
                         model_id=self.opt_str(obj, "modelId"), append_mode=append_mode,
                         extra=_EMPTY)
        if etype == "reset":
            return Entry(*base, reason=self.opt_str(obj, "reason"),
                         first_kept_entry_id=self.opt_str(obj, "firstKeptEntryId"),
                         append_mode=append_mode, extra=_EMPTY)
        return Entry(*base, append_mode=append_mode, extra=_EMPTY)

    def system_message(self, raw: Any) -> Message | None:
        """A compaction's ``systemMessage`` (pi 1.6), read as a stored system message."""
        if raw is None:
            return None
        if type(raw) is not dict or raw.get("role") != "system":
            self.warn("'systemMessage' should be a system message object; ignored")
            return None
        return self.message(raw)

    def replacement(self, obj: dict[str, Any]) -> tuple[ContentBlock, ...] | None:
        """A context edit's new content; None when ``replacement`` is null (it hides)."""
        raw = obj.get("replacement")
        if raw is None:
            return None
        if type(raw) is not dict or "content" not in raw:
            self.warn("context_edit 'replacement' should be null or an object with 'content'; "
                      "read as hiding its target")
            return None
        blocks, _ = self.blocks(raw.get("content"))
        return blocks

    def _system(self, m: dict[str, Any], content: tuple[ContentBlock, ...], is_string: bool,
                ts_ms: int | None) -> Message:
        raw_sections = m.get("sections")
        sections: dict[str, str | None] | None = None
        if type(raw_sections) is dict:
            sections = {str(k): v for k, v in raw_sections.items()
                        if v is None or type(v) is str}
        elif raw_sections is not None:
            self.warn("system message 'sections' should be an object; ignored")
        added = m.get("toolsAdded")
        removed = m.get("toolsRemoved")
        return Message("system", content, is_string, ts_ms,
                       sections=MappingProxyType(sections) if sections is not None else None,
                       tools_added=tuple(t for t in added if type(t) is dict)
                       if type(added) is list else (),
                       tools_removed=tuple(t["name"] for t in removed
                                           if type(t) is dict and type(t.get("name")) is str)
                       if type(removed) is list else ())

    def file_ops(self, details: Any) -> FileOps | None:
        if details is None:
            return None
        if type(details) is not dict:
            self.warn("'details' should be an object; ignored")
            return None
        read = details.get("readFiles")
        modified = details.get("modifiedFiles")
        if read is None and modified is None:
            return _NO_OPS
        return FileOps(self._names(read, "readFiles"), self._names(modified, "modifiedFiles"))

    def _names(self, value: Any, key: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if type(value) is not list:
            self.warn(f"'details.{key}' should be a list; ignored")
            return ()
        return tuple(v for v in value if type(v) is str)

    def _bad_block(self, kind: str, key: str, value: Any) -> None:
        self.warn(f"{kind} block: {key!r} should be a string, got {type(value).__name__}; "
                  "read as empty")

    def _bad_call(self, tid: Any, name: Any, args: Any) -> None:
        for key, value in (("id", tid), ("name", name)):
            if type(value) is not str:
                self.warn(f"toolCall block: {key!r} should be a string, got "
                          f"{type(value).__name__}; read as empty")
        if args is not None and type(args) is not dict:
            self.warn(f"toolCall block: 'arguments' should be an object, got "
                      f"{type(args).__name__}; kept as it is")

    # ------------------------------------------------------------------ messages
    def message(self, m: dict[str, Any]) -> Message:
        role = m.get("role")
        if type(role) is not str:
            raise ValueError("message has no string 'role'")
        if role == "hookMessage":  # v2 name of the custom role
            role = "custom"
        content, is_string = self.blocks(m.get("content"))
        ts = m.get("timestamp")
        ts_ms = ts if type(ts) is int else int(ts) if type(ts) is float else None
        if role == "assistant":
            api, provider, model = m.get("api"), m.get("provider"), m.get("model")
            stop, err = m.get("stopReason"), m.get("errorMessage")
            if not (type(api) is str and type(provider) is str and type(model) is str
                    and type(stop) is str and (err is None or type(err) is str)):
                api, provider, model = (self.opt_str(m, "api"), self.opt_str(m, "provider"),
                                        self.opt_str(m, "model"))
                stop, err = self.opt_str(m, "stopReason"), self.opt_str(m, "errorMessage")
            return _new_assistant(role, content, is_string, ts_ms, api, provider, model,
                                  self.usage(m.get("usage")), stop, err)
        if role == "toolResult":
            call_id, name, is_error = m.get("toolCallId"), m.get("toolName"), m.get("isError")
            if not (type(call_id) is str and type(name) is str and type(is_error) is bool):
                call_id, name = self.opt_str(m, "toolCallId"), self.opt_str(m, "toolName")
                is_error = self.flag(m, "isError")
            return _new_tool_result(role, content, is_string, ts_ms,
                                    call_id, name, is_error)
        if role == "bashExecution":
            exit_code = m.get("exitCode")
            return Message(role, content, is_string, ts_ms, command=self.opt_str(m, "command"),
                           output=self.opt_str(m, "output"),
                           exit_code=exit_code if type(exit_code) is int else None,
                           cancelled=self.flag(m, "cancelled"),
                           truncated=self.flag(m, "truncated"),
                           full_output_path=self.opt_str(m, "fullOutputPath"),
                           exclude_from_context=self.flag(m, "excludeFromContext"))
        if role == "custom":
            return Message(role, content, is_string, ts_ms,
                           custom_type=self.opt_str(m, "customType"),
                           display=self.flag(m, "display", True))
        if role == "system":
            return self._system(m, content, is_string, ts_ms)
        return _new_plain(role, content, is_string, ts_ms)

    def usage(self, u: Any) -> Usage | None:
        if type(u) is not dict:
            return None
        cost = u.get("cost")
        cost_total = cost.get("total") if type(cost) is dict else None
        if type(cost_total) not in (int, float):
            cost_total = None
        cu = u.get("contextUsage")
        context_usage = None
        if type(cu) is dict and cu.get("state") == "available":
            raw_cu = cu.get("totalTokens")
            if type(raw_cu) is int and 0 <= raw_cu <= USAGE_MAX_TOKENS:
                context_usage = raw_cu
            elif raw_cu is not None:
                self._bad_usage("contextUsage.totalTokens", raw_cu)
        inp, out, read, write = u.get("input"), u.get("output"), u.get("cacheRead"), u.get("cacheWrite")
        total = u.get("totalTokens")
        if (type(inp) is int and type(out) is int and type(read) is int and type(write) is int
                and type(total) is int and 0 <= min(inp, out, read, write, total)
                and max(inp, out, read, write, total) <= USAGE_MAX_TOKENS):  # the hot path
            return _new_usage(inp, out, read, write, total, cost_total, context_usage)
        for key, value in zip(_USAGE_KEYS, (inp, out, read, write, total), strict=True):
            self._bad_usage(key, value)
        return _new_usage(usage_count(inp), usage_count(out), usage_count(read),
                          usage_count(write), usage_count(total), cost_total, context_usage)

    def _bad_usage(self, key: str, value: Any) -> None:
        problem = usage_problem(value)
        if problem is not None:
            self.warn(f"usage.{key} {problem}; not used as a token count")

    def blocks(self, raw: Any) -> tuple[tuple[ContentBlock, ...], bool]:
        """Content blocks and whether the file held a plain string."""
        if type(raw) is str:
            return (_new_text(raw, None),), True
        if raw is None:
            return (), False
        if type(raw) is not list:
            self.warn(f"'content' should be a string or a list, got {type(raw).__name__}")
            return (), False
        out: list[ContentBlock] = []
        append = out.append
        for b in raw:
            kind = b.get("type") if type(b) is dict else None
            if kind == "text":
                text = b.get("text")
                sig = b.get("textSignature")
                if type(text) is not str:
                    self._bad_block("text", "text", text)
                    text = ""
                append(_new_text(text, sig if type(sig) is str else None))
            elif kind == "toolCall":
                tid = b.get("id")
                name = b.get("name")
                partial = b.get("partialJson")
                args = b.get("arguments")
                if type(tid) is not str or type(name) is not str or (
                        args is not None and type(args) is not dict):
                    self._bad_call(tid, name, args)
                append(_new_call(tid if type(tid) is str else "",
                                 name if type(name) is str else "", args,
                                 partial if type(partial) is str else None))
            elif kind == "thinking":
                text = b.get("thinking")
                sig = b.get("thinkingSignature")
                if type(text) is not str:
                    self._bad_block("thinking", "thinking", text)
                    text = ""
                append(_new_thinking(text, b.get("redacted") is True,
                                     sig if type(sig) is str else None))
            elif kind == "image":
                data = b.get("data")
                mime = b.get("mimeType")
                if type(data) is not str or type(mime) is not str:
                    self._bad_block("image", "data" if type(data) is not str else "mimeType",
                                    data if type(data) is not str else mime)
                append(_new_image(mime if type(mime) is str else "",
                                  data if type(data) is str else ""))
            elif type(b) is not dict:
                self.warn("a content block is not an object; skipped")
            else:
                self.warn(f"unknown content block type {kind!r}; skipped")
        return tuple(out), False
