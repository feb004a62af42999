"""The recall tools as a Model Context Protocol server over stdio (the official ``mcp`` SDK).

Thin: each tool is one ``Recall`` method run on a worker thread (loading a transcript takes
a second; the event loop keeps answering meanwhile), its record published as the tool's
structured result and output schema. An engine error becomes a tool error the model reads
(redacted like every answer); anything else is the SDK's "Error executing tool". Every tool
is marked read-only. The ``mcp`` package is the optional extra ``sessionlens-engine[mcp]``;
only ``sessionlens mcp`` imports this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from sessionlens.engine.errors import SessionLensError

from .recall_service import MAX_PAGE_CHARS, MAX_SEARCH_HITS, Recall
from .result_redaction import redact_text
from .results import (
    CompactionDrops,
    FactTraceResult,
    OriginalText,
    SearchAnswer,
    SessionList,
    SessionOverview,
)

__all__ = ["SERVER_NAME", "build_server", "serve_stdio"]

SERVER_NAME = "sessionlens"
T = TypeVar("T")

INSTRUCTIONS = (
    "SessionLens recall: read-only memory over the user's past AI-agent sessions (pi, "
    "OpenClaw, Claude Code, Codex and others) and what each compaction kept or lost. Use it "
    "when you have forgotten something from earlier in this or another session: search_"
    "sessions finds where it was said and whether a compaction dropped it; original_text "
    "gives back the exact words. trace_fact and compaction_dropped explain what a summary "
    "lost. Every answer names the session file it came from; secrets are redacted.")

_SESSION = Annotated[str, Field(description=(
    "The session: a transcript path as other tools return it (e.g. from search_sessions or "
    "list_sessions), its file name, or the agent's session id."))]


def _annotations(title: str) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=True, destructive_hint=False,
                           idempotent_hint=True, open_world_hint=False)


async def _call(fn: Callable[[], T]) -> T:
    try:
        return await anyio.to_thread.run_sync(fn)
    except SessionLensError as exc:
        raise ToolError(redact_text(str(exc))) from None


def build_server(recall: Recall) -> MCPServer:
    """An MCP server whose tools answer through ``recall``."""
    server: MCPServer = MCPServer(SERVER_NAME, title="SessionLens recall",
                                  instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=_annotations("Search past sessions"))
    async def search_sessions(
        query: Annotated[str, Field(description=(
            "Words that must all occur, a \"quoted phrase\", or a prefix*. Identifiers "
            "(paths, error codes, ids, URLs) work best."))],
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_HITS,
                                    description="At most this many hits, best first.")] = 5,
        agent: Annotated[str | None, Field(description=(
            "Only this agent's sessions: pi, claude-code, codex, or an OpenClaw agent id "
            "such as main."))] = None,
        since: Annotated[str | None, Field(description=(
            "Only entries at or after this date (YYYY-MM-DD or ISO date-time)."))] = None,
    ) -> SearchAnswer:
        """Full-text search over every session transcript in scope. Each hit gives the
        session path, the entry id, a snippet, and its fate: "not compacted yet", "kept by
        compaction X", or "lost at compaction X" (the summary that replaced it no longer
        carries what matched). Pass a hit's path and entry_id to original_text for the
        full original wording."""
        return await _call(lambda: recall.search_sessions(query, limit, agent, since))

    @server.tool(annotations=_annotations("List sessions"))
    async def list_sessions(
        agent: Annotated[str | None, Field(description="Only this agent's sessions.")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="At most this many.")] = 20,
    ) -> SessionList:
        """The session files in scope, newest first: path, agent, session id, entries and
        compaction count. Use a path with the other tools."""
        return await _call(lambda: recall.list_sessions(agent, limit))

    @server.tool(annotations=_annotations("Session overview"))
    async def session_overview(session: _SESSION) -> SessionOverview:
        """One session at a glance: agent, model, entries, time span, and every compaction
        with its memory health (severity critical/warning/notice/ok, worst first; flags
        such as total-loss or kept-tail-lost; how many specifics its summary dropped)."""
        return await _call(lambda: recall.session_overview(session))

    @server.tool(annotations=_annotations("Trace a fact"))
    async def trace_fact(
        session: _SESSION,
        text: Annotated[str, Field(description=(
            "The fact to follow: a path, error, identifier, number or a few exact words."))],
    ) -> FactTraceResult:
        """Follow a fact through the session and its chain of predecessor/successor files:
        where it first appeared, which entries mention it, and for each compaction whether
        its summary or kept tail still carried it. lost_at names the compaction that made
        the agent forget it ("compaction 2 (578fa8c6)"), or is null."""
        return await _call(lambda: recall.trace_fact(session, text))

    @server.tool(annotations=_annotations("What a compaction dropped"))
    async def compaction_dropped(
        session: _SESSION,
        compaction_id: Annotated[str | None, Field(description=(
            "The compaction entry id (from session_overview or trace_fact); default: the "
            "session's last compaction."))] = None,
    ) -> CompactionDrops:
        """The specifics (paths, URLs, errors, commands, numbers with their meaning) of the
        history a compaction summarized that its summary does not carry, each with the
        entry ids that mention it: pass those to original_text to recover them."""
        return await _call(lambda: recall.compaction_dropped(session, compaction_id))

    @server.tool(annotations=_annotations("Original text of entries"))
    async def original_text(
        session: _SESSION,
        entry_ids: Annotated[list[str], Field(min_length=1, max_length=20, description=(
            "Entry ids from search_sessions, trace_fact or compaction_dropped."))],
        offset: Annotated[int, Field(ge=0, description=(
            "Character offset of the page (next_offset of the previous answer)."))] = 0,
        max_chars: Annotated[int, Field(ge=1, le=MAX_PAGE_CHARS, description=(
            "Page size in characters."))] = 4000,
    ) -> OriginalText:
        """The original, uncompacted text of the given entries (message text, tool calls
        and their output), exactly as the transcript recorded it with secrets redacted,
        one page at a time: call again with next_offset while it is not null."""
        return await _call(lambda: recall.original_text(session, entry_ids, offset, max_chars))

    return server


def serve_stdio(recall: Recall) -> None:
    """Serve the recall tools on stdin/stdout until the client closes them."""
    build_server(recall).run("stdio")
