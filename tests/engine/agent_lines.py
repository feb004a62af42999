"""Claude Code and Codex lines built in code, for the adapter tests (no files needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessionlens.engine.formats import claude_code, codex
from sessionlens.engine.model import Transcript
from sessionlens.engine.tree import build_transcript

# ----------------------------------------------------------------------------- Claude Code

CC_P = Path("/virtual/proj/11111111-2222-3333-4444-555555555555.jsonl")
CC_SID = "11111111-2222-3333-4444-555555555555"


def line(type: str, uuid: str | None, parent: str | None, **fields: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": type, "parentUuid": parent, "isSidechain": False,
                           "sessionId": CC_SID, "timestamp": "2026-04-07T21:01:51.000Z",
                           "cwd": "/work/proj", "version": "2.1.92"}
    if uuid is not None:
        obj["uuid"] = uuid
    obj.update(fields)
    return obj


def user(uuid: str, parent: str | None, content: Any, **fields: Any) -> dict[str, Any]:
    return line("user", uuid, parent, message={"role": "user", "content": content}, **fields)


def asst(uuid: str, parent: str | None, blocks: list[dict[str, Any]], mid: str = "m1",
         **fields: Any) -> dict[str, Any]:
    msg = {"id": mid, "role": "assistant", "model": "claude-opus-4-6", "content": blocks,
           "stop_reason": fields.pop("stop_reason", None),
           "usage": fields.pop("usage", {"input_tokens": 10, "output_tokens": 5,
                                         "cache_read_input_tokens": 100,
                                         "cache_creation_input_tokens": 20})}
    return line("assistant", uuid, parent, message=msg, **fields)


def tool_use(tid: str, name: str = "Read") -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": {"file_path": f"/w/{tid}"}}


def result(tid: str, text: str = "ok", **kw: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tid, "content": text, **kw}


def jl(*objs: Any) -> bytes:
    return "".join(json.dumps(o) + "\n" for o in objs).encode()


def cc_load(*objs: Any, path: Path = CC_P) -> Transcript:
    parsed = claude_code.parse(jl(*objs), path)
    return build_transcript(path, parsed.format, parsed.header, parsed.entries,
                            parsed.diagnostics)


# ----------------------------------------------------------------------------- Codex

CX_SID = "019d2308-c368-7ca0-8331-65a7d470352c"
CX_P = Path(f"/virtual/sessions/2026/03/24/rollout-2026-03-24T21-27-50-{CX_SID}.jsonl")
TS = "2026-03-25T03:29:02.342Z"


def rec(line_type: str, **payload: Any) -> dict[str, Any]:
    return {"timestamp": TS, "type": line_type, "payload": payload}


def item(kind: str, **fields: Any) -> dict[str, Any]:
    return rec("response_item", type=kind, **fields)


def event(kind: str, **fields: Any) -> dict[str, Any]:
    return rec("event_msg", type=kind, **fields)


def text_msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return item("message", role=role, content=[{"type": kind, "text": text}])


def usage(total: int, cached: int = 0) -> dict[str, Any]:
    last = {"input_tokens": total - 10, "cached_input_tokens": cached, "output_tokens": 10,
            "reasoning_output_tokens": 3, "total_tokens": total}
    return {"total_token_usage": last, "last_token_usage": last, "model_context_window": 258400}


META = rec("session_meta", id=CX_SID, timestamp="2026-03-25T03:27:50.125Z", cwd="/w",
           originator="codex_cli_rs", cli_version="0.117.0", model_provider="openai",
           git={"branch": "main"}, base_instructions={"text": "You are Codex."})
TURN = rec("turn_context", turn_id="t1", cwd="/w", model="gpt-5.4", effort="high")


def cx_load(*objs: Any, path: Path = CX_P) -> Transcript:
    parsed = codex.parse(jl(*objs), path)
    return build_transcript(path, parsed.format, parsed.header, parsed.entries,
                            parsed.diagnostics)
