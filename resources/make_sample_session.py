"""Write the bundled sample session (gui/.../assets/sample/sample-session.jsonl).

A developer and an OpenClaw agent chase a flaky retry test in a small payments service:
reads, edits, test runs, a user-run bash command, a screenshot, an aborted turn, a
provider error, an abandoned branch with its branch summary, labels, a session name, a
context overflow that triggers a compaction with a structured summary, and a second stretch
of work that climbs towards the threshold again. Usage grows with the text actually in the
file, so the three token numbers stay close to each other.

Deterministic (fixed seed): run ``python resources/make_sample_session.py`` to regenerate.
"""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sample_story import PHASE_ONE, PHASE_TWO, SUMMARY, module_source, pytest_output

OUT = (Path(__file__).resolve().parents[1] / "gui" / "src" / "sessionlens" / "gui" / "assets"
       / "sample" / "sample-session.jsonl")
CWD = "/home/dev/src/ledgerline"
PROVIDER, MODEL, API = "openai", "gpt-4o-2024-11-20", "openai-responses"
#: System prompt + tool schemas: counted by the provider, never written to the transcript.
BASE_CONTEXT = 13_850


class Writer:
    """Appends entries with pi-style 8-hex ids, a moving clock and a running context size."""

    def __init__(self) -> None:
        self.rng = random.Random(20260130)
        self.lines: list[dict[str, object]] = []
        self.clock = datetime(2026, 1, 30, 9, 12, 4, tzinfo=UTC)
        self.leaf: str | None = None
        self.context = BASE_CONTEXT
        self.ids: set[str] = set()
        self.call_n = 0

    def new_id(self) -> str:
        while True:
            i = f"{self.rng.getrandbits(32):08x}"
            if i not in self.ids:
                self.ids.add(i)
                return i

    def tick(self, lo: float = 2, hi: float = 40) -> str:
        self.clock += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def ms(self) -> int:
        return int(self.clock.timestamp() * 1000)

    def add(self, kind: str, parent: str | None = "LEAF", **fields: object) -> str:
        eid = self.new_id()
        pid = self.leaf if parent == "LEAF" else parent
        row: dict[str, object] = {"type": kind, "id": eid, "parentId": pid, "timestamp": self.tick()}
        row.update(fields)
        self.lines.append(row)
        self.leaf = eid
        return eid

    def grow(self, text: str) -> None:
        self.context += max(1, len(text) // 4)

    # messages -------------------------------------------------------------------------------
    def user(self, text: str, image: bytes | None = None) -> str:
        content: list[dict[str, object]] = [{"type": "text", "text": text}]
        if image is not None:
            content.append({"type": "image", "mimeType": "image/png",
                            "data": base64.b64encode(image).decode()})
            self.context += 780
        self.grow(text)
        return self.add("message", message={"role": "user", "content": content, "timestamp": self.ms()})

    def assistant(self, text: str = "", *, thinking: str = "", calls: list[tuple[str, dict[str, object]]] = (),  # type: ignore[assignment]
                  stop: str | None = None, error: str | None = None, usage: bool = True) -> tuple[str, list[str]]:
        content: list[dict[str, object]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking,
                            "thinkingSignature": f"rs_{self.rng.getrandbits(64):016x}"})
        if text:
            content.append({"type": "text", "text": text})
        call_ids = []
        for name, args in calls:
            self.call_n += 1
            cid = f"call_{self.rng.getrandbits(48):012x}|fc_{self.rng.getrandbits(48):012x}"
            call_ids.append(cid)
            content.append({"type": "toolCall", "id": cid, "name": name, "arguments": args})
        out_tokens = max(8, (len(text) + len(thinking) + sum(len(json.dumps(a)) for _, a in calls)) // 4)
        stop = stop or ("toolUse" if calls else "stop")
        msg: dict[str, object] = {"role": "assistant", "content": content, "api": API,
                                  "provider": PROVIDER, "model": MODEL, "stopReason": stop,
                                  "timestamp": self.ms()}
        if usage:
            cached = int(self.context * self.rng.uniform(0.55, 0.85)) if self.context > 20_000 else 0
            msg["usage"] = {"input": self.context - cached, "output": out_tokens, "cacheRead": cached,
                            "cacheWrite": 0, "totalTokens": self.context + out_tokens,
                            "cost": {"input": round((self.context - cached) * 2.5e-6, 6),
                                     "output": round(out_tokens * 1e-5, 6),
                                     "cacheRead": round(cached * 1.25e-6, 6), "cacheWrite": 0,
                                     "total": round((self.context - cached) * 2.5e-6 + out_tokens * 1e-5
                                                    + cached * 1.25e-6, 6)}}
        else:
            msg["usage"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
        if error:
            msg["errorMessage"] = error
        self.grow(text + thinking)
        self.context += out_tokens // 3
        return self.add("message", message=msg), call_ids

    def result(self, call_id: str, tool: str, text: str, *, is_error: bool = False) -> str:
        self.grow(text)
        return self.add("message", message={"role": "toolResult", "toolCallId": call_id, "toolName": tool,
                                            "content": [{"type": "text", "text": text}],
                                            "isError": is_error, "timestamp": self.ms()})

    def bash(self, command: str, output: str, code: int) -> str:
        self.grow(command + output)
        return self.add("message", message={"role": "bashExecution", "command": command,
                                            "output": output, "exitCode": code, "cancelled": False,
                                            "truncated": False, "timestamp": self.ms()})


def tool_output(w: Writer, tool: str, args: dict[str, object], spec: dict[str, object]) -> tuple[str, bool]:
    """What a tool call returned, made from the story step."""
    if "result" in spec:
        return str(spec["result"]), bool(spec.get("error", False))
    if tool == "read":
        return module_source(str(args["path"]), w.rng, int(spec.get("size", 140))), False
    if tool == "bash":
        passed, failed = spec.get("tests", (41, 0))  # type: ignore[misc]
        return pytest_output(str(args["command"]), int(passed), int(failed), w.rng), int(failed) > 0
    if tool in ("edit", "write"):
        return f"Successfully {'edited' if tool == 'edit' else 'wrote'} {args['path']}", False
    return "(no output)", False


def png_chart(width: int = 180, height: int = 72) -> bytes:
    """A tiny PNG of a spiky line chart (the 'Grafana screenshot' the user pastes)."""
    rng = random.Random(7)
    ys = [int(height * 0.75 - (rng.random() * 10 + (40 if 110 < x < 126 else 0))) for x in range(width)]
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            on = abs(y - ys[x]) <= 1
            grid = y % 18 == 0 or x % 30 == 0
            row += bytes((47, 126, 216) if on else (222, 226, 232) if grid else (248, 249, 251))
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def play(w: Writer, steps: list[dict[str, object]], marks: dict[str, str]) -> None:
    """Turn story steps into entries; ``mark`` names remember ids for labels and branches."""
    for spec in steps:
        kind = spec["kind"]
        if kind == "user":
            eid = w.user(str(spec["text"]), png_chart() if spec.get("image") else None)
        elif kind == "bash":
            eid = w.bash(str(spec["command"]), str(spec["output"]), int(spec.get("code", 0)))  # type: ignore[call-overload]
        elif kind == "assistant":
            calls = [(str(c[0]), dict(c[1])) for c in spec.get("calls", [])]  # type: ignore[attr-defined]
            eid, ids = w.assistant(str(spec.get("text", "")), thinking=str(spec.get("thinking", "")),
                                   calls=calls, stop=spec.get("stop"), error=spec.get("error"),  # type: ignore[arg-type]
                                   usage=not spec.get("no_usage"))
            outs = spec.get("outputs", [{}] * len(calls))
            for (tool, args), cid, out in zip(calls, ids, outs, strict=True):  # type: ignore[arg-type]
                text, err = tool_output(w, tool, args, out)
                w.result(cid, tool, text, is_error=err)
        elif kind == "overflow":
            w.context = int(spec["tokens"])  # type: ignore[call-overload]
            eid, _ = w.assistant(stop="error", error=str(spec["error"]), usage=False)
        elif kind == "branch_back":
            target = marks[str(spec["to"])]
            w.leaf = target
            eid = w.add("branch_summary", parent=target, fromId=target, summary=str(spec["summary"]),
                        details={"readFiles": spec.get("read", []), "modifiedFiles": []})
            w.context = int(spec["context"])  # type: ignore[call-overload]
        elif kind == "label":
            keep = w.leaf
            w.add("label", targetId=marks[str(spec["target"])], label=str(spec["label"]))
            w.leaf = w.lines[-1]["id"]  # type: ignore[assignment]
            eid = keep or ""
        elif kind == "compaction":
            first = marks[str(spec["first_kept"])]
            eid = w.add("compaction", summary=SUMMARY, firstKeptEntryId=first, tokensBefore=int(spec["before"]),  # type: ignore[call-overload]
                        details={"readFiles": spec["read"], "modifiedFiles": spec["modified"]}, fromHook=False)
            w.context = int(spec["after"])  # type: ignore[call-overload]
        elif kind == "name":
            eid = w.add("session_info", name=str(spec["name"]))
        else:
            raise ValueError(f"unknown step {kind}")
        if "mark" in spec:
            marks[str(spec["mark"])] = eid


def build() -> list[dict[str, object]]:
    w = Writer()
    start = w.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    header = {"type": "session", "version": 3, "id": "0194b6c2-7f3e-7a51-9d2c-5e8f0a3b1c47",
              "timestamp": start, "cwd": CWD}
    w.add("model_change", parent=None, provider=PROVIDER, modelId=MODEL)
    w.add("thinking_level_change", thinkingLevel="medium")
    w.add("custom", customType="model-snapshot",
          data={"timestamp": w.ms(), "provider": PROVIDER, "modelApi": API, "modelId": MODEL})
    marks: dict[str, str] = {}
    play(w, PHASE_ONE, marks)
    play(w, PHASE_TWO, marks)
    return [header, *w.lines]


def main() -> None:
    rows = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(rows) - 1} entries, {len(text.encode()):,} bytes to {OUT}")


if __name__ == "__main__":
    main()
