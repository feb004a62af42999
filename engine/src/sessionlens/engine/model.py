"""The transcript model every format is read into.

One model for OpenClaw / pi (v1, v2, v3), Claude Code, Codex and the other agents' files
(``load.formats.catalog`` lists them), so that counting, planning, auditing and every view
work the same on all of them; what a format does not record is said in ``FormatGaps``. Everything here is frozen:
a loaded transcript never changes; reloading makes a new one.

Entries keep the byte ``offset`` and ``length`` of their source line instead of the parsed
JSON, so a 100 MB file does not cost its size again in dicts; ``raw_line()`` reads the line
back for the raw-JSON view and for verbatim copies into successor files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

__all__ = [
    "ContentBlock",
    "ContextItem",
    "ContextKind",
    "Diagnostic",
    "Entry",
    "FileOps",
    "Format",
    "FormatGaps",
    "GAP_KINDS",
    "ImageBlock",
    "KNOWN_ENTRY_TYPES",
    "MESSAGE_ROLES",
    "Message",
    "SessionHeader",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "Transcript",
    "Usage",
]

#: Formats the loader recognises (the ``format`` key of ``inspect``).
Format = Literal["openclaw-v3", "pi-v1", "pi-v2", "claude-code", "codex",
                 "gemini-jsonl", "gemini-json", "copilot-events", "copilot-legacy",
                 "crush-sqlite", "opencode-go-sqlite", "opencode-sqlite", "cursor-jsonl",
                 "cursor-txt", "cline", "roo-code", "aider-md", "kimi", "amp", "continue",
                 "openclaw-sqlite"]

#: Entry types of the OpenClaw / pi format (transcript-format.md §1.3). Other strings are
#: kept as-is ("unknown" types are legal and ignored for context).
KNOWN_ENTRY_TYPES = frozenset({
    "message", "thinking_level_change", "model_change", "compaction", "branch_summary",
    "custom", "custom_message", "label", "session_info", "reset", "leaf",
    # pi 1.6: provider usage outside the context, and edits of earlier context entries
    "usage", "context_edit",
})

#: Message roles (``compactionSummary`` and ``branchSummary`` exist only in replayed context).
MESSAGE_ROLES = frozenset({
    "user", "assistant", "toolResult", "bashExecution", "custom",
    "compactionSummary", "branchSummary", "system",
})


# --------------------------------------------------------------------------- content blocks

@dataclass(frozen=True, slots=True)
class TextBlock:
    """Plain text. ``signature`` holds a provider's textSignature when present."""

    text: str
    signature: str | None = None
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """Model reasoning. ``redacted`` blocks carry no readable text."""

    thinking: str
    redacted: bool = False
    signature: str | None = None
    kind: Literal["thinking"] = "thinking"


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    """A tool call made by the assistant; ``arguments`` is the parsed argument object."""

    id: str
    name: str
    arguments: Any
    partial_json: str | None = None
    kind: Literal["toolCall"] = "toolCall"


@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An inline image (base64 ``data``)."""

    mime_type: str
    data: str
    kind: Literal["image"] = "image"


ContentBlock = TextBlock | ThinkingBlock | ToolCallBlock | ImageBlock


# --------------------------------------------------------------------------- messages

@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage a provider reported for one assistant message."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost_total: float | None = None
    #: OpenClaw's ``usage.contextUsage.totalTokens`` when its state is "available".
    context_usage: int | None = None

    @property
    def context_tokens(self) -> int:
        """Tokens in the context at this message (pi ``calculateContextTokens``)."""
        if self.context_usage is not None:
            return self.context_usage
        if self.total_tokens:
            return self.total_tokens
        return self.input + self.output + self.cache_read + self.cache_write


@dataclass(frozen=True, slots=True)
class Message:
    """An ``AgentMessage``: role plus the fields that role carries (others stay default)."""

    role: str
    content: tuple[ContentBlock, ...] = ()
    #: True when the file held ``content`` as a plain string (user, custom).
    content_is_string: bool = False
    timestamp_ms: int | None = None
    # assistant
    api: str | None = None
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    stop_reason: str | None = None
    error_message: str | None = None
    # toolResult
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    # bashExecution
    command: str | None = None
    output: str | None = None
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool = False
    # custom (v2 "hookMessage" is migrated to "custom")
    custom_type: str | None = None
    display: bool = True
    # system (pi 1.6 stores its system prompt as a message: ``content`` is often "" and the
    # prompt lies in named ``sections``; a null section deletes an earlier one)
    sections: Mapping[str, str | None] | None = None
    #: Tool definitions the system message adds, as the file holds them (JSON objects).
    tools_added: tuple[Any, ...] = ()
    #: Names of tools the system message removes.
    tools_removed: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """All text blocks joined (what a reader sees as the message body)."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolCallBlock))


# --------------------------------------------------------------------------- entries

@dataclass(frozen=True, slots=True)
class FileOps:
    """Files a compaction recorded as read and as modified (``details``)."""

    read_files: tuple[str, ...] = ()
    modified_files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a transcript (or one logical entry an adapter made from a line).

    ``type`` is the entry type (``message``, ``compaction``, ...); fields that the type does
    not use keep their defaults. ``line`` is the 1-based line number in the source file.
    """

    type: str
    id: str
    parent_id: str | None
    timestamp: str | None
    line: int
    offset: int = 0
    length: int = 0
    message: Message | None = None
    # compaction / branch_summary / reset
    summary: str | None = None
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    file_ops: FileOps | None = None
    from_hook: bool = False
    from_id: str | None = None
    reason: str | None = None
    # label / leaf
    target_id: str | None = None
    label: str | None = None
    append_parent_id: str | None = None
    # session_info
    name: str | None = None
    # thinking_level_change / model_change
    thinking_level: str | None = None
    provider: str | None = None
    model_id: str | None = None
    # custom / custom_message
    custom_type: str | None = None
    data: Any = None
    content: tuple[ContentBlock, ...] = ()
    display: bool = True
    # newest OpenClaw
    append_mode: str | None = None
    # pi 1.6: a compaction's system message (its context starts with it) and the usage a
    # ``compaction`` or ``usage`` entry records (``usage`` entries: provider/model_id too)
    system_message: Message | None = None
    usage: Usage | None = None
    #: ``context_edit``: the new content of ``target_id``'s entry, or None when the edit
    #: hides it (``replacement: null``, e.g. a failed turn taken out of the context).
    replacement: tuple[ContentBlock, ...] | None = None
    #: Adapter-specific facts (Claude Code ``isSidechain``, Codex payload type, ...).
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def role(self) -> str | None:
        """The message role for ``message`` entries, else None."""
        return self.message.role if self.message is not None else None

    @property
    def is_known_type(self) -> bool:
        return self.type in KNOWN_ENTRY_TYPES


# --------------------------------------------------------------------------- the transcript

@dataclass(frozen=True, slots=True)
class SessionHeader:
    """The ``type: "session"`` first line (or the adapter's equivalent)."""

    id: str
    version: int
    timestamp: str | None = None
    cwd: str | None = None
    parent_session: str | None = None
    #: Legacy v1 fork link.
    branched_from: str | None = None
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None
    line: int = 1
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found while loading: which file, which line (if any), and why."""

    path: str
    line: int | None
    reason: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.reason}"


#: What a format may not record (``FormatGaps.missing``); ``load.formats.catalog`` words them.
GAP_KINDS = frozenset({
    "ids", "timestamps", "usage", "tool_results", "model", "compaction_summary",
    "kept_window",
})


@dataclass(frozen=True, slots=True)
class FormatGaps:
    """What this transcript's format does not record, said once so views show "not
    recorded" instead of a number SessionLens would have to invent.

    ``missing`` holds ``GAP_KINDS`` names; ``notes`` says, in a sentence each, how the
    loader filled a gap (ids made from record numbers, a context size taken from the session
    row...). Formats that record everything (pi, OpenClaw, Claude Code) have none.
    """

    agent: str = ""
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def lacks(self, kind: str) -> bool:
        return kind in self.missing


ContextKind = Literal["message", "compaction_summary", "branch_summary", "custom_message"]


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One message the model would see after replay (§1.8), pointing at its entry."""

    kind: ContextKind
    entry_id: str
    role: str
    #: The ``context_edit`` entry whose replacement the model sees instead of this entry's
    #: own content (pi 1.6), or None.
    edit_id: str | None = None


_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Transcript:
    """A loaded transcript: entries in file order, the tree, the active path and replay."""

    path: Path
    format: Format
    header: SessionHeader | None
    entries: tuple[Entry, ...]
    #: entry id -> index into ``entries``.
    index: Mapping[str, int]
    leaf_id: str | None
    #: Entry ids from the root to the leaf.
    active_path: tuple[str, ...]
    #: What the model sees after replaying compactions / resets.
    context: tuple[ContextItem, ...]
    labels: Mapping[str, str]
    session_name: str | None
    diagnostics: tuple[Diagnostic, ...]
    file_size: int = 0
    file_mtime_ns: int = 0
    #: SHA-256 of the bytes that were loaded ("" when loaded from memory): what a write
    #: compares the file on disk against before it copies or replaces anything.
    file_sha256: str = ""
    #: What the format does not record (empty for pi, OpenClaw and Claude Code files).
    gaps: FormatGaps = FormatGaps()
    #: When the file was read, on the clock file times come from (0: unknown). A write
    #: uses it to tell a compaction made by another run after this load from older ones.
    loaded_at_ns: int = 0
    #: Names of the checkpoint copies beside the file when it was read: one written in the
    #: same clock tick as the read is told apart from a later one by not being among them.
    checkpoints_at_load: frozenset[str] = frozenset()
    #: How ``raw_line`` reads an entry back from a file that is not lines of bytes (a
    #: database): (source file, session id, the entry's offset) -> its JSON. The loader sets
    #: it from ``load.formats.catalog``; None: the entry's byte range of the file.
    row_reader: Callable[[Path, str, int], bytes] | None = field(default=None, repr=False,
                                                                 compare=False)
    #: Values derived from the entries, kept by ``derive`` once the module that owns each
    #: has worked it out (``compactions``, pi estimates): the entries never change, and the
    #: GUI and ``inspect`` ask several analyses that each walked 100k entries for the same
    #: numbers. Never copied by ``dataclasses.replace`` (init=False), never compared.
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False,
                                    compare=False)

    def entry(self, entry_id: str) -> Entry:
        """The entry with this id (KeyError if absent)."""
        return self.entries[self.index[entry_id]]

    def get(self, entry_id: str | None) -> Entry | None:
        if entry_id is None:
            return None
        i = self.index.get(entry_id)
        return None if i is None else self.entries[i]

    def derive(self, key: str, make: Callable[[], _T]) -> _T:
        """``make()``, worked out once per transcript and kept in ``derived`` under ``key``
        (two threads may both make it; the first one kept is the one both get)."""
        found = self.derived.get(key)
        if found is None:
            found = self.derived.setdefault(key, make())
        return cast(_T, found)

    def path_entries(self) -> tuple[Entry, ...]:
        """Entries of the active path, root first (built once: ``inspect`` asked 7 times)."""
        return self.derive("path_entries", lambda: tuple(
            self.entries[self.index[i]] for i in self.active_path))

    @property
    def session_id(self) -> str | None:
        return self.header.id if self.header is not None else None

    @property
    def compactions(self) -> tuple[Entry, ...]:
        """Every compaction entry in the file (all branches), in file order (found once: a
        scan of 100k entries on every call cost the GUI's UI thread 8 ms each time)."""
        return self.derive("compactions", lambda: tuple(
            e for e in self.entries if e.type == "compaction"))

    @property
    def source_file(self) -> Path:
        """The file the entries were read from: ``path`` itself, or, for one session of a
        multi-session file (``<file>/<session>``: a SQLite database, an Aider history), that
        file."""
        parent = self.path.parent
        return parent if not self.path.exists() and parent.is_file() else self.path

    def raw_line(self, entry: Entry) -> bytes:
        """The entry's source line, read back from disk (empty if the file changed size)."""
        if entry.length <= 0:
            return b""
        if self.row_reader is not None and self.header is not None:
            return self.row_reader(self.source_file, self.header.id, entry.offset)
        with open(self.source_file, "rb") as fh:
            fh.seek(entry.offset)
            return fh.read(entry.length)
