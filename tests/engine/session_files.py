"""Small synthetic OpenClaw v3 transcript files for audit/export tests (written in code)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HEADER = {"type": "session", "version": 3, "id": "6f1c2d3e-0000-4000-8000-00000000abcd",
          "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/home/dev/project"}


class SessionFile:
    """Appends v3 entries (each a child of the previous one) and writes them as JSONL."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = [dict(HEADER)]
        self.leaf: str | None = None
        self.n = 0

    def _add(self, obj: dict[str, Any]) -> str:
        self.n += 1
        entry_id = f"e{self.n:07x}"
        obj = {"id": entry_id, "parentId": self.leaf,
               "timestamp": f"2026-01-01T00:00:{self.n % 60:02d}.000Z", **obj}
        self.lines.append(obj)
        self.leaf = entry_id
        return entry_id

    def user(self, text: str) -> str:
        return self._add({"type": "message", "message": {"role": "user", "content": text,
                                                         "timestamp": 1}})

    def assistant(self, text: str, calls: list[dict[str, Any]] | None = None) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        content += [{"type": "toolCall", **c} for c in calls or []]
        return self._add({"type": "message", "message": {
            "role": "assistant", "content": content, "api": "x", "provider": "p", "model": "m",
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
            "stopReason": "toolUse" if calls else "stop", "timestamp": 2}})

    def tool_result(self, call_id: str, name: str, text: str, is_error: bool = False) -> str:
        return self._add({"type": "message", "message": {
            "role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": is_error, "timestamp": 3}})

    def bash(self, command: str, output: str) -> str:
        return self._add({"type": "message", "message": {
            "role": "bashExecution", "command": command, "output": output, "exitCode": 0,
            "cancelled": False, "truncated": False, "timestamp": 4}})

    def compaction(self, summary: str, first_kept: str | None, *, from_hook: bool = False) -> str:
        obj: dict[str, Any] = {"type": "compaction", "summary": summary,
                               "firstKeptEntryId": first_kept, "tokensBefore": 1234,
                               "details": {"readFiles": [], "modifiedFiles": []}}
        if from_hook:
            obj["fromHook"] = True
        entry_id = self._add(obj)
        if first_kept is None:
            self.lines[-1]["firstKeptEntryId"] = entry_id
        return entry_id

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in self.lines),
                        encoding="utf-8")
        return path


def structured_summary(body: str = "") -> str:
    """A pi structured summary with every heading once; ``body`` goes under Critical Context."""
    return "\n".join([
        "## Goal", "Ship the parser.", "", "## Constraints & Preferences", "- none", "",
        "## Progress", "### Done", "- [x] read files", "### In Progress", "- [ ] tests",
        "### Blocked", "- none", "", "## Key Decisions", "- **keep**: simple", "",
        "## Next Steps", "1. finish", "", "## Critical Context", body, ""])


def basic_session(tmp: Path, *, summary: str | None = None) -> tuple[Path, dict[str, str]]:
    """A session with one compaction over a span holding a path, a command, an error, a URL.

    Returns the file and the ids of interest."""
    s = SessionFile()
    ids: dict[str, str] = {}
    ids["ask"] = s.user("Please fix the crash in /srv/app/parser.py when loading big files")
    ids["call"] = s.assistant("Running the tests.", [{"id": "c1", "name": "bash",
                                                      "arguments": {"command": "pytest -q tests/test_parser.py"}}])
    ids["err"] = s.tool_result("c1", "bash", "FAILED tests/test_parser.py::test_big\n"
                               "MemoryError: parser ran out of memory at 2048 MB", is_error=True)
    ids["docs"] = s.assistant("See https://docs.example.org/parser for limits; build 9f8e7d6c5b4a.")
    ids["kept"] = s.user("ok, thanks, keep going")
    s.assistant("Continuing.")
    ids["compaction"] = s.compaction(summary if summary is not None else structured_summary(),
                                     ids["kept"])
    s.user("what next?")
    s.assistant("Next we profile.")
    return s.write(tmp / "session.jsonl"), ids
