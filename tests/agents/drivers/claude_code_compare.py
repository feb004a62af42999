"""What Claude Code sent, held against what SessionLens reads and replays of its files.

A driver folder (``write_fixture``, or a live run) has the session file and the requests
Claude Code sent. Texts are compared, in order: a request's texts are its user and assistant
messages' text blocks (less ``<system-reminder>`` blocks, which come from attachment rows
and environment blobs), tool calls (name and input) and tool results; SessionLens's are the
same of its replayed context (a compaction's summary is the summary message's text).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import TextBlock, ToolCallBlock, Transcript

__all__ = ["DriverFolder", "context_texts", "request_texts", "texts_before"]


@dataclass(frozen=True)
class DriverFolder:
    session_file: Path
    requests: list[dict[str, Any]]

    @classmethod
    def read(cls, folder: Path) -> DriverFolder:
        session = next(p for p in folder.glob("*.jsonl") if p.name != "requests.jsonl")
        lines = (folder / "requests.jsonl").read_text(encoding="utf-8").splitlines()
        return cls(session, [json.loads(line) for line in lines])

    @property
    def turn_requests(self) -> list[dict[str, Any]]:
        """The requests of the conversation itself (not Claude Code's summary requests)."""
        return [r for r in self.requests if not r["compaction"]]

    def rows(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in
                self.session_file.read_text(encoding="utf-8").splitlines()]


def _block_texts(content: Any) -> Iterable[str]:
    if isinstance(content, str):
        yield content
        return
    for block in content or []:
        kind = block.get("type")
        if kind == "text":
            yield block["text"]
        elif kind == "tool_use":
            yield f"{block['name']} {json.dumps(block['input'], sort_keys=True)}"
        elif kind == "tool_result":
            yield from _block_texts(block.get("content"))


def request_texts(messages: Sequence[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for m in messages:
        if m.get("role") not in ("user", "assistant"):
            continue
        out += [t.strip() for t in _block_texts(m.get("content"))
                if t.strip() and not t.lstrip().startswith("<system-reminder>")]
    return out


def context_texts(t: Transcript) -> list[str]:
    out: list[str] = []
    for item in t.context:
        entry = t.entries[t.index[item.entry_id]]
        if item.kind == "compaction_summary":
            out.append((entry.summary or "").strip())
            continue
        msg = entry.message
        if msg is None:
            continue
        for b in msg.content:
            if isinstance(b, TextBlock) and b.text.strip():
                if not b.text.lstrip().startswith("<system-reminder>"):
                    out.append(b.text.strip())
            elif isinstance(b, ToolCallBlock):
                out.append(f"{b.name} {json.dumps(b.arguments, sort_keys=True)}")
    return out


def texts_before(session_file: Path, request_id: str, tmp: Path) -> list[str]:
    """SessionLens's replayed context of the file as it stood when Claude Code sent request
    ``request_id`` (every line before the ``api-request`` record of that id)."""
    lines = session_file.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines)
               if b'"api-request"' in line and request_id.encode() in line)
    prefix = tmp / session_file.name
    prefix.write_bytes(b"".join(lines[:cut]))
    return context_texts(load_transcript(prefix))
