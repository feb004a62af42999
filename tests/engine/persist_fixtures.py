"""Synthetic transcripts and strict-reader checks shared by the persist tests."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

SESSION_ID = "0b7f3c1e-5a2d-4c6b-9e8f-1a2b3c4d5e6f"
ISO_MS_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
SUCCESSOR_NAME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$")


class Builder:
    """Writes v3 (or v1) transcripts entry by entry; ``parent`` defaults to the leaf."""

    def __init__(self, session_id: str = SESSION_ID, cwd: str = "/home/dev/proj",
                 version: int = 3, parent_session: str | None = None) -> None:
        header: dict[str, Any] = {"type": "session", "version": version, "id": session_id,
                                  "timestamp": "2026-02-01T10:00:00.000Z", "cwd": cwd}
        if version == 1:
            del header["version"]
        if parent_session is not None:
            header["parentSession" if version > 1 else "branchedFrom"] = parent_session
        self.version = version
        self.lines: list[dict[str, Any]] = [header]
        self.leaf: str | None = None
        self.n = 0

    def add(self, obj: dict[str, Any], parent: str | None | object = ...) -> str:
        self.n += 1
        eid = f"{0xa0000000 + self.n:08x}"
        base: dict[str, Any] = {"type": obj.pop("type")}
        if self.version > 1:
            base["id"] = eid
            base["parentId"] = self.leaf if parent is ... else parent
        base["timestamp"] = f"2026-02-01T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z"
        self.lines.append({**base, **obj})
        self.leaf = eid
        return eid

    def user(self, text: str, **kw: Any) -> str:
        return self.add({"type": "message", "message": {"role": "user", "content": text,
                                                        "timestamp": 1}}, **kw)

    def assistant(self, text: str, calls: tuple[str, ...] = (), **kw: Any) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        content += [{"type": "toolCall", "id": c, "name": "read", "arguments": {"path": "a"}}
                    for c in calls]
        return self.add({"type": "message", "message": {
            "role": "assistant", "content": content, "api": "openai-completions",
            "provider": "p", "model": "m", "stopReason": "toolUse" if calls else "stop",
            "usage": {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": 120}, "timestamp": 2}}, **kw)

    def tool_result(self, call: str, text: str, **kw: Any) -> str:
        return self.add({"type": "message", "message": {
            "role": "toolResult", "toolCallId": call, "toolName": "read",
            "content": [{"type": "text", "text": text}], "isError": False,
            "timestamp": 3}}, **kw)

    def state(self, etype: str, **fields: Any) -> str:
        return self.add({"type": etype, **fields})

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in self.lines),
                        encoding="utf-8")
        return path


def rich_session(folder: Path, name: str = f"{SESSION_ID}.jsonl") -> tuple[Path, dict[str, str]]:
    """A v3 session with state entries, labels, a side branch and tool calls.

    Active path: mc1 tl si1 u1 a1 tr1 a2 lab1 mc2 si2 u2 a3 tr2 a4 u3 a5 u4 a6; side branch
    us -> as hangs off a2, with a label on ``as``.
    """
    b = Builder()
    ids: dict[str, str] = {}
    ids["mc1"] = b.state("model_change", provider="p", modelId="m1")
    ids["tl"] = b.state("thinking_level_change", thinkingLevel="off")
    ids["si1"] = b.state("session_info", name="first name")
    ids["u1"] = b.user("please read the config file")
    ids["a1"] = b.assistant("reading", calls=("call_1",))
    ids["tr1"] = b.tool_result("call_1", "config = 1")
    ids["a2"] = b.assistant("the config sets one value")
    ids["lab1"] = b.state("label", targetId=ids["u1"], label="start")
    ids["mc2"] = b.state("model_change", provider="p", modelId="m2")
    ids["si2"] = b.state("session_info", name="second name")
    ids["u2"] = b.user("now check the tests")
    ids["a3"] = b.assistant("checking", calls=("call_2",))
    ids["tr2"] = b.tool_result("call_2", "3 passed")
    ids["a4"] = b.assistant("all 3 tests pass")
    main_leaf = b.leaf
    ids["us"] = b.user("side question", parent=ids["a2"])
    ids["as"] = b.assistant("side answer")
    ids["labs"] = b.state("label", targetId=ids["as"], label="side")
    b.leaf = main_leaf
    ids["u3"] = b.user("write the release notes")
    ids["a5"] = b.assistant("notes written")
    ids["u4"] = b.user("thanks, ship it")
    ids["a6"] = b.assistant("shipped")
    return b.write(folder / name), ids


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def _parseable_ts(value: Any) -> bool:
    if not isinstance(value, str) or not value:
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def assert_strict_v3(path: Path) -> list[dict[str, Any]]:
    """Check ``path`` the way OpenClaw's strict reader does, plus our tree rules.

    Returns the entries (without the header). Every line must be JSON; the header needs
    version 3, an id, a parseable timestamp and a cwd; entries need string type/id/timestamp
    and a parentId that is a string or null; ids are unique; every parent exists; the last
    line's parent chain reaches a root without a cycle.
    """
    raw = path.read_bytes()
    assert raw.endswith(b"\n"), "file must end with a newline"
    lines = raw.split(b"\n")[:-1]
    objs = [json.loads(line) for line in lines]
    head, entries = objs[0], objs[1:]
    assert head["type"] == "session" and head["version"] == 3
    assert isinstance(head["id"], str) and head["id"]
    assert _parseable_ts(head["timestamp"])
    assert isinstance(head["cwd"], str) and head["cwd"]
    assert "parentSession" not in head or isinstance(head["parentSession"], str)
    ids: set[str] = set()
    for e in entries:
        assert isinstance(e["type"], str) and isinstance(e["id"], str) and e["id"]
        assert _parseable_ts(e["timestamp"]), e
        assert e["parentId"] is None or isinstance(e["parentId"], str)
        assert e["id"] not in ids, f"duplicate id {e['id']}"
        ids.add(e["id"])
    by_id = {e["id"]: e for e in entries}
    for e in entries:
        assert e["parentId"] is None or e["parentId"] in by_id, f"dangling parent in {e}"
    seen: set[str] = set()
    node: str | None = entries[-1]["id"] if entries else None
    while node is not None:
        assert node not in seen, "cycle on the leaf path"
        seen.add(node)
        node = by_id[node]["parentId"]
    return entries


def path_to_root(entries: list[dict[str, Any]], leaf: str) -> list[str]:
    by_id = {e["id"]: e for e in entries}
    out: list[str] = []
    node: str | None = leaf
    while node is not None:
        out.append(node)
        node = by_id[node]["parentId"]
    return out[::-1]
